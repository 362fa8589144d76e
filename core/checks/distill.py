"""Distill drop receipts (`distill-receipt`, KINDS.md §3): the receipt
`distill(value, budget=…)` returns, alone or as the `receipt` member of
`arcaeon distill`'s stdout, and the `distill_receipt` rows `DropReceipt.seal` appends.

The check is the reference's self-consistency check, in order: an object; the v1
schema (else `unknown_schema`, nothing checked); `full`, `distilled`, `drops`,
`truncated` present with `full`/`distilled` objects and `drops` a list of objects (else
`malformed`); then, scope `structural_only`, every check runs: each digest exactly
`sha256:<recipe>:<version>:<64 lowercase hex>` (stricter than compaction's rule), every
byte and drop count a non-negative integer (booleans refused), and `truncated` true
exactly when there are drops. Nothing binds a digest to content: the input is never
carried, so a VERIFIED here is structural only, and says so.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from sealscope.core.checks._read import NotADocument, read_document
from sealscope.core.checks.result import CheckContext, KindCheck

__all__ = ["SCHEMA", "verify_drop_receipt", "check", "BOUND"]

KIND = "distill-receipt"
SCHEMA = "arcaeon-distill:receipt:v1"
BOUND = "structural only, no digest bound to content"
_BODY = re.compile(r"\A[0-9a-f]{64}\Z")
_SCOPE_NOTE = (
    "scope=structural_only: shape and digest form only; the drops are not "
    "re-derived and no digest is bound to content"
)


def _well_formed(d: Any) -> bool:
    parts = d.split(":") if isinstance(d, str) else []
    return (
        len(parts) == 4
        and all(parts)
        and parts[0] == "sha256"
        and _BODY.match(parts[3]) is not None
    )


def _count(n: Any) -> bool:
    return isinstance(n, int) and not isinstance(n, bool) and n >= 0


def verify_drop_receipt(receipt: Any) -> dict[str, Any]:
    """`{"ok", "verified_scope", "notes"}` of one drop receipt (rules in the module
    docstring). Never raises."""
    notes: list[str] = []
    malformed = {"ok": False, "verified_scope": "malformed", "notes": notes}
    if not isinstance(receipt, Mapping):
        notes.append(f"malformed receipt: expected an object, got {type(receipt).__name__}")
        return malformed
    row = dict(receipt)
    if row.get("schema") != SCHEMA:
        notes.append(f"unknown schema {row.get('schema')!r} — cannot verify")
        return {"ok": False, "verified_scope": "unknown_schema", "notes": notes}
    for key in ("full", "distilled", "drops", "truncated"):
        if key not in row:
            notes.append(f"malformed receipt: missing {key!r}")
            return malformed
    full, distilled, drops, truncated = (
        row["full"],
        row["distilled"],
        row["drops"],
        row["truncated"],
    )
    for label, obj in (("full", full), ("distilled", distilled)):
        if not isinstance(obj, dict):
            notes.append(f"malformed receipt: {label} must be an object, got {type(obj).__name__}")
            return malformed
    if not isinstance(drops, list) or not all(isinstance(d, dict) for d in drops):
        notes.append("malformed receipt: drops must be a list of objects")
        return malformed
    ok = True
    digests = [("full.digest", full.get("digest")), ("distilled.digest", distilled.get("digest"))]
    digests += [(f"drops[{i}].digest", d.get("digest")) for i, d in enumerate(drops)]
    for label, value in digests:
        if not _well_formed(value):
            ok = False
            notes.append(f"{label} is not a well-formed self-describing digest")
    counts = [("full.bytes", full.get("bytes")), ("distilled.bytes", distilled.get("bytes"))]
    counts += [(f"drops[{i}].dropped_bytes", d.get("dropped_bytes")) for i, d in enumerate(drops)]
    counts += [(f"drops[{i}].dropped_count", d.get("dropped_count")) for i, d in enumerate(drops)]
    for label, n in counts:
        if not _count(n):
            ok = False
            notes.append(f"{label} must be a non-negative integer")
    if bool(drops) != bool(truncated):
        ok = False
        notes.append(
            f"truncated={truncated!r} disagrees with drops "
            f"({'non-empty' if drops else 'empty'}) — receipt is inconsistent"
        )
    if ok:
        notes.append("self-consistent")
    notes.append(_SCOPE_NOTE)
    return {"ok": ok, "verified_scope": "structural_only", "notes": notes}


def _is_cli_document(value: Any) -> bool:
    """`arcaeon distill`'s stdout (the distilled content plus the receipt member):
    an object that is not itself a distill receipt by its schema (KINDS.md §1, 6b)."""
    schema = value.get("schema") if isinstance(value, dict) else None
    return (
        isinstance(value, dict)
        and isinstance(value.get("receipt"), dict)
        and not (isinstance(schema, str) and schema.startswith("arcaeon-distill:receipt:"))
    )


def check(path: str, ctx: CheckContext) -> KindCheck:
    """Check a distill receipt file (KINDS.md §3.2)."""
    try:
        _text, value = read_document(path)
    except (OSError, NotADocument) as e:
        return KindCheck(
            path, None, None, {"reason_word": "unreadable"}, reason=f"cannot read the receipt: {e}"
        )
    source = "receipt member" if _is_cli_document(value) else "document"
    receipt = value["receipt"] if source == "receipt member" else value
    res = verify_drop_receipt(receipt)
    detail = {"verified_scope": res["verified_scope"], "source": source, "notes": res["notes"]}
    if isinstance(receipt, dict):
        drops = receipt.get("drops")
        detail["drops"] = drops if isinstance(drops, list) else []
        detail["truncated"] = receipt.get("truncated")
        detail["strategy"] = receipt.get("strategy")
    reason = (
        ""
        if res["ok"]
        else next((n for n in res["notes"] if not n.startswith("scope=")), "inconsistent")
    )
    return KindCheck(path, KIND, res["ok"], detail, bound=BOUND if res["ok"] else "", reason=reason)
