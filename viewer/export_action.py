"""ExportScreen: write the audit report of the open tab as Markdown and JSON.

The report is the one `sealscope export PATH` prints for the tab's evidence, by its
kind (`build`): a ledger, snapshot or harn file's `core.export.build_report`, with the
work done in the session (restatements scored, diffs, added-since-seal,
recomputations); a kind `sealscope check` knows beyond those (`export.REPORT_KINDS`:
a receipt file, a distill or portable receipt, a continuity verdict, a pack, a
bundle, an AAT export) its `build_kind_report` from the tab's `KindCheck`; a fleet's
folder (`FOLDER`) its `build_folder_report`. Two files are written, `<base>.md` and
`<base>.json`. The default base is `<cwd>/<file stem>-audit` (in a `sealscope-audit/`
folder when the working directory is the evidence's own folder, or inside a folder
that is the evidence: then beside it); a target over an input, next to the evidence
(in its folder), inside a folder that is evidence, or over an existing file is
refused: nothing the export writes lands on evidence. A folder that does not exist is
never created silently: the screen says so and creates it only on a second Enter for
that same folder (`core.export.missing_folder`).

The report is built and written in a thread worker with a progress bar; Escape or the
Cancel button stops it (`core.export.Cancelled`, asked at every step of the core), and
a cancelled export leaves no file behind (what it had written, and a folder it had
created, are removed).

Each tab builds its own: `tab.export_screen()` (see `EvidenceTab`), which is
`ExportScreen(path, kind=..., session=[...], verify_result=..., seal=...)` (a kind
tab's `check=`). It is dismissed with the list of written paths, or None when
cancelled.
"""

from __future__ import annotations

import io
import os
import re
import threading
import zipfile
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from sealscope.core import export
from sealscope.core.checks.result import KindCheck
from sealscope.core.sanitize import clean
from sealscope.viewer.messages import ExportProgress
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.widgets import Button, Input, Label, ProgressBar, Static

__all__ = [
    "ExportScreen",
    "FOLDER",
    "Report",
    "build",
    "default_base",
    "check_target",
    "write_report",
    "report_zip",
]

FOLDER = "folder"
"""The kind of a fleet tab's export: the folder's report, as `sealscope export DIR`."""

Report = export.AuditReport | export.KindReport | export.FolderReport
"""A report the screen writes: each has its verdict, exit code, Markdown and JSON."""


def _real(p: str | os.PathLike) -> Path:
    return Path(os.path.abspath(os.path.expanduser(os.fspath(p)))).resolve()


def default_base(evidence: str | os.PathLike, cwd: str | os.PathLike | None = None) -> Path:
    """`<cwd>/<stem>-audit`, in `<cwd>/sealscope-audit/` when cwd is the evidence's
    folder, in `sealscope-audit/` beside a folder that is the evidence when cwd is in
    it; `-2`, `-3`, ... appended while either output already exists."""
    ev = _real(evidence)
    here = _real(cwd or os.getcwd())
    if ev.is_dir() and (here == ev or ev in here.parents):
        here = ev.parent  # never inside the evidence
    folder = here / "sealscope-audit" if here == ev.parent else here
    stem = ev.stem or ev.name or "evidence"
    base = folder / f"{stem}-audit"
    n = 1
    while (
        base.with_name(base.name + ".md").exists() or base.with_name(base.name + ".json").exists()
    ):
        n += 1
        base = folder / f"{stem}-audit-{n}"
    return base


def outputs_of(base: str | os.PathLike) -> tuple[Path, Path]:
    b = _real(base)
    if b.suffix.lower() in (".md", ".json"):
        b = b.with_suffix("")
    return b.with_name(b.name + ".md"), b.with_name(b.name + ".json")


def check_target(base: str | os.PathLike, protected: Iterable[str | os.PathLike]) -> str | None:
    """Why the outputs of `base` may not be written, or None when they may: never over
    an input, never in an input's folder, never inside an input that is a folder (a
    unit, a fleet), never over an existing file."""
    outs = outputs_of(base)
    for p in protected:
        if p is None:
            continue
        ev = _real(p)
        for o in outs:
            if o == ev:
                return f"{o} is an input file"
            if ev.is_dir() and ev in o.parents:
                return f"{o.parent} is inside the evidence folder {ev.name}; choose another folder"
            if o.parent == ev.parent:
                return f"{o.parent} holds the evidence {ev.name}; choose another folder"
    for o in outs:
        if o.exists():
            return f"{o} already exists"
    return None


def build(
    path: str,
    kind: str | None,
    *,
    check: KindCheck | None = None,
    session: Sequence[export.SessionRecord] = (),
    verify_result: Any = None,
    seal: export.SealFile | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
) -> Report:
    """The report `sealscope export PATH` writes for `path` of `kind` (module
    docstring): a fleet's folder, a kind `check` knows (from `check`, the tab's), or a
    ledger / snapshot / harn file with the session. `export.Cancelled` when
    `cancelled()` says so."""
    if kind == FOLDER:

        def on_file(_f: str) -> None:
            if cancelled is not None and cancelled():
                raise export.Cancelled

        return export.build_folder_report(path, on_file=on_file)
    if kind in export.REPORT_KINDS:
        return export.build_kind_report(path, check)
    return export.build_report(
        path,
        kind=kind,
        session=session,
        verify_result=verify_result,
        seal=seal,
        on_progress=on_progress,
        cancelled=cancelled,
    )


def write_report(
    report: Report,
    base: str | os.PathLike,
    *,
    create: bool = False,
    cancelled: Callable[[], bool] | None = None,
) -> list[str]:
    """Write `<base>.md` and `<base>.json`; the written paths. The folder is created
    only with `create` (the user asked for it). `export.Cancelled` when `cancelled()`
    says so before both are written; then, as on any failure, nothing written stays
    (neither file, nor a folder made for them)."""
    md, js = outputs_of(base)
    made = _make_folder(md.parent) if create else []
    done: list[Path] = []
    try:
        for out, text in ((md, report.to_markdown()), (js, report.to_json() + "\n")):
            if cancelled is not None and cancelled():
                raise export.Cancelled
            done.append(out)
            out.write_text(text, encoding="utf-8")
        if cancelled is not None and cancelled():
            raise export.Cancelled
    except BaseException:
        for out in done:
            out.unlink(missing_ok=True)
        for folder in reversed(made):
            try:
                folder.rmdir()
            except OSError:
                break
        raise
    return [str(md), str(js)]


def _make_folder(folder: Path) -> list[Path]:
    """Create `folder` and its missing parents; the folders made, outermost first."""
    missing = [f for f in (folder, *folder.parents) if not f.exists()][::-1]
    folder.mkdir(parents=True, exist_ok=True)
    return missing


def report_zip(report: Report, name: str) -> tuple[str, bytes]:
    """In a browser (`sealscope serve`) the report is downloaded, not written on the
    server: one `<name>.zip` holding `<name>.md` and `<name>.json` (one download, which a
    browser's pop-up blocker lets through). `name` is reduced to `[A-Za-z0-9._-]`."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(name).name).strip("._") or "audit"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(
            zipfile.ZipInfo(f"{safe}.md", (1980, 1, 1, 0, 0, 0)),
            report.to_markdown().encode("utf-8"),
        )
        z.writestr(
            zipfile.ZipInfo(f"{safe}.json", (1980, 1, 1, 0, 0, 0)),
            (report.to_json() + "\n").encode("utf-8"),
        )
    return f"{safe}.zip", buf.getvalue()


class ExportScreen(ModalScreen[list[str] | None]):
    """Choose where to write the report; builds and writes it in a thread worker with
    a progress bar, Escape or Cancel stopping it."""

    DEFAULT_CSS = """
    ExportScreen {
        align: center middle;
        background: $background 60%;
    }
    ExportScreen #export-box {
        width: 90;
        height: auto;
        padding: 1 2;
        border: round $accent;
        background: $panel;
    }
    ExportScreen #export-what { height: auto; margin-bottom: 1; }
    ExportScreen #export-status { height: auto; margin-top: 1; }
    ExportScreen #export-running { height: auto; margin-top: 1; display: none; }
    ExportScreen #export-running.running { display: block; }
    ExportScreen #export-progress { width: 1fr; padding-top: 1; }
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        path: str | os.PathLike,
        *,
        kind: str | None = None,
        session: Sequence[export.SessionRecord] = (),
        verify_result: Any = None,
        seal: export.SealFile | None = None,
        check: KindCheck | None = None,
        note: str = "",
        protected: Sequence[str | os.PathLike] = (),
        cwd: str | os.PathLike | None = None,
        id: str | None = None,
    ) -> None:
        """`check`: a kind tab's `KindCheck` (its report's verdict); `note`: what the
        report does not hold that the tab shows, said on the screen."""
        super().__init__(id=id)
        self.path = os.fspath(path)
        self.kind = kind
        self.check = check
        self.note = note
        self.session = list(session)
        self.verify_result = verify_result
        self.seal = seal
        inputs: list[str] = [self.path, *(os.fspath(p) for p in protected)]
        for r in self.session:
            inputs += [v for v in r.inputs.values() if isinstance(v, str) and os.path.exists(v)]
        self.protected = inputs
        self.base = default_base(self.path, cwd)
        self.web = False  # set on mount: in a browser the report is downloaded
        self.written: list[str] | None = None
        self.report: Report | None = None
        self.cancel_event: threading.Event | None = None  # set while an export runs
        self._create: Path | None = None  # the missing folder a second Enter creates

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Label(Text("Export the audit report", style="bold"), id="export-title")
            what = Text()
            what.append(clean(self.path))
            what.append(f"  ·  {self.kind or 'detect kind'}", "dim")
            what.append(f"  ·  {len(self.session)} session record(s)", "dim")
            if self.note:
                what.append("\n" + clean(self.note), "italic yellow")
            yield Static(what, id="export-what")
            yield Input(
                value=str(self.base),
                id="export-input",
                placeholder="base path: writes <base>.md and <base>.json",
            )
            with Horizontal(id="export-running"):
                yield ProgressBar(total=100, show_eta=False, id="export-progress")
                yield Button("Cancel", id="export-cancel", variant="error")
            yield Static(
                Text("enter writes <base>.md and <base>.json · escape cancels", style="dim"),
                id="export-status",
            )

    def on_mount(self) -> None:
        self.web = self.app.is_web
        if self.web:
            self.query_one("#export-input", Input).value = self.base.name
            self.query_one("#export-status", Static).update(
                Text(
                    "enter downloads <name>.zip (Markdown and JSON) to this browser · "
                    "escape cancels",
                    style="dim",
                )
            )

    @classmethod
    def of_folder(cls, path: str | os.PathLike) -> ExportScreen:
        """The screen of a fleet tab's `x`: the folder's report (`FOLDER`)."""
        return cls(path, kind=FOLDER)

    @property
    def running(self) -> bool:
        return self.cancel_event is not None

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.export_to(event.value)

    def export_to(self, value: str) -> None:
        if self.running:
            return
        value = (value or "").strip()
        status = self.query_one("#export-status", Static)
        if not value:
            status.update(Text("give a base path", style="red"))
            return
        why = None if self.web else check_target(value, self.protected)
        if why is not None:
            status.update(Text("refused: " + clean(why), style="red"))
            return
        create = False
        if not self.web:
            folder = outputs_of(value)[0].parent
            missing = export.missing_folder(outputs_of(value)[0])
            if missing is not None and (self._create != folder or os.path.exists(folder)):
                self._create = None if os.path.exists(folder) else folder
                status.update(
                    Text(
                        clean(missing)
                        + (
                            ": enter again creates it and writes there, or change the path"
                            if self._create is not None
                            else ": choose another path"
                        ),
                        style="yellow",
                    )
                )
                return
            create = missing is not None
        self._show_running(True)
        status.update(Text("building the report… escape or Cancel stops it", style="dim"))
        self._export(value, create, self.cancel_event)

    def _show_running(self, on: bool) -> None:
        self.cancel_event = threading.Event() if on else None
        self.query_one("#export-running").set_class(on, "running")
        self.query_one("#export-input", Input).disabled = on
        cancel = self.query_one("#export-cancel", Button)
        cancel.disabled = not on
        if on:
            self.query_one("#export-progress", ProgressBar).update(progress=0)
            cancel.focus()

    @work(thread=True, exclusive=True, group="export")
    def _export(self, base: str, create: bool, cancel: threading.Event | None) -> None:
        stop = cancel.is_set if cancel is not None else None
        try:
            report = build(
                self.path,
                self.kind,
                check=self.check,
                session=self.session,
                verify_result=self.verify_result,
                seal=self.seal,
                on_progress=self._progress,
                cancelled=stop,
            )
            if self.web:
                if stop is not None and stop():
                    raise export.Cancelled
                name, data = report_zip(report, base)
                self.app.call_from_thread(
                    self.app.deliver_binary,
                    io.BytesIO(data),
                    save_filename=name,
                    mime_type="application/zip",
                )
                written = [name]
            else:
                written = write_report(report, base, create=create, cancelled=stop)
        except export.Cancelled:
            self.app.call_from_thread(self._cancelled)
            return
        except (OSError, ValueError) as e:
            self.app.call_from_thread(self._failed, str(e))
            return
        self.app.call_from_thread(self._done, report, written)

    def _progress(self, done: int, total: int) -> None:
        """From the worker: the share of the file read so far."""
        self.post_message(ExportProgress(100.0 * done / total if total else 100.0))

    def on_export_progress(self, m: ExportProgress) -> None:
        self.query_one("#export-progress", ProgressBar).update(progress=m.pct)

    def _failed(self, message: str) -> None:
        self._show_running(False)
        self.query_one("#export-input", Input).focus()
        self.query_one("#export-status", Static).update(
            Text("could not export: " + clean(message), style="red")
        )

    def _cancelled(self) -> None:
        self._show_running(False)
        self.app.notify("export cancelled: nothing written", markup=False)
        self.dismiss(None)

    def _done(self, report: Report, written: list[str]) -> None:
        self._show_running(False)
        self.report, self.written = report, written
        what = f"sent {written[0]}" if self.web else f"wrote {written[0]} and .json"
        self.app.notify(clean(f"{what} ({report.verdict}, exit {report.exit_code})"), markup=False)
        self.dismiss(written)

    def on_button_pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "export-cancel":
            event.stop()
            self.action_cancel()

    def action_cancel(self) -> None:
        """Stop the export that runs (the worker removes what it wrote), or close."""
        if self.cancel_event is None:
            self.dismiss(None)
            return
        self.cancel_event.set()
        self.query_one("#export-cancel", Button).disabled = True
        self.query_one("#export-status", Static).update(
            Text("cancelling… nothing will be written", style="yellow")
        )
