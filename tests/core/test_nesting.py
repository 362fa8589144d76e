"""The one nesting limit (`core.nesting`): every reader of rows sees the rows the
verifier sees, wherever it is called from and under any recursion limit.

The thresholds themselves are checked against `arcaeon verify` in
tests/cli/test_nesting_cli.py; the figures below are what that command gives on
CPython 3.11 (levels of `[`/`{` inside the row object)."""

from __future__ import annotations

import hashlib
import sys
import threading
from pathlib import Path

import pytest
from sealscope.core import ledger as L
from sealscope.core import lookup, nesting

PY311 = sys.version_info[:2] == (3, 11)


def _link(prev: str, body: str) -> str:
    return hashlib.sha256((prev + body).encode()).hexdigest()[:32]


def _row(body: str, prev: str = "genesis") -> str:
    return body[:-1] + f', "chain": "{_link(prev, body)}"}}'


def arr(n: int) -> str:
    return _row('{"a": ' + "[" * n + "]" * n + "}")


def obj(n: int) -> str:
    return _row('{"a": ' + '{"a": ' * n + "1" + "}" * n + "}")


def dup(n: int) -> str:
    line = '{"a": ' + '{"a": ' * (n - 1) + '{"x": 1, "x": 2}' + "}" * (n - 1) + "}"
    body = '{"a": ' + '{"a": ' * (n - 1) + '{"x": 2}' + "}" * (n - 1) + "}"
    return line[:-1] + f', "chain": "{_link("genesis", body)}"}}'


def nonobj(n: int) -> str:
    return "[" * n + "]" * n


def receipt(n: int) -> str:
    return _row('{"deep": ' + "[" * n + "]" * n + ', "kind": "compaction_receipt"}')


# (line, first_break of a one-line file, is it a row)
CASES = {
    "arr-989": (arr(989), None, True),
    "arr-990": (arr(990), "line 1: unhashable row (RecursionError)", True),
    "arr-991": (arr(991), "line 1: unparseable", False),
    "obj-989": (obj(989), None, True),
    "obj-990": (obj(990), "line 1: unparseable", False),
    "dup-988": (dup(988), "line 1: duplicate key 'x'", True),
    "dup-989": (dup(989), "line 1: unparseable", False),
    "nonobj-991": (nonobj(991), "line 1: not a JSON object", False),
    "nonobj-992": (nonobj(992), "line 1: unparseable", False),
}


def _declared(tmp_path: Path, n: int) -> Path:
    orphan = '{"note": "hand"}'
    sha = hashlib.sha256(orphan.encode()).hexdigest()
    body = (
        '{"deep": ' + "[" * n + "]" * n + ', "op": "chain_break_declared", '
        f'"orphan_line": 2, "orphan_sha256": "{sha}", "why": "by hand"}}'
    )
    p = tmp_path / f"declared-{n}.jsonl"
    p.write_text("\n".join([_row('{"i": 1}'), orphan, _row(body)]) + "\n")
    return p


def _verdicts(tmp_path: Path) -> dict:
    out = {}
    for name, (line, _fb, _is_row) in CASES.items():
        p = tmp_path / f"{name}.jsonl"
        p.write_text(line + "\n")
        r = L.verify(p)
        out[name] = (r.first_break, r.rows)
    for n in (989, 990):
        for strict in (False, True):
            r = L.verify(_declared(tmp_path, n), strict=strict)
            out[f"decl-{n}-{strict}"] = (r.ok, r.verified_scope, r.first_break, r.declared)
    return out


def _deep_call(k: int, fn, *args):
    return _deep_call(k - 1, fn, *args) if k else fn(*args)


@pytest.mark.skipif(not PY311, reason="the figures are CPython 3.11's")
def test_thresholds_are_the_reference_commands(tmp_path):
    got = _verdicts(tmp_path)
    for name, (_line, first_break, is_row) in CASES.items():
        assert got[name] == (first_break, int(is_row)), name
    assert got["decl-989-False"] == (
        None,
        "bounded_declared_break",
        None,
        ("line 2: declared break (by hand)",),
    )
    assert got["decl-989-True"][3] == (
        "line 2: declaration present, NOT honored (strict mode) (by hand)",
    )
    assert got["decl-990-False"] == (False, "full", "line 2: unchained row after chain began", ())


def test_verdict_does_not_depend_on_the_callers_stack_or_limit(tmp_path):
    want = _verdicts(tmp_path)
    # deep in our own stack
    assert _deep_call(600, _verdicts, tmp_path) == want
    # under a raised limit (hypothesis raises it while it runs a test)
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(4000)
    try:
        assert _deep_call(300, _verdicts, tmp_path) == want
    finally:
        sys.setrecursionlimit(old)
    # under a lowered limit, where the reference's stack cannot be rebuilt by padding
    sys.setrecursionlimit(400)
    try:
        assert _verdicts(tmp_path) == want
        assert sys.getrecursionlimit() == 400
    finally:
        sys.setrecursionlimit(old)
    # from another thread
    box = []
    t = threading.Thread(target=lambda: box.append(_verdicts(tmp_path)))
    t.start()
    t.join()
    assert box == [want]


def test_every_reader_sees_the_verifiers_rows(tmp_path):
    """iter_rows (receipts, lookup, export), chain_at and the tip read exactly the lines
    the verifier counts as rows, even where the nesting limit decides."""
    lines = [c[0] for c in CASES.values()] + [receipt(990), receipt(991)]
    p = tmp_path / "mixed.jsonl"
    p.write_text("\n".join(lines) + "\n")
    r = L.verify(p)
    rows = [n for n, v in L.iter_rows(p) if isinstance(v, dict)]
    assert len(rows) == r.rows
    broken = {
        f.line for f in r.findings if "unparseable" in f.text or "not a JSON object" in f.text
    }
    assert set(rows) == set(range(1, len(lines) + 1)) - broken
    if PY311:
        assert rows == [1, 2, 4, 6, 10]
        assert [n for n, _row in lookup.iter_receipt_rows(p)] == [10]
    values = dict(L.iter_rows(p))
    for k, n in enumerate(rows, 1):
        assert L.chain_at(p, k) == values[n]["chain"]
    assert L.chain_at(p, r.rows + 1) is None
    # the tip: the last line is a receipt too deep to parse, so the one before it
    assert L.tail_chain(p) == L.chain_at(p, r.rows)


def test_near_limit_gate():
    assert not nesting.near_limit(b"{" * 255)
    assert nesting.near_limit(b"[" * 128 + b"{" * 128)
    assert nesting.near_limit("[" * 256)
    # lines under the gate are parsed in place; the gate is far below the limit
    assert nesting.NEAR_LIMIT_BRACKETS <= 300
    assert nesting.read_row('{"a": 1, "a": 2}') == nesting.Parsed({"a": 2}, "duplicate key 'a'")
    with pytest.raises(ValueError):
        nesting.read_value(nonobj(2000))


def test_the_follower_reports_the_receipts_the_verifier_reads(tmp_path):
    from sealscope.core import follow

    p = tmp_path / "grow.jsonl"
    p.write_text(arr(10) + "\n")
    f = follow.Follower(p)
    f.open()
    with p.open("a") as fh:
        fh.write(receipt(990) + "\n" + receipt(991) + "\n")
    events = [e for e in f.poll() if e.kind == "receipt"]
    f.close()
    listed = [n for n, _row in lookup.iter_receipt_rows(p)]
    assert [e.line for e in events] == listed
    if PY311:
        assert listed == [2]
