"""One open ledger: verdict banner, progress, the virtual row list and the detail pane.

Two thread workers per file: the line index (mmap + `lines.line_offsets`) and the
verification (`ledger.verify` with `on_progress`, in a child process: `verify_child`);
they report to the tab with the messages of `messages`. Until the verdict arrives every row
is "pending" and the banner says "verifying… n%"; a verification that is cancelled or
fails never turns the banner green.

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
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import ProgressBar, Static
from textual.timer import Timer
from textual.worker import Worker, get_current_worker

from sealscope.core import verdict
from sealscope.core.ledger import Mismatch, VerifyResult, explain_mismatch
from sealscope.core.sanitize import clean
from sealscope.viewer import lazy
from sealscope.viewer.banner import BUSY, Banner, ledger_detail
from sealscope.viewer.evidence_tab import EvidenceTab, tab_label, tab_title
from sealscope.viewer.ledger_checks import LedgerChecks
from sealscope.viewer.ledger_find import RowFinder
from sealscope.viewer.ledger_keys import LEDGER_KEYS
from sealscope.viewer.ledger_status import count_words, status_text, strip_keys_text
from sealscope.viewer.messages import (CheckDone, Followed, Indexed, IndexProgress, JumpToSeal,
                                       Marked, RowSelected, StripJump, StripLeft, Verified,
                                       VerifyProgress, VerifyStopped, ViewportMoved)
from sealscope.viewer.overview_strip import OverviewStrip
from sealscope.viewer.row_detail import RowDetail
from sealscope.viewer.row_list import RowList, columns_text, line_digits, reason_of
from sealscope.viewer.source import LedgerSource
from sealscope.viewer.follow_mode import FollowMode
from sealscope.viewer.verify_child import Cancelled, follow_in_child
from sealscope.viewer.worker_progress import Progress

if TYPE_CHECKING:  # annotations: checks, charts and exports load on first use (`lazy`)
    from sealscope.core.compaction_series import SeriesPoint
    from sealscope.core.export import SessionRecord
    from sealscope.core.pins import Pin
    from sealscope.viewer.export_action import ExportScreen


INDEX_WAIT = 0.5       # seconds: a tab not in view indexes its file after this at the latest
DETAIL_SETTLE = 0.15   # seconds: a navigation key this soon after another defers the detail


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
    #columns {
        height: 1;
        background: $boost;
    }
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

    def __init__(self, path: Path, *, id: str) -> None:
        self.source = LedgerSource(path)
        self.path = str(self.source.path)
        self.tab_name = tab_label(self.source.name)
        super().__init__(tab_title(self.tab_name, None), id=id)
        self.result: Any = None
        self.finder = RowFinder(self, id="finder")    # filter and search
        self.follow = FollowMode(self, id="follow")   # following the file as it grows
        self.receipts: list[int] | None = None
        self.series: list[SeriesPoint] | None = None     # the compaction chart's points
        self.receipt_ok: dict[int, bool] = {}   # receipt line → its own check holds
        self.checks = LedgerChecks(self, id="checks")  # pin, witness, held content
        self._verify_worker: Worker[None] | None = None
        self.detail_line = 0          # the line the detail pane shows
        self.clock = time.monotonic   # when keys arrive (a test holds it still)
        self._last_nav = 0.0          # clock time of the last navigation-key move
        self._detail_timer: Timer | None = None
        self.break_on_verify = False  # select the first break once verified (from a fleet)
        self._when_indexed: list[Callable[[], None]] = []
        self._index_started = False
        self._when_verified: list[Callable[[], None]] = []
        self._explained: dict[int, Mismatch | None] = {}
        self.reading_state = "indexing"   # where the reading is: see `set_reading`
        self.pct = 0.0                    # its progress while indexing or verifying
        self.message = ""                 # why it is cancelled, in error or alarmed
        self.first_explained: Mismatch | None = None   # the first break, when a mismatch

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Banner(ledger_detail(self.source.name, "indexing"), state="indexing",
                     id="banner")
        yield ProgressBar(total=100, show_eta=False, id="progress")
        with Horizontal(id="body"):
            with Vertical(id="list-pane"):
                yield Static(id="columns")
                with Horizontal(id="list-row"):
                    yield RowList(self.source, id="rows")
                    yield OverviewStrip(id="strip")
                yield Static(id="list-status")
            yield RowDetail(id="detail")
        yield self.finder
        yield self.follow
        yield self.checks

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
            columns_text(line_digits(self.source.shown_lines)))
        if self.source.error:
            self.set_reading("error", message=self.source.error)
            self.query_one(ProgressBar).display = False
            self._update_status()
            return
        self.source.quick_index()
        self.rows.reload()
        if self.source.complete:
            self._after_index()
        else:
            # the rows on screen come from the quick index; the rest of the file is
            # indexed once they are drawn, since the index worker would share the
            # interpreter with the first paint (or soon, for a tab not in view)
            self.rows.after_first_paint(self._start_index)
            self.set_timer(INDEX_WAIT, self._start_index)

    def _start_index(self) -> None:
        if not self._index_started:
            self._index_started = True
            self.index_worker()

    def on_unmount(self) -> None:
        self.stop_following(quiet=True)
        self.source.close()

    # ------------------------------------------------------------------ workers
    @work(thread=True, exclusive=True, group="index")
    def index_worker(self) -> None:
        worker = get_current_worker()
        progress = Progress(self, worker, 2.0, IndexProgress, start=0.0)
        try:
            self.source.index(progress)
        except Cancelled:
            return
        self.post_message(Indexed())

    @work(thread=True, exclusive=True, group="verify")
    def verify_worker(self) -> None:
        worker = get_current_worker()
        progress = Progress(self, worker, 1.0, VerifyProgress)
        snapshot = None
        try:
            got = follow_in_child(self.source.path, progress, lambda: worker.is_cancelled)
            if got is not None:
                result, snapshot = got
            else:  # no child process here: verify (and open a follower) in this thread
                progress.restart()
                f = lazy.Follower(self.source.path)
                result = f.open(on_progress=progress)
                if f.alarm is None and f.whole is not None:
                    result, snapshot = f.whole, f.snapshot()
                f.close()
        except Cancelled:
            self.post_message(VerifyStopped("verification was cancelled"))
            return
        except Exception as e:  # noqa: BLE001 - never green on an error, never a traceback
            self.post_message(VerifyStopped(f"verification failed: {type(e).__name__}: {e}"))
            return
        if worker.is_cancelled:
            self.post_message(VerifyStopped("verification was cancelled"))
            return
        self.post_message(Verified(result, snapshot))

    @work(thread=True, exclusive=True, group="receipts")
    def receipts_worker(self) -> None:
        """The receipt and seal rows (one pass over the file for both), each receipt
        checked on its own: the strip's marks and the chart's points."""
        self._find_marks(1)

    @work(thread=True, group="follow-marks")
    def appended_marks_worker(self, first: int) -> None:
        """The receipt and seal rows among the lines a followed file appended (from
        `first`): the bytes the follower just verified, not the whole file again."""
        self._find_marks(first)

    def _find_marks(self, first: int) -> None:
        worker = get_current_worker()
        found = self.source.marked_rows(  # a receipt kept as its point, a seal as its line
            lambda: worker.is_cancelled, first,
            keep=lambda k, n, r: lazy.receipt_point(n, r) if k == "compaction_receipt" else None)
        if worker.is_cancelled:
            return
        points = [p for _n, p in found["compaction_receipt"]]
        self.post_message(Marked({p.where: p.ok for p in points},
                                 [n for n, _r in found["continuity_snapshot"]], points))

    # ------------------------------------------------------------------ messages
    def on_index_progress(self, m: IndexProgress) -> None:
        if self.result is None:
            self.set_reading("indexing", m.pct)
            self.query_one(ProgressBar).update(progress=m.pct)

    def on_indexed(self, _m: Indexed) -> None:
        self._after_index()

    def _after_index(self) -> None:
        self.rows.reload()
        self._update_status()
        queued, self._when_indexed = self._when_indexed, []
        for act in queued:
            act()
        self.set_reading("verifying", 0)
        self.query_one(ProgressBar).update(progress=0)
        self.receipts_worker()
        self._verify_worker = self.verify_worker()

    def on_verify_progress(self, m: VerifyProgress) -> None:
        if self.result is None:
            self.set_reading("verifying", min(m.pct, 99.0))
            self.query_one(ProgressBar).update(progress=m.pct)
            if m.done and self.source.complete:
                # lines that end at or before byte `done` are verified
                done = (self.source.line_count if m.done >= self.source.size
                        else self.source.line_of_offset(m.done) - 1)
                if done > self.strip.model.verified_through:
                    self.strip.model.verified_through = done
                    self._sync_strip()

    def on_marked(self, m: Marked) -> None:
        """Merge found marks (the first scan and those of appended rows may arrive in
        either order; a line found twice counts once)."""
        by_line = {p.where: p for p in self.series or []}
        by_line.update((p.where, p) for p in m.points)
        self.series = [by_line[n] for n in sorted(by_line)]
        self.receipts = sorted(by_line)
        model = self.strip.model
        model.seals = sorted({*model.seals, *m.seals})
        self.receipt_ok = {p.where: p.ok for p in self.series}
        self.judge()

    # ------------------------------------------------------------------ following
    def grow(self, m: Followed) -> None:
        """The follower verified appended rows (`m`): the lines from the current count
        on are the new ones (their marks are looked for), the source grows, and the
        list and banner show the new verdict."""
        if m.offsets is None:
            return
        first = max(1, self.source.line_count)   # the last line may have been partial
        self.call_later(self.appended_marks_worker, first)
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

    def on_verified(self, m: Verified) -> None:
        self.result = m.result
        self.rows.set_statuses(m.result.findings, m.result.first_chained_line, True)
        model = self.strip.model
        model.findings = self.rows.findings
        model.first_chained = m.result.first_chained_line
        model.verified = True
        model.verified_through = max(model.verified_through, m.result.lines)
        self._sync_strip()
        self.show_verdict(m.result)
        self.query_one(ProgressBar).display = self.filtering is not None
        self._update_status()
        self.rows.force_announce()
        if self.break_on_verify:
            self.first_break_when_verified()
        queued, self._when_verified = self._when_verified, []
        for act in queued:
            act()
        if m.snapshot is not None:
            self.start_following(m.snapshot)

    def on_verify_stopped(self, m: VerifyStopped) -> None:
        self.set_reading("cancelled", message=m.why)
        self.query_one(ProgressBar).display = False
        if self._when_verified:
            self._when_verified = []
            self.app.notify("the chain was not verified: no break to jump to", markup=False)

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
        self.paint_banner()   # the result changed even when the state did not

    def explained(self, line: int) -> Mismatch | None:
        """What the chain shows at line `line` when it is a chain mismatch
        (`ledger.explain_mismatch`, reading only the lines around it), else None."""
        if line not in self._explained:
            f = self.rows.findings.get(line)
            is_mismatch = f is not None and f[0] == "break" and \
                reason_of(f[1]).startswith("chain mismatch")
            self._explained[line] = explain_mismatch(
                self.source.path, line, offsets=self.source.offsets) \
                if is_mismatch and self.source.complete else None
        return self._explained[line]

    def when_verified(self, act: Callable[[], None], what: str) -> None:
        """Run `act` once the verdict is in (a key that needs the verdict, pressed
        before it: kept, not dropped), in the order asked."""
        self._when_verified.append(act)
        self.app.notify(f"{what}: done once the chain is verified", markup=False)

    def when_indexed(self, act: Callable[[], None], what: str) -> None:
        """Run `act` now if the line index is complete, else once it is, in the order
        asked, saying so: a key pressed while indexing is acted on, not dropped."""
        if self.source.complete:
            act()
            return
        self._when_indexed.append(act)
        self.app.notify(f"{what}: done once the file is indexed", markup=False)

    # ------------------------------------------------------------------ the tab's verdict
    def reading(self) -> str:
        """Where the file's reading is (`verdict.evidence`): `reading_state`."""
        return self.reading_state

    def set_reading(self, state: str, pct: float | None = None, message: str | None = None
                    ) -> None:
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
        """Hand the banner the tab's verdict and its text (`banner.ledger_detail`)."""
        if not self.is_mounted:
            return
        failed = tuple(sorted(n for n, ok in self.receipt_ok.items() if not ok))
        points = self.checked_series()
        scope = verdict.beside(self.tab_verdict, lazy.compaction_series.scope_checks(
            points or [])) if points else ""
        self.banner.show(self.tab_verdict, ledger_detail(
            self.source.name, self.reading_state, pct=self.pct, result=self.result,
            message=self.message, outcome=self.tab_verdict, scope=scope,
            checks=tuple(self.session), failed=failed if self.reading_state == "done" else (),
            explained=self.first_explained), self.reading_state)

    def own_outcome(self) -> verdict.Outcome | None:
        """The ledger alone (`verdict.ledger`: the chain, and receipts failing on their
        own); None until verified."""
        if self.result is None:
            return None
        return verdict.ledger(self.result, ({"ok": ok} for ok in self.receipt_ok.values()))

    def checked_series(self) -> list[SeriesPoint] | None:
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
            self.strip.model.receipts = {p.where: p.ok for p in points}
            self._sync_strip()
        self.paint_banner()
        self.rows.set_check_marks({n: verdict.recompute(c).verdict
                                   for n, (_pre, _post, c) in self.checks.held.items()})
        if self.detail_line:
            self.show_detail(self.detail_line)

    def clear_check_state(self) -> None:
        self.checks.clear()

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
        self.query_one(RowDetail).show(info, st, f[1] if f else None, honored,
                                       recomputed=recomputed,
                                       explained=self.explained(line) if f else None)

    def _sync_strip(self, force: bool = True) -> None:
        """Feed the strip the counts it bins from (the line count may have grown, a
        filter come or gone); re-bin when anything changed or `force`."""
        strip, model = self.strip, self.strip.model
        lines, view, findings = self.source.line_count, self.rows.view, self.rows.findings
        grown = self.result.lines if model.verified and self.result is not None else 0
        if grown > model.verified_through:           # a followed file grew, verified
            model.verified_through, force = grown, True
        if force or model.lines != lines or model.view is not view or \
                model.findings is not findings:
            model.lines, model.view, model.findings = lines, view, findings
            strip.changed()
        self.on_viewport_moved()

    def on_viewport_moved(self, _m: ViewportMoved | None = None) -> None:
        self.strip.set_viewport(*self.viewport_lines())

    def viewport_lines(self) -> tuple[int, int]:
        """The first and last line the row list shows ((0, 0) when empty): the strip's
        ▶ bins once it has caught up with the list's last move."""
        rl = self.rows
        if not rl.count:
            return 0, 0
        top = int(rl.scroll_offset.y)
        h = max(1, rl.scrollable_content_region.height)
        return (rl.line_at(min(top, rl.count - 1)),
                rl.line_at(min(top + h - 1, rl.count - 1)))

    def on_strip_jump(self, m: StripJump) -> None:
        m.stop()
        self.goto_row(m.line, focus=not m.stay)

    def on_strip_left(self, m: StripLeft) -> None:
        m.stop()
        self.rows.focus()

    def action_strip(self) -> None:
        """`m`: a shown strip takes the keyboard (0-9, arrows, Enter); `m` on the
        focused strip hides it; `m` on a hidden strip shows it and focuses it."""
        strip = self.strip
        if strip.display and strip.has_focus:
            strip.display = False
            self.rows.focus()
        else:
            strip.display = True
            strip.can_focus = True
            strip.focus()
            self._sync_strip()
        self._update_status()

    def on_descendant_focus(self, _e: events.DescendantFocus) -> None:
        self._update_status()

    def on_descendant_blur(self, _e: events.DescendantBlur) -> None:
        self._update_status()

    def action_chart(self) -> None:
        """`C`: the compaction chart of this ledger's receipts; Enter jumps to one."""
        if self.series is None:
            self.app.notify("the receipts are still being found", markup=False)
            return

        def done(line: int | None) -> None:
            if line:
                self.goto_row(line)
        title = f"Compaction receipts of {clean(self.source.name)}"
        self.app.push_screen(lazy.CompactionChart(title, self.checked_series() or [],
                                                  id="compaction-chart"), done)

    def _update_status(self) -> None:
        rl = self.rows
        if self.is_mounted:
            self._sync_strip(force=False)
        if self.is_mounted and self.app.focused is self.strip:
            self._show_status(strip_keys_text(), wrap=False)   # the strip's keys: its height stays
            return
        self._show_status(status_text(
            rl.current_line, self.count_words(), complete=self.source.complete,
            view=len(rl.view) if rl.view is not None else None,
            filter_label=self.filter_label, filtering=self.filtering,
            search=self.finder.search_badge, badges=self.follow.badges))

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
    def _finding_lines(self) -> list[int]:
        return sorted(self.rows.findings)

    def goto_row(self, line: int, focus: bool = True) -> bool:
        """Select `line` (clearing a filter that hides it); False when there is none."""
        rl = self.rows
        if rl.index_of(line) is None and rl.view is not None:
            self.action_clear_filter()
        ok = rl.cursor_to_line(line)
        if focus:
            rl.focus()
        self.on_viewport_moved()
        return ok

    _goto = goto_row   # the name the app and the demo call
    def action_first_break(self) -> None:
        lines = self._finding_lines()
        if not lines:
            self._no_breaks(retry=self.action_first_break)
            return
        self.goto_row(lines[0])

    def action_next_break(self) -> None:
        cur = self.rows.current_line
        nxt = [n for n in self._finding_lines() if n > cur]
        if nxt:
            self.goto_row(nxt[0])
        else:
            self._no_breaks("no later break", retry=self.action_next_break)

    def action_prev_break(self) -> None:
        cur = self.rows.current_line
        prv = [n for n in self._finding_lines() if n < cur]
        if prv:
            self.goto_row(prv[-1])
        else:
            self._no_breaks("no earlier break", retry=self.action_prev_break)

    def first_break_when_verified(self) -> None:
        """Select the first break now when verified, else as soon as it is (and say
        nothing when the chain holds)."""
        self.break_on_verify = self.result is None
        if self.result is not None and self._finding_lines():
            self.action_first_break()

    def _no_breaks(self, what: str = "no breaks", retry: Callable[[], None] | None = None
                   ) -> None:
        """No break to go to; while the chain is still being verified, `retry` runs
        once the verdict is in (the key is kept, not dropped)."""
        if self.result is None and retry is not None and self.verifying:
            self.when_verified(retry, "the chain is still being verified: the break")
        elif self.result is None:
            self.app.notify("the chain is still being verified", markup=False)
        else:
            self.app.notify(what, markup=False)

    def action_goto(self) -> None:
        def done(value: str | None) -> None:
            if value and value.strip().isdigit():
                self.goto_line(int(value.strip()))
        self.app.push_screen(lazy.PromptScreen("Go to line", "line number", restrict=r"[0-9]*",
                                               id="goto-prompt"), done)

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
        """Select line `n`; one past the lines indexed so far is selected once the
        index is complete."""
        if n > self.source.line_count and not self.source.complete:
            self.when_indexed(lambda: self.goto_line(n), f"go to line {n:,}")
        elif not self.goto_row(n):
            self.app.notify(f"no line {n} (the file has {self.rows.shown_lines:,})",
                            markup=False, severity="warning")

    def action_held(self) -> None:
        info = self.source.row(self.rows.current_line) if self.rows.current_line else None
        if info is None or info.kind != "compaction_receipt":
            self.app.notify("select a compaction receipt row first", markup=False)
            return
        self.checks.open_held(info.line)

    # the checks: the part's (`ledger_checks.LedgerChecks`), named here for the screens
    def open_held(self, line: int, pre: Path | None = None, post: Path | None = None) -> None:
        self.checks.open_held(line, pre, post)

    def held_content(self, line: int, pre: Path | None, post: Path | None, check: Any,
                     record: SessionRecord) -> None:
        self.checks.held_content(line, pre, post, check, record)

    def check_inputs(self, kind: str) -> dict[str, Any]:
        return self.checks.check_inputs(kind)

    def check_pin(self, pin: Pin) -> None:
        self.checks.check_pin(pin)

    def check_witness(self, store: Path, namespace: str) -> None:
        self.checks.check_witness(store, namespace)

    def action_jump_seal(self) -> None:
        """From a `continuity_snapshot` row to the open seal it sealed (the app finds it)."""
        line = self.rows.current_line
        info = self.source.row(line) if line else None
        if info is None or info.kind != "continuity_snapshot":
            self.app.notify("select a continuity_snapshot row first", markup=False)
            return
        self.post_message(JumpToSeal(info.obj))

    # ------------------------------------------------------------------ EvidenceTab
    def main_widget(self) -> RowList:
        return self.rows

    def export_screen(self) -> ExportScreen:
        """Its verdict (re-verified when not finished yet), its receipts, and the
        session: held content recomputed, items looked up."""
        return lazy.ExportScreen(self.path, kind="ledger", session=self.session,
                                 verify_result=self.result)

