"""Portable receipts and stored continuity verdicts under `check`, differential against
the reference's own verifiers (`arcaeon.record.receipt.core.verify_receipt`,
`arcaeon.prove.continuity.verdict_from_dict`) on evidence its writers made: honest, and
with one field changed at random."""

from __future__ import annotations

import json
from pathlib import Path

import arcaeon.prove.continuity as cont
import arcaeon.record.receipt.core as rcore
import arcaeon.record.receipt.verify_batch as batch
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sealscope.core import checks, kinds
from sealscope.core.checks.result import CheckContext

SETTINGS = settings(
    max_examples=20,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
SMALL = st.one_of(
    st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=4), st.just({}), st.just([1])
)


def _ours(*paths: Path, artefacts: Path | None = None) -> list[dict]:
    ctx = CheckContext(artefacts=str(artefacts) if artefacts else None)
    return [r.to_dict() for r in checks.run([str(p) for p in paths], ctx)]


# ----------------------------------------------------------------------- portable


def _issue(folder: Path, n: int) -> dict:
    folder.mkdir(parents=True, exist_ok=True)
    ledger = folder / "issuer.jsonl"
    receipt = None
    for i in range(n):
        receipt = rcore.build_receipt(
            "cite",
            {"doc": f"d{i}"},
            [{"name": "c", "score": i}],
            {"proves": ["x"], "does_not_prove": ["y"]},
            ledger_path=ledger,
            namespace="ns",
            witness=True,
            anchor=False,
            issued_at="2026-12-01T00:00:00Z",
        )
    assert receipt is not None
    return receipt


def _agree_portable(path: Path, text: str) -> None:
    receipt = json.loads(text)
    found, _claims = batch.resolve_ledger(receipt, path, None)
    ref = rcore.verify_receipt(receipt, ledger_path=found, source_text=text)
    [got] = _ours(path)
    assert got["kind"] == "portable-receipt"
    assert got["ok"] is ref["ok"]
    assert got["verdict"] == ("VERIFIED" if ref["ok"] else "BROKEN")
    d = got["detail"]
    assert d["body_digest_ok"] is ref["body_digest_ok"]
    assert d["ledger"]["status"] == ref["ledger"]["status"]
    assert d["witness"]["verdict"] == ref["witness"]["verdict"]
    assert d["attestation_signature"]["verdict"] == ref["attestation_signature"]["verdict"]
    assert d["duplicate_keys"] is ("duplicate_keys" in ref)


@SETTINGS
@given(n=st.integers(1, 3), data=st.data())
def test_portable_receipt_agrees_with_the_reference(
    tmp_path: Path, monkeypatch, n: int, data: st.DataObject
) -> None:
    monkeypatch.delenv("ARCAEON_WITNESS_URL", raising=False)
    folder = tmp_path / f"r{data.draw(st.integers(0, 10**9))}"
    receipt = _issue(folder, n)
    path = folder / "r.json"
    text = json.dumps(receipt, indent=1, ensure_ascii=False)
    path.write_text(text, encoding="utf-8")
    _agree_portable(path, text)
    where = data.draw(st.sampled_from(["body", "ledger", "witness", "pin", "sig", "dup"]))
    doc = json.loads(text)
    if where == "body":
        doc[data.draw(st.sampled_from(list(rcore.BODY_FIELDS)))] = data.draw(SMALL)
    elif where == "ledger":
        doc["ledger"][data.draw(st.sampled_from(["rows", "chain", "path", "namespace"]))] = (
            data.draw(SMALL)
        )
    elif where == "witness":
        doc["witness"][data.draw(st.sampled_from(["rows", "chain", "status", "kind"]))] = data.draw(
            SMALL
        )
    elif where == "pin":
        doc["witness"]["pin"][data.draw(st.sampled_from(sorted(doc["witness"]["pin"])))] = (
            data.draw(SMALL)
        )
    elif where == "sig":
        doc["attestation_signature"] = data.draw(
            st.one_of(SMALL, st.just({"body_digest": doc["body_digest"], "value": "x"}))
        )
    text = json.dumps(doc, indent=1, ensure_ascii=False)
    if where == "dup":
        text = text.replace('"kind": "cite"', '"kind": "cite", "kind": "cite"', 1)
    path.write_text(text, encoding="utf-8")
    if kinds.identify(path).kind == "portable-receipt":
        _agree_portable(path, text)


def test_portable_ledger_found_in_artefacts_when_not_beside(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.delenv("ARCAEON_WITNESS_URL", raising=False)
    receipt = _issue(tmp_path / "issuer", 2)
    alone = tmp_path / "alone"
    alone.mkdir()
    (alone / "r.json").write_text(json.dumps(receipt, indent=1), encoding="utf-8")
    [bare] = _ours(alone / "r.json")
    [held] = _ours(alone / "r.json", artefacts=tmp_path / "issuer")
    assert (bare["verdict"], bare["detail"]["ledger"]["status"]) == ("VERIFIED", "not_checked")
    assert "ledger not found" in bare["bound"]
    assert (held["verdict"], held["detail"]["ledger"]["status"]) == ("VERIFIED", "consistent")


# ----------------------------------------------------------------------- verdicts

MANIFEST = {
    "identity_anchors": ["alpha", "beta"],
    "open_commitments": ["ship v2"],
    "canon_pointers": ["doc/a.md"],
}


def _verdict(strict: bool, wrong: int) -> dict:
    snap = cont.snapshot(MANIFEST)
    restated = cont.restate(MANIFEST)
    for pid in sorted(restated)[:wrong]:
        restated[pid] = "something else"
    return cont.verify_continuation(snap, restated=restated, strict=strict).to_dict()


def _agree_verdict(path: Path, d: dict) -> None:
    try:
        v = cont.verdict_from_dict(d)
        ref = {
            "loaded": True,
            "error": None,
            "faithful": v.faithful,
            "valid": v.valid,
            "comparison": v.comparison,
            "verdict_digest": v.verdict_digest,
        }
    except Exception as e:  # noqa: BLE001 - the refusal's class is the answer
        ref = {"loaded": False, "error": type(e).__name__}
    [got] = _ours(path)
    assert got["kind"] == "continuity-verdict"
    assert got["ok"] is ref["loaded"]
    for k, want in ref.items():
        assert got["detail"][k] == want, k
    if not ref["loaded"]:
        assert got["verdict"] == "BROKEN"
    else:
        assert got["verdict"] == {
            "exact_match": "VERIFIED",
            "containment_only": "COULD NOT LOOK",
        }.get(ref["comparison"], "BROKEN")


@SETTINGS
@given(strict=st.booleans(), wrong=st.integers(0, 2), data=st.data())
def test_stored_verdict_agrees_with_the_reference_loader(
    tmp_path: Path, strict: bool, wrong: int, data: st.DataObject
) -> None:
    d = _verdict(strict, wrong)
    path = tmp_path / "v.json"
    path.write_text(json.dumps(d, indent=2), encoding="utf-8")
    _agree_verdict(path, d)
    key = data.draw(
        st.sampled_from(
            [
                "faithful",
                "valid",
                "divergences",
                "comparison",
                "policy",
                "verdict_digest",
                "manifest_digest",
                "probe_set_digest",
                "notes",
                "receipt",
            ]
        )
    )
    d = json.loads(json.dumps(d))
    if data.draw(st.booleans()):
        d[key] = data.draw(st.one_of(SMALL, st.just("exact_match"), st.just({"strict": "yes"})))
    else:
        d.pop(key)
    path.write_text(json.dumps(d, indent=2), encoding="utf-8")
    _agree_verdict(path, d)


def test_continuity_verify_rows_join_the_verdicts_named_on_the_command_line(tmp_path: Path) -> None:
    snap = cont.snapshot(MANIFEST)
    ledger = tmp_path / "seal.jsonl"
    restated = cont.restate(MANIFEST)
    v = cont.verify_continuation(snap, restated=restated, ledger_path=ledger)
    vfile = tmp_path / "held" / "exact.json"
    vfile.parent.mkdir()
    vfile.write_text(json.dumps(v.to_dict(), indent=2), encoding="utf-8")
    [alone] = _ours(ledger)
    [joined, own] = _ours(ledger, vfile)
    [from_dir] = _ours(ledger, artefacts=vfile.parent)
    assert alone["verdict"] == "COULD NOT LOOK"
    assert alone["detail"]["rows_checked"][0]["match"] == "unmatched"
    assert joined["verdict"] == "VERIFIED" == own["verdict"]
    assert joined["detail"]["rows_checked"][0]["match"] == "matched"
    assert from_dir["detail"]["rows_checked"][0]["match"] == "matched"


def test_a_rechained_row_that_misstates_its_verdict_is_a_mismatch(tmp_path: Path) -> None:
    from sealscope.core import ledger

    snap = cont.snapshot(MANIFEST)
    restated = cont.restate(MANIFEST)
    restated[sorted(restated)[0]] = "something else"
    v = cont.verify_continuation(snap, restated=restated)
    vfile = tmp_path / "divergence.json"
    vfile.write_text(json.dumps(v.to_dict(), indent=2), encoding="utf-8")
    led = tmp_path / "rows.jsonl"
    ledger.append(
        led,
        {
            "kind": "continuity_verify",
            "label": "continuity",
            "manifest_digest": v.manifest_digest,
            "faithful": True,
            "valid": True,
            "n_divergences": 0,
            "schema": v.schema,
            "comparison": "exact_match",
            "policy": v.policy,
            "verdict_digest": v.verdict_digest,
        },
    )
    [row, own] = _ours(led, vfile)
    entry = row["detail"]["rows_checked"][0]
    assert row["detail"]["ok"] is True  # the chain holds: the row was re-chained
    assert (entry["match"], entry["ok"], row["verdict"]) == ("mismatch", False, "BROKEN")
    assert set(entry["differs"]) == {"faithful", "comparison", "n_divergences"}
    assert own["verdict"] == "BROKEN" and own["detail"]["comparison"] == "divergence"
