"""StripFeed: what a ledger tab hands its overview strip and its compaction chart.

A part composed into the tab (`LedgerTab.strip_feed`), not drawn: the strip's model
(`overview_strip.StripModel`) is fed the counts it bins from (the lines, the filter's
view, the findings, how far the chain is verified, the receipts' marks) and re-binned
only when one of them changed; its ▶ bins follow the row list's viewport. `m` shows,
focuses and hides the strip (`toggle`); `C` opens the chart of the receipts' points as
this tab's checks left them (`LedgerTab.checked_series`), Enter there selecting one.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sealscope.core.ledger import VerifyResult
from sealscope.core.sanitize import clean
from sealscope.viewer import lazy

if TYPE_CHECKING:  # annotations: the chart loads on first use (`lazy`); the tab imports this
    from sealscope.core.compaction_series import SeriesPoint
    from sealscope.viewer.ledger_tab import LedgerTab

__all__ = ["StripFeed"]


class StripFeed:
    """The overview strip and compaction chart of `tab` (see the module)."""

    def __init__(self, tab: LedgerTab) -> None:
        self.tab = tab

    def sync(self, force: bool = True) -> None:
        """Feed the strip the counts it bins from (the line count may have grown, a
        filter come or gone); re-bin when anything changed or `force`."""
        tab = self.tab
        strip, model = tab.strip, tab.strip.model
        lines, view, findings = tab.source.line_count, tab.rows.view, tab.rows.findings
        grown = tab.result.lines if model.verified and tab.result is not None else 0
        if grown > model.verified_through:  # a followed file grew, verified
            model.verified_through, force = grown, True
        if (
            force
            or model.lines != lines
            or model.view is not view
            or model.findings is not findings
        ):
            model.lines, model.view, model.findings = lines, view, findings
            strip.changed()
        self.viewport_moved()

    def verified_through(self, done: int) -> None:
        """The verification reached line `done` (its progress): the strip shows it."""
        model = self.tab.strip.model
        if done > model.verified_through:
            model.verified_through = done
            self.sync()

    def verified(self, result: VerifyResult) -> None:
        """The chain's verdict is in: the strip marks its findings."""
        model = self.tab.strip.model
        model.findings = self.tab.rows.findings
        model.first_chained = result.first_chained_line
        model.verified = True
        model.verified_through = max(model.verified_through, result.lines)
        self.sync()

    def receipts_checked(self, points: Sequence[SeriesPoint]) -> None:
        """The receipts' marks as this tab's checks left them (read from the points'
        own columns when they are the tab's `PointColumns`)."""
        by_line = getattr(points, "ok_by_line", None)
        self.tab.strip.model.receipts = (
            by_line() if by_line is not None else {p.where: p.ok for p in points}
        )
        self.sync()

    def viewport_moved(self) -> None:
        self.tab.strip.set_viewport(*self.viewport_lines())

    def viewport_lines(self) -> tuple[int, int]:
        """The first and last line the row list shows ((0, 0) when empty): the strip's
        ▶ bins once it has caught up with the list's last move."""
        rl = self.tab.rows
        if not rl.count:
            return 0, 0
        top = int(rl.scroll_offset.y)
        h = max(1, rl.scrollable_content_region.height)
        return (
            rl.line_at(min(top, rl.count - 1)),
            rl.line_at(min(top + h - 1, rl.count - 1)),
        )

    def toggle(self) -> None:
        """`m`: a shown strip takes the keyboard (0-9, arrows, Enter); `m` on the
        focused strip hides it; `m` on a hidden strip shows it and focuses it."""
        tab = self.tab
        strip = tab.strip
        if strip.display and strip.has_focus:
            strip.display = False
            tab.rows.focus()
        else:
            strip.display = True
            strip.can_focus = True
            strip.focus()
            self.sync()
        tab.query_one("#strip-head").display = strip.display  # its heading goes with it
        tab.refresh_status()

    def chart(self) -> None:
        """`C`: the compaction chart of this ledger's receipts; Enter jumps to one."""
        tab = self.tab
        if tab.series is None:
            tab.app.notify("the receipts are still being found", markup=False)
            return

        def done(line: int | None) -> None:
            if line:
                tab.goto_row(line)

        title = f"Compaction receipts of {clean(tab.source.name)}"
        tab.app.push_screen(
            lazy.CompactionChart(title, tab.checked_series() or [], id="compaction-chart"),
            done,
        )
