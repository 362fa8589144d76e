"""Continuity seals (FORMATS §6): snapshots of a declared manifest, the baseline
registration sealed inside them, verdicts on a later restatement, checkpoints,
diffs between seals, and drop receipts.

Every digest and verdict equals arcaeon 0.10.0's (`arcaeon.prove.continuity`
0.2.4 over `arcaeon.prove.baseline` 0.1.9) for the same input. Verdicts,
checkpoints and diffs are values; only bad arguments raise (ValueError /
TypeError, as the reference does). Nothing here prints or touches a temporary
file: the reference's JSONL/registration round trip is reproduced in memory.

Modules, in layer order: `schema` (labels), `scoring` (one answer), `probes` (the
questions), `running` (a probe set through a runner), `baseline` (registration and
comparison), `snapshots` (sealing), `divergences`, `continuation` (verdicts),
`checkpoint`, `diff`, `handoff`. Every public name is re-exported here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sealscope.core import lazy

if TYPE_CHECKING:  # for the type checker; at run time each name loads on first read
    from sealscope.core.continuity.checkpoint import (
        CHECKPOINT_OUTCOMES,
        CheckpointReceipt,
        classify_checkpoint,
    )
    from sealscope.core.continuity.continuation import (
        CLAIMED_PROPERTY,
        VERDICT_COMPARISONS,
        ContinuationVerdict,
        verify_continuation,
    )
    from sealscope.core.continuity.diff import added_since_seal, diff_seals
    from sealscope.core.continuity.divergences import SEVERITY_ORDER, grouped_divergences
    from sealscope.core.continuity.handoff import (
        CarryResult,
        DropReceipt,
        carry_forward,
        drop_receipt,
    )
    from sealscope.core.continuity.probes import derive_probes, probe_set_digest, restate
    from sealscope.core.continuity.running import RunnerError
    from sealscope.core.continuity.schema import (
        AGAINST_FILE,
        BASELINE_VERSION,
        CHECKPOINT_SCHEMA,
        DIFF_SCHEMA,
        KNOWN_SCORING_TYPES,
        PROBES_FILE,
        REGISTRATION_SCHEMA,
        SCORING_SEMANTICS,
        SNAPSHOT_SCHEMA,
        VERDICT_SCHEMA,
    )
    from sealscope.core.continuity.scoring import (
        ExactMatchScore,
        contains_whole,
        normalize_answer,
        score_exact_match,
    )
    from sealscope.core.continuity.snapshots import ContinuitySnapshot, snapshot

__all__ = [
    "SNAPSHOT_SCHEMA",
    "VERDICT_SCHEMA",
    "CHECKPOINT_SCHEMA",
    "REGISTRATION_SCHEMA",
    "DIFF_SCHEMA",
    "SCORING_SEMANTICS",
    "BASELINE_VERSION",
    "KNOWN_SCORING_TYPES",
    "VERDICT_COMPARISONS",
    "CLAIMED_PROPERTY",
    "CHECKPOINT_OUTCOMES",
    "AGAINST_FILE",
    "PROBES_FILE",
    "RunnerError",
    "ExactMatchScore",
    "normalize_answer",
    "contains_whole",
    "score_exact_match",
    "derive_probes",
    "restate",
    "probe_set_digest",
    "ContinuitySnapshot",
    "snapshot",
    "ContinuationVerdict",
    "verify_continuation",
    "CheckpointReceipt",
    "classify_checkpoint",
    "added_since_seal",
    "diff_seals",
    "CarryResult",
    "carry_forward",
    "DropReceipt",
    "drop_receipt",
    "SEVERITY_ORDER",
    "grouped_divergences",
]

# each re-exported name by the module that defines it, imported on the name's first read
_LAZY = lazy.table(
    {
        "sealscope.core.continuity.checkpoint": (
            "CHECKPOINT_OUTCOMES",
            "CheckpointReceipt",
            "classify_checkpoint",
        ),
        "sealscope.core.continuity.continuation": (
            "CLAIMED_PROPERTY",
            "VERDICT_COMPARISONS",
            "ContinuationVerdict",
            "verify_continuation",
        ),
        "sealscope.core.continuity.diff": ("added_since_seal", "diff_seals"),
        "sealscope.core.continuity.divergences": ("SEVERITY_ORDER", "grouped_divergences"),
        "sealscope.core.continuity.handoff": (
            "CarryResult",
            "DropReceipt",
            "carry_forward",
            "drop_receipt",
        ),
        "sealscope.core.continuity.probes": ("derive_probes", "probe_set_digest", "restate"),
        "sealscope.core.continuity.running": ("RunnerError",),
        "sealscope.core.continuity.schema": (
            "AGAINST_FILE",
            "BASELINE_VERSION",
            "CHECKPOINT_SCHEMA",
            "DIFF_SCHEMA",
            "KNOWN_SCORING_TYPES",
            "PROBES_FILE",
            "REGISTRATION_SCHEMA",
            "SCORING_SEMANTICS",
            "SNAPSHOT_SCHEMA",
            "VERDICT_SCHEMA",
        ),
        "sealscope.core.continuity.scoring": (
            "ExactMatchScore",
            "contains_whole",
            "normalize_answer",
            "score_exact_match",
        ),
        "sealscope.core.continuity.snapshots": ("ContinuitySnapshot", "snapshot"),
    }
)

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy.exports(__name__, _LAZY)
