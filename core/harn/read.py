"""Reading harn files: transcripts and run records, their compaction events, the
snapshot assets those events name, and what followed each compaction.

* A transcript is a JSON object `_type: "transcript"` with `messages`, `events`,
  `assets`. A run record holds transcripts at `transcript` and `stages[i].transcript`;
  the file may be the run itself or an object with the run under `run`.
* Compaction events are the `events[]` objects whose `kind` is the string
  `"compaction"`, in list order (harn carries earlier compaction events forward when it
  rebuilds a transcript, so their order is chronological). Each is read on the receipt
  path or the legacy path (`sealscope.core.harn.serde`). The record id is the event id,
  or the receipt id when the event has none; the snapshot id is the receipt's, else the
  flat metadata's.
* What "followed" a compaction: the message list of the next recorded state of the
  transcript, i.e. the snapshot of the next compaction event when it has one, else (for
  the last compaction) the transcript's current `messages`. When the next compaction
  has no snapshot, the state after this one is unknown.
"""

from __future__ import annotations

import os
import stat as _stat
from collections.abc import Mapping, Sequence
from types import MappingProxyType
from typing import Any

from sealscope.core import bound_reads as _bound
from sealscope.core import lines as _lines
from sealscope.core.harn import serde as _serde
from sealscope.core.harn.model import (
    ASSET_KIND,
    DEFAULT_MAX_BYTES,
    CompactionEvent,
    FollowingState,
    HarnDocument,
    HarnError,
    HarnFileError,
    HarnParseError,
    HarnShapeError,
    HarnTooLargeError,
    SnapshotRef,
    Transcript,
    _one_line,
    _str_or_none,
)
from sealscope.core.harn.serde import SerdeError, read_legacy, read_receipt

__all__ = [
    "load",
    "document_from_value",
    "transcripts_of_run",
    "transcripts_of",
    "compaction_events",
    "find_snapshot",
]


def load(path: str | os.PathLike[str], *, max_bytes: int = DEFAULT_MAX_BYTES) -> HarnDocument:
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
            raise HarnTooLargeError(
                f"{shown} is {st.st_size} bytes, over the {max_bytes}-byte limit", shown
            )
        with _lines.open_regular(name) as fh:  # refuses a file swapped since the stat
            data = fh.read(max_bytes + 1)
    except HarnError:
        raise
    except IsADirectoryError:
        raise HarnFileError(f"cannot read {shown}: a directory", shown) from None
    except MemoryError:
        raise HarnTooLargeError(f"{shown} is too large to read into memory", shown) from None
    except (OSError, ValueError) as e:
        detail = getattr(e, "strerror", None) or _one_line(e)
        raise HarnFileError(f"cannot read {shown}: {detail}", shown) from None
    if len(data) > max_bytes:
        raise HarnTooLargeError(f"{shown} is over the {max_bytes}-byte limit", shown)
    _bound.note_bytes(name, data)
    try:
        value = _serde.loads(data)
    except MemoryError:
        raise HarnTooLargeError(f"{shown} is too large to parse in memory", shown) from None
    except UnicodeDecodeError as e:
        raise HarnParseError(
            f"{shown} is not JSON: not valid text ({e.reason} at byte {e.start})", shown
        ) from None
    except ValueError as e:
        raise HarnParseError(f"{shown} is not JSON: {_one_line(e)}", shown) from None
    return document_from_value(value, path=shown, size=len(data))


def _looks_like_transcript(v: Any) -> bool:
    return isinstance(v, dict) and (
        v.get("_type") == "transcript"
        or (
            "_type" not in v
            and (isinstance(v.get("events"), list) or isinstance(v.get("messages"), list))
        )
    )


def document_from_value(
    value: Any, *, path: str | None = None, size: int | None = None
) -> HarnDocument:
    """A parsed JSON value as a HarnDocument: a transcript (`_type: "transcript"`), a run
    record (the run itself, or `{"run": {...}}`). HarnShapeError otherwise."""
    where = path or "the value"
    if not isinstance(value, dict):
        raise HarnShapeError(
            f"{where} is a JSON {_json_kind(value)}, not a harn transcript or run record", path
        )
    if value.get("_type") == "transcript":
        return HarnDocument(path, "transcript", (_transcript("transcript", value),), size=size)
    run = None
    if isinstance(value.get("run"), dict) and value.get("_type") is None:
        run = value["run"]
    elif value.get("_type") in ("run_record", "run") or "stages" in value or "transcript" in value:
        run = value
    if run is not None:
        return HarnDocument(
            path,
            "run",
            tuple(transcripts_of_run(run)),
            run_id=_str_or_none(run.get("id")),
            size=size,
        )
    if _looks_like_transcript(value):
        return HarnDocument(path, "transcript", (_transcript("transcript", value),), size=size)
    raise HarnShapeError(
        f"{where} is a JSON object but not a harn transcript "
        f'(no _type "transcript") or run record (no transcript/stages)',
        path,
    )


def _json_kind(v: Any) -> str:
    return {
        list: "array",
        str: "string",
        bool: "boolean",
        type(None): "null",
        int: "number",
        float: "number",
    }.get(type(v), type(v).__name__)


def _transcript(
    location: str, raw: dict[str, Any], stage_id: str | None = None, node_id: str | None = None
) -> Transcript:
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
                out.append(
                    _transcript(
                        f"run.stages[{i}].transcript",
                        stage["transcript"],
                        _str_or_none(stage.get("id")),
                        _str_or_none(stage.get("node_id")),
                    )
                )
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
    t = (
        transcript
        if isinstance(transcript, Transcript)
        else _transcript("transcript", dict(transcript))
    )
    out: list[CompactionEvent] = []
    for idx, ev in enumerate(t.events):
        if not isinstance(ev, dict) or ev.get("kind") != "compaction":
            continue
        out.append(_event(t, idx, len(out), ev))
    return tuple(out)


def _event(t: Transcript, idx: int, ordinal: int, ev: dict[str, Any]) -> CompactionEvent:
    raw_id = ev.get("id")
    event_id = raw_id if isinstance(raw_id, str) else ""
    meta = ev.get("metadata")
    meta_map = meta if isinstance(meta, dict) else {}
    flat = MappingProxyType({k: v for k, v in meta_map.items() if k != "receipt"})
    fields = None
    error = None
    if "receipt" in meta_map:
        try:
            fields = read_receipt(meta_map["receipt"])
        except SerdeError as e:
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
        fields = read_legacy(meta_map)
        record_id = event_id
    return CompactionEvent(
        location=t.location,
        event_index=idx,
        ordinal=ordinal,
        event_id=event_id,
        id=record_id,
        path=path,
        receipt_error=error,
        flat=flat,
        text=_str_or_none(ev.get("text")),
        **fields,
    )


# --------------------------------------------------------------------------- snapshots


def find_snapshot(
    transcript: Transcript | Mapping[str, Any], asset_id: str | None
) -> SnapshotRef | None:
    """The asset whose `id` is `asset_id`, searched breadth-first through the
    transcript's assets and every asset nested in a snapshot's data (older snapshots
    nest inside newer ones). Prefers an asset of kind compaction_source_transcript;
    `conflicting` counts other matches whose data differs."""
    if not isinstance(asset_id, str) or not asset_id:
        return None
    raw = transcript.raw if isinstance(transcript, Transcript) else transcript
    matches: list[tuple[str, dict[str, Any]]] = []
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
    return SnapshotRef(
        asset_id,
        loc,
        asset.get("kind"),
        messages,
        meta if isinstance(meta, dict) else None,
        data,
        conflicting,
    )


# --------------------------------------------------------------------------- what followed


def _following(t: Transcript, events: Sequence[CompactionEvent], k: int) -> FollowingState | None:
    if k + 1 < len(events):
        nxt = events[k + 1]
        snap = find_snapshot(t, nxt.snapshot_asset_id)
        if snap is None or snap.messages is None:
            return None
        return FollowingState("snapshot", snap.messages, nxt.id, snap.asset_id)
    msgs = t.messages
    return None if msgs is None else FollowingState("current", tuple(msgs))
