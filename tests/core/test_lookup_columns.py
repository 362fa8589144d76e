"""Issue 42: the drop-manifest index keeps each canonical entry in columns (49 bytes),
and answers as a plain digest → locations map would: exact look-ups, fragments (hex
alone, cut, upper case, or with the tag's words), the unexplained entries, across
several ledgers and a stand-alone receipt, a digest seen twice and one not canonical."""

from __future__ import annotations

import hashlib
import json

from sealscope.core import ledger as L
from sealscope.core.lookup import DropIndex, Location

TAG = "sha256:raw-bytes:v1:"


def _digest(i: int) -> str:
    return TAG + hashlib.sha256(str(i).encode()).hexdigest()


def _write(path, first: int, receipts: int) -> dict[str, list[tuple[int, int]]]:
    """Receipt rows (every other line) dropping digests first.. (one repeated, one
    not canonical); the expected digest → [(line, position)]."""
    want: dict[str, list[tuple[int, int]]] = {}
    for r in range(receipts):
        items = [_digest(first + 3 * r + k) for k in range(3)] + [_digest(0), "odd:digest"]
        L.append(path, {"kind": "compaction_receipt", "dropped": {"items": items}})
        L.append(path, {"tool": "search", "r": r})
        for pos, d in enumerate(items):
            want.setdefault(d, []).append((2 * r + 1, pos))
    return want


def test_the_columns_answer_as_the_map_would(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    want_a, want_b = _write(a, 100, 40), _write(b, 100_000, 30)
    idx = DropIndex.build([a, b])
    receipt = {"dropped": {"items": [_digest(0)]}}
    idx.add_receipt(tmp_path / "r.json", receipt)
    assert idx.rows == 71 and idx.entries == 5 * 70 + 1
    assert len(idx) == len(set(want_a) | set(want_b))
    assert idx.nbytes() <= 49 * idx.entries
    for d in [*want_a, *want_b]:
        expect = [Location(str(a), n, p) for n, p in want_a.get(d, [])]
        expect += [Location(str(b), n, p) for n, p in want_b.get(d, [])]
        if d == _digest(0):
            expect.append(Location(str(tmp_path / "r.json"), 1, 0))
        assert idx.where(d) == expect, d
        assert d in idx
    assert idx.where(_digest(7)) == [] and _digest(7) not in idx
    one = _digest(100 + 5)
    for text in (one[-16:], one[-30:-10].upper(), one[-20:] + "…", "v1:" + one[20:40]):
        got = idx.containing(text)
        assert [(e.ledger, e.line, e.position, e.digest) for e in got] == [(str(a), 3, 2, one)], (
            text
        )
    assert len(idx.containing("odd:dige")) == 70
    left = idx.unexplained([_digest(0), "odd:digest"])
    assert len(left) == 3 * 70 and [e.ledger for e in left[:1]] == [str(a)]
    assert [(e.line, e.position) for e in left[:4]] == [(1, 0), (1, 1), (1, 2), (3, 0)]
    json.dumps([list(e) for e in left])  # plain values
