"""SealscopeApp: one tab per open file — a ledger (LedgerTab), a continuity snapshot
(SealTab), a harn transcript / run record (HarnPane) or a folder of ledgers (FleetTab)
— the screens for held content, lookups, pin/witness checks and exports, everything in
the footer and the command palette.

What a path opens as is `core.kinds.classify`'s answer: a snapshot opens in a seal tab,
a harn transcript or run record in a harn tab, a ledger in a ledger tab, a folder in a
fleet tab (every `*.jsonl` beneath it, audited as `sealscope fleet` does; Enter there
opens a ledger at its first break); anything else (unreadable, or a `.json` that is
not a ledger, seal or harn file) is a notification saying why. The other evidence
kinds open by the classifier's `check_kind` (`KIND_TABS`): a receipt file, distill or
portable receipt or continuity verdict in a kind tab, an evidence pack or audit bundle
(folder or zip) in a unit tab, an AAT export in a tab of its own chain. The bundled
`sample_ledgers/` folder (also what the app opens with no paths) contributes the
curated `SAMPLE_TABS` instead, subfolders included.

The app imports what the first screen of a ledger needs; the tabs and the screens a key
opens load on first use (`viewer.lazy`). `sealscope` (`first_paint=True`) draws a
ledger's first screen with one widget (`viewer.first_paint`) and builds the tabs hidden
behind it, holding the keys typed meanwhile for them.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from sealscope.core import kinds
from sealscope.core.checks import CheckContext, run_context
from sealscope.core.kinds import classify
from sealscope.core.sanitize import clean
from sealscope.sample_ledgers import FOLDER as SAMPLES_DIR  # the installed samples
from sealscope.viewer import lazy
from sealscope.viewer.commands import PaletteBinding, binding_commands
from sealscope.viewer.empty_state import EmptyState
from sealscope.viewer.evidence_tab import CLEAR_CHECKS, EvidenceTab, front_commands
from sealscope.viewer.first_paint import FirstPaint, tab_labels
from sealscope.viewer.footer import FitFooter
from sealscope.viewer.ledger_keys import LEDGER_KEYS
from sealscope.viewer.messages import (
    JumpToLedgerRow,
    JumpToSeal,
    LookUp,
    OpenAtFirstBreak,
    SessionAdded,
)
from sealscope.viewer.profile_view import DOCUMENT_PROFILES
from sealscope.viewer.signal_end import SignalEnd
from sealscope.viewer.source import LedgerSource
from textual import events
from textual.app import App, ComposeResult, SystemCommand
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.screen import Screen
from textual.widgets import Header, TabbedContent
from textual.widgets.tabbed_content import ContentTab, ContentTabs

if TYPE_CHECKING:  # annotations: a tab's module loads when a file of its kind opens
    from sealscope.viewer.ledger_tab import LedgerTab
    from sealscope.viewer.seal_tab import SealTab
    from textual.message import Message

# What `sealscope` with no arguments opens, in tab order (documented in
# sample_ledgers/README.md): the ledgers, the seals ledger, the two valid seals and the
# harn session transcript. Held content, pins, witness stores, restatements, tiers,
# manifests, the tampered seal and the run record are inputs or extra cases: open them
# with `o` or on the command line.
SAMPLE_TABS = (
    "session.jsonl",
    "tampered.jsonl",
    "truncated.jsonl",
    "liar.jsonl",
    "declared-break.jsonl",
    "hostile.jsonl",
    "seals/seals-ledger.jsonl",
    "seals/seal-day1.json",
    "seals/seal-day2.json",
    "harn/session-transcript.json",
)


# The other evidence kinds (KINDS.md §12, `kinds.classify`'s `check_kind`) and the tab
# each opens in: a whole document in a kind tab, a pack or bundle (folder or zip) in a
# unit tab, an AAT export in its own chain's tab, a call record as the ledger it is.
KIND_TABS = {
    "receipt": "KindTab",
    "distill-receipt": "KindTab",
    "portable-receipt": "KindTab",
    "continuity-verdict": "KindTab",
    "evidence-pack": "UnitTab",
    "audit-bundle": "UnitTab",
    "aat-export": "AatTab",
    "call-record": "LedgerTab",
}


def own_tab(what: kinds.FileKind) -> str | None:
    """The tab of another evidence kind a path opens in (`KIND_TABS`, by the
    classifier's evidence kind `check_kind`), or None: a ledger, seal, harn file or
    folder of ledgers opens as before (a call record is a ledger)."""
    tab = KIND_TABS.get(what.check_kind or "")
    if tab is None and document_profile(what) is not None:
        return "KindTab"
    return None if tab in (None, "LedgerTab") else tab


def document_profile(what: kinds.FileKind) -> str | None:
    """The long-tail document profile of a path no kind claims (KINDS-3.md §15.2: a
    mandate, a stored once receipt, a deal pack, a vet grade), or None."""
    if what.check_kind is not None or what.kind in kinds.OPENS:
        return None
    found = kinds.identify(what.path)
    name = lazy.detect_profile(found).name if found.kind is None else None
    return name if name in DOCUMENT_PROFILES else None


class LedgerFirstPaint(FirstPaint):
    """The first paint of a ledger, its footer showing the ledger tab's keys."""

    BINDINGS = [b for b in LEDGER_KEYS if b is not CLEAR_CHECKS]


def is_samples_dir(p: Path) -> bool:
    try:
        return p.resolve() == SAMPLES_DIR.resolve()
    except OSError:
        return False


def sample_paths(folder: Path = SAMPLES_DIR) -> list[Path]:
    """The curated sample files that exist, in tab order."""
    return [folder / name for name in SAMPLE_TABS if (folder / name).is_file()]


def expand_paths(paths: Sequence[os.PathLike | str]) -> list[Path]:
    """Files and folders as given (a folder opens as one fleet tab); the bundled
    samples folder contributes `SAMPLE_TABS` (its `seals/` and `harn/` subfolders
    included)."""
    out: list[Path] = []
    for p in paths:
        p = Path(p)
        if p.is_dir() and is_samples_dir(p):
            out.extend(sample_paths(p))
        else:
            out.append(p)
    return out


class SealscopeApp(App[None]):
    """The terminal audit viewer."""

    CSS_PATH = Path(__file__).with_name("app.tcss")  # absolute: subclasses elsewhere too
    TITLE = "sealscope"
    SUB_TITLE = "audit viewer"

    BINDINGS = [
        PaletteBinding(
            "l",
            "lookup",
            "Look up",
            title="Look up an item",
            help="Digest an item and find it in drop manifests",
        ),
        PaletteBinding(
            "c",
            "check",
            "Pin",
            title="Check a pin or witness",
            help="Compare this ledger with a head pin or a witness store",
        ),
        PaletteBinding(
            "x",
            "export",
            "Export",
            title="Export this tab's audit report",
            help="Write the report (Markdown and JSON) of the tab in front",
        ),
        PaletteBinding(
            "o",
            "open",
            "Open",
            title="Open a file",
            help="Open a ledger, snapshot, harn file or folder in a new tab",
        ),
        PaletteBinding(
            "question_mark,f1",
            "key_help",
            "Keys",
            title="Key help",
            help="Every key of the tab in front, grouped, and what its marks mean (? or F1)",
        ),
        PaletteBinding(
            "R",
            "samples_readme",
            "Samples README",
            show=False,
            title="Samples README",
            help="What each bundled sample is and what it should show (R)",
        ),
        Binding("escape", "hide_help_panel", "Close the palette's keys panel", show=False),
        PaletteBinding(
            "right_square_bracket",
            "next_tab",
            "Next tab",
            show=False,
            title="Next tab",
            help="Bring the next tab to the front (])",
        ),
        PaletteBinding(
            "left_square_bracket",
            "prev_tab",
            "Previous tab",
            show=False,
            title="Previous tab",
            help="Bring the previous tab to the front ([)",
        ),
        *[
            Binding(str(n), f"tab({n})", "Bring tab n to the front", show=False)
            for n in range(1, 10)
        ],
        Binding("q", "quit", "Quit"),
        # a case open (`--case`): N and F write into it, before any tab's own N or F
        PaletteBinding(
            "N", "case_note", "Note", priority=True, title="Note", help="Write a note into the case"
        ),
        PaletteBinding(
            "F",
            "case_finding",
            "Finding",
            priority=True,
            title="Finding",
            help="Write a finding into the case (on the selected row)",
        ),
    ]

    def __init__(
        self,
        paths: Sequence[os.PathLike[str] | str] = (),
        *,
        first_paint: bool = False,
        case: str | None = None,
        artefacts: str | None = None,
        **kw: Any,
    ) -> None:
        """`first_paint`: when the first path is a ledger, its first screen is drawn by
        one widget (`viewer.first_paint`) while the tabs are built behind it, and keys
        typed meanwhile are held and replayed on the real widgets (what `sealscope`
        does; the app is otherwise the same). `artefacts`: the `--artefacts DIR`
        folder of held things of the run (`run_ctx`)."""
        super().__init__(**kw)
        self.artefacts = artefacts
        self._handed: list[str] = []  # stored verdicts a fleet tab handed over
        self._ctx: tuple[tuple[str, ...], CheckContext] | None = None
        self.paths = expand_paths(paths) if paths or case else sample_paths()
        self.case_path = case  # `--case CASE`: the case this session records into
        self.case_link: Any = None  # its `viewer.case_link.CaseLink` once opened
        self._tab_seq = 0
        self.first_paint: FirstPaint | None = None
        self._held_keys: list[events.Key] = []
        self._refused: list[str] = []  # "cannot open P: why", for the empty state
        self.ending = SignalEnd(self)  # SIGTERM/SIGHUP: `signal_end.run_app`
        self._frame_shown = False  # `events.Ready` came
        if first_paint and self.paths:
            what = classify(self.paths[0])
            if what.opens and what.kind == kinds.LEDGER and own_tab(what) is None:
                title = Text(self.TITLE, end="")
                title.append(f" — {self.SUB_TITLE}", "dim")
                self.first_paint = LedgerFirstPaint(
                    LedgerSource(what.path), tab_labels(self.paths), title
                )

    def compose(self) -> ComposeResult:
        if self.first_paint is not None:
            yield self.first_paint
        else:
            yield Header()
            yield TabbedContent(id="tabs")
        yield FitFooter()

    def on_ready(self) -> None:
        """The first frame is on the screen: the app has started (an ending signal may
        end it now), or does once the tabs behind a first paint are built."""
        self._frame_shown = True
        if self.first_paint is None:
            self.ending.ready()

    async def on_mount(self) -> None:
        if self.first_paint is not None:
            self.call_after_refresh(self._build_behind_first_paint)
        else:
            await self._open_at_start()

    async def _open_at_start(self) -> None:
        # a tab chosen on the tab bar gives its pane the keyboard at once (a watcher
        # runs as the bar moves, before the next key is dispatched)
        try:
            bar = self.query_one(TabbedContent).query_one(ContentTabs)
        except NoMatches:  # the app is already exiting (a key pressed at once)
            return
        self.watch(bar, "active", self._tab_bar_moved, init=False)
        if self.case_path is not None:
            await lazy.case_app.open_case(self)
        for p in self.paths:
            if self._exit or not self.is_running:  # exiting: open no more
                return
            await self.open_path(p, activate=False)
        if self.case_link is not None:
            await lazy.case_app.record_opened(self)
        if not self.paths and self.case_link is None:
            self.notify("no files open — press o to open a ledger", markup=False)
        if (
            not self.panes() and self.case_link is None
        ):  # nothing opened: say why in the main area, not in a toast only
            await self.mount(EmptyState(self._refused), after=self.query_one(TabbedContent))

    async def _build_behind_first_paint(self) -> None:
        """Mount the header and tabs hidden, open every path, then show them in place of
        the first paint in one refresh and replay the keys typed meanwhile."""
        first = self.first_paint
        assert first is not None
        if self._exit or not self.screen.is_mounted:  # ended before it was built
            return
        real = [Header(), TabbedContent(id="tabs")]
        for w in real:
            w.display = False
        try:
            await self.mount_all(real, before=first)
            await self._open_at_start()
        finally:
            for w in real:
                w.display = True
            first.display = False
            self.first_paint = None
            tab = self.current_tab()
            if tab is not None:
                self._focus_pane(tab)
            await first.remove()
            held, self._held_keys = self._held_keys, []
            for key in held:
                await super().on_event(key)
            if self._frame_shown:
                self.ending.ready()

    async def on_event(self, event: events.Event) -> None:
        """Keys typed while the first paint shows wait for the real widgets."""
        if (
            self.first_paint is not None
            and isinstance(event, events.Key)
            and not event.is_forwarded
        ):
            self._held_keys.append(event)
            return
        await super().on_event(event)

    # ------------------------------------------------------------------ tabs
    async def open_path(
        self, path: os.PathLike[str] | str, *, activate: bool = True
    ) -> EvidenceTab | None:
        """Open one file in a new tab (or show the tab that has it open): the tab, or
        None when the file cannot be opened (a notification says why)."""
        p = Path(path)
        have = self._open_tab_for(p)
        seen = None
        if isinstance(have, lazy.LedgerTab) and have.follow_alarm:
            # the file changed under that tab (truncated, replaced, rewritten): opening
            # it again replaces the tab with a fresh verification of what is on disk now,
            # checked against the head seen before as a pin (so it does not open green)
            seen = have.follow.seen_head
            await self.query_one(TabbedContent).remove_pane(have.id or "")
            have = None
        if have is not None:
            if activate:
                self.show_tab(have)
            return have
        what = classify(p)
        if not what.opens and what.kind != kinds.FOLDER and own_tab(what) is None:
            self._refused.append("cannot open " + clean(str(p)) + ": " + clean(what.reason or ""))
            self.notify(
                self._refused[-1],
                title="not opened",
                markup=False,
                severity="error",
            )
            return None
        try:
            tab = await self._add(self._make_tab(what))
        except Exception as e:  # noqa: BLE001 - never a traceback for a file
            self._refused.append(
                "cannot open " + clean(str(p)) + f": {type(e).__name__}: " + clean(str(e))
            )
            self.notify(
                self._refused[-1],
                title="not opened",
                markup=False,
                severity="error",
            )
            return None
        if seen is not None and isinstance(tab, lazy.LedgerTab):
            tab.check_pin(seen)
        if activate:
            self.show_tab(tab)
        return tab

    def _make_tab(self, what: kinds.FileKind) -> EvidenceTab:
        self._tab_seq += 1
        path = Path(what.path)
        tab = own_tab(what)
        kind = what.check_kind or document_profile(what) or ""
        if tab == "KindTab":
            return lazy.KindTab(path, kind, id=f"kind-{self._tab_seq}")
        if tab == "UnitTab":
            return lazy.UnitTab(path, kind, id=f"unit-{self._tab_seq}")
        if tab == "AatTab":
            return lazy.AatTab(path, id=f"aat-{self._tab_seq}")
        if what.kind == kinds.FOLDER:
            return lazy.FleetTab(path, id=f"fleet-{self._tab_seq}")
        if what.kind == kinds.SNAPSHOT:
            return lazy.SealTab(path, id=f"seal-{self._tab_seq}")
        if what.kind == kinds.HARN:
            return lazy.HarnPane(what.document, path=path, id=f"harn-{self._tab_seq}")
        return lazy.LedgerTab(
            path, id=f"ledger-{self._tab_seq}", call_record=kind == kinds.CALL_RECORD
        )

    async def _add(self, tab: EvidenceTab) -> EvidenceTab:
        tabs = self.query_one(TabbedContent)
        await self.query(EmptyState).remove()  # a tab is open: the why-nothing goes
        await tabs.add_pane(tab)
        if not tabs.active or tabs.active == tab.id:
            tabs.active = tab.id or ""
            self._focus_pane(tab)
        self._link_seals(tab)
        self._rejoin()
        return tab

    def _link_seals(self, tab: EvidenceTab) -> None:
        """Seals look for their sealing rows in ledgers, whichever opened first: every
        other tab hears of a new ledger, a new tab of every open ledger
        (`EvidenceTab.ledger_opened`; only a seal tab looks, so a ledger alone never
        loads the seal tab's module)."""
        if isinstance(tab, lazy.LedgerTab):
            for pane in self.panes():
                if pane is not tab:
                    pane.ledger_opened(tab.path)
        else:
            for lt in self.ledger_tabs():
                tab.ledger_opened(lt.path)

    def _open_tab_for(self, p: Path) -> EvidenceTab | None:
        try:
            want = p.resolve()
        except OSError:
            return None
        for pane in self.panes():
            try:
                if Path(pane.path).resolve() == want:
                    return pane
            except OSError:
                continue
        return None

    # ------------------------------------------------------------------ the run
    def run_ctx(self) -> CheckContext:
        """The run the open tabs make (`viewer.run_context`): `core.checks.run_context`
        over the paths given, every tab's, and those a fleet handed over, with the
        app's `--artefacts DIR`; the same paths give the same context object."""
        seen: dict[str, None] = {}
        for p in [*map(str, self.paths), *self._pane_paths(), *self._handed]:
            seen.setdefault(p, None)
        key = tuple(seen)
        if self._ctx is None or self._ctx[0] != key:
            self._ctx = (key, run_context(key, self.artefacts))
        return self._ctx[1]

    def _pane_paths(self) -> list[str]:
        try:
            return [str(t.path) for t in self.panes()]
        except NoMatches:  # not composed yet
            return []

    def hand_over(self, verdicts: Sequence[str]) -> None:
        """A fleet tab opens one of its files: the stored verdicts it found join the
        run (its context is handed to the tabs it opens)."""
        for v in verdicts:
            if v not in self._handed:
                self._handed.append(v)

    def _rejoin(self) -> None:
        """The run changed (a tab opened): every tab checked with an older context is
        checked again with this one."""
        ctx = self.run_ctx()
        for pane in self.panes():
            pane.run_changed(ctx)

    def panes(self) -> list[EvidenceTab]:
        return list(self.query_one(TabbedContent).query(EvidenceTab))

    def ledger_tabs(self) -> list[LedgerTab]:
        return list(self.query(lazy.LedgerTab))

    def seal_tabs(self) -> list[SealTab]:
        return list(self.query(lazy.SealTab))

    def current_tab(self) -> EvidenceTab | None:
        """The tab in front (None with no tabs)."""
        try:
            tabs = self.query_one(TabbedContent)
        except NoMatches:  # not composed yet
            return None
        if not tabs.active:
            return None
        try:
            pane = tabs.get_pane(tabs.active)
        except NoMatches:  # the active pane is being removed
            return None
        return pane if isinstance(pane, EvidenceTab) else None

    def relative_base(self) -> Path | None:
        """Where a relative path typed or pasted is looked for first (`prompt.base_folder`):
        the folder of the file of the tab in front (a folder tab's own folder)."""
        tab = self.current_tab()
        if tab is None:
            return None
        p = Path(tab.path)
        try:
            return p if p.is_dir() else p.parent
        except OSError:
            return None

    def current_ledger(self) -> LedgerTab | None:
        tab = self.current_tab()
        return tab if isinstance(tab, lazy.LedgerTab) else None

    def show_tab(self, tab: EvidenceTab) -> None:
        """Bring `tab` to the front and give it the keyboard. The focus is given again
        after the next refresh: a prompt closing restores the focus it took, and a
        focus inside another pane would bring that pane back to the front."""
        tabs = self.query_one(TabbedContent)
        if not tab.is_attached or tab.id is None:  # closed (or the app is exiting)
            return
        if tabs.active != tab.id:
            try:
                tabs.active = tab.id
            except ValueError:  # its tab in the tab bar is already gone
                return
        self._focus_pane(tab)
        self.call_after_refresh(self._focus_pane, tab)

    def show_line(self, tab: LedgerTab, line: int) -> None:
        """Switch to `tab` and select `line`."""
        self.query_one(TabbedContent).active = tab.id or ""
        tab._goto(line)

    @staticmethod
    def _focus_pane(pane: EvidenceTab) -> None:
        try:
            pane.focus_default()
        except NoMatches:  # not composed yet: focus comes on activation
            pass

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        if not self.screen_stack:  # a late activation while the app shuts down
            return
        # a late activation of a tab already left (keys in a burst) moves nothing
        if isinstance(event.pane, EvidenceTab) and event.pane.id == event.tabbed_content.active:
            self._focus_pane(event.pane)
        self.refresh_bindings()

    def _tab_bar_moved(self, tab_id: str) -> None:
        """The tab bar's active tab changed (arrows, a click, or `active` set): its
        pane comes to the front with the keyboard now, so a key typed right behind the
        one that moved the bar acts in that pane."""
        tabs = self.query_one(TabbedContent)
        if not tab_id or not self.screen_stack:
            return
        pane_id = ContentTab.sans_prefix(tab_id)
        if tabs.active != pane_id:
            tabs.active = pane_id
        try:
            pane = tabs.get_pane(pane_id)
        except NoMatches:  # being removed
            return
        if isinstance(pane, EvidenceTab):
            self._focus_pane(pane)

    # ------------------------------------------------------------------ tab keys
    def action_next_tab(self) -> None:
        self._step_tab(1)

    def action_prev_tab(self) -> None:
        self._step_tab(-1)

    def _step_tab(self, step: int) -> None:
        panes, tab = self.panes(), self.current_tab()
        if panes:
            i = panes.index(tab) if tab in panes else -step
            self.show_tab(panes[(i + step) % len(panes)])

    def action_tab(self, n: int) -> None:
        """`1`-`9`: the n-th tab (in the tab bar's order)."""
        panes = self.panes()
        if 1 <= n <= len(panes):
            self.show_tab(panes[n - 1])
        else:
            self.notify(f"no tab {n} ({len(panes)} open)", markup=False)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """What `allows` says with the screen in front (`self.screen`)."""
        return self.allows(action, self.screen if self.screen_stack else None)

    def allows(self, action: str, front: Screen[Any] | None) -> bool | None:
        """Whether an app key works with `front` in front: `x` only where there is a
        report to write (a tab with one in front on the main screen); `c` only with a
        ledger in front; the tab keys (`]`, `[`, `1`-`9`) and the key help on the main
        screen only (an Input in front takes them as text); escape closes the palette's
        keys panel while it shows. The palette asks with the screen it was opened over
        (`get_system_commands`), so it offers what the footer under it does."""
        if action in ("case_note", "case_finding"):  # a case open, on the main screen
            return (
                self.case_link is not None
                and bool(self.screen_stack)
                and front is self.screen_stack[0]
            )
        if self.first_paint is not None:  # the footer shows the keys as they will be
            return True
        main = bool(self.screen_stack) and front is self.screen_stack[0]
        if action in ("next_tab", "prev_tab", "tab", "key_help"):
            return main
        if action == "hide_help_panel":  # escape: only while the palette's keys panel shows
            return bool(self.screen_stack) and bool(self.screen.query("HelpPanel"))
        if action == "export":
            tab = self.current_tab()
            return main and tab is not None and tab.has_report
        if action == "check":
            return self.current_ledger() is not None
        return True

    # ------------------------------------------------------------------ seal links
    def on_jump_to_ledger_row(self, m: JumpToLedgerRow) -> None:
        for lt in self.ledger_tabs():
            if lt.path == m.path:
                self.show_line(lt, m.line)
                return
        self.notify("the ledger of that row is no longer open", markup=False)

    async def on_open_at_first_break(self, m: OpenAtFirstBreak) -> None:
        """A fleet's ledger: its own tab, at its first break once verified, judged
        with what the fleet holds (its stored verdicts join the run)."""
        self.hand_over(m.held)
        tab = await self.open_path(m.path)
        if isinstance(tab, lazy.LedgerTab):
            tab.first_break_when_verified()

    def on_jump_to_seal(self, m: JumpToSeal) -> None:
        seal = lazy.find_seal_tab(self.seal_tabs(), m.row)
        if seal is None:
            self.notify(
                "no open seal matches this row's digests — open its snapshot file with o",
                markup=False,
            )
            return
        self.show_tab(seal)

    # ------------------------------------------------------------------ screens
    def action_lookup(self) -> None:
        """The look-up screen, showing again the held file last looked up from this
        ledger (a check stays part of its tab until cleared)."""
        receipts = lazy.receipt_tabs(self.panes())  # the receipt files' manifests too
        front = self.current_tab()
        origin = self.current_ledger() or (front if front in receipts else None)
        last = [r for r in (origin.session if origin else []) if r.kind == "lookup"]
        held = last[-1].inputs.get("held") if last else None
        path = Path(held[0]) if held else None
        self.push_screen(
            lazy.LookupScreen(self.ledger_tabs(), path=path, origin=origin, receipts=receipts)
        )

    def on_look_up(self, m: LookUp) -> None:
        receipts = lazy.receipt_tabs(self.panes())
        self.push_screen(
            lazy.LookupScreen(self.ledger_tabs(), path=m.path, origin=m.origin, receipts=receipts)
        )

    def action_check(self) -> None:
        tab = self.current_ledger()
        if tab is None:
            self.notify("select a ledger tab first", markup=False)
            return
        self.push_screen(lazy.PinScreen(tab))

    def action_case_note(self) -> None:
        lazy.case_app.ask_note(self, finding=False)

    def action_case_finding(self) -> None:
        lazy.case_app.ask_note(self, finding=True)

    def on_session_added(self, m: SessionAdded) -> None:
        if self.case_link is not None:
            self.case_link.session_added(m.tab, m.record, m.key)

    def on_case_changed(self, m: Message) -> None:
        lazy.case_app.case_changed(self)

    def action_export(self) -> None:
        tab = self.current_tab()
        if self.screen is not self.screen_stack[0] or tab is None or not tab.has_report:
            return
        self.push_screen(tab.export_screen())

    def action_key_help(self) -> None:
        self.push_screen(lazy.KeyHelpScreen(self.current_tab(), [self, self.screen_stack[0]]))

    def action_samples_readme(self) -> None:
        self.push_screen(lazy.SamplesReadmeScreen())

    def action_open(self) -> None:
        async def done(value: str | None) -> None:
            if not value:
                return
            p = lazy.pasted_path(value)
            if p is None:
                self.notify("no such file: " + clean(value), markup=False, severity="warning")
                return
            await self.open_paths([p])

        self.push_screen(
            lazy.PromptScreen(
                "Open a file",
                "path to a ledger, a snapshot, a "
                "harn transcript, a receipt, a pack (folder or "
                "zip) or a folder",
                suggester=lazy.PathSuggester(),
                id="open-prompt",
            ),
            done,
        )

    async def open_paths(self, paths: Sequence[os.PathLike[str] | str]) -> list[EvidenceTab]:
        """Open files and folders (as on the command line); the last one opened is
        brought to the front."""
        got = [
            t
            for t in [await self.open_path(q, activate=False) for q in expand_paths(paths)]
            if t is not None
        ]
        if got:
            self.show_tab(got[-1])
        return got

    def get_system_commands(self, screen: Screen[Any]) -> Iterable[SystemCommand]:
        """The palette: Textual's own entries, then what is in front on `screen` (its
        own bindings, the tab in front), then the app's bindings — each entry from a
        `PaletteBinding`, offered when its key would work."""
        yield from super().get_system_commands(screen)
        yield from front_commands(screen)
        yield from binding_commands(self, lambda action: self.allows(action, screen))

    # ------------------------------------------------------------------ paste
    async def on_paste(self, event: events.Paste) -> None:
        """A path pasted (or a file dragged onto the terminal) on the main screen: held
        content for the selected receipt, otherwise a new tab."""
        if self.screen is not self.screen_stack[0]:
            return
        p = lazy.pasted_path(event.text)
        if p is None:
            return
        event.stop()
        tab = self.current_ledger()
        if tab is not None and tab.rows.current_line:
            info = tab.source.row(tab.rows.current_line)
            if info.kind == "compaction_receipt":
                tab.open_held(info.line, pre=p)
                return
        front = self.current_tab()
        if front is not None and front.dropped(p):
            return
        await self.open_paths([p])
