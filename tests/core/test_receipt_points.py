"""Issue 42: what is kept per receipt row. `PointColumns` holds a ledger's receipt points
in a few arrays (57 bytes a receipt) and reads as the `SeriesPoint`s it was given; the
row checks' pass (`ledger_rows.row_checks`) holds none of the receipt rows it reads."""

from __future__ import annotations

import hashlib
import json
import pickle
import tracemalloc

from sealscope.core import compaction_series as cs
from sealscope.core import ledger as L
from sealscope.core.checks import ledger_rows
from sealscope.core.receipt_points import PointColumns


def _points(n: int, start: int = 1, step: int = 3) -> list[cs.SeriesPoint]:
    return [
        cs.SeriesPoint(
            start + step * i,
            "bytes",
            1000 + i,
            None if i % 5 == 0 else 400,
            600 - i,
            12,
            None,
            7,
            ok=i % 7 != 0,
            bounded=i % 2 == 0,
        )
        for i in range(n)
    ]


def test_columns_read_as_the_points_they_were_given():
    pts = _points(500)
    cols = PointColumns(pts)
    assert cols == pts and list(cols) == pts and cols[-1] == pts[-1] and cols[2:4] == pts[2:4]
    assert cols.nbytes() <= 57 * len(pts)
    assert dict(cols.ok_by_line()) == {p.where: p.ok for p in pts}
    assert cols.ok_by_line()[pts[7].where] is False and pts[8].where in cols.ok_by_line()
    assert list(cols.lines) == [p.where for p in pts]
    assert pickle.loads(pickle.dumps(cols)) == pts
    assert cs.checked(cols, ()) is cols  # nothing recomputed: not copied
    assert cs.series(cols) == cs.series(pts)


def test_merged_points_are_in_line_order_and_the_later_wins():
    cols = PointColumns(_points(10))
    after = _points(3, start=1000)
    assert cols.merged(after) == [*_points(10), *after]
    again = [cs.SeriesPoint(4, "bytes", 1, 1, 0, ok=False)]  # line 4 is held already
    merged = cols.merged(again)
    assert [p.where for p in merged] == [p.where for p in _points(10)]
    assert merged[1] == again[0] and cols[1] != again[0]
    assert cols.merged([]) is cols


def _receipt_ledger(path, receipts: int) -> int:
    """A chained ledger of `receipts` receipt rows (~2 KB each); their bytes."""
    prev, size = L.GENESIS, 0
    with open(path, "w", encoding="utf-8") as fh:
        for i in range(receipts):
            items = [hashlib.sha256(f"{i}/{k}".encode()).hexdigest() for k in range(24)]
            row = {"kind": "compaction_receipt", "dropped": {"count": 24, "items": items}}
            prev = L.link(prev, row)
            text = json.dumps({**row, "chain": prev}) + "\n"
            size += len(text)
            fh.write(text)
    return size


def _peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_the_row_checks_pass_holds_no_receipt_row(tmp_path):
    p = tmp_path / "receipts.jsonl"
    size = _receipt_ledger(p, 12_000)  # ~21 MB: more than a read window or two
    assert ledger_rows.row_checks(str(p)) == ()
    assert len(ledger_rows.scan(str(p)).receipts) == 12_000  # `scan` still gives them
    lean = _peak(lambda: ledger_rows.row_checks(str(p)))
    full = _peak(lambda: ledger_rows.scan(str(p)))
    # both read the same windows; the rows held whole cost more than their bytes
    assert full - lean > size, (lean, full, size)
