"""core.checks.aat: the AAT export's own chain, against the reference's verifier on
exports the reference writes from random ledgers, randomly tampered."""

from __future__ import annotations

import json
import math
import random
import struct
from pathlib import Path

import pytest
from arcaeon.prove.aat_export import chain_records, export_aat, map_row
from arcaeon.prove.aat_export import verify_aat_bytes as ref_verify
from arcaeon.prove.jcs import canonicalize
from arcaeon.record.ledger import Ledger
from sealscope.core.checks import aat
from sealscope.core.checks.aat_rebuild import ExportRebuild
from sealscope.core.checks.result import CheckContext

from tests.core.checks_cases import cases, run_case

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize("case", cases("check/aat-export/"), ids=lambda c: c["id"])
def test_conformance_case(case):
    run_case(case, aat.check)


def _ledger(rng: random.Random, path: Path) -> None:
    led = Ledger(path)
    for i in range(rng.randint(1, 8)):
        row = {
            "event": rng.choice(["tool_call", "decision", "session_end", "note"]),
            "agent": rng.choice(["wren", "kite/ü"]),
            "seq": i,
            "tool": rng.choice(["fetch", "write"]),
            "status": rng.choice(["ok", "error"]),
            "inputs": {"q": rng.random()},
            "text": rng.choice(["a", "ü", "x\ty", "é" * 9]),
        }
        led.append(row)


def _tamper(rng: random.Random, raw: bytes) -> bytes:
    lines = raw.split(b"\n")[:-1]
    op = rng.choice(
        [
            "byte",
            "delete",
            "swap",
            "crlf",
            "space",
            "no-final-lf",
            "blank",
            "dup-key",
            "zero-prev",
            "none",
        ]
    )
    k = rng.randrange(len(lines))
    if op == "byte":
        b = bytearray(lines[k])
        b[rng.randrange(len(b))] = rng.choice(b'0123456789abcdef"\xff')
        lines[k] = bytes(b)
    elif op == "delete":
        del lines[k]
    elif op == "swap" and len(lines) > 1:
        lines[0], lines[1] = lines[1], lines[0]
    elif op == "crlf":
        lines = [x + b"\r" for x in lines]
    elif op == "space":
        lines[k] = lines[k].replace(b",", b", ", 1)
    elif op == "no-final-lf":
        return b"\n".join(lines)
    elif op == "blank":
        lines.append(b"")
    elif op == "dup-key":
        lines[k] = lines[k][:-1] + b',"agent_id":"x"}'
    elif op == "zero-prev":
        lines[0] = lines[0].replace(b'"prev_hash":null', b'"prev_hash":"' + b"0" * 64 + b'"')
    return b"".join(x + b"\n" for x in lines)


def test_differential_against_the_reference_verifier(tmp_path):
    """60 exports the reference writes, each tampered at random: our verdict, line,
    records and head are the reference verifier's."""
    rng = random.Random(30)
    seen = set()
    for i in range(60):
        led, out = tmp_path / f"l{i}.jsonl", tmp_path / f"a{i}.jsonl"
        _ledger(rng, led)
        export_aat(led, out)
        raw = _tamper(rng, out.read_bytes())
        out.write_bytes(raw)
        want = ref_verify(raw)
        got = aat.check(str(out), CheckContext())
        assert got.ok is want["ok"]
        assert {k: v for k, v in got.detail.items() if k != "finding"} == {
            k: v for k, v in want.items() if k not in ("ok", "finding")
        }
        assert got.to_dict()["verdict"] == ("VERIFIED" if want["ok"] else "BROKEN")
        seen.add(want["ok"])
    assert seen == {True, False}


def test_an_honest_export_is_verified_where_verify_says_broken(tmp_path):
    led, out = tmp_path / "l.jsonl", tmp_path / "aat.jsonl"
    _ledger(random.Random(1), led)
    export_aat(led, out)
    got = aat.check(str(out), CheckContext()).to_dict()
    assert got["verdict"] == "VERIFIED" and got["exit_code"] == 0
    assert got["detail"]["records"] == len(out.read_bytes().splitlines())
    assert got["detail"]["head"] == ref_verify(out.read_bytes())["head"]


def test_jcs_numbers_are_the_references():
    rng = random.Random(7)
    for _ in range(20000):
        x = struct.unpack("<d", rng.randbytes(8))[0]
        if math.isfinite(x):
            assert aat.jcs(x) == canonicalize(x), x
    for x in (0.0, -0.0, 1.0, 1e21, 1e-7, 1e-6, 123456789012345680000.0, 5e-324, 2**53):
        assert aat.jcs(x) == canonicalize(x)
    with pytest.raises(aat.JcsError):
        aat.jcs(2**53 + 1)
    with pytest.raises(aat.JcsError):
        aat.jcs({"a": "\ud800"})
    assert aat.jcs({"b": 1, "a": '\u2028\x1f"', "\U0001f600": 0, "\uffff": 1}) == canonicalize(
        {"b": 1, "a": '\u2028\x1f"', "\U0001f600": 0, "\uffff": 1}
    )


def test_export_rule_is_the_references_on_random_rows():
    """The writer rule the pack's check 6 recomputes with: the same lines and head as
    the reference's mapping and chain, refusals left out alike."""
    rng = random.Random(11)
    values = [
        None,
        True,
        3,
        2**60,
        1.5,
        float("nan"),
        "x",
        "\ud800",
        {"a": 1},
        [1, float("inf")],
        "ok",
        "error",
        "enforce",
        "blocked",
        "tool_call",
        "decision",
        "session_end",
        "a b/ü",
    ]
    keys = [
        "ts",
        "agent",
        "system_id",
        "session",
        "evt",
        "event",
        "record_error",
        "tool",
        "args_digest",
        "result_digest",
        "inputs",
        "outputs",
        "action",
        "mandate_mode",
        "status",
        "seq",
        "seam",
        "seam_impl",
        "chain",
        "other",
    ]
    for _ in range(1500):
        rows = [
            json.dumps(
                {k: rng.choice(values) for k in rng.sample(keys, rng.randint(0, 8))},
                ensure_ascii=False,
            ).encode("utf-8", "surrogatepass")
            for _ in range(rng.randint(0, 5))
        ] + [b"not json", b"[1]", b"", b"  \r"][: rng.randint(0, 4)]
        try:
            recs = []
            for n, line in enumerate(rows, 1):
                try:
                    obj = json.loads(line.decode("utf-8"))
                except ValueError:
                    continue
                if isinstance(obj, dict):
                    recs.append(map_row(obj, line=n))
            lines, head, _refused = chain_records(recs)
            want: object = (lines, head)
        except TypeError as e:  # an unhashable `evt`: both raise
            want = type(e).__name__
        try:
            got: object = aat.export_lines(rows)
        except TypeError as e:
            got = type(e).__name__
        assert got == want, rows
        if isinstance(want, str):
            continue
        # the gaps file, rebuilt streamed, is the reference's byte for byte
        from arcaeon.prove.aat_export import (
            AAT_CHAIN_ALGORITHM,
            build_gaps,
            gaps_sidecar_bytes,
        )

        skipped = [n for n, line in enumerate(rows, 1) if not isinstance(_parsed(line), dict)]
        source = {"ok": rng.choice([True, False, None]), "rows": 3, "first_break": None}
        side = gaps_sidecar_bytes(
            "aat.jsonl",
            {"algorithm": AAT_CHAIN_ALGORITHM, "records": len(lines), "head": head},
            source,
            build_gaps(recs, _refused, skipped),
        )
        rebuilt = ExportRebuild()
        assert [x for n, line in enumerate(rows, 1) if (x := rebuilt.feed(n, line))] == lines
        assert b"".join(rebuilt.gaps_pieces("aat.jsonl", source)) == side, rows


def _parsed(line: bytes) -> object:
    try:
        return json.loads(line.decode("utf-8"))
    except ValueError:
        return None


@pytest.mark.parametrize(
    "raw, line",
    [
        (b"", None),
        (b"\n", None),
        (b"\n\n", 1),
        (b"[]\n", 1),
        (b'{"prev_hash":null,"n":NaN}\n', 1),
        (b'{"n":9007199254740993,"prev_hash":null}\n', 1),
        (b"\xff\n", 1),
    ],
)
def test_edges(tmp_path, raw, line):
    p = tmp_path / "a.jsonl"
    p.write_bytes(raw)
    got = aat.check(str(p), CheckContext())
    want = ref_verify(raw)
    assert got.ok is want["ok"] and got.detail.get("line") == line
    if line is None:
        assert got.detail == {"records": 0, "head": None}


def test_deep_nesting_could_not_look_never_a_traceback(tmp_path):
    p = tmp_path / "a.jsonl"
    p.write_bytes(b"[" * 100000 + b"]" * 100000 + b"\n")
    got = aat.check(str(p), CheckContext()).to_dict()
    assert got["verdict"] == "COULD NOT LOOK" and got["detail"]["error"] == "RecursionError"


def test_a_fifo_is_refused_not_waited_on(tmp_path):
    import os

    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    got = aat.check(str(fifo), CheckContext()).to_dict()
    assert got["verdict"] == "COULD NOT LOOK" and got["detail"]["reason_word"] == "unreadable"


def test_unit_subject_is_the_file(tmp_path):
    import hashlib

    p = tmp_path / "aat.jsonl"
    p.write_bytes(b"{}\n")
    assert aat.unit_subjects(str(p)) == [("aat.jsonl", hashlib.sha256(b"{}\n").hexdigest())]


def test_the_file_is_streamed_with_the_same_answer_as_its_bytes():
    import io

    rng = random.Random(5)
    parts = [b"", b"\n", b"{}", b'{"prev_hash":null}', b"x", b"\r", b"\n\n"]
    for _ in range(5000):
        raw = b"".join(rng.choice(parts) for _ in range(rng.randint(0, 5)))
        got = aat.verify_aat_file(io.BufferedReader(io.BytesIO(raw)))
        assert got == aat.verify_aat_bytes(raw) == ref_verify(raw), raw


def test_a_line_past_the_bound_is_bounded_not_read(tmp_path, monkeypatch):
    p = tmp_path / "a.jsonl"
    p.write_bytes(b'{"prev_hash":null,"x":"' + b"y" * 200 + b'"}\n')
    monkeypatch.setattr(aat, "LINE_MAX_BYTES", 100)
    got = aat.check(str(p), CheckContext()).to_dict()
    assert got["verdict"] == "COULD NOT LOOK" and got["detail"] == {"reason_word": "bounded"}


def test_the_gap_lines_are_written_as_json_writes_them_whatever_their_runs():
    """The lines a gap names, held as runs and written in pieces (whole thousands by
    one join), are the text `json.dumps(indent=2)` and the `where` phrase give."""
    from sealscope.core.checks.aat_rebuild import Runs, _list_pieces, _phrase_pieces

    rng = random.Random(47)
    for _ in range(200):
        runs, lines, n = Runs(), [], 0
        for _ in range(rng.randint(1, 5)):
            a = n + rng.randint(1, 3000)
            b = a + rng.choice([0, 1, 999, 1000, 2500, rng.randint(0, 5000)])
            runs.add_range(a, b)
            lines += range(a, b + 1)
            n = b
        doc = json.dumps({"gaps": [{"x": 1, "lines": lines}]}, indent=2)
        assert doc.split('"lines": ', 1)[1].startswith("".join(_list_pieces(runs)))
        word = "ledger line " if len(lines) == 1 else "ledger lines "
        assert "".join(_phrase_pieces(runs)) == json.dumps(word + ", ".join(map(str, lines)))


def test_flat_objects_are_written_as_the_reference_writes_them():
    """The flat-object path of `jcs` (the standard encoder) gives the reference's JCS
    bytes, or refuses where it refuses: keys beyond ASCII, values it cannot write."""
    from arcaeon.prove.jcs import JcsError

    rng = random.Random(48)
    values = [None, True, False, 0, -1, 2**53, 2**53 + 1, 1.5, "x", "\ud800", 'é\x01"\\']
    values += ["\U0001f600", "\x7f\u2028", {"a": 1}, {"b": {"c": "d"}}, [1], {"z": [1]}]
    keys = ["a", "b", "Z", "é", "\U0001f600", "\ue000", "_", "1"]
    for _ in range(5000):
        d = {k: rng.choice(values) for k in rng.sample(keys, rng.randint(0, 6))}
        try:
            want: object = canonicalize(d)
        except JcsError as e:
            want = e.path
        try:
            got: object = aat.jcs(d)
        except aat.JcsError as e:
            got = e.path
        assert got == want, d
