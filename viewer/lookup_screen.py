"""Look an item up: type or paste text, or load a held-content file; see each item's
digest and every manifest position, in every open ledger, that names it; Enter jumps
to the receipt row.

Digests are `sealscope.core.digest.item_digest`; the index is
`sealscope.core.lookup.DropIndex` over the open ledgers (built once, in a worker).
"""
from __future__ import annotations

from pathlib import Path
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from sealscope.core import held
from sealscope.core.digest import item_digest
from sealscope.core.export import lookup_record
from sealscope.core.jsonio import loads
from sealscope.core.lookup import DropIndex
from sealscope.core.sanitize import clean
from sealscope.viewer.messages import JumpToLedgerRow
from sealscope.viewer.prompt import PathSuggester, pasted_path, preview

if TYPE_CHECKING:
    from sealscope.viewer.ledger_tab import LedgerTab


class _Item:
    """An item to look up: label, value, digest, size."""

    def __init__(self, label: str, value: Any, digest: str, size: int) -> None:
        self.label, self.value, self.digest, self.size = label, value, digest, size


def text_items(text: str) -> list[_Item]:
    """Typed text as a str item; also as a JSON item when it parses as a non-string
    JSON value (so a pasted `{"role": ...}` finds its json-c14n digest too)."""
    d = item_digest(text)
    out = [_Item("typed text (raw-bytes of its UTF-8)", text, d.digest, d.size)]
    try:
        v = loads(text)
    except ValueError:
        v = None
    if v is not None and not isinstance(v, str):
        try:
            j = item_digest(v)
            out.append(_Item("typed text read as a JSON item (json-c14n)", v, j.digest, j.size))
        except ValueError:
            pass
    return out


def load_items(path: Path) -> tuple[list[held.HeldItem] | None, str | None]:
    """(held items, None) or (None, why not)."""
    try:
        return held.load_held(path), None
    except ValueError as e:
        return None, str(e)
    except OSError as e:
        return None, f"{path}: {e}"


class LookupScreen(Screen[None]):
    """Digest → every manifest position, across the open ledgers."""

    DEFAULT_CSS = """
    #lookup-summary { height: auto; max-height: 16; padding: 0 1; }
    #lookup-hits { height: 1fr; }
    """

    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self, ledgers: Sequence[LedgerTab], path: Path | None = None,
                 origin: LedgerTab | None = None) -> None:
        super().__init__()
        self.ledgers = list(ledgers)  # the open ledger tabs, searched
        self.start_path = path
        self.origin = origin          # the ledger tab in front when the lookup began
        self.held_path: str | None = None
        self.index: DropIndex | None = None
        self.index_error: str | None = None
        self.items: list[_Item] = []
        self.hits: list[tuple[LedgerTab | None, int]] = []   # (tab, line) per option

    def compose(self) -> ComposeResult:
        yield Static(Text(" look up an item ", "bold reverse"), classes="screen-title")
        with Horizontal(classes="field-row"):
            yield Label("text")
            yield Input(placeholder="type or paste the item's text, Enter to look it up",
                        id="lookup-text")
        with Horizontal(classes="field-row"):
            yield Label("or a file")
            yield Input(value=str(self.start_path or ""), placeholder="held content file "
                        "or folder (every item in it is looked up) — or paste/drag it here",
                        suggester=PathSuggester(), id="lookup-file")
        yield Static(id="lookup-summary")
        yield Static(Text(" places (Enter jumps to the receipt row)", "bold"), classes="pane-title")
        yield OptionList(id="lookup-hits")
        yield Footer()

    def on_mount(self) -> None:
        self.build_index()
        if self.start_path:
            self._load_file(str(self.start_path))
        self.query_one("#lookup-text", Input).focus()

    # ------------------------------------------------------------------ index
    @work(thread=True, exclusive=True, group="lookup-index")
    def build_index(self) -> None:
        idx = DropIndex()
        errors = []
        for tab in self.ledgers:
            try:
                idx.add_ledger(str(tab.source.path))
            except OSError as e:
                errors.append(f"{tab.source.name}: {e}")
        self.app.call_from_thread(self._set_index, idx, "; ".join(errors) or None)

    def _set_index(self, idx: DropIndex, error: str | None) -> None:
        self.index = idx
        self.index_error = error
        self._refresh()

    # ------------------------------------------------------------------ input
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "lookup-text":
            self.items = text_items(event.value)
            self.held_path = None
            self._refresh()
        else:
            self._load_file(event.value)

    def on_paste(self, event: events.Paste) -> None:
        if isinstance(self.focused, Input):
            return
        event.stop()
        p = pasted_path(event.text)
        if p is not None:
            self.query_one("#lookup-file", Input).value = str(p)
            self._load_file(str(p))
        else:
            self.query_one("#lookup-text", Input).value = event.text
            self.items = text_items(event.text)
            self.held_path = None
            self._refresh()

    def _load_file(self, value: str) -> None:
        p = pasted_path(value)
        if p is None:
            self.app.notify("no such file: " + clean(value), markup=False, severity="warning")
            return
        items, err = load_items(p)
        if err:
            self.app.notify(clean(err), markup=False, severity="error")
            return
        self.items = [_Item(f"{clean(Path(i.source).name)}#{i.index}", i.value, i.digest, i.size)
                      for i in items or []]
        self.held_path = str(p)
        self._refresh()

    # ------------------------------------------------------------------ results
    def _refresh(self) -> None:
        summary = Text(end="")
        tabs = self.ledgers
        by_path = {str(t.source.path): t for t in tabs}
        if self.index is None:
            summary.append(" indexing drop manifests of the open ledgers…\n", "italic")
        else:
            summary.append(f" {self.index.rows} receipt row(s), {self.index.entries} manifest "
                           f"entr(ies) in {len(tabs)} open ledger(s)\n", "dim")
            if self.index_error:
                summary.append(" " + clean(self.index_error) + "\n", "red")
        ol = self.query_one(OptionList)
        ol.clear_options()
        self.hits = []
        for item in self.items:
            summary.append(" ● ", "bold")
            summary.append(clean(item.label), "bold")
            summary.append(f" ({item.size:,} B): ")
            summary.append(preview(item.value, 50), "italic")
            summary.append("\n   digest ")
            summary.append(clean(item.digest), "cyan")
            if self.index is None:
                summary.append("\n")
                continue
            locs = self.index.where(item.digest)
            summary.append(f"\n   found in {len(locs)} place(s)\n" if locs else
                           "\n   not in any open ledger's drop manifest\n",
                           "green" if locs else "yellow")
            for loc in locs:
                tab = by_path.get(str(loc.ledger))
                prompt = Text(end="")
                prompt.append(clean(Path(loc.ledger).name), "bold")
                prompt.append(f"  line {loc.line}  manifest position {loc.position}  ")
                prompt.append(preview(item.value, 40), "italic dim")
                self.hits.append((tab, loc.line))
                ol.add_option(Option(prompt))
        self.query_one("#lookup-summary", Static).update(summary)
        self._record(tabs)

    def _record(self, tabs: list[LedgerTab]) -> None:
        """The lookup goes into the session of each open ledger it found an item in,
        and of the ledger it began from (absence is a finding there): `sealscope
        lookup`'s items (digest, bytes, found line/position) for that ledger."""
        if self.index is None or not self.items:
            return
        key = ("lookup", self.held_path, tuple(i.digest for i in self.items))
        for tab in tabs:
            docs, hit = [], False
            for item in self.items:
                found = [{"line": loc.line, "position": loc.position}
                         for loc in self.index.where(item.digest)
                         if str(loc.ledger) == str(tab.source.path)]
                hit = hit or bool(found)
                docs.append({"digest": item.digest, "bytes": item.size, "found": found})
            if hit or tab is self.origin:
                tab.add_session(lookup_record(docs, held=[self.held_path] if self.held_path
                                              else []), key=key)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        tab, line = self.hits[event.option_index]
        if tab is None:
            return
        while len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        self.app.post_message(JumpToLedgerRow(tab.path, line))
