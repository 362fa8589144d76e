"""ExportScreen: write the audit report of the open tab as Markdown and JSON.

The report is `core.export.build_report` over the tab's file, with the work done in
the session (restatements scored, diffs, added-since-seal, recomputations) — the
same value `sealscope export` prints. Two files are written, `<base>.md` and
`<base>.json`. The default base is `<cwd>/<file stem>-audit` (in a `sealscope-audit/`
folder when the working directory is the evidence's own folder); a target over an
input, next to the evidence (in its folder), or over an existing file is refused.

Each tab builds its own: `tab.export_screen()` (see `EvidenceTab`), which is
`ExportScreen(path, kind=..., session=[...], verify_result=..., seal=...)`. It is
dismissed with the list of written paths, or None when cancelled.
"""
from __future__ import annotations

import io
import os
import re
import zipfile
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Input, Label, Static

from sealscope.core import export
from sealscope.core.sanitize import clean

__all__ = ["ExportScreen", "default_base", "check_target", "write_report", "report_zip"]


def _real(p: str | os.PathLike) -> Path:
    return Path(os.path.abspath(os.path.expanduser(os.fspath(p)))).resolve()


def default_base(evidence: str | os.PathLike, cwd: str | os.PathLike | None = None) -> Path:
    """`<cwd>/<stem>-audit`, in `<cwd>/sealscope-audit/` when cwd is the evidence's
    folder; `-2`, `-3`, ... appended while either output already exists."""
    ev = _real(evidence)
    here = _real(cwd or os.getcwd())
    folder = here / "sealscope-audit" if here == ev.parent else here
    stem = ev.stem or ev.name or "evidence"
    base = folder / f"{stem}-audit"
    n = 1
    while base.with_name(base.name + ".md").exists() or \
            base.with_name(base.name + ".json").exists():
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
    an input, never in an input's folder, never over an existing file."""
    outs = outputs_of(base)
    for p in protected:
        if p is None:
            continue
        ev = _real(p)
        for o in outs:
            if o == ev:
                return f"{o} is an input file"
            if o.parent == ev.parent:
                return f"{o.parent} holds the evidence {ev.name}; choose another folder"
    for o in outs:
        if o.exists():
            return f"{o} already exists"
    return None


def write_report(report: export.AuditReport, base: str | os.PathLike) -> list[str]:
    """Write `<base>.md` and `<base>.json`; the written paths."""
    md, js = outputs_of(base)
    md.parent.mkdir(parents=True, exist_ok=True)
    md.write_text(report.to_markdown(), encoding="utf-8")
    js.write_text(report.to_json() + "\n", encoding="utf-8")
    return [str(md), str(js)]


def report_zip(report: export.AuditReport, name: str) -> tuple[str, bytes]:
    """In a browser (`sealscope serve`) the report is downloaded, not written on the
    server: one `<name>.zip` holding `<name>.md` and `<name>.json` (one download, which a
    browser's pop-up blocker lets through). `name` is reduced to `[A-Za-z0-9._-]`."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", Path(name).name).strip("._") or "audit"
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo(f"{safe}.md", (1980, 1, 1, 0, 0, 0)),
                   report.to_markdown().encode("utf-8"))
        z.writestr(zipfile.ZipInfo(f"{safe}.json", (1980, 1, 1, 0, 0, 0)),
                   (report.to_json() + "\n").encode("utf-8"))
    return f"{safe}.zip", buf.getvalue()


class ExportScreen(ModalScreen[list[str] | None]):
    """Choose where to write the report; writes it in a thread."""

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
    """
    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, path: str | os.PathLike, *, kind: str | None = None,
                 session: Sequence[export.SessionRecord] = (), verify_result: Any = None,
                 seal: export.SealFile | None = None,
                 protected: Sequence[str | os.PathLike] = (),
                 cwd: str | os.PathLike | None = None, id: str | None = None) -> None:
        super().__init__(id=id)
        self.path = os.fspath(path)
        self.kind = kind
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
        self.report: export.AuditReport | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="export-box"):
            yield Label(Text("Export the audit report", style="bold"), id="export-title")
            what = Text()
            what.append(clean(self.path))
            what.append(f"  ·  {self.kind or 'detect kind'}", "dim")
            what.append(f"  ·  {len(self.session)} session record(s)", "dim")
            yield Static(what, id="export-what")
            yield Input(value=str(self.base), id="export-input",
                        placeholder="base path: writes <base>.md and <base>.json")
            yield Static(Text("enter writes <base>.md and <base>.json · escape cancels",
                              style="dim"), id="export-status")

    def on_mount(self) -> None:
        self.web = self.app.is_web
        if self.web:
            self.query_one("#export-input", Input).value = self.base.name
            self.query_one("#export-status", Static).update(Text(
                "enter downloads <name>.zip (Markdown and JSON) to this browser · "
                "escape cancels", style="dim"))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.export_to(event.value)

    def export_to(self, value: str) -> None:
        value = (value or "").strip()
        status = self.query_one("#export-status", Static)
        if not value:
            status.update(Text("give a base path", style="red"))
            return
        why = None if self.web else check_target(value, self.protected)
        if why is not None:
            status.update(Text("refused: " + clean(why), style="red"))
            return
        status.update(Text("building the report…", style="dim"))
        self._export(value)

    @work(thread=True, exclusive=True, group="export")
    def _export(self, base: str) -> None:
        try:
            report = export.build_report(self.path, kind=self.kind, session=self.session,
                                         verify_result=self.verify_result, seal=self.seal)
            if self.web:
                name, data = report_zip(report, base)
                self.app.call_from_thread(self.app.deliver_binary, io.BytesIO(data),
                                          save_filename=name, mime_type="application/zip")
                written = [name]
            else:
                written = write_report(report, base)
        except (OSError, ValueError) as e:
            self.app.call_from_thread(self._failed, str(e))
            return
        self.app.call_from_thread(self._done, report, written)

    def _failed(self, message: str) -> None:
        self.query_one("#export-status", Static).update(
            Text("could not export: " + clean(message), style="red"))

    def _done(self, report: export.AuditReport, written: list[str]) -> None:
        self.report, self.written = report, written
        what = f"sent {written[0]}" if self.web else f"wrote {written[0]} and .json"
        self.app.notify(clean(f"{what} ({report.verdict}, exit {report.exit_code})"),
                        markup=False)
        self.dismiss(written)

    def action_cancel(self) -> None:
        self.dismiss(None)
