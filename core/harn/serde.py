"""Reading harn's compaction receipt the way harn's serde derives do, and harn files the
way serde_json parses them where numbers matter.

What harn declares (burin-labs/harn, `crates/harn-vm/src/orchestration/`):

* `CompactionReceipt` (`compaction_receipt.rs`) derives `Deserialize` with
  `#[serde(default)]` on the struct and `#[serde(default = "default_schema_version")]`
  on `schema_version`: a missing key reads its default (`""`, `0`, None; a missing
  `schema_version` reads 1); unknown keys are ignored. A *present* value still has to
  have the field's type: `null` where a `String` or `usize` belongs, a negative or
  fractional count, a number where a string belongs, all fail the whole receipt
  (`from_event_metadata` then returns None and the record builder migrates the flat
  metadata instead).
* `RecapMetrics` (`compaction.rs`) derives `Deserialize` with `#[serde(default)]` on the
  struct: `{}`, an object with only some of its five fields, or an array of at most five
  elements (declaration order) reads with 0/false for what is missing. `recap: null`
  is `Option::None`. A present field of the wrong type fails.
* `CompactionSourceMeasurement`: every field is `Option<usize>`, so a missing key reads
  None ("not measured"), never 0 ("measured zero"); the two are never merged here. An
  array must carry all four elements (no container default is declared).
* Legacy path (no receipt, or one that failed): `schema_version` 0, strings from the
  flat keys or `""`, counts from the flat keys via `as_u64` (whole numbers in
  0..2**64-1, else 0), `recap` only when it reads as above, no `source_measurement`.

A count harn filled with its default because the key was absent is listed in the
event's `defaulted`: a 0 that nothing claimed.

serde_json, which parses the file for harn, refuses `NaN`/`Infinity` and numbers beyond
an f64's range (the file is unreadable to harn), and reads a literal `-0` as the float
-0.0, which no unsigned field accepts. `loads` reproduces that: `-0` becomes `NEG_ZERO`,
an int 0 everywhere else (digests, output) that the readers here refuse as serde does.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

from sealscope.core.harn.model import (
    RECEIPT_FIELDS,
    U32_MAX,
    U64_MAX,
    RecapMetrics,
    SourceMeasurement,
    _str_or_none,
)

__all__ = ["SerdeError", "NEG_ZERO", "loads", "read_receipt", "read_legacy", "read_recap", "COUNTS"]

# the receipt's unsigned counts whose absence reads 0
COUNTS = ("archived_messages", "estimated_tokens_before", "estimated_tokens_after")


class _NegativeZero(int):
    """The literal `-0`: 0 to Python and to every digest, a float to serde_json."""

    def __repr__(self) -> str:
        return "-0"


NEG_ZERO = _NegativeZero(0)


def _parse_int(text: str) -> int:
    if text == "-0":
        return NEG_ZERO
    n = int(text)
    if len(text) > 300:  # serde_json reads it as an f64; past the f64 range it refuses
        try:
            float(n)
        except OverflowError:
            raise ValueError(f"number out of range ({len(text)} digits)") from None
    return n


def _parse_float(text: str) -> float:
    v = float(text)
    if v in (float("inf"), float("-inf")):
        raise ValueError(f"number out of range ({text[:40]})")
    return v


def _refuse_constant(name: str) -> Any:
    raise ValueError(
        f"{name} is not a JSON number; harn's JSON reader (serde_json) refuses NaN and Infinity"
    )


def loads(data: bytes | str) -> Any:
    """Parse JSON text as harn's serde_json does where it differs from CPython: NaN,
    Infinity and numbers beyond the f64 range are refused (ValueError), `-0` reads as
    NEG_ZERO. Every failure is a ValueError (UnicodeDecodeError for invalid UTF-8),
    including nesting too deep for the interpreter."""
    try:
        return json.loads(
            data, parse_int=_parse_int, parse_float=_parse_float, parse_constant=_refuse_constant
        )
    except RecursionError as e:
        raise ValueError(f"nesting too deep to parse: {e}") from None


# what serde_json sees in a JSON value, for messages; bool before int, -0 before int
_KINDS: tuple[tuple[type, str], ...] = (
    (type(None), "null"),
    (bool, "a boolean"),
    (_NegativeZero, "-0 (a float to serde_json)"),
    (float, "a number with a fraction or exponent (a float)"),
    (str, "a string"),
    (list, "an array"),
    (dict, "an object"),
)


def _describe(v: Any) -> str:
    for kind, words in _KINDS:
        if isinstance(v, kind):
            return words
    if isinstance(v, int):
        return "a negative integer" if v < 0 else "an integer"
    return type(v).__name__


def _u64(v: Any) -> int | None:
    """harn's `as_u64`: an integer in 0..2**64-1 (bools and floats are not)."""
    return v if type(v) is int and 0 <= v <= U64_MAX else None


class SerdeError(Exception):
    """The first reason serde would refuse a value (one line)."""


def _uint(v: Any, name: str, limit: int = U64_MAX) -> int:
    if type(v) is int and 0 <= v <= limit:
        return v
    if type(v) is int and v > limit:
        raise SerdeError(f"{name}: expected a whole number, got an integer above {limit}")
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
            raise SerdeError(f"{what}: an array of {len(value)} elements, expected {len(names)}")
        return dict(zip(names, value, strict=False))  # length checked above
    raise SerdeError(f"{what}: expected an object, got {_describe(value)}")


_RECAP_FIELDS = (
    "recap_bytes",
    "budget_bytes",
    "kept_results_count",
    "dropped_count",
    "carried_prior_recap",
)
_MEASURE_FIELDS = ("source_message_count", "source_bytes", "summary_bytes", "carried_source_bytes")


def read_recap(value: Any, what: str = "recap") -> RecapMetrics:
    """`RecapMetrics` under `#[serde(default)]`: what is missing reads 0/false."""
    f = _fields(value, _RECAP_FIELDS, what, all_required=False)
    counts = [_uint(f.get(n, 0), f"{what}.{n}") for n in _RECAP_FIELDS[:4]]
    flag = f.get("carried_prior_recap", False)
    if not isinstance(flag, bool):
        raise SerdeError(
            f"{what}.carried_prior_recap: expected true or false, got {_describe(flag)}"
        )
    return RecapMetrics(counts[0], counts[1], counts[2], counts[3], flag)


def _read_measurement(value: Any) -> SourceMeasurement:
    f = _fields(value, _MEASURE_FIELDS, "source_measurement", all_required=True)
    return SourceMeasurement(
        *(_opt_uint(f.get(n), f"source_measurement.{n}") for n in _MEASURE_FIELDS)
    )


def read_receipt(value: Any) -> dict[str, Any]:
    """The receipt's fields as serde reads harn's struct (container default, unknown keys
    ignored). Raises SerdeError with the first reason it fails."""
    f = _fields(value, RECEIPT_FIELDS, "receipt", all_required=False)
    g = f.get
    out: dict[str, Any] = {
        "schema_version": _uint(f["schema_version"], "schema_version", U32_MAX)
        if "schema_version" in f
        else 1,
        "receipt_id": _string(g("receipt_id", ""), "receipt_id"),
        "session_id": _opt_string(g("session_id"), "session_id"),
        "transcript_id": _opt_string(g("transcript_id"), "transcript_id"),
    }
    for name in ("mode", "reason", "strategy", "engine_strategy"):
        out[name] = _string(g(name, ""), name)
    out["requested_strategy"] = _opt_string(g("requested_strategy"), "requested_strategy")
    out["resolved_threshold_tokens"] = _opt_uint(
        g("resolved_threshold_tokens"), "resolved_threshold_tokens"
    )
    out["threshold_source"] = _opt_string(g("threshold_source"), "threshold_source")
    out["hard_limit_tokens"] = _opt_uint(g("hard_limit_tokens"), "hard_limit_tokens")
    for name in COUNTS:
        out[name] = _uint(g(name, 0), name)
    for name in ("snapshot_asset_id", "instruction_mode", "instruction_source"):
        out[name] = _opt_string(g(name), name)
    out["compaction_policy"] = g("compaction_policy")
    recap = g("recap")
    out["recap"] = None if recap is None else read_recap(recap)
    sm = g("source_measurement")
    out["source_measurement"] = None if sm is None else _read_measurement(sm)
    out["defaulted"] = frozenset(n for n in COUNTS if n not in f)
    return out


def read_legacy(meta: Mapping[str, Any]) -> dict[str, Any]:
    """harn's flat-metadata migration: schema_version 0, strings or "", counts via
    `as_u64` or 0."""

    def s(name: str) -> str:
        v = meta.get(name)
        return v if isinstance(v, str) else ""

    def n(name: str) -> int:
        v = _u64(meta.get(name))
        return 0 if v is None else v

    recap = None
    if "recap" in meta:
        try:
            recap = read_recap(meta["recap"])
        except SerdeError:
            recap = None
    return {
        "schema_version": 0,
        "receipt_id": None,
        "session_id": None,
        "transcript_id": None,
        "mode": s("mode"),
        "reason": s("reason"),
        "strategy": s("strategy"),
        "engine_strategy": s("engine_strategy"),
        "requested_strategy": None,
        "resolved_threshold_tokens": None,
        "threshold_source": None,
        "hard_limit_tokens": None,
        "archived_messages": n("archived_messages"),
        "estimated_tokens_before": n("estimated_tokens_before"),
        "estimated_tokens_after": n("estimated_tokens_after"),
        "snapshot_asset_id": _str_or_none(meta.get("snapshot_asset_id")),
        "instruction_mode": s("instruction_mode"),
        "instruction_source": _str_or_none(meta.get("instruction_source")),
        "compaction_policy": meta.get("compaction_policy"),
        "recap": recap,
        "source_measurement": None,
        "defaulted": frozenset(n for n in COUNTS if n not in meta),
    }
