"""harn transcripts and run records: compaction events, cross-checks, and sealing.

The harn agent runtime records every transcript compaction as a `compaction` event whose
metadata carries a `CompactionReceipt` (`metadata.receipt`) beside flat keys, or, in
transcripts written before receipts existed, flat keys only. Those receipts are
observability records: nothing chains or digests them. This package reads them exactly
as harn does, cross-checks them against the content the transcript still holds (the
pre-compaction snapshot asset and the messages that followed), and can seal each one
as an arcaeon v2 compaction receipt.

Modules, in layer order: `findings` (the finding table), `model` (the values), `serde`
(the receipt as harn's serde reads it), `read` (files, events, snapshots, what
followed), `infer` (what the content shows was removed), `check` (the cross-checks),
`sealing` (arcaeon receipts). Every public name is re-exported here.

Pure: no printing, no exiting, no Textual/Rich.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sealscope.core import lazy

if TYPE_CHECKING:  # for the type checker; at run time each name loads on first read
    from sealscope.core.harn.check import check_document, check_transcript, outcome_of
    from sealscope.core.harn.findings import RULES, SEVERITIES, Finding, worst_severity
    from sealscope.core.harn.infer import infer_archive
    from sealscope.core.harn.model import (
        ASSET_KIND,
        DEFAULT_MAX_BYTES,
        RECEIPT_FIELDS,
        ArchiveInference,
        CompactionCheck,
        CompactionEvent,
        FollowingState,
        HarnDocument,
        HarnError,
        HarnFileError,
        HarnParseError,
        HarnSealError,
        HarnShapeError,
        HarnTooLargeError,
        RecapMetrics,
        SnapshotRef,
        SourceMeasurement,
        Transcript,
        bounded,
    )
    from sealscope.core.harn.read import (
        compaction_events,
        document_from_value,
        find_snapshot,
        load,
        transcripts_of,
        transcripts_of_run,
    )
    from sealscope.core.harn.sealing import (
        SealOutcome,
        SealPlan,
        compactor_of,
        method_of,
        seal,
        seal_plan,
        seal_transcript,
    )

__all__ = [
    "HarnError",
    "HarnFileError",
    "HarnTooLargeError",
    "HarnParseError",
    "HarnShapeError",
    "HarnSealError",
    "DEFAULT_MAX_BYTES",
    "ASSET_KIND",
    "RECEIPT_FIELDS",
    "SEVERITIES",
    "RULES",
    "Finding",
    "RecapMetrics",
    "SourceMeasurement",
    "CompactionEvent",
    "Transcript",
    "HarnDocument",
    "SnapshotRef",
    "FollowingState",
    "ArchiveInference",
    "CompactionCheck",
    "SealPlan",
    "load",
    "document_from_value",
    "transcripts_of",
    "transcripts_of_run",
    "compaction_events",
    "find_snapshot",
    "check_transcript",
    "check_document",
    "outcome_of",
    "worst_severity",
    "seal_plan",
    "seal_transcript",
    "compactor_of",
    "method_of",
    "bounded",
    "SealOutcome",
    "seal",
    "infer_archive",
]

# each re-exported name by the module that defines it, imported on the name's first read
_LAZY = lazy.table(
    {
        "sealscope.core.harn.check": ("check_document", "check_transcript", "outcome_of"),
        "sealscope.core.harn.findings": ("RULES", "SEVERITIES", "Finding", "worst_severity"),
        "sealscope.core.harn.infer": ("infer_archive",),
        "sealscope.core.harn.model": (
            "ASSET_KIND",
            "DEFAULT_MAX_BYTES",
            "RECEIPT_FIELDS",
            "ArchiveInference",
            "CompactionCheck",
            "CompactionEvent",
            "FollowingState",
            "HarnDocument",
            "HarnError",
            "HarnFileError",
            "HarnParseError",
            "HarnSealError",
            "HarnShapeError",
            "HarnTooLargeError",
            "RecapMetrics",
            "SnapshotRef",
            "SourceMeasurement",
            "Transcript",
            "bounded",
        ),
        "sealscope.core.harn.read": (
            "compaction_events",
            "document_from_value",
            "find_snapshot",
            "load",
            "transcripts_of",
            "transcripts_of_run",
        ),
        "sealscope.core.harn.sealing": (
            "SealOutcome",
            "SealPlan",
            "compactor_of",
            "method_of",
            "seal",
            "seal_plan",
            "seal_transcript",
        ),
    }
)

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy.exports(__name__, _LAZY)
