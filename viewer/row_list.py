"""The virtual row list: a ScrollView drawing one ledger line per terminal line with the
Line API. Nothing is built for rows off screen: `render_line` reads the row through the
source's LRU cache and keeps a bounded cache of finished strips.

Every string from the file goes through `sanitize.clean` and into a `rich.text.Text`.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import Callable

from rich.text import Text
from sealscope.core import verdict
from sealscope.core.sanitize import clean
from sealscope.viewer.finding_index import FindingIndex
from sealscope.viewer.messages import RowSelected, ViewportMoved
from sealscope.viewer.source import LedgerSource, RowInfo, status_of
from sealscope.viewer.style import OWN_CHECK_STYLE
from textual import events
from textual.binding import Binding
from textual.cache import LRUCache
from textual.geometry import Size
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

# status → (mark, mark style, row style)
STATUS_LOOK = {
    "ok": ("✓", "green", ""),
    "break": ("✗", "bold red", "red"),
    "declared": ("≠", "bold yellow", "yellow"),
    "prechain": ("○", "cyan", "dim"),
    "unparseable": ("?", "bold red", "red"),
    "blank": ("·", "dim", "dim"),
    "pending": ("…", "dim", ""),
}

# what the marks mean, for the key help: (mark, style, meaning)
LEGEND_TITLE = "row marks"
LEGEND = (
    *(
        (STATUS_LOOK[st][0], STATUS_LOOK[st][1], meaning)
        for st, meaning in (
            ("ok", "chained, and the chain holds here"),
            ("break", "the chain breaks here (the reason follows in brackets)"),
            ("declared", "a break a later row declares (not verified past it)"),
            ("prechain", "before the first chained row"),
            ("unparseable", "not a JSON object, or the reader cannot parse it"),
            ("blank", "an empty line"),
            ("pending", "not verified yet"),
        )
    ),
    ("⚠", "bold magenta", "holds control or bidi characters (shown escaped)"),
)


def reason_of(text: str) -> str:
    """A finding's text without its `line N: ` prefix."""
    if text.startswith("line ") and ": " in text:
        return text.split(": ", 1)[1]
    return text


def line_digits(lines: int) -> int:
    """Columns of the line number in a list of `lines` lines (at least 3)."""
    return max(3, len(str(lines)))


def columns_text(digits: int) -> Text:
    """The heading over the rows `row_text` draws with `digits`-column line numbers."""
    head = Text(no_wrap=True, end="")
    head.append(f"   {'line':>{digits}} {'ts':<20} {'kind':<22} summary", "bold")
    return head


def row_text(
    info: RowInfo,
    line: int,
    st: str,
    digits: int,
    width: int,
    finding: tuple[str, str] | None = None,
    checked: str | None = None,
    own: tuple[str, str] | None = None,
) -> Text:
    """One row as the list draws it, `width` cells: its mark (status `st`, or the held
    content check's verdict `checked`), the line number in `digits` columns, ts, kind,
    the finding's reason, the badge of the row's own check (`own`: its word and what
    it found, `row_check_panel.row_badge`) and the row's summary (or raw text), every
    string sanitized.
    The row list and the first paint (`viewer.first_paint`) draw rows with it."""
    mark, mark_style, row_style = STATUS_LOOK[st]
    if checked is not None and st not in ("break", "unparseable"):
        mark, mark_style = {"pass": ("✓", "bold green"), "fail": ("✗", "bold red")}.get(
            verdict.tone(checked), ("◐", "bold yellow")
        )
    t = Text(no_wrap=True, overflow="ellipsis", end="")
    t.append(mark, mark_style)
    t.append("⚠" if info.marks else " ", "bold magenta")
    t.append(f" {line:>{digits}} ", "dim" if st != "break" else "bold red")
    t.append(f"{clean(info.ts)[:20]:<20} ", "dim")
    kind = info.kind or {
        "blank": "",
        "unparseable": "(unparseable)",
        "nonobject": "(not an object)",
    }.get(info.state, "")
    t.append(f"{clean(kind)[:22]:<22} ", "bold" if info.kind else "italic dim")
    if finding and st in ("break", "declared", "unparseable"):
        t.append(f"[{clean(reason_of(finding[1]))}] ", mark_style)
    if checked is not None:
        t.append(f"[held content: {checked}] ", mark_style)
    if own is not None:
        t.append(f"[{clean(own[1])}] ", OWN_CHECK_STYLE[verdict.tone(own[0])])
    body = info.summary if info.state in ("object", "nonobject") else info.raw
    # only what can show: truncating a long row's whole text costs more than the rest
    keep = 2 * width + 8
    body = body[:keep] if len(body) > keep else body
    t.append(clean(body), row_style or None)
    t.truncate(width, overflow="ellipsis", pad=True)
    return t


class RowList(ScrollView, can_focus=True):
    """One ledger's lines. `view` maps list positions to line numbers when filtered."""

    DEFAULT_CSS = """
    RowList {
        height: 1fr;
        scrollbar-size-vertical: 1;
    }
    RowList > .rowlist--cursor {
        background: $accent 40%;
        text-style: bold;
    }
    RowList:focus > .rowlist--cursor {
        background: $accent 70%;
    }
    """

    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "edge(0)", "First row", show=False),
        Binding("end", "edge(1)", "Last row", show=False),
    ]

    COMPONENT_CLASSES = {"rowlist--cursor"}
    LEGEND_TITLE = LEGEND_TITLE
    LEGEND = LEGEND

    cursor: reactive[int] = reactive(0, always_update=False, repaint=False)

    def __init__(self, source: LedgerSource, **kw) -> None:
        super().__init__(**kw)
        self.source = source
        self.view: array | None = None
        self.findings: FindingIndex = FindingIndex()  # 13 bytes a finding, none a row
        self.check_marks: dict[int, str] = {}  # line → the word of a check run on it
        self.own_checks: dict[int, tuple[str, str]] = {}  # line → its own check's badge
        self.first_chained = 0
        self.verified = False
        self._gen = 0
        self._strips: LRUCache[tuple, Strip] = LRUCache(1024)
        self.rendered_rows = 0
        self._after_paint: Callable[[], object] | None = None
        self._last_selected = -1
        self._nav = False
        self._end_pending = False  # `end` pressed while indexing: the last line, once known
        self._rows_shown = 0  # rows that fit, as of the last resize
        # where the rows stood before the last jump (a centring scroll), until the
        # cursor or the rows are moved by hand: a new size replays the jump
        self._jump_from: int | None = None

    # ------------------------------------------------------------------ data
    @property
    def count(self) -> int:
        return len(self.view) if self.view is not None else self.source.shown_lines

    @property
    def line_count(self) -> int:
        """The file's lines as a reader counts them (`LedgerSource.shown_lines`)."""
        return self.source.shown_lines

    @property
    def shown_lines(self) -> int:
        return self.source.shown_lines

    def line_at(self, idx: int) -> int:
        if self.view is not None:
            return self.view[idx] if 0 <= idx < len(self.view) else 0
        return idx + 1 if 0 <= idx < self.source.shown_lines else 0

    def index_of(self, line: int) -> int | None:
        if self.view is None:
            return line - 1 if 1 <= line <= self.source.shown_lines else None
        i = bisect.bisect_left(self.view, line)
        return i if i < len(self.view) and self.view[i] == line else None

    @property
    def current_line(self) -> int:
        return self.line_at(self.cursor)

    def status(self, line: int, info: RowInfo | None = None) -> str:
        info = info or self.source.row(line)
        return status_of(info, self.findings.kind_of(line), self.first_chained, self.verified)

    def reload(self) -> None:
        """The index grew, statuses arrived or the filter changed: redraw."""
        self._gen += 1
        self._strips.clear()
        self.virtual_size = Size(self.size.width, self.count)
        if self.cursor >= self.count:
            self.cursor = max(0, self.count - 1)
        self.refresh()
        self._announce()
        if self._end_pending and self.source.complete:
            self.action_edge(1)

    def set_check_marks(self, marks: dict[int, str]) -> None:
        """The rows a check was run on (a receipt recomputed with held content), with
        that check's word: the row's badge shows it."""
        if marks != self.check_marks:
            self.check_marks = dict(marks)
            self._gen += 1
            self._strips.clear()
            self.refresh()

    def set_own_checks(self, badges: dict[int, tuple[str, str]]) -> None:
        """The rows with a check of their own (`row_check_panel.row_badge`: its word
        and what it found): the row's badge shows it."""
        if badges != self.own_checks:
            self.own_checks = dict(badges)
            self._gen += 1
            self._strips.clear()
            self.refresh()

    def set_statuses(self, findings, first_chained: int, verified: bool) -> None:
        # a line can carry two findings; the break wins over the excusal
        self.findings = FindingIndex(findings)
        self.first_chained = first_chained
        self.verified = verified
        self.reload()

    def set_view(self, view: array | None, keep_line: int | None = None) -> None:
        keep = keep_line or self.current_line
        self.view = view
        idx = self.index_of(keep) if keep else None
        self.cursor = idx if idx is not None else 0
        self.reload()
        self.scroll_to_cursor(center=True)

    # ------------------------------------------------------------------ cursor
    def cursor_to_line(self, line: int) -> bool:
        idx = self.index_of(line)
        if idx is None:
            return False
        self.cursor = idx
        self.scroll_to_cursor(center=True)
        return True

    def watch_cursor(self, old: int, new: int) -> None:
        self._refresh_index(old)
        self._refresh_index(new)
        self._announce()

    def _announce(self) -> None:
        line = self.current_line
        if line and line != self._last_selected:
            self._last_selected = line
            self.post_message(RowSelected(line, nav=self._nav))

    def force_announce(self) -> None:
        self._last_selected = -1
        self._announce()

    def _refresh_index(self, idx: int) -> None:
        y = idx - int(self.scroll_offset.y)
        if 0 <= y < self.size.height:
            self.refresh_line(y)

    def scroll_to_cursor(self, center: bool = False) -> None:
        """Scroll so the cursor's row shows (`center`: in the middle, if it was out of
        view). Forced: rows that just overflowed the list scroll it before the layout
        has shown its scrollbar, which an unforced scroll would wait for in vain."""
        h = max(1, self.scrollable_content_region.height or self.size.height or 1)
        top = int(self.scroll_offset.y)
        y = None
        if center:
            self._jump_from = top
        if center and not (top <= self.cursor < top + h):
            y = max(0, self.cursor - h // 2)
        elif self.cursor < top:
            y = self.cursor
        elif self.cursor >= top + h:
            y = self.cursor - h + 1
        if y is not None:
            self.scroll_to(y=y, animate=False, immediate=True, force=True)

    def _move(self, idx: int) -> None:
        """A cursor move by a navigation key (the detail pane may coalesce these)."""
        self._end_pending = False
        self._jump_from = None
        self._nav = True
        try:
            self.cursor = idx
        finally:
            self._nav = False
        self.scroll_to_cursor()

    def action_cursor(self, delta: int) -> None:
        if self.count:
            self._move(max(0, min(self.count - 1, self.cursor + delta)))

    def action_page(self, direction: int) -> None:
        h = max(1, self.scrollable_content_region.height - 1)
        self.action_cursor(direction * h)

    def action_edge(self, end: int) -> None:
        """First or last line; `end` while the file is still being indexed goes to the
        last line indexed so far, and to the file's last line once it is known."""
        if self.count:
            self._move(self.count - 1 if end else 0)
        if end and self.view is None and not self.source.complete:
            self._end_pending = True

    def on_click(self, event: events.Click) -> None:
        off = event.get_content_offset(self)
        if off is None:
            return
        idx = int(self.scroll_offset.y) + off.y
        if 0 <= idx < self.count:
            self._jump_from = None
            self.cursor = idx
        self.focus()

    def on_mouse_scroll_down(self, _event: events.MouseScrollDown) -> None:
        self._jump_from = None  # the rows moved by hand (the scrolling is ScrollView's)

    def on_mouse_scroll_up(self, _event: events.MouseScrollUp) -> None:
        self._jump_from = None

    def watch_scroll_y(self, old_value: float, new_value: float) -> None:
        super().watch_scroll_y(old_value, new_value)
        if int(old_value) != int(new_value):
            self.post_message(ViewportMoved())

    def on_resize(self, event: events.Resize) -> None:
        self._strips.clear()
        self.virtual_size = Size(event.size.width, self.count)
        self._fit_changed()

    def watch_show_horizontal_scrollbar(self, old: bool, new: bool) -> None:
        if old != new:
            self._fit_changed()  # the scrollbar took a row or gave it back

    def _fit_changed(self) -> None:
        """As many rows show as now fit: the tab hears the viewport moved (the strip's
        ▶ bins), and once laid out a cursor row that was in view stays in view (a
        banner growing by a line does not hide the selected row). After a jump, with
        nothing moved by hand since, the jump is made again at the new size (from
        where the rows stood before it): where the rows end depends on the size they
        end at, not on whether the size changed before or after the jump."""
        top, h = int(self.scroll_offset.y), self._rows_shown
        shown = not h or top <= self.cursor < top + h
        self.post_message(ViewportMoved())
        self.call_after_refresh(self._refit, shown)

    def _refit(self, keep_cursor: bool) -> None:
        self._rows_shown = h = self.scrollable_content_region.height
        if self._jump_from is not None and h and self.count:
            top = self._jump_from
            y = top if top <= self.cursor < top + h else max(0, self.cursor - h // 2)
            if y != int(self.scroll_offset.y):
                self.scroll_to(y=y, animate=False, immediate=True, force=True)
        elif keep_cursor and self.count:
            self.scroll_to_cursor()

    # ------------------------------------------------------------------ drawing
    def render_line(self, y: int) -> Strip:
        idx = int(self.scroll_offset.y) + y
        width = self.scrollable_content_region.width or self.size.width
        if not 0 <= idx < self.count:
            return Strip.blank(width, self.visual_style.rich_style)
        line = self.line_at(idx)
        selected = idx == self.cursor
        key = (line, width, selected, self.has_focus, self._gen)
        strip = self._strips.get(key)
        if strip is None:
            strip = self._build(line, width, selected)
            self._strips[key] = strip
        self.rendered_rows += 1
        if self._after_paint is not None:
            then, self._after_paint = self._after_paint, None
            self.call_later(then)
        return strip

    def after_first_paint(self, then: Callable[[], object]) -> None:
        """Call `then` once a row has been drawn (at once if one has been)."""
        if self.rendered_rows:
            then()
        else:
            self._after_paint = then

    def _build(self, line: int, width: int, selected: bool) -> Strip:
        info = self.source.row(line)
        t = row_text(
            info,
            line,
            self.status(line, info),
            line_digits(self.source.shown_lines),
            width,
            self.findings.get(line),
            self.check_marks.get(line),
            self.own_checks.get(line),
        )
        if selected:
            cur = self.get_component_rich_style("rowlist--cursor")
            t.stylize(cur)
        segs = list(t.render(self.app.console))
        return Strip(segs, width)
