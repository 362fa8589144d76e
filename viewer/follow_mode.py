"""Follow mode of a ledger tab: the tab follows its file as it grows.

`FollowMode` is a part composed into the tab (not drawn), owning the follow state
(reactive `following`, `pinned`, `unseen`, `follow_alarm`), its timer and its thread
workers; it hands what it found to the tab (`LedgerTab.grow`, `LedgerTab.alarmed`).

After the verification, a `core.follow.Follower` adopts the verify child's walk (it
re-hashes the verified bytes instead of walking them again). A timer starts a short
thread worker every `FOLLOW_POLL` seconds; the worker polls, indexes the new complete
lines (the index is extended, never rebuilt) and posts one `Followed`. New rows are
added to the list only once verified, so the banner is VERIFIED only while every
row shown is checked. `End` pins the view to the last row and it scrolls as rows
arrive; moving up unpins, and while unpinned the status line shows "+N new rows".
The status line carries a FOLLOWING badge. If the file shrinks, is replaced or its
verified bytes change, the banner turns red at once naming what happened, following
stops, and the rows already shown stay as they were read. The head the follower had
verified then (its last chain and row count) is kept as `seen_head`, a pin: reopening
the file (`o`) opens a new tab checked against it, so a truncated file opens BROKEN
`truncated` rather than green (`SealscopeApp.open_path`).

It polls (as toolong's tail does) rather than using watchfiles: no new dependency,
the same behaviour on Linux and macOS, and appends on NFS are seen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from sealscope.core.clock import utc_stamp
from sealscope.core.ledger import VerifyResult
from sealscope.viewer import lazy
from sealscope.viewer.messages import Followed
from textual import work
from textual.reactive import reactive
from textual.timer import Timer
from textual.widget import Widget
from textual.worker import Worker, get_current_worker

if TYPE_CHECKING:  # loaded when following starts, after the verdict; the tab imports this
    from sealscope.core.follow import Follower
    from sealscope.core.pins import Pin
    from sealscope.viewer.ledger_tab import LedgerTab

__all__ = ["FollowMode", "FOLLOW_POLL"]

FOLLOW_POLL = 0.5  # seconds between polls of a followed file


class FollowMode(Widget):
    """The follow part of `tab` (see the module): composed into it, not drawn."""

    DEFAULT_CSS = "FollowMode { display: none; }"

    def __init__(self, tab: LedgerTab, **kw: Any) -> None:
        super().__init__(**kw)
        self.tab = tab

    following: reactive[bool] = reactive(False, init=False)  # polling the file
    pinned: reactive[bool] = reactive(False, init=False)  # the cursor rides the last row
    unseen: reactive[int] = reactive(0, init=False)  # rows arrived while unpinned
    follow_alarm: reactive[str] = reactive("", init=False)  # what stopped following, in words

    follow_poll = FOLLOW_POLL
    seen_head: Pin | None = None  # the head verified before an alarm, as a pin
    _follower: Follower | None = None
    _follow_timer: Timer | None = None
    _poll_job: Worker[None] | None = None

    # ------------------------------------------------------------------ start / stop
    def start(self, snapshot: dict) -> None:
        """Follow the file from the verify walk's `snapshot`."""
        self._follower = lazy.Follower(self.tab.source.path)
        self._adopt(snapshot)

    @work(thread=True, exclusive=True, group="follow")
    def _adopt(self, snapshot: dict) -> None:
        f = self._follower
        if f is None:
            return
        f.adopt(snapshot)
        self.app.call_from_thread(self._adopted)

    def _adopted(self) -> None:
        f = self._follower
        if f is None:
            return
        if f.alarm is not None:
            self._alarmed(f.alarm.kind, f.alarm.text, f.result)
            return
        self.following = True
        self._follow_timer = self.set_interval(self.follow_poll, self._poll_tick)

    def stop(self, quiet: bool = False) -> None:
        """Stop polling and close the file; `quiet` (unmounting) redraws nothing."""
        if self._follow_timer is not None:
            self._follow_timer.stop()
            self._follow_timer = None
        if quiet:
            self.set_reactive(FollowMode.following, False)
        else:
            self.following = False
        if self._follower is not None:
            self._follower.close()
            self._follower = None

    # ------------------------------------------------------------------ polling
    def _poll_tick(self) -> None:
        if self._follower is not None and not (self._poll_job and self._poll_job.is_running):
            self._poll_job = self._poll_worker()

    @work(thread=True, exclusive=True, group="follow")
    def _poll_worker(self) -> None:
        f = self._follower
        if f is None:
            return
        events = f.poll()
        if not events or f.result is None or get_current_worker().is_cancelled:
            return
        if f.alarm is not None:
            self.post_message(Followed(f.result, alarm=(f.alarm.kind, f.alarm.text)))
            return
        grew = events[0]
        assert f.state is not None
        offsets, first = self.tab.source.offsets_to(f.state.offset)
        self.post_message(
            Followed(
                f.result,
                added=grew.rows,
                offsets=offsets,
                first=first,
                cut=f.state.offset,
                events=tuple(events[1:]),
            )
        )

    def on_followed(self, m: Followed) -> None:
        m.stop()
        if m.alarm is not None:
            self._alarmed(*m.alarm, m.result)
            return
        if not self.following or m.offsets is None:
            return
        rl = self.tab.rows
        at_end = self.pinned and rl.view is None
        self.tab.grow(m)
        if at_end:
            rl.action_edge(1)
            self.pinned = True
        elif m.added:
            self.unseen += m.added
        self.tab.refresh_status()

    def _alarmed(self, kind: str, text: str, result: VerifyResult | None) -> None:
        state = self._follower.state if self._follower is not None else None
        if state is not None and state.began and self.seen_head is None:
            self.seen_head = lazy.pins.Pin(state.prev, state.rows, utc_stamp())
        self.stop()
        self.follow_alarm = f"{kind.upper()} while open: {text}"
        self.tab.alarmed(self.follow_alarm, result)

    # ------------------------------------------------------------------ pinning
    def note_cursor(self) -> None:
        """The cursor moved: on the last row (of the unfiltered list) it pins."""
        rl = self.tab.rows
        self.pinned = rl.view is None and rl.count > 0 and rl.cursor == rl.count - 1
        if self.pinned:
            self.unseen = 0

    def watch_unseen(self, _old: int, _new: int) -> None:
        self.tab.refresh_status()

    def watch_following(self, _old: bool, _new: bool) -> None:
        self.tab.refresh_status()

    def badges(self, t: Text) -> None:
        """The "+N new rows" marker and the FOLLOWING badge, appended to the status line."""
        if self.unseen and not self.pinned:
            t.append(f"  +{self.unseen:,} new rows ", "bold black on yellow")
        if self.following:
            t.append("  ")
            t.append(" FOLLOWING ", "bold black on green")
        elif self.follow_alarm:
            t.append("  ")
            t.append(" NOT FOLLOWING ", "bold white on red")
