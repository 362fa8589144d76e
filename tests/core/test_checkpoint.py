"""Checkpoints: a resumed verification equals a full one, field for field, and a
changed, shrunk or replaced prefix is always caught."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from arcaeon.record import ledger as ref_ledger
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from sealscope.core import checkpoint as C
from sealscope.core import chunk_digest
from sealscope.core import ledger as L

FIELDS = (
    "ok",
    "rows",
    "chained",
    "prechain",
    "first_break",
    "breaks",
    "verified_scope",
    "declared_breaks",
    "declared",
)


def _row(i: int, draw) -> dict:
    return {"i": i, "text": draw(st.sampled_from(["a", "é", "東京", "x" * 40])), "ts": "t"}


@st.composite
def growing(draw):
    """Ledger bytes with breaks, declared breaks (some naming earlier lines, some
    stale), prechain rows, CRLF and garbage, plus two cut points anywhere in it."""
    lines: list[str] = [json.dumps({"legacy": i}) for i in range(draw(st.integers(0, 2)))]
    prev = L.GENESIS
    for i in range(draw(st.integers(1, 14))):
        op = draw(
            st.sampled_from(
                ["row"] * 6
                + [
                    "edit",
                    "unchained",
                    "nullchain",
                    "intchain",
                    "garbage",
                    "array",
                    "blank",
                    "dupkey",
                    "declare",
                    "crlf",
                    "genesis",
                ]
            )
        )
        if op == "row" or op == "edit" or op == "crlf" or op == "dupkey":
            r = _row(i, draw)
            r["chain"] = prev = L.link(prev, r)
            text = json.dumps(r, ensure_ascii=False)
            if op == "edit":
                text = text.replace('"i": ', '"i": 1', 1)
            elif op == "crlf":
                text += "\r"
            elif op == "dupkey":
                text = '{"ts": "x", ' + text[1:]
            lines.append(text)
        elif op == "genesis":  # an honest writer after an unchained tail: from genesis
            r = _row(i, draw)
            r["chain"] = prev = L.link(L.GENESIS, r)
            lines.append(json.dumps(r, ensure_ascii=False))
        elif op == "unchained":
            lines.append(json.dumps({"note": f"hand {i}"}))
        elif op == "nullchain":
            lines.append(json.dumps({"inj": i, "chain": None}))
        elif op == "intchain":
            lines.append(json.dumps({"inj": i, "chain": 7}))
            prev = ""
        elif op == "garbage":
            lines.append("{oops")
        elif op == "array":
            lines.append("[1, 2]")
        elif op == "blank":
            lines.append("  ")
        elif op == "declare" and lines:
            orphan = draw(st.integers(1, len(lines) + 2))
            body = lines[orphan - 1] if orphan <= len(lines) else ""
            sha = hashlib.sha256(body.strip().encode("utf-8", "surrogatepass")).hexdigest()
            if draw(st.integers(0, 4)) == 0:
                sha = "0" * 64
            d = {
                "op": L.DECLARE_OP,
                "orphan_line": orphan,
                "orphan_sha256": sha,
                "why": draw(st.sampled_from(["incident", "hand edit"])),
                "ts": "t",
            }
            if draw(st.booleans()):
                d["resume_prev"] = draw(st.sampled_from(["", L.GENESIS, prev or "x"]))
            d["chain"] = prev = L.link(prev, d) if draw(st.booleans()) else "bogus"
            lines.append(json.dumps(d))
    data = ("\n".join(lines) + ("\n" if draw(st.booleans()) else "")).encode("utf-8")
    a = draw(st.integers(0, len(data)))
    b = draw(st.integers(a, len(data)))
    return data, a, b


def _ref_cut(data: bytes) -> int:
    """The end of the last line whose break can no longer change (a last `\\r` may
    still become `\\r\\n`)."""
    for p in range(len(data), 0, -1):
        if data[p - 1 : p] == b"\n" or (data[p - 1 : p] == b"\r" and p < len(data)):
            return p
    return 0


@pytest.mark.parametrize(
    "data",
    [
        b"a" * 200_000,
        b"a\n" + b"b" * 200_000,
        b"x\r" + b"y" * 100_000 + b"\r",
        b"x\r\n" + b"y" * 70_000,
        b"\r" * 3,
        b"",
        b"\n",
        b"z" * 65_535 + b"\r" + b"q" * 65_536,
    ],
)
def test_line_cut_across_read_blocks(data):
    assert C.line_cut(data, 0, len(data)) == _ref_cut(data)


def _chunk_digests(data: bytes) -> list[str]:
    """The chunk digests of `data`, by hashlib alone."""
    n = chunk_digest.CHUNK
    return [hashlib.sha256(data[a : a + n]).hexdigest() for a in range(0, len(data), n)]


def _run(p: Path, cp: Path, strict: bool) -> C.Incremental:
    return C.verify_incremental(p, strict=strict, checkpoint=cp)


@settings(
    max_examples=400,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=growing(), strict=st.booleans(), chunk=st.sampled_from([64 << 20, 256, 97]))
def test_resumed_equals_full_walk(tmp_path, monkeypatch, case, strict, chunk):
    """Grow a file in three steps (cut anywhere, even mid-line or between \\r and \\n);
    each step resumes the last checkpoint and must equal a full walk in every field,
    and the full walk equals the reference. With small chunks the prefix spans many,
    so its whole chunks, the partial one it ends in and the new ones are all checked
    and carried on."""
    monkeypatch.setattr(chunk_digest, "CHUNK", chunk)
    data, a, b = case
    p, cp = tmp_path / "l.jsonl", tmp_path / "cp.json"
    cp.unlink(missing_ok=True)
    for k in (a, b, len(data)):
        p.write_bytes(data[:k])
        had = cp.exists()
        inc = _run(p, cp, strict)
        full = L.verify(p, strict=strict, workers=1)
        assert inc.result == full
        assert inc.change is None and inc.saved
        doc = C.Checkpoint.from_json(cp.read_bytes())
        # the checkpoint ends at a line break that can no longer change
        assert doc.length == _ref_cut(data[:k])
        assert doc.length == 0 or data[doc.length - 1 : doc.length] in (b"\n", b"\r")
        assert doc.length == 0 or data[doc.length - 1 : doc.length + 1] != b"\r\n"
        assert list(doc.chunks) == _chunk_digests(data[: doc.length])
        assert doc.state.lines == data[: doc.length].replace(b"\r\n", b"\n").replace(
            b"\r", b"\n"
        ).count(b"\n")
        if had and inc.resumed is None:  # resumed unless a declaration re-decides
            assert any("walked again from the start" in n for n in inc.notes)
            event("walked again: a later declaration names an earlier break")
        elif had:
            event("resumed after breaks" if inc.resumed and doc.state.breaks else "resumed")
    ref = ref_ledger.verify_file(p, strict=strict)
    assert full.to_dict() == {k: getattr(ref, k) for k in FIELDS}


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    case=growing(),
    strict=st.booleans(),
    how=st.sampled_from(["flip", "truncate", "replace"]),
    where=st.integers(0, 10**6),
)
def test_changed_prefix_is_always_caught(tmp_path, case, strict, how, where):
    """Tampered, truncated and replaced prefixes are BROKEN, whatever a full walk says,
    and the checkpoint is kept so the next run says so again."""
    data, a, _b = case
    p, cp = tmp_path / "l.jsonl", tmp_path / "cp.json"
    cp.unlink(missing_ok=True)
    p.write_bytes(data)
    _run(p, cp, strict)
    n = C.Checkpoint.from_json(cp.read_bytes()).length
    if n == 0:
        return
    if how == "flip":
        i = where % n
        new = data[:i] + bytes([data[i] ^ (1 + where % 255)]) + data[i + 1 :]
    elif how == "truncate":
        new = data[:a] if a < n else data[: n - 1]
    else:
        new = data.replace(b"\n", b" \n", 1) if b"\n" in data[:n] else b"x" + data
    p.write_bytes(new)
    for _ in range(2):
        inc = _run(p, cp, strict)
        assert inc.result.ok is False and inc.change in ("changed", "shrank")
        assert inc.result.first_break.startswith(
            "checkpoint: file shrank from"
            if len(new) < n
            else "checkpoint: prefix changed in bytes"
        )
        full = L.verify(p, strict=strict, workers=1)
        assert inc.result.rows == full.rows and inc.result.breaks == full.breaks + 1
        assert not inc.saved


def test_cut_at_a_line_boundary_is_broken_though_it_walks_clean(tmp_path):
    p, cp = tmp_path / "l.jsonl", tmp_path / "cp.json"
    for i in range(10):
        L.append(p, {"i": i, "ts": "t"})
    size = p.stat().st_size
    assert C.verify_incremental(p, checkpoint=cp).result.ok is True
    lines = p.read_bytes().splitlines(keepends=True)
    p.write_bytes(b"".join(lines[:7]))
    assert L.verify(p).ok is True
    inc = C.verify_incremental(p, checkpoint=cp)
    assert inc.change == "shrank" and inc.result.ok is False
    assert (
        inc.result.first_break
        == f"checkpoint: file shrank from {size:,} to {p.stat().st_size:,} bytes"
    )
    assert inc.result.findings[0] == L.Finding(0, "break", inc.result.first_break)
    assert "the full walk alone finds no break" in inc.notes[0]


def test_rechained_rewrite_names_the_first_changed_chunk(tmp_path, monkeypatch):
    """With 256-byte chunks, a row rewritten and re-chained from there on walks clean
    but the checkpoint names the chunk where the bytes changed."""
    monkeypatch.setattr(chunk_digest, "CHUNK", 256)
    p, cp = tmp_path / "l.jsonl", tmp_path / "cp.json"
    for i in range(30):
        L.append(p, {"i": i, "ts": "t"})
    C.verify_incremental(p, checkpoint=cp)
    doc = C.Checkpoint.from_json(cp.read_bytes())
    assert len(doc.chunks) == -(-doc.length // 256)
    rows = [json.loads(x) for x in p.read_text().splitlines()]
    rows[12]["i"] = 99
    p.unlink()
    for r in rows:
        r.pop("chain")
        L.append(p, r)
    assert L.verify(p).ok is True
    data = p.read_bytes()
    off = data.index(b'"i": 99')
    k = off // 256
    inc = C.verify_incremental(p, checkpoint=cp)
    span = f"{k * 256:,}–{(k + 1) * 256:,}"
    assert (
        inc.result.first_break
        == f"checkpoint: prefix changed in bytes {span} since it was verified"
    )
    assert inc.change == "changed"


def test_resume_walks_only_the_appended_bytes(tmp_path, monkeypatch):
    """After a checkpoint the walk starts at its offset: the prefix is hashed, not parsed."""
    p, cp = tmp_path / "l.jsonl", tmp_path / "cp.json"
    for i in range(20):
        L.append(p, {"i": i, "ts": "t"})
    C.verify_incremental(p, checkpoint=cp)
    n = p.stat().st_size
    for i in range(3):
        L.append(p, {"j": i, "ts": "t"})
    seen = []
    real = L._walk_lines

    def spy(w, buf, start, end, *a, **kw):
        seen.append((start, end))
        return real(w, buf, start, end, *a, **kw)

    monkeypatch.setattr(L, "_walk_lines", spy)
    inc = C.verify_incremental(p, checkpoint=cp)
    assert min(s for s, _e in seen) == n
    assert inc.resumed is not None
    assert (
        inc.resumed.sentence()
        == "rows 1..20 unchanged since checkpoint (prefix hash matched), 21..23 verified now"
    )
    assert inc.result == L.verify(p)


def test_declaration_after_the_checkpoint_for_an_earlier_break(tmp_path):
    """The declare_break workflow: a hand-appended row breaks the chain, is
    checkpointed broken, then declared; the resumed verdict equals the full one."""
    p, cp = tmp_path / "l.jsonl", tmp_path / "cp.json"
    for i in range(3):
        L.append(p, {"i": i, "ts": "t"})
    with p.open("a") as fh:
        fh.write('{"note": "hand-appended"}\n')
    L.append(p, {"i": 4, "ts": "t"})
    first = C.verify_incremental(p, checkpoint=cp)
    assert first.result.breaks == 2
    L.declare_break(p, 4, "appended by hand during an incident")
    inc = C.verify_incremental(p, checkpoint=cp)
    assert inc.result == L.verify(p)
    assert inc.result.to_dict()["verified_scope"] == "bounded_declared_break"
    assert inc.resumed is None and any("names line 4" in n for n in inc.notes)
    # a declaration for a line that did not break needs no second walk
    L.declare_break(p, 2, "nothing happened here")
    again = C.verify_incremental(p, checkpoint=cp)
    assert again.resumed is not None and again.result == L.verify(p)
    assert C.verify_incremental(p, checkpoint=cp, strict=True).result == L.verify(p, strict=True)


@pytest.mark.parametrize(
    "mutate,words",
    [
        (lambda d: b"{not json", "unreadable (not JSON"),
        (
            lambda d: d.replace(C.RULES.encode(), b"sealscope-walk/0 (arcaeon 0.9)"),
            "made by rules 'sealscope-walk/0 (arcaeon 0.9)'",
        ),
        (lambda d: d.replace(b'"path": "', b'"path": "/elsewhere'), "it is for another file"),
        (lambda d: d.replace(b'"prev": "', b'"prev": 5, "x": "'), "walk state: `prev` is not str"),
    ],
)
def test_bad_checkpoints_are_ignored_with_a_note(tmp_path, mutate, words):
    p, cp = tmp_path / "l.jsonl", tmp_path / "cp.json"
    for i in range(5):
        L.append(p, {"i": i, "ts": "t"})
    C.verify_incremental(p, checkpoint=cp)
    cp.write_bytes(mutate(cp.read_bytes()))
    inc = C.verify_incremental(p, checkpoint=cp)
    assert inc.resumed is None and inc.result == L.verify(p)
    if words.startswith("unreadable (not JSON"):  # not a checkpoint: never replaced (issue 32)
        assert not inc.saved and cp.read_bytes() == b"{not json"
        return
    assert len(inc.notes) == 1 and words in inc.notes[0]
    assert inc.notes[0].endswith("verified in full")
    assert inc.saved  # replaced by a good one
    assert C.verify_incremental(p, checkpoint=cp).resumed is not None


@pytest.mark.parametrize("now", [b"", b"\n", b'\n{"i": 9, "ts": "t"}\n'])
def test_a_prefix_ending_in_a_lone_cr_whose_next_byte_changed_is_walked_again(tmp_path, now):
    """Rows ending in lone \\r: the checkpoint was cut after the last one because the
    byte after it was not \\n. With that byte gone, or now a \\n (so the \\r is half of
    a CRLF), the saved state no longer fits: the run equals a full walk, says why,
    and its new checkpoint resumes."""
    p, cp = tmp_path / "l.jsonl", tmp_path / "cp.json"
    for i in range(3):
        L.append(p, {"i": i, "ts": "t"})
    rows = p.read_bytes().replace(b"\n", b"\r")
    p.write_bytes(rows + b'{"i": 3')
    assert C.verify_incremental(p, checkpoint=cp).saved
    assert C.Checkpoint.from_json(cp.read_bytes()).length == len(rows)
    p.write_bytes(rows + now)
    inc = C.verify_incremental(p, checkpoint=cp)
    assert inc.result == L.verify(p) and inc.resumed is None and inc.saved
    gone = "gone" if not now else "a \\n"
    why = f"the checkpoint's prefix ends in a lone \\r and the byte after it is now {gone}"
    assert inc.notes == (f"{why}; walked again from the start",)
    again = C.verify_incremental(p, checkpoint=cp)
    assert again.result == L.verify(p) and again.resumed is not None


def test_an_older_format_is_verified_in_full_then_rewritten(tmp_path):
    """A checkpoint of the format before chunk-only prefixes (one digest of the whole
    prefix) is not resumed: verified in full, said so, replaced by this format's
    (even at a path the user named), which the next run resumes."""
    p, cp = tmp_path / "l.jsonl", tmp_path / "cp.json"
    for i in range(5):
        L.append(p, {"i": i, "ts": "t"})
    C.verify_incremental(p, checkpoint=cp)
    doc = json.loads(cp.read_bytes())
    doc["format"] = "sealscope-checkpoint/1"
    doc["sha256"] = hashlib.sha256(p.read_bytes()[: doc["length"]]).hexdigest()
    cp.write_text(json.dumps(doc))
    L.append(p, {"i": 5, "ts": "t"})
    inc = C.verify_incremental(p, checkpoint=cp)
    assert inc.resumed is None and inc.result == L.verify(p) and inc.saved
    older = "it is of an older format (sealscope-checkpoint/1)"
    assert inc.notes == (f"checkpoint {cp} not resumed: {older}; verified in full, then rewritten",)
    assert json.loads(cp.read_bytes())["format"] == C.FORMAT == "sealscope-checkpoint/2"
    again = C.verify_incremental(p, checkpoint=cp)
    assert again.resumed is not None and again.result == L.verify(p)


def test_forget_removes_an_older_format_and_nothing_else(tmp_path):
    p, cp = tmp_path / "l.jsonl", tmp_path / "cp.json"
    L.append(p, {"i": 0, "ts": "t"})
    cp.write_text(json.dumps({"format": "sealscope-checkpoint/1"}))
    assert C.forget(p, checkpoint=cp)[0] is True and not cp.exists()
    cp.write_text("[" * 100_000)  # deeper than any parser's stack: left, no crash
    assert C.forget(p, checkpoint=cp) == (
        False,
        f"{cp} is not a sealscope checkpoint: left in place",
    )


def test_default_location_is_the_cache_never_beside_the_evidence(tmp_path, monkeypatch):
    ev = tmp_path / "evidence"
    ev.mkdir()
    p = ev / "l.jsonl"
    for i in range(3):
        L.append(p, {"i": i, "ts": "t"})
    before = sorted(os.listdir(ev))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    inc = C.verify_incremental(p)
    assert sorted(os.listdir(ev)) == before
    where = Path(inc.checkpoint)
    assert where.parent == tmp_path / "cache" / "sealscope" / "checkpoints"
    assert where.name == hashlib.sha256(str(p.resolve()).encode()).hexdigest()[:32] + ".json"
    assert [x.name for x in where.parent.iterdir()] == [where.name]  # no temp file left
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/ignored")
    assert C.cache_dir() == Path.home() / ".cache" / "sealscope" / "checkpoints"


def test_parallel_resume_equals_single_pass(tmp_path):
    """A resume whose appended part is split across worker ranges merges exactly."""
    p, cp = tmp_path / "l.jsonl", tmp_path / "cp.json"
    with p.open("w") as fh:
        fh.write('{"legacy": 1}\n')
    for i in range(30):
        L.append(p, {"i": i, "ts": "t"})
    C.verify_incremental(p, checkpoint=cp)
    with p.open("a") as fh:
        fh.write('{"note": "hand"}\n{oops\n')
    for i in range(30):
        L.append(p, {"i": i, "ts": "t"})
    with open(p, "rb") as fh:
        buf = L._lines.FileSource(fh)
        state = C.Checkpoint.from_json(cp.read_bytes()).state
        cut = C.line_cut(buf, 0, len(buf))
        merged = L.walk_span(buf, strict=False, cut=cut, state=state, workers=2, chunk_bytes=300)
    assert merged.result == L.verify(p, workers=1)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(case=growing(), strict=st.booleans(), chunk=st.integers(1, 300))
def test_resumed_range_merge_equals_single_pass(tmp_path, case, strict, chunk):
    """Resuming with the appended part split into worker ranges (run in-process here)
    merges into exactly one sequential pass, whatever the ranges cut through."""
    data, a, _b = case
    p = tmp_path / "l.jsonl"
    p.write_bytes(data)
    with open(p, "rb") as fh:
        buf = L._lines.FileSource(fh)
        cut = _ref_cut(data[:a])
        state = L.walk_span(buf, strict=strict, cut=cut).state
        later = L._scan_declarations(buf, cut, state.lines + 1)
        if not strict and L._redecided(state, later):
            return
        declared = {**state.declared, **later}
        w = L._Walk.resume(state, declared)
        n = L._walk_parallel(
            buf,
            cut,
            len(buf),
            True,
            w,
            state.lines,
            2,
            chunk,
            None,
            run_jobs=L._serial_runner,
        )
        assert L._finish(w, strict, declared, n) == L.verify(p, strict=strict, workers=1)
