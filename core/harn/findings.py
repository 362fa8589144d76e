"""Cross-check findings on harn compactions: the one table of codes (`RULES`), each
code's severity, and how severities rank ("high" first).

Only `archived_understated` is high: the snapshot and the surviving messages show more
messages gone than the receipt admits. A defaulted value is one the event did not carry:
harn reads an absent count as 0 (`#[serde(default)]` on its receipt structs, `as_u64`
falling back to 0 on legacy flat metadata), and that 0 claims nothing. So an absent
`archived_messages` never raises `archived_understated`; when the content shows messages
gone, `archived_unclaimed` says so instead.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any

__all__ = ["SEVERITIES", "RULES", "Finding", "worst_severity"]

SEVERITIES = ("high", "medium", "low", "info")
_RANK = {s: i for i, s in enumerate(SEVERITIES)}

# code -> (severity, what it means). The one table behind every finding.
RULES: Mapping[str, tuple[str, str]] = MappingProxyType(
    {
        "archived_understated": (
            "high",
            (
                "the snapshot and the surviving messages show more messages gone than "
                "the receipt's archived_messages: the receipt hides part of what was removed "
                "(only for a count the event carries, never for a defaulted 0)"
            ),
        ),
        "archived_unclaimed": (
            "medium",
            (
                "archived_messages is absent, so harn reads its default 0 (a defaulted "
                "value: nothing was claimed), yet the snapshot and the survivors show "
                "messages gone"
            ),
        ),
        "archived_overstated": (
            "medium",
            ("archived_messages claims more than the snapshot and the survivors show removed"),
        ),
        "measurement_count_mismatch": (
            "medium",
            (
                "source_measurement.source_message_count disagrees with archived_messages "
                "in the same receipt"
            ),
        ),
        "nothing_carried_forward": (
            "medium",
            (
                "source_bytes > 0 but carried_source_bytes is a measured 0: nothing of the "
                "compacted source was carried forward"
            ),
        ),
        "tokens_grew": ("medium", "estimated_tokens_after is larger than estimated_tokens_before"),
        "tokens_unchanged": ("low", "estimated_tokens_after equals estimated_tokens_before"),
        "receipt_flat_mismatch": (
            "medium",
            "a receipt field disagrees with the flat metadata key beside it",
        ),
        "receipt_id_mismatch": (
            "medium",
            "the embedded receipt_id differs from the event id (harn sets them equal)",
        ),
        "duplicate_receipt_id": (
            "medium",
            "two compaction events in one transcript carry the same receipt_id",
        ),
        "receipt_malformed": (
            "medium",
            (
                "metadata.receipt is present but harn cannot read it; the event was read "
                "from the flat metadata instead"
            ),
        ),
        "snapshot_not_found": (
            "medium",
            ("the snapshot asset the event names is not in the transcript or any nested snapshot"),
        ),
        "snapshot_unreadable": (
            "medium",
            ("the snapshot asset is present but its data is not a transcript with a messages list"),
        ),
        "snapshot_conflict": ("medium", "several assets carry the snapshot id with different data"),
        "snapshot_metadata_mismatch": (
            "medium",
            "the snapshot asset's own metadata disagrees with the receipt",
        ),
        "no_snapshot": (
            "low",
            "the event names no snapshot asset; the compaction cannot be checked or sealed",
        ),
        "snapshot_kind_unexpected": (
            "low",
            "the asset with the snapshot id is not of kind compaction_source_transcript",
        ),
        "legacy_event": ("info", "no embedded receipt: read from flat metadata (schema_version 0)"),
        "event_id_missing": (
            "info",
            "the compaction event has no string id; the record uses the receipt id",
        ),
        "kept_messages_rewritten": (
            "info",
            (
                "kept messages changed content across the compaction (harn clamps oversized "
                "tool output); a sealed receipt counts them as dropped and introduced"
            ),
        ),
        "no_following_state": (
            "info",
            (
                "the state after this compaction is not recorded (the next compaction has no "
                "snapshot, or the transcript has no messages list)"
            ),
        ),
        "check_inconclusive": ("info", "the archived count could not be inferred from the content"),
    }
)


@dataclass(frozen=True)
class Finding:
    """One cross-check result: a code from `RULES`, its severity, a sentence."""

    code: str
    severity: str
    message: str

    def to_dict(self) -> dict[str, Any]:
        return {"code": self.code, "severity": self.severity, "message": self.message}


def _finding(code: str, message: str) -> Finding:
    return Finding(code, RULES[code][0], message)


def worst_severity(findings: Iterable[Finding | Mapping[str, Any]]) -> str | None:
    """The most severe severity among findings (`Finding`s, or their dicts as a report
    holds them), by `SEVERITIES` ("high" first; an unknown one ranks last), None when
    there are none: the one severity rank, which `verdict.harn` judges."""
    best: str | None = None
    for f in findings:
        sev = f.get("severity") if isinstance(f, Mapping) else f.severity
        if not isinstance(sev, str):
            continue
        if best is None or _RANK.get(sev, 9) < _RANK.get(best, 9):
            best = sev
    return best
