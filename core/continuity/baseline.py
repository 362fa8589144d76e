"""The arcaeon-baseline registration sealed into a snapshot (§6.4) and the comparison
report against it (§6.10), reproduced in memory: the reference's JSONL/registration
round trip through a temporary folder is never written."""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from sealscope.core.clock import utc_stamp
from sealscope.core.continuity.probes import probe_set_digest
from sealscope.core.continuity.running import (
    RunnerError,
    _aggregate,
    _coverage_note,
    _labelled,
    _run_items,
    _scope,
    _significance_note,
)
from sealscope.core.continuity.schema import (
    AGAINST_FILE,
    BASELINE_VERSION,
    DIFF_SCHEMA,
    KNOWN_SCORING_TYPES,
    PROBES_FILE,
    REGISTRATION_SCHEMA,
    SCORING_SEMANTICS,
)
from sealscope.core.digest import digest_json

__all__: list[str] = []

_CHAIN_SKIPPED = {
    "ran": False,
    "status": "skipped_no_ledger_path",
    "detail": (
        "no ledger_path was given, so the registration's contents were not checked "
        "against any chained record. This diff's `before` side is trusted straight "
        "off disk."
    ),
}


def _register(probes: list[dict[str, Any]], label: str) -> dict[str, Any]:
    """The baseline registration sealed into a snapshot (§6.4): every probe answered
    by its own declared answer and scored."""
    digest = probe_set_digest(probes)
    declared = {
        p["prompt"]: p["scoring"]["answer"]
        for p in probes
        if p["scoring"].get("type") == "exact_match"
    }

    def identity(prompt: str) -> Any:
        if prompt not in declared:
            raise RunnerError(f"no declared answer for prompt: {prompt!r}")
        return declared[prompt]

    items = _run_items(probes, _labelled(identity, "manifest-declared"))
    agg = _aggregate(items)
    reg = {
        "schema": REGISTRATION_SCHEMA,
        "scoring_semantics": SCORING_SEMANTICS,
        "tool_version": BASELINE_VERSION,
        "label": label,
        "probe_set_digest": digest,
        "probe_count": len(probes),
        "probes_path": None,
        "runner": {"type": "callable", "label": "manifest-declared"},
        "items": items,
        "aggregate": agg,
        "items_digest": digest_json({"items": items, "aggregate": agg}),
        "registered_at": utc_stamp(),
    }
    # the reference writes this object to a UTF-8 file: what cannot be, refuses
    json.dumps(reg, indent=2, ensure_ascii=False).encode("utf-8")
    return reg


def _check_scoring(sc: Any, where: str) -> None:
    """The baseline loader's rules for one probe's `scoring` object."""
    if not isinstance(sc, dict) or "type" not in sc:
        raise ValueError(f"{where}: scoring must be an object with a 'type'")
    kind = sc["type"]
    if kind not in KNOWN_SCORING_TYPES:
        raise ValueError(
            f"{where}: unknown scoring type {kind!r} (known: {sorted(KNOWN_SCORING_TYPES)})"
        )
    if kind == "calibration":
        if not isinstance(sc.get("answerable"), bool):
            raise ValueError(f"{where}: calibration scoring requires 'answerable' (bool)")
        if sc["answerable"] and not isinstance(sc.get("answer"), str):
            raise ValueError(f"{where}: an answerable calibration probe requires a string 'answer'")
    elif kind == "exact_match":
        if not isinstance(sc.get("answer"), str):
            raise ValueError(f"{where}: exact_match scoring requires a string 'answer'")
    else:
        if "answer" not in sc:
            raise ValueError(f"{where}: numeric_tolerance scoring requires 'answer'")
        for key in ("answer", "tolerance"):
            val = sc.get(key, 0)
            try:
                if isinstance(val, bool):
                    raise TypeError
                float(val)
            except (TypeError, ValueError):
                raise ValueError(
                    f"{where}: numeric_tolerance {key!r} must be a number, got {val!r}"
                ) from None


def _reload_probes(lines: Sequence[str]) -> list[dict[str, Any]]:
    """The baseline loader's view of the probe list written as ASCII-escaped
    JSONL lines: each probe validated, id and prompt as text, duplicate ids
    refused, sorted by id."""
    out: list[dict[str, Any]] = []
    seen: set[Any] = set()
    src = PROBES_FILE
    for n, raw in enumerate(lines, 1):
        try:
            obj = json.loads(raw)
        except RecursionError:
            raise ValueError(f"{src}:{n}: JSON nested too deeply") from None
        if not isinstance(obj, dict):
            raise ValueError(f"{src}:{n}: probe row must be a JSON object")
        for key in ("id", "prompt", "scoring"):
            if key not in obj:
                raise ValueError(f"{src}:{n}: probe missing required key {key!r}")
        sc = obj["scoring"]
        _check_scoring(sc, f"{src}:{n}")
        probe = {"id": str(obj["id"]), "prompt": str(obj["prompt"]), "scoring": sc}
        try:
            json.dumps(probe, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(
                f"{src}:{n}: probe contains a lone surrogate code point (not encodable as UTF-8)"
            ) from None
        if probe["id"] in seen:
            raise ValueError(f"{src}:{n}: duplicate probe id {probe['id']!r} (first seen in {src})")
        seen.add(probe["id"])
        out.append(probe)
    if not out:
        raise ValueError(f"probe path {src} contained zero valid probes")
    return sorted(out, key=lambda p: p["id"])


def _invalid_report(
    reg: dict[str, Any],
    reason: str,
    registered: Any,
    current: str,
    semantics: Any,
    kind: str | None,
) -> dict[str, Any]:
    rep = {
        "schema": DIFF_SCHEMA,
        "valid": False,
        "reason": reason,
        "against_label": reg.get("label"),
        "against_file": AGAINST_FILE,
        "registered_probe_set_digest": registered,
        "current_probe_set_digest": current,
        "registered_scoring_semantics": semantics,
        "current_scoring_semantics": SCORING_SEMANTICS,
        "compared_at": utc_stamp(),
    }
    if kind:
        rep["invalid_kind"] = kind
    return rep


def _compare(
    reg: dict[str, Any],
    probes: list[dict[str, Any]],
    run: Callable[[str], Any],
    describe: Callable[[], dict[str, Any]],
) -> dict[str, Any]:
    """The baseline comparison report (§6.10): invalid when the probe set or the
    scorer changed since registration; else every probe re-scored and flips listed."""
    current = probe_set_digest(probes)
    try:
        registered = reg["probe_set_digest"]
    except KeyError:
        raise ValueError("registration is malformed: no 'probe_set_digest'") from None
    semantics = reg.get("scoring_semantics")
    if current != registered:
        return _invalid_report(
            reg,
            "probe set changed since registration — comparison invalid",
            registered,
            current,
            semantics,
            None,
        )
    if semantics != SCORING_SEMANTICS:
        if semantics is None:
            reason = (
                "registration predates scoring-semantics recording (arcaeon-baseline "
                "< 0.1.2) — the scorer that produced those scores cannot be "
                f"identified, so a diff against {SCORING_SEMANTICS} would attribute "
                "scorer changes to the substrate. Re-register a baseline with this "
                "version."
            )
        else:
            reason = (
                f"scoring semantics changed since registration ({semantics} -> "
                f"{SCORING_SEMANTICS}) — re-scoring old items with a new scorer "
                "measures the scorer, not the substrate. Re-register a baseline."
            )
        return _invalid_report(reg, reason, registered, current, semantics, "scoring_semantics")
    items = _run_items(probes, run)
    after = _aggregate(items)
    try:
        before_items = {it["id"]: it for it in reg["items"]}
        before = reg["aggregate"]
        flips = []
        for it in items:
            b = before_items.get(it["id"])
            if b is not None and b.get("score") != it.get("score"):
                flips.append(
                    {
                        "id": it["id"],
                        "scoring_type": it["scoring_type"],
                        "before_score": b.get("score"),
                        "after_score": it.get("score"),
                        "before_output": b.get("output"),
                        "after_output": it.get("output"),
                    }
                )
        delta = None
        if before.get("mean") is not None and after["mean"] is not None:
            delta = after["mean"] - before["mean"]
        scope, coverage = _scope(before, after), _coverage_note(before, after)
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"registration is malformed: {type(e).__name__}: {e}") from None
    return {
        "schema": DIFF_SCHEMA,
        "valid": True,
        "against_label": reg.get("label"),
        "against_file": AGAINST_FILE,
        "against_registered_at": reg.get("registered_at"),
        "chain_check": dict(_CHAIN_SKIPPED),
        "probe_set_digest": current,
        "runner": describe(),
        "n": len(items),
        "flips": flips,
        "n_flips": len(flips),
        "aggregate_before": before,
        "aggregate_after": after,
        "aggregate_delta": {"mean": delta},
        "calibration_shift": None,
        "significance_note": _significance_note(after["n_scored"], delta),
        "verified_scope": scope,
        "coverage_note": coverage,
        "compared_at": utc_stamp(),
    }
