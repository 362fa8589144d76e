"""Document profiles against the reference (KINDS-3.md §18, §22, §23): mandates linted
as `arcaeon mandate lint` lints them (plus the sealed digest the deal lane checks), deal
packs written by `arcaeon.record.deal.pack` and checked by disputing their own rows,
and vet grades held against their source."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from sealscope.core import checks
from sealscope.core.checks.result import CheckContext
from sealscope.core.profiles import detect as _detect
from sealscope.core.profiles import mandate as _mandate

from tests.core import profiles_cases as cases
from tests.core.test_profiles_pairs import _deal_pair

TOOL = {
    "who": "ops@acme",
    "allowed_acts": ["search", "place_order"],
    "forbidden_acts": ["delete_*"],
    "spend_cap": {"amount": "50.00", "total": "200", "currency": "USD", "merchant": "acme"},
    "not_before": "2026-01-01T00:00:00Z",
    "not_after": "2099-01-01T00:00:00Z",
}
DEAL = {"merchant": "acme", "cap": "60.00", "currency": "USD", "may": ["buy"], "may_not": []}


def _sealed(body: dict[str, Any]) -> dict[str, Any]:
    from arcaeon.record.row import digest_json

    return {"deal": "d-1", "mandate_digest": digest_json(body), "mandate": body}


MANDATES: dict[str, Any] = {
    "tool": TOOL,
    "deal": DEAL,
    "typo": {**TOOL, "alowed_acts": ["x"]},
    "time": {**TOOL, "not_before": "next tuesday"},
    "acts-string": {**TOOL, "allowed_acts": "search"},
    "total-lots": {**TOOL, "spend_cap": {"total": "lots"}},
    "cap-nan": {**DEAL, "cap": float("nan")},
    "cap-bool": {**DEAL, "cap": True},
    "both-acts": {**TOOL, "may": ["x"]},
    "no-amount": {**TOOL, "spend_cap": {"currency": "USD"}},
    "cap-and-spend-cap": {**TOOL, "cap": "5"},
    "spend-cap-list": {**TOOL, "spend_cap": ["50"]},
    "args-not-list": {**TOOL, "spend_cap": {"amount": "1", "amount_args": "total"}},
    "nulls": {"allowed_acts": None, "spend_cap": None, "not_after": None},
    "sidecar-null-body": {"deal": "d", "mandate_digest": "x", "mandate": None, "spend_cap": {}},
}


@pytest.mark.parametrize("name", sorted(MANDATES) + ["sealed", "sealed-edited", "sealed-bad-may"])
def test_mandate_lint_agrees(tmp_path, name):
    cases.arcaeon()
    from arcaeon.record import mandate_cli

    if name == "sealed":
        obj = _sealed(DEAL)
    elif name == "sealed-edited":
        obj = {**_sealed(DEAL), "mandate": {**DEAL, "cap": "600.00"}}
    elif name == "sealed-bad-may":
        obj = _sealed({**DEAL, "may": "x"})
    else:
        obj = MANDATES[name]
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(obj, indent=1))
    res = checks.run([str(path)])[0]
    parsed = json.loads(path.read_bytes().decode("utf-8"))
    ref = mandate_cli.lint(parsed)
    assert res.profile == "mandate" and res.kind is None
    assert res.detail["valid"] is ref["valid"]
    assert res.detail["shape"] == ref["shape"]
    assert res.detail["problems"] == [{"key": p["key"]} for p in ref["problems"]]
    assert res.detail["warnings"] == len(ref["warnings"])
    sealed_ok = res.detail["mandate_digest_ok"]
    if name.startswith("sealed"):
        from arcaeon.record.row import digest_json

        assert sealed_ok is (digest_json(parsed["mandate"]) == parsed["mandate_digest"])
    broken = not ref["valid"] or sealed_ok is False
    assert res.verdict == ("BROKEN" if broken else "VERIFIED")


def test_not_a_mandate_stays_none(tmp_path):
    for name, data in (
        ("who.json", b'{"who": "x"}'),
        ("ff.json", b'{"allowed_acts": ["\xff"]}'),
        (
            "lint.json",
            (
                b'{"mandate": "m.json", "file_sha256": "x", "valid": true, "shape": "tool",'
                b' "problems": [], "warnings": []}'
            ),
        ),
        ("deep.json", b'{"allowed_acts": ' + b"[" * 5000 + b"]" * 5000 + b"}"),
    ):
        (tmp_path / name).write_bytes(data)
        res = checks.run([str(tmp_path / name)])[0]
        assert (res.kind, res.profile, res.verdict) == (None, None, "COULD NOT LOOK"), name


def test_a_one_line_mandate_not_named_json_is_a_ledger(tmp_path):
    path = tmp_path / "mandate.txt"
    path.write_text(json.dumps(TOOL) + "\n")
    res = checks.run([str(path)])[0]
    assert (res.kind, res.profile) == ("ledger", None)


# --------------------------------------------------------------------------- deal packs


def _pack(tmp: Path, **deal: Any) -> Path:
    from arcaeon.record.deal import pack

    b, s = _deal_pair(tmp, **deal)
    out = tmp / "DEAL-pack"
    pack(cases.first_object(b)["deal"], b, s, out)
    return out


def _expected_pack(folder: Path) -> tuple[str, dict[str, Any]]:
    from arcaeon.record.deal import dispute

    stored = None
    try:
        doc = json.loads((folder / "verdict.json").read_text())
        stored = doc.get("verdict") if isinstance(doc, dict) else None
        deal = doc["deal"]
    except (OSError, ValueError, KeyError):
        deal = cases.first_object(folder / "buyer.deal.jsonl")["deal"]
    r = dispute(deal, folder / "buyer.deal.jsonl", folder / "seller.deal.jsonl").to_dict()
    agrees = None if not isinstance(stored, str) else stored == r["verdict"]
    word = {"MATCHED": "VERIFIED", "MISSING": "BROKEN", "ALTERED": "BROKEN"}.get(
        r["verdict"], "COULD NOT LOOK"
    )
    if word != "COULD NOT LOOK" and agrees is False:
        word = "BROKEN"
    return word, {
        "deal": r["deal"],
        "stored_verdict": stored,
        "agrees": agrees,
        **{k: r[k] for k in ("verdict", "at", "side", "matched", "counts", "reason_word")},
        "findings": [{k: f[k] for k in ("verdict", "at", "side")} for f in r["findings"]],
        "profile": "deal-pack",
    }


def _edit_verdict(folder: Path) -> None:
    doc = json.loads((folder / "verdict.json").read_text())
    (folder / "verdict.json").write_text(json.dumps({**doc, "verdict": "ALTERED"}))


def _edit_row(folder: Path) -> None:
    p = folder / "buyer.deal.jsonl"
    p.write_text(p.read_text().replace("19.00", "18.00", 1))


PACK_EDITS = {
    "honest": lambda f: None,
    "verdict-edited": _edit_verdict,
    "verdict-deleted": lambda f: (f / "verdict.json").unlink(),
    "timeline-rewritten": lambda f: (f / "timeline.md").write_text("all fine\n"),
    "row-edited": _edit_row,
    "seller-deleted": lambda f: (f / "seller.deal.jsonl").unlink(),
}


@pytest.mark.parametrize("name", sorted(PACK_EDITS))
def test_deal_pack_agrees(tmp_path, name):
    cases.arcaeon()
    folder = _pack(tmp_path)
    PACK_EDITS[name](folder)
    res = checks.run([str(folder)])[0]
    word, detail = _expected_pack(folder)
    assert (res.kind, res.profile, res.ok) == (None, "deal-pack", None)
    assert res.detail == detail
    assert res.verdict == word


def test_an_empty_pack_names_no_deal(tmp_path):
    folder = tmp_path / "DEAL-x"
    folder.mkdir()
    (folder / "buyer.deal.jsonl").write_text("")
    res = checks.run([str(folder)])[0]
    assert res.detail == {
        "deal": None,
        "stored_verdict": None,
        "reason_word": "missing",
        "profile": "deal-pack",
    }


# --------------------------------------------------------------------------- vet grades

SOURCE = (
    "from mcp.server.fastmcp import FastMCP\n\nmcp = FastMCP('k')\n\n\n@mcp.tool()\n"
    "def read_note(path: str) -> str:\n    with open(path) as fh:\n        return fh.read()\n"
)


def _grade(tmp: Path, source: str = SOURCE, target: str = "server.py") -> Path:
    cases.arcaeon()
    from arcaeon.prove.vet.grade import grade_source

    (tmp / "server.py").write_text(source)
    out = tmp / "grade.json"
    out.write_text(grade_source(source, target).to_json())
    return out


def _reference_reproduced(grade: Path, source: Path) -> bool:
    from arcaeon.prove.vet.grade import verify

    prior = json.loads(grade.read_text())
    return bool(verify(prior, source.read_bytes().decode("utf-8", "replace"))["reproduced"])


GRADE_EDITS = {
    "honest": lambda g, s: None,
    "source-edited": lambda g, s: s.write_text(SOURCE + "# x\n"),
    "crlf": lambda g, s: s.write_bytes(s.read_bytes().replace(b"\n", b"\r\n")),
    "verdict-edited": lambda g, s: g.write_text(
        json.dumps({**json.loads(g.read_text()), "verdict": "no findings in checked classes"})
    ),
    "target-moved": lambda g, s: g.write_text(
        json.dumps({**json.loads(g.read_text()), "target": "../../src/server.py"})
    ),
    "tool-version": lambda g, s: g.write_text(
        json.dumps({**json.loads(g.read_text()), "tool_version": "9.9"})
    ),
}


@pytest.mark.parametrize("name", sorted(GRADE_EDITS))
def test_vet_grade_is_never_greener_than_the_reference(tmp_path, name):
    grade = _grade(tmp_path)
    GRADE_EDITS[name](grade, tmp_path / "server.py")
    res = checks.run([str(grade)])[0]
    reproduced = _reference_reproduced(grade, tmp_path / "server.py")
    assert res.profile == "vet-grade" and res.detail["source"] == "server.py"
    if reproduced:
        # the findings need the grader's own checks: never BROKEN, never VERIFIED here
        assert res.verdict == "COULD NOT LOOK" and res.detail["reproduced"] is None
    else:
        assert (res.verdict, res.ok) == ("BROKEN", False)


def test_vet_grade_of_an_empty_file_never_reproduces(tmp_path):
    grade = _grade(tmp_path, source="")
    assert not _reference_reproduced(grade, tmp_path / "server.py")
    assert checks.run([str(grade)])[0].verdict == "BROKEN"


def test_vet_grade_source_found_in_artefacts(tmp_path):
    grade = _grade(tmp_path)
    (tmp_path / "alone").mkdir()
    (tmp_path / "held").mkdir()
    shutil.move(str(grade), tmp_path / "alone" / "grade.json")
    shutil.move(str(tmp_path / "server.py"), tmp_path / "held" / "server.py")
    alone = checks.run([str(tmp_path / "alone" / "grade.json")])[0]
    assert alone.detail == {"source": None, "reason_word": "missing", "profile": "vet-grade"}
    held = checks.run(
        [str(tmp_path / "alone" / "grade.json")], CheckContext(artefacts=str(tmp_path / "held"))
    )[0]
    assert held.detail["source"] == "server.py"


def test_detection_table_is_first_match(tmp_path):
    """A document holding a once receipt's keys and a mandate's is a once receipt (P2
    before P4); detection never raises on a folder it cannot list."""
    obj = {
        "key": "k",
        "state": "never",
        "intent_chain": None,
        "executed_chain": None,
        "ledger_path": "x",
        "ledger_ok": True,
        "spend_cap": {},
    }
    path = tmp_path / "both.json"
    path.write_text(json.dumps(obj))
    from sealscope.core import kinds

    assert _detect.detect(kinds.identify(str(path))).name == "once-receipt"
    assert _mandate.is_mandate(obj)
