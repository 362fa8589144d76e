"""The one ledger verdict with its row checks (`verdict.ledger`, KINDS.md §11.2), the
row scan's prefilter, a held artefact checked against its binding, and a stand-alone
receipt's manifest in the drop index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sealscope.core import digest, ledger, verdict
from sealscope.core.checks import CheckContext, ledger_rows
from sealscope.core.checks.artefact import held_file_entry
from sealscope.core.lookup import DropIndex

ROOT = Path(__file__).resolve().parents[2]
KINDS = ROOT / "sample_ledgers" / "kinds"

HOLDS = {"ok": True}
BREAKS = {"ok": False}
BOUNDED = {"ok": None}


def _e(word: str, **kw) -> dict:
    return {"line": 1, "check": "artefact", "verdict": word, **kw}


@pytest.mark.parametrize(
    ("chain", "rows", "want"),
    [
        (HOLDS, [], ("VERIFIED", 0)),
        (HOLDS, [_e("VERIFIED", bound="artefact not held")], ("VERIFIED", 0)),
        (HOLDS, [_e("COULD NOT LOOK")], ("COULD NOT LOOK", 3)),
        (HOLDS, [_e("COULD NOT LOOK"), _e("BROKEN")], ("BROKEN", 1)),
        (BREAKS, [_e("COULD NOT LOOK")], ("BROKEN", 1)),
        (BOUNDED, [_e("VERIFIED")], ("COULD NOT LOOK", 3)),
        (BOUNDED, [_e("BROKEN")], ("BROKEN", 1)),
        (HOLDS, [_e("SOMETHING ELSE")], ("COULD NOT LOOK", 3)),  # not a verdict: 3
    ],
)
def test_the_ledger_verdict_is_the_worst_of_chain_receipts_and_rows(chain, rows, want):
    assert verdict.ledger(chain, (), rows) == want


def test_a_failing_receipt_still_breaks_it_and_a_bounded_one_does_not():
    assert verdict.ledger(HOLDS, [{"ok": False}], [_e("COULD NOT LOOK")]) == ("BROKEN", 1)
    bounded = {"ok": True, "verified_scope": "bounded_no_content"}
    assert verdict.ledger(HOLDS, [bounded], [_e("VERIFIED")]) == ("VERIFIED", 0)


def test_beside_names_receipts_scope_and_the_rows_bound():
    out = verdict.Outcome("VERIFIED", 0)
    bounded = {"ok": True, "verified_scope": "bounded_no_content"}
    assert verdict.beside(out, [bounded], "2 artefacts not held") == (
        "1 receipt self-consistent, content not checked; 2 artefacts not held"
    )
    assert verdict.beside(out, [], "") == ""
    assert verdict.beside(verdict.Outcome("BROKEN", 1), [], "2 artefacts not held") == ""


def test_rows_bound_counts_unheld_artefacts_only():
    rows = [
        _e("VERIFIED", bound="artefact not held"),
        _e("VERIFIED", bound="artefact not held"),
        _e("VERIFIED", bound=""),
    ]
    assert ledger_rows.rows_bound(rows) == "2 artefacts not held"
    assert ledger_rows.rows_bound([]) == ""


def test_the_prefilter_misses_no_row_spelled_with_escapes(tmp_path):
    """Only lines holding a row check's literal name (or a \\u escape, which can spell
    one) are parsed: the entries are exactly those of a full parse of every line."""
    p = tmp_path / "escaped.jsonl"
    cv = json.loads((KINDS / "continuity.jsonl").read_text())
    cv.pop("chain")
    cv["kind"] = "continuity_verify"
    art = json.loads((KINDS / "artefacts.jsonl").read_text().splitlines()[0])
    art.pop("chain")
    ledger.append(p, {"op": "start", "ts": "2026-03-02T10:00:00Z"})
    ledger.append(p, cv)
    ledger.append(p, art)
    text = p.read_text()
    # the same rows with their keys and kinds written through \u escapes
    escaped = text.replace('"continuity_verify"', '"continuity\\u005fverify"').replace(
        '"artefact": {', '"\\u0061rtefact": {'
    )
    assert escaped != text and "continuity_verify" not in escaped
    q = tmp_path / "escaped2.jsonl"
    q.write_text(escaped)
    got = [(e["line"], e["check"]) for e in ledger_rows.rows_checked(str(q), CheckContext())]
    assert got == [(2, "continuity-verify"), (3, "artefact")]
    # without the needles (every line parsed) the same entries
    full = []
    for line, row in ledger.iter_rows(str(q)):
        full += ledger_rows.row_entries(line, row, CheckContext(), [])
    assert [(e["line"], e["check"]) for e in full] == got


def test_a_held_artefact_file_matches_or_not(tmp_path):
    art = json.loads((KINDS / "artefacts.jsonl").read_text().splitlines()[0])["artefact"]
    good = held_file_entry(1, art, str(KINDS / "artefact-report.md"))
    assert (good["held"], good["verdict"], good["bound"]) == ("match", "VERIFIED", "")
    other = tmp_path / "renamed-but-equal.md"
    other.write_bytes((KINDS / "artefact-report.md").read_bytes())
    assert held_file_entry(1, art, str(other))["held"] == "match"  # the file decides, not its name
    bad = tmp_path / "artefact-report.md"
    bad.write_text("something else\n")
    got = held_file_entry(1, art, str(bad))
    assert (got["held"], got["verdict"], got["held_file"]) == ("mismatch", "BROKEN", str(bad))
    assert held_file_entry(1, art, str(tmp_path / "missing"))["verdict"] == "BROKEN"
    broken = dict(art, digest="sha512:raw-bytes:v1:" + "0" * 64)
    got = held_file_entry(1, broken, str(KINDS / "artefact-report.md"))
    assert (got["artefact_verdict"], got["verdict"]) == ("unknown_algorithm", "BROKEN")
    assert held_file_entry(1, "not an object", str(bad))["verdict"] == "BROKEN"
    # a json-c14n binding: the held file parsed and canonicalised
    dec = json.loads((KINDS / "artefacts.jsonl").read_text().splitlines()[1])["artefact"]
    assert held_file_entry(2, dec, str(KINDS / "artefact-decision.json"))["held"] == "match"


def test_a_receipt_files_manifest_is_indexed_as_one_row_on_line_1():
    doc = json.loads((KINDS / "receipt.json").read_text())
    idx = DropIndex()
    idx.add_receipt("receipt.json", doc)
    idx.add_receipt("not-a-receipt.json", ["a list"])
    assert idx.rows == 1 and idx.entries == len(doc["dropped"]["items"])
    d = digest.item_digest("assistant: done").digest
    assert [(str(loc.ledger), loc.line, loc.position) for loc in idx.where(d)] == [
        ("receipt.json", 1, 1)
    ]
