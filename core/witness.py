"""Witness stores: a JSONL file of pin records chained across all namespaces, and the
check of a ledger against the latest pin for a namespace.

A record's `self` is the first 32 hex of sha256 of the record without `prev`/`self`
(sorted keys, default separators, surrogatepass); `prev` is the previous record's
digest or `witness-genesis`.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core import lines as _lines
from sealscope.core import verdict as _verdict
from sealscope.core.jsonio import dumps_body, encode_body, loads

__all__ = [
    "WITNESS_GENESIS",
    "WitnessVerdict",
    "StoreCheck",
    "record_digest",
    "verify_store",
    "latest",
    "history",
    "namespaces",
    "verify_against_witness",
    "compare_pin",
    "record",
    "STAMP_TOLERANCE_S",
    "since_pin",
]

WITNESS_GENESIS = "witness-genesis"
STAMP_TOLERANCE_S = 300

RED_VERDICTS = frozenset({"truncated", "rewritten", "local_broken", "witness_broken"})


def record_digest(rec: dict[str, Any]) -> str:
    """The digest of a pin record: its content without `prev` and `self`."""
    body = dumps_body({k: v for k, v in rec.items() if k not in ("prev", "self")})
    return hashlib.sha256(encode_body(body)).hexdigest()[: _ledger.CHAIN_LEN]


@dataclass(frozen=True)
class StoreCheck:
    """A witness store's own chain: `ok` True, None (legacy pins only, or no pins) or
    False."""

    ok: bool | None
    pins: int = 0
    chained: int = 0
    unchained: int = 0
    breaks: int = 0
    first_break: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "pins": self.pins,
            "chained": self.chained,
            "unchained": self.unchained,
            "breaks": self.breaks,
            "first_break": self.first_break,
        }


@dataclass(frozen=True)
class WitnessVerdict:
    """A ledger judged against a witness pin. Green only when `consistent`."""

    verdict: str
    detail: str
    witness_rows: Any = None
    witness_chain: Any = None
    local_rows: int | None = None
    witness_self_integrity: str = "unestablished"

    def __bool__(self) -> bool:
        return self.verdict == "consistent"

    @property
    def red(self) -> bool:
        return self.verdict in RED_VERDICTS

    @property
    def exit_code(self) -> int:
        """0 consistent, 1 red, 3 otherwise (`core.verdict.check`)."""
        return _verdict.check(self).exit_code

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.verdict,
            "detail": self.detail,
            "witness_rows": self.witness_rows,
            "witness_chain": self.witness_chain,
            "local_rows": self.local_rows,
            "witness_self_integrity": self.witness_self_integrity,
        }


def _store_lines(path: str | os.PathLike[str]) -> list[str]:
    """The store's lines as the verifier splits them (OSError when unreadable)."""
    return _lines.read_text(path, errors="replace").split("\n")


def verify_store(path: str | os.PathLike[str]) -> StoreCheck:
    """Walk the store's own chain; never raises."""
    try:
        lines = _store_lines(path)
    except OSError as e:
        return StoreCheck(ok=False, breaks=1, first_break=f"unreadable: {e}")
    ok: bool | None = True
    pins = chained = unchained = breaks = 0
    first: str | None = None
    prev_digest = WITNESS_GENESIS

    def brk(text: str) -> None:
        nonlocal ok, breaks, first
        ok = False
        breaks += 1
        first = first or text

    for i, raw in enumerate(lines, 1):
        raw = raw.strip()
        if not raw:
            continue
        try:
            rec = loads(raw)
        except ValueError:
            brk(f"line {i}: unparseable")
            continue
        if not isinstance(rec, dict):
            brk(f"line {i}: not a JSON object")
            continue
        pins += 1
        if rec.get("prev") is None:
            if chained:
                brk(f"line {i}: unchained pin after the chain began")
            else:
                unchained += 1
            prev_digest = _safe_digest(rec)
            continue
        if rec.get("prev") != prev_digest:
            brk(f"line {i}: pin chain mismatch")
        own = _safe_digest(rec)
        if rec.get("self") is None:
            brk(f"line {i}: chained pin missing its self-digest")
        elif rec.get("self") != own:
            brk(f"line {i}: pin content does not match its own digest")
        prev_digest = own
        chained += 1
    if ok and unchained:
        ok = None
    if ok and pins == 0:
        ok = None
    return StoreCheck(
        ok=ok, pins=pins, chained=chained, unchained=unchained, breaks=breaks, first_break=first
    )


def _safe_digest(rec: dict[str, Any]) -> str:
    try:
        return record_digest(rec)
    except (ValueError, TypeError, RecursionError):
        return ""


def _namespace_records(path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """Every object record, split like the reference's latest()/history() (splitlines)."""
    try:
        text = _lines.read_text(path, errors="replace")
    except OSError:
        return []
    out = []
    for raw in text.splitlines():
        raw = raw.strip()
        if not raw:
            continue
        try:
            rec = loads(raw)
        except ValueError:
            continue
        if isinstance(rec, dict):
            out.append(rec)
    return out


def history(path: str | os.PathLike[str], namespace: str) -> list[dict[str, Any]]:
    return [r for r in _namespace_records(path) if r.get("namespace") == namespace]


def latest(path: str | os.PathLike[str], namespace: str) -> dict[str, Any] | None:
    found = history(path, namespace)
    return found[-1] if found else None


def namespaces(path: str | os.PathLike[str]) -> list[str]:
    """The namespaces a store holds pins for, in order of first appearance."""
    seen: dict[str, None] = {}
    for r in _namespace_records(path):
        ns = r.get("namespace")
        if isinstance(ns, str):
            seen.setdefault(ns, None)
    return list(seen)


def _integrity(check: StoreCheck) -> str:
    return {True: "verified", False: "broken"}.get(check.ok, "unestablished")  # type: ignore[arg-type]


def compare_pin(
    pin: dict[str, Any] | None,
    namespace: str,
    ledger_path: str | os.PathLike[str],
    local: _ledger.VerifyResult | None = None,
    integrity: str = "unestablished",
) -> WitnessVerdict:
    """Judge a ledger against one pin record (`rows`, `chain`), after its own chain.

    Steps, first match wins: local chain red → local_broken; no pin → no_record;
    non-integer rows → no_record; zero rows → no_record; fewer local rows →
    truncated; no chain at the pinned row → truncated; different chain → rewritten;
    else consistent. A bool row count is an integer, as in the reference."""

    def v(verdict: str, detail: str, **kw: Any) -> WitnessVerdict:
        return WitnessVerdict(verdict, detail, witness_self_integrity=integrity, **kw)

    lv = local if local is not None else _ledger.verify(ledger_path)
    if lv.ok is False:
        return v(
            "local_broken",
            f"the log fails its own chain ({lv.first_break}): witness "
            "agreement at the pinned row does not make a locally tampered log consistent",
        )
    if pin is None:
        return v("no_record", f"witness holds no pin for namespace {namespace!r}")
    w_rows, w_chain = pin.get("rows"), pin.get("chain")
    local_rows = lv.rows
    if not isinstance(w_rows, int):
        return v(
            "no_record",
            "witness pin missing a valid row count",
            witness_chain=w_chain,
            local_rows=local_rows,
        )
    if w_rows == 0:
        return v(
            "no_record",
            f"the witness pin for namespace {namespace!r} was taken over "
            "an EMPTY log (0 rows): it constrains nothing and cannot confirm this or any "
            "other log. Re-pin against a non-empty head.",
            witness_rows=0,
            witness_chain=w_chain,
            local_rows=local_rows,
        )
    kw = {"witness_rows": w_rows, "witness_chain": w_chain, "local_rows": local_rows}
    if local_rows < w_rows:
        return v(
            "truncated",
            f"log has {local_rows} rows but the witness recorded {w_rows}: "
            f"{w_rows - local_rows} witnessed row(s) are missing (truncation)",
            **kw,
        )
    at = _ledger.chain_at(ledger_path, w_rows)
    if at is None:
        return v(
            "truncated",
            f"cannot reach row {w_rows} in the log to compare against the witness",
            **kw,
        )
    if at != w_chain:
        return v(
            "rewritten",
            f"log's chain at the witnessed row {w_rows} differs from the "
            "pin: history was rewritten from at or before that point",
            **kw,
        )
    detail = "log matches the witness at the witnessed row"
    grew = local_rows - w_rows
    if grew:
        detail += f" and has grown {grew} row(s) since (expected)"
    return v("consistent", detail, **kw)


def verify_against_witness(
    store_path: str | os.PathLike[str],
    namespace: str,
    ledger_path: str | os.PathLike[str],
    local: _ledger.VerifyResult | None = None,
) -> WitnessVerdict:
    """The store's own chain first (witness_broken when red with pins), then
    `compare_pin` against the namespace's latest pin. Pass `local` to reuse a verdict
    already computed for the ledger."""
    check = verify_store(store_path)
    integrity = _integrity(check)
    if check.ok is False and check.pins > 0:
        return WitnessVerdict(
            "witness_broken",
            f"the witness pin file fails its own chain ({check.first_break}): a pin from a "
            "tampered witness cannot be trusted, so no comparison is meaningful",
            witness_self_integrity=integrity,
        )
    lv = local if local is not None else _ledger.verify(ledger_path)
    if lv.ok is False:
        return compare_pin(None, namespace, ledger_path, lv, integrity)
    return compare_pin(latest(store_path, namespace), namespace, ledger_path, lv, integrity)


def since_pin(
    ledger_path: str | os.PathLike[str], store_path: str | os.PathLike[str], namespace: str
) -> dict[str, Any]:
    """The `since_pin` object of `verify --witness` (as the reference CLI reports it):
    `rows_since_pin` = the ledger's rows (counted as a head counts them) minus the rows
    of the namespace's latest pin, with `namespace`, `pinned_rows`, `pinned_chain`; a
    negative count (rows cut off the end) adds `truncated: true`. When no count can be
    made, `rows_since_pin` is None and `reason` says why: no pin file, a pin file that
    is not UTF-8, no pin for the namespace, a pin whose `rows` is not a non-negative
    integer. Never raises."""
    store = os.fspath(store_path)
    try:
        with _lines.open_regular(store) as fh:
            data = fh.read()
    except (FileNotFoundError, IsADirectoryError, _lines.NotRegularFile):
        return {"rows_since_pin": None, "reason": f"no pin file at {store}"}
    except OSError as e:
        why = f"cannot read it ({e.strerror or type(e).__name__})"
        return {"rows_since_pin": None, "reason": f"the pin file cannot be read: {why}"}
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return {
            "rows_since_pin": None,
            "reason": "the pin file cannot be read: it is not UTF-8 text (a binary file?)",
        }
    pin = latest(store, namespace)
    if not pin:
        return {
            "rows_since_pin": None,
            "namespace": namespace,
            "reason": f"no pin for {namespace} in {store}",
        }
    r = pin.get("rows")
    if not isinstance(r, int) or isinstance(r, bool) or r < 0:
        return {
            "rows_since_pin": None,
            "namespace": namespace,
            "reason": f"pin rows is not a non-negative integer: {r!r}",
        }
    n = _ledger.verify(ledger_path).rows - r
    out: dict[str, Any] = {
        "rows_since_pin": n,
        "namespace": namespace,
        "pinned_rows": r,
        "pinned_chain": pin.get("chain"),
    }
    if n < 0:
        out["truncated"] = True
    return out


# --------------------------------------------------------------------------- writing


def _parse_stamp(s: Any) -> datetime | None:
    if not isinstance(s, str) or not s:
        return None
    try:
        dt = datetime.fromisoformat(s.replace("Z", "+00:00"))
    except ValueError:
        return None
    return dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)


def _tail_digest(path: Path) -> str:
    try:
        lines = _store_lines(path)
    except OSError:
        return WITNESS_GENESIS
    last: Any = None
    found = False
    for raw in lines:
        raw = raw.strip()
        if not raw:
            continue
        try:
            last = loads(raw)
            found = True
        except ValueError:
            continue
    if found and isinstance(last, dict):
        return record_digest(last)
    return WITNESS_GENESIS


def record(
    store_path: str | os.PathLike[str],
    namespace: str,
    rows: int,
    chain: Any,
    as_of: str,
    received_at: str | None = None,
) -> dict[str, Any]:
    """Append a pin record. Refuses (ValueError) a row count below the namespace's
    high-water mark, and a publisher stamp more than 300 s ahead of `received_at`."""
    path = Path(store_path)
    marks: list[int] = [
        r["rows"]
        for r in history(path, namespace)
        if isinstance(r.get("rows"), int) and not isinstance(r["rows"], bool)
    ]
    if marks and rows < max(marks):
        raise ValueError(
            f"monotonic violation: a witness never goes backward — namespace {namespace!r} "
            f"high-water is {max(marks)} rows, submitted {rows}. A shrinking log is exactly "
            "the truncation this witness exists to catch; if the log was legitimately reset, "
            "use a new namespace rather than rewriting this one's history."
        )
    if received_at is not None:
        a, r = _parse_stamp(as_of), _parse_stamp(received_at)
        if a is None or r is None:
            raise ValueError(
                f"stamp-ordering violation: cannot compare stamps for namespace "
                f"{namespace!r}: as_of={as_of!r} received_at={received_at!r}"
            )
        ahead = (a - r).total_seconds()
        if ahead > STAMP_TOLERANCE_S:
            raise ValueError(
                f"stamp-ordering violation: publisher as_of {as_of} is "
                f"{ahead:.0f}s AHEAD of the witness's received_at {received_at} "
                f"(tolerance {STAMP_TOLERANCE_S}s) for namespace {namespace!r}"
            )
    rec: dict[str, Any] = {
        "namespace": namespace,
        "rows": rows,
        "chain": chain,
        "as_of": as_of,
        "received_at": received_at,
        "prev": _tail_digest(path),
    }
    rec["self"] = record_digest(rec)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("ab") as fh:
        # the witness store format, as the reference writes it (not dumps_output)
        fh.write((json.dumps(rec) + "\n").encode("utf-8"))
    return rec
