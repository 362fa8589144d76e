"""Every JSON document sealscope prints or writes comes from one writer,
`sealscope.core.jsonio.dumps_output` (strict RFC 8259 JSON, CLI.md's first paragraph).

Every module of cli/, core/ and viewer/ is read with `ast`: a call of `json.dumps`,
`json.dump` or `orjson.dumps` (however imported), or any use of the standard library's
encoder classes, must sit in a function of the allow-list below, each with the reason
it is not an output: a digest or canonical form that reproduces CPython's own writer
byte for byte, an evidence format the reference writes that way, or text for a
person's eye that is not a JSON document.
"""

from __future__ import annotations

import ast
import json
import math
from pathlib import Path

import pytest
from sealscope.core import jsonio
from sealscope.core.sanitize import safe_json

ROOT = Path(__file__).resolve().parents[2]
LAYERS = ("cli", "core", "viewer")

DIGEST = "a digest or canonical form: reproduces CPython's json.dumps byte for byte"
FORMAT = "an evidence format, written as the reference writes it (NaN tokens included)"
DISPLAY = "text for a person's eye (a preview, a search text, a screen), not a JSON document"

# (file, enclosing function's qualified name) -> why its json/orjson writer is not output
ALLOWED: dict[tuple[str, str], str] = {
    ("core/jsonio.py", "<module>"): "the writers' own encoder imports",
    ("core/jsonio.py", "dumps_row"): FORMAT + " (a ledger line)",
    ("core/jsonio.py", "dumps_canonical"): DIGEST + " (json-c14n v1)",
    ("core/jsonio.py", "dumps_output"): "the one output writer itself",
    ("core/nesting.py", "_body_step"): DIGEST + " (the chain body at the reference's depth)",
    ("core/checks/call_record.py", "args_digest"): DIGEST + " (a call row's args_digest)",
    ("core/case/perform.py", "result_digest"): DIGEST + " (a case check's result_sha256)",
    ("core/checks/aat.py", "jcs"): DIGEST + " (RFC 8785 for a flat object)",
    ("core/checks/aat_rebuild.py", "ExportRebuild.gaps_pieces"): FORMAT
    + " (aat_gaps.json rebuilt to compare byte for byte)",
    ("core/checks/pack_mandate.py", "step_mandate"): FORMAT
    + " (mandate_rows.json rebuilt to compare byte for byte)",
    ("core/continuity/continuation.py", "_baseline_report"): DIGEST
    + " (the reference's file round trip, re-read)",
    ("core/continuity/probes.py", "_answer_text"): DIGEST + " (a declared value's answer text)",
    ("core/continuity/baseline.py", "_register"): "a UTF-8 encodability check"
    " of what the reference writes, the text discarded",
    ("core/continuity/baseline.py", "_reload_probes"): "a UTF-8 encodability check"
    " of a probe, the text discarded",
    ("core/continuity/snapshots.py", "ContinuitySnapshot.to_json"): FORMAT
    + " (a continuity snapshot)",
    ("core/ledger_write.py", "authority"): DIGEST + " (tool_schema_hash)",
    ("core/witness.py", "record"): FORMAT + " (a witness store record, chained)",
    ("core/rows.py", "fast_object"): "a comparison of orjson's re-serialisation with the line,"
    " never written",
    ("core/held.py", "item_text"): DISPLAY,
    ("core/export/records.py", "_preview"): DISPLAY + " (a held item's preview)",
    ("core/export/markdown.py", "_json_text"): DISPLAY + " (a Markdown code span)",
    ("core/export/markdown.py", "_fenced_json"): DISPLAY + " (a Markdown block of evidence)",
    ("cli/mcp_server.py", "_record"): DIGEST + " (a call row's args_digest)",
    ("cli/ci_vsa.py", "vsa_statement"): DIGEST + " (the policy's sha256)",
    ("cli/cmd_serve.py", "run"): "the paths handed to each app process in its"
    " environment, read back by sealscope, never shown",
    ("cli/cmd_continuity.py", "_show"): DISPLAY + " (a declared value in the text report)",
    ("viewer/row_detail.py", "pretty"): DISPLAY + " (a row on screen, as stored)",
    ("viewer/harn_tab.py", "_content_text"): DISPLAY + " (harn content on screen)",
    ("viewer/style.py", "json_text"): DISPLAY + " (a value on screen, as stored)",
    ("viewer/source.py", "LedgerSource._patterns"): "the search needle as a ledger line spells it",
    ("viewer/demo_story.py", "Workspace.compact"): FORMAT + " (the demo's held content file)",
}

_WRITERS = {"json": {"dumps", "dump", "JSONEncoder"}, "orjson": {"dumps"}}
_ENCODER_MODULES = {"json.encoder", "_json"}


class _Finder(ast.NodeVisitor):
    """(qualified function name, line, what) of every JSON writer use in one module."""

    def __init__(self) -> None:
        self.scope: list[str] = []
        self.modules: dict[str, str] = {}  # local name -> "json" / "orjson"
        self.names: dict[str, str] = {}  # local name -> "json.dumps" ...
        self.found: list[tuple[str, int, str]] = []

    def _here(self) -> str:
        return ".".join(self.scope) or "<module>"

    def _scoped(self, node: ast.AST, name: str) -> None:
        self.scope.append(name)
        self.generic_visit(node)
        self.scope.pop()

    def visit_FunctionDef(self, node: ast.FunctionDef) -> None:
        self._scoped(node, node.name)

    def visit_AsyncFunctionDef(self, node: ast.AsyncFunctionDef) -> None:
        self._scoped(node, node.name)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self._scoped(node, node.name)

    def visit_Assign(self, node: ast.Assign) -> None:
        # a module-level `_x = JSONEncoder(...)` is named by its target
        if not self.scope and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            self._scoped(node, "<module>." + node.targets[0].id)
        else:
            self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for a in node.names:
            if a.name in _WRITERS:
                self.modules[a.asname or a.name] = a.name
            elif a.name in _ENCODER_MODULES:
                self.found.append((self._here(), node.lineno, f"import {a.name}"))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        mod = node.module or ""
        for a in node.names:
            if mod in _ENCODER_MODULES:
                self.found.append((self._here(), node.lineno, f"from {mod} import {a.name}"))
            elif a.name in _WRITERS.get(mod, ()):
                self.names[a.asname or a.name] = f"{mod}.{a.name}"

    def visit_Attribute(self, node: ast.Attribute) -> None:
        if isinstance(node.value, ast.Name):
            mod = self.modules.get(node.value.id)
            if mod is not None and node.attr in _WRITERS[mod]:
                self.found.append((self._here(), node.lineno, f"{mod}.{node.attr}"))
        self.generic_visit(node)

    def visit_Name(self, node: ast.Name) -> None:
        if node.id in self.names:
            self.found.append((self._here(), node.lineno, self.names[node.id]))


def writer_uses(path: Path) -> list[tuple[str, int, str]]:
    """(qualified function, line, what) of every json/orjson writer use in the file."""
    finder = _Finder()
    finder.visit(ast.parse(path.read_text(encoding="utf-8"), str(path)))
    return finder.found


def all_writer_uses() -> dict[tuple[str, str], list[str]]:
    out: dict[tuple[str, str], list[str]] = {}
    for layer in LAYERS:
        for path in sorted((ROOT / layer).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            for where, line, what in writer_uses(path):
                out.setdefault((rel, where), []).append(f"{rel}:{line}: {what}")
    return out


def test_every_json_writer_outside_dumps_output_is_allowed_with_a_reason():
    uses = all_writer_uses()
    unlisted = [hit for key, hits in uses.items() if key not in ALLOWED for hit in hits]
    assert unlisted == [], (
        "write JSON output with sealscope.core.jsonio.dumps_output; a digest or display "
        "text goes in ALLOWED with its reason"
    )


def test_the_allow_list_holds_no_stale_entry():
    assert sorted(set(ALLOWED) - set(all_writer_uses())) == []


def test_the_finder_sees_every_spelling(tmp_path):
    f = tmp_path / "x.py"
    f.write_text(
        "import json\nimport json as j\nimport orjson\nfrom json import dumps as d\n"
        "from json.encoder import encode_basestring\n"
        "def a():\n    return json.dumps(1)\n"
        "class C:\n    def b(self):\n        return j.dump(1, None), orjson.dumps(1)\n"
        "def c():\n    return d(1), json.loads('1'), json.JSONEncoder\n"
    )
    assert writer_uses(f) == [
        ("<module>", 5, "from json.encoder import encode_basestring"),
        ("a", 7, "json.dumps"),
        ("C.b", 10, "json.dump"),
        ("C.b", 10, "orjson.dumps"),
        ("c", 12, "json.dumps"),
        ("c", 12, "json.JSONEncoder"),
    ]


# ------------------------------------------------------------------ the writer itself


def _refuse(token: str) -> None:
    raise ValueError(f"not RFC 8259 JSON: {token}")


def strict_loads(text: str):
    return json.loads(text, parse_constant=_refuse)


HOSTILE = {
    "nan": float("nan"),
    "inf": float("inf"),
    "-inf": float("-inf"),
    "1e400": json.loads("1e400"),
    "-0.0": -0.0,
    "lone": "a\ud800b\udcff",
    "keys": {float("nan"): 1, float("inf"): 2, "x\udc80": 3},
}


@pytest.mark.parametrize("knobs", [{}, {"indent": 2}, {"ensure_ascii": True, "indent": 1}])
def test_non_finite_numbers_are_strings_and_lone_surrogates_escapes(knobs):
    text = jsonio.dumps_output(HOSTILE, **knobs)
    text.encode("utf-8")  # no lone surrogate left: strict UTF-8 takes it
    back = strict_loads(text)
    assert back["nan"] == "NaN" and back["inf"] == "Infinity" and back["-inf"] == "-Infinity"
    assert back["1e400"] == "Infinity"
    assert back["-0.0"] == 0.0 and math.copysign(1, back["-0.0"]) == -1
    assert back["lone"] == "a\ud800b\udcff"  # the escapes read back as the same code points
    assert back["keys"] == {"NaN": 1, "Infinity": 2, "x\udc80": 3}
    assert "\\ud800" in text and "\\udcff" in text


def test_deep_nesting_is_written_whatever_the_callers_depth():
    deep: list = []
    inner = deep
    for _ in range(5000):
        inner.append([])
        inner = inner[0]
    inner.append(float("nan"))
    text = jsonio.dumps_output({"v": deep}, indent=2)
    assert text.count("[") == 5001 and '"NaN"' in text and "NaN," not in text
    assert jsonio.dumps_output_bytes(deep) == b"[" * 5001 + b'"NaN"' + b"]" * 5001


VALUES = [
    {"a": [1, 2.5, -0.0, {"b": None, "c": True, "d": False}], "e": "é\u2028#[", "f": {}},
    {"z": [[], {}, [[1e300, -1e-300]]], "a": (1, "x"), 5: "int key", 2.5: "float key"},
    [{"k": object}, "\x1b[31m", 10**30],
    "plain",
    -0.0,
]


@pytest.mark.parametrize("value", VALUES)
@pytest.mark.parametrize(
    "knobs",
    [
        {},
        {"indent": 2},
        {"indent": 0},
        {"ensure_ascii": True, "indent": 1},
        {"ensure_ascii": True, "separators": (",", ":")},
        {"sort_keys": True, "indent": 2},
    ],
)
def test_the_recursion_free_path_lays_out_exactly_as_json_dumps(value, knobs):
    """Only values `json.dumps` can write: the two paths must give the same text."""
    if knobs.get("sort_keys") and isinstance(value, dict) and 5 in value:
        return  # json.dumps cannot sort mixed keys
    fast = jsonio.dumps_output(value, **knobs)
    slow = safe_json(
        jsonio._write_without_recursion(
            value,
            knobs.get("indent"),
            knobs.get("ensure_ascii", False),
            knobs.get("separators"),
            knobs.get("sort_keys", False),
        )
    )
    assert slow == fast


def test_a_container_that_holds_itself_is_refused_not_looped():
    loop: list = [float("nan")]
    loop.append(loop)
    with pytest.raises(ValueError, match="Circular"):
        jsonio.dumps_output(loop)
