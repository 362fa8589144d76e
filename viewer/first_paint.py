"""The first paint: a ledger's first screen drawn by one widget while the app builds
its own widgets, hidden, behind it.

A full ledger tab is some thirty widgets (header, tab bar, banner, progress bar, row
list, strip, detail pane); Textual styles, lays out and renders each, which takes
several times the time a one-widget screen does. `FirstPaint` draws the same places
in one pass from the file's first rows, with the pure text builders the real widgets
use, so the two cannot drift: the header, the tab labels of every path being opened
(`evidence_tab.tab_label`; no verdict yet: `…`), the banner as a ledger starts
indexing (`banner_text.ledger_detail`) and the progress bar, the column heading
(`row_list.columns_text`), the rows (`row_list.row_text`), the strip's pending cells,
the detail pane's border and the status line (`ledger_status.status_text`).
The real footer is mounted beside it; a subclass's `BINDINGS` give it the ledger
tab's keys to show (shown only: keys typed while this screen shows are held by the
app and replayed once the real widgets are up).

The app swaps it for the real widgets in one refresh, once they are mounted with the
first tab's rows loaded; the detail pane's text is the one part that appears then.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from rich.console import OverflowMethod
from rich.segment import Segment
from rich.style import Style
from rich.text import Text
from sealscope.core.sanitize import clean
from sealscope.core.verdict import glyph
from sealscope.viewer.banner_text import ledger_detail
from sealscope.viewer.evidence_tab import tab_label
from sealscope.viewer.ledger_status import count_words, status_text
from sealscope.viewer.overview_strip import LEGEND, bin_starts
from sealscope.viewer.row_list import columns_text, line_digits, row_text
from sealscope.viewer.source import LedgerSource, status_of
from textual.renderables.bar import Bar
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["FirstPaint", "tab_labels"]

_UNSTYLED = Style.null()  # a segment's style where it has none of its own
_PENDING_GLYPH, _PENDING_STYLE = next((g, s) for c, g, s, _w in LEGEND if c == "pending")


def tab_labels(paths: Sequence[Path]) -> list[tuple[str, str]]:
    """The tab bar's labels for `paths` before any verdict: the pending glyph and the
    name a tab shows (`evidence_tab.tab_label`, the tabs' own)."""
    return [(glyph(None), clean(tab_label(p))) for p in paths]


class FirstPaint(Widget, can_focus=True):
    """The first screen of `source` (see the module); `labels` are the tab bar's, the
    first one in front; `title` the header's."""

    DEFAULT_CSS = """
    FirstPaint { height: 1fr; }
    FirstPaint > .first-paint--header { background: $panel; color: $foreground; }
    FirstPaint > .first-paint--tab { color: $foreground 50%; }
    FirstPaint > .first-paint--tab-active { color: $foreground; }
    FirstPaint > .first-paint--underline { color: $block-cursor-background;
                                           background: $foreground 10%; }
    FirstPaint > .first-paint--banner { background: $panel; color: $text; }
    FirstPaint > .first-paint--bar { color: $primary; background: $surface; }
    FirstPaint > .first-paint--boost { background: $boost; }
    FirstPaint > .first-paint--status { background: $boost; color: $text-muted; }
    FirstPaint > .first-paint--border { color: $primary 50%; background: $background; }
    FirstPaint > .first-paint--ground { background: $background; }
    FirstPaint > .first-paint--cursor { background: $accent 70%; text-style: bold; }
    FirstPaint > .first-paint--scrollbar { background: $scrollbar-background; }
    FirstPaint > .first-paint--scrollbar-thumb { background: $scrollbar; }
    """
    COMPONENT_CLASSES = {
        "first-paint--header",
        "first-paint--tab",
        "first-paint--tab-active",
        "first-paint--underline",
        "first-paint--banner",
        "first-paint--bar",
        "first-paint--boost",
        "first-paint--status",
        "first-paint--border",
        "first-paint--ground",
        "first-paint--cursor",
        "first-paint--scrollbar",
        "first-paint--scrollbar-thumb",
    }

    def __init__(
        self, source: LedgerSource, labels: Sequence[tuple[str, str]], title: Text, **kw
    ) -> None:
        super().__init__(**kw)
        self.source = source
        self.labels = list(labels)
        self.heading = title
        self.rows_drawn = 0  # screen lines holding a ledger row drawn so far
        self._lines: list[Strip] | None = None
        self._drawn_size = (0, 0)
        self._rows_end = 0

    def on_mount(self) -> None:
        self.source.quick_index()

    def on_unmount(self) -> None:
        self.source.close()  # the tab opens the file again for itself

    # ------------------------------------------------------------------ layout
    def render_line(self, y: int) -> Strip:
        size = (self.size.width, self.size.height)
        if self._lines is None or size != self._drawn_size:
            self._drawn_size = size
            self._lines = self._draw(*size)
        if not 0 <= y < len(self._lines):
            return Strip.blank(self.size.width, _UNSTYLED)
        if 6 <= y < self._rows_end:
            self.rows_drawn += 1
        return self._lines[y]

    def _style(self, part: str) -> Style:
        return self.get_component_rich_style(f"first-paint--{part}")

    def _text_line(
        self, t: Text, width: int, base: Style | None = None, overflow: OverflowMethod = "crop"
    ) -> list[Segment]:
        t.truncate(width, overflow=overflow, pad=True)
        if base is not None:
            t.stylize_before(base)
        return list(t.render(self.app.console))

    def _draw(self, width: int, height: int) -> list[Strip]:
        """Every line of the screen but the footer (which is its own widget)."""
        out: list[Strip] = []

        def add(segs: list[Segment]) -> None:
            # every segment carries a style (an empty one where it has none, drawn
            # the same): a line filter such as NO_COLOR's monochrome reads each one's
            line = Strip(segs).adjust_cell_length(width)
            out.append(Strip([Segment(t, s or _UNSTYLED, c) for t, s, c in line], width))

        # header: the icon, the title centred between the icon and the clock space
        head = self._style("header")
        title = self.heading
        mid = width - 18
        pad = max(0, (mid - title.cell_len) // 2)
        t = Text(" ⭘" + " " * 6 + " " * pad, end="")
        t.append_text(title)
        add(self._text_line(t, width, head, overflow="ellipsis"))
        # tab bar and its underline under the tab in front
        t = Text(" ", no_wrap=True, end="")
        first_width = 0
        for i, (mark, label) in enumerate(self.labels):
            style = self._style("tab-active" if i == 0 else "tab")
            t.append(mark, style + Style(dim=True))
            t.append(label + " ", style)
            if i == 0:
                first_width = t.cell_len - 1
        ground = self._style("ground")
        add(self._text_line(t, width, ground))
        under = self._style("underline")
        bar = Bar(
            highlight_range=(0, first_width),
            highlight_style=Style.from_color(under.color),
            background_style=Style.from_color(under.bgcolor),
        )
        opts = self.app.console.options.update_width(width - 1)
        add(list(Segment.apply_style([Segment(" "), *self.app.console.render(bar, opts)], ground)))
        # banner and progress bar, as a ledger starts indexing
        t = Text(" ", end="")  # the banner's padding
        t.append_text(ledger_detail(self.source.name, "indexing"))
        add(self._text_line(t, width, self._style("banner")))
        fill = self._style("bar")
        bar = Bar(
            highlight_range=(0, 0),
            highlight_style=Style.from_color(fill.color),
            background_style=Style.from_color(fill.bgcolor),
        )
        opts = self.app.console.options.update_width(max(1, width - 7))
        add(
            list(
                Segment.apply_style(
                    [Segment(" "), *self.app.console.render(bar, opts), Segment(f"{'0%':>5} ")],
                    ground,
                )
            )
        )
        # the list pane (3 of 5 columns), the detail pane's border beside it
        pane = width * 3 // 5
        border = Segment("▏", self._style("border"))
        detail = Segment(" " * max(0, width - pane - 1), ground)
        digits = line_digits(self.source.shown_lines)
        boost = self._style("boost")
        cols = self._text_line(columns_text(digits), pane - 3, boost)
        add(cols + self._text_line(Text("map", "dim"), 3, boost) + [border, detail])
        # the list's rows: with more lines than fit, its scrollbars take a column and a row
        fit = max(0, height - 7)
        overflow = not self.source.complete or self.source.shown_lines > fit
        rows = fit - 1 if overflow and fit else fit
        text_w = pane - 4 if overflow else pane - 3  # the strip: a gap and 2 cells
        starts = bin_starts(self.source.line_count, fit)  # the strip bins every line
        shown = min(rows, self.source.shown_lines)
        self._rows_end = 6 + shown  # the screen lines holding a ledger row
        track, thumb = self._style("scrollbar"), self._style("scrollbar-thumb")
        for i in range(fit):
            line = i + 1
            if i == rows:  # the list's horizontal scrollbar
                body = [Segment(" " * text_w, thumb), Segment(" ", track)]
            else:
                if i < shown:
                    info = self.source.row(line)
                    t = row_text(info, line, status_of(info, None, 0, False), digits, text_w)
                    if line == 1:  # the cursor, on the first row
                        t.stylize(self._style("cursor"))
                    body = self._text_line(t, text_w)
                else:
                    body = [Segment(" " * text_w, ground)]
                if overflow:
                    body.append(Segment(" ", thumb if i == 0 else track))
            cell = Text(" ", end="")  # the gap setting the strip apart from the rows
            if i < len(starts) - 1:
                cell.append("▶" if starts[i] <= shown else " ", "bold")
                cell.append(_PENDING_GLYPH, _PENDING_STYLE)
            add(body + self._text_line(cell, 3) + [border, detail])
        t = status_text(1, count_words(self.source.shown_lines), complete=self.source.complete)
        add(self._text_line(t, pane, self._style("status")) + [border, detail])
        return out
