"""A ledger tab's receipt and seal rows, found as compact columns.

`find_marks` is the one scan (`LedgerSource.marked_rows` from line `first`): each
receipt row kept as its point in `receipt_points.PointColumns`, each seal row as its
line in an `array('q')`, so nothing per row survives the pass as an object of its own
(an object made while a row's kilobytes are parsed and freed would pin the allocator's
arena it landed in).
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sealscope.core.receipt_points import PointColumns

if TYPE_CHECKING:
    from sealscope.viewer.source import LedgerSource

__all__ = ["find_marks"]


def find_marks(
    source: LedgerSource, first: int = 1, cancelled: Callable[[], bool] = lambda: False
) -> tuple[PointColumns, array]:
    """(receipt points, seal lines) of `source`'s rows from line `first` on."""
    points, seals = PointColumns(), array("q")

    def keep(kind: str, n: int, row: Any) -> None:
        if kind == "compaction_receipt":
            points.add_receipt(n, row)
        else:
            seals.append(n)

    source.marked_rows(cancelled, first, keep=keep)
    return points, seals
