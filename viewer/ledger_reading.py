"""LedgerReading: the reading of one ledger tab's file, a part composed into the tab.

It owns the three thread workers that read the file and the messages they post to it:
the line index (`LedgerSource.index`: `IndexProgress`, then `Indexed`), the verification
(`ledger.verify` in a child process, `verify_child`, else a `core.follow.Follower` in the
worker's thread: `VerifyProgress`, then `Verified` or `VerifyStopped`) and the receipt
and seal rows (`Marked`). It hands each result to the tab: the tab's `result`,
`series`, `receipts` and `receipt_ok`, its reading state (`LedgerTab.set_reading`) and
its progress bar. A verification that is cancelled or fails never turns the banner
green. Keys that need the index or the verdict, pressed before it, are kept in order
and acted on once it is in (`when_indexed`, `when_verified`), not dropped.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sealscope.viewer import lazy
from sealscope.viewer.messages import (
    Indexed,
    IndexProgress,
    Marked,
    Verified,
    VerifyProgress,
    VerifyStopped,
)
from sealscope.viewer.verify_child import Cancelled, follow_in_child
from sealscope.viewer.worker_progress import Progress
from textual import work
from textual.widget import Widget
from textual.widgets import ProgressBar
from textual.worker import Worker, get_current_worker

if TYPE_CHECKING:  # the tab imports this
    from sealscope.viewer.ledger_tab import LedgerTab

__all__ = ["LedgerReading"]


class LedgerReading(Widget):
    """The index, verify and receipt workers of `tab` (see the module); not drawn."""

    DEFAULT_CSS = "LedgerReading { display: none; }"

    def __init__(self, tab: LedgerTab, **kw: Any) -> None:
        super().__init__(**kw)
        self.tab = tab
        self.index_started = False
        self.verify_job: Worker[None] | None = None
        self._when_indexed: list[Callable[[], None]] = []
        self._when_verified: list[Callable[[], None]] = []

    # ------------------------------------------------------------------ workers
    def start_index(self) -> None:
        """Index the rest of the file (once: the first paint or a timer asks)."""
        if not self.index_started:
            self.index_started = True
            self.index_worker()

    @work(thread=True, exclusive=True, group="index")
    def index_worker(self) -> None:
        worker = get_current_worker()
        progress = Progress(self, worker, 2.0, IndexProgress, start=0.0)
        try:
            self.tab.source.index(progress)
        except Cancelled:
            return
        self.post_message(Indexed())

    @work(thread=True, exclusive=True, group="verify")
    def verify_worker(self) -> None:
        worker = get_current_worker()
        progress = Progress(self, worker, 1.0, VerifyProgress)
        snapshot = None
        path = self.tab.source.path
        try:
            got = follow_in_child(path, progress, lambda: worker.is_cancelled)
            if got is not None:
                result, snapshot = got
            else:  # no child process here: verify (and open a follower) in this thread
                progress.restart()
                f = lazy.Follower(path)
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
        """The marks from line `first`, as compact columns (`receipt_points`)."""
        worker = get_current_worker()
        points, seals = lazy.find_marks(self.tab.source, first, lambda: worker.is_cancelled)
        if worker.is_cancelled:
            return
        self.post_message(Marked(points.ok_by_line(), seals, points))

    # ------------------------------------------------------------------ messages
    def on_index_progress(self, m: IndexProgress) -> None:
        m.stop()
        tab = self.tab
        if tab.result is None:
            tab.set_reading("indexing", m.pct)
            tab.query_one(ProgressBar).update(progress=m.pct)

    def on_indexed(self, m: Indexed) -> None:
        m.stop()
        self.after_index()

    def after_index(self) -> None:
        """The line index is complete: the keys kept for it run, then the receipts
        are found and the chain verified."""
        tab = self.tab
        tab.rows.reload()
        tab.refresh_status()
        queued, self._when_indexed = self._when_indexed, []
        for act in queued:
            act()
        tab.set_reading("verifying", 0)
        tab.query_one(ProgressBar).update(progress=0)
        self.receipts_worker()
        tab.checks.check_rows()  # the rows with a check of their own
        self.verify_job = self.verify_worker()

    def on_verify_progress(self, m: VerifyProgress) -> None:
        m.stop()
        tab = self.tab
        if tab.result is None:
            tab.set_reading("verifying", min(m.pct, 99.0))
            tab.query_one(ProgressBar).update(progress=m.pct)
            if m.done and tab.source.complete:
                # lines that end at or before byte `done` are verified
                source = tab.source
                done = (
                    source.line_count
                    if m.done >= source.size
                    else source.line_of_offset(m.done) - 1
                )
                tab.strip_feed.verified_through(done)

    def on_marked(self, m: Marked) -> None:
        """Merge found marks (the first scan and those of appended rows may arrive in
        either order; a line found twice counts once)."""
        m.stop()
        tab = self.tab
        tab.series = m.points if tab.series is None else tab.series.merged(m.points)
        tab.receipts = tab.series.lines
        model = tab.strip.model
        model.seals = sorted({*model.seals, *m.seals})
        tab.receipt_ok = tab.series.ok_by_line()
        tab.judge()

    def on_verified(self, m: Verified) -> None:
        m.stop()
        tab = self.tab
        tab.result = m.result
        tab.rows.set_statuses(m.result.findings, m.result.first_chained_line, True)
        tab.strip_feed.verified(m.result)
        tab.show_verdict(m.result)
        tab.query_one(ProgressBar).display = tab.filtering is not None
        tab.refresh_status()
        tab.rows.force_announce()
        if tab.break_on_verify:
            tab.first_break_when_verified()
        queued, self._when_verified = self._when_verified, []
        for act in queued:
            act()
        if m.snapshot is not None:
            tab.start_following(m.snapshot)

    def on_verify_stopped(self, m: VerifyStopped) -> None:
        m.stop()
        tab = self.tab
        tab.set_reading("cancelled", message=m.why)
        tab.query_one(ProgressBar).display = False
        if self._when_verified:
            self._when_verified = []
            self.app.notify("the chain was not verified: no break to jump to", markup=False)

    # ------------------------------------------------------------------ kept keys
    def when_verified(self, act: Callable[[], None], what: str) -> None:
        """Run `act` once the verdict is in (a key that needs the verdict, pressed
        before it: kept, not dropped), in the order asked."""
        self._when_verified.append(act)
        self.app.notify(f"{what}: done once the chain is verified", markup=False)

    def when_indexed(self, act: Callable[[], None], what: str) -> None:
        """Run `act` now if the line index is complete, else once it is, in the order
        asked, saying so: a key pressed while indexing is acted on, not dropped."""
        if self.tab.source.complete:
            act()
            return
        self._when_indexed.append(act)
        self.app.notify(f"{what}: done once the file is indexed", markup=False)
