"""Explain, don't just flag: what the chain shows at a chain mismatch
(`ledger.explain_mismatch`), and why a verdict is COULD NOT LOOK (`VerifyResult.reason`).
The finding's own text stays the reference's."""

from __future__ import annotations

import json
from pathlib import Path

from arcaeon.record import ledger as ref_ledger
from sealscope.core import export
from sealscope.core import ledger as L
from sealscope.core import lines as _lines

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


def chained(rows: list[dict]) -> list[bytes]:
    """The rows chained from genesis, as lines (no line break)."""
    out, prev = [], L.GENESIS
    for row in rows:
        row = dict(row)
        row["chain"] = prev = L.link(prev, row)
        out.append(json.dumps(row).encode())
    return out


def write(path: Path, lines: list[bytes]) -> Path:
    path.write_bytes(b"\n".join(lines) + b"\n")
    return path


def rows(n: int) -> list[dict]:
    return [{"kind": "note", "i": i} for i in range(1, n + 1)]


def chain_of(line: bytes) -> str:
    return json.loads(line)["chain"]


def body(line: bytes) -> dict:
    d = json.loads(line)
    d.pop("chain")
    return d


def first_break(path: Path) -> str:
    ref = ref_ledger.verify_file(str(path)).first_break
    assert L.verify(path).first_break == ref  # the finding text stays the reference's
    return ref


def test_tampered_sample_content_changed():
    p = SAMPLES / "tampered.jsonl"
    assert first_break(p) == "line 4: chain mismatch"
    lines = p.read_bytes().split(b"\n")
    m = L.explain_mismatch(p, 4)
    assert m is not None
    assert m.stored == chain_of(lines[3]) == "380400a66317fb0b606c83fac02e7f7c"
    assert (
        m.recomputed
        == L.link(chain_of(lines[2]), body(lines[3]))
        == "a4a1427c52b09ee5d139fbeb9c2dee0b"
    )
    assert (m.prev_line, m.prev_chain) == (3, chain_of(lines[2]))
    assert (m.next_line, m.next_links, m.follows_line) == (5, True, None)
    assert m.cause == L.CONTENT_CHANGED
    assert m.text == (
        "fits: this row's content changed after it was chained "
        "(line 5 still links to this row's stored chain)"
    )
    offs = _lines.line_offsets(p.read_bytes())
    assert L.explain_mismatch(p, 4, offsets=offs) == m
    assert L.explain_mismatch(p, 3) is None and L.explain_mismatch(p, 99) is None
    assert L.explain_mismatch(p.parent / "no-such.jsonl", 4) is None


def test_swapped_rows_are_an_order_change(tmp_path):
    lines = chained(rows(6))
    lines[2], lines[3] = lines[3], lines[2]
    p = write(tmp_path / "swapped.jsonl", lines)
    assert first_break(p) == "line 3: chain mismatch"
    m3, m4 = L.explain_mismatch(p, 3), L.explain_mismatch(p, 4)
    assert m3 is not None and m4 is not None
    assert (m3.cause, m3.follows_line, m3.prev_line) == (L.EARLIER_OR_ORDER, 4, 2)
    assert m3.evidence == "its stored chain follows line 4's chain, not line 2's"
    assert (m4.cause, m4.follows_line, m4.prev_line) == (L.EARLIER_OR_ORDER, 2, 3)


def test_an_inserted_row_and_the_row_after_it(tmp_path):
    lines = chained(rows(6))
    forged = json.dumps({"kind": "note", "i": 99, "chain": "0" * 32}).encode()
    lines.insert(2, forged)
    p = write(tmp_path / "inserted.jsonl", lines)
    assert first_break(p) == "line 3: chain mismatch"
    m3, m4 = L.explain_mismatch(p, 3), L.explain_mismatch(p, 4)
    assert m3 is not None and m4 is not None
    assert (m3.cause, m3.next_line, m3.next_links, m3.follows_line) == (
        L.EARLIER_OR_ORDER,
        4,
        False,
        None,
    )
    assert m3.evidence == "line 4 does not link to this row's stored chain either"
    assert (m4.cause, m4.follows_line) == (L.EARLIER_OR_ORDER, 2)


def test_first_and_last_rows(tmp_path):
    lines = chained(rows(4))
    lines[0] = lines[0].replace(b'"i": 1', b'"i": 7')
    lines[3] = lines[3].replace(b'"i": 4', b'"i": 8')
    p = write(tmp_path / "ends.jsonl", lines)
    assert first_break(p) == "line 1: chain mismatch"
    first, last = L.explain_mismatch(p, 1), L.explain_mismatch(p, 4)
    assert first is not None and last is not None
    assert (first.prev_line, first.prev_chain, first.cause) == (0, "genesis", L.CONTENT_CHANGED)
    assert first.recomputed == L.link("genesis", {"kind": "note", "i": 7})
    assert (last.next_line, last.next_links, last.cause) == (0, None, L.UNDETERMINED)


def test_blank_unparseable_and_unchained_lines_are_passed_as_the_walk_passes_them(tmp_path):
    lines = chained(rows(5))
    lines[3] = lines[3].replace(b'"i": 4', b'"i": 9')
    lines[3:3] = [b"", b"{not json", json.dumps({"kind": "stray"}).encode(), b"[1]"]
    p = write(tmp_path / "noise.jsonl", lines)
    assert L.verify(p).findings[-1].text == "line 8: chain mismatch"
    m = L.explain_mismatch(p, 8)
    assert m is not None
    assert (m.prev_line, m.next_line, m.cause) == (3, 9, L.CONTENT_CHANGED)


def test_a_declared_unchained_row_resumes_the_chain(tmp_path):
    p = tmp_path / "declared.jsonl"
    for r in rows(3):
        L.append(p, r)
    with p.open("a") as fh:
        fh.write(json.dumps({"kind": "stray"}) + "\n")
    L.append(p, {"kind": "note", "i": 5})  # chained from genesis after the stray
    L.declare_break(p, 4, "appended by hand")  # excuses line 4: the walk resumes at genesis
    lines = p.read_bytes().split(b"\n")
    lines[4] = lines[4].replace(b'"i": 5', b'"i": 50')
    p.write_bytes(b"\n".join(lines))
    assert first_break(p) == "line 5: chain mismatch"
    m = L.explain_mismatch(p, 5)
    assert m is not None
    assert (m.prev_line, m.prev_chain) == (4, "genesis")
    assert m.recomputed == L.link("genesis", body(lines[4]))
    assert (m.next_line, m.next_links, m.cause) == (6, True, L.CONTENT_CHANGED)


def test_why_could_not_look(tmp_path):
    declared = L.verify(SAMPLES / "declared-break.jsonl")
    assert declared.verdict == "COULD NOT LOOK"
    assert declared.reason() == "declared break at line 3"
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    assert L.verify(empty).reason() == "empty file"
    blank = tmp_path / "blank.jsonl"
    blank.write_bytes(b"\n\n  \n")
    assert L.verify(blank).reason() == "no rows, only blank lines"
    pre = write(tmp_path / "pre.jsonl", [b'{"a": 1}', b'{"a": 2}'])
    assert L.verify(pre).reason() == "no chained rows (2 rows without a chain)"
    mixed = write(tmp_path / "mixed.jsonl", [b'{"a": 1}'] + chained(rows(2)))
    assert L.verify(mixed).reason() == "1 row before the chain began at line 2 not verified"
    assert L.verify(SAMPLES / "session.jsonl").reason() == ""
    assert L.verify(SAMPLES / "tampered.jsonl").reason() == "line 4: chain mismatch"
    assert L.verify(tmp_path / "missing.jsonl").reason().startswith("unreadable: ")


def test_the_report_explains_and_says_why():
    r = export.build_report(SAMPLES / "tampered.jsonl")
    (b,) = r.breaks
    assert b["text"] == "line 4: chain mismatch"
    assert b["explained"]["cause"] == L.CONTENT_CHANGED
    assert b["explained"]["stored"] == "380400a66317fb0b606c83fac02e7f7c"
    assert b["explained"]["recomputed"] == "a4a1427c52b09ee5d139fbeb9c2dee0b"
    md = r.to_markdown()
    assert (
        "- line 4: stored chain `380400a66317fb0b606c83fac02e7f7c`, recomputed "
        "`a4a1427c52b09ee5d139fbeb9c2dee0b` after line 3, chain "
        "`2ca23e86634ea683beb20a10fbfb626d`; fits: this row's content changed after it "
        "was chained (line 5 still links to this row's stored chain)"
    ) in md
    d = export.build_report(SAMPLES / "declared-break.jsonl")
    assert d.to_dict()["why"] == "declared break at line 3"
    assert "- verdict: **COULD NOT LOOK** (declared break at line 3)" in d.to_markdown()
    assert "None" not in d.to_markdown() and "None" not in r.to_markdown()
