"""Issue 42: the walk's verdict does not depend on how many threads walk it. Ledgers
with breaks, a declared break, rows before the chain, CRLF line ends, a torn last line
and receipt rows larger than a range are cut into many small ranges (a few KB) and
walked on 1, 2, 3 and 7 threads: every verdict and every finding is the one-thread
walk's, and the reference's fields. The threads' reads share one bounded budget."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import pytest
from sealscope.core import cores
from sealscope.core import ledger as L

THREADS = (1, 2, 3, 7)
CHUNK = 3 << 10  # bytes a range: a receipt row is most of one, several cross one


def _receipt(i: int) -> dict:
    items = [hashlib.sha256(f"{i}-{k}".encode()).hexdigest() for k in range(i % 40 + 5)]
    return {
        "kind": "compaction_receipt",
        "schema": "arcaeon-compact:receipt:v2",
        "dropped": {"count": len(items), "bytes": 100 * len(items), "items": items},
        "ts": f"t{i}",
    }


def _write(path, rows: int = 1500) -> None:
    """Two rows before the chain, then chained rows (a receipt every 7th, the rest
    small), with breaks of several kinds and line 602 changed and declared."""
    prev = L.GENESIS
    out = ['{"note": "before the chain"}', '{"note": "still before"}']
    for i in range(rows):
        row = _receipt(i) if i % 7 == 0 else {"tool": "search", "q": "café ✓ " * (i % 5), "i": i}
        chain = L.link(prev, row)
        prev = chain
        text = json.dumps({**row, "chain": chain}, ensure_ascii=False)
        if i in (100, 101, 599, 1201):  # content changed after it was chained
            text = text.replace('"ts": "t', '"ts": "T').replace('"i": ', '"i": 9')
        out.append(text)
    out[400] = "{not json"
    out[800] = '{"tool": "late", "i": -1}'  # unchained after the chain began
    out[1000] = '{"a": 1, "a": 2, "chain": "x"}'  # a duplicate key
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    L.declare_break(path, 602, "row 602 was edited on purpose")
    with open(path, "a", encoding="utf-8") as fh:  # the chain goes on after it
        row = {"tool": "after", "i": rows}
        fh.write(json.dumps({**row, "chain": L.link(L.tail_chain(path), row)}) + "\n")


def _variants(tmp_path):
    base = tmp_path / "base.jsonl"
    _write(base)
    data = base.read_bytes()
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes(data.replace(b"\n", b"\r\n"))
    torn = tmp_path / "torn.jsonl"
    torn.write_bytes(data[: data.rstrip(b"\n").rfind(b"\n") + 40])  # mid-row, no newline
    return [base, crlf, torn]


def _ref_fields(path) -> dict:
    from arcaeon.record.ledger import verify_file

    r = verify_file(str(path))
    return {k: getattr(r, k) for k in L.VerifyResult(ok=None).to_dict()}


@pytest.mark.parametrize("strict", [False, True])
def test_every_thread_count_gives_the_one_thread_verdict(tmp_path, strict):
    for path in _variants(tmp_path):
        one = L.verify(path, strict=strict, workers=1)
        assert one.breaks >= 5 and (strict or one.declared_breaks == 1), path.name
        for n in THREADS:
            got = L.verify(path, strict=strict, workers=n, chunk_bytes=CHUNK)
            assert got == one, (path.name, n)
            assert list(got.findings) == list(one.findings), (path.name, n)
            lean = L.verify(path, strict=strict, workers=n, chunk_bytes=CHUNK, all_findings=False)
            assert lean.to_dict() == one.to_dict(), (path.name, n)
        if not strict:
            assert one.to_dict() == _ref_fields(path), path.name


def test_jobs_on_the_command_line_gives_the_same_document(tmp_path):
    docs = set()
    for n in THREADS:
        out = subprocess.run(
            [sys.executable, "-m", "sealscope", "verify", "--json", "--jobs", str(n)]
            + [str(p) for p in _variants(tmp_path)],
            check=False,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert out.returncode == 1, out.stderr
        docs.add(out.stdout)
    assert len(docs) == 1
    bad = subprocess.run(
        [sys.executable, "-m", "sealscope", "verify", "--jobs", "0", str(tmp_path / "base.jsonl")],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert bad.returncode == 2 and "--jobs" in bad.stderr


def test_the_threads_reads_share_one_budget():
    for n in (1, 2, 3, 7, 16, 64, 1000):
        threads = cores.clamp(n)
        assert threads <= cores.MAX_THREADS
        assert threads * cores.read_bytes(threads) <= max(cores.BUFFER_BUDGET, cores.MAX_READ)
    assert cores.usable() >= 1
