"""The ledger tab's status line, as pure text builders: the tab draws it from them, and
so does the first paint before the tab exists, so the two cannot drift.

`count_words`: how big the file is, in words. `status_text`: the line under the row
list (the cursor's line, a search's match k of n, a filter being found or shown, the
file's size, "(indexing…)" until the index is complete, the follow badges).
`strip_keys_text`: what it says instead while the overview strip has the keyboard.
"""

from __future__ import annotations

from collections.abc import Callable

from rich.text import Text
from sealscope.core.sanitize import clean

__all__ = ["count_words", "status_text", "strip_keys_text"]


def _n(count: int, noun: str) -> str:
    return f"{count:,} {noun}{'s' if count != 1 else ''}"


def count_words(lines: int, rows: int | None = None) -> str:
    """A file's size in words: its lines as a reader counts them, and once verified
    (`rows`) its rows when they differ ("11 rows", "12 lines, 11 rows")."""
    if rows is None:
        return _n(lines, "line")
    if rows == lines:
        return _n(rows, "row")
    return f"{_n(lines, 'line')}, {_n(rows, 'row')}"


def status_text(
    line: int | None,
    counted: str,
    *,
    complete: bool = True,
    view: int | None = None,
    filter_label: str = "",
    filtering: tuple[str, float] | None = None,
    search: Callable[[Text], None] | None = None,
    badges: Callable[[Text], None] | None = None,
) -> Text:
    """The status line: `line` the cursor's (None: none), `counted` the file's size
    (`count_words`), `complete` whether the index is, `view` how many rows a filter
    (`filter_label`) shows (None: no filter), `filtering` a filter being found (label,
    %); `search` and `badges` append the search's and the follower's parts."""
    t = Text(no_wrap=True, end="")
    t.append(f" line {line or '-'} ", "bold")
    if search is not None:
        search(t)
    if filtering is not None:
        t.append("· filtering ")
        t.append(clean(filtering[0]), "bold")
        t.append(f"… {filtering[1]:.0f}% ", "italic")
    if view is not None:
        t.append(f"· showing {view:,} of {counted} · filter: ")
        t.append(clean(filter_label), "bold")
    else:
        t.append(f"· {counted}")
        if not complete:
            t.append(" (indexing…)", "italic")
    if badges is not None:
        badges(t)
    return t


def strip_keys_text() -> Text:
    """The status line while the overview strip has the keyboard: its keys."""
    t = Text(no_wrap=True, end="")
    t.append(" strip: ", "bold")
    t.append("0-9 jump to that tenth · ↑↓ bin by bin · Enter · Esc rows · m hides · ? legend")
    return t
