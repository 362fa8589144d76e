"""Text that survives a pipe: table cells are never cut when stdout is not a terminal,
and are wrapped, not cut, on a terminal.

A table printed for a person at a terminal fits its width: a cell longer than its
column continues on the next lines of the same row (`rows`), so the part of a value
that differs is always shown. Printed into a pipe or a file (`| cat`, `> out.txt`,
a CI log), nothing is cut or wrapped: a column is as wide as its widest cell.
"""

from __future__ import annotations

import shutil
import sys
import textwrap
from collections.abc import Sequence
from typing import IO

__all__ = ["on_terminal", "width", "wrap", "rows"]


def on_terminal(stream: IO[str] | None = None) -> bool:
    """Whether `stream` (stdout by default) is a terminal a person reads."""
    stream = sys.stdout if stream is None else stream
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):
        return False


def width(default: int = 100) -> int | None:
    """The terminal's width, or None (no limit) when stdout is not a terminal."""
    if not on_terminal():
        return None
    return shutil.get_terminal_size((default, 24)).columns


def wrap(text: str, limit: int | None) -> list[str]:
    """`text` as the lines of a cell `limit` characters wide (at spaces when it can,
    else inside a word); one line, whole, when there is no limit."""
    if limit is None or len(text) <= limit:
        return [text]
    limit = max(1, limit)
    got = textwrap.wrap(
        text,
        limit,
        break_long_words=True,
        break_on_hyphens=False,
        replace_whitespace=False,
        drop_whitespace=True,
    )
    return got or [text[:limit]]


def rows(
    cells: Sequence[str],
    widths: Sequence[int | None],
    sep: str = " │ ",
    lead: Sequence[str] = ("",),
) -> list[str]:
    """One table row as printed lines: each cell wrapped to its column (`widths`, None:
    unlimited) and padded to it, so the columns line up on every line of the row.
    `lead[0]` starts the first line, and blanks of its width the others (a mark)."""
    wrapped = [wrap(c, w) for c, w in zip(cells, widths, strict=True)]
    height = max(len(w) for w in wrapped)
    first = lead[0]
    out = []
    for i in range(height):
        parts = []
        for j, (lines, w) in enumerate(zip(wrapped, widths, strict=True)):
            text = lines[i] if i < len(lines) else ""
            last = j == len(wrapped) - 1
            parts.append(text if last or w is None else text.ljust(w))
        out.append((first if i == 0 else " " * len(first)) + sep.join(parts).rstrip())
    return out
