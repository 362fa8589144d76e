"""Issue 32: memory is bounded by the file, not by how many rows break. Findings are
kept as arrays (line, kind, message index), so each costs a few bytes whatever the
file holds; the verdict stays the reference's."""

from __future__ import annotations

import json
import sys

from sealscope.core import ledger as L


def _all_broken(path, rows: int, key=None) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        for n in range(rows):
            row = {"i": n, "chain": "0" * 32}
            line = json.dumps(row)
            if key is not None:  # a duplicate key of its own on every row
                line = line[:-1] + f', "k{n}": 1, "k{n}": 2}}'
            fh.write(line + "\n")


def _footprint(f: L.Findings) -> int:
    return (
        sys.getsizeof(f.lines)
        + sys.getsizeof(f.kinds)
        + sys.getsizeof(f.codes)
        + sum(sys.getsizeof(t) for t in f.table)
    )


def test_a_hundred_thousand_breaks_cost_a_few_bytes_each(tmp_path):
    p = tmp_path / "broken.jsonl"
    _all_broken(p, 100_000)
    for workers, chunk in ((1, None), (2, 256 << 10)):
        res = L.verify(p, workers=workers, chunk_bytes=chunk)
        assert res.breaks == 100_000 and len(res.findings) == 100_000
        assert isinstance(res.findings, L.Findings)
        assert _footprint(res.findings) < 20 * 100_000  # ~13 B each, not ~350
        assert res.findings.table == ["chain mismatch"]
        assert res.findings[0] == L.Finding(1, "break", "line 1: chain mismatch")
        assert res.findings[-1] == L.Finding(100_000, "break", "line 100000: chain mismatch")
        assert [f.line for f in res.findings[:3]] == [1, 2, 3]


def test_distinct_messages_beyond_the_table_keep_line_and_kind(tmp_path):
    from arcaeon.record.ledger import verify_file

    p = tmp_path / "dups.jsonl"
    rows = L.TEXT_TABLE_MAX + 500
    _all_broken(p, rows, key=True)
    res = L.verify(p)
    ref = verify_file(str(p))
    assert (res.ok, res.rows, res.breaks, res.first_break) == (
        ref.ok,
        ref.rows,
        ref.breaks,
        ref.first_break,
    )
    assert len(res.findings.table) <= L.TEXT_TABLE_MAX
    last = [f for f in res.findings if f.line == rows]  # its duplicate key, its chain
    assert [f.kind for f in last] == ["break", "break"]
    assert "its text is not kept" in last[0].text
    assert last[1].text == f"line {rows}: chain mismatch"  # a kept message stays exact
    assert res.findings[0].text == res.first_break


def test_findings_equal_the_plain_sequence_and_survive_pickling(tmp_path):
    import pickle

    p = tmp_path / "l.jsonl"
    for i in range(5):
        L.append(p, {"i": i, "ts": "t"})
    data = p.read_bytes().split(b"\n")
    data[2] = data[2].replace(b'"i": 2', b'"i": 9')
    p.write_bytes(b"\n".join(data))
    res = L.verify(p)
    plain = (L.Finding(3, "break", "line 3: chain mismatch"),)
    assert res.findings == plain and tuple(res.findings) == plain
    back = pickle.loads(pickle.dumps(res))
    assert back == res and back.findings == plain
