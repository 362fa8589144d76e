"""Reading harn's compaction receipt the way harn's serde derive does.

* Receipt path: `metadata.receipt` read the way serde reads harn's struct — every field
  optional (missing strings read `""`, missing counts `0`, missing options null), a
  missing `schema_version` reads 1, unknown keys ignored; but a present field of the
  wrong type (a null or negative count, a float, a number where a string belongs, a
  malformed `recap` or `source_measurement`) fails the whole receipt.
* Legacy path (no receipt, or one that failed): `schema_version` 0, strings from the
  flat keys or `""`, counts from the flat keys when they are whole numbers in
  0..2**64-1 else 0, `recap` only when it reads cleanly, no `source_measurement`.

`source_measurement` values are whole numbers or null: null means "not measured", 0
means "measured zero"; the two are never merged here.
"""
from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from sealscope.core.harn.model import (RECEIPT_FIELDS, U32_MAX, U64_MAX, RecapMetrics,
                                       SourceMeasurement, _str_or_none)

__all__ = ["SerdeError", "read_receipt", "read_legacy"]


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


def _u64(v: Any) -> int | None:
    """harn's `as_u64`: an integer in 0..2**64-1 (bools and floats are not)."""
    return v if type(v) is int and 0 <= v <= U64_MAX else None


class SerdeError(Exception):
    """The first reason serde would refuse a value (one line)."""


def _uint(v: Any, name: str, limit: int = U64_MAX) -> int:
    if type(v) is int and 0 <= v <= limit:
        return v
    raise SerdeError(f"{name}: expected a whole number, got {_describe(v)}")


def _opt_uint(v: Any, name: str) -> int | None:
    return None if v is None else _uint(v, name)


def _string(v: Any, name: str) -> str:
    if isinstance(v, str):
        return v
    raise SerdeError(f"{name}: expected a string, got {_describe(v)}")


def _opt_string(v: Any, name: str) -> str | None:
    return None if v is None else _string(v, name)


def _fields(value: Any, names: Sequence[str], what: str, *, all_required: bool) -> dict[str, Any]:
    """The fields of a serde struct given as an object (unknown keys ignored) or an
    array (in declaration order; no more elements than fields)."""
    if isinstance(value, dict):
        return {k: value[k] for k in names if k in value}
    if isinstance(value, list):
        if len(value) > len(names) or (all_required and len(value) < len(names)):
            raise SerdeError(f"{what}: an array of {len(value)} elements, expected "
                       f"{len(names)}")
        return dict(zip(names, value, strict=False))  # length checked above
    raise SerdeError(f"{what}: expected an object, got {_describe(value)}")


_RECAP_FIELDS = ("recap_bytes", "budget_bytes", "kept_results_count", "dropped_count",
                 "carried_prior_recap")
_MEASURE_FIELDS = ("source_message_count", "source_bytes", "summary_bytes",
                   "carried_source_bytes")


def _read_recap(value: Any, what: str = "recap") -> RecapMetrics:
    # assumed plain derive: every field required
    f = _fields(value, _RECAP_FIELDS, what, all_required=True)
    for name in _RECAP_FIELDS:
        if name not in f:
            raise SerdeError(f"{what}: missing field {name}")
    flag = f["carried_prior_recap"]
    if not isinstance(flag, bool):
        raise SerdeError(f"{what}.carried_prior_recap: expected a boolean, got {_describe(flag)}")
    def count(name: str) -> int:
        return _uint(f[name], f"{what}.{name}")

    return RecapMetrics(count("recap_bytes"), count("budget_bytes"),
                        count("kept_results_count"), count("dropped_count"), flag)


def _read_measurement(value: Any) -> SourceMeasurement:
    f = _fields(value, _MEASURE_FIELDS, "source_measurement", all_required=True)
    return SourceMeasurement(*(_opt_uint(f.get(n), f"source_measurement.{n}")
                               for n in _MEASURE_FIELDS))


def read_receipt(value: Any) -> dict[str, Any]:
    """The receipt's fields as serde reads harn's struct (container default, unknown keys
    ignored). Raises SerdeError with the first reason it fails."""
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


def read_legacy(meta: Mapping[str, Any]) -> dict[str, Any]:
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
        except SerdeError:
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
