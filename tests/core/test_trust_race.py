"""Issue 32, H1: a verdict is bound to the one file the verifier opened.

The race: the parent opens L (holding T, tampered), then the file at the name L is
replaced by H (honest). Range workers that reopened L by name read H and the merged
verdict said VERIFIED for bytes that were never T's; the checkpoint bound T's prefix
hash to H's clean walk. The swap is made from `ledger.after_open`, called the moment
the parent holds the file open: deterministic, no sleeps."""

from __future__ import annotations

import os
import shutil

import pytest
from sealscope.core import checkpoint as C
from sealscope.core import ledger as L


def _pair(tmp_path, rows=400):
    """An honest ledger H and T, a copy with 4 bytes of row 11 changed (same length)."""
    h = tmp_path / "H.jsonl"
    for i in range(rows):
        L.append(h, {"i": i, "ts": "t", "who": "abcd"})
    t = tmp_path / "T.jsonl"
    data = bytearray(h.read_bytes())
    lines = data.split(b"\n")
    lines[10] = lines[10].replace(b"abcd", b"wxyz")
    t.write_bytes(b"\n".join(lines))
    assert t.stat().st_size == h.stat().st_size
    return h, t


@pytest.fixture
def swap_on_open(monkeypatch):
    """Install a hook replacing the name `target` with `honest` right after the
    parent opened it (once)."""

    def install(target, honest):
        done = []

        def hook(path, fd):
            if not done and os.path.abspath(path) == os.path.abspath(target):
                done.append(fd)
                os.replace(honest, target)

        monkeypatch.setattr(L, "after_open", hook)
        return done

    return install


@pytest.mark.parametrize("runner", ["threads", "serial"])
def test_range_walks_read_the_open_file_not_the_name(tmp_path, swap_on_open, runner, monkeypatch):
    h, t = _pair(tmp_path)
    assert L.verify(t).verdict == "BROKEN" and L.verify(h).verdict == "VERIFIED"
    led = tmp_path / "L.jsonl"
    shutil.copy(t, led)
    if runner == "serial":  # the same jobs, one after another in this thread
        monkeypatch.setattr(L, "_thread_runner", lambda workers: L._serial_runner)
    done = swap_on_open(led, h)
    res = L.verify(led, workers=2, chunk_bytes=4096)
    assert done, "the hook did not run"
    # the bytes opened were T's: BROKEN at row 11, never VERIFIED
    assert res.verdict == "BROKEN"
    assert res.first_break == "line 11: chain mismatch"


def test_a_verdict_that_held_on_a_replaced_file_is_not_green(tmp_path, swap_on_open):
    h, _t = _pair(tmp_path, rows=50)
    other = tmp_path / "other.jsonl"
    shutil.copy(h, other)
    led = tmp_path / "L.jsonl"
    shutil.copy(h, led)
    swap_on_open(led, other)  # an honest file replaced by another honest file
    res = L.verify(led, digest=True)
    assert res.verdict == "COULD NOT LOOK" and res.exit_code == 3
    assert "replaced while it was verified" in res.reason()
    assert res.sha256 is None


def test_incremental_race_gives_no_green_and_no_poisoned_checkpoint(tmp_path, swap_on_open):
    h, t = _pair(tmp_path)
    led, cp = tmp_path / "L.jsonl", tmp_path / "cp.json"
    shutil.copy(t, led)
    swap_on_open(led, h)
    inc = C.verify_incremental(led, checkpoint=cp, workers=2)
    assert inc.result.verdict == "BROKEN"
    # whatever was written, the tampered file never resumes as unchanged-and-clean
    shutil.copy(t, led)
    again = C.verify_incremental(led, checkpoint=cp, workers=2)
    assert again.result.verdict == "BROKEN"
    assert again.resumed is None or again.result.first_break == "line 11: chain mismatch"


def test_bytes_changed_in_place_after_the_walk_cannot_poison_the_checkpoint(tmp_path):
    """Same inode, bytes rewritten between the walk and the digest: the checkpoint's
    digest is of the bytes walked (never of the rewritten ones), so the rewritten file
    is caught by the next run."""
    import hashlib
    import json

    h, t = _pair(tmp_path, rows=50)
    led, cp = tmp_path / "L.jsonl", tmp_path / "cp.json"
    shutil.copy(h, led)
    honest, tampered = h.read_bytes(), t.read_bytes()
    total = led.stat().st_size

    def progress(done, whole):
        if done == whole == total:
            with open(led, "r+b") as fh:  # in place: same inode, same length
                fh.write(tampered)

    inc = C.verify_incremental(led, checkpoint=cp, on_progress=progress)
    assert inc.result.verdict == "VERIFIED"  # the bytes it walked were honest
    if cp.exists():
        assert json.loads(cp.read_bytes())["chunks"] == [hashlib.sha256(honest).hexdigest()]
    again = C.verify_incremental(led, checkpoint=cp)
    assert again.result.verdict == "BROKEN" and again.resumed is None


def test_span_digest_refuses_bytes_that_differ_from_the_walks(tmp_path):
    """Ranges read by workers are checked against the parent's own read."""
    import hashlib

    p = tmp_path / "f"
    p.write_bytes(b"a" * 100 + b"b" * 100)
    good = [
        (0, 100, hashlib.sha256(b"a" * 100).hexdigest()),
        (100, 200, hashlib.sha256(b"b" * 100).hexdigest()),
    ]
    fd = os.open(p, os.O_RDONLY)
    try:
        assert L.span_digest(fd, 0, 200, good) == (hashlib.sha256(p.read_bytes()).hexdigest(), None)
        bad = [good[0], (100, 200, hashlib.sha256(b"c" * 100).hexdigest())]
        sha, why = L.span_digest(fd, 0, 200, bad)
        assert sha is None and why == "bytes 100–200 differ from what the walk read"
    finally:
        os.close(fd)


def test_digest_is_of_the_bytes_walked_serial_and_parallel(tmp_path):
    import hashlib

    h, _t = _pair(tmp_path, rows=300)
    want = hashlib.sha256(h.read_bytes()).hexdigest()
    assert L.verify(h, digest=True).sha256 == want
    assert L.verify(h, digest=True, workers=2, chunk_bytes=4096).sha256 == want
    assert (
        C.verify_incremental(h, checkpoint=tmp_path / "c.json", digest=True).result.sha256 == want
    )
    L.append(h, {"more": 1})
    again = C.verify_incremental(h, checkpoint=tmp_path / "c.json", digest=True)
    assert again.resumed is not None
    assert again.result.sha256 == hashlib.sha256(h.read_bytes()).hexdigest()
