"""BreakSteps: moving a ledger tab's cursor to a line or between its breaks.

A part composed into the tab (`LedgerTab.steps`), not drawn. A line hidden by a filter
clears the filter to be selected; a line past the lines indexed so far is selected once
the index is complete. The breaks are the rows with a finding; a break key pressed while
the chain is still being verified is kept and acted on once the verdict is in, not
dropped; once verified with no break to go to, it says so.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from sealscope.viewer import lazy

if TYPE_CHECKING:  # the tab imports this
    from sealscope.viewer.ledger_tab import LedgerTab

__all__ = ["BreakSteps"]


class BreakSteps:
    """Going to a line, and to the first / next / previous break of `tab`."""

    def __init__(self, tab: LedgerTab) -> None:
        self.tab = tab

    def _finding_lines(self) -> list[int]:
        return sorted(self.tab.rows.findings)

    def goto_row(self, line: int, focus: bool = True) -> bool:
        """Select `line` (clearing a filter that hides it); False when there is none."""
        tab = self.tab
        rl = tab.rows
        if rl.index_of(line) is None and rl.view is not None:
            tab.action_clear_filter()
        ok = rl.cursor_to_line(line)
        if focus:
            rl.focus()
        tab.on_viewport_moved()
        return ok

    def first_break(self) -> None:
        lines = self._finding_lines()
        if not lines:
            self._no_breaks(retry=self.tab.action_first_break)
            return
        self.goto_row(lines[0])

    def next_break(self) -> None:
        cur = self.tab.rows.current_line
        nxt = [n for n in self._finding_lines() if n > cur]
        if nxt:
            self.goto_row(nxt[0])
        else:
            self._no_breaks("no later break", retry=self.tab.action_next_break)

    def prev_break(self) -> None:
        cur = self.tab.rows.current_line
        prv = [n for n in self._finding_lines() if n < cur]
        if prv:
            self.goto_row(prv[-1])
        else:
            self._no_breaks("no earlier break", retry=self.tab.action_prev_break)

    def first_break_when_verified(self) -> None:
        """Select the first break now when verified, else as soon as it is (and say
        nothing when the chain holds)."""
        tab = self.tab
        tab.break_on_verify = tab.result is None
        if tab.result is not None and self._finding_lines():
            tab.action_first_break()

    def _no_breaks(self, what: str = "no breaks", retry: Callable[[], None] | None = None) -> None:
        """No break to go to; while the chain is still being verified, `retry` runs
        once the verdict is in (the key is kept, not dropped)."""
        tab = self.tab
        if tab.result is None and retry is not None and tab.verifying:
            tab.when_verified(retry, "the chain is still being verified: the break")
        elif tab.result is None:
            tab.app.notify("the chain is still being verified", markup=False)
        else:
            tab.app.notify(what, markup=False)

    def prompt_goto(self) -> None:
        """`g`: ask for a line number, then go to it."""

        def done(value: str | None) -> None:
            if value and value.strip().isdigit():
                self.goto_line(int(value.strip()))

        self.tab.app.push_screen(
            lazy.PromptScreen("Go to line", "line number", restrict=r"[0-9]*", id="goto-prompt"),
            done,
        )

    def goto_line(self, n: int) -> None:
        """Select line `n`; one past the lines indexed so far is selected once the
        index is complete."""
        tab = self.tab
        if n > tab.source.line_count and not tab.source.complete:
            tab.when_indexed(lambda: self.goto_line(n), f"go to line {n:,}")
        elif not self.goto_row(n):
            tab.app.notify(
                f"no line {n} (the file has {tab.rows.shown_lines:,})",
                markup=False,
                severity="warning",
            )
