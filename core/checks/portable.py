"""Portable receipts (`portable-receipt`, KINDS.md §4): what `arcaeon receipt
cite|ballot|…` issues — a seven-key body, its `body_digest`, the ledger block of the
row the issuer appended, a witness block, an anchor block, perhaps a detached
signature.

The ledger is found as the reference's batch verifier finds it: when `ledger` is an
object whose `chain` is not null, the basename of `ledger.path` as a regular file beside
the receipt, else (sealscope's addition) in `--artefacts DIR`, else none (a folder of that
name is no ledger: KINDS.md §4.2). The check, in order: the
text strict-parsed (a duplicate key anywhere makes it ambiguous: never ok); the body
digest recomputed (json-c14n of exactly the seven body keys, a missing one null); with
a ledger, `ledger.status` the first of `consistent` (its chain verifies, the chain at
`ledger.rows` is `ledger.chain`, and a row carries both the receipt's body digest and
that chain), `chain_broken` (the chain's `ok` is not true), `row_not_found`,
`head_mismatch`; the anchor is never read (no `--ots`: quirk 44); the witness block
`absent`, `inconsistent` (it or its pin disagrees with the ledger block, or the pin's
`self` does not recompute) or `claimed`; the signature `absent`, `mismatch` (made over
something else) or `could_not_look` (no key to check its value with). `ok` = body
digest ok, ledger `not_checked` or `consistent`, no duplicate key, witness not
inconsistent, signature not a mismatch. Without a ledger, a VERIFIED holds for the body
alone — anyone can recompute a body digest — and the text says so.
"""

from __future__ import annotations

import os
import stat
from pathlib import PurePath
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core import lines as _lines
from sealscope.core.checks._read import NotADocument, read_document
from sealscope.core.checks.result import CheckContext, KindCheck
from sealscope.core.digest import digest_json
from sealscope.core.jsonio import DuplicateKeyError, loads, loads_strict
from sealscope.core.witness import record_digest

__all__ = ["BODY_FIELDS", "resolve_ledger", "verify_portable", "check"]

KIND = "portable-receipt"
BODY_FIELDS = ("receipt_version", "kind", "issued_at", "subject", "checks", "scope", "extra")


def resolve_ledger(receipt: Any, receipt_path: str, artefacts: str | None) -> str | None:
    """The ledger file this receipt is checked against, or None (module docstring)."""
    led = receipt.get("ledger") if isinstance(receipt, dict) else None
    if not isinstance(led, dict) or led.get("chain") is None:
        return None
    name = PurePath(str(led.get("path") or "")).name  # the basename, as the reference takes it
    if not name:
        return None
    for folder in (os.path.dirname(receipt_path), artefacts):
        if folder is None:
            continue
        candidate = os.path.join(folder, name)
        if _regular_file(candidate):  # a folder or FIFO of that name is no ledger
            return candidate
    return None


def _regular_file(path: str) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _ledger_rows(path: str) -> list[Any]:
    """The ledger's parsed rows as the reference's ledger iterates them: the whole
    text (invalid UTF-8 replaced, universal newlines) split on LF, stripped, parsed;
    lines that do not parse skipped."""
    try:
        with _lines.open_regular(path) as fh:
            text = fh.read().decode("utf-8", "replace")
    except OSError:
        return []
    out = []
    for raw in text.replace("\r\n", "\n").replace("\r", "\n").split("\n"):
        raw = raw.strip()
        if raw:
            try:
                out.append(loads(raw))
            except ValueError:
                continue
    return out


def _ledger_status(receipt: dict[str, Any], claimed: Any, path: str) -> dict[str, Any]:
    led = receipt.get("ledger") or {}
    led = led if isinstance(led, dict) else {}
    vr = _ledger.verify(path)
    rows, chain = led.get("rows"), led.get("chain")
    at = _ledger.chain_at(path, rows) if isinstance(rows, int) else None
    found = any(
        isinstance(r, dict) and r.get("body_digest") == claimed and r.get("chain") == chain
        for r in _ledger_rows(path)
    )
    status = (
        "consistent"
        if (vr.ok and at == chain and found)
        else "chain_broken"
        if not vr.ok
        else "row_not_found"
        if not found
        else "head_mismatch"
    )
    return {
        "status": status,
        "chain_ok": bool(vr.ok),
        "first_break": vr.first_break,
        "row_present": found,
        "chain_at_rows": at,
        "path": path,
    }


def _witness(receipt: dict[str, Any]) -> dict[str, Any]:
    wit = receipt.get("witness")
    if wit is None:
        return {"verdict": "absent"}
    if not isinstance(wit, dict):
        return {"verdict": "inconsistent", "problems": ["the witness block is not an object"]}
    if wit.get("status") == "skipped" and not any(
        k in wit for k in ("kind", "pin", "rows", "chain")
    ):
        return {"verdict": "absent"}
    block = receipt.get("ledger")
    led: dict[str, Any] = block if isinstance(block, dict) else {}
    problems: list[str] = []
    for k in ("rows", "chain", "namespace"):
        if k in wit and k in led and wit[k] != led[k]:
            problems.append(f"witness.{k} disagrees with ledger.{k}")
    pin = wit.get("pin")
    if pin is not None:
        if not isinstance(pin, dict):
            problems.append("witness.pin is not an object")
        else:
            for k in ("rows", "chain", "namespace"):
                if k in pin and k in wit and pin[k] != wit[k]:
                    problems.append(f"witness.pin.{k} disagrees with witness.{k}")
            if "self" in pin and "prev" in pin:
                try:
                    same = record_digest(pin) == pin["self"]
                except (TypeError, ValueError):
                    same = False
                if not same:
                    problems.append(
                        "witness.pin.self does not recompute: the pin was "
                        "edited after it was recorded"
                    )
    claimed = {k: wit.get(k) for k in ("kind", "independence", "url", "status") if k in wit}
    if problems:
        return {"verdict": "inconsistent", "problems": problems, "claimed": claimed}
    return {"verdict": "claimed", "claimed": claimed}


def _signature(receipt: dict[str, Any], body_digest: Any) -> dict[str, Any]:
    sig = receipt.get("attestation_signature")
    if sig is None:
        return {"verdict": "absent"}
    if not isinstance(sig, dict):
        return {"verdict": "mismatch", "problems": ["attestation_signature is not an object"]}
    problems = []
    if sig.get("signed_over", "body_digest") != "body_digest":
        problems.append("signed_over is not 'body_digest'")
    if sig.get("body_digest") != body_digest:
        problems.append("the signature names another body digest")
    if problems:
        return {"verdict": "mismatch", "problems": problems}
    return {
        "verdict": "could_not_look",
        "reason_word": "missing",
        "algorithm_claimed": sig.get("algorithm"),
    }


def verify_portable(
    receipt: Any, *, ledger_path: str | None = None, source_text: str | None = None
) -> dict[str, Any]:
    """The reference's result fields for one portable receipt (module docstring)."""
    res: dict[str, Any] = {
        "ok": False,
        "body_digest_ok": False,
        "ledger": {"status": "not_checked"},
        "anchor": {"status": "not_checked"},
        "witness": {"verdict": "not_checked"},
        "attestation_signature": {"verdict": "not_checked"},
        "issuer": {"verdict": "claimed"},
        "notes": [],
    }
    notes: list[str] = res["notes"]
    if not isinstance(receipt, dict):
        notes.append("receipt must be a JSON object")
        return res
    dup = None
    if source_text is not None:
        try:
            loads_strict(source_text)
        except DuplicateKeyError as e:
            dup = str(e)
        except (ValueError, TypeError):
            pass
    if dup:
        res["duplicate_keys"] = dup
        notes.append(f"{dup}: the file is ambiguous between JSON parsers")
    try:
        expected = digest_json({k: receipt.get(k) for k in BODY_FIELDS})
    except (TypeError, ValueError) as e:
        notes.append(f"body not canonicalizable: {e}")
        return res
    claimed = receipt.get("body_digest")
    res["body_digest_ok"] = claimed == expected
    if not res["body_digest_ok"]:
        notes.append("body digest mismatch: a body field was altered after issue")
    if ledger_path is not None:
        res["ledger"] = _ledger_status(receipt, claimed, ledger_path)
    res["witness"] = _witness(receipt)
    res["attestation_signature"] = _signature(receipt, claimed)
    if res["witness"]["verdict"] == "inconsistent":
        notes.append("witness block is inconsistent: " + "; ".join(res["witness"]["problems"]))
    if res["attestation_signature"]["verdict"] == "mismatch":
        notes.append("attestation signature does not belong to this receipt")
    res["ok"] = bool(
        res["body_digest_ok"]
        and res["ledger"]["status"] in ("not_checked", "consistent")
        and not dup
        and res["witness"]["verdict"] != "inconsistent"
        and res["attestation_signature"]["verdict"] != "mismatch"
    )
    return res


def _bound(res: dict[str, Any]) -> str:
    parts = []
    if res["ledger"]["status"] == "not_checked":
        parts.append("body digest only, ledger not found")
    if res["attestation_signature"]["verdict"] == "could_not_look":
        parts.append("signature not checked")
    if res["witness"]["verdict"] == "claimed":
        parts.append("witness claimed, not contacted")
    return "; ".join(parts)


def check(path: str, ctx: CheckContext) -> KindCheck:
    """Check a portable receipt file (KINDS.md §4.3)."""
    try:
        text, receipt = read_document(path)
    except (OSError, NotADocument) as e:
        return KindCheck(
            path, None, None, {"reason_word": "unreadable"}, reason=f"cannot read the receipt: {e}"
        )
    ledger_path = resolve_ledger(receipt, path, ctx.artefacts)
    res = verify_portable(receipt, ledger_path=ledger_path, source_text=text)
    detail = dict(res)
    detail["duplicate_keys"] = "duplicate_keys" in res
    if "duplicate_keys" in res:
        detail["duplicate_key"] = res["duplicate_keys"]
    body = receipt if isinstance(receipt, dict) else {}
    detail["body_digest"] = body.get("body_digest")
    detail["receipt_kind"] = body.get("kind")
    reason = "" if res["ok"] else next(iter(res["notes"]), "not ok")
    if not res["ok"] and res["ledger"]["status"] not in ("not_checked", "consistent"):
        reason = f"ledger {res['ledger']['status']}"
    return KindCheck(
        path, KIND, res["ok"], detail, bound=_bound(res) if res["ok"] else "", reason=reason
    )
