"""Cross-checks of harn compaction receipts against the content the transcript still
holds: the pre-compaction snapshot asset and the messages that followed.

Each check is a `Finding` from `sealscope.core.harn.findings.RULES`. The archived count
the content shows comes from `sealscope.core.harn.infer`, never from the claim.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sealscope.core import jsonio as _jsonio
from sealscope.core import verdict as _verdict
from sealscope.core.harn.findings import _RANK, Finding, _finding, worst_severity
from sealscope.core.harn.infer import infer_archive
from sealscope.core.harn.model import (
    ASSET_KIND,
    ArchiveInference,
    CompactionCheck,
    CompactionEvent,
    FollowingState,
    RecapMetrics,
    SnapshotRef,
    SourceMeasurement,
    Transcript,
    _show,
)
from sealscope.core.harn.read import (
    _following,
    _transcript,
    compaction_events,
    find_snapshot,
    transcripts_of,
)
from sealscope.core.harn.serde import SerdeError, read_recap

__all__ = ["check_transcript", "check_document"]

_FLAT_COMPARED = (
    "mode",
    "reason",
    "strategy",
    "engine_strategy",
    "archived_messages",
    "estimated_tokens_before",
    "estimated_tokens_after",
    "snapshot_asset_id",
    "instruction_mode",
    "instruction_source",
    "compaction_policy",
    "recap",
)
_SNAPSHOT_COMPARED = ("archived_messages", "estimated_tokens_before", "estimated_tokens_after")


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


def check_transcript(transcript: Transcript | Mapping[str, Any]) -> tuple[CompactionCheck, ...]:
    """Every compaction event of one transcript with its snapshot, following state,
    inferred archive and findings."""
    t = (
        transcript
        if isinstance(transcript, Transcript)
        else _transcript("transcript", dict(transcript))
    )
    events = compaction_events(t)
    ids: dict[str, int] = {}
    for ev in events:
        if ev.path == "receipt" and ev.receipt_id:
            ids[ev.receipt_id] = ids.get(ev.receipt_id, 0) + 1
    return tuple(_check_one(t, events, k, ids) for k in range(len(events)))


def check_document(source: Any) -> tuple[CompactionCheck, ...]:
    """`check_transcript` over every transcript of a document (or value), in order."""
    out: list[CompactionCheck] = []
    for t in transcripts_of(source):
        out.extend(check_transcript(t))
    return tuple(out)


def _check_one(
    t: Transcript, events: Sequence[CompactionEvent], k: int, ids: Mapping[str, int]
) -> CompactionCheck:
    """The findings in order (record, the receipt's own numbers, snapshot, content),
    then stably sorted by severity."""
    ev = events[k]
    found = _record_findings(ev, ids) + _number_findings(ev)
    snap, snap_found = _snapshot_findings(t, ev)
    found += snap_found
    following = _following(t, events, k)
    inference, content_found = _content_findings(snap, following, ev)
    found += content_found
    found.sort(key=lambda f: _RANK.get(f.severity, 9))
    return CompactionCheck(t, ev, snap, following, inference, tuple(found))


def _record_findings(ev: CompactionEvent, ids: Mapping[str, int]) -> list[Finding]:
    """How the event was read: the legacy path and why, or the receipt's ids and its
    agreement with the flat metadata beside it."""
    if ev.path == "legacy":
        if ev.receipt_error is not None:
            return [
                _finding(
                    "receipt_malformed",
                    f"metadata.receipt cannot be read "
                    f"({ev.receipt_error}); read from flat metadata as "
                    f"schema_version 0",
                )
            ]
        return [
            _finding(
                "legacy_event", "no metadata.receipt: read from flat metadata as schema_version 0"
            )
        ]
    found = []
    if not ev.event_id:
        found.append(
            _finding(
                "event_id_missing", f"the event has no id; using receipt_id {_show(ev.receipt_id)}"
            )
        )
    elif ev.receipt_id != ev.event_id:
        found.append(
            _finding(
                "receipt_id_mismatch",
                f"receipt_id {_show(ev.receipt_id)} differs from the event id {_show(ev.event_id)}",
            )
        )
    if ev.receipt_id and ids.get(ev.receipt_id, 0) > 1:
        found.append(
            _finding(
                "duplicate_receipt_id",
                f"receipt_id {_show(ev.receipt_id)} "
                f"appears on {ids[ev.receipt_id]} compaction events",
            )
        )
    for name in _FLAT_COMPARED:
        if name not in ev.flat:
            continue
        mine = getattr(ev, name)
        if isinstance(mine, (RecapMetrics, SourceMeasurement)):
            mine = mine.to_dict()
        theirs = ev.flat[name]
        if name == "recap":
            theirs = _recap_as_read(theirs)
        if not _same_json(mine, theirs):
            found.append(
                _finding(
                    "receipt_flat_mismatch",
                    f"{name}: receipt says {_show(mine)}, flat metadata says {_show(theirs)}",
                )
            )
    return found


def _recap_as_read(value: Any) -> Any:
    """A flat `recap` as harn reads it (defaults filled in), or the raw value when it
    does not read, so a partial recap beside an equal receipt recap is no mismatch."""
    if value is None:
        return None
    try:
        return read_recap(value).to_dict()
    except (SerdeError, RecursionError):
        return value


def _number_findings(ev: CompactionEvent) -> list[Finding]:
    """The receipt's numbers against each other: the measurement and the token
    estimates."""
    found = []
    sm = ev.source_measurement
    if sm is not None:
        if sm.source_message_count is not None and sm.source_message_count != ev.archived_messages:
            found.append(
                _finding(
                    "measurement_count_mismatch",
                    f"source_message_count {sm.source_message_count} != "
                    f"archived_messages {ev.archived_messages}",
                )
            )
        if sm.source_bytes is not None and sm.source_bytes > 0 and sm.carried_source_bytes == 0:
            found.append(
                _finding(
                    "nothing_carried_forward",
                    f"source_bytes {sm.source_bytes} compacted, carried_source_bytes measured 0",
                )
            )
    before, after = ev.estimated_tokens_before, ev.estimated_tokens_after
    if before or after:
        if after > before:
            found.append(_finding("tokens_grew", f"estimated tokens grew from {before} to {after}"))
        elif after == before:
            found.append(_finding("tokens_unchanged", f"estimated tokens stayed at {before}"))
    return found


def _snapshot_findings(
    t: Transcript, ev: CompactionEvent
) -> tuple[SnapshotRef | None, list[Finding]]:
    """The snapshot the event names (None when absent) and what is wrong with it."""
    if not ev.snapshot_asset_id:
        return None, [
            _finding("no_snapshot", "no snapshot_asset_id: nothing to check the claim against")
        ]
    snap = find_snapshot(t, ev.snapshot_asset_id)
    if snap is None:
        return None, [
            _finding(
                "snapshot_not_found",
                f"asset {_show(ev.snapshot_asset_id)} "
                f"is not in the transcript's assets or any nested snapshot",
            )
        ]
    found = []
    if snap.kind != ASSET_KIND:
        found.append(
            _finding(
                "snapshot_kind_unexpected",
                f"asset {_show(snap.asset_id)} at {snap.location} has kind {_show(snap.kind)}",
            )
        )
    if snap.conflicting:
        found.append(
            _finding(
                "snapshot_conflict",
                f"{snap.conflicting} other asset(s) with "
                f"id {_show(snap.asset_id)} hold different data",
            )
        )
    if snap.messages is None:
        found.append(
            _finding(
                "snapshot_unreadable",
                f"asset {_show(snap.asset_id)} at "
                f"{snap.location} has no transcript messages list in its data",
            )
        )
    for name in _SNAPSHOT_COMPARED:
        if snap.metadata is not None and name in snap.metadata:
            theirs = snap.metadata[name]
            if not _same_json(getattr(ev, name), theirs):
                found.append(
                    _finding(
                        "snapshot_metadata_mismatch",
                        f"{name}: receipt says {getattr(ev, name)}, the "
                        f"snapshot asset's metadata says {_show(theirs)}",
                    )
                )
    return snap, found


def _content_findings(
    snap: SnapshotRef | None, following: FollowingState | None, ev: CompactionEvent
) -> tuple[ArchiveInference | None, list[Finding]]:
    """What the snapshot and the following messages show against the claimed
    archived count (nothing to say without a readable snapshot)."""
    if snap is None or snap.messages is None:
        return None, []
    if following is None:
        return None, [
            _finding(
                "no_following_state",
                "the messages that followed this "
                "compaction are not recorded, so its archived count is not "
                "checked",
            )
        ]
    inference = infer_archive(snap.messages, following.messages)
    if inference is None:
        return None, [
            _finding(
                "check_inconclusive",
                "the snapshot and the following "
                "messages are too large to align within the comparison "
                "budget",
            )
        ]
    found = []
    claim, shown = ev.archived_messages, inference.archived
    where = (
        f"snapshot {_show(snap.asset_id)} has {len(snap.messages)} messages; "
        f"{inference.prefix} kept before the summary, {inference.kept} kept after it"
    )
    if shown > claim and "archived_messages" in ev.defaulted:
        found.append(
            _finding(
                "archived_unclaimed",
                f"archived_messages is absent (harn "
                f"reads the default 0) and {shown} messages are gone ({where})",
            )
        )
    elif shown > claim:
        found.append(
            _finding(
                "archived_understated",
                f"archived_messages claims {claim} but {shown} messages are gone ({where})",
            )
        )
    elif shown < claim:
        found.append(
            _finding(
                "archived_overstated",
                f"archived_messages claims {claim} but only {shown} messages are gone ({where})",
            )
        )
    if inference.rewritten:
        found.append(
            _finding(
                "kept_messages_rewritten", f"{inference.rewritten} kept message(s) changed content"
            )
        )
    return inference, found


def outcome_of(checks: Sequence[CompactionCheck]) -> _verdict.Outcome:
    """A whole file's verdict over every compaction's findings, as `sealscope harn`
    and the report read it (`core.verdict.harn` of the worst finding)."""
    return _verdict.harn(worst_severity(f for c in checks for f in c.findings))
