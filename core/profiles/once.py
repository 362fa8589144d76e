"""Executed-once ledgers and stored once receipts (KINDS-3.md §16).

A once ledger holds `{"event": "once.intent", "key"}` rows written before a guarded
effect and `{"event": "once.executed", "key", "outcome_digest"}` rows after it. A
key's state is read off the rows, the last row of the key winning: an intent row sets
`intent` (and forgets any executed fields), an executed row sets `executed` with its
`ts`, `chain` and `outcome_digest`; no row is `never`. The key looked up is the key's
`str()`, matched against rows' `key` values as they are, so a non-string key (`5`)
matches no row and reads `never` (quirk 56); several executed rows are one execution,
the last one's fields (quirk 57). The chain's own verdict (`ledger_ok`) rides on every
key; no state is a finding (an indeterminate key is named, not failed).

A stored once receipt (the saved `Receipt`) is re-derived from the ledger its
`ledger_path` names (its basename, beside the receipt, else in `--artefacts`): it is
BROKEN when the ledger's chain is broken or a stored field differs from the fresh
one, COULD NOT LOOK when the ledger is not found or its chain only verified within a
bound, else VERIFIED. A receipt is a snapshot: a later row for its key makes an
honest old receipt differ (quirk 58).
"""

from __future__ import annotations

import os
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core import ledger_read as _ledger_read
from sealscope.core import verdict as _verdict
from sealscope.core.checks._read import NotADocument, read_document
from sealscope.core.checks.result import CheckContext, KindCheck
from sealscope.core.profiles import reading as _reading

__all__ = [
    "PROFILE_LEDGER",
    "PROFILE_RECEIPT",
    "STATES",
    "RECEIPT_KEYS",
    "COMPARED_FIELDS",
    "is_receipt",
    "key_states",
    "receipt_of",
    "ledger_detail",
    "row_states",
    "check_receipt",
]

PROFILE_LEDGER = "once-ledger"
PROFILE_RECEIPT = "once-receipt"
INTENT = "once.intent"
EXECUTED = "once.executed"
EVENTS = (INTENT, EXECUTED)
STATES = ("never", "intent", "executed")
RECEIPT_KEYS = ("key", "state", "intent_chain", "executed_chain", "ledger_path", "ledger_ok")
COMPARED_FIELDS = (
    "key",
    "state",
    "intent_ts",
    "intent_chain",
    "executed_ts",
    "executed_chain",
    "outcome_digest",
)


def is_receipt(value: Any) -> bool:
    """KINDS-3.md P2: a stored once receipt's keys, with a known state."""
    return (
        isinstance(value, dict)
        and all(k in value for k in RECEIPT_KEYS)
        and value.get("state") in STATES
    )


def _fresh(key: str) -> dict[str, Any]:
    return {
        "key": key,
        "state": "never",
        "intent_ts": None,
        "intent_chain": None,
        "executed_ts": None,
        "executed_chain": None,
        "outcome_digest": None,
    }


def _apply(state: dict[str, Any], row: dict[str, Any]) -> None:
    event = row.get("event")
    if event == INTENT:
        state.update(
            state="intent",
            intent_ts=row.get("ts"),
            intent_chain=row.get("chain"),
            executed_ts=None,
            executed_chain=None,
            outcome_digest=None,
        )
    elif event == EXECUTED:
        state.update(
            state="executed",
            executed_ts=row.get("ts"),
            executed_chain=row.get("chain"),
            outcome_digest=row.get("outcome_digest"),
        )


def key_states(path: str) -> list[tuple[Any, dict[str, Any]]]:
    """(key as found, its receipt fields) for every key of a once row in the ledger,
    first-seen order, duplicates (as JSON values) dropped: one pass finds the keys, a
    second reads their states, both through one open file. OSError when the ledger
    cannot be read."""
    with _reading.one_file(path) as src:
        return _key_states(src)


def _key_states(path: str) -> list[tuple[Any, dict[str, Any]]]:
    found: list[Any] = []
    seen: set[Any] = set()
    for _n, row in _reading.object_rows(path):
        if row.get("event") in EVENTS and "key" in row:
            try:
                ident = _ident(row["key"])
            except RecursionError:  # a key nested too deep to compare: its own
                ident = ("r", len(found))
            if ident not in seen:
                seen.add(ident)
                found.append(row["key"])
    states = {str(k): _fresh(str(k)) for k in found}
    if states:
        for _n, row in _reading.object_rows(path):
            key = row.get("key")
            if isinstance(key, str) and key in states:
                _apply(states[key], row)
    return [(k, states[str(k)]) for k in found]


def _ident(value: Any) -> Any:
    """A hashable identity of a JSON value: true and 1 differ, 1 and 1.0 do not."""
    if isinstance(value, bool) or value is None:
        return ("c", value)
    if isinstance(value, float) and value.is_integer():
        return ("n", int(value))
    if isinstance(value, (int, float)):
        return ("n", value)
    if isinstance(value, str):
        return ("s", value)
    if isinstance(value, list):
        return ("l", tuple(_ident(v) for v in value))
    if isinstance(value, dict):
        return ("d", tuple(sorted((k, _ident(v)) for k, v in value.items())))
    return ("x", repr(value))


def receipt_of(key: str, path: str) -> tuple[dict[str, Any], _ledger.VerifyResult]:
    """The fresh receipt of one key (the compared fields) and the chain's verdict,
    both read through one open file."""
    state = _fresh(key)
    with _reading.one_file(path) as src:
        res = _ledger.verify(src)
        try:
            for _n, row in _reading.object_rows(src):
                if row.get("key") == key:
                    _apply(state, row)
        except OSError:
            pass  # the chain walk already says it could not be read
    return state, res


def ledger_detail(path: str, chain_ok: bool | None) -> tuple[dict[str, Any], str]:
    """`detail.once` of a once ledger whose chain answered `chain_ok`, and the note said
    beside its word ("" when no key is indeterminate)."""
    try:
        keys = key_states(path)
    except OSError:
        keys = []
    entries = [
        {
            "key": k if isinstance(k, str) else str(k),
            "state": s["state"],
            "intent_chain": s["intent_chain"],
            "executed_chain": s["executed_chain"],
            "outcome_digest": s["outcome_digest"],
            "ledger_ok": chain_ok,
        }
        for k, s in keys
    ]
    pending = sum(1 for e in entries if e["state"] == "intent")
    note = (
        f"{_verdict.plural(pending, 'key')} indeterminate: intent without executed"
        if pending
        else ""
    )
    return {"keys": entries, "indeterminate": pending}, note


def row_states(path: str) -> dict[int, str]:
    """line → the state of its key, for every once row of the ledger (lines numbered
    as the verifier numbers them): what a viewer's row badge shows. {} when the file
    cannot be read."""
    try:
        states = {str(k): s["state"] for k, s in key_states(path)}
        out: dict[int, str] = {}
        for line, row in _ledger_read.iter_rows(path, needles=(b"once.", b"\\u")):
            if isinstance(row, dict) and row.get("event") in EVENTS and "key" in row:
                key = row["key"]
                out[line] = states.get(key, "never") if isinstance(key, str) else "never"
        return out
    except (OSError, ValueError):
        return {}


def _held(path: str, name: str, ctx: CheckContext) -> str | None:
    for folder in (os.path.dirname(path), ctx.artefacts):
        if folder is None:
            continue
        cand = os.path.join(folder, name)
        if os.path.isfile(cand):
            return cand
    return None


def _basename(value: Any) -> str:
    text = value if isinstance(value, str) else ""
    return os.path.basename(text.replace("\\", "/")) if text else ""


def check_receipt(path: str, ctx: CheckContext, stored: dict[str, Any] | None = None) -> KindCheck:
    """The check of a stored once receipt (§16.4). Never raises."""
    if stored is None:
        try:
            _text, stored = read_document(path)
        except (OSError, NotADocument) as e:
            return KindCheck(
                path, None, None, {"reason_word": "unreadable", "error": str(e)}, reason=str(e)
            )
    assert stored is not None
    name = _basename(stored.get("ledger_path"))
    held = _held(path, name, ctx) if name and name not in (".", "..") else None
    if held is None:
        return KindCheck(
            path,
            None,
            None,
            {"ledger": None, "reason_word": "missing"},
            word=_verdict.COULD_NOT_LOOK,
            reason=f"the ledger {name or '(unnamed)'} is not beside the receipt nor in --artefacts",
        )
    fresh, res = receipt_of(str(stored.get("key")), held)
    differs = [f for f in COMPARED_FIELDS if not _same(stored.get(f), fresh[f])]
    ok: bool | None
    if res.ok is False or differs:
        ok = False
    else:
        ok = True if res.ok is True else None
    detail = {"ledger": name, "state": fresh["state"], "ledger_ok": res.ok, "differs": differs}
    if differs:
        why = "the receipt differs from its ledger in " + ", ".join(differs)
    elif res.ok is False:
        why = f"its ledger does not verify: {res.first_break or 'chain broken'}"
    elif res.ok is None:
        why = f"its ledger verifies only within a bound ({res.verified_scope})"
    else:
        why = f"key state {fresh['state']}, as its ledger says"
    return KindCheck(path, None, ok, detail, reason=why)


def _same(a: Any, b: Any) -> bool:
    """JSON equality: true and 1 differ, 1 and 1.0 do not."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_same(a[k], b[k]) for k in a)
    return bool(a == b) and (a is None) == (b is None)
