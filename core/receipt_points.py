"""A ledger's receipt points kept as columns: a few bytes a receipt, not objects.

The viewer holds one `compaction_series.SeriesPoint` per receipt row for its chart, its
strip, its banner and its receipt steps. Kept as objects (a point, its ints, a tuple
and a dict entry beside it) they cost ~100 bytes each, and worse: made one by one while
the scan parses each receipt (kilobytes of row it frees at once), every such survivor
pins the allocator's arena it landed in, so the process kept ~3 KB a receipt. Here each
point is a line (`array('q')`), its six claimed sizes (`array('q')`, -1 for none) and
its two flags (a byte): 57 bytes, in a few growing buffers; a `SeriesPoint` is made
only when one is read. `ok_by_line` is the line → its own check holds mapping over the
same columns. The points are in line order, one per line.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any, overload

from sealscope.core.compaction_series import SeriesPoint, receipt_point

__all__ = ["PointColumns", "OkByLine"]

_OK, _BOUNDED = 1, 2
_NONE = -1  # a size the row does not state as a non-negative integer
_SIZES = 6  # pre, post, dropped; then the same in items


def _stored(v: int | None) -> int:
    return _NONE if v is None else v


def _read(v: int) -> int | None:
    return None if v == _NONE else v


class PointColumns(Sequence[SeriesPoint]):
    """Receipt points (`unit` "bytes") in line order, one per line, as columns (see the
    module docstring). Reads as a sequence of `SeriesPoint`s."""

    __slots__ = ("lines", "_sizes", "_flags")

    def __init__(self, points: Iterable[SeriesPoint] = ()) -> None:
        self.lines = array("q")
        self._sizes = array("q")
        self._flags = bytearray()
        for p in points:
            self.append(p)

    def append(self, p: SeriesPoint) -> None:
        """Add a point after the last (its line greater than every line held)."""
        if self.lines and p.where <= self.lines[-1]:
            raise ValueError(f"point at line {p.where} is not after line {self.lines[-1]}")
        self.lines.append(p.where)
        self._sizes.extend(
            _stored(v)
            for v in (p.pre, p.post, p.dropped, p.pre_items, p.post_items, p.dropped_items)
        )
        self._flags.append((_OK if p.ok else 0) | (_BOUNDED if p.bounded else 0))

    def add_receipt(self, line: int, row: Any) -> None:
        """The point of the receipt row at `line` (`compaction_series.receipt_point`)."""
        self.append(receipt_point(line, row))

    def merged(self, later: Iterable[SeriesPoint]) -> PointColumns:
        """These points and `later` ones, in line order; a line in both is `later`'s
        (and of `later`'s own, the last)."""
        taken = {p.where: p for p in later}
        if not taken:
            return self
        new = sorted(taken.values(), key=lambda p: p.where)
        if self.lines and new[0].where <= self.lines[-1]:  # not only after the end
            kept = (p for p in self if p.where not in taken)
            return PointColumns(sorted([*kept, *new], key=lambda p: p.where))
        out = PointColumns()
        out.lines, out._sizes = array("q", self.lines), array("q", self._sizes)
        out._flags = bytearray(self._flags)
        for p in new:
            out.append(p)
        return out

    def index_of(self, line: int) -> int:
        """The index of the point at `line`, -1 when none is."""
        i = bisect_left(self.lines, line)
        return i if i < len(self.lines) and self.lines[i] == line else -1

    def ok_at(self, i: int) -> bool:
        return bool(self._flags[i] & _OK)

    def ok_by_line(self) -> OkByLine:
        return OkByLine(self)

    def nbytes(self) -> int:
        """The bytes the columns hold."""
        return (
            self.lines.itemsize * len(self.lines)
            + self._sizes.itemsize * len(self._sizes)
            + len(self._flags)
        )

    def __len__(self) -> int:
        return len(self.lines)

    @overload
    def __getitem__(self, i: int) -> SeriesPoint: ...

    @overload
    def __getitem__(self, i: slice) -> list[SeriesPoint]: ...

    def __getitem__(self, i: int | slice) -> SeriesPoint | list[SeriesPoint]:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("point index out of range")
        s, f = self._sizes[_SIZES * i : _SIZES * i + _SIZES], self._flags[i]
        return SeriesPoint(
            self.lines[i],
            "bytes",
            _read(s[0]),
            _read(s[1]),
            _read(s[2]),
            _read(s[3]),
            _read(s[4]),
            _read(s[5]),
            ok=bool(f & _OK),
            bounded=bool(f & _BOUNDED),
        )

    def __iter__(self) -> Iterator[SeriesPoint]:
        for i in range(len(self)):
            yield self[i]

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(a == b for a, b in zip(self, other, strict=True))

    __hash__ = None  # type: ignore[assignment]

    def __repr__(self) -> str:
        return f"PointColumns(n={len(self)})"


class OkByLine(Mapping[int, bool]):
    """A receipt's line → whether its own check holds, read from `PointColumns`."""

    __slots__ = ("_points",)

    def __init__(self, points: PointColumns) -> None:
        self._points = points

    def __getitem__(self, line: int) -> bool:
        i = self._points.index_of(line)
        if i < 0:
            raise KeyError(line)
        return self._points.ok_at(i)

    def __iter__(self) -> Iterator[int]:
        return iter(self._points.lines)

    def __len__(self) -> int:
        return len(self._points)

    def items(self) -> Any:
        pts = self._points
        return ((pts.lines[i], pts.ok_at(i)) for i in range(len(pts)))

    def values(self) -> Any:
        pts = self._points
        return (pts.ok_at(i) for i in range(len(pts)))
