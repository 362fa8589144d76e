"""The verdict banner of every evidence tab (ledger, seal, harn): one widget, one look.

The banner decides nothing. A tab hands it down (`Banner.show`) its verdict
(`outcome`: the tab's `tab_verdict`, from `core.verdict.evidence`), the text to draw
(`detail`, made by a pure builder) and where its reading is (`state`); its colour is
the outcome's tone (`style.BANNER_CLASS`), neutral while the file is still being
indexed or verified, never green before a finished, uncancelled verification.

The text comes from pure builders (`banner_text`, re-exported here: `badge`,
`ledger_detail`, `check_detail`), so the first paint draws the same text as the widget.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from sealscope.core import verdict
from sealscope.viewer.banner_text import BUSY, badge, check_detail, ledger_detail
from sealscope.viewer.style import BANNER_CLASS, BANNER_CSS
from textual.reactive import reactive
from textual.widgets import Static

__all__ = ["Banner", "VERDICT_CLASSES", "badge", "ledger_detail", "check_detail", "BUSY"]

VERDICT_CLASSES = tuple(BANNER_CLASS.values())
"""The banner's colour classes: exactly one is set (`Banner.verdict_class`)."""


class Banner(Static):
    """A tab's verdict banner. Reactive `outcome` (the tab's verdict: its colour),
    `detail` (the text drawn) and `state` (the reading's: neutral while busy); every
    change repaints it (watchers). `show` sets all three at once."""

    DEFAULT_CSS = f"""
    Banner {{
        height: auto;
        max-height: 7;
        padding: 0 1;
        color: $text;
    }}
    {BANNER_CSS}
    """

    state: reactive[str] = reactive("done", init=False)
    outcome: reactive[verdict.Outcome | None] = reactive(None, init=False)
    detail: reactive[Text] = reactive(Text(""), init=False, always_update=True)

    def __init__(
        self,
        detail: Text | str = "",
        *,
        outcome: verdict.Outcome | None = None,
        state: str = "done",
        **kw: Any,
    ) -> None:
        super().__init__("", **kw)
        self.set_reactive(Banner.detail, detail if isinstance(detail, Text) else Text(detail))
        self.set_reactive(Banner.outcome, outcome)
        self.set_reactive(Banner.state, state)
        self._painted: tuple[str, int, int] | None = None  # state, length, lines painted

    def on_mount(self) -> None:
        self._paint()

    def _repaint(self) -> None:
        if self.is_mounted:
            self._paint()

    watch_state = watch_outcome = watch_detail = _repaint

    def show(self, outcome: verdict.Outcome | None, detail: Text, state: str = "done") -> None:
        """The tab's verdict, its text and its reading's state: one repaint."""
        self.set_reactive(Banner.outcome, outcome)
        self.set_reactive(Banner.state, state)
        self.set_reactive(Banner.detail, detail)
        self._repaint()

    @property
    def combined_verdict(self) -> str | None:
        """The word the banner shows: the tab's verdict; None while there is none."""
        return None if self.outcome is None else self.outcome.verdict

    @property
    def verdict_class(self) -> str:
        if self.outcome is None:
            return BANNER_CLASS[None] if self.state in BUSY else BANNER_CLASS["warn"]
        return BANNER_CLASS[verdict.tone(self.outcome.verdict)]

    def _paint(self) -> None:
        want = self.verdict_class
        for c in VERDICT_CLASSES:  # only a class that changes restyles the banner
            self.set_class(c == want, c)
        t = self.detail
        # a progress step changes only the percentage's digits: the banner keeps its
        # size, so the screen is not laid out again (50 steps while a big file indexes)
        painted = (self.state, len(t.plain), t.plain.count("\n"))
        same_size = painted == self._painted and self.state in BUSY
        self._painted = painted
        self.update(t, layout=not same_size)
