"""harn transcripts and run records: compaction events, cross-checks, and sealing.

The harn agent runtime records every transcript compaction as a `compaction` event whose
metadata carries a `CompactionReceipt` (`metadata.receipt`) beside flat keys, or, in
transcripts written before receipts existed, flat keys only. Those receipts are
observability records: nothing chains or digests them. This module reads them exactly
as harn does, cross-checks them against the content the transcript still holds (the
pre-compaction snapshot asset and the messages that followed), and can seal each one
as an arcaeon v2 compaction receipt.

Reading (what harn does, reproduced):

* A transcript is a JSON object `_type: "transcript"` with `messages`, `events`,
  `assets`. A run record holds transcripts at `transcript` and `stages[i].transcript`;
  the file may be the run itself or an object with the run under `run`.
* Compaction events are the `events[]` objects whose `kind` is the string
  `"compaction"`, in list order (harn carries earlier compaction events forward when it
  rebuilds a transcript, so their order is chronological).
* Receipt path: `metadata.receipt` read the way serde reads harn's struct — every field
  optional (missing strings read `""`, missing counts `0`, missing options null), a
  missing `schema_version` reads 1, unknown keys ignored; but a present field of the
  wrong type (a null or negative count, a float, a number where a string belongs, a
  malformed `recap` or `source_measurement`) fails the whole receipt. The record id is
  the event id, or the receipt id when the event has none; the snapshot id is the
  receipt's, else the flat metadata's.
* Legacy path (no receipt, or one that failed): `schema_version` 0, strings from the
  flat keys or `""`, counts from the flat keys when they are whole numbers in
  0..2**64-1 else 0, `recap` only when it reads cleanly, no `source_measurement`.

`source_measurement` values are whole numbers or null: null means "not measured", 0
means "measured zero"; the two are never merged here.

Cross-checks are `Finding(code, severity, message)`; see `RULES` for every code and its
severity. Only `archived_understated` is high: the snapshot and the surviving messages
show more messages gone than the receipt admits.

What "followed" a compaction (the post content, for checks and for sealing): the message
list of the next recorded state of the transcript, i.e. the snapshot of the next
compaction event when it has one, else (for the last compaction) the transcript's
current `messages`. harn rebuilds the message list at compaction as
`kept prefix + [summary] + kept suffix` and only appends afterwards, so that list is the
survivors, the summary, and anything appended before the next state; in a sealed
receipt the appended messages count as `introduced`. When the next compaction has no
snapshot, the state after this one is unknown and it is neither checked nor sealed.

How many messages are gone is read from the content alone, never from the claim:
`infer_archive` aligns the snapshot's messages with the following ones under harn's rule
(the longest common prefix is the kept prefix; the summary follows; then the earliest
suffix of the snapshot that reappears right after the summary is the kept suffix). A
kept `tool` message may differ in `content` only (harn clamps oversized tool output);
any other kept message whose bytes changed breaks the alignment, so the suffix it sat
in counts as gone (reported, conservatively, as more archived than claimed).

Pure: no printing, no exiting, no Textual/Rich.
"""
from __future__ import annotations

import os
import stat as _stat
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Iterable, Mapping, Sequence

from sealscope.core import digest as _digest
from sealscope.core import jsonio as _jsonio

__all__ = [
    "HarnError", "HarnFileError", "HarnTooLargeError", "HarnParseError", "HarnShapeError",
    "HarnSealError", "DEFAULT_MAX_BYTES", "SEVERITIES", "RULES", "Finding", "RecapMetrics",
    "SourceMeasurement", "CompactionEvent", "Transcript", "HarnDocument", "SnapshotRef",
    "FollowingState", "ArchiveInference", "CompactionCheck", "SealPlan", "load",
    "document_from_value", "transcripts_of", "compaction_events", "find_snapshot",
    "check_transcript", "check_document", "worst_severity", "seal_plan", "seal_transcript",
    "compactor_of", "method_of", "bounded", "SealOutcome", "seal", "infer_archive",
]

DEFAULT_MAX_BYTES = 512 << 20
SEVERITIES = ("high", "medium", "low", "info")
_RANK = {s: i for i, s in enumerate(SEVERITIES)}

U64_MAX = (1 << 64) - 1
U32_MAX = (1 << 32) - 1
ASSET_KIND = "compaction_source_transcript"

# code -> (severity, what it means). The one table behind every finding.
RULES: Mapping[str, tuple[str, str]] = MappingProxyType({
    "archived_understated": (
        "high", "the snapshot and the surviving messages show more messages gone than "
                "the receipt's archived_messages: the receipt hides part of what was removed"),
    "archived_overstated": (
        "medium", "archived_messages claims more than the snapshot and the survivors "
                  "show removed"),
    "measurement_count_mismatch": (
        "medium", "source_measurement.source_message_count disagrees with archived_messages "
                  "in the same receipt"),
    "nothing_carried_forward": (
        "medium", "source_bytes > 0 but carried_source_bytes is a measured 0: nothing of the "
                  "compacted source was carried forward"),
    "tokens_grew": (
        "medium", "estimated_tokens_after is larger than estimated_tokens_before"),
    "tokens_unchanged": (
        "low", "estimated_tokens_after equals estimated_tokens_before"),
    "receipt_flat_mismatch": (
        "medium", "a receipt field disagrees with the flat metadata key beside it"),
    "receipt_id_mismatch": (
        "medium", "the embedded receipt_id differs from the event id (harn sets them equal)"),
    "duplicate_receipt_id": (
        "medium", "two compaction events in one transcript carry the same receipt_id"),
    "receipt_malformed": (
        "medium", "metadata.receipt is present but harn cannot read it; the event was read "
                  "from the flat metadata instead"),
    "snapshot_not_found": (
        "medium", "the snapshot asset the event names is not in the transcript or any "
                  "nested snapshot"),
    "snapshot_unreadable": (
        "medium", "the snapshot asset is present but its data is not a transcript with a "
                  "messages list"),
    "snapshot_conflict": (
        "medium", "several assets carry the snapshot id with different data"),
    "snapshot_metadata_mismatch": (
        "medium", "the snapshot asset's own metadata disagrees with the receipt"),
    "no_snapshot": (
        "low", "the event names no snapshot asset; the compaction cannot be checked or sealed"),
    "snapshot_kind_unexpected": (
        "low", "the asset with the snapshot id is not of kind compaction_source_transcript"),
    "legacy_event": (
        "info", "no embedded receipt: read from flat metadata (schema_version 0)"),
    "event_id_missing": (
        "info", "the compaction event has no string id; the record uses the receipt id"),
    "kept_messages_rewritten": (
        "info", "kept messages changed content across the compaction (harn clamps oversized "
                "tool output); a sealed receipt counts them as dropped and introduced"),
    "no_following_state": (
        "info", "the state after this compaction is not recorded (the next compaction has no "
                "snapshot, or the transcript has no messages list)"),
    "check_inconclusive": (
        "info", "the archived count could not be inferred from the content"),
})


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

    def __init__(self, message: str, sealed: Sequence[dict] = (), path: str | None = None):
        super().__init__(message, path)
        self.sealed = list(sealed)


# --------------------------------------------------------------------------- values

@dataclass(frozen=True)
class Finding:
    """One cross-check result: a code from `RULES`, its severity, a sentence."""
    code: str
    severity: str
    message: str

    def to_dict(self) -> dict:
        return {"code": self.code, "severity": self.severity, "message": self.message}


def _finding(code: str, message: str) -> Finding:
    return Finding(code, RULES[code][0], message)


@dataclass(frozen=True)
class RecapMetrics:
    """Observation-mask recap metrics (harn `RecapMetrics`)."""
    recap_bytes: int
    budget_bytes: int
    kept_results_count: int
    dropped_count: int
    carried_prior_recap: bool

    def to_dict(self) -> dict:
        return {"recap_bytes": self.recap_bytes, "budget_bytes": self.budget_bytes,
                "kept_results_count": self.kept_results_count,
                "dropped_count": self.dropped_count,
                "carried_prior_recap": self.carried_prior_recap}


@dataclass(frozen=True)
class SourceMeasurement:
    """Source-window byte measurement. Each value is a whole number, or None when that
    quantity was not measured; 0 is a measured zero."""
    source_message_count: int | None = None
    source_bytes: int | None = None
    summary_bytes: int | None = None
    carried_source_bytes: int | None = None

    def to_dict(self) -> dict:
        return {"source_message_count": self.source_message_count,
                "source_bytes": self.source_bytes, "summary_bytes": self.summary_bytes,
                "carried_source_bytes": self.carried_source_bytes}


RECEIPT_FIELDS = (
    "schema_version", "receipt_id", "session_id", "transcript_id", "mode", "reason",
    "strategy", "engine_strategy", "requested_strategy", "resolved_threshold_tokens",
    "threshold_source", "hard_limit_tokens", "archived_messages", "estimated_tokens_before",
    "estimated_tokens_after", "snapshot_asset_id", "instruction_mode", "instruction_source",
    "compaction_policy", "recap", "source_measurement")


@dataclass(frozen=True)
class CompactionEvent:
    """One compaction event as harn reads it, plus where it sits.

    `path` is "receipt" or "legacy"; `receipt_error` says why an embedded receipt could
    not be read (None when there was none or it read cleanly). The receipt fields keep
    harn's names; on the legacy path `receipt_id` is None (there is no receipt).
    `flat` is the event metadata without `receipt`, read-only. `compaction_policy` is
    the raw JSON value; treat it as read-only."""
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

    def receipt_dict(self) -> dict:
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
    def messages(self) -> list | None:
        m = self.raw.get("messages")
        return m if isinstance(m, list) else None

    @property
    def events(self) -> list:
        e = self.raw.get("events")
        return e if isinstance(e, list) else []

    @property
    def assets(self) -> list:
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
    messages: tuple | None
    metadata: Mapping[str, Any] | None = field(default=None, compare=False, repr=False)
    data: Any = field(default=None, compare=False, repr=False)
    conflicting: int = 0

    def to_dict(self) -> dict:
        return {"asset_id": self.asset_id, "location": self.location,
                "kind": self.kind if isinstance(self.kind, str) else None,
                "message_count": None if self.messages is None else len(self.messages)}


@dataclass(frozen=True)
class FollowingState:
    """The messages that followed a compaction: `source` "snapshot" (the next
    compaction's snapshot, `next_event_id`) or "current" (the transcript's messages)."""
    source: str
    messages: tuple
    next_event_id: str | None = None
    asset_id: str | None = None

    def to_dict(self) -> dict:
        return {"source": self.source, "message_count": len(self.messages),
                "next_event_id": self.next_event_id, "asset_id": self.asset_id}


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

    def to_dict(self) -> dict:
        return {"prefix": self.prefix, "archived": self.archived, "kept": self.kept,
                "rewritten": self.rewritten, "appended": self.appended,
                "summary": self.summary}


@dataclass(frozen=True)
class CompactionCheck:
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

    @property
    def archived(self) -> tuple:
        """The archived messages as the content shows them (empty when unknown)."""
        if self.snapshot is None or self.snapshot.messages is None or self.inference is None:
            return ()
        i = self.inference
        return self.snapshot.messages[i.prefix:i.prefix + i.archived]

    def to_dict(self) -> dict:
        ev = self.event
        out: dict[str, Any] = {
            "location": ev.location, "transcript": self.transcript.id,
            "stage_id": self.transcript.stage_id, "node_id": self.transcript.node_id,
            "event_index": ev.event_index, "event_id": ev.event_id, "id": ev.id,
            "path": ev.path, "receipt_error": ev.receipt_error,
        }
        out.update(ev.receipt_dict())
        out["flat"] = {k: bounded(v) for k, v in ev.flat.items()}
        out["snapshot"] = None if self.snapshot is None else self.snapshot.to_dict()
        out["following"] = None if self.following is None else self.following.to_dict()
        out["inferred"] = None if self.inference is None else self.inference.to_dict()
        out["worst"] = self.worst
        out["findings"] = [f.to_dict() for f in self.findings]
        return out


def worst_severity(findings: Iterable[Finding]) -> str | None:
    """The most severe severity among findings ("high" first), None when there are none."""
    best = None
    for f in findings:
        if best is None or _RANK.get(f.severity, 9) < _RANK.get(best, 9):
            best = f.severity
    return best


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


def _describe(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "a boolean"
    if isinstance(v, int):
        return "a negative integer" if v < 0 else "an integer out of range"
    if isinstance(v, float):
        return "a number with a fraction or exponent"
    if isinstance(v, str):
        return "a string"
    if isinstance(v, list):
        return "an array"
    if isinstance(v, dict):
        return "an object"
    return type(v).__name__


def _str_or_none(v: Any) -> str | None:
    return v if isinstance(v, str) else None


def _u64(v: Any) -> int | None:
    """harn's `as_u64`: an integer in 0..2**64-1 (bools and floats are not)."""
    return v if type(v) is int and 0 <= v <= U64_MAX else None


# ----- serde-compatible readers for the receipt and its parts

class _Bad(Exception):
    pass


def _uint(v: Any, name: str, limit: int = U64_MAX) -> int:
    if type(v) is int and 0 <= v <= limit:
        return v
    raise _Bad(f"{name}: expected a whole number, got {_describe(v)}")


def _opt_uint(v: Any, name: str) -> int | None:
    return None if v is None else _uint(v, name)


def _string(v: Any, name: str) -> str:
    if isinstance(v, str):
        return v
    raise _Bad(f"{name}: expected a string, got {_describe(v)}")


def _opt_string(v: Any, name: str) -> str | None:
    return None if v is None else _string(v, name)


def _fields(value: Any, names: Sequence[str], what: str, *, all_required: bool) -> dict:
    """The fields of a serde struct given as an object (unknown keys ignored) or an
    array (in declaration order; no more elements than fields)."""
    if isinstance(value, dict):
        return {k: value[k] for k in names if k in value}
    if isinstance(value, list):
        if len(value) > len(names) or (all_required and len(value) < len(names)):
            raise _Bad(f"{what}: an array of {len(value)} elements, expected "
                       f"{len(names)}")
        return dict(zip(names, value))
    raise _Bad(f"{what}: expected an object, got {_describe(value)}")


_RECAP_FIELDS = ("recap_bytes", "budget_bytes", "kept_results_count", "dropped_count",
                 "carried_prior_recap")
_MEASURE_FIELDS = ("source_message_count", "source_bytes", "summary_bytes",
                   "carried_source_bytes")


def _read_recap(value: Any, what: str = "recap") -> RecapMetrics:
    # assumed plain derive: every field required
    f = _fields(value, _RECAP_FIELDS, what, all_required=True)
    for name in _RECAP_FIELDS:
        if name not in f:
            raise _Bad(f"{what}: missing field {name}")
    flag = f["carried_prior_recap"]
    if not isinstance(flag, bool):
        raise _Bad(f"{what}.carried_prior_recap: expected a boolean, got {_describe(flag)}")
    return RecapMetrics(*(_uint(f[n], f"{what}.{n}") for n in _RECAP_FIELDS[:4]), flag)


def _read_measurement(value: Any) -> SourceMeasurement:
    f = _fields(value, _MEASURE_FIELDS, "source_measurement", all_required=True)
    return SourceMeasurement(*(_opt_uint(f.get(n), f"source_measurement.{n}")
                               for n in _MEASURE_FIELDS))


def _read_receipt(value: Any) -> dict:
    """The receipt's fields as serde reads harn's struct (container default, unknown keys
    ignored). Raises _Bad with the first reason it fails."""
    f = _fields(value, RECEIPT_FIELDS, "receipt", all_required=False)
    g = f.get
    out: dict[str, Any] = {
        "schema_version": _uint(f["schema_version"], "schema_version", U32_MAX)
        if "schema_version" in f else 1,
        "receipt_id": _string(g("receipt_id", ""), "receipt_id"),
        "session_id": _opt_string(g("session_id"), "session_id"),
        "transcript_id": _opt_string(g("transcript_id"), "transcript_id"),
    }
    for name in ("mode", "reason", "strategy", "engine_strategy"):
        out[name] = _string(g(name, ""), name)
    out["requested_strategy"] = _opt_string(g("requested_strategy"), "requested_strategy")
    out["resolved_threshold_tokens"] = _opt_uint(g("resolved_threshold_tokens"),
                                                 "resolved_threshold_tokens")
    out["threshold_source"] = _opt_string(g("threshold_source"), "threshold_source")
    out["hard_limit_tokens"] = _opt_uint(g("hard_limit_tokens"), "hard_limit_tokens")
    for name in ("archived_messages", "estimated_tokens_before", "estimated_tokens_after"):
        out[name] = _uint(g(name, 0), name)
    for name in ("snapshot_asset_id", "instruction_mode", "instruction_source"):
        out[name] = _opt_string(g(name), name)
    out["compaction_policy"] = g("compaction_policy")
    recap = g("recap")
    out["recap"] = None if recap is None else _read_recap(recap)
    sm = g("source_measurement")
    out["source_measurement"] = None if sm is None else _read_measurement(sm)
    return out


def _read_legacy(meta: Mapping[str, Any]) -> dict:
    """harn's flat-metadata migration: schema_version 0, strings or "", counts or 0."""
    def s(name: str) -> str:
        v = meta.get(name)
        return v if isinstance(v, str) else ""

    def n(name: str) -> int:
        v = _u64(meta.get(name))
        return 0 if v is None else v

    recap = None
    if "recap" in meta:
        try:
            recap = _read_recap(meta["recap"])
        except _Bad:
            recap = None
    return {
        "schema_version": 0, "receipt_id": None, "session_id": None, "transcript_id": None,
        "mode": s("mode"), "reason": s("reason"), "strategy": s("strategy"),
        "engine_strategy": s("engine_strategy"), "requested_strategy": None,
        "resolved_threshold_tokens": None, "threshold_source": None,
        "hard_limit_tokens": None, "archived_messages": n("archived_messages"),
        "estimated_tokens_before": n("estimated_tokens_before"),
        "estimated_tokens_after": n("estimated_tokens_after"),
        "snapshot_asset_id": _str_or_none(meta.get("snapshot_asset_id")),
        "instruction_mode": s("instruction_mode"),
        "instruction_source": _str_or_none(meta.get("instruction_source")),
        "compaction_policy": meta.get("compaction_policy"),
        "recap": recap, "source_measurement": None,
    }


# --------------------------------------------------------------------------- loading

def load(path: str | os.PathLike, *, max_bytes: int = DEFAULT_MAX_BYTES) -> HarnDocument:
    """Read a transcript or run record file. Raises a `HarnError` subclass with a
    one-line message for a missing/unreadable file, one over `max_bytes`, text that is
    not JSON (or nests too deeply to parse), and JSON that is not a harn transcript or
    run record; never anything else for any file content."""
    name = os.fspath(path)
    shown = name if isinstance(name, str) else repr(name)
    try:
        st = os.stat(name)
        if not _stat.S_ISREG(st.st_mode):
            kind = "a directory" if _stat.S_ISDIR(st.st_mode) else "not a regular file"
            raise HarnFileError(f"cannot read {shown}: {kind}", shown)
        if st.st_size > max_bytes:
            raise HarnTooLargeError(f"{shown} is {st.st_size} bytes, over the "
                                    f"{max_bytes}-byte limit", shown)
        with open(name, "rb") as fh:
            data = fh.read(max_bytes + 1)
    except HarnError:
        raise
    except MemoryError:
        raise HarnTooLargeError(f"{shown} is too large to read into memory", shown) from None
    except (OSError, ValueError) as e:
        detail = getattr(e, "strerror", None) or _one_line(e)
        raise HarnFileError(f"cannot read {shown}: {detail}", shown) from None
    if len(data) > max_bytes:
        raise HarnTooLargeError(f"{shown} is over the {max_bytes}-byte limit", shown)
    try:
        value = _jsonio.loads(data)
    except MemoryError:
        raise HarnTooLargeError(f"{shown} is too large to parse in memory", shown) from None
    except UnicodeDecodeError as e:
        raise HarnParseError(f"{shown} is not JSON: not valid text ({e.reason} at byte "
                             f"{e.start})", shown) from None
    except ValueError as e:
        raise HarnParseError(f"{shown} is not JSON: {_one_line(e)}", shown) from None
    return document_from_value(value, path=shown, size=len(data))


def _one_line(e: BaseException, limit: int = 200) -> str:
    text = " ".join(str(e).split())
    return text if len(text) <= limit else text[:limit] + "…"


def _looks_like_transcript(v: Any) -> bool:
    return isinstance(v, dict) and (v.get("_type") == "transcript" or (
        "_type" not in v and (isinstance(v.get("events"), list)
                              or isinstance(v.get("messages"), list))))


def document_from_value(value: Any, *, path: str | None = None,
                        size: int | None = None) -> HarnDocument:
    """A parsed JSON value as a HarnDocument: a transcript (`_type: "transcript"`), a run
    record (the run itself, or `{"run": {...}}`). HarnShapeError otherwise."""
    where = path or "the value"
    if not isinstance(value, dict):
        raise HarnShapeError(f"{where} is a JSON {_json_kind(value)}, not a harn transcript "
                             f"or run record", path)
    if value.get("_type") == "transcript":
        return HarnDocument(path, "transcript", (_transcript("transcript", value),),
                            size=size)
    run = None
    if isinstance(value.get("run"), dict) and value.get("_type") is None:
        run = value["run"]
    elif (value.get("_type") in ("run_record", "run") or "stages" in value
          or "transcript" in value):
        run = value
    if run is not None:
        return HarnDocument(path, "run", tuple(transcripts_of_run(run)),
                            run_id=_str_or_none(run.get("id")), size=size)
    if _looks_like_transcript(value):
        return HarnDocument(path, "transcript", (_transcript("transcript", value),),
                            size=size)
    raise HarnShapeError(f"{where} is a JSON object but not a harn transcript "
                         f"(no _type \"transcript\") or run record (no transcript/stages)",
                         path)


def _json_kind(v: Any) -> str:
    return {list: "array", str: "string", bool: "boolean", type(None): "null",
            int: "number", float: "number"}.get(type(v), type(v).__name__)


def _transcript(location: str, raw: dict, stage_id: str | None = None,
                node_id: str | None = None) -> Transcript:
    return Transcript(location, raw, _str_or_none(raw.get("id")), stage_id, node_id)


def transcripts_of_run(run: Mapping[str, Any]) -> list[Transcript]:
    """`run.transcript` then every `run.stages[i].transcript` that is an object."""
    out = []
    t = run.get("transcript")
    if isinstance(t, dict):
        out.append(_transcript("run.transcript", t))
    stages = run.get("stages")
    if isinstance(stages, list):
        for i, stage in enumerate(stages):
            if isinstance(stage, dict) and isinstance(stage.get("transcript"), dict):
                out.append(_transcript(f"run.stages[{i}].transcript", stage["transcript"],
                                       _str_or_none(stage.get("id")),
                                       _str_or_none(stage.get("node_id"))))
    return out


def transcripts_of(source: Any) -> tuple[Transcript, ...]:
    """Every transcript in a HarnDocument, a Transcript, or a parsed JSON value."""
    if isinstance(source, HarnDocument):
        return source.transcripts
    if isinstance(source, Transcript):
        return (source,)
    return document_from_value(source).transcripts


# --------------------------------------------------------------------------- events

def compaction_events(transcript: Transcript | Mapping[str, Any]) -> tuple[CompactionEvent, ...]:
    """Every compaction event of one transcript, in event order, read as harn reads it."""
    t = transcript if isinstance(transcript, Transcript) else _transcript("transcript",
                                                                          dict(transcript))
    out: list[CompactionEvent] = []
    for idx, ev in enumerate(t.events):
        if not isinstance(ev, dict) or ev.get("kind") != "compaction":
            continue
        out.append(_event(t, idx, len(out), ev))
    return tuple(out)


def _event(t: Transcript, idx: int, ordinal: int, ev: dict) -> CompactionEvent:
    event_id = ev.get("id") if isinstance(ev.get("id"), str) else ""
    meta = ev.get("metadata")
    meta_map = meta if isinstance(meta, dict) else {}
    flat = MappingProxyType({k: v for k, v in meta_map.items() if k != "receipt"})
    fields = None
    error = None
    if "receipt" in meta_map:
        try:
            fields = _read_receipt(meta_map["receipt"])
        except _Bad as e:
            error = str(e)
        except RecursionError:
            error = "receipt: nests too deeply to read"
    if fields is not None:
        path = "receipt"
        rid = fields["receipt_id"]
        record_id = event_id or rid
        if fields["snapshot_asset_id"] is None:
            fields["snapshot_asset_id"] = _str_or_none(meta_map.get("snapshot_asset_id"))
    else:
        path = "legacy"
        fields = _read_legacy(meta_map)
        record_id = event_id
    return CompactionEvent(location=t.location, event_index=idx, ordinal=ordinal,
                           event_id=event_id, id=record_id, path=path, receipt_error=error,
                           flat=flat, text=_str_or_none(ev.get("text")), **fields)


# --------------------------------------------------------------------------- snapshots

def find_snapshot(transcript: Transcript | Mapping[str, Any], asset_id: str | None
                  ) -> SnapshotRef | None:
    """The asset whose `id` is `asset_id`, searched breadth-first through the
    transcript's assets and every asset nested in a snapshot's data (older snapshots
    nest inside newer ones). Prefers an asset of kind compaction_source_transcript;
    `conflicting` counts other matches whose data differs."""
    if not isinstance(asset_id, str) or not asset_id:
        return None
    raw = transcript.raw if isinstance(transcript, Transcript) else transcript
    matches: list[tuple[str, dict]] = []
    queue: list[tuple[str, Any]] = [("", raw)]
    seen: set[int] = set()
    head = 0
    while head < len(queue):
        prefix, container = queue[head]
        head += 1
        if not isinstance(container, dict) or id(container) in seen:
            continue
        seen.add(id(container))
        assets = container.get("assets")
        if not isinstance(assets, list):
            continue
        for i, asset in enumerate(assets):
            if not isinstance(asset, dict):
                continue
            loc = f"{prefix}assets[{i}]"
            if asset.get("id") == asset_id:
                matches.append((loc, asset))
            data = asset.get("data")
            if isinstance(data, dict):
                queue.append((f"{loc}.data.", data))
    if not matches:
        return None
    best = next(((loc, a) for loc, a in matches if a.get("kind") == ASSET_KIND), matches[0])
    loc, asset = best
    conflicting = 0
    for _loc, other in matches:
        if other is asset:
            continue
        try:
            if other.get("data") != asset.get("data"):
                conflicting += 1
        except RecursionError:
            conflicting += 1
    data = asset.get("data")
    messages = None
    if isinstance(data, dict) and isinstance(data.get("messages"), list):
        messages = tuple(data["messages"])
    meta = asset.get("metadata")
    return SnapshotRef(asset_id, loc, asset.get("kind"), messages,
                       meta if isinstance(meta, dict) else None, data, conflicting)


# --------------------------------------------------------------------------- inference

_NOMATCH = object()


def _key(item: Any) -> Any:
    try:
        return _digest.item_digest(item).digest
    except (ValueError, RecursionError):
        return object()  # never equal to anything else


def _rewrite_key(item: Any) -> Any:
    """A kept tool message whose content harn may rewrite: the message minus content."""
    if isinstance(item, dict) and item.get("role") == "tool" and "content" in item:
        return _key({k: v for k, v in item.items() if k != "content"})
    return _NOMATCH


def infer_archive(pre: Sequence[Any], post: Sequence[Any], *,
                  budget: int = 4_000_000) -> ArchiveInference | None:
    """How `post` was made from `pre` under harn's rule `pre[:p] + [summary] +
    pre[s:]` (+ appended): the longest common prefix `p`, then the earliest `s` whose
    suffix `pre[s:]` appears right after the summary (a kept tool message may differ in
    content only). None when the comparison budget runs out."""
    ks = [_key(x) for x in pre]
    kf = [_key(x) for x in post]
    n, m = len(ks), len(kf)
    p = 0
    while p < n and p < m and ks[p] == kf[p]:
        p += 1
    if p == n:
        return ArchiveInference(p, 0, 0, 0, m - p, False)
    if p == m:
        return ArchiveInference(p, n - p, 0, 0, 0, False)
    tail = kf[p + 1:]
    rk_pre: dict[int, Any] = {}
    rk_post: dict[int, Any] = {}

    def same(i: int, j: int) -> tuple[bool, bool]:
        if ks[i] == tail[j]:
            return True, False
        a = rk_pre.get(i)
        if a is None:
            a = rk_pre[i] = _rewrite_key(pre[i])
        if a is _NOMATCH:
            return False, False
        b = rk_post.get(j)
        if b is None:
            b = rk_post[j] = _rewrite_key(post[p + 1 + j])
        return (a == b, True) if b is not _NOMATCH else (False, False)

    spent = 0
    for s in range(p, n + 1):
        k = n - s
        if k > len(tail):
            continue
        rewritten = 0
        ok = True
        for i in range(k):
            spent += 1
            hit, rew = same(s + i, i)
            if not hit:
                ok = False
                break
            rewritten += rew
        if spent > budget:
            return None
        if ok:
            return ArchiveInference(p, s - p, k, rewritten, len(tail) - k, True)
    return None  # unreachable: s == n always matches


# --------------------------------------------------------------------------- checks

_FLAT_COMPARED = ("mode", "reason", "strategy", "engine_strategy", "archived_messages",
                  "estimated_tokens_before", "estimated_tokens_after", "snapshot_asset_id",
                  "instruction_mode", "instruction_source", "compaction_policy", "recap")


def _same_json(a: Any, b: Any) -> bool:
    """JSON equality that keeps 1, 1.0 and true apart."""
    if a is None or b is None:
        return a is None and b is None
    try:
        return _jsonio.dumps_canonical(a) == _jsonio.dumps_canonical(b)
    except (ValueError, RecursionError):
        try:
            return type(a) is type(b) and a == b
        except RecursionError:
            return False


def _show(v: Any) -> str:
    v = bounded(v, 8)
    try:
        text = _jsonio.dumps_row(v)
    except (ValueError, TypeError, RecursionError):
        text = repr(v)
    return text if len(text) <= 80 else text[:80] + "…"


def _following(t: Transcript, events: Sequence[CompactionEvent], k: int
               ) -> FollowingState | None:
    if k + 1 < len(events):
        nxt = events[k + 1]
        snap = find_snapshot(t, nxt.snapshot_asset_id)
        if snap is None or snap.messages is None:
            return None
        return FollowingState("snapshot", snap.messages, nxt.id, snap.asset_id)
    msgs = t.messages
    return None if msgs is None else FollowingState("current", tuple(msgs))


def check_transcript(transcript: Transcript | Mapping[str, Any]) -> tuple[CompactionCheck, ...]:
    """Every compaction event of one transcript with its snapshot, following state,
    inferred archive and findings."""
    t = transcript if isinstance(transcript, Transcript) else _transcript("transcript",
                                                                          dict(transcript))
    events = compaction_events(t)
    ids: dict[str, int] = {}
    for ev in events:
        if ev.path == "receipt" and ev.receipt_id:
            ids[ev.receipt_id] = ids.get(ev.receipt_id, 0) + 1
    out = []
    for k, ev in enumerate(events):
        out.append(_check_one(t, events, k, ids))
    return tuple(out)


def _check_one(t: Transcript, events: Sequence[CompactionEvent], k: int,
               ids: Mapping[str, int]) -> CompactionCheck:
    ev = events[k]
    found: list[Finding] = []
    add = lambda code, msg: found.append(_finding(code, msg))  # noqa: E731

    # -- the record itself
    if ev.path == "legacy":
        if ev.receipt_error is not None:
            add("receipt_malformed", f"metadata.receipt cannot be read ({ev.receipt_error}); "
                                     f"read from flat metadata as schema_version 0")
        else:
            add("legacy_event", "no metadata.receipt: read from flat metadata as "
                                "schema_version 0")
    else:
        if not ev.event_id:
            add("event_id_missing", f"the event has no id; using receipt_id "
                                    f"{_show(ev.receipt_id)}")
        elif ev.receipt_id != ev.event_id:
            add("receipt_id_mismatch", f"receipt_id {_show(ev.receipt_id)} differs from the "
                                       f"event id {_show(ev.event_id)}")
        if ev.receipt_id and ids.get(ev.receipt_id, 0) > 1:
            add("duplicate_receipt_id", f"receipt_id {_show(ev.receipt_id)} appears on "
                                        f"{ids[ev.receipt_id]} compaction events")
        for name in _FLAT_COMPARED:
            if name not in ev.flat:
                continue
            mine = getattr(ev, name)
            if isinstance(mine, (RecapMetrics, SourceMeasurement)):
                mine = mine.to_dict()
            theirs = ev.flat[name]
            if not _same_json(mine, theirs):
                add("receipt_flat_mismatch", f"{name}: receipt says {_show(mine)}, flat "
                                             f"metadata says {_show(theirs)}")

    # -- the receipt's own numbers
    sm = ev.source_measurement
    if sm is not None:
        if sm.source_message_count is not None and sm.source_message_count != ev.archived_messages:
            add("measurement_count_mismatch",
                f"source_message_count {sm.source_message_count} != archived_messages "
                f"{ev.archived_messages}")
        if (sm.source_bytes is not None and sm.source_bytes > 0
                and sm.carried_source_bytes == 0):
            add("nothing_carried_forward",
                f"source_bytes {sm.source_bytes} compacted, carried_source_bytes measured 0")
    before, after = ev.estimated_tokens_before, ev.estimated_tokens_after
    if before or after:
        if after > before:
            add("tokens_grew", f"estimated tokens grew from {before} to {after}")
        elif after == before:
            add("tokens_unchanged", f"estimated tokens stayed at {before}")

    # -- the snapshot
    snap = None
    if not ev.snapshot_asset_id:
        add("no_snapshot", "no snapshot_asset_id: nothing to check the claim against")
    else:
        snap = find_snapshot(t, ev.snapshot_asset_id)
        if snap is None:
            add("snapshot_not_found", f"asset {_show(ev.snapshot_asset_id)} is not in the "
                                      f"transcript's assets or any nested snapshot")
        else:
            if snap.kind != ASSET_KIND:
                add("snapshot_kind_unexpected", f"asset {_show(snap.asset_id)} at "
                                                f"{snap.location} has kind {_show(snap.kind)}")
            if snap.conflicting:
                add("snapshot_conflict", f"{snap.conflicting} other asset(s) with id "
                                         f"{_show(snap.asset_id)} hold different data")
            if snap.messages is None:
                add("snapshot_unreadable", f"asset {_show(snap.asset_id)} at {snap.location} "
                                           f"has no transcript messages list in its data")
            for name in ("archived_messages", "estimated_tokens_before",
                         "estimated_tokens_after"):
                if snap.metadata is not None and name in snap.metadata:
                    theirs = snap.metadata[name]
                    if not _same_json(getattr(ev, name), theirs):
                        add("snapshot_metadata_mismatch",
                            f"{name}: receipt says {getattr(ev, name)}, the snapshot asset's "
                            f"metadata says {_show(theirs)}")

    # -- what the content shows
    following = _following(t, events, k)
    inference = None
    if snap is not None and snap.messages is not None:
        if following is None:
            add("no_following_state", "the messages that followed this compaction are not "
                                      "recorded, so its archived count is not checked")
        else:
            inference = infer_archive(snap.messages, following.messages)
            if inference is None:
                add("check_inconclusive", "the snapshot and the following messages are too "
                                          "large to align within the comparison budget")
            else:
                claim, shown = ev.archived_messages, inference.archived
                where = (f"snapshot {_show(snap.asset_id)} has {len(snap.messages)} messages; "
                         f"{inference.prefix} kept before the summary, {inference.kept} kept "
                         f"after it")
                if shown > claim:
                    add("archived_understated", f"archived_messages claims {claim} but "
                                                f"{shown} messages are gone ({where})")
                elif shown < claim:
                    add("archived_overstated", f"archived_messages claims {claim} but only "
                                               f"{shown} messages are gone ({where})")
                if inference.rewritten:
                    add("kept_messages_rewritten", f"{inference.rewritten} kept message(s) "
                                                   f"changed content")
    found.sort(key=lambda f: _RANK.get(f.severity, 9))
    return CompactionCheck(t, ev, snap, following, inference, tuple(found))


def check_document(source: Any) -> tuple[CompactionCheck, ...]:
    """`check_transcript` over every transcript of a document (or value), in order."""
    out: list[CompactionCheck] = []
    for t in transcripts_of(source):
        out.extend(check_transcript(t))
    return tuple(out)


# --------------------------------------------------------------------------- sealing

def compactor_of(ev: CompactionEvent) -> str:
    """`harn:<engine strategy>` (the engine that actually ran; the policy label when the
    engine is not recorded; `unknown` when neither is)."""
    return f"harn:{ev.engine_strategy or ev.strategy or 'unknown'}"


def method_of(ev: CompactionEvent) -> str:
    """`<mode>/<policy strategy>#<event id>`: the call surface, the policy label, and
    the harn compaction the row seals (empty parts read `unknown`)."""
    return (f"{ev.mode or 'unknown'}/{ev.strategy or ev.engine_strategy or 'unknown'}"
            f"#{ev.id or 'unknown'}")


@dataclass(frozen=True)
class SealPlan:
    """What sealing would do for one compaction: the pre (snapshot messages) and post
    (following messages) content, or why it cannot be sealed (`skip`)."""
    transcript: Transcript
    event: CompactionEvent
    pre: tuple | None
    post: tuple | None
    compactor: str
    method: str
    skip: str | None = None


def seal_plan(source: Any) -> tuple[SealPlan, ...]:
    """One SealPlan per compaction event of every transcript in `source`."""
    out = []
    for t in transcripts_of(source):
        events = compaction_events(t)
        for k, ev in enumerate(events):
            skip = None
            pre = post = None
            snap = find_snapshot(t, ev.snapshot_asset_id)
            if not ev.snapshot_asset_id:
                skip = "no snapshot asset named"
            elif snap is None:
                skip = f"snapshot asset {_show(ev.snapshot_asset_id)} not found"
            elif snap.messages is None:
                skip = f"snapshot asset {_show(ev.snapshot_asset_id)} holds no messages list"
            else:
                pre = snap.messages
                following = _following(t, events, k)
                if following is None:
                    skip = "the messages that followed are not recorded"
                else:
                    post = following.messages
            out.append(SealPlan(t, ev, pre, post, compactor_of(ev), method_of(ev), skip))
    return tuple(out)


@dataclass(frozen=True)
class SealOutcome:
    """What `seal` did: the sealed (plan, row) pairs in order, the skipped (plan, reason)
    pairs, and the write error that stopped it (None when it ran to the end)."""
    sealed: tuple[tuple[SealPlan, dict], ...]
    skipped: tuple[tuple[SealPlan, str], ...]
    error: str | None = None

    @property
    def rows(self) -> list[dict]:
        return [row for _plan, row in self.sealed]


def seal(source: Any, ledger_path: str | os.PathLike) -> SealOutcome:
    """Seal every compaction of `source` (a HarnDocument, Transcript or parsed value)
    that has a snapshot and a recorded following state, as an arcaeon v2 compaction
    receipt appended to `ledger_path`: pre = the snapshot's messages, post = the
    messages that followed (see the module docstring), compactor `compactor_of`,
    method `method_of`. Compactions that cannot be sealed (no snapshot, no following
    state, content or labels that cannot be canonicalised) are skipped with a reason.
    A ledger write failure stops the run and is reported in `error`; never raises for
    any transcript content."""
    from sealscope.core.receipt import CompactionReceipt  # lazy: sealing only

    sealed: list[tuple[SealPlan, dict]] = []
    skipped: list[tuple[SealPlan, str]] = []
    for plan in seal_plan(source):
        if plan.skip is not None:
            skipped.append((plan, plan.skip))
            continue
        try:
            rec = CompactionReceipt.open(list(plan.pre))
            rec.record_kept(list(plan.post))
        except (ValueError, RecursionError) as e:
            skipped.append((plan, f"content cannot be digested: {_one_line(e, 120)}"))
            continue
        try:
            sealed.append((plan, rec.seal(ledger_path, compactor=plan.compactor,
                                          method=plan.method)))
        except (ValueError, RecursionError) as e:
            # UnicodeEncodeError (a lone surrogate in a label) lands here, before writing
            skipped.append((plan, f"cannot be sealed: {_one_line(e, 120)}"))
        except OSError as e:
            return SealOutcome(tuple(sealed), tuple(skipped),
                               f"cannot write ledger {os.fspath(ledger_path)}: "
                               f"{e.strerror or _one_line(e)}")
    return SealOutcome(tuple(sealed), tuple(skipped))


def seal_transcript(transcript: Any, ledger_path: str | os.PathLike) -> list[dict]:
    """`seal`, returning the sealed rows in order (each with its `chain`). Raises
    HarnSealError when the ledger cannot be written (its `sealed` holds the rows
    appended before). Compactions that cannot be sealed are left out; `seal` says why."""
    out = seal(transcript, ledger_path)
    if out.error is not None:
        raise HarnSealError(out.error, out.rows)
    return out.rows
