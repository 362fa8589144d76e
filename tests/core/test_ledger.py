"""The ledger verifier and writer against exact vectors and, differentially, against
arcaeon 0.10.0's verify_file (the oracle)."""

from __future__ import annotations

import hashlib
import json
import os

import pytest
from arcaeon.record import ledger as ref_ledger
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sealscope.core import ledger as L
from sealscope.core import lines as _lines
from sealscope.core import walk
from sealscope.core.digest import digest_bytes, digest_json

from tests.core.fifo_helpers import returns

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


def ref_dict(path, strict=False) -> dict:
    r = ref_ledger.verify_file(path, strict=strict)
    return {k: getattr(r, k) for k in FIELDS}


def ours(path, strict=False, **kw) -> dict:
    return L.verify(path, strict=strict, **kw).to_dict()


# ------------------------------------------------------------------ exact vectors


def test_chain_worked_example():
    assert (
        L.link("genesis", {"tool": "search", "ts": "2026-01-01T00:00:00Z"})
        == "521464f557d9d628540fb5281a04c007"
    )
    assert L.link("genesis", {}) == "62d75a2d0701296e6e7ccfb578a9d8a5"


@pytest.mark.parametrize(
    "value,expected",
    [
        ({"b": 2, "a": 1}, "43258cff783fe7036d8a43033f830adfc60ec037382473548ac742b888292777"),
        (
            {"claim": "X said Y", "unicode": "éü—🔒"},
            "03b6bc1350e72d1da527a6c729dd8bb3be1b0f8dd3e82000da68d32e21cc2cf6",
        ),
        (
            [1, "two", None, True, {"k": [3.5]}],
            "bc0d62567f92e63b16aa724fb3d17141713d486780f41458197d8f7d539f33d5",
        ),
        ([], "4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"),
        ({}, "44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a"),
    ],
)
def test_json_c14n_golden(value, expected):
    assert digest_json(value) == "sha256:json-c14n:v1:" + expected


def test_raw_bytes_golden():
    assert (
        digest_bytes(b"arcaeon selftest vector 1")
        == "sha256:raw-bytes:v1:45050994979709443a05e8a31cac09bbbae7074cd6887b6c31f83b775a2b8651"
    )


@pytest.mark.parametrize("bad", [{"bad": float("nan")}, ["\ud800"], {"x": float("inf")}])
def test_json_c14n_refuses(bad):
    with pytest.raises(ValueError):
        digest_json(bad)


# ------------------------------------------------------------------ writer


def test_append_writes_the_reference_bytes(tmp_path):
    ours_p, ref_p = tmp_path / "ours.jsonl", tmp_path / "ref.jsonl"
    rows = [
        {"tool": "search", "query": "weather", "ts": "2026-01-01T00:00:00Z"},
        {
            "tool": "fetch",
            "url": "https://example.com",
            "ts": "2026-01-01T00:00:05Z",
            "nan": float("nan"),
            "u": "é\u2028x",
        },
        {"note": "no ts here", "chain": "caller chain is dropped", "ts": None},
    ]
    auth = L.authority("agent-7", tool_schema={"name": "fetch"})
    ref = ref_ledger.Ledger(ref_p)
    for r in rows:
        assert L.append(ours_p, r, authority=auth) == ref.append(r, authority=auth)
    assert ours_p.read_bytes() == ref_p.read_bytes()
    assert auth == {
        "principal": "agent-7",
        "time_source": "local",
        "tool_schema_hash": "bf8697dbad972d18",
    }
    assert L.verify(ours_p).ok is True


def test_append_heals_missing_newline_and_refuses_lone_surrogate(tmp_path):
    p = tmp_path / "l.jsonl"
    L.append(p, {"a": 1, "ts": "t"})
    with p.open("ab") as fh:
        fh.write(b'{"torn": ')
    L.append(p, {"b": 2, "ts": "t"})
    lines = p.read_bytes().split(b"\n")
    assert lines[1] == b'{"torn": ' and lines[2].startswith(b'{"b": 2')
    before = p.read_bytes()
    with pytest.raises(UnicodeEncodeError):
        L.append(p, {"bad": "\ud800"})
    assert p.read_bytes() == before
    assert ours(p) == ref_dict(p)


def test_declare_break_cycle_matches_reference(tmp_path):
    p = tmp_path / "d.jsonl"
    for i in (1, 2):
        L.append(p, {"step": i, "ts": "t"})
    with p.open("a") as fh:
        fh.write('{"note": "hand-appended"}\n')
    L.append(p, {"step": 4, "ts": "t"})
    assert ours(p) == ref_dict(p)
    row = L.declare_break(p, 3, "  appended by hand during an incident ")
    assert row["orphan_sha256"] == hashlib.sha256(b'{"note": "hand-appended"}').hexdigest()
    assert row == {
        "op": "chain_break_declared",
        "orphan_line": 3,
        "orphan_sha256": row["orphan_sha256"],
        "why": "appended by hand during an incident",
        "chain": L.tail_chain(p),
    }
    got = ours(p)
    assert got == ref_dict(p)
    assert got["ok"] is None and got["verified_scope"] == "bounded_declared_break"
    assert got["declared"] == ["line 3: declared break (appended by hand during an incident)"]
    assert ours(p, strict=True) == ref_dict(p, strict=True)
    with pytest.raises(ValueError, match="blank"):
        p2 = tmp_path / "blank.jsonl"
        p2.write_text('{"a": 1}\n\n')
        L.declare_break(p2, 2, "why")


def test_tail_chain_follows_the_verifier_on_cr_only_files(tmp_path):
    """arcaeon's tip reader splits on LF only, so an honest CR-only file pins as
    `genesis` and later reads `rewritten`; ours reads the last row's chain."""
    p = tmp_path / "cr.jsonl"
    for i in range(3):
        L.append(p, {"i": i, "ts": "t"})
    p.write_bytes(p.read_bytes().replace(b"\n", b"\r"))
    assert L.verify(p).ok is True
    last = json.loads(p.read_bytes().split(b"\r")[-2])["chain"]
    assert L.tail_chain(p) == last
    assert L.tail_chain(p, reference_split=True) == ref_ledger.Ledger(p)._last_chain()


def test_chain_at_matches_reference(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_text('{"a":1}\n[1]\n\n{bad\n{"b":2,"chain":5}\n')
    for n in range(-1, 5):
        assert L.chain_at(p, n) == ref_ledger.chain_at(p, n)
    assert L.chain_at(tmp_path / "missing", 1) is None


# ------------------------------------------------------------------ hostile files

HOSTILE = {
    "deep-100k": b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "deep-obj": b'{"a":' * 5000 + b"1" + b"}" * 5000 + b"\n",
    "nan-tokens": b'{"x": NaN, "y": Infinity, "z": -Infinity, "chain": "00"}\n',
    "lone-surrogate": b'{"x": "\\ud800", "ts": "t"}\n',
    "invalid-utf8": b'{"x": "\xff\xfe"}\n\xc3\x28\n',
    "bom": b'\xef\xbb\xbf{"a": 1}\n',
    "crlf-and-cr": b'{"a": 1}\r\n{"b": 2}\r{"c": 3}',
    "u2028-inside": '{"a": "x\u2028y\u0085z"}\n'.encode(),
    "u2028-as-separator": '{"a": 1}\u2028{"b": 2}\n'.encode(),
    "big-int": b'{"n": 123456789012345678901234567890, "m": -0, "f": 1E5, "g": 1e400}\n',
    "duplicate-keys": b'{"a": 1, "a": 2, "b": {"x": 1, "x": 2}}\n[{"k": 1, "k": 1}]\n',
    "garbage": bytes(range(256)) * 40,
    "nul-bytes": b"\x00" * 100 + b"\n" + b'{"a": 1}\x00\n',
    "nbsp-padded": '\u00a0{"a": 1}\u00a0\n\u3000\n'.encode(),
    "digits-limit": b'{"n": ' + b"9" * 5000 + b"}\n",
    "whitespace-only-ends": b' \t{"a": 1} \x0b\x0c\n\x1c{"b": 1}\x1f\n',
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
@pytest.mark.parametrize("strict", [False, True])
def test_hostile_files_match_reference(tmp_path, name, strict):
    p = tmp_path / f"{name}.jsonl"
    p.write_bytes(HOSTILE[name])
    assert ours(p, strict) == ref_dict(p, strict)


def test_five_megabyte_row(tmp_path):
    p = tmp_path / "big.jsonl"
    L.append(p, {"blob": "x" * 5_000_000, "ts": "t"})
    L.append(p, {"after": True, "ts": "t"})
    assert ours(p) == ref_dict(p) == {**ours(p), "ok": True}


def test_unreadable_paths(tmp_path):
    assert ours(tmp_path) == ref_dict(tmp_path)
    assert ours(tmp_path / "missing") == ref_dict(tmp_path / "missing")
    r = L.verify(tmp_path)
    assert r.unreadable and r.verdict == "COULD NOT LOOK"
    assert r.first_break.startswith("unreadable: [Errno 21] Is a directory")


def test_declare_break_and_verify_refuse_a_fifo_without_blocking(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    came_back, got = returns(lambda: L.declare_break(fifo, 1, "why"), fifo)
    assert came_back, "declare_break blocked on a FIFO"
    assert isinstance(got, ValueError)
    assert str(got) == f"cannot read {fifo}: not a regular file: '{fifo}'"
    came_back, got = returns(lambda: L.verify(fifo, workers=2), fifo)
    assert came_back, "verify blocked on a FIFO"
    assert got.verdict == "COULD NOT LOOK" and "not a regular file" in got.first_break


@pytest.mark.parametrize("errors", ["strict", "replace"])
def test_read_text_reads_as_path_read_text_does(tmp_path, errors):
    p = tmp_path / "t.txt"
    tail = b"\xff" if errors == "replace" else b"g"
    p.write_bytes(b"a\r\nb\rc\nd\xe2\x80\xa8e\x0cf\n\n" + tail)
    assert _lines.read_text(p, errors) == p.read_text(encoding="utf-8", errors=errors)
    assert "\r" not in _lines.read_text(p, errors)
    p.write_bytes(b"\xff")
    with pytest.raises(UnicodeDecodeError):
        _lines.read_text(p)


# ------------------------------------------------------------------ differential


def _honest_rows(draw, n):
    values = st.recursive(
        st.none()
        | st.booleans()
        | st.integers(-(2**70), 2**70)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(max_size=12),
        lambda c: st.lists(c, max_size=3) | st.dictionaries(st.text(max_size=5), c, max_size=3),
        max_leaves=6,
    )
    rows = []
    for i in range(n):
        keys = st.sampled_from(["kind", "tool", "text", "n", "é", "a\u2028b", "meta"])
        row = draw(st.dictionaries(keys, values, max_size=4))
        row["ts"] = f"2026-01-01T00:00:{i % 60:02d}Z"
        rows.append(row)
    return rows


@st.composite
def ledgers(draw):
    """Honest ledger bytes (optionally with legacy prechain rows and a declaration),
    then zero or more tamperings."""
    prechain = draw(st.integers(0, 2))
    rows = _honest_rows(draw, draw(st.integers(1, 7)))
    lines = [json.dumps({"legacy": i}) for i in range(prechain)]
    prev = L.GENESIS
    for r in rows:
        r = dict(r)
        r["chain"] = prev = L.link(prev, r)
        lines.append(json.dumps(r, ensure_ascii=False))
    for _ in range(draw(st.integers(0, 3))):
        op = draw(
            st.sampled_from(
                [
                    "edit",
                    "delete",
                    "swap",
                    "dupkey",
                    "truncate",
                    "garble",
                    "unchained",
                    "nullchain",
                    "intchain",
                    "blank",
                    "declare",
                    "crlf",
                    "array",
                ]
            )
        )
        if not lines:
            break
        i = draw(st.integers(0, len(lines) - 1))
        if op == "edit":
            if draw(st.booleans()):
                lines[i] = lines[i].replace('"', "'", 1)
            else:
                lines[i] = lines[i].replace("2026", "2027", 1)
        elif op == "delete":
            del lines[i]
        elif op == "swap" and len(lines) > 1:
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op == "dupkey" and lines[i].startswith("{") and len(lines[i]) > 2:
            lines[i] = '{"ts": "x", ' + lines[i][1:]
        elif op == "truncate":
            lines[i] = lines[i][: draw(st.integers(0, max(0, len(lines[i]) - 1)))]
        elif op == "garble":
            b = bytearray(lines[i].encode("utf-8", "surrogatepass"))
            if b:
                b[draw(st.integers(0, len(b) - 1))] = draw(st.integers(0, 255))
            lines[i] = b.decode("latin-1")  # re-encoded below byte for byte
            lines[i] = "\0LATIN1\0" + lines[i]
        elif op == "unchained":
            lines.insert(i, json.dumps({"inj": i}))
        elif op == "nullchain":
            lines.insert(i, json.dumps({"inj": i, "chain": None}))
        elif op == "intchain":
            lines.insert(i, json.dumps({"inj": i, "chain": 7}))
        elif op == "blank":
            lines.insert(i, "   ")
        elif op == "array":
            lines.insert(i, "[1, 2]")
        elif op == "crlf":
            lines[i] = lines[i] + "\r"
        elif op == "declare":
            orphan = draw(st.integers(1, len(lines) + 1))
            body = lines[orphan - 1] if orphan <= len(lines) else ""
            sha = hashlib.sha256(body.strip().encode("utf-8", "surrogatepass")).hexdigest()
            if draw(st.booleans()):
                sha = "0" * 64
            decl = {
                "op": "chain_break_declared",
                "orphan_line": orphan,
                "orphan_sha256": sha,
                "why": "incident",
                "ts": "t",
            }
            if draw(st.booleans()):
                decl["resume_prev"] = draw(st.sampled_from(["", "genesis", "abc"]))
            decl["chain"] = draw(st.sampled_from(["bogus", L.GENESIS]))
            lines.append(json.dumps(decl))
    out = bytearray()
    for ln in lines:
        if ln.startswith("\0LATIN1\0"):
            out += ln[len("\0LATIN1\0") :].encode("latin-1")
        else:
            out += ln.encode("utf-8", "surrogatepass")
        out += b"\n"
    return bytes(out)


@settings(
    max_examples=300,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=ledgers())
def test_verify_equals_reference(tmp_path, data):
    p = tmp_path / "l.jsonl"
    p.write_bytes(data)
    for strict in (False, True):
        assert ours(p, strict) == ref_dict(p, strict)


@settings(
    max_examples=200,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=ledgers())
def test_verify_without_the_c_accelerator_equals_reference(tmp_path, monkeypatch, data):
    """The pure-Python paths (orjson, then exact) alone give the same verdicts."""
    monkeypatch.setattr(walk, "_c_body", None)  # the walk reads it per row
    p = tmp_path / "l.jsonl"
    p.write_bytes(data)
    for strict in (False, True):
        assert ours(p, strict) == ref_dict(p, strict)


@settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=ledgers(), chunk=st.integers(1, 400), strict=st.booleans())
def test_parallel_merge_equals_single_pass(tmp_path, data, chunk, strict):
    """Range-split verification, merged, equals one sequential pass, whatever the
    boundaries cut through (breaks, declarations, prechain rows)."""
    p = tmp_path / "l.jsonl"
    p.write_bytes(data)
    single = L.verify(p, strict=strict, workers=1)
    with open(p, "rb") as fh:
        buf = _lines.FileSource(fh)
        decl = L._scan_declarations(buf)
        merged = L._verify_parallel(
            buf, len(buf), strict, decl, 2, chunk, None, run_jobs=L._serial_runner
        )
    if len(data):
        assert merged == single


def test_parallel_threads_equal_single_pass(tmp_path):
    """Real walk threads over a file with breaks, a declared break and prechain
    rows placed across many small ranges."""
    p = tmp_path / "mixed.jsonl"
    with p.open("w") as fh:
        fh.write('{"legacy": 1}\n{"legacy": 2}\n')
    for i in range(40):
        L.append(p, {"i": i, "ts": "t"})
    raw = p.read_bytes().split(b"\n")
    raw[10] = raw[10].replace(b'"i": 8', b'"i": 80')  # a mismatch
    raw.insert(20, b'{"note": "hand-appended"}')  # an unchained row
    raw.insert(30, b"{oops")
    p.write_bytes(b"\n".join(raw))
    L.declare_break(p, 21, "appended by hand")
    for strict in (False, True):
        single = L.verify(p, strict=strict, workers=1)
        multi = L.verify(p, strict=strict, workers=2, chunk_bytes=200)
        assert multi == single
        assert multi.to_dict() == ref_dict(p, strict)
    assert L.verify(p).verified_scope == "bounded_prechain_skipped+declared_break"


def test_progress_is_reported(tmp_path):
    p = tmp_path / "p.jsonl"
    for i in range(5):
        L.append(p, {"i": i, "ts": "t"})
    seen = []
    L.verify(p, on_progress=lambda d, t: seen.append((d, t)))
    size = p.stat().st_size
    assert seen and seen[-1] == (size, size)


_PIECE = st.binary(max_size=12).map(
    lambda b: b.replace(b"\n", b"x").replace(b"\r", b"y")
) | st.sampled_from([b"ab", b"\\u", b"a", b"b\\", b"", b"x ab ab"])


@settings(max_examples=300, deadline=None)
@given(st.lists(_PIECE, max_size=12))
def test_lines_holding_finds_exactly_the_lines_that_hold_a_needle(lines):
    want = [i for i, raw in enumerate(lines) if b"ab" in raw or b"\\u" in raw]
    assert _lines.lines_holding(lines, (b"ab", b"\\u")) == want


_BYTES = st.lists(
    st.sampled_from([b"a", b"\n", b"\r", b"\\", b"u", b"\\u", b"ab", b"ab\n", b"x"]), max_size=30
).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(_BYTES, st.booleans())
def test_window_holding_gives_what_split_and_lines_holding_give(data, final):
    lines = _lines.split_window(data, final)
    want = (len(lines), [(i, lines[i]) for i in _lines.lines_holding(lines, (b"ab", b"\\u"))])
    assert _lines.window_holding(data, final, (b"ab", b"\\u")) == want


def test_iter_rows_with_needles_numbers_lines_as_without(tmp_path):
    # mixed terminators, blank lines and more than one 8 MB window: the same (line, row)
    # pairs as reading every line
    rows = [
        b'{"kind": "compaction_receipt", "i": %d}' % i
        if i % 7 == 3
        else b'{"kind": "note", "i": %d, "pad": "%s"}' % (i, b"z" * (i * 9973 % 60000))
        for i in range(360)
    ]
    ends = [b"\n", b"\r\n", b"\r", b"\n\n"]
    p = tmp_path / "mixed.jsonl"
    p.write_bytes(b"".join(r + ends[i % 4] for i, r in enumerate(rows)))
    assert p.stat().st_size > _lines.WINDOW
    want = [(n, v) for n, v in L.iter_rows(p) if v.get("kind") == "compaction_receipt"]
    assert len(want) == 51 and want[0] == (4, {"kind": "compaction_receipt", "i": 3})
    assert list(L.iter_rows(p, needles=(b"compaction_receipt",))) == want


def test_iter_rows_with_needles_on_lf_only_windows_numbers_lines_as_without(tmp_path):
    # LF-only windows are searched in place (no split): the same (line, row) pairs
    rows = [
        b'{"kind": "compaction_receipt", "i": %d}' % i
        if i % 5 == 1
        else b'{"kind": "note", "i": %d, "pad": "%s"}' % (i, b"q" * (i * 7919 % 70000))
        for i in range(340)
    ]
    p = tmp_path / "lf.jsonl"
    p.write_bytes(b"\n".join(rows) + b"\n\n" + rows[1])  # a blank line, no final LF
    assert p.stat().st_size > _lines.WINDOW
    want = [(n, v) for n, v in L.iter_rows(p) if v.get("kind") == "compaction_receipt"]
    assert len(want) == 69 and want[-1] == (342, {"kind": "compaction_receipt", "i": 1})
    assert list(L.iter_rows(p, needles=(b"compaction_receipt", b"\\u"))) == want
