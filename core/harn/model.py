"""The values of the harn reader: errors, the receipt as harn holds it, transcripts,
snapshots, following states, archive inferences and compaction checks.

A `CompactionEvent` carries harn's `CompactionReceipt` fields under harn's names; see
`sealscope.core.harn.serde` for how they are read. Nothing here reads a file.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import jsonio as _jsonio
from sealscope.core import verdict as _verdict
from sealscope.core.harn.findings import Finding, worst_severity

__all__ = [
    "DEFAULT_MAX_BYTES",
    "ASSET_KIND",
    "RECEIPT_FIELDS",
    "HarnError",
    "HarnFileError",
    "HarnTooLargeError",
    "HarnParseError",
    "HarnShapeError",
    "HarnSealError",
    "RecapMetrics",
    "SourceMeasurement",
    "CompactionEvent",
    "Transcript",
    "HarnDocument",
    "SnapshotRef",
    "FollowingState",
    "ArchiveInference",
    "CompactionCheck",
    "bounded",
]

DEFAULT_MAX_BYTES = 512 << 20
U64_MAX = (1 << 64) - 1
U32_MAX = (1 << 32) - 1
ASSET_KIND = "compaction_source_transcript"


# --------------------------------------------------------------------------- errors


class HarnError(Exception):
    """A harn file that could not be read as a transcript or run record. `str()` is one
    line; `kind` names the failure."""

    kind = "error"

    def __init__(self, message: str, path: str | None = None):
        message = " ".join(str(message).split())
        super().__init__(message)
        self.message = message
        self.path = path


class HarnFileError(HarnError):
    """Missing, unreadable, or not a regular file."""

    kind = "unreadable"


class HarnTooLargeError(HarnError):
    """Larger than the size limit, or too large to hold in memory."""

    kind = "too_large"


class HarnParseError(HarnError):
    """Not JSON (including nesting too deep for the parser, invalid UTF-8)."""

    kind = "not_json"


class HarnShapeError(HarnError):
    """JSON, but not a harn transcript or run record."""

    kind = "not_a_transcript"


class HarnSealError(HarnError):
    """The ledger could not be written; `sealed` holds the rows appended before."""

    kind = "seal_failed"

    def __init__(
        self, message: str, sealed: Sequence[dict[str, Any]] = (), path: str | None = None
    ):
        super().__init__(message, path)
        self.sealed = list(sealed)


@dataclass(frozen=True)
class RecapMetrics:
    """Observation-mask recap metrics (harn `RecapMetrics`)."""

    recap_bytes: int
    budget_bytes: int
    kept_results_count: int
    dropped_count: int
    carried_prior_recap: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "recap_bytes": self.recap_bytes,
            "budget_bytes": self.budget_bytes,
            "kept_results_count": self.kept_results_count,
            "dropped_count": self.dropped_count,
            "carried_prior_recap": self.carried_prior_recap,
        }


@dataclass(frozen=True)
class SourceMeasurement:
    """Source-window byte measurement. Each value is a whole number, or None when that
    quantity was not measured; 0 is a measured zero."""

    source_message_count: int | None = None
    source_bytes: int | None = None
    summary_bytes: int | None = None
    carried_source_bytes: int | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "source_message_count": self.source_message_count,
            "source_bytes": self.source_bytes,
            "summary_bytes": self.summary_bytes,
            "carried_source_bytes": self.carried_source_bytes,
        }


RECEIPT_FIELDS = (
    "schema_version",
    "receipt_id",
    "session_id",
    "transcript_id",
    "mode",
    "reason",
    "strategy",
    "engine_strategy",
    "requested_strategy",
    "resolved_threshold_tokens",
    "threshold_source",
    "hard_limit_tokens",
    "archived_messages",
    "estimated_tokens_before",
    "estimated_tokens_after",
    "snapshot_asset_id",
    "instruction_mode",
    "instruction_source",
    "compaction_policy",
    "recap",
    "source_measurement",
)


@dataclass(frozen=True)
class CompactionEvent:
    """One compaction event as harn reads it, plus where it sits.

    `path` is "receipt" or "legacy"; `receipt_error` says why an embedded receipt could
    not be read (None when there was none or it read cleanly). The receipt fields keep
    harn's names; on the legacy path `receipt_id` is None (there is no receipt).
    `flat` is the event metadata without `receipt`, read-only. `compaction_policy` is
    the raw JSON value; treat it as read-only. `defaulted` names the counts
    (`archived_messages`, `estimated_tokens_*`) that were absent, so harn read them as 0:
    serde's `#[serde(default)]` on the receipt path, `as_u64` falling back to 0 on the
    legacy path. Such a 0 is no claim."""

    location: str
    event_index: int
    ordinal: int
    event_id: str
    id: str
    path: str
    receipt_error: str | None
    schema_version: int
    receipt_id: str | None
    session_id: str | None
    transcript_id: str | None
    mode: str
    reason: str
    strategy: str
    engine_strategy: str
    requested_strategy: str | None
    resolved_threshold_tokens: int | None
    threshold_source: str | None
    hard_limit_tokens: int | None
    archived_messages: int
    estimated_tokens_before: int
    estimated_tokens_after: int
    snapshot_asset_id: str | None
    instruction_mode: str | None
    instruction_source: str | None
    compaction_policy: Any = field(compare=False)
    recap: RecapMetrics | None
    source_measurement: SourceMeasurement | None
    flat: Mapping[str, Any] = field(default_factory=dict, compare=False)
    text: str | None = None
    defaulted: frozenset[str] = field(default=frozenset(), compare=False)

    def receipt_dict(self) -> dict[str, Any]:
        """The receipt fields, harn's names and order (nested values bounded)."""
        out: dict[str, Any] = {}
        for name in RECEIPT_FIELDS:
            v = getattr(self, name)
            if isinstance(v, (RecapMetrics, SourceMeasurement)):
                v = v.to_dict()
            elif name == "compaction_policy":
                v = bounded(v)
            out[name] = v
        return out


@dataclass(frozen=True)
class Transcript:
    """One transcript found in a file: where (`location`, e.g. `run.stages[1].transcript`),
    its stage, and its parts. `raw` is the transcript object; treat it as read-only."""

    location: str
    raw: Mapping[str, Any] = field(compare=False, repr=False)
    id: str | None = None
    stage_id: str | None = None
    node_id: str | None = None

    @property
    def messages(self) -> list[Any] | None:
        m = self.raw.get("messages")
        return m if isinstance(m, list) else None

    @property
    def events(self) -> list[Any]:
        e = self.raw.get("events")
        return e if isinstance(e, list) else []

    @property
    def assets(self) -> list[Any]:
        a = self.raw.get("assets")
        return a if isinstance(a, list) else []


@dataclass(frozen=True)
class HarnDocument:
    """A loaded file: `kind` "transcript" or "run", and every transcript in it in order
    (`run.transcript` first, then the stages)."""

    path: str | None
    kind: str
    transcripts: tuple[Transcript, ...]
    run_id: str | None = None
    size: int | None = None


@dataclass(frozen=True)
class SnapshotRef:
    """A snapshot asset found for a compaction: where it sat (`location`, e.g.
    `assets[2].data.assets[0]`), its kind, and the pre-compaction message list (None
    when its data is not a transcript with a messages list)."""

    asset_id: str
    location: str
    kind: Any
    messages: tuple[Any, ...] | None
    metadata: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    data: Any = field(default=None, compare=False, repr=False)
    conflicting: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {
            "asset_id": self.asset_id,
            "location": self.location,
            "kind": self.kind if isinstance(self.kind, str) else None,
            "message_count": None if self.messages is None else len(self.messages),
        }


@dataclass(frozen=True)
class FollowingState:
    """The messages that followed a compaction: `source` "snapshot" (the next
    compaction's snapshot, `next_event_id`) or "current" (the transcript's messages)."""

    source: str
    messages: tuple[Any, ...]
    next_event_id: str | None = None
    asset_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "source": self.source,
            "message_count": len(self.messages),
            "next_event_id": self.next_event_id,
            "asset_id": self.asset_id,
        }


@dataclass(frozen=True)
class ArchiveInference:
    """What the content shows, independent of the receipt's claim: the snapshot's
    messages `[0:prefix]` kept in place, `[prefix:prefix+archived]` gone, the last
    `kept` kept after the summary (`rewritten` of them with changed content), and
    `appended` messages after them in the following state."""

    prefix: int
    archived: int
    kept: int
    rewritten: int
    appended: int
    summary: bool

    def to_dict(self) -> dict[str, Any]:
        return {
            "prefix": self.prefix,
            "archived": self.archived,
            "kept": self.kept,
            "rewritten": self.rewritten,
            "appended": self.appended,
            "summary": self.summary,
        }


@dataclass(frozen=True)
class CompactionCheck(_verdict.Judged):
    """One compaction event, what the file holds around it, and the findings."""

    transcript: Transcript
    event: CompactionEvent
    snapshot: SnapshotRef | None
    following: FollowingState | None
    inference: ArchiveInference | None
    findings: tuple[Finding, ...]

    @property
    def worst(self) -> str | None:
        return worst_severity(self.findings)

    def outcome(self) -> _verdict.Outcome:
        """This compaction's verdict by its worst finding (`core.verdict.harn`)."""
        return _verdict.harn(self.worst)

    @property
    def archived(self) -> tuple[Any, ...]:
        """The archived messages as the content shows them (empty when unknown)."""
        if self.snapshot is None or self.snapshot.messages is None or self.inference is None:
            return ()
        i = self.inference
        return self.snapshot.messages[i.prefix : i.prefix + i.archived]

    def to_dict(self) -> dict[str, Any]:
        ev = self.event
        out: dict[str, Any] = {
            "location": ev.location,
            "transcript": self.transcript.id,
            "stage_id": self.transcript.stage_id,
            "node_id": self.transcript.node_id,
            "event_index": ev.event_index,
            "event_id": ev.event_id,
            "id": ev.id,
            "path": ev.path,
            "receipt_error": ev.receipt_error,
        }
        out.update(ev.receipt_dict())
        out["defaulted"] = sorted(ev.defaulted)
        out["flat"] = {k: bounded(v) for k, v in ev.flat.items()}
        out["snapshot"] = None if self.snapshot is None else self.snapshot.to_dict()
        out["following"] = None if self.following is None else self.following.to_dict()
        out["inferred"] = None if self.inference is None else self.inference.to_dict()
        out["worst"] = self.worst
        out["findings"] = [f.to_dict() for f in self.findings]
        return out


# --------------------------------------------------------------------------- helpers


def _depth_exceeds(value: Any, limit: int) -> bool:
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            if d > limit:
                return True
            stack.extend((x, d + 1) for x in v.values())
        elif isinstance(v, list):
            if d > limit:
                return True
            stack.extend((x, d + 1) for x in v)
    return False


def bounded(value: Any, limit: int = 64) -> Any:
    """`value` itself, or a marker string when it nests deeper than `limit` containers
    (so every output of it stays printable)."""
    if isinstance(value, (dict, list)) and _depth_exceeds(value, limit):
        return f"<nested deeper than {limit} levels; not shown>"
    return value


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _one_line(e: BaseException, limit: int = 200) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= limit else text[:limit] + "…"


def _show(v: Any) -> str:
    """A value for a message: compact JSON, at most 80 characters."""
    v = bounded(v, 8)
    try:
        text = _jsonio.dumps_row(v)
    except (ValueError, TypeError, RecursionError):
        text = repr(v)
    return text if len(text) <= 80 else text[:80] + "…"
