"""SealscopeApp: one tab per open ledger, the screens for held content, lookups and
pin/witness checks, everything in the footer and the command palette."""
from __future__ import annotations

import os
from pathlib import Path
from typing import Iterable, Sequence

from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, TabbedContent

from sealscope.core.sanitize import clean
from sealscope.viewer.ledger_tab import LedgerTab
from sealscope.viewer.prompt import PathSuggester, PromptScreen, pasted_path

LEDGER_SUFFIXES = (".jsonl", ".ndjson", ".log")


def expand_paths(paths: Sequence[os.PathLike | str]) -> list[Path]:
    """Files as given; a folder contributes its `*.jsonl` files (not recursive), sorted."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir():
            out.extend(sorted(c for c in p.iterdir()
                              if c.is_file() and c.suffix.lower() in LEDGER_SUFFIXES))
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
        Binding("c", "check", "Pin/witness"),
        Binding("o", "open", "Open file"),
        Binding("q", "quit", "Quit"),
    ]

    def __init__(self, paths: Sequence[os.PathLike | str] = (), **kw) -> None:
        super().__init__(**kw)
        self.paths = expand_paths(paths)
        self._tab_seq = 0

    def compose(self) -> ComposeResult:
        yield Header()
        yield TabbedContent(id="tabs")
        yield Footer()

    async def on_mount(self) -> None:
        for p in self.paths:
            await self.add_ledger(p)
        if not self.paths:
            self.notify("no files open — press o to open a ledger", markup=False)

    # ------------------------------------------------------------------ tabs
    async def add_ledger(self, path: Path) -> LedgerTab:
        self._tab_seq += 1
        tab = LedgerTab(path, id=f"ledger-{self._tab_seq}")
        tabs = self.query_one(TabbedContent)
        await tabs.add_pane(tab)
        if self._tab_seq == 1:
            tabs.active = tab.id
        return tab

    def ledger_tabs(self) -> list[LedgerTab]:
        return list(self.query(LedgerTab))

    def current_tab(self) -> LedgerTab | None:
        tabs = self.query_one(TabbedContent)
        if not tabs.active:
            return None
        try:
            return tabs.get_pane(tabs.active)  # type: ignore[return-value]
        except Exception:
            return None

    def show_line(self, tab: LedgerTab, line: int) -> None:
        """Switch to `tab` and select `line`."""
        self.query_one(TabbedContent).active = tab.id or ""
        tab._goto(line)

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        pane = event.pane
        if isinstance(pane, LedgerTab):
            pane.rows.focus()

    # ------------------------------------------------------------------ screens
    def open_held(self, tab: LedgerTab, line: int, pre: Path | None = None,
                  post: Path | None = None) -> None:
        from sealscope.viewer.held_screen import HeldContentScreen
        self.push_screen(HeldContentScreen(tab, line, pre=pre, post=post))

    def action_lookup(self) -> None:
        from sealscope.viewer.lookup_screen import LookupScreen
        self.push_screen(LookupScreen())

    def action_check(self) -> None:
        tab = self.current_tab()
        if tab is None:
            self.notify("open a ledger first", markup=False)
            return
        from sealscope.viewer.pin_screen import PinScreen
        self.push_screen(PinScreen(tab))

    def action_open(self) -> None:
        async def done(value: str | None) -> None:
            if not value:
                return
            p = pasted_path(value)
            if p is None:
                self.notify("no such file: " + clean(value), markup=False, severity="warning")
                return
            for q in expand_paths([p]):
                tab = await self.add_ledger(q)
                self.query_one(TabbedContent).active = tab.id or ""
        self.push_screen(PromptScreen("Open a ledger", "path to a .jsonl ledger or a folder",
                                      suggester=PathSuggester(), id="open-prompt"), done)

    def tab_action(self, name: str) -> None:
        tab = self.current_tab()
        if tab is None:
            self.notify("open a ledger first", markup=False)
            return
        getattr(tab, f"action_{name}")()

    def get_system_commands(self, screen: Screen) -> Iterable[SystemCommand]:
        yield from super().get_system_commands(screen)
        for title, help_, name in (
            ("Jump to first break", "Select the first break in this ledger", "first_break"),
            ("Jump to next break", "Select the next break after the cursor", "next_break"),
            ("Jump to previous break", "Select the previous break", "prev_break"),
            ("Go to line", "Select a line by number", "goto"),
            ("Filter rows", "Show only rows of a status or kind", "filter"),
            ("Clear filter", "Show every row again", "clear_filter"),
            ("Search text", "Find text in the ledger", "search"),
            ("Held content for this receipt", "Load pre/post content and recompute", "held"),
        ):
            yield SystemCommand(title, help_, lambda n=name: self.tab_action(n))
        yield SystemCommand("Look up an item", "Digest an item and find it in drop manifests",
                            self.action_lookup)
        yield SystemCommand("Check a pin or witness", "Compare this ledger with a head pin "
                            "or a witness store", self.action_check)
        yield SystemCommand("Open a ledger", "Open another file in a new tab", self.action_open)

    # ------------------------------------------------------------------ paste
    async def on_paste(self, event: events.Paste) -> None:
        """A path pasted (or a file dragged onto the terminal) on the main screen: held
        content for the selected receipt, otherwise a new ledger tab."""
        if self.screen is not self.screen_stack[0]:
            return
        p = pasted_path(event.text)
        if p is None:
            return
        event.stop()
        tab = self.current_tab()
        if tab is not None and tab.rows.current_line:
            info = tab.source.row(tab.rows.current_line)
            if info.kind == "compaction_receipt":
                self.open_held(tab, info.line, pre=p)
                return
        for q in expand_paths([p]):
            t = await self.add_ledger(q)
            self.query_one(TabbedContent).active = t.id or ""
