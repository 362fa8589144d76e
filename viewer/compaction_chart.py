"""The compaction chart (`C`): every compaction of the file in file order, its claimed
`pre`, `post` and `dropped` sizes as horizontal bars drawn with `rich.text.Text`, one
OptionList entry (three lines) per compaction, so Enter or a click on one jumps to it.

The values are `sealscope.core.compaction_series`'s, the same the export carries.
Ledger receipts plot bytes, or item counts after `i`; a failing receipt is marked `✗`,
a bounded one `~`, the call-out (dropped share furthest above the median) `★`. A harn
transcript plots estimated tokens. Bars scale to the largest `pre` (or `post`) shown
and to the screen's width, so the chart reads at 80×24. Colours name the series and
so do the words `pre`, `post`, `dropped` on every bar.
"""

from __future__ import annotations

from collections.abc import Sequence
from statistics import median

from rich.text import Text
from sealscope.core.compaction_series import SeriesPoint, series
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

__all__ = ["CompactionChart", "chart_entry", "SERIES_STYLE"]

SERIES_STYLE = {"pre": "bold blue", "post": "bold green", "dropped": "bold red"}
_BAR = "█"


def _fmt(v: int | None, unit: str) -> str:
    if v is None:
        return "?"
    u = {"bytes": " B", "items": " items", "tokens": " tok"}[unit]
    return f"{v:,}{u}"


def _bar(value: int | None, top: int, width: int) -> str:
    if value is None or top <= 0:
        return ""
    n = round(width * min(value, top) / top)
    return _BAR * (n if n or not value else 1)


def chart_entry(p: SeriesPoint, items: bool, top: int, width: int, med: float | None) -> Text:
    """The three lines of one compaction: a header column, then a bar per series."""
    unit = "items" if items else p.unit
    pre, post, dropped = (
        (p.pre_items, p.post_items, p.dropped_items) if items else (p.pre, p.post, p.dropped)
    )
    where = f"line {p.where}" if p.unit == "bytes" else f"event {p.where}"
    # a receipt's own check; a harn event has none here (its findings are the tab's)
    status = " " if p.unit == "tokens" else "✗" if not p.ok else ("~" if p.bounded else "✓")
    st_style = "bold red" if not p.ok else ("yellow" if p.bounded else "green")
    called = p.outlier_items if items else p.outlier
    share = p.share(items)
    t = Text(no_wrap=True, end="")
    for i, (name, value) in enumerate((("pre", pre), ("post", post), ("dropped", dropped))):
        if i == 0:
            t.append(f"{where:<11}")
            t.append(status, st_style)
            t.append("  ")
        elif i == 2 and called:
            t.append("\n" + " " * 11)
            t.append("★", "bold yellow")
            t.append("  ")
        else:
            t.append("\n" + " " * 14)
        t.append(f"{name:<8}", SERIES_STYLE[name])
        t.append(f"{_bar(value, top, width):<{width}}", SERIES_STYLE[name])
        t.append(f" {_fmt(value, unit)}")
        if name == "dropped" and share is not None:
            t.append(f" ({100 * share:.1f}%)", "bold" if called else "dim")
            if called and med is not None:
                t.append(f" ★ median {100 * med:.1f}%", "bold yellow")
    return t


class CompactionChart(ModalScreen[int | None]):
    """The chart of `points`; dismisses with the chosen compaction's `where` (a ledger
    line or a harn event number), or None."""

    DEFAULT_CSS = """
    CompactionChart { align: center middle; }
    CompactionChart #chart-box { width: 100%; height: 100%; background: $panel; }
    CompactionChart #chart-title { height: auto; padding: 0 1; background: $boost; }
    CompactionChart #chart-legend { height: auto; padding: 0 1; }
    CompactionChart OptionList { height: 1fr; }
    """

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("i", "toggle_items", "Bytes/items"),
    ]

    def __init__(self, title: str, points: Sequence[SeriesPoint], **kw) -> None:
        super().__init__(**kw)
        self.title_text = title
        self.points = series(points)
        self.items = False
        self.has_items = any(p.unit == "bytes" for p in self.points)

    def compose(self) -> ComposeResult:
        with Vertical(id="chart-box"):
            yield Static(id="chart-title")
            yield Static(self._legend(), id="chart-legend")
            yield OptionList(id="chart", markup=False)
            yield Footer()

    def on_mount(self) -> None:
        self._fill()
        self.query_one(OptionList).focus()

    def on_resize(self) -> None:
        self._fill()

    def _legend(self) -> Text:
        t = Text(end="")
        for name, style in SERIES_STYLE.items():
            t.append(_BAR * 2 + " ", style)
            t.append(name + "  ")
        if self.has_items:
            t.append("✓ ok  ", "green")
            t.append("✗ fails  ", "bold red")
            t.append("~ bounded  ", "yellow")
        t.append("★ drop share furthest above the median", "bold yellow")
        return t

    def _fill(self) -> None:
        ol = self.query_one(OptionList)
        keep = ol.highlighted
        unit = "items" if self.items else (self.points[0].unit if self.points else "bytes")
        title = Text(end="", no_wrap=True)
        title.append(self.title_text, "bold")
        title.append(f" · {len(self.points)} compaction(s) in file order · {unit}")
        if self.has_items:
            title.append(" · i: bytes/items", "dim")
        title.append(" · Enter: jump to it", "dim")
        self.query_one("#chart-title", Static).update(title)
        ol.clear_options()
        if not self.points:
            ol.add_option(Option(Text("no compaction in this file", style="dim"), disabled=True))
            return
        vals = [(p.pre_items, p.post_items) if self.items else (p.pre, p.post) for p in self.points]
        top = max([v for pair in vals for v in pair if v is not None] or [0])
        shares = [s for p in self.points if (s := p.share(self.items)) is not None]
        med = median(shares) if shares else None
        width = max(6, (self.size.width or self.app.size.width) - 66)
        ol.add_options(
            [
                Option(chart_entry(p, self.items, top, width, med), id=f"c{i}")
                for i, p in enumerate(self.points)
            ]
        )
        ol.highlighted = keep if keep is not None and keep < len(self.points) else 0

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        return self.has_items if action == "toggle_items" else True

    def action_toggle_items(self) -> None:
        if self.has_items:
            self.items = not self.items
            self._fill()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if event.option_index < len(self.points):
            self.dismiss(self.points[event.option_index].where)

    def action_close(self) -> None:
        self.dismiss(None)
