"""What an evidence pack's check re-derives from its own records (KINDS.md §8.2, checks
4 and 9): the window selected again, the audit finding, the export counts, the build's
verdict. Pure functions over bytes and parsed values.

The rules, as the reference applies them:

* lines are the file split on LF only (a CRLF line keeps its CR), a final empty piece
  dropped;
* a time is ISO 8601 (`Z` read as UTC, no zone read as UTC); text that is not one is
  refused (`BadTime`);
* the window holds every object line whose `agent` or `system_id` is the agent (any
  agent when none is named) and, when a bound is set, whose `ts` lies within the
  inclusive bounds; agent lines whose `ts` cannot be read while a bound is set are
  *unplaced*, named and left out;
* the audit reader is tolerant: lines split on LF, stripped, decoded with
  replacement, parsed; blank lines skipped, lines that do not parse or are not
  objects counted unreadable;
* the finding follows the chain and, when a witness namespace was cross-checked, the
  witness verdict (FAIL, PASS, VERIFIED_MODULO_TRUNCATION, EMPTY_LOG, UNVERIFIED_SCOPE,
  TRUNCATION_DETECTED, REWRITE_DETECTED, WITNESS_CHECK_FAILED, or
  UNRECOGNIZED_WITNESS_VERDICT:<v>); its word is VERIFIED for PASS and
  VERIFIED_MODULO_TRUNCATION, BROKEN for FAIL, TRUNCATION_DETECTED and
  REWRITE_DETECTED, COULD NOT LOOK otherwise.
"""

from __future__ import annotations

import json
import re
from datetime import datetime, timezone
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.ledger import VerifyResult

__all__ = [
    "BadTime",
    "parse_when",
    "read_rows",
    "summarise",
    "derive_finding",
    "finding_word",
    "EXIT_BY_WORD",
    "REASON_WORDS",
    "EVENT_TYPES",
    "is_int",
    "when_or_none",
    "STAMP",
    "independence",
]

VERIFIED, BROKEN, COULD_NOT_LOOK = _verdict.VERIFIED, _verdict.BROKEN, _verdict.COULD_NOT_LOOK
EXIT_BY_WORD = {VERIFIED: _verdict.HELD, BROKEN: _verdict.WRONG, COULD_NOT_LOOK: _verdict.COULD_NOT}
#: The reference's fixed reason words (KINDS.md §0.2).
REASON_WORDS = (
    "unreadable",
    "missing",
    "empty",
    "name_not_found",
    "bounded",
    "network",
    "redirect_refused",
)
#: The audit log's known event types; any other `event` is listed as unknown.
EVENT_TYPES = (
    "system_start",
    "system_stop",
    "input",
    "reference_check",
    "tool_call",
    "decision",
    "output",
    "human_review",
    "override",
    "error",
    "flag",
)
_FINDING_WORD = {
    _verdict.PASS: VERIFIED,  # the reference finding codes PASS / FAIL are these words
    "VERIFIED_MODULO_TRUNCATION": VERIFIED,
    "EMPTY_LOG": COULD_NOT_LOOK,
    _verdict.FAIL: BROKEN,
    "TRUNCATION_DETECTED": BROKEN,
    "REWRITE_DETECTED": BROKEN,
}
STAMP = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z")


class BadTime(ValueError):
    """A time that is not ISO 8601."""


def parse_when(text: Any) -> datetime | None:
    """An aware datetime for ISO 8601 `text` (no zone: UTC); None for None or "".
    Raises BadTime for other text, AttributeError for a value that is not text."""
    if text is None or text == "":
        return None
    t = text.strip()
    if t.endswith(("Z", "z")):
        t = t[:-1] + "+00:00"
    try:
        d = datetime.fromisoformat(t)
    except ValueError:
        raise BadTime(f"{text!r} is not an ISO 8601 timestamp") from None
    return d if d.tzinfo is not None else d.replace(tzinfo=timezone.utc)


def is_int(v: Any) -> bool:
    """An int as the reference tests it (a bool is one)."""
    return isinstance(v, int)


def when_or_none(text: Any) -> datetime | None:
    """parse_when for text, None for anything else or text that is not a time."""
    try:
        return parse_when(text) if isinstance(text, str) else None
    except BadTime:
        return None


def read_rows(raw: bytes) -> tuple[list[dict[str, Any]], int]:
    """(object rows, unreadable line count), read tolerantly (module docstring)."""
    rows: list[dict[str, Any]] = []
    unreadable = 0
    for line in raw.split(b"\n"):
        line = line.strip()
        if not line:
            continue
        try:
            obj = json.loads(line.decode("utf-8", errors="replace"))
        except (ValueError, RecursionError):
            unreadable += 1
            continue
        if isinstance(obj, dict):
            rows.append(obj)
        else:
            unreadable += 1
    return rows, unreadable


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Event counts (a missing `event` counts as `?`), the first and last `ts` text,
    and the sorted event types the audit log does not know."""
    counts: dict[str, int] = {}
    first = last = None
    unknown: set[str] = set()
    for r in rows:
        ev = r.get("event", "?")
        ev = ev if isinstance(ev, str) else str(ev)
        counts[ev] = counts.get(ev, 0) + 1
        if ev not in EVENT_TYPES:
            unknown.add(ev)
        ts = r.get("ts")
        if isinstance(ts, str) and ts:
            first = ts if first is None else min(first, ts)
            last = ts if last is None else max(last, ts)
    return {
        "counts": counts,
        "first_ts": first,
        "last_ts": last,
        "unknown_event_types": sorted(unknown),
    }


def derive_finding(vr: VerifyResult, witness_verdict: Any, cross_checked: bool) -> str:
    """The audit finding from the chain and, when `cross_checked`, the witness
    verdict word recorded for it. Raises TypeError for a cross-checked verdict
    that is not `no_record` and cannot be hashed (the reference looks it up)."""
    wv = witness_verdict
    if cross_checked:
        if wv != "no_record":
            hash(wv)
        if wv == "rewritten":
            return "REWRITE_DETECTED"
        if wv == "truncated":
            return "TRUNCATION_DETECTED"
        if wv in ("witness_broken", "local_broken", "no_record"):
            return "WITNESS_CHECK_FAILED"
    if vr.ok is None and vr.verified_scope == "empty" and vr.rows == 0:
        return "EMPTY_LOG"
    if vr.ok is None:
        return "UNVERIFIED_SCOPE"
    if not vr.ok:
        return _verdict.FAIL
    if not cross_checked:
        return "VERIFIED_MODULO_TRUNCATION"
    if wv == "consistent":
        return _verdict.PASS
    return f"UNRECOGNIZED_WITNESS_VERDICT:{wv}"


def finding_word(finding: Any) -> str:
    """The verdict word of an audit finding (unknown: COULD NOT LOOK)."""
    return (
        _FINDING_WORD.get(finding, COULD_NOT_LOOK) if isinstance(finding, str) else COULD_NOT_LOOK
    )


def independence(kind: Any) -> tuple[str, str]:
    """(independence, source) a witness of `kind` re-derives to: with no signed
    witness attestation nothing is independent."""
    if kind in (None, "none"):
        return "none", "no_witness"
    if kind == "local_file":
        return "self_asserted", "established_by_type"
    return "self_asserted", "conservative_default"
