"""One open ledger: verdict banner, progress, the virtual row list and the detail pane.

The tab lays out its widgets and routes keys and messages to its parts, composed into it
(not base classes): `LedgerReading` (the index, verify and receipt workers, handing the
tab its result), `StripFeed` (the overview strip and the compaction chart), `BreakSteps`
(to a line, between breaks), `RowFinder` (filter, search), `FollowMode` (following) and
`LedgerChecks` (pin, witness, held content). Until the verdict arrives every row is
"pending" and the banner says "verifying… n%"; a verification that is cancelled or fails
never turns the banner green.

Moving the cursor repaints the row list and the one-line status at once; the detail
pane follows a single move at once too, but a run of navigation keys (a held arrow
or page key) is coalesced: the pane is drawn for the row the run stops on,
`DETAIL_SETTLE` seconds after its last key.

`session` holds the checks run on this ledger (a pin, a witness, held content
recomputed, items looked up) as `core.export.SessionRecord`s until cleared: the
banner, the row badge of a recomputed receipt, its receipt panel and the tab's
verdict show them, a dialog reopened shows what it loaded, and the audit report
holds each one (`EvidenceTab`).
"""

from __future__ import annotations

import time
from array import array
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from sealscope.core import kinds, verdict
from sealscope.core.ledger import Mismatch, VerifyResult, explain_mismatch
from sealscope.viewer import lazy
from sealscope.viewer.banner import BUSY, Banner, ledger_detail
from sealscope.viewer.evidence_tab import EvidenceTab, tab_label, tab_title
from sealscope.viewer.follow_mode import FollowMode
from sealscope.viewer.ledger_checks import LedgerChecks
from sealscope.viewer.ledger_find import RowFinder
from sealscope.viewer.ledger_keys import LEDGER_KEYS
from sealscope.viewer.ledger_reading import LedgerReading
from sealscope.viewer.ledger_status import count_words, status_text, strip_keys_text
from sealscope.viewer.ledger_steps import BreakSteps
from sealscope.viewer.ledger_strip import StripFeed
from sealscope.viewer.messages import (
    CheckDone,
    Followed,
    JumpToSeal,
    RowSelected,
    StripJump,
    StripLeft,
    ViewportMoved,
)
from sealscope.viewer.overview_strip import OverviewStrip
from sealscope.viewer.row_detail import RowDetail
from sealscope.viewer.row_jumps import RowJumps
from sealscope.viewer.row_list import RowList, columns_text, line_digits, reason_of
from sealscope.viewer.source import LedgerSource
from textual import events
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.timer import Timer
from textual.widgets import ProgressBar, Static

if TYPE_CHECKING:  # annotations: checks, charts and exports load on first use (`lazy`)
    from sealscope.core.checks.result import CheckContext
    from sealscope.core.compaction_series import SeriesPoint
    from sealscope.core.export import SessionRecord
    from sealscope.core.pins import Pin
    from sealscope.core.receipt_points import PointColumns
    from sealscope.viewer.export_action import ExportScreen


INDEX_WAIT = 0.5  # seconds: a tab not in view indexes its file after this at the latest
DETAIL_SETTLE = 0.15  # seconds: a navigation key this soon after another defers the detail


class LedgerTab(EvidenceTab):
    """The tab of one ledger file; it follows the file as it grows (its `follow` part,
    `follow_mode.FollowMode`) and filters and searches it (its `finder`)."""

    DEFAULT_CSS = """
    LedgerTab {
        layout: vertical;
        padding: 0;
    }
    #progress { height: 1; padding: 0 1; width: 1fr; }  /* not auto: its bar is 1fr */
    #progress Bar { width: 1fr; }
    #body { height: 1fr; }
    #list-pane {
        width: 3fr;
        height: 1fr;
    }
    #columns-row {
        height: 1;
        background: $boost;
    }
    #columns { width: 1fr; }
    #strip-head { width: 3; color: $text-muted; }  /* over the strip and its gap */
    #list-row { height: 1fr; }
    #list-row RowList { width: 1fr; }
    #list-status {
        height: 1;
        background: $boost;
        color: $text-muted;
    }
    """

    kind_name = "ledger"

    BINDINGS = LEDGER_KEYS

    def __init__(self, path: Path, *, id: str, call_record: bool | None = None) -> None:
        self.source = LedgerSource(path)
        self.path = str(self.source.path)
        # a call record opens as a ledger but is judged by its own check (`own_outcome`);
        # the app passes what its classifier said (None: classified here)
        self.call_record = _is_call_record(self.path) if call_record is None else call_record
        self.tab_name = tab_label(self.source.name)
        super().__init__(tab_title(self.tab_name, None), id=id)
        self.result: Any = None
        self.finder = RowFinder(self, id="finder")  # filter and search
        self.follow = FollowMode(self, id="follow")  # following the file as it grows
        self.receipts: Sequence[int] | None = None
        self.series: PointColumns | None = None  # the compaction chart's points
        self.receipt_ok: Mapping[int, bool] = {}  # receipt line → its own check holds
        self.checks = LedgerChecks(self, id="checks")  # pin, witness, held content
        self.reading_part = LedgerReading(self, id="reading")  # index, verify, receipts
        self.strip_feed = StripFeed(self)  # the overview strip and the compaction chart
        self.steps = BreakSteps(self)  # to a line, between breaks
        self.jumps = RowJumps(self)  # copy, to the line a row names, between receipts
        self.detail_line = 0  # the line the detail pane shows
        self.clock = time.monotonic  # when keys arrive (a test holds it still)
        self._last_nav = 0.0  # clock time of the last navigation-key move
        self._detail_timer: Timer | None = None
        self.break_on_verify = False  # select the first break once verified (from a fleet)
        self._explained: dict[int, Mismatch | None] = {}
        self.reading_state = "indexing"  # where the reading is: see `set_reading`
        self.pct = 0.0  # its progress while indexing or verifying
        self.message = ""  # why it is cancelled, in error or alarmed
        self.first_explained: Mismatch | None = None  # the first break, when a mismatch

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Banner(ledger_detail(self.source.name, "indexing"), state="indexing", id="banner")
        yield ProgressBar(total=100, show_eta=False, id="progress")
        with Horizontal(id="body"):
            with Vertical(id="list-pane"):
                with Horizontal(id="columns-row"):
                    yield Static(id="columns")
                    yield Static("map", id="strip-head")  # the strip is per bin, not per row
                with Horizontal(id="list-row"):
                    yield RowList(self.source, id="rows")
                    yield OverviewStrip(id="strip")
                yield Static(id="list-status")
            yield RowDetail(id="detail")
        yield self.finder
        yield self.follow
        yield self.checks
        yield self.reading_part

    @property
    def rows(self) -> RowList:
        return self.query_one(RowList)

    @property
    def strip(self) -> OverviewStrip:
        return self.query_one(OverviewStrip)

    @property
    def banner(self) -> Banner:
        return self.query_one(Banner)

    def on_mount(self) -> None:
        self.query_one("#columns", Static).update(
            columns_text(line_digits(self.source.shown_lines))
        )
        if self.source.error:
            self.set_reading("error", message=self.source.error)
            self.query_one(ProgressBar).display = False
            self._update_status()
            return
        self.source.quick_index()
        self.rows.reload()
        if self.source.complete:
            self.reading_part.after_index()
        else:
            # the rows on screen come from the quick index; the rest of the file is
            # indexed once they are drawn, since the index worker would share the
            # interpreter with the first paint (or soon, for a tab not in view)
            self.rows.after_first_paint(self._start_index)
            self.set_timer(INDEX_WAIT, self._start_index)

    def _start_index(self) -> None:
        self.reading_part.start_index()

    @property
    def _index_started(self) -> bool:
        """The rest of the file is being (or was) indexed."""
        return self.reading_part.index_started

    def on_unmount(self) -> None:
        self.stop_following(quiet=True)
        self.source.close()

    # ------------------------------------------------------------------ following
    def grow(self, m: Followed) -> None:
        """The follower verified appended rows (`m`): the lines from the current count
        on are the new ones (their marks are looked for), the source grows, and the
        list and banner show the new verdict."""
        if m.offsets is None:
            return
        first = max(1, self.source.line_count)  # the last line may have been partial
        self.call_later(self.reading_part.appended_marks_worker, first)
        self.call_later(self.checks.check_rows)  # appended rows may have checks of their own
        self.source.grow_to(m.offsets, m.first, m.cut)
        self.result = m.result
        self.rows.set_statuses(m.result.findings, m.result.first_chained_line, True)
        self.show_verdict(m.result)

    def alarmed(self, message: str, result: VerifyResult | None) -> None:
        """The file changed under the follower (`message` says how): the rows stay
        as they were read, the banner turns red."""
        if result is not None:
            self.result = result
        self.alarm(message)
        self._update_status()

    def start_following(self, snapshot: dict[str, Any]) -> None:
        self.follow.start(snapshot)

    def stop_following(self, quiet: bool = False) -> None:
        self.follow.stop(quiet)

    @property
    def following(self) -> bool:
        """Polling the file for appended rows."""
        return self.follow.following

    @property
    def pinned(self) -> bool:
        """The cursor rides the last row."""
        return self.follow.pinned

    @property
    def unseen(self) -> int:
        """Rows arrived while unpinned."""
        return self.follow.unseen

    @property
    def follow_alarm(self) -> str:
        """What stopped following, in words ("" while none did)."""
        return self.follow.follow_alarm

    @property
    def follow_poll(self) -> float:
        """Seconds between polls of the followed file."""
        return self.follow.follow_poll

    @follow_poll.setter
    def follow_poll(self, seconds: float) -> None:
        self.follow.follow_poll = seconds

    @property
    def verifying(self) -> bool:
        """The chain's verdict is still to come (indexing or verifying)."""
        return self.result is None and self.reading_state in BUSY

    def show_verdict(self, result: VerifyResult) -> None:
        """The banner shows `result`, its first break explained when it is a chain
        mismatch (the explanations of earlier results are dropped: rows may have been
        added after a break)."""
        self._explained.clear()
        first = next((f for f in result.findings if f.kind == "break"), None)
        self.first_explained = self.explained(first.line) if first is not None else None
        self.set_reading("done")
        self.paint_banner()  # the result changed even when the state did not

    def explained(self, line: int) -> Mismatch | None:
        """What the chain shows at line `line` when it is a chain mismatch
        (`ledger.explain_mismatch`, reading only the lines around it), else None."""
        if line not in self._explained:
            f = self.rows.findings.get(line)
            is_mismatch = (
                f is not None and f[0] == "break" and reason_of(f[1]).startswith("chain mismatch")
            )
            self._explained[line] = (
                explain_mismatch(self.source.path, line, offsets=self.source.offsets)
                if is_mismatch and self.source.complete
                else None
            )
        return self._explained[line]

    def when_verified(self, act: Callable[[], None], what: str) -> None:
        """Run `act` once the verdict is in (`LedgerReading.when_verified`)."""
        self.reading_part.when_verified(act, what)

    def when_indexed(self, act: Callable[[], None], what: str) -> None:
        """Run `act` once the line index is complete (`LedgerReading.when_indexed`)."""
        self.reading_part.when_indexed(act, what)

    # ------------------------------------------------------------------ the tab's verdict
    def reading(self) -> str:
        """Where the file's reading is (`verdict.evidence`): `reading_state`."""
        return self.reading_state

    def set_reading(self, state: str, pct: float | None = None, message: str | None = None) -> None:
        """The reading moved on: "indexing" | "verifying" (with `pct`) | "done" |
        "cancelled" | "error" (with `message`, why) | "alarm" (a followed file was
        truncated, replaced or rewritten while open). A new state judges the tab
        again; a progress step only redraws the banner."""
        changed = state != self.reading_state
        self.reading_state = state
        if pct is not None:
            self.pct = pct
        if message is not None:
            self.message = message
        if changed:
            self.judge()
        else:
            self.paint_banner()

    def alarm(self, message: str) -> None:
        """The file changed under the follower: red at once, naming what happened."""
        self.set_reading("alarm", message=message)

    def paint_banner(self) -> None:
        """Hand the banner the tab's verdict and its text (`banner.ledger_detail`); a
        tab being torn down (its banner already gone) has nothing to paint."""
        if not self.is_mounted or not self.query(Banner):
            return
        failed = tuple(sorted(n for n, ok in self.receipt_ok.items() if not ok))
        points = self.checked_series()
        scope = verdict.beside(
            self.tab_verdict,
            lazy.compaction_series.scope_checks(points) if points else (),
            self.checks.rows_bound(),
        )
        self.banner.show(
            self.tab_verdict,
            ledger_detail(
                self.source.name,
                self.reading_state,
                pct=self.pct,
                result=self.result,
                message=self.message,
                outcome=self.tab_verdict,
                scope=scope,
                checks=tuple(self.session),
                failed=failed if self.reading_state == "done" else (),
                explained=self.first_explained,
                rows=self.checks.not_verified() if self.reading_state == "done" else (),
                judged_by=self._judged_by(),
                judged_counts=self._judged_counts(),
            ),
            self.reading_state,
        )

    def _judged_by(self) -> str:
        """A call record's banner line: the rule that judged it, and why when it is
        not VERIFIED ("" for any other ledger, or before its check is in)."""
        own = self.checks.own
        if own is None:
            return ""
        why = own.reason if own.verdict != verdict.VERIFIED else ""
        return lazy.call_record.JUDGED_BY + (f": {why}" if why else "")

    def _judged_counts(self) -> dict[str, Any] | None:
        """A call record's numbers behind its word (its verifier's `rows` and
        `first_break`, `detail.call_record`); None for any other ledger, or before its
        check is in."""
        own = self.checks.own
        counts = own.detail.get("call_record") if own is not None else None
        return counts if isinstance(counts, dict) else None

    def own_outcome(self) -> verdict.Outcome | None:
        """The ledger alone (`verdict.ledger`: the chain, receipts failing on their
        own, and its other row checks, `checks.rows`); None until verified."""
        if self.result is None:
            return None
        receipts = ({"ok": ok} for ok in self.receipt_ok.values())
        walked = verdict.ledger(self.result, receipts, self.checks.rows or ())
        if not self.call_record:
            return walked
        return lazy.call_record.opened_outcome(True, self.checks.own, walked)

    def checked_series(self) -> Sequence[SeriesPoint] | None:
        """The compaction chart's points with the held content recomputed on this tab
        (`compaction_series.checked`): what the chart, the strip and the banner's scope
        show. None while the receipts are still being found."""
        if self.series is None:
            return None
        return lazy.compaction_series.checked(self.series, self.session)

    def on_check_done(self, m: CheckDone) -> None:
        m.stop()
        self.add_session(m.record, key=m.key)

    def checks_changed(self) -> None:
        """The banner, the row badges and the detail pane show the checks."""
        if not self.is_mounted:
            return
        points = self.checked_series()
        if points is not None:
            self.strip_feed.receipts_checked(points)
        self.paint_banner()
        self.rows.set_check_marks(
            {n: verdict.recompute(c).verdict for n, (_pre, _post, c) in self.checks.held.items()}
        )
        if self.detail_line:
            self.show_detail(self.detail_line)

    def clear_check_state(self) -> None:
        self.checks.clear()

    def dropped(self, path: Path) -> bool:
        """A file dropped on an artefact binding row is its held artefact."""
        return self.checks.dropped(path)

    def on_row_selected(self, m: RowSelected) -> None:
        self.follow.note_cursor()
        self._update_status()
        now = self.clock()
        burst = m.nav and now - self._last_nav < DETAIL_SETTLE
        self._last_nav = now if m.nav else 0.0
        if self._detail_timer is not None:
            self._detail_timer.stop()
            self._detail_timer = None
        if burst:
            self._detail_timer = self.set_timer(DETAIL_SETTLE, self._settle_detail)
        else:
            self.show_detail(m.line)

    def _settle_detail(self) -> None:
        self._detail_timer = None
        line = self.rows.current_line
        if line:
            self.show_detail(line)

    def show_detail(self, line: int) -> None:
        """Draw the detail pane for `line`."""
        self.detail_line = line
        info = self.source.row(line)
        st = self.rows.status(line, info)
        f = self.rows.findings.get(line)
        honored = None
        if info.kind == "chain_break_declared" and self.result is not None:
            ol = info.obj.get("orphan_line")
            of = self.rows.findings.get(ol) if isinstance(ol, int) else None
            honored = bool(of and of[0] == "declared")
        recomputed = self.checks.recomputed(line)
        self.query_one(RowDetail).show(
            info,
            st,
            f[1] if f else None,
            honored,
            recomputed=recomputed,
            explained=self.explained(line) if f else None,
            row_checks=self.checks.entries_at(line),
        )

    def _sync_strip(self, force: bool = True) -> None:
        self.strip_feed.sync(force)

    def on_viewport_moved(self, _m: ViewportMoved | None = None) -> None:
        self.strip_feed.viewport_moved()

    def viewport_lines(self) -> tuple[int, int]:
        """The first and last line the row list shows (`StripFeed.viewport_lines`)."""
        return self.strip_feed.viewport_lines()

    def on_strip_jump(self, m: StripJump) -> None:
        m.stop()
        self.goto_row(m.line, focus=not m.stay)

    def on_strip_left(self, m: StripLeft) -> None:
        m.stop()
        self.rows.focus()

    def action_strip(self) -> None:
        self.strip_feed.toggle()

    def on_descendant_focus(self, _e: events.DescendantFocus) -> None:
        self._update_status()

    def on_descendant_blur(self, _e: events.DescendantBlur) -> None:
        self._update_status()

    def action_chart(self) -> None:
        self.strip_feed.chart()

    def _update_status(self) -> None:
        rl = self.rows
        if self.is_mounted:
            self._sync_strip(force=False)
        if self.is_mounted and self.app.focused is self.strip:
            self._show_status(strip_keys_text(), wrap=False)  # the strip's keys: its height stays
            return
        self._show_status(
            status_text(
                rl.current_line,
                self.count_words(),
                complete=self.source.complete,
                view=len(rl.view) if rl.view is not None else None,
                filter_label=self.filter_label,
                filtering=self.filtering,
                search=self.finder.search_badge,
                badges=self.follow.badges,
            )
        )

    def _show_status(self, t: Text, wrap: bool = True) -> None:
        """The status line; when it is wider than the list pane (80 columns, a search
        with its match k of n) it takes a second line rather than lose its end."""
        st = self.query_one("#list-status", Static)
        width = st.size.width
        height = 2 if wrap and width and t.cell_len > width else 1
        t.no_wrap = height == 1
        if st.styles.height is None or st.styles.height.value != height:
            st.styles.height = height
            st.update(t)
        else:
            st.update(t, layout=False)

    def count_words(self) -> str:
        """How big the file is, in words (`ledger_status.count_words`): its rows once
        verified and fully indexed."""
        done = self.result is not None and self.source.complete
        return count_words(self.source.shown_lines, self.result.rows if done else None)

    # ------------------------------------------------------------------ navigation
    # to a line, between breaks: the steps part's (`ledger_steps.BreakSteps`)
    def goto_row(self, line: int, focus: bool = True) -> bool:
        """Select `line` (clearing a filter that hides it); False when there is none."""
        return self.steps.goto_row(line, focus)

    _goto = goto_row  # the name the app and the demo call

    def action_first_break(self) -> None:
        self.steps.first_break()

    def action_next_break(self) -> None:
        self.steps.next_break()

    def action_prev_break(self) -> None:
        self.steps.prev_break()

    def run_changed(self, ctx: CheckContext) -> None:
        self.checks.run_changed(ctx)  # the row checks join the run's verdicts

    def first_break_when_verified(self) -> None:
        """Select the first break now when verified, else as soon as it is."""
        self.steps.first_break_when_verified()

    def action_goto(self) -> None:
        self.steps.prompt_goto()

    # filter and search: the finder part's (`ledger_find.RowFinder`)
    def action_filter(self) -> None:
        self.finder.prompt_filter()

    def apply_filter(self, spec: str | None) -> None:
        """Show only the rows of a filter (`RowFinder.apply_filter`)."""
        self.finder.apply_filter(spec)

    def action_clear_filter(self) -> None:
        self.finder.clear_filter()

    def action_search(self) -> None:
        self.finder.prompt_search()

    def action_search_next(self) -> None:
        self.finder.step(backwards=False)

    def action_search_prev(self) -> None:
        self.finder.step(backwards=True)

    @property
    def filtering(self) -> tuple[str, float] | None:
        """A filter being found: (label, %), else None."""
        return self.finder.filtering

    @property
    def filter_label(self) -> str:
        """The filter shown ("" when none)."""
        return self.finder.filter_label

    def filter_progress(self, pct: float) -> None:
        """A filter is being found: the status line says so, and once the verdict is
        in (the bar is free) the progress bar shows it."""
        self._update_status()
        if self.result is not None:
            bar = self.query_one(ProgressBar)
            bar.display = pct < 100
            bar.update(progress=pct)

    def show_view(self, view: array | None) -> None:
        """The row list shows only `view`'s lines (None: every line)."""
        if self.result is not None:
            self.query_one(ProgressBar).display = False
        self.rows.set_view(view)
        self._update_status()

    def refresh_status(self) -> None:
        """Redraw the status line."""
        self._update_status()

    def goto_line(self, n: int) -> None:
        """Select line `n` (`BreakSteps.goto_line`)."""
        self.steps.goto_line(n)

    def action_held(self) -> None:
        info = self.source.row(self.rows.current_line) if self.rows.current_line else None
        if info is None or info.kind != "compaction_receipt":
            self.app.notify("select a compaction receipt row first", markup=False)
            return
        self.checks.open_held(info.line)

    # the checks: the part's (`ledger_checks.LedgerChecks`), named here for the screens
    def open_held(self, line: int, pre: Path | None = None, post: Path | None = None) -> None:
        self.checks.open_held(line, pre, post)

    def held_content(
        self, line: int, pre: Path | None, post: Path | None, check: Any, record: SessionRecord
    ) -> None:
        self.checks.held_content(line, pre, post, check, record)

    def check_inputs(self, kind: str) -> dict[str, Any]:
        return self.checks.check_inputs(kind)

    def check_pin(self, pin: Pin) -> None:
        self.checks.check_pin(pin)

    def check_witness(self, store: Path, namespace: str) -> None:
        self.checks.check_witness(store, namespace)

    def action_jump_seal(self) -> None:
        """To what the selected row names (`RowJumps.jump`: a declared line, the row a
        break's explanation names), or from a `continuity_snapshot` row to the open
        seal it sealed (the app finds it)."""
        if self.jumps.jump():
            return
        line = self.rows.current_line
        info = self.source.row(line) if line else None
        if info is None or info.kind != "continuity_snapshot":
            self.app.notify(
                "this row names no line: select a chain_break_declared row, a break "
                "or a continuity_snapshot row",
                markup=False,
            )
            return
        self.post_message(JumpToSeal(info.obj))

    def action_next_receipt(self) -> None:
        self.jumps.step_receipt(backwards=False)

    def action_prev_receipt(self) -> None:
        self.jumps.step_receipt(backwards=True)

    def action_copy(self) -> None:
        self.jumps.copy()

    # ------------------------------------------------------------------ EvidenceTab
    def main_widget(self) -> RowList:
        return self.rows

    def export_screen(self) -> ExportScreen:
        """Its verdict (re-verified when not finished yet), its receipts, and the
        session: held content recomputed, items looked up."""
        if self.call_record:  # the call record's report, as `sealscope export` writes it
            n = len(self.session)
            return lazy.ExportScreen(
                self.path,
                kind="call-record",
                check=self.checks.own,
                note=f"the call record's own report: the {n} check(s) run in this tab are not in it"
                if n
                else "",
            )
        return lazy.ExportScreen(
            self.path, kind="ledger", session=self.session, verify_result=self.result
        )


def _is_call_record(path: str) -> bool:
    """Whether the classifier calls `path` a call record (KINDS.md §1: its first
    object row a `tool_call` with `args_digest`)."""
    try:
        return kinds.identify(path).kind == kinds.CALL_RECORD
    except Exception:  # noqa: BLE001 - an unreadable file is judged as a ledger says
        return False
