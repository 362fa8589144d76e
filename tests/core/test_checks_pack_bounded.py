"""core.checks.pack: bounded work. Blank lines in records.jsonl are skipped in bulk,
never parsed, by every check (the count of JSON parses does not grow with them), and
a pack's memory does not grow with its records (each records pass is streamed)."""

from __future__ import annotations

import hashlib
import json
import tracemalloc
import zipfile
from pathlib import Path

import pytest
from arcaeon.prove.evidence_pack import build_pack
from arcaeon.record.ledger import Ledger
from sealscope.core.checks import pack
from sealscope.core.checks.result import CheckContext

BUILT_AT = "2030-01-01T00:00:00Z"


def _pack(tmp: Path, rows: int, pad: int, name: str = "p") -> Path:
    led, out = tmp / f"{name}.jsonl", tmp / name
    L = Ledger(led)
    for i in range(rows):
        row = {"evt": "tool_call", "agent": "wren", "n": i, "pad": "x" * pad}
        L.append({**row, "ts": "2026-10-06T08:20Z"})
    build_pack(led, out, system_id="s", provider="p", formats=("aat",), built_at=BUILT_AT)
    return out


def _relist(out: Path, name: str) -> None:
    m = json.loads((out / "manifest.json").read_text())
    m["files"][name] = hashlib.sha256((out / name).read_bytes()).hexdigest()
    (out / "manifest.json").write_text(json.dumps(m, indent=2) + "\n")
    digest = hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()
    (out / "manifest.sha256").write_text(f"{digest}  manifest.json\n")


def _zip(folder: Path) -> Path:
    z = folder.with_suffix(".zip")
    with zipfile.ZipFile(z, "w", zipfile.ZIP_DEFLATED) as zf:
        for f in sorted(folder.iterdir()):
            zf.write(f, f.name)
    return z


def _parses(path: Path, monkeypatch) -> tuple[str, int]:
    """The pack's word and how many times the JSON parser was called on the way."""
    calls = 0
    real = json.loads

    def counting(*args, **kw):
        nonlocal calls
        calls += 1
        return real(*args, **kw)

    with monkeypatch.context() as m:
        m.setattr(json, "loads", counting)
        word = pack.check(str(path), CheckContext()).word
    return word, calls


@pytest.mark.parametrize("as_zip", [False, True])
def test_blank_lines_are_never_parsed(tmp_path, monkeypatch, as_zip):
    """The same pack with 200,000 blank lines after its records (hash re-listed): every
    check runs over them, and the parser is called exactly as often as without them
    (the old reader parsed each blank line three times)."""
    plain = _pack(tmp_path, 3, 10, "plain")
    blank = _pack(tmp_path, 3, 10, "blank")
    rec = blank / "records.jsonl"
    rec.write_bytes(rec.read_bytes() + b"\n" * 100_000 + b"  \r\n" * 100_000)
    _relist(blank, "records.jsonl")
    for p in (plain, blank):
        (p / "aat_gaps.json").write_bytes(b"{}")  # both differ alike: one more parse-free path
        _relist(p, "aat_gaps.json")
    a, b = (_zip(plain), _zip(blank)) if as_zip else (plain, blank)
    word_plain, parses_plain = _parses(a, monkeypatch)
    word_blank, parses_blank = _parses(b, monkeypatch)
    assert word_plain == word_blank == "BROKEN"
    assert parses_blank == parses_plain < 200


@pytest.mark.parametrize("as_zip", [False, True])
def test_a_packs_memory_does_not_grow_with_its_records(tmp_path, as_zip):
    """An honest pack whose records.jsonl (and window) are 12 MB: the check's peak of
    traced memory stays under 8 MiB, the blocks a stream reads at once (the old reader
    held the records whole, split into lines, and the window too: several times
    their size)."""
    out = _pack(tmp_path, 1500, 8000)
    size = (out / "records.jsonl").stat().st_size
    assert size > 12_000_000
    path = _zip(out) if as_zip else out
    tracemalloc.start()
    try:
        got = pack.check(str(path), CheckContext())
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert got.word == "VERIFIED", got.reason
    assert peak < 8 << 20, (peak, size)


def _random_records(rng) -> bytes:
    from sealscope.core import ledger as L

    pieces = [b"", b"\n", b"  \n", b"\r\n", b"x\n", b"[1]\n", b'{"a": 1}\n', b"\xff\n", b"\x0c\n"]
    out = bytearray()
    rows = []
    import tempfile as _t

    with _t.TemporaryDirectory() as d:
        p = Path(d) / "l.jsonl"
        for i in range(rng.randint(0, 6)):
            L.append(p, {"i": i, "ts": "2026-10-06T08:20:00Z", "agent": rng.choice(["a", "b"])})
        rows = p.read_bytes().splitlines(keepends=True) if p.exists() else []
    for r in rows:
        out += rng.choice(pieces) * rng.randint(0, 3) + r
    if rng.random() < 0.2:
        out += b'{"evt": "chain_break_declared", "line": 2, "why": "x"}\n'
    out += rng.choice(pieces)
    if rng.random() < 0.3:
        out = out.rstrip(b"\n")
    return bytes(out)


def test_the_streamed_passes_read_what_the_whole_file_reads():
    """The chain walk streamed equals the walk of the bytes held whole; the lines
    not blank are those of a plain LF split, with the same numbers."""
    import io
    import random

    from sealscope.core import ledger as L
    from sealscope.core.checks import pack_records as PR

    rng = random.Random(40)
    for _ in range(300):
        raw = _random_records(rng)
        size = rng.choice([1, 7, 64, 1 << 20])
        chunks = [raw[i : i + size] for i in range(0, len(raw), size)]
        got = list(PR.nonblank_lines(chunks, total := []))
        parts = raw.split(b"\n")
        if parts and parts[-1] == b"":
            parts.pop()
        assert got == [(n, x) for n, x in enumerate(parts, 1) if x.strip()], raw
        assert total == [len(parts)]
        assert PR.verify_stream(lambda raw=raw: io.BytesIO(raw), 1 << 30) == L.verify_bytes(raw)
