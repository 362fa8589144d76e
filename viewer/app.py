"""SealscopeApp: one tab per open file — a ledger (LedgerTab), a continuity snapshot
(SealTab) or a harn transcript / run record (HarnPane) — the screens for held content,
lookups, pin/witness checks and exports, everything in the footer and the command
palette.

What a path opens as (`classify`): a file `core.export.detect_kind` calls a snapshot is
a seal tab; a `.json` file `core.harn.load` reads is a harn tab (a `HarnShapeError`
means "not harn": it falls through; any other `HarnError` is a read error, shown as a
notification); anything else is a ledger. A folder contributes its ledgers, snapshots
and harn files (not recursive); the bundled `sample_ledgers/` folder (also what the app
opens with no paths) contributes the curated `SAMPLE_TABS`, subfolders included.
"""
from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable, Sequence

from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, TabbedContent

from sealscope.core.sanitize import clean
from sealscope.sample_ledgers import FOLDER as SAMPLES_DIR  # the installed samples
from sealscope.viewer.harn_tab import HarnPane
from sealscope.viewer.ledger_tab import LedgerTab
from sealscope.viewer.messages import JumpToLedgerRow
from sealscope.viewer.prompt import PathSuggester, PromptScreen, pasted_path
from sealscope.viewer.seal_tab import SealTab, find_seal_tab, system_commands

LEDGER_SUFFIXES = (".jsonl", ".ndjson", ".log")

# What `sealscope` with no arguments opens, in tab order (documented in
# sample_ledgers/README.md): the ledgers, the seals ledger, the two valid seals and the
# harn session transcript. Held content, pins, witness stores, restatements, tiers,
# manifests, the tampered seal and the run record are inputs or extra cases: open them
# with `o` or on the command line.
SAMPLE_TABS = (
    "session.jsonl", "tampered.jsonl", "truncated.jsonl", "liar.jsonl",
    "declared-break.jsonl", "hostile.jsonl",
    "seals/seals-ledger.jsonl", "seals/seal-day1.json", "seals/seal-day2.json",
    "harn/session-transcript.json",
)


@dataclass
class Openable:
    """What one file opens as: kind "ledger", "seal", "harn" (with its loaded
    document) or "error" (with the one-line reason it cannot be opened)."""
    path: Path
    kind: str
    doc: Any = None
    error: str | None = None


def classify(path: os.PathLike | str) -> Openable:
    from sealscope.core import harn
    from sealscope.core.export import detect_kind

    p = Path(path)
    try:
        kind = detect_kind(p)
    except Exception:  # noqa: BLE001 - detect_kind never raises; a ledger tab says why
        kind = "ledger"
    if kind == "snapshot":
        return Openable(p, "seal")
    if p.suffix.lower() == ".json":
        try:
            return Openable(p, "harn", doc=harn.load(p))
        except (harn.HarnShapeError, harn.HarnParseError, harn.HarnTooLargeError):
            pass                  # not a harn transcript (or too big to be one): a ledger
        except harn.HarnError as e:
            return Openable(p, "error", error=e.message)
        except Exception as e:  # noqa: BLE001 - never a traceback for a file's content
            return Openable(p, "error", error=f"cannot read {p}: {type(e).__name__}: {e}")
    return Openable(p, "ledger")


def is_samples_dir(p: Path) -> bool:
    try:
        return p.resolve() == SAMPLES_DIR.resolve()
    except OSError:
        return False


def sample_paths(folder: Path = SAMPLES_DIR) -> list[Path]:
    """The curated sample files that exist, in tab order."""
    return [folder / name for name in SAMPLE_TABS if (folder / name).is_file()]


def _folder_files(folder: Path) -> list[Path]:
    try:
        children = sorted(c for c in folder.iterdir() if c.is_file())
    except OSError:
        return []
    out = []
    for c in children:
        suffix = c.suffix.lower()
        if suffix in LEDGER_SUFFIXES:
            out.append(c)
        elif suffix == ".json" and classify(c).kind in ("seal", "harn"):
            out.append(c)
    return out


def expand_paths(paths: Sequence[os.PathLike | str]) -> list[Path]:
    """Files as given; a folder contributes its ledger files and its snapshot and harn
    `.json` files (not recursive), sorted; the bundled samples folder contributes
    `SAMPLE_TABS` (its `seals/` and `harn/` subfolders included)."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(sample_paths(p) if is_samples_dir(p) else _folder_files(p))
        else:
            out.append(p)
    return out


class SealscopeApp(App):
    """The terminal audit viewer."""

    CSS_PATH = "app.tcss"
    TITLE = "sealscope"
    SUB_TITLE = "audit viewer"

    BINDINGS = [
        Binding("l", "lookup", "Look up"),
        Binding("c", "check", "Pin"),
        Binding("x", "export", "Export"),
        Binding("o", "open", "Open"),
        Binding("question_mark", "samples_readme", "Samples README", show=False),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, paths: Sequence[os.PathLike | str] = (), **kw) -> None:
        super().__init__(**kw)
        self.paths = expand_paths(paths) if paths else sample_paths()
        self._tab_seq = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield TabbedContent(id="tabs")
        yield Footer()

    async def on_mount(self) -> None:
        for p in self.paths:
            await self.open_path(p, activate=False)
        if not self.paths:
            self.notify("no files open — press o to open a ledger", markup=False)

    # ------------------------------------------------------------------ tabs
    async def open_path(self, path: os.PathLike | str, *, activate: bool = True) -> Any:
        """Open one file in a new tab (or show the tab that has it open): the tab, or
        None when the file cannot be opened (a notification says why)."""
        p = Path(path)
        have = self._open_tab_for(p)
        if have is not None:
            if activate:
                self.show_tab(have)
            return have
        what = classify(p)
        try:
            if what.kind == "seal":
                tab = await self.add_seal(p)
            elif what.kind == "harn":
                tab = await self.add_harn(what.doc, p)
            elif what.kind == "ledger":
                tab = await self.add_ledger(p)
            else:
                self.notify("cannot open " + clean(str(p)) + ": " + clean(what.error or ""),
                            title="not opened", markup=False, severity="error")
                return None
        except Exception as e:  # noqa: BLE001 - never a traceback for a file
            self.notify("cannot open " + clean(str(p)) + f": {type(e).__name__}: "
                        + clean(str(e)), title="not opened", markup=False, severity="error")
            return None
        if activate:
            self.show_tab(tab)
        return tab

    def _open_tab_for(self, p: Path) -> Any:
        try:
            want = p.resolve()
        except OSError:
            return None
        for pane in self.panes():
            path = self._pane_path(pane)
            try:
                if path is not None and Path(path).resolve() == want:
                    return pane
            except OSError:
                continue
        return None

    @staticmethod
    def _pane_path(pane: Any) -> str | None:
        if isinstance(pane, LedgerTab):
            return str(pane.source.path)
        if isinstance(pane, (SealTab, HarnPane)):
            return str(pane.path)
        return None

    async def _add(self, tab: Any) -> Any:
        tabs = self.query_one(TabbedContent)
        await tabs.add_pane(tab)
        if not tabs.active or tabs.active == tab.id:
            tabs.active = tab.id or ""
            self._focus_pane(tab)
        return tab

    def _next_id(self, kind: str) -> str:
        self._tab_seq += 1
        return f"{kind}-{self._tab_seq}"

    async def add_ledger(self, path: Path) -> LedgerTab:
        tab = await self._add(LedgerTab(path, id=self._next_id("ledger")))
        for seal in self.seal_tabs():
            seal.scan_ledger(tab.source.path)
        return tab

    async def add_seal(self, path: Path) -> SealTab:
        tab = await self._add(SealTab(path, id=self._next_id("seal"), tiers=None))
        for lt in self.ledger_tabs():
            tab.scan_ledger(lt.source.path)
        return tab

    async def add_harn(self, doc_or_path: Any, path: Path | None = None) -> HarnPane:
        return await self._add(HarnPane(doc_or_path, path=path, id=self._next_id("harn")))

    def panes(self) -> list[Any]:
        return [p for p in self.query_one(TabbedContent).query("TabPane")
                if isinstance(p, (LedgerTab, SealTab, HarnPane))]

    def ledger_tabs(self) -> list[LedgerTab]:
        return list(self.query(LedgerTab))

    def seal_tabs(self) -> list[SealTab]:
        return list(self.query(SealTab))

    def current_tab(self) -> Any:
        """The pane in front: a LedgerTab, SealTab or HarnPane (None with no tabs)."""
        try:
            tabs = self.query_one(TabbedContent)
        except Exception:  # noqa: BLE001 - not composed yet
            return None
        if not tabs.active:
            return None
        try:
            return tabs.get_pane(tabs.active)
        except Exception:  # noqa: BLE001
            return None

    def current_ledger(self) -> LedgerTab | None:
        tab = self.current_tab()
        return tab if isinstance(tab, LedgerTab) else None

    def show_tab(self, tab: Any) -> None:
        """Bring `tab` to the front and give it the keyboard."""
        tabs = self.query_one(TabbedContent)
        if tabs.active != tab.id:
            tabs.active = tab.id or ""
        self._focus_pane(tab)

    def show_line(self, tab: LedgerTab, line: int) -> None:
        """Switch to `tab` and select `line`."""
        self.query_one(TabbedContent).active = tab.id or ""
        tab._goto(line)

    @staticmethod
    def _focus_pane(pane: Any) -> None:
        try:
            if isinstance(pane, LedgerTab):
                pane.rows.focus()
            elif isinstance(pane, (SealTab, HarnPane)):
                pane.focus_default()
        except Exception:  # noqa: BLE001 - not composed yet: focus comes on activation
            pass

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if not self.screen_stack:  # a late activation while the app shuts down
            return
        self._focus_pane(event.pane)
        self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """`x` only where there is a report to write (a ledger, seal or harn tab on the
        main screen); `c` only with a ledger in front."""
        if action == "export":
            return bool(self.screen_stack) and self.screen is self.screen_stack[0] and \
                isinstance(self.current_tab(), (LedgerTab, SealTab, HarnPane))
        if action == "check":
            return self.current_ledger() is not None
        return True

    # ------------------------------------------------------------------ seals
    def on_jump_to_ledger_row(self, m: JumpToLedgerRow) -> None:
        for lt in self.ledger_tabs():
            if str(lt.source.path) == m.path:
                self.show_line(lt, m.line)
                return
        self.notify("the ledger of that row is no longer open", markup=False)

    def jump_to_seal(self, tab: LedgerTab) -> bool:
        """From the selected `continuity_snapshot` row of a ledger to its open seal."""
        line = tab.rows.current_line
        info = tab.source.row(line) if line else None
        if info is None or info.kind != "continuity_snapshot":
            self.notify("select a continuity_snapshot row first", markup=False)
            return False
        seal = find_seal_tab(self.query(SealTab), info.obj)
        if seal is None:
            self.notify("no open seal matches this row's digests — open its snapshot "
                        "file with o", markup=False)
            return False
        self.show_tab(seal)
        return True

    # ------------------------------------------------------------------ screens
    def open_held(self, tab: LedgerTab, line: int, pre: Path | None = None,
                  post: Path | None = None) -> None:
        from sealscope.viewer.held_screen import HeldContentScreen
        self.push_screen(HeldContentScreen(tab, line, pre=pre, post=post))

    def action_lookup(self) -> None:
        from sealscope.viewer.lookup_screen import LookupScreen
        self.push_screen(LookupScreen(origin=self.current_ledger()))

    def action_check(self) -> None:
        tab = self.current_ledger()
        if tab is None:
            self.notify("select a ledger tab first", markup=False)
            return
        from sealscope.viewer.pin_screen import PinScreen
        self.push_screen(PinScreen(tab))

    def action_export(self) -> None:
        from sealscope.viewer.export_action import export_screen_for
        if self.screen is not self.screen_stack[0]:
            return
        screen = export_screen_for(self.current_tab())
        if screen is None:
            self.notify("export works on a ledger, seal or harn tab", markup=False)
            return
        self.push_screen(screen)

    def action_samples_readme(self) -> None:
        from sealscope.viewer.readme_screen import SamplesReadmeScreen
        self.push_screen(SamplesReadmeScreen())

    def action_open(self) -> None:
        async def done(value: str | None) -> None:
            if not value:
                return
            p = pasted_path(value)
            if p is None:
                self.notify("no such file: " + clean(value), markup=False, severity="warning")
                return
            await self.open_paths([p])
        self.push_screen(PromptScreen("Open a file", "path to a ledger, a snapshot, a harn "
                                      "transcript or a folder",
                                      suggester=PathSuggester(), id="open-prompt"), done)

    async def open_paths(self, paths: Sequence[os.PathLike | str]) -> list[Any]:
        """Open files and folders (as on the command line); the last one opened is
        brought to the front."""
        got = [t for t in [await self.open_path(q, activate=False)
                           for q in expand_paths(paths)] if t is not None]
        if got:
            self.show_tab(got[-1])
        elif any(Path(p).is_dir() for p in paths):
            self.notify("nothing to open in that folder", markup=False)
        return got

    def tab_action(self, name: str) -> None:
        tab = self.current_ledger()
        if tab is None:
            self.notify("select a ledger tab first", markup=False)
            return
        getattr(tab, f"action_{name}")()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        yield from system_commands(self, screen)
        if isinstance(self.current_tab(), LedgerTab) and screen is self.screen_stack[0]:
            for title, help_, name in (
                ("Jump to first break", "Select the first break in this ledger",
                 "first_break"),
                ("Jump to next break", "Select the next break after the cursor", "next_break"),
                ("Jump to previous break", "Select the previous break", "prev_break"),
                ("Go to line", "Select a line by number", "goto"),
                ("Filter rows", "Show only rows of a status or kind", "filter"),
                ("Clear filter", "Show every row again", "clear_filter"),
                ("Search text", "Find text in the ledger", "search"),
                ("Held content for this receipt", "Load pre/post content and recompute",
                 "held"),
                ("Jump to the seal of this row", "From a continuity_snapshot row to its "
                 "open seal tab", "jump_seal"),
            ):
                yield SystemCommand(title, help_, lambda n=name: self.tab_action(n))
            yield SystemCommand("Check a pin or witness", "Compare this ledger with a head "
                                "pin or a witness store", self.action_check)
        yield SystemCommand("Look up an item", "Digest an item and find it in drop manifests",
                            self.action_lookup)
        if isinstance(self.current_tab(), (LedgerTab, SealTab)) and \
                screen is self.screen_stack[0]:
            yield SystemCommand("Export this tab's audit report",
                                "Write the report (Markdown and JSON) of the tab in front",
                                self.action_export)
        yield SystemCommand("Open a file", "Open a ledger, snapshot, harn file or folder "
                            "in a new tab", self.action_open)
        yield SystemCommand("Samples README", "What each bundled sample is and what it "
                            "should show (?)", self.action_samples_readme)

    # ------------------------------------------------------------------ paste
    async def on_paste(self, event: events.Paste) -> None:
        """A path pasted (or a file dragged onto the terminal) on the main screen: held
        content for the selected receipt, otherwise a new tab."""
        if self.screen is not self.screen_stack[0]:
            return
        p = pasted_path(event.text)
        if p is None:
            return
        event.stop()
        tab = self.current_ledger()
        if tab is not None and tab.rows.current_line:
            info = tab.source.row(tab.rows.current_line)
            if info.kind == "compaction_receipt":
                self.open_held(tab, info.line, pre=p)
                return
        await self.open_paths([p])
