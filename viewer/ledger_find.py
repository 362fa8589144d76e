"""RowFinder: a ledger tab's filter and search, a part composed into the tab.

It sits beside the row list (as toolong's find dialog sits beside its log view), owns
its state and its thread workers, and acts on the tab's row list through the tab's
methods (`goto_row`, `refresh_status`, `when_indexed`, `when_verified`). A filter is
read by `core.row_filter.parse_filter` (a status, a kind or a word a kind holds, a `ts:`
span; the prompt names the kinds in the file): break and declared come from the
verdict's findings at once, a kind by a byte search of candidate lines
(`LedgerSource.kind_lines`), any other status or a span by a scan of every line, in a
worker posting `FilterProgress` and one `Filtered`. A search steps to the next (or
previous) line holding the text, wrapping and saying so, and counts the matches for
the status line's "match k of n" (at once up to `COUNT_AT_ONCE` bytes, in a worker
beyond: `SearchCounted`).
"""

from __future__ import annotations

import bisect
from array import array
from typing import TYPE_CHECKING

from rich.text import Text
from sealscope.core.row_filter import RowFilter, parse_filter
from sealscope.core.rows import STATUSES
from sealscope.core.sanitize import clean
from sealscope.viewer import lazy
from sealscope.viewer.messages import Filtered, FilterProgress, SearchCounted
from sealscope.viewer.verify_child import Cancelled
from sealscope.viewer.worker_progress import Progress
from textual import work
from textual.suggester import SuggestFromList
from textual.widget import Widget
from textual.worker import get_current_worker

if TYPE_CHECKING:  # the tab it is composed into (imports this module)
    from sealscope.viewer.ledger_tab import LedgerTab
    from sealscope.viewer.source import RowInfo

__all__ = ["RowFinder", "COUNT_AT_ONCE", "KINDS_AT_ONCE"]

COUNT_AT_ONCE = 16 << 20  # bytes: a search's matches are counted at once up to this size,
# in a worker beyond it
KINDS_AT_ONCE = 50_000  # lines: the filter prompt names the kinds of every line up to this


class RowFinder(Widget):
    """The filter and search of `tab` (see the module). Not drawn: the status line
    shows its state (`search_badge`, `filtering`, `filter_label`)."""

    DEFAULT_CSS = "RowFinder { display: none; }"

    def __init__(self, tab: LedgerTab, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self.tab = tab
        self.filter_label = ""
        self.filtering: tuple[str, float] | None = None  # a filter being found: (label, %)
        self.last_search = ""
        self.search_at: int | None = None  # the line of the match selected
        self.search_wrapped = ""  # how the last step wrapped, in words
        # ((text, line count), every line it matches), for "match k of n"
        self.search_count: tuple[tuple[str, int], array] | None = None
        self._kinds: tuple[int, list[str]] | None = None  # (line count, kinds in the file)

    # ------------------------------------------------------------------ filter
    def kinds_present(self) -> list[str]:
        """The row kinds in the file: every line's once it is indexed and at most
        `KINDS_AT_ONCE` lines long (read once per line count), else the rows read so far."""
        source = self.tab.source
        if source.complete and source.line_count <= KINDS_AT_ONCE:
            if self._kinds is None or self._kinds[0] != source.line_count:
                found: set[str] = set()

                def note(_n: int, info: RowInfo) -> bool:
                    found.add(info.kind)
                    return False

                source.scan(note)
                self._kinds = (source.line_count, sorted(k for k in found if k))
            return self._kinds[1]
        return sorted({i.kind for i in list(source._rows.values()) if i.kind})

    def prompt_filter(self) -> None:
        """The filter prompt, offering the statuses and the kinds in the file (and
        naming those kinds under it)."""
        kinds = self.kinds_present()
        choices = list(STATUSES) + [f"kind:{k}" for k in kinds] + ["ts:"]
        shown = ", ".join(clean(k) for k in kinds) or "none read yet"
        self.app.push_screen(
            lazy.PromptScreen(
                "Filter rows",
                "a status, a kind, or ts:FROM..TO",
                suggester=SuggestFromList(choices, case_sensitive=False),
                hint=(
                    "empty clears · statuses: "
                    + ", ".join(STATUSES[:-1])
                    + f" · kind:NAME or a word of one; kinds in this file: {shown}"
                    + " · ts:2026-03-01T09:00..09:01 (ISO prefixes, both ends included)"
                ),
                id="filter-prompt",
            ),
            self.apply_filter,
        )

    def apply_filter(self, spec: str | None) -> None:
        """Show only the rows of `spec` (empty: clear; None: nothing), once the index
        (and, for a status, the verdict) is there; which rows it keeps is
        `core.row_filter`'s rule, a refused filter is one line saying why."""
        tab = self.tab
        if spec is None:
            return
        spec = spec.strip()
        if not spec:
            self.clear_filter()
            return
        if not tab.source.complete:
            tab.when_indexed(lambda: self.apply_filter(spec), f"filter {clean(spec)}")
            return
        rule = parse_filter(spec, self.kinds_present)
        if isinstance(rule, str):
            self.app.notify(rule, markup=False, severity="warning")
            return
        if rule.what == "status" and rule.status != "pending" and tab.verifying:
            tab.when_verified(lambda: self.apply_filter(spec), f"filter {rule.label}")
            return
        if rule.status in ("break", "declared") and tab.result is not None:
            want = rule.status
            rows = tab.rows
            view = array(
                "q",
                sorted(
                    n
                    for n, (k, _t) in rows.findings.items()
                    if k == want and rows.status(n) == want
                ),
            )
            self.post_message(Filtered(view, rule.label))
            return
        self.filter_worker(rule)

    @work(thread=True, exclusive=True, group="filter")
    def filter_worker(self, rule: RowFilter) -> None:
        """Find the lines of a filter in this thread, posting `FilterProgress`: a kind
        by `LedgerSource.kind_lines` (a byte search, then only the candidate lines
        parsed; several kinds merged), a status or a time span by a scan of every line."""
        worker = get_current_worker()
        rl, source = self.tab.rows, self.tab.source
        label = rule.label
        progress = Progress(
            self, worker, 2.0, lambda pct, _done: FilterProgress(label, pct), start=0.0
        )
        try:
            if rule.what == "kind":
                found: set[int] = set()
                for kind in rule.kinds:
                    found.update(source.kind_lines(kind, lambda: worker.is_cancelled, progress))
                view = array("q", sorted(found))
            elif rule.what == "ts":
                view = source.scan(
                    lambda _n, info: (
                        isinstance(info.obj, dict) and rule.keeps_ts(info.obj.get("ts"))
                    ),
                    lambda: worker.is_cancelled,
                    progress,
                )
            else:
                view = source.scan(
                    lambda n, info: rl.status(n, info) == rule.status,
                    lambda: worker.is_cancelled,
                    progress,
                )
        except Cancelled:
            return
        if not worker.is_cancelled:
            self.post_message(Filtered(view, label))

    def on_filter_progress(self, m: FilterProgress) -> None:
        m.stop()
        self.filtering = (m.label, m.pct) if m.pct < 100 else None
        self.tab.filter_progress(m.pct)

    def on_filtered(self, m: Filtered) -> None:
        m.stop()
        self.filtering = None
        self.filter_label = m.label
        self.tab.show_view(m.view)
        if m.view is not None and not len(m.view):
            self.app.notify(f"no rows match {m.label}", markup=False)

    def clear_filter(self) -> None:
        self.filter_label = ""
        self.tab.show_view(None)

    # ------------------------------------------------------------------ search
    def prompt_search(self) -> None:
        def done(value: str | None) -> None:
            if value:
                self.last_search = value
                self.search(backwards=False)

        self.app.push_screen(
            lazy.PromptScreen(
                "Search text",
                "text to find (as stored)",
                value=self.last_search,
                id="search-prompt",
            ),
            done,
        )

    def step(self, backwards: bool) -> None:
        """The next (or previous) match of the last search; the prompt when none."""
        if self.last_search:
            self.search(backwards)
        else:
            self.prompt_search()

    def search(self, backwards: bool) -> None:
        tab = self.tab
        if not tab.source.complete:
            tab.when_indexed(lambda: self.search(backwards), "search")
            return
        cur = tab.rows.current_line or 0
        if tab.source.size > COUNT_AT_ONCE:  # a big file is searched off the UI thread
            self.search_worker(self.last_search, cur, backwards)
            return
        self._searched(
            self.last_search, tab.source.find_text(self.last_search, cur, backwards), cur, backwards
        )

    @work(thread=True, exclusive=True, group="search")
    def search_worker(self, needle: str, cur: int, backwards: bool) -> None:
        n = self.tab.source.find_text(needle, cur, backwards)
        if not get_current_worker().is_cancelled:
            self.app.call_from_thread(self._searched, needle, n, cur, backwards)

    def _searched(self, needle: str, n: int | None, cur: int, backwards: bool) -> None:
        if needle != self.last_search:
            return
        if n is None:
            self.app.notify("not found: " + clean(needle), markup=False)
        else:
            self._found(n, cur, backwards)

    def _found(self, n: int, cur: int, backwards: bool) -> None:
        """Select match line `n` (searched from `cur`); say when the search went past
        the last match back to the first (or the other way), and count the matches
        (in a worker) for the status line's "match k of n"."""
        source = self.tab.source
        wrapped = n <= cur if not backwards else n >= cur
        self.search_at = n
        self.search_wrapped = (
            "" if not wrapped else "wrapped to the bottom" if backwards else "wrapped to the top"
        )
        key = (self.last_search, source.line_count)
        if self.search_count is None or self.search_count[0] != key:
            self.search_count = None
            if source.size <= COUNT_AT_ONCE:
                self.search_count = (key, source.match_lines(self.last_search))
            else:
                self.count_worker(*key)
        self.tab.goto_row(n)
        self.tab.refresh_status()
        if wrapped:
            self.app.notify(f"search {self.search_wrapped}: " + self._match_words(), markup=False)

    @work(thread=True, exclusive=True, group="search-count")
    def count_worker(self, needle: str, line_count: int) -> None:
        worker = get_current_worker()
        lines = self.tab.source.match_lines(needle, lambda: worker.is_cancelled)
        if not worker.is_cancelled:
            self.post_message(SearchCounted(needle, line_count, lines))

    def on_search_counted(self, m: SearchCounted) -> None:
        m.stop()
        if (m.needle, m.line_count) == (self.last_search, self.tab.source.line_count):
            self.search_count = ((m.needle, m.line_count), m.lines)
            self.tab.refresh_status()

    def _match_words(self) -> str:
        """ "match k of n" for the selected match ("match k of …" while counting)."""
        if self.search_count is None:
            return "match … (counting)"
        lines = self.search_count[1]
        k = bisect.bisect_left(lines, self.search_at or 0)
        if k < len(lines) and lines[k] == self.search_at:
            return f"match {k + 1:,} of {len(lines):,}"
        return f"{len(lines):,} match{'es' if len(lines) != 1 else ''}"

    def search_badge(self, t: Text) -> None:
        """The status line's search part: the text searched, match k of n, whether it
        wrapped (while the cursor is on that match)."""
        if not self.last_search or self.search_at is None:
            return
        t.append("· search ")
        t.append(clean(self.last_search), "bold")
        if self.tab.rows.current_line == self.search_at:
            t.append(": " + self._match_words())
            if self.search_wrapped:
                t.append(f" ({self.search_wrapped})", "italic")
        t.append(" ")
