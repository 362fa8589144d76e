"""The overview strip: a narrow column beside the row list mapping the whole ledger.

Each cell is a bin of consecutive lines (`bin_starts`: the file's lines split into as
many bins as the strip has cells, recomputed from the line count on every paint, so a
growing file re-bins). A bin shows the worst class among its lines (`CLASSES`, worst
first): a break, a declared break, bounded (prechain rows: the chain is not checked
there), a receipt that fails its own check, a row whose own check (KINDS.md §11.2: a
`continuity_verify` row, an artefact binding, a call or distill row) is BROKEN, one
whose own check could not look (an unmatched `continuity_verify` row: its stored
verdict is not in the run), a receipt, a seal row, plain verified,
walked (the verifier has passed these lines but its verdict, with the findings, has not
arrived: they are not shown as verified before it), not yet verified. Every class has
its own glyph as well as its colour (`LEGEND`), so the strip reads on a monochrome
terminal too. The viewport's bins carry a `▶` mark.

The bins read no file: they come from what the tab already has — the verifier's
progress (bytes done → lines, through the line index), its findings, and the receipt
and seal lines of the tab's one marker scan. The bins split the rows the list shows:
with a filter active, only its matching rows (`StripModel.count`), so a mark stands for
a row that is listed and a file of fewer rows than cells has one cell per row. The
strip sits apart from the rows, a gap and its `map` heading between them
(`LedgerTab`), so a cell never reads as the mark of the row beside it.

Keys while the strip has focus (`m` focuses it, `m` again hides it): `0`-`9` jump to
that tenth of the file, up/down one bin, home/end (the rows follow, the keyboard stays
on the strip); Enter or escape hand the keyboard back to the rows; `?` shows the
legend (`StripLegend`). A click jumps to the clicked bin's first (matching) row.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import NamedTuple

from rich.text import Text
from sealscope.core import verdict as _verdict
from sealscope.viewer.messages import StripJump, StripLeft
from sealscope.viewer.style import ROW_CHECK_STYLE
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.strip import Strip
from textual.widget import Widget
from textual.widgets import Static

__all__ = [
    "CLASSES",
    "LEGEND",
    "LegendRow",
    "StripModel",
    "OverviewStrip",
    "StripLegend",
    "bin_starts",
    "legend_text",
]


class LegendRow(NamedTuple):
    """One class of the strip: its name, the glyph drawn for it, its Rich style (the
    colour) and what it means, in words."""

    cls: str
    glyph: str
    style: str
    meaning: str


# The legend as plain data, worst first: the strip's `?` modal and any key help
# (an app-wide `?`/F1 for the tab in front) read the same rows.
LEGEND: tuple[LegendRow, ...] = tuple(
    LegendRow(*r)
    for r in (
        ("break", "✗", "bold white on red", "break"),
        ("declared", "≠", "bold black on yellow", "declared break"),
        ("bounded", "○", "black on cyan", "bounded (prechain, not checked)"),
        ("receipt_fail", "!", "bold white on magenta", "receipt that fails"),
        ("row_broken", "✘", ROW_CHECK_STYLE["fail"], f"row whose own check is {_verdict.BROKEN}"),
        ("row_couldnot", "◐", ROW_CHECK_STYLE["warn"], "row whose own check could not look"),
        ("receipt", "R", "black on blue", "receipt"),
        ("seal", "S", "black on bright_green", "seal row"),
        ("verified", "·", "green on grey23", "verified"),
        ("walked", "-", "grey70 on grey23", "walked, verdict pending"),
        ("pending", "░", "grey50", "not yet verified"),
    )
)
CLASSES = tuple(c for c, *_ in LEGEND)
_RANK = {c: i for i, c in enumerate(CLASSES)}  # lower is worse
_LOOK = {c: (g, s) for c, g, s, _w in LEGEND}


def legend_text() -> Text:
    """The strip's legend: every class's glyph in its colour and its name."""
    t = Text(no_wrap=False, end="")
    t.append("strip: ", "bold")
    for i, (_c, glyph, style, words) in enumerate(LEGEND):
        if i:
            t.append("  ")
        t.append(glyph, style)
        t.append(f" {words}")
    t.append("  ▶ viewport  (bins of the rows shown: with a filter, its rows)", "dim")
    return t


def bin_starts(lines: int, cells: int) -> list[int]:
    """First line of each bin, plus `lines + 1` at the end: `min(lines, cells)` bins of
    near-equal size covering lines 1..lines."""
    n = max(0, min(lines, cells))
    return [i * lines // n + 1 for i in range(n)] + [lines + 1] if n else [1]


@dataclass
class StripModel:
    """Everything the bins are computed from (no file access). The bins split the
    rows the list shows: every line, or with a filter (`view`) only its matching rows,
    so a cell stands for rows the list holds and a mark never sits for a hidden one
    (`count` positions; a position is a line, or the n-th matching line)."""

    lines: int = 0
    verified_through: int = 0  # lines 1..this are walked (verified once `verified`)
    findings: Mapping[int, tuple[str, str]] = field(default_factory=dict)  # a FindingIndex
    first_chained: int = 0
    verified: bool = False  # the verdict has arrived
    receipts: Mapping[int, bool] = field(default_factory=dict)  # line → the receipt's own check ok
    # line → the worst word of the row's own checks (`LedgerChecks`), when not VERIFIED
    row_checks: dict[int, str] = field(default_factory=dict)
    seals: list[int] = field(default_factory=list)
    view: array | None = None  # filter: matching lines, sorted

    @property
    def count(self) -> int:
        """How many positions the bins split: the lines, or the filter's rows."""
        return len(self.view) if self.view is not None else self.lines

    def line_at(self, pos: int) -> int:
        """The line at position `pos` (1-based)."""
        return self.view[pos - 1] if self.view is not None else pos

    def pos_of(self, line: int) -> int | None:
        """The position of `line`, None when it is not shown (filtered out, or past
        the end)."""
        if self.view is None:
            return line if 1 <= line <= self.lines else None
        i = bisect.bisect_left(self.view, line)
        return i + 1 if i < len(self.view) and self.view[i] == line else None

    def spans(self, cells: int) -> list[tuple[int, int]]:
        """The first and last line of each bin."""
        starts = bin_starts(self.count, cells)
        return [
            (self.line_at(starts[i]), self.line_at(starts[i + 1] - 1))
            for i in range(len(starts) - 1)
        ]

    def classes(self, cells: int) -> list[str]:
        """The class of each bin (fewer than `cells` when there are fewer rows)."""
        starts = bin_starts(self.count, cells)
        nb = len(starts) - 1
        if nb <= 0:
            return []
        done = "verified" if self.verified else "walked"
        out = [
            done if self.line_at(starts[i + 1] - 1) <= self.verified_through else "pending"
            for i in range(nb)
        ]

        def mark(line: int, cls: str) -> None:
            pos = self.pos_of(line)
            if pos is not None:
                i = bisect.bisect_right(starts, pos) - 1
                if _RANK[cls] < _RANK[out[i]]:
                    out[i] = cls

        for line in self.seals:
            mark(line, "seal")
        for line, ok in self.receipts.items():
            mark(line, "receipt" if ok else "receipt_fail")
        for line, word in self.row_checks.items():
            if _verdict.tone(word) != "pass":
                mark(line, "row_broken" if _verdict.tone(word) == "fail" else "row_couldnot")
        if self.verified:
            end = (self.first_chained - 1) if self.first_chained else self.lines
            # prechain lines: every bin overlapping 1..end is bounded
            last = end if self.view is None else bisect.bisect_right(self.view, end)
            if end >= 1 and last >= 1:
                for i in range(bisect.bisect_right(starts, last)):
                    if _RANK["bounded"] < _RANK[out[i]]:
                        out[i] = "bounded"
        for line, (kind, _t) in self.findings.items():
            mark(line, "break" if kind == "break" else "declared")
        return out

    def matching(self, cells: int) -> list[bool]:
        """Per bin: holds a row the list shows — every bin, since the bins split the
        rows shown (a filter with no match has no bins)."""
        return [True] * (len(bin_starts(self.count, cells)) - 1)

    def first_row(self, b: int, cells: int) -> int | None:
        """The first line of bin `b`; None when there is no such bin."""
        starts = bin_starts(self.count, cells)
        if not 0 <= b < len(starts) - 1:
            return None
        return self.line_at(starts[b])

    def bin_of(self, line: int, cells: int) -> int:
        """The bin of `line` (of the nearest row shown after it, when it is hidden)."""
        starts = bin_starts(self.count, cells)
        pos = self.pos_of(line)
        if pos is None:
            pos = bisect.bisect_left(self.view, line) + 1 if self.view is not None else line
        return max(0, min(len(starts) - 2, bisect.bisect_right(starts, pos) - 1))


class OverviewStrip(Widget, can_focus=False):
    """The strip widget; the tab feeds `model` and `viewport` and calls `changed()`.
    It takes the keyboard only while `m` lends it (`can_focus` is set for that time),
    so the tabs' focus chain is the one it was without the strip."""

    DEFAULT_CSS = """
    OverviewStrip { width: 2; height: 1fr; background: $boost; margin-left: 1; }
    OverviewStrip:focus { background: $accent 40%; }
    """

    LEGEND_TITLE = "overview strip (m)"  # what the key help lists for the tab
    LEGEND = LEGEND

    BINDINGS = [
        Binding("up", "step(-1)", "Bin up", show=False),
        Binding("down", "step(1)", "Bin down", show=False),
        Binding("home", "to_fraction(0)", "First bin", show=False),
        Binding("end", "to_fraction(10)", "Last bin", show=False),
        Binding("enter", "choose", "Jump", show=False),
        Binding("escape", "leave", "Back to rows", show=False),
        Binding("question_mark", "legend", "Legend"),
        *[Binding(str(k), f"to_fraction({k})", f"{k}0%", show=False) for k in range(10)],
    ]

    mark: reactive[int] = reactive(0)  # the bin the position keys move

    def __init__(self, **kw) -> None:
        super().__init__(**kw)
        self.model = StripModel()
        self.viewport: tuple[int, int] = (0, 0)  # first and last line on screen
        self.tooltip = legend_text()
        self._drawn: tuple[int, list[tuple[int, int]], list[str], list[bool]] | None = None
        self._strips: dict[tuple[bool, bool, str | None, int], Strip] = {}

    def changed(self) -> None:
        """The model changed: recompute the bins and repaint."""
        self._drawn = None
        self.refresh()

    def set_viewport(self, first: int, last: int) -> None:
        if (first, last) != self.viewport:
            self.viewport = (first, last)
            self.refresh()

    def _bins(self) -> tuple[int, list[tuple[int, int]], list[str], list[bool]]:
        cells = self.cells
        if self._drawn is None or self._drawn[0] != cells:
            m = self.model
            self._drawn = (cells, m.spans(cells), m.classes(cells), m.matching(cells))
        return self._drawn

    @property
    def cells(self) -> int:
        return max(1, self.size.height)

    def bin_classes(self) -> list[str]:
        """The class of each bin at the current height (what is drawn)."""
        return list(self._bins()[2])

    def bin_lines(self) -> list[tuple[int, int]]:
        """The first and last line of each bin at the current height."""
        return list(self._bins()[1])

    def render_line(self, y: int) -> Strip:
        _cells, spans, classes, matching = self._bins()
        width = self.size.width
        if y >= len(classes):
            return Strip.blank(width, self.rich_style)
        lo, hi = self.viewport
        in_view = bool(lo and spans[y][0] <= hi and spans[y][1] >= lo)
        focus_mark = self.has_focus and y == self.mark
        key = (in_view, focus_mark, classes[y] if matching[y] else None, width)
        strip = self._strips.get(key)
        if strip is None:  # a handful of distinct cells: each is drawn once
            strip = self._strips[key] = self._draw(*key)
        return strip

    def _draw(self, in_view: bool, focus_mark: bool, cls: str | None, width: int) -> Strip:
        t = Text(end="", no_wrap=True)
        t.append(
            "▶" if in_view else ("›" if focus_mark else " "),
            "bold reverse" if focus_mark else "bold",
        )
        if cls is not None:
            glyph, style = _LOOK[cls]
            t.append(glyph, style)
        else:
            t.append(" ")
        t.truncate(width, pad=True)
        return Strip(list(t.render(self.app.console)), width)

    # ------------------------------------------------------------------ jumping
    def _jump(self, b: int, stay: bool = False) -> None:
        line = self.model.first_row(b, self.cells)
        if line is None:
            self.app.notify("no matching row in that part of the file", markup=False)
            return
        self.post_message(StripJump(line, stay))

    def on_click(self, event: events.Click) -> None:
        off = event.get_content_offset(self)
        if off is None:
            return
        self.mark = off.y
        self._jump(off.y)

    def action_step(self, delta: int) -> None:
        n = len(bin_starts(self.model.count, self.cells)) - 1
        if n:
            self.mark = max(0, min(n - 1, self.mark + delta))
            self._jump(self.mark, stay=True)

    def action_to_fraction(self, tenth: int) -> None:
        n = len(bin_starts(self.model.count, self.cells)) - 1
        if n:
            self.mark = min(n - 1, tenth * n // 10)
            self._jump(self.mark, stay=True)

    def action_choose(self) -> None:
        self._jump(self.mark)  # and the rows take the keyboard

    def action_leave(self) -> None:
        self.post_message(StripLeft())

    def watch_mark(self) -> None:
        self.refresh()

    def on_resize(self) -> None:
        self._drawn = None

    def on_focus(self) -> None:
        self.mark = self.model.bin_of(self.viewport[0] or 1, self.cells)
        self.refresh()

    def on_blur(self) -> None:
        if self.app.screen is self.screen:  # not when the legend opens over it
            self.can_focus = False
        self.refresh()

    def action_legend(self) -> None:
        self.app.push_screen(StripLegend())


class StripLegend(ModalScreen[None]):
    """The strip's legend (`?` while the strip has the keyboard)."""

    DEFAULT_CSS = """
    StripLegend { align: center middle; }
    StripLegend #legend-box { width: 76; height: auto; padding: 1 2; background: $panel;
                              border: thick $accent 60%; }
    """
    BINDINGS = [Binding("escape", "app.pop_screen", "Close")]

    def compose(self) -> ComposeResult:
        t = Text(end="")
        t.append("Overview strip\n", "bold")
        t.append("Each cell is a bin of lines showing the worst thing in it, worst first:\n\n")
        for _c, glyph, style, words in LEGEND:
            t.append(" ")
            t.append(glyph, style)
            t.append(f"  {words}\n")
        t.append(" ▶", "bold")
        t.append("  the bins on screen; with a filter the bins split only its rows\n\n")
        t.append(
            "m: the strip takes the keyboard (0-9 tenths, ↑↓ bins, Home/End, Enter, "
            "Esc); m again hides it. Click a cell: its first row.",
            "dim",
        )
        yield Static(t, id="legend-box")
