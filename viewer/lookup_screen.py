"""Look an item up: type or paste text, or load a held-content file; see each item's
digest and every manifest position, in every open ledger, that names it; Enter on a
place jumps to the receipt row.

Typed text is an exact item (its digest is looked up) and also a search: the held
content loaded (the file given here, and the pre/post files held-content checks loaded
in the open ledgers) is searched for items whose text contains it (`core.held.
containing`), each shown with its preview and its manifest places; so are the manifest
entries whose digest contains the text (`DropIndex.containing`: a digest seen cut on a
receipt panel or in an error). The summary says how many exact and partial hits there
are; Enter on the text jumps to the first hit (an exact one first) at once.

Digests are `sealscope.core.digest.item_digest`; the index is
`sealscope.core.lookup.DropIndex` over the open ledgers and the open receipt files
(`receipt_tabs`: a receipt file's tab, KINDS.md §2, indexes its own drop manifest as
one receipt row on line 1), built once, in a worker, which also loads the held content
of the ledgers' checks. Enter on a place in a receipt file brings its tab to the front;
a lookup begun on a receipt file's tab is a check of that tab.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from sealscope.core import held
from sealscope.core.export import ledger_lookup
from sealscope.core.lookup import DropIndex, Entry, containing_items, typed_items
from sealscope.core.sanitize import clean
from sealscope.viewer.kind_view import RECEIPT
from sealscope.viewer.messages import JumpToLedgerRow
from sealscope.viewer.prompt import PathSuggester, pasted_path, preview
from textual import events, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, OptionList, Static
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from sealscope.viewer.evidence_tab import EvidenceTab
    from sealscope.viewer.ledger_tab import LedgerTab


DIGEST_HITS_SHOWN = 200  # manifest entries listed for a digest fragment


class _Item:
    """An item to look up: label, value, digest, size."""

    def __init__(self, label: str, value: Any, digest: str, size: int) -> None:
        self.label, self.value, self.digest, self.size = label, value, digest, size


def text_items(text: str) -> list[_Item]:
    """Typed text as its items (`core.lookup.typed_items`)."""
    return [_Item(*t) for t in typed_items(text)]


def load_items(path: Path) -> tuple[list[held.HeldItem] | None, str | None]:
    """(held items, None) or (None, why not)."""
    try:
        return held.load_held(path), None
    except ValueError as e:
        return None, str(e)
    except OSError as e:
        return None, f"{path}: {e}"


def _held_label(h: held.HeldItem) -> str:
    """`file#index` of a held item (sanitized)."""
    return clean(held.item_label(h))


def checked_held_paths(ledgers: Sequence[LedgerTab]) -> list[str]:
    """The held-content files the ledgers' checks loaded (pre, post), once each."""
    out: list[str] = []
    for tab in ledgers:
        for rec in list(tab.session):
            if rec.kind != "recompute":
                continue
            for key in ("pre", "post"):
                p = rec.inputs.get(key)
                if isinstance(p, str) and p not in out:
                    out.append(p)
    return out


def receipt_tabs(panes: Sequence[Any]) -> list[Any]:
    """The open tabs of receipt files (a `KindTab` of kind `receipt` whose document
    read as an object): their manifests are searched too."""
    return [
        t
        for t in panes
        if getattr(t, "kind", None) == RECEIPT
        and isinstance(getattr(t, "doc", None), dict)
        and hasattr(t, "source")
    ]


def _name(tab: Any) -> str:
    """A searched tab's file name (a ledger's source name, a receipt file's)."""
    return str(getattr(tab.source, "name", None) or Path(str(tab.path)).name)


class LookupScreen(Screen[None]):
    """Digest → every manifest position, across the open ledgers."""

    DEFAULT_CSS = """
    #lookup-summary { height: auto; max-height: 16; padding: 0 1; }
    #lookup-hits { height: 1fr; }
    """

    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(
        self,
        ledgers: Sequence[LedgerTab],
        path: Path | None = None,
        origin: EvidenceTab | None = None,
        receipts: Sequence[Any] = (),
    ) -> None:
        super().__init__()
        self.ledgers = list(ledgers)  # the open ledger tabs, searched
        self.receipts = list(receipts)  # the open receipt files' tabs, searched too
        self.start_path = path
        self.origin = origin  # the ledger (or receipt file) tab in front at the start
        self.held_path: str | None = None
        self.index: DropIndex | None = None
        self.index_error: str | None = None
        self.items: list[_Item] = []
        self.typed: str | None = None  # the text typed, searched in the held content
        self.file_items: list[held.HeldItem] = []  # the held file loaded here
        self.checks_held: list[held.HeldItem] = []  # held content the ledgers' checks loaded
        self.partial: list[held.HeldItem] = []  # held items containing the typed text
        self.digest_hits: list[Entry] = []  # manifest entries whose digest has it
        self.hits: list[tuple[Any, int]] = []  # (tab or None, line) per option
        self.exact_places = self.partial_places = 0
        self._jump_pending = False

    def compose(self) -> ComposeResult:
        yield Static(Text(" look up an item ", "bold reverse"), classes="screen-title")
        with Horizontal(classes="field-row"):
            yield Label("text")
            yield Input(
                placeholder="type or paste the item's text, Enter to look it up", id="lookup-text"
            )
        with Horizontal(classes="field-row"):
            yield Label("or a file")
            yield Input(
                value=str(self.start_path or ""),
                placeholder="a held content file or folder: each item is looked up",
                suggester=PathSuggester(),
                id="lookup-file",
            )
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
        for tab in self.receipts:  # the document its tab read: one receipt, line 1
            idx.add_receipt(str(tab.path), tab.doc)
        items: list[held.HeldItem] = []
        for path in checked_held_paths(self.ledgers):
            got, _err = load_items(Path(path))
            items += got or []
        self.app.call_from_thread(self._set_index, idx, "; ".join(errors) or None, items)

    def _set_index(
        self, idx: DropIndex, error: str | None, checks_held: list[held.HeldItem]
    ) -> None:
        self.index = idx
        self.index_error = error
        self.checks_held = checks_held
        if self.typed is not None:
            self.partial = self._containing(self.typed)
            self.digest_hits = idx.containing(self.typed)
        self._refresh()
        if self._jump_pending:
            self._jump_pending = False
            self.jump_first()

    # ------------------------------------------------------------------ input
    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "lookup-text":
            self.look_up_text(event.value)
            self.jump_first()
        else:
            self._load_file(event.value)

    def look_up_text(self, text: str) -> None:
        """Typed text: an exact item, and a search of the held content loaded."""
        self.items = text_items(text)
        self.typed = text
        self.partial = self._containing(text)
        self.digest_hits = self.index.containing(text) if self.index is not None else []
        self.held_path = None
        self._refresh()

    def _containing(self, text: str) -> list[held.HeldItem]:
        """Held items (the file here, then the checks') whose text contains `text`,
        one per digest (the same item held twice has the same places), leaving out
        the exact item itself."""
        return containing_items(
            [*self.file_items, *self.checks_held], text, (i.digest for i in self.items)
        )

    def jump_first(self) -> None:
        """Go to the first hit (exact before partial), saying how many there are;
        once the index is built if it is not yet."""
        if self.index is None:
            self._jump_pending = True
            return
        found = [(tab, line) for tab, line in self.hits if tab is not None]
        if not found:
            return
        tab, line = found[0]
        self.app.notify(
            f"{self._counts()} — showing {clean(_name(tab))} line {line}",
            title="look up",
            markup=False,
        )
        self._jump(tab, line)

    def _counts(self) -> str:
        """How many hits: "N exact hits, M partial hits (K held items contain the text)"."""

        def n(count: int, word: str) -> str:
            return f"{count} {word}{'s' if count != 1 else ''}"

        text = n(self.exact_places, "exact hit")
        if self.typed is not None:
            contain = "contains" if len(self.partial) == 1 else "contain"
            digests = (
                f", {n(len(self.digest_hits), 'manifest digest')} "
                f"{'contains' if len(self.digest_hits) == 1 else 'contain'} it"
                if self.digest_hits
                else ""
            )
            text += (
                f", {n(self.partial_places, 'partial hit')} "
                f"({n(len(self.partial), 'held item')} {contain} the text{digests})"
            )
        return text

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
            self.look_up_text(event.text)

    def _load_file(self, value: str) -> None:
        p = pasted_path(value)
        if p is None:
            self.app.notify("no such file: " + clean(value), markup=False, severity="warning")
            return
        items, err = load_items(p)
        if err:
            self.app.notify(clean(err), markup=False, severity="error")
            return
        self.file_items = items or []
        self.items = [_Item(_held_label(i), i.value, i.digest, i.size) for i in self.file_items]
        self.held_path = str(p)
        self.typed = None
        self.partial = []
        self.digest_hits = []
        self._refresh()

    # ------------------------------------------------------------------ results
    def _refresh(self) -> None:
        summary = Text(end="")
        tabs = self.ledgers
        by_path: dict[str, Any] = {str(t.source.path): t for t in tabs}
        by_path.update((str(t.path), t) for t in self.receipts)
        if self.index is None:
            summary.append(" indexing drop manifests of the open ledgers…\n", "italic")
        else:
            files = f" and {len(self.receipts)} receipt file(s)" if self.receipts else ""
            summary.append(
                f" {self.index.rows} receipt row(s), {self.index.entries} manifest "
                f"entr(ies) in {len(tabs)} open ledger(s){files}\n",
                "dim",
            )
            if self.index_error:
                summary.append(" " + clean(self.index_error) + "\n", "red")
        ol = self.query_one(OptionList)
        ol.clear_options()
        self.hits = []
        self.exact_places = self.partial_places = 0
        counts = len(summary)
        for item in self.items:
            summary.append(" ● ", "bold")
            summary.append(clean(item.label), "bold")
            summary.append(f" ({item.size:,} B): ")
            summary.append(preview(item.value, self._room(summary.plain)), "italic")
            summary.append("\n   digest ")
            summary.append(clean(item.digest), "cyan")
            if self.index is None:
                summary.append("\n")
                continue
            locs = self.index.where(item.digest)
            summary.append(
                f"\n   found in {len(locs)} place(s)\n"
                if locs
                else "\n   not in any open ledger's drop manifest\n",
                "green" if locs else "yellow",
            )
            self.exact_places += len(locs)
            for loc in locs:
                self._add_hit(ol, by_path, loc, item.value, "")
        if self.typed is not None and self.index is not None:
            self._partial_summary(summary, ol, by_path)
        if self.index is not None and (self.items or self.typed is not None):
            head = Text(f" {self._counts()}\n", "bold")
            summary = Text.assemble(summary[:counts], head, summary[counts:], end="")
        self.query_one("#lookup-summary", Static).update(summary)
        self._record(tabs)

    def _room(self, so_far: str, after: int = 0) -> int:
        """How much of a preview fits on the line `so_far` ends (`after` characters
        still to come after it): the rest of the screen's width, never under 40, so a
        preview is cut only where the line would wrap."""
        line = len(so_far) - so_far.rfind("\n") - 1
        return max(40, self.size.width - 4 - line - after)

    def _add_hit(
        self, ol: OptionList, by_path: dict[str, Any], loc: Any, value: Any, tag: str
    ) -> None:
        tab = by_path.get(str(loc.ledger))
        prompt = Text(end="")
        if tag:
            prompt.append(f"{tag} ", "yellow")
        prompt.append(clean(Path(loc.ledger).name), "bold")
        prompt.append(f"  line {loc.line}  manifest position {loc.position}  ")
        prompt.append(preview(value, self._room(prompt.plain)), "italic dim")
        self.hits.append((tab, loc.line))
        ol.add_option(Option(prompt))

    def _partial_summary(self, summary: Text, ol: OptionList, by_path: dict[str, Any]) -> None:
        """The held items containing the typed text, with their places (as hits)."""
        assert self.index is not None and self.typed is not None
        pool = len(self.file_items) + len(self.checks_held)
        if not self.partial:
            summary.append(
                f" no held item contains the text ({pool} held item(s) "
                "loaded: a file here, or the ledgers' held-content checks)\n",
                "dim",
            )
        else:
            summary.append(f" {len(self.partial)} held item(s) contain the text:\n", "bold")
        for h in self.partial:
            locs = self.index.where(h.digest)
            self.partial_places += len(locs)
            summary.append(" ◐ ", "yellow")
            summary.append(_held_label(h), "bold")
            summary.append(": ")
            summary.append(preview(h.value, self._room(summary.plain, 28)), "italic")
            summary.append(
                f" — {len(locs)} place(s)\n" if locs else " — in no open ledger's drop manifest\n",
                "green" if locs else "yellow",
            )
            for loc in locs:
                self._add_hit(ol, by_path, loc, h.value, "partial")
        self._digest_summary(summary, ol, by_path)

    def _digest_summary(self, summary: Text, ol: OptionList, by_path: dict[str, Any]) -> None:
        """The manifest entries whose digest contains the typed text (as hits; the
        first DIGEST_HITS_SHOWN of them in the list)."""
        if not self.digest_hits:
            return
        summary.append(
            f" {len(self.digest_hits)} manifest entr"
            f"{'y has' if len(self.digest_hits) == 1 else 'ies have'} a digest "
            "containing the text\n",
            "bold",
        )
        self.partial_places += len(self.digest_hits)
        for e in self.digest_hits[:DIGEST_HITS_SHOWN]:
            self._add_hit(ol, by_path, e, e.digest, "digest")
        if len(self.digest_hits) > DIGEST_HITS_SHOWN:
            summary.append(f" (the first {DIGEST_HITS_SHOWN} are listed)\n", "dim")

    def _record(self, tabs: list[LedgerTab]) -> None:
        """The lookup is a check of the tab it was run in (`origin`), and of no other:
        it goes into that ledger's (or receipt file's) session only (absence is a
        finding there), with `sealscope lookup`'s items (digest, bytes, found
        line/position) for that file. The hits in other open files are listed here,
        not recorded there."""
        tab: Any = self.origin
        if self.index is None or not self.items or tab is None:
            return
        if tab not in tabs and tab not in self.receipts:
            return
        where = str(tab.path) if tab in self.receipts else str(tab.source.path)
        key = ("lookup", self.held_path, self.typed, tuple(i.digest for i in self.items))
        rec, _hit = ledger_lookup(
            self.index,
            where,
            self.items,
            held=[self.held_path] if self.held_path else [],
            text=self.typed,
            containing=self.partial,
            digest_hits=self.digest_hits,
        )
        tab.add_session(rec, key=key)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        tab, line = self.hits[event.option_index]
        if tab is not None:
            self._jump(tab, line)

    def _jump(self, tab: Any, line: int) -> None:
        """To the receipt row in its ledger; a receipt file's tab to the front."""
        while len(self.app.screen_stack) > 1:
            self.app.pop_screen()
        if tab in self.receipts:
            show = getattr(self.app, "show_tab", None)
            if show is not None:
                show(tab)
            return
        self.app.post_message(JumpToLedgerRow(tab.path, line))
