"""`core/rows.py` is the one place a ledger line is read as a row (issue 28).

Two kinds of test: the reading itself on the hostile shapes the verifier refuses
(duplicate keys, deep nesting, NaN, lone surrogates, invalid UTF-8, U+2028, non-object
rows) equals what `verify` says of the same line in a real file; and a scan of core/,
cli/ and viewer/ that fails when a module other than those listed below starts to
parse JSON itself, so a third reader of ledger lines cannot appear unnoticed.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from sealscope.core import rows
from sealscope.core.ledger import verify

ROOT = Path(__file__).resolve().parents[2]
FOLDERS = ("core", "cli", "viewer")

# The calls that parse JSON text: json/orjson/pickle `loads`, jsonio's `loads` and
# `loads_strict`, nesting's `read_row` / `read_value` / `read_declaration` (and any
# name such a function is imported as).
PARSERS = {"loads", "loads_strict", "read_row", "read_value", "read_declaration"}

# Every module that may parse JSON, and why it is not a reader of ledger lines as rows.
# A ledger line is read through `rows` (read_line, fast_object, exact_line, row_value,
# declaration_value, first_object) and nowhere else.
ALLOWED = {
    "core/rows.py": "the one reader of ledger lines",
    "core/nesting.py": "the depth mechanics rows.py calls (the reference's stack shape)",
    "core/jsonio.py": "the JSON primitives themselves (loads, loads_strict)",
    "core/kinds.py": "KINDS.md §1: the classifier's plain sniff of a document and first "
    "line, the reference's kind rule, not the verifier's reading",
    "core/checkpoint_file.py": "our own checkpoint files, not evidence lines",
    "core/checks/_read.py": "one whole JSON document of another kind (receipts, verdicts)",
    "core/checks/aat.py": "an agent-audit-trail export, read as its own check reads it",
    "core/checks/artefact.py": "an artefact's canonical JSON digest",
    "core/checks/bundle.py": "an audit bundle's integrity.json",
    "core/checks/call_record.py": "a call record's lines, read as its own check reads it",
    "core/checks/pack.py": "an evidence pack's manifest and witness members",
    "core/checks/pack_derive.py": "a pack's window rows as the reference's pack check "
    "reads them (json.loads), not the ledger verifier",
    "core/checks/pack_steps.py": "a pack's CNL member",
    "core/checks/aat_rebuild.py": "a pack's records rows as the reference rebuilds its AAT "
    "export and gaps from them",
    "core/checks/pack_mandate.py": "a pack's mandate members and the records rows the "
    "reference rebuilds them from",
    "core/checks/pack_records.py": "a pack's records rows, streamed once for the checks "
    "that re-derive from them (json.loads, as the reference's pack check reads them)",
    "core/checks/pack_window.py": "a pack's window.jsonl wrappers, as its check reads them",
    "core/checks/portable.py": "a portable receipt and its source text",
    "core/profiles/reading.py": "the long tail's lines as the reference's pair checks "
    "read them (text mode, json.loads, its depth and duplicate-key rule), not the verifier",
    "core/continuity/baseline.py": "continuity baselines (snapshots), not ledger lines",
    "core/continuity/continuation.py": "continuity documents, not ledger lines",
    "core/continuity/snapshots.py": "continuity snapshots, not ledger lines",
    "core/harn/read.py": "a harn document",
    "core/harn/serde.py": "a harn document's parse",
    "core/held.py": "held content (the dropped items a receipt digests), not rows",
    "core/lookup.py": "text a person typed, read as a JSON item",
    "core/sealfile.py": "a continuity seal file",
    "core/witness.py": "witness pin records, a store of their own",
    "cli/cmd_serve.py": "the path list the serve command hands its child",
    "cli/fleet_engine.py": "the pickled entries a fleet task returns from our own "
    "audit code on a Dask worker (`packed`), not evidence",
    "cli/mcp_server.py": "MCP protocol messages",
    "viewer/demo_script.py": "the demo's own script file",
    "viewer/kind_tab.py": "a one-document kind shown in its tab",
    "viewer/unit_read.py": "a pack's or bundle's members and rows, display only, as "
    "the pack check reads them",
    "viewer/verify_child.py": "the pickled verdict of our own child process",
}

# The readers of ledger lines that must never parse for themselves.
LINE_READERS = (
    "core/walk.py",
    "core/explain.py",
    "core/ledger.py",
    "core/ledger_read.py",
    "core/follow.py",
    "core/fleet.py",
    "viewer/source.py",
)


def _parse_calls(tree: ast.AST) -> list[int]:
    """Lines of the calls to a parser (`PARSERS`, or a name one is imported as)."""
    names = set(PARSERS)
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            names.update(a.asname or a.name for a in node.names if a.name in PARSERS)
    hits = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            fn = node.func
            name = getattr(fn, "attr", None) or getattr(fn, "id", None)
            if name in names:
                hits.append(node.lineno)
    return sorted(hits)


def _parsing_modules() -> dict[str, list[int]]:
    found: dict[str, list[int]] = {}
    for folder in FOLDERS:
        for f in sorted((ROOT / folder).rglob("*.py")):
            hits = _parse_calls(ast.parse(f.read_text(encoding="utf-8")))
            if hits:
                found[f.relative_to(ROOT).as_posix()] = hits
    return found


def test_no_module_parses_json_unless_listed_with_a_reason() -> None:
    found = _parsing_modules()
    new = {m: lines for m, lines in found.items() if m not in ALLOWED}
    assert not new, f"a JSON parse outside rows.py and the listed modules: {new}"
    stale = sorted(set(ALLOWED) - set(found))
    assert not stale, f"listed but no longer parsing (drop them from ALLOWED): {stale}"


def test_the_line_readers_read_through_rows() -> None:
    found = _parsing_modules()
    for module in LINE_READERS:
        assert (ROOT / module).exists(), module
        assert module not in ALLOWED and module not in found, module
    text = {m: (ROOT / m).read_text(encoding="utf-8") for m in LINE_READERS}
    assert all("orjson" not in t for t in text.values())
    assert "sealscope.core.rows" in text["core/walk.py"]
    assert "sealscope.core.rows" in text["core/explain.py"]


def test_the_scan_sees_a_parse() -> None:
    """The scan catches a new reader, under an alias too (so the test above can fail)."""
    src = "from orjson import loads as fast\nimport json\nx = fast(b'{}')\ny = json.loads('1')\n"
    assert _parse_calls(ast.parse(src)) == [3, 4]
    assert _parse_calls(ast.parse("import orjson\nz = orjson.dumps(1)\n")) == []


# --------------------------------------------------------------------- the reading

CHAIN = ',"chain":"x"'
CASES = {
    "duplicate key": (b'{"kind":"note","kind":"receipt_like"' + CHAIN.encode() + b"}"),
    "NaN": b'{"a":NaN' + CHAIN.encode() + b"}",
    "lone surrogate": b'{"a":"\\ud800"' + CHAIN.encode() + b"}",
    "invalid UTF-8": b'{"a":"\xff"' + CHAIN.encode() + b"}",
    "U+2028 inside": '{"a":"x\u2028y"'.encode() + CHAIN.encode() + b"}",
    "not an object": b"[1,2,3]",
    "unparseable": b'{"a":',
    "deep": b'{"a":' + b"[" * 995 + b"]" * 995 + CHAIN.encode() + b"}",
    "tabbed": b'{"a":\t1' + CHAIN.encode() + b"}",
    "big number": b'{"a":123456789012345678901234567890' + CHAIN.encode() + b"}",
}


def _verdict_of_line(tmp_path: Path, raw: bytes) -> str:
    """What `verify` says of line 2 of a file whose line 1 began the chain."""
    good = b'{"chain":"0"}'
    p = tmp_path / "l.jsonl"
    p.write_bytes(good + b"\n" + raw + b"\n")
    res = verify(p)
    texts = [f.text for f in res.findings if f.line == 2]
    return texts[0] if texts else "row"


@pytest.mark.parametrize("case", sorted(CASES))
def test_read_line_agrees_with_the_verifier(tmp_path: Path, case: str) -> None:
    raw = CASES[case]
    line = rows.read_line(raw)
    said = _verdict_of_line(tmp_path, raw)
    if said.endswith(": unparseable"):
        assert line.state == "unparseable", (case, line.state)
    elif "duplicate key" in said:
        assert line.duplicate == "duplicate key 'kind'" and line.kind == ""
    elif "not a JSON object" in said:
        assert line.state == "nonobject"
    else:  # a row the walk read (its chain then judged): an object, read exactly once
        assert line.state == "object" and line.duplicate is None, (case, said)
        assert line.value == rows.exact_line(raw).value
    # the fast half never answers for a line the exact reader reads otherwise
    fast = rows.fast_object(raw)
    if fast is not None:
        exact = rows.exact_line(raw)
        assert exact.state == "object" and exact.duplicate is None and exact.value == fast


def test_a_duplicate_key_row_is_the_verifiers_refusal(tmp_path: Path) -> None:
    raw = CASES["duplicate key"]
    assert _verdict_of_line(tmp_path, raw) == "line 2: duplicate key 'kind'"
    line = rows.read_line(raw)
    assert line.state == "object" and line.value["kind"] == "receipt_like"  # last wins
    assert line.kind == ""  # shown with no kind, never as its last duplicate spells


def test_first_object_skips_what_is_not_a_row() -> None:
    data = b"\n[1]\nnot json\n" + b' {"a":1,"a":2} \n{"b":2}\n'
    assert rows.first_object(data, step=4) == {"a": 2}
    assert rows.first_object(b"\n\n[1]\n") is None
    assert rows.first_object(b"") is None


class _Counted(bytes):
    """File bytes that count what is sliced out of them (what a reader reads)."""

    read = 0

    def __getitem__(self, key):  # type: ignore[no-untyped-def, override]
        got = super().__getitem__(key)
        if isinstance(key, slice):
            type(self).read += len(got)
        return got


def test_first_object_reads_only_as_far_as_the_first_row() -> None:
    data = _Counted(b'{"first":1}\n' + b'{"n":2}\n' * 200_000)
    assert rows.first_object(data, step=1 << 10) == {"first": 1}
    assert 0 < _Counted.read <= 2 << 10 < len(data) // 100
