"""Once ledgers and stored once receipts against the reference (KINDS-3.md §16): every
key's state read by `core.profiles.once` equals `arcaeon.record.once.receipt`'s, field
by field, over generated ledgers (written by the reference's own `guard`/`complete`)
honest and tampered; a stored receipt's check agrees with a fresh receipt."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from sealscope.core import checks
from sealscope.core.checks.result import CheckContext
from sealscope.core.profiles import once as _once

from tests.core import profiles_cases as cases

FIELDS = ("state", "intent_chain", "executed_chain", "outcome_digest", "ledger_ok")


def _once_ledger(path: Path) -> Path:
    cases.arcaeon()
    from arcaeon.record.once import complete, guard

    with guard("refund:1", ledger_path=path, store_outcome=True) as g:
        g.done({"refund": "9.50"})
    with guard("deploy:2", ledger_path=path) as g:
        g.done("ok")
    with guard("email:3", ledger_path=path):
        pass  # left indeterminate
    with guard("charge:4", ledger_path=path, store_outcome=True) as g:
        g.done(math.nan)
    with guard("ship:5", ledger_path=path):
        pass
    complete("ship:5", {"tracking": "Z1"}, ledger_path=path)
    return path


def _reference_keys(path: Path) -> list[dict]:
    from arcaeon.record.once import receipt

    out, seen = [], []
    for row in cases.rows_of_lenient(path):
        once_row = isinstance(row, dict) and row.get("event") in _once.EVENTS and "key" in row
        if once_row and row["key"] not in seen:
            seen.append(row["key"])
    for k in seen:
        r = receipt(k, ledger_path=path).to_dict()
        out.append({"key": k if isinstance(k, str) else str(k), **{f: r[f] for f in FIELDS}})
    return out


def _ours(path: Path) -> list[dict]:
    res = checks.run([str(path)])[0]
    assert res.profile == _once.PROFILE_LEDGER, res.profile
    return res.detail["once"]["keys"]


ONCE_TAMPERINGS = {
    **cases.TAMPERINGS,
    "digest-edited": cases.edit_in_place("outcome_digest", "sha256:json-c14n:v1:" + "0" * 64, 2),
    "digest-rechained": cases.rechain_edit("outcome_digest", "sha256:json-c14n:v1:" + "1" * 64, 2),
    "numeric-key": cases.rechain_edit("key", 5, 3),
    "executed-twice": lambda src, dst: cases.rechain(
        dst, cases.rows_of(src) + [dict(cases.rows_of(src)[1], outcome_digest=None)]
    ),
}


@pytest.mark.parametrize("name", sorted(ONCE_TAMPERINGS))
def test_key_states_agree_with_the_reference(tmp_path, name):
    src = _once_ledger(tmp_path / "ops.log.jsonl")
    path = ONCE_TAMPERINGS[name](src, tmp_path / f"{name}.jsonl")
    res = checks.run([str(path)])[0]
    if res.profile is None:  # the first row no longer a once row: chain only
        first = cases.first_object(path)
        assert not (isinstance(first, dict) and first.get("event") in _once.EVENTS)
        return
    assert _ours(path) == _reference_keys(path)


def test_honest_ledger_names_its_indeterminate_key(tmp_path):
    path = _once_ledger(tmp_path / "ops.log.jsonl")
    res = checks.run([str(path)])[0]
    assert res.verdict == "VERIFIED"
    assert res.detail["once"]["indeterminate"] == 1
    assert "1 key indeterminate" in res.reason


def _saved_receipt(ledger: Path, key: str, out: Path) -> Path:
    from arcaeon.record.once import receipt

    out.write_text(json.dumps(receipt(key, ledger_path=ledger).to_dict(), indent=1))
    return out


@pytest.mark.parametrize(
    ("edit", "differs", "verdict"),
    [
        ({}, [], "VERIFIED"),
        ({"state": "intent"}, ["state"], "BROKEN"),
        ({"executed_chain": "0" * 32}, ["executed_chain"], "BROKEN"),
        ({"outcome": "not compared"}, [], "VERIFIED"),
        ({"ledger_ok": False}, [], "VERIFIED"),
    ],
)
def test_stored_receipt_is_rederived(tmp_path, edit, differs, verdict):
    cases.arcaeon()
    from arcaeon.record.once import receipt

    ledger = _once_ledger(tmp_path / "ops.log.jsonl")
    saved = _saved_receipt(ledger, "refund:1", tmp_path / "receipt.json")
    stored = {**json.loads(saved.read_text()), **edit}
    saved.write_text(json.dumps(stored, indent=1))
    res = checks.run([str(saved)])[0]
    fresh = receipt("refund:1", ledger_path=ledger).to_dict()
    assert res.profile == _once.PROFILE_RECEIPT and res.kind is None
    assert res.detail["differs"] == differs
    assert res.detail["state"] == fresh["state"] and res.detail["ledger_ok"] is fresh["ledger_ok"]
    assert res.verdict == verdict


def test_stored_receipt_without_its_ledger_could_not_look(tmp_path):
    cases.arcaeon()
    ledger = _once_ledger(tmp_path / "ops.log.jsonl")
    (tmp_path / "alone").mkdir()
    saved = _saved_receipt(ledger, "deploy:2", tmp_path / "alone" / "receipt.json")
    res = checks.run([str(saved)])[0]
    assert (res.verdict, res.detail["reason_word"], res.detail["ledger"]) == (
        "COULD NOT LOOK",
        "missing",
        None,
    )
    held = checks.run([str(saved)], CheckContext(artefacts=str(tmp_path)))[0]
    assert held.verdict == "VERIFIED"


def test_a_later_row_makes_an_old_receipt_differ(tmp_path):
    """Quirk 58: a receipt taken at intent, the key completed afterwards."""
    cases.arcaeon()
    from arcaeon.record.once import complete

    ledger = _once_ledger(tmp_path / "ops.log.jsonl")
    saved = _saved_receipt(ledger, "email:3", tmp_path / "receipt.json")
    complete("email:3", "sent", ledger_path=ledger)
    res = checks.run([str(saved)])[0]
    assert res.verdict == "BROKEN"
    assert res.detail["differs"] == ["state", "executed_ts", "executed_chain", "outcome_digest"]
