"""Issue 42: a walk asked for the verdict's fields alone (`all_findings=False`) holds
nothing per break. A file whose every row breaks costs what an honest file of the same
rows and bytes costs, and the verdict (counts, first break, declared breaks) is the
one the full walk gives."""

from __future__ import annotations

import json
import tracemalloc

from sealscope.core import ledger as L

ROWS = 60_000


def _ledger(path, rows: int, broken: bool) -> None:
    """`rows` rows of equal size; `broken`: every chain wrong, else every chain right."""
    prev = L.GENESIS
    with open(path, "w", encoding="utf-8") as fh:
        for n in range(rows):
            row = {"i": n}
            chain = "0" * 32 if broken else L.link(prev, row)
            prev = chain
            fh.write(json.dumps({**row, "chain": chain}) + "\n")


def _peak(fn) -> int:
    tracemalloc.start()
    try:
        fn()
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_breaks_cost_nothing_when_only_the_verdict_is_wanted(tmp_path):
    honest, broken = tmp_path / "honest.jsonl", tmp_path / "broken.jsonl"
    _ledger(honest, ROWS, broken=False)
    _ledger(broken, ROWS, broken=True)
    assert honest.stat().st_size == broken.stat().st_size
    for workers, chunk in ((1, None), (2, 64 << 10)):

        def walk(p, keep, workers=workers, chunk=chunk):
            return lambda: L.verify(p, workers=workers, chunk_bytes=chunk, all_findings=keep)

        base = _peak(walk(honest, False))
        lean = _peak(walk(broken, False))
        full = _peak(walk(broken, True))
        # the full list costs ~13 bytes a break; the verdict alone a fixed few KB
        assert full - base > 8 * ROWS
        assert lean - base < 64 << 10, (workers, base, lean)


def test_the_verdict_alone_is_the_full_walks_verdict(tmp_path):
    p = tmp_path / "mixed.jsonl"
    _ledger(p, 3000, broken=False)
    lines = p.read_bytes().split(b"\n")
    for i in (10, 11, 1500, 2999):  # breaks in several ranges
        lines[i] = lines[i].replace(b'"i": ', b'"i": 7')
    p.write_bytes(b"\n".join(lines))
    for workers, chunk in ((1, None), (3, 4 << 10)):
        full = L.verify(p, workers=workers, chunk_bytes=chunk)
        lean = L.verify(p, workers=workers, chunk_bytes=chunk, all_findings=False)
        assert lean == L.VerifyResult(**{**full.__dict__, "findings": lean.findings})
        assert lean.to_dict() == full.to_dict() and lean.breaks == full.breaks > 1
        assert list(lean.findings) == [full.findings[0]]


def test_a_walk_state_keeps_its_findings_compactly(tmp_path):
    """The state a follower keeps (and the viewer's verify child hands over, pickled)
    holds every finding in a few bytes, not a tuple of strings each."""
    import pickle

    p = tmp_path / "broken.jsonl"
    _ledger(p, ROWS, broken=True)
    data = p.read_bytes()
    state = L.walk_span(data, strict=False, cut=len(data)).state
    assert isinstance(state.findings, L.Findings) and len(state.findings) == ROWS
    assert state.findings[-1] == L.Finding(ROWS, "break", f"line {ROWS}: chain mismatch")
    assert len(pickle.dumps(state)) < 16 * ROWS
    again = L.walk_span(data, strict=False, cut=len(data), state=state)  # resumed
    assert again.result == L.state_result(state) and again.result.breaks == ROWS
