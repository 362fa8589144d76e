"""A stand-alone compaction receipt file (`receipt`, KINDS.md §2): one receipt row held
as its own file, pretty-printed or not, as `arcaeon compact FILE` reads it.

The check is `receipt.verify_receipt(row)` with no held content (FORMATS.md §5.4),
unchanged; the verdict follows its `ok` (true VERIFIED within the bound its scope
names, false BROKEN). Where the reference's verifier raises — a core it cannot
canonicalise (NaN/Infinity, nesting too deep, a lone surrogate) — the answer is COULD
NOT LOOK with `detail.error` the exception's class name (`ValueError`, or
`UnicodeEncodeError` for a lone surrogate), as the reference's front door turns the
exception into exit 3. `check_row` is the same check for a parsed row with held content, as the
`receipts FILE` verb uses it.
"""

from __future__ import annotations

from typing import Any

from sealscope.core import digest as _digest
from sealscope.core import receipt as _receipt
from sealscope.core.checks._read import NotADocument, read_document
from sealscope.core.checks.result import CheckContext, KindCheck

__all__ = ["check", "check_row", "raised", "bound_text", "read_receipt_file"]

KIND = "receipt"


def raised(row: Any, res: _receipt.ReceiptCheck) -> str | None:
    """The class name of the exception the reference's `verify_receipt` raises on this
    row instead of answering, or None when it answers. It raises when the row passed
    its shape gates (a schema was read) but its core could not be canonicalised, so no
    receipt digest was recomputed (`verify_receipt` logs that as a failed
    `receipt_digest reproduces` check with no digest): `ValueError` for NaN, Infinity
    or nesting too deep, `UnicodeEncodeError` (a ValueError) for a lone surrogate, as
    the canonical form's serialise-then-encode raises them."""
    if res.recomputed.receipt_digest is not None or not any(
        c.name == "receipt_digest reproduces" and not c.ok for c in res.checks
    ):
        return None
    try:
        _digest.digest_json(_receipt.core_of(row))
    except ValueError as e:
        return type(e).__name__
    return "ValueError"  # pragma: no cover - the core failed once, it fails again


def bound_text(res: _receipt.ReceiptCheck) -> str:
    """The bound a VERIFIED receipt held within ("" when verified in full)."""
    if not res.ok or res.verified_scope == "full":
        return ""
    if "v1_lower_bound" in res.verified_scope:
        return "self-consistent, content not checked (v1: drops are a lower bound)"
    return "self-consistent, content not checked"


def read_receipt_file(path: str) -> Any:
    """The row of a receipt file (OSError / NotADocument when it is not one)."""
    return read_document(path)[1]


def check_row(path: str, row: Any) -> KindCheck:
    """The receipt check of one parsed row, as a KindCheck."""
    res = _receipt.verify_receipt(row)
    error = raised(row, res)
    if error is not None:
        return KindCheck(
            path,
            KIND,
            None,
            {"error": error, "notes": list(res.notes)},
            reason="the receipt's core cannot be canonicalised "
            f"(the reference's verifier raises {error})",
        )
    detail = res.to_dict()
    del detail["ok"]
    reason = "" if res.ok else (res.notes[0] if res.notes else "not self-consistent")
    return KindCheck(path, KIND, res.ok, detail, bound=bound_text(res), reason=reason)


def check(path: str, ctx: CheckContext) -> KindCheck:
    """Check a receipt file (KINDS.md §2.2)."""
    try:
        row = read_receipt_file(path)
    except (OSError, NotADocument) as e:
        return KindCheck(
            path, None, None, {"reason_word": "unreadable"}, reason=f"cannot read the receipt: {e}"
        )
    return check_row(path, row)
