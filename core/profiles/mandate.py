"""Mandate files (KINDS-3.md §22): the lint `arcaeon mandate lint` runs, plus the digest
of a sealed sidecar's body.

Three shapes: *sealed* (the object has `mandate_digest`, or both `mandate` and
`deal`: only `deal`, `mandate_digest` and `mandate` are known at the top, the body must
be an object and is linted under the prefix `mandate.`), *deal* (`cap` without
`spend_cap`), else *tool*. Every key must be known and of its type — `str`,
`list[str]`, `object`, an ISO-8601 `time`, an `amount` (a non-bool string or int whose
Decimal is finite; NaN is refused, quirk 65); null always passes. Warnings: both
`allowed_acts` and `may` (or `forbidden_acts` and `may_not`), both `spend_cap` and
`cap`, a spend cap with neither amount nor total. With no problem, the gate's own
reading of the mandate must succeed (else a problem with key "").

The file is read whole, UTF-8, plain parse (NaN accepted, the last duplicate wins).
`mandate_digest_ok` (a sealed sidecar whose body is an object): whether the body's
json-c14n digest is the `mandate_digest` it carries — which lint itself never checks
(quirk 64). The word: BROKEN when the mandate is invalid or that digest differs, else
VERIFIED within the bound that no call was checked against it.
"""

from __future__ import annotations

from datetime import datetime
from decimal import Decimal, InvalidOperation
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.checks.result import KindCheck
from sealscope.core.digest import digest_json

__all__ = ["PROFILE", "BOUND", "is_mandate", "lint", "digest_ok", "check"]

PROFILE = "mandate"
BOUND = "read and well-formed; no call checked against it"

TOP_KEYS = {
    "who": "str",
    "allowed_acts": "list[str]",
    "forbidden_acts": "list[str]",
    "spend_cap": "object",
    "not_before": "time",
    "not_after": "time",
    "may": "list[str]",
    "may_not": "list[str]",
    "merchant": "str",
    "cap": "amount",
    "currency": "str",
}
SIDECAR_KEYS = {"deal": "str", "mandate_digest": "str", "mandate": "object"}
SPEND_CAP_KEYS = {
    "amount": "amount",
    "total": "amount",
    "currency": "str",
    "merchant": "str",
    "amount_args": "list[str]",
    "currency_args": "list[str]",
    "merchant_args": "list[str]",
}


def is_mandate(value: Any) -> bool:
    """KINDS-3.md P4: a mandate's keys."""
    if not isinstance(value, dict):
        return False
    if any(k in value for k in ("allowed_acts", "forbidden_acts", "spend_cap")):
        return True
    if all(k in value for k in ("merchant", "cap", "currency")):
        return True
    return isinstance(value.get("mandate"), dict) and isinstance(value.get("mandate_digest"), str)


def _time_ok(v: Any) -> bool:
    if not isinstance(v, str) or not v:
        return False
    try:
        datetime.fromisoformat(v[:-1] + "+00:00" if v.endswith("Z") else v)
    except ValueError:
        return False
    return True


def _amount_ok(v: Any) -> bool:
    if isinstance(v, bool) or not isinstance(v, (str, int)):
        return False
    try:
        return Decimal(str(v)).is_finite()
    except InvalidOperation:
        return False


def _type_ok(kind: str, v: Any) -> bool:
    if v is None:
        return True
    if kind == "str":
        return isinstance(v, str)
    if kind == "list[str]":
        return isinstance(v, list) and all(isinstance(x, str) for x in v)
    if kind == "object":
        return isinstance(v, dict)
    if kind == "time":
        return _time_ok(v)
    return _amount_ok(v)


def _check_keys(
    obj: dict[str, Any], known: dict[str, str], prefix: str, problems: list[str]
) -> None:
    for k in obj:
        if k not in known or not _type_ok(known[k], obj[k]):
            problems.append(prefix + k)


def _str_list(v: Any) -> None:
    if v is not None and (not isinstance(v, list) or not all(isinstance(x, str) for x in v)):
        raise ValueError("not a list of strings")


def _gate_reads(obj: dict[str, Any]) -> bool:
    """Whether the proxy's gate can read the (tool-shaped or deal-body) mandate."""
    try:
        _str_list(obj.get("allowed_acts", obj.get("may")))
        _str_list(obj.get("forbidden_acts", obj.get("may_not")))
        for k in ("not_before", "not_after"):
            if obj.get(k) is not None and not _time_ok(obj[k]):
                return False
        cap = obj.get("spend_cap")
        if cap is None and "cap" in obj:
            return True
        if cap is not None:
            if not isinstance(cap, dict):
                return False
            total = cap.get("total")
            if total is not None and not _amount_ok(total):
                return False
            for k in ("amount_args", "currency_args", "merchant_args"):
                _str_list(cap.get(k))
    except ValueError:
        return False
    return True


def lint(obj: Any) -> dict[str, Any]:
    """`{valid, shape, problems: [key, ...], warnings: [text, ...]}` of a parsed mandate."""
    problems: list[str] = []
    warnings: list[str] = []
    if not isinstance(obj, dict):
        return {"valid": False, "shape": None, "problems": [""], "warnings": []}
    shape, prefix = "tool", ""
    if "mandate_digest" in obj or ("mandate" in obj and "deal" in obj):
        shape = "sealed"
        _check_keys(obj, SIDECAR_KEYS, "", problems)
        body = obj.get("mandate")
        if not isinstance(body, dict):
            if "mandate" not in problems:
                problems.append("mandate")
            return {"valid": False, "shape": shape, "problems": problems, "warnings": []}
        obj, prefix = body, "mandate."
    if shape == "tool" and "cap" in obj and "spend_cap" not in obj:
        shape = "deal"
    _check_keys(obj, TOP_KEYS, prefix, problems)
    cap = obj.get("spend_cap")
    if isinstance(cap, dict):
        _check_keys(cap, SPEND_CAP_KEYS, prefix + "spend_cap.", problems)
        if cap.get("amount") is None and cap.get("total") is None:
            warnings.append(f"{prefix}spend_cap has no amount and no total")
    for a, b in (("allowed_acts", "may"), ("forbidden_acts", "may_not")):
        if a in obj and b in obj:
            warnings.append(f"both {prefix}{a} and {prefix}{b} are given; {b} is ignored")
    if "spend_cap" in obj and "cap" in obj:
        warnings.append(f"both {prefix}spend_cap and {prefix}cap are given; cap is ignored")
    if not problems and not _gate_reads(obj):
        problems.append("")
    return {"valid": not problems, "shape": shape, "problems": problems, "warnings": warnings}


def digest_ok(obj: Any, shape: str | None) -> bool | None:
    """Whether a sealed sidecar's body digests to its `mandate_digest`; None when the
    file is no sidecar with an object body."""
    if shape != "sealed" or not isinstance(obj, dict) or not isinstance(obj.get("mandate"), dict):
        return None
    try:
        return digest_json(obj["mandate"]) == obj.get("mandate_digest")
    except (ValueError, RecursionError, TypeError):
        return False


def check(path: str, obj: Any) -> KindCheck:
    """The check of one parsed mandate file. Never raises."""
    try:
        res = lint(obj)
        sealed_ok = digest_ok(obj, res["shape"])
    except (ValueError, RecursionError) as e:
        return KindCheck(
            path,
            None,
            None,
            {"error": type(e).__name__},
            word=_verdict.COULD_NOT_LOOK,
            reason=f"the lint could not finish: {type(e).__name__}",
        )
    detail = {
        "valid": res["valid"],
        "shape": res["shape"],
        "problems": [{"key": k} for k in res["problems"]],
        "warnings": len(res["warnings"]),
        "mandate_digest_ok": sealed_ok,
    }
    broken = not res["valid"] or sealed_ok is False
    if not res["valid"]:
        why = "invalid mandate: " + ", ".join(repr(k) for k in res["problems"])
    elif sealed_ok is False:
        why = "the sealed body does not digest to its mandate_digest"
    else:
        why = res["warnings"][0] if res["warnings"] else ""
    return KindCheck(
        path,
        None,
        res["valid"],
        detail,
        word=_verdict.BROKEN if broken else _verdict.VERIFIED,
        bound="" if broken else BOUND,
        reason=why,
    )
