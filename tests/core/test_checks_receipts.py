"""Receipt files and distill receipts under `check`, differential against the
reference's own verifiers (`arcaeon.prove.compact.verify_receipt`,
`arcaeon.save.distill.verify_receipt`) on evidence the reference's writers made:
honest, and with one field or one byte changed at random."""

from __future__ import annotations

import json
import math
from pathlib import Path

import arcaeon.prove.compact as compact
import arcaeon.save.distill as ref_distill
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sealscope.core import checks, kinds
from sealscope.core.checks import distill as s_distill
from sealscope.core.checks.result import CheckContext

SETTINGS = settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
ITEM = st.one_of(
    st.text(max_size=12),
    st.integers(-5, 5),
    st.dictionaries(st.text(max_size=4), st.integers(0, 3), max_size=2),
)


def _reference_row(tmp: Path, pre: list, keep: int) -> dict:
    r = compact.CompactionReceipt.open(pre)
    r.record_kept(pre[:keep])
    ledger = tmp / "ref.jsonl"
    ledger.unlink(missing_ok=True)
    return r.seal(ledger, compactor="agent-x", method="fifo-truncate")


def _reference_answer(text: str) -> tuple[str | None, dict | None]:
    """(error class, result) of `arcaeon compact FILE` on this text."""
    row = json.loads(text)
    try:
        return None, compact.verify_receipt(row)
    except Exception as e:  # noqa: BLE001 - the reference raising is an answer
        return type(e).__name__, None


def _ours(path: Path) -> dict:
    [res] = checks.run([str(path)], CheckContext())
    return res.to_dict()


def _agree(path: Path, text: str) -> None:
    got = _ours(path)
    error, ref = _reference_answer(text)
    if error is not None:
        assert got["verdict"] == "COULD NOT LOOK" and got["ok"] is None
        assert got["detail"]["error"] == error
        return
    assert got["kind"] == "receipt"
    assert got["ok"] is ref["ok"]
    assert got["verdict"] == ("VERIFIED" if ref["ok"] else "BROKEN")
    for key in ("self_consistent", "content", "schema", "understatement_check", "verified_scope"):
        assert got["detail"][key] == ref[key], key


@SETTINGS
@given(pre=st.lists(ITEM, min_size=1, max_size=6), data=st.data())
def test_receipt_file_honest_and_one_field_changed_agree(
    tmp_path: Path, pre: list, data: st.DataObject
) -> None:
    row = _reference_row(tmp_path, pre, data.draw(st.integers(0, len(pre))))
    path = tmp_path / "receipt.json"
    for variant in range(2):
        doc = dict(row)
        doc.pop("chain", None)  # a stand-alone receipt file, not a ledger row
        if variant:
            key = data.draw(st.sampled_from(sorted(doc)))
            doc[key] = data.draw(
                st.one_of(st.none(), st.integers(-2, 2), st.text(max_size=3), st.just({"count": 1}))
            )
        text = json.dumps(doc, indent=2)
        path.write_text(text, encoding="utf-8")
        assert kinds.identify(path).kind == "receipt"
        _agree(path, text)


@SETTINGS
@given(pre=st.lists(ITEM, min_size=1, max_size=5), data=st.data())
def test_receipt_file_one_byte_changed_agrees(
    tmp_path: Path, pre: list, data: st.DataObject
) -> None:
    row = _reference_row(tmp_path, pre, 1)
    row.pop("chain")
    raw = bytearray(json.dumps(row, indent=2).encode())
    i = data.draw(st.integers(0, len(raw) - 1))
    raw[i] = data.draw(st.sampled_from(b'0123456789abcdefx" {}:,'))
    path = tmp_path / "receipt.json"
    path.write_bytes(bytes(raw))
    try:
        value = json.loads(raw.decode("utf-8"))
    except ValueError:
        value = None
    got = _ours(path)
    found = kinds.identify(path).kind
    if found != "receipt":  # no longer a receipt document: none, exit 3
        assert got["kind"] is found and got["exit_code"] in (1, 3)
        return
    assert isinstance(value, dict)
    _agree(path, raw.decode("utf-8"))


def test_nan_compactor_could_not_look_as_the_reference_raises(tmp_path: Path) -> None:
    row = _reference_row(tmp_path, ["a", "b"], 1)
    row.pop("chain")
    text = json.dumps(row, indent=2).replace('"agent-x"', "NaN")
    path = tmp_path / "nan.json"
    path.write_text(text, encoding="utf-8")
    assert math.isnan(json.loads(text)["compactor"])
    _agree(path, text)
    assert _ours(path)["detail"]["error"] == "ValueError"


def test_receipt_row_with_chain_on_one_line_is_a_ledger(tmp_path: Path) -> None:
    row = _reference_row(tmp_path, ["a", "b"], 1)
    path = tmp_path / "row.json"
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    assert kinds.identify(path).kind == "ledger"
    assert _ours(path)["detail"]["rows_checked"][0]["check"] == "compaction-receipt"


# ----------------------------------------------------------------------- distill

VALUE = st.recursive(
    st.one_of(st.text(max_size=40), st.integers(), st.booleans()),
    lambda c: st.lists(c, max_size=6) | st.dictionaries(st.text(max_size=5), c, max_size=5),
    max_leaves=30,
)


def _distilled(value: object, budget: int) -> dict:
    try:
        return ref_distill.distill(value, budget=budget).receipt.to_dict()
    except TypeError:  # a value the reference's writer itself cannot cut
        assume(False)
        raise


@SETTINGS
@given(value=VALUE, budget=st.integers(1, 40), data=st.data())
def test_distill_receipt_agrees_with_the_reference(
    tmp_path: Path, value: object, budget: int, data: st.DataObject
) -> None:
    rec = _distilled(value, budget)
    path = tmp_path / "d.json"
    for variant in range(3):
        doc = json.loads(json.dumps(rec))
        if variant == 1:
            key = data.draw(st.sampled_from(["full", "distilled", "drops", "truncated", "schema"]))
            doc[key] = data.draw(
                st.one_of(
                    st.none(),
                    st.booleans(),
                    st.integers(-1, 1),
                    st.just({"digest": "x", "bytes": -1}),
                    st.just([]),
                )
            )
            if key == "schema":  # still classified by its schema: a later version
                doc[key] = "arcaeon-distill:receipt:v2"
        if variant == 2:
            target = data.draw(st.sampled_from(["full", "distilled"]))
            doc[target]["bytes"] = data.draw(st.sampled_from([-1, True, 1.5, 0, "3"]))
        path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
        ref = ref_distill.verify_receipt(doc)
        got = _ours(path)
        assert got["kind"] == "distill-receipt"
        assert got["ok"] is ref["ok"] and got["detail"]["verified_scope"] == ref["verified_scope"]
        assert got["verdict"] == ("VERIFIED" if ref["ok"] else "BROKEN")
        assert s_distill.verify_drop_receipt(doc)["notes"][:-1] == ref["notes"][:-1]


def test_distill_cli_document_checks_its_receipt_member(tmp_path: Path) -> None:
    res = ref_distill.distill("x" * 4000, budget=10)
    doc = {
        "content": res.content,
        "strategy": res.strategy,
        "est_tokens_before": 1,
        "est_tokens_after": 1,
        "truncated": True,
        "receipt": res.receipt.to_dict(),
    }
    path = tmp_path / "distill.out"
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    got = _ours(path)
    assert (got["kind"], got["verdict"], got["detail"]["source"]) == (
        "distill-receipt",
        "VERIFIED",
        "receipt member",
    )
    doc["receipt"]["truncated"] = not doc["receipt"]["truncated"]
    path.write_text(json.dumps(doc, indent=1), encoding="utf-8")
    assert _ours(path)["verdict"] == "BROKEN"
