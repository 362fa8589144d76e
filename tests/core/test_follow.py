"""Following a growing ledger: new rows verified from the saved state, and every way
the verified bytes can change under the follower caught."""

from __future__ import annotations

import json
import os

from sealscope.core import follow as F
from sealscope.core import ledger as L
from sealscope.core.receipt import build_row


def _ledger(p, n=10, start=0):
    for i in range(start, start + n):
        L.append(p, {"i": i, "ts": "t"})


def _upto_cut(p) -> L.VerifyResult:
    """verify of the file's bytes up to its last line break."""
    data = p.read_bytes()
    q = p.with_name("cut.jsonl")
    q.write_bytes(data[: data.rfind(b"\n") + 1])
    return L.verify(q)


def test_rows_appended_are_verified_as_they_land(tmp_path):
    p = tmp_path / "l.jsonl"
    _ledger(p)
    f = F.Follower(p)
    assert f.open().ok is True
    assert f.poll() == []
    _ledger(p, 5, 10)
    evs = f.poll()
    assert evs == [F.Event("grew", "5 new rows", 15, 5)]
    assert f.result == L.verify(p) and f.rows_added == 5
    # a half-written row waits for its line break
    with p.open("a") as fh:
        fh.write('{"i": 15, "ts": "t", "chain": "')
    assert f.poll() == [] and f.result.rows == 15
    assert f.result == _upto_cut(p)
    with p.open("a") as fh:
        fh.write('0000"}\n')
    evs = f.poll()
    assert [e.kind for e in evs] == ["grew", "break"]
    assert evs[1] == F.Event("break", "line 16: chain mismatch", 16)
    assert f.result == L.verify(p) and f.result.ok is False
    assert f.alarm is None  # a break in appended rows is a break, not a rewrite
    f.close()


def test_receipts_and_declared_breaks_are_reported(tmp_path):
    p = tmp_path / "l.jsonl"
    _ledger(p, 3)
    f = F.Follower(p)
    f.open()
    row = build_row(["a", "b", "c"], ["a", "summary"], compactor="c", method="m")
    L.append(p, row)
    with p.open("a") as fh:
        fh.write('{"note": "hand"}\n')
    L.declare_break(p, 5, "hand edit")
    evs = f.poll()
    kinds = [(e.kind, e.line) for e in evs]
    assert kinds == [("grew", 6), ("receipt", 4), ("declared", 5)]
    assert evs[1].text == "line 4: compaction receipt verified (scope bounded_no_content)"
    assert evs[2].text == "line 5: declared break (hand edit)"
    assert f.result == L.verify(p)


def test_truncation_is_caught_and_latched(tmp_path):
    p = tmp_path / "l.jsonl"
    _ledger(p, 12)
    f = F.Follower(p)
    f.open()
    size = p.stat().st_size
    data = p.read_bytes()
    with p.open("r+b") as fh:  # same inode, cut at a line boundary: walks clean
        fh.truncate(len(b"".join(data.splitlines(keepends=True)[:9])))
    evs = f.poll()
    assert evs == [
        F.Event(
            "truncated",
            f"3 rows gone (file shrank from {size:,} to {p.stat().st_size:,} bytes)",
            rows=3,
        )
    ]
    assert f.result.ok is False
    assert f.result.first_break.startswith("truncated while open: 3 rows gone")
    _ledger(p, 2, 100)
    assert f.poll() == []  # latched


def test_replacement_is_caught(tmp_path):
    p = tmp_path / "l.jsonl"
    _ledger(p, 4)
    f = F.Follower(p)
    f.open()
    q = tmp_path / "new.jsonl"
    q.write_bytes(p.read_bytes())
    ino = p.stat().st_ino
    os.replace(q, p)
    (ev,) = f.poll()
    assert ev.kind == "replaced"
    assert ev.text == f"another file is at the path (inode {ino} → {p.stat().st_ino})"
    assert f.result.ok is False


def test_rewrite_in_place_is_caught_at_once(tmp_path):
    p = tmp_path / "l.jsonl"
    _ledger(p, 6)
    f = F.Follower(p, rehash_seconds=1e9)
    f.open()
    n = p.stat().st_size
    data = p.read_bytes().replace(b'"i": 1,', b'"i": 7,', 1)
    st = p.stat()
    with p.open("r+b") as fh:
        fh.write(data)
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000))
    (ev,) = f.poll()
    assert ev == F.Event("rewritten", f"prefix changed in bytes 0–{n:,}")
    assert f.result.first_break == f"rewritten while open: prefix changed in bytes 0–{n:,}"


def test_rewrite_behind_the_seam_is_caught_by_the_next_rows_chain(tmp_path, monkeypatch):
    """A re-chained rewrite of old rows: the next appended row (chained from the new
    head) does not chain from the verified head, which triggers the prefix re-hash."""
    monkeypatch.setattr(F, "SEAM", 0)
    p = tmp_path / "l.jsonl"
    _ledger(p, 8)
    f = F.Follower(p, rehash_seconds=1e9)
    f.open()
    rows = [json.loads(x) for x in p.read_text().splitlines()]
    rows[1]["i"] = 99
    text, prev = [], L.GENESIS
    for r in rows:
        r.pop("chain")
        r["chain"] = prev = L.link(prev, r)
        text.append(json.dumps(r))
    with p.open("r+b") as fh:
        fh.write(("\n".join(text) + "\n").encode())
    assert L.verify(p).ok is True
    L.append(p, {"i": 8, "ts": "t"})
    (ev,) = f.poll()
    assert ev.kind == "rewritten" and ev.text.startswith("prefix changed in bytes 0–")


def test_periodic_rehash_catches_a_rewrite_that_keeps_size_and_mtime(tmp_path, monkeypatch):
    monkeypatch.setattr(F, "SEAM", 0)
    now = [0.0]
    p = tmp_path / "l.jsonl"
    _ledger(p, 6)
    f = F.Follower(p, rehash_seconds=30, clock=lambda: now[0])
    f.open()
    st = p.stat()
    with p.open("r+b") as fh:
        fh.write(b"{")  # same byte: nothing changed yet
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    assert f.poll() == []
    with p.open("r+b") as fh:
        fh.seek(3)
        fh.write(b"X")
    os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns))
    now[0] = 10
    assert f.poll() == []  # not due yet, and nothing betrays it
    now[0] = 31
    (ev,) = f.poll()
    assert ev.kind == "rewritten"


def test_unreadable_file(tmp_path):
    f = F.Follower(tmp_path / "missing.jsonl")
    res = f.open()
    assert res.unreadable and f.alarm.kind == "unreadable" and f.poll() == []


def test_adopting_a_snapshot_from_another_process(tmp_path):
    """The viewer walks in a child and follows in the app: the snapshot carries the
    state; a file changed in between is caught on adoption."""
    p = tmp_path / "l.jsonl"
    _ledger(p, 6)
    child = F.Follower(p)
    child.open()
    snap = child.snapshot()
    child.close()
    f = F.Follower(p)
    assert f.adopt(snap) == L.verify(p) and f.alarm is None
    _ledger(p, 2, 6)
    assert [e.kind for e in f.poll()] == ["grew"] and f.result == L.verify(p)
    g = F.Follower(p)
    p.write_bytes(p.read_bytes().replace(b'"i": 0,', b'"i": 5,', 1))
    g.adopt(snap)
    assert g.alarm.kind == "rewritten" and g.result.ok is False


def test_final_is_verifys_verdict_of_the_whole_file_a_partial_line_included(tmp_path):
    p = tmp_path / "l.jsonl"
    _ledger(p, 4)
    whole = p.read_bytes()
    last = whole.rstrip(b"\n").rsplit(b"\n", 1)[1] + b"\n"
    p.write_bytes(whole[: len(whole) - 10])  # the last row cut mid-line
    f = F.Follower(p)
    assert f.open().verdict == "VERIFIED"  # while following: the complete lines
    end = f.final()
    assert end is not None and end.partial == len(last) - 10
    assert end.result == L.verify(p) and end.result.verdict == "BROKEN"
    with open(p, "ab") as fh:  # the writer finishes the line
        fh.write(whole[len(whole) - 10 :])
    end = f.final()
    assert end is not None and end.partial == 0 and end.result.verdict == "VERIFIED"
    assert end.result == L.verify(p) and f.result.rows == 4
    f.close()


def test_open_reports_the_prefix_hashing_and_adopt_compares_chunk_by_chunk(tmp_path, monkeypatch):
    """The bar keeps moving while the prefix is hashed for later polls (it never rests
    at the walk's end), and a snapshot names the prefix chunk by chunk, so a rewrite in
    any chunk, the last partial one included, is caught on adoption."""
    monkeypatch.setattr(F._chunks, "CHUNK", 4096)
    p = tmp_path / "l.jsonl"
    _ledger(p, 200)
    size = p.stat().st_size
    assert size > 3 * 4096 and size % 4096
    seen: list[tuple[int, int]] = []
    child = F.Follower(p)
    child.open(on_progress=lambda d, t: seen.append((d, t)))
    snap = child.snapshot()
    child.close()
    total = seen[-1][1]
    assert seen[-1] == (total, total) and total > size
    hashing = [d for d, _ in seen if size < d < total]
    assert len(hashing) >= 3 and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(snap["chunks"]) == size // 4096 + 1
    whole = p.read_bytes()
    for at in (100, size - 50):  # a full chunk, then the partial last one
        with open(p, "r+b") as fh:  # the same file, rewritten in place
            fh.seek(at)
            fh.write(b"7" if whole[at : at + 1] != b"7" else b"8")
        g = F.Follower(p)
        g.adopt(snap)
        assert g.alarm is not None and g.alarm.kind == "rewritten", at
        g.close()
        p.write_bytes(whole)
