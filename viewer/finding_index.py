"""The verifier's findings by line, stored compactly for the row list, the strip and
the break keys.

A line carries at most one finding here: where the verifier reports two for one line
(a break and the excusal of a declared break), the break wins, as the list shows it.
The index reads as a `Mapping[int, tuple[str, str]]` (line → (kind, text)), iterated
in line order, so `sorted(index)`, `index.get(line)` and `index.items()` answer as the
dict of tuples they replace; what it keeps per finding is

- 8 bytes: the line (`array('Q')`, sorted, searched by bisection);
- 1 byte: the kind, as its place in `kinds` (`bytearray`);
- 4 bytes: the finding's place in the result's own findings (`array('I')`), where its
  text is read when asked for (the text is not copied).

13 bytes a finding, against ~150 for a dict entry holding a tuple; a ledger without
findings costs nothing a row.
"""

from __future__ import annotations

import bisect
from array import array
from collections.abc import ItemsView, Iterable, Iterator, Mapping, Sequence
from typing import Protocol

__all__ = ["FindingIndex"]


class _Finding(Protocol):
    @property
    def line(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def text(self) -> str: ...


class _Items(ItemsView[int, tuple[str, str]]):
    """`items()` iterated straight from the arrays (no search per line)."""

    _mapping: FindingIndex

    def __iter__(self) -> Iterator[tuple[int, tuple[str, str]]]:
        m = self._mapping
        for line, k, i in zip(m._lines, m._kinds, m._where, strict=True):
            yield line, (m.kinds[k], m._source[i].text)


class FindingIndex(Mapping[int, tuple[str, str]]):
    """`findings` (each with `line`, `kind`, `text`; in line order as `verify` lists
    them, sorted here if not) indexed by line, the break winning on a shared line."""

    def __init__(self, findings: Sequence[_Finding] = ()) -> None:
        self._source = findings
        self.kinds: list[str] = []
        self._codes: dict[str, int] = {}
        self._lines = array("Q")
        self._kinds = bytearray()
        self._where = array("I")
        # one pass, reading each finding once, when in line order (as `verify` lists
        # them); else again, sorted (stably: a line's findings keep their order)
        if not self._fill(enumerate(findings)):
            self._lines, self._kinds, self._where = array("Q"), bytearray(), array("I")
            order = sorted(range(len(findings)), key=lambda i: findings[i].line)
            self._fill((i, findings[i]) for i in order)

    def _fill(self, items: Iterable[tuple[int, _Finding]]) -> bool:
        """Append `items` (place, finding); False, stopping, at a line before the last."""
        for i, f in items:
            line = f.line
            if line < 0:
                continue
            code = self._codes.get(f.kind)
            if code is None:
                code = self._codes[f.kind] = len(self.kinds)
                self.kinds.append(f.kind)
            if self._lines and self._lines[-1] >= line:
                if self._lines[-1] > line:
                    return False
                if f.kind == "break":  # a shared line: the break wins
                    self._kinds[-1], self._where[-1] = code, i
                continue
            self._lines.append(line)
            self._kinds.append(code)
            self._where.append(i)
        return True

    def _at(self, line: object) -> int:
        """The index of `line` in the arrays, or -1."""
        if not isinstance(line, int) or line < 0:
            return -1
        i = bisect.bisect_left(self._lines, line)
        return i if i < len(self._lines) and self._lines[i] == line else -1

    def __getitem__(self, line: int) -> tuple[str, str]:
        i = self._at(line)
        if i < 0:
            raise KeyError(line)
        return self.kinds[self._kinds[i]], self._source[self._where[i]].text

    def __contains__(self, line: object) -> bool:
        return self._at(line) >= 0

    def __iter__(self) -> Iterator[int]:
        return iter(self._lines)

    def __len__(self) -> int:
        return len(self._lines)

    def items(self) -> _Items:
        return _Items(self)

    def kind_of(self, line: int) -> str | None:
        """The kind of the finding at `line`, None when it has none (no text read)."""
        i = self._at(line)
        return self.kinds[self._kinds[i]] if i >= 0 else None

    def after(self, line: int) -> int | None:
        """The first line with a finding after `line`."""
        i = bisect.bisect_right(self._lines, line)
        return self._lines[i] if i < len(self._lines) else None

    def before(self, line: int) -> int | None:
        """The last line with a finding before `line`."""
        i = bisect.bisect_left(self._lines, line)
        return self._lines[i - 1] if i else None

    def nbytes(self) -> int:
        """Bytes the arrays hold (what this index adds to the result it reads)."""
        return (
            self._lines.itemsize * len(self._lines)
            + len(self._kinds)
            + self._where.itemsize * len(self._where)
        )
