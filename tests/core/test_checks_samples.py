"""The samples of the other kinds (`sample_ledgers/kinds/`, made by
`sample_ledgers/make_kinds.py`): `check` gives each its expected verdict, the
reference's own verifiers agree, and the generator rebuilds them byte for byte."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import arcaeon.prove.compact as ref_compact
import arcaeon.prove.continuity as ref_cont
import arcaeon.record.call_record as ref_calls
import arcaeon.record.ledger.artefact as ref_artefact
import arcaeon.record.receipt.core as ref_portable
import arcaeon.save.distill as ref_distill
import pytest
from sealscope.core import checks
from sealscope.core.checks.result import CheckContext

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"
KINDS = SAMPLES / "kinds"

EXPECTED = {
    "receipt.json": ("receipt", "VERIFIED", "self-consistent, content not checked"),
    "distill-receipt.json": ("distill-receipt", "VERIFIED", "structural only"),
    "portable-receipt.json": ("portable-receipt", "VERIFIED", "witness claimed"),
    "continuity-verdict.json": ("continuity-verdict", "BROKEN", ""),
    "artefacts.jsonl": ("ledger", "VERIFIED", "2 artefacts not held"),
    "continuity.calls.jsonl": ("call-record", "VERIFIED", ""),
    "continuity.jsonl": ("ledger", "COULD NOT LOOK", ""),
}


def _check(*names: str, artefacts: Path | None = None) -> list[dict]:
    ctx = CheckContext(artefacts=str(artefacts) if artefacts else None)
    return [r.to_dict() for r in checks.run([str(KINDS / n) for n in names], ctx)]


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_each_sample_gets_its_expected_verdict(name: str) -> None:
    kind, word, bound = EXPECTED[name]
    [got] = _check(name)
    assert (got["kind"], got["verdict"]) == (kind, word)
    assert bound in (got["bound"] or "")


def test_held_things_turn_the_bounds_into_full_checks() -> None:
    [arts, rows] = _check("artefacts.jsonl", "continuity.jsonl", artefacts=KINDS)
    assert [e["held"] for e in arts["detail"]["rows_checked"]] == ["match", "match"]
    assert arts["verdict"] == "VERIFIED" and not arts["bound"]
    assert rows["detail"]["rows_checked"][0]["match"] == "matched"
    assert rows["verdict"] == "VERIFIED"


def _doc(name: str) -> dict:
    return json.loads((KINDS / name).read_text(encoding="utf-8"))


def test_the_reference_agrees_on_every_sample() -> None:
    assert ref_compact.verify_receipt(_doc("receipt.json"))["ok"] is True
    assert ref_distill.verify_receipt(_doc("distill-receipt.json"))["ok"] is True
    text = (KINDS / "portable-receipt.json").read_text(encoding="utf-8")
    ref = ref_portable.verify_receipt(
        json.loads(text), source_text=text, ledger_path=KINDS / "portable.ledger.jsonl"
    )
    assert ref["ok"] is True and ref["ledger"]["status"] == "consistent"
    assert ref["witness"]["verdict"] == "claimed"
    v = ref_cont.verdict_from_dict(_doc("continuity-verdict.json"))
    assert (v.comparison, v.valid) == ("divergence", True)
    assert ref_calls.verify_call_record(KINDS / "continuity.calls.jsonl") == {
        "ok": True,
        "rows": 3,
        "first_break": None,
    }
    for line in (KINDS / "artefacts.jsonl").read_text(encoding="utf-8").splitlines():
        assert ref_artefact.verify_artefact(json.loads(line)["artefact"])["digest_ok"]


def test_the_generator_rebuilds_the_samples_byte_for_byte(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_kinds", SAMPLES / "make_kinds.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.OUT = tmp_path / "kinds"
    mod.main()
    built = {p.name: p.read_bytes() for p in mod.OUT.iterdir()}
    # long-tail/ is make_kinds3.py's (tests/core/test_profiles_samples.py)
    shipped = {p.name: p.read_bytes() for p in KINDS.iterdir() if p.is_file()}
    assert built == shipped
