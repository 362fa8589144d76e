"""The one named outcome of a scheduled checkpoint (§6.13)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sealscope.core.continuity.continuation import ContinuationVerdict, verify_continuation
from sealscope.core.continuity.schema import CHECKPOINT_SCHEMA
from sealscope.core.continuity.snapshots import ContinuitySnapshot

__all__ = ["CHECKPOINT_OUTCOMES", "CheckpointReceipt", "classify_checkpoint"]

CHECKPOINT_OUTCOMES = (
    "refused_explicitly",
    "due_not_attempted",
    "attempted_no_receipt",
    "receipt_received_faithful",
    "receipt_received_contained",
    "receipt_received_divergent",
)


_CHECKPOINT_NOTES = {
    "refused_explicitly": (
        "an explicit decline was recorded — positive evidence, not "
        "inferred from a missing restatement"
    ),
    "due_not_attempted": (
        "checkpoint came due; no restatement attempt was evidenced. "
        "UNKNOWN, not unfaithful — the scheduler, the delivery path, or "
        "the successor itself may be the failed component, and this "
        "receipt does not guess which"
    ),
    "attempted_no_receipt": (
        "an attempt was evidenced but no receipt was durably stored. "
        "The successor may have answered and the receipt store or "
        "delivery path lost it before it could be verified — this is "
        "a missing receipt, not a divergence"
    ),
}


@dataclass(frozen=True)
class CheckpointReceipt:
    """The one named outcome of a scheduled checkpoint (§6.13); `verdict` only
    for the `receipt_received_*` outcomes."""

    schema: str
    outcome: str
    snapshot_digest: str
    label: Any
    verdict: ContinuationVerdict | None
    refusal: str | None
    notes: tuple[Any, ...] = ()

    @property
    def is_unresolved(self) -> bool:
        """True for the two outcomes that carry no fidelity judgment at all."""
        return self.outcome in ("due_not_attempted", "attempted_no_receipt")

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "outcome": self.outcome,
            "snapshot_digest": self.snapshot_digest,
            "label": self.label,
            "verdict": self.verdict.to_dict() if self.verdict is not None else None,
            "refusal": self.refusal,
            "notes": list(self.notes),
            "is_unresolved": self.is_unresolved,
        }


def classify_checkpoint(
    snap: ContinuitySnapshot,
    *,
    attempted: Any,
    receipt_stored: Any = False,
    restated: Any = None,
    runner: Any = None,
    refusal: Any = None,
    ledger_path: str | Path | None = None,
    strict: Any = True,
    tiers: Mapping[str, Any] | None = None,
    severity_of: Callable[[dict[str, Any]], Any] | None = None,
) -> CheckpointReceipt:
    """First match wins: a refusal text → refused_explicitly; not attempted →
    due_not_attempted (contradicted by content: ValueError); `restated={}` →
    ValueError; no stored receipt → attempted_no_receipt; no content → ValueError;
    else the verdict decides faithful / contained / divergent (invalid → divergent)."""

    def receipt(
        outcome: str,
        verdict: ContinuationVerdict | None = None,
        text: str | None = None,
        note: str | None = None,
    ) -> CheckpointReceipt:
        return CheckpointReceipt(
            CHECKPOINT_SCHEMA,
            outcome,
            snap.digest,
            snap.label,
            verdict,
            text,
            (note or _CHECKPOINT_NOTES[outcome],),
        )

    if refusal is not None:
        if not isinstance(refusal, str) or not refusal.strip():
            raise TypeError(
                "refusal must be a non-empty str — the successor's own stated "
                "reason, not a bare truthy flag"
            )
        return receipt("refused_explicitly", text=refusal)
    if not attempted:
        if restated is not None or runner is not None:
            raise ValueError(
                "attempted=False but restated=/runner= was also supplied — "
                "contradictory evidence; pass attempted=True if an attempt "
                "actually happened"
            )
        return receipt("due_not_attempted")
    if restated is not None and runner is None and len(restated) == 0:
        raise ValueError(
            "restated={} is empty, not receipt content — an empty dict is not "
            "evidence of a faithful OR unfaithful restatement; pass "
            "receipt_stored=False (-> attempted_no_receipt) instead of an "
            "empty restated="
        )
    if not receipt_stored:
        return receipt("attempted_no_receipt")
    if restated is None and runner is None:
        raise ValueError(
            "receipt_stored=True needs restated= or runner= to verify it "
            "against — a stored receipt has to have content"
        )
    v = verify_continuation(
        snap,
        restated=restated,
        runner=runner,
        ledger_path=ledger_path,
        strict=strict,
        tiers=tiers,
        severity_of=severity_of,
    )
    if v.valid and v.comparison == "exact_match":
        outcome = "receipt_received_faithful"
    elif v.valid and v.comparison == "containment_only":
        outcome = "receipt_received_contained"
    else:
        outcome = "receipt_received_divergent"
    return receipt(
        outcome,
        verdict=v,
        note=f"receipt stored and scored: comparison={v.comparison!r}, "
        f"faithful={v.faithful}, valid={v.valid}",
    )
