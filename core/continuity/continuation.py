"""Verdicts on a later restatement against the sealed baseline (§6.10–6.11).

The restatement comes as a `{probe id: text}` dict or from a runner; the baseline
comparison (`sealscope.core.continuity.baseline`) re-scores every probe; strict mode
adds every answered item that is not its declared value whitespace-trimmed.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core import verdict as _verdict
from sealscope.core.continuity.baseline import _compare, _reload_probes
from sealscope.core.continuity.divergences import _apply_severity, _normalize_divergence
from sealscope.core.continuity.probes import _require_unique
from sealscope.core.continuity.running import RunnerError, _describe, _labelled
from sealscope.core.continuity.schema import AGAINST_FILE, REGISTRATION_SCHEMA, VERDICT_SCHEMA
from sealscope.core.continuity.snapshots import ContinuitySnapshot
from sealscope.core.digest import digest_json
from sealscope.core.jsonio import loads as _loads

__all__ = ["VERDICT_COMPARISONS", "CLAIMED_PROPERTY", "ContinuationVerdict", "verify_continuation"]

VERDICT_COMPARISONS = ("exact_match", "containment_only", "divergence")
CLAIMED_PROPERTY = {
    "exact_match": "every declared item was restated exactly, whitespace-trimmed (strict mode).",
    "containment_only": (
        "every declared value appeared in the restatement (containment — NOT exact restatement)."
    ),
    "divergence": "at least one declared item did not match under this verdict's scoring mode.",
}

_LOOSE_NOTE = (
    "strict=False: loose (containment) mode — `faithful` is deliberately None; the bare "
    "boolean is unobtainable for a containment-scored result. Read `comparison`: a pass "
    "here means each declared value APPEARED in the answer (arcaeon-baseline containment "
    "scoring), not that it was restated exactly"
)
_NOT_EXACT = "restatement is not an exact restatement of the declared item"


@dataclass(frozen=True)
class ContinuationVerdict(_verdict.Judged):
    """A verdict on a restatement (§6.10–6.11). `faithful` is True/False in strict
    mode and always None in loose mode; truthy only when `faithful is True`."""

    schema: str
    faithful: bool | None
    valid: bool
    divergences: tuple[Any, ...] = ()
    receipt: dict[str, Any] = field(default_factory=dict)
    notes: tuple[Any, ...] = ()
    comparison: str | None = None
    claimed_property: str | None = None
    manifest_digest: str | None = None
    probe_set_digest: str | None = None
    policy: dict[str, Any] | None = None

    def __bool__(self) -> bool:
        return self.faithful is True

    def outcome(self) -> _verdict.Outcome:
        """`sealscope continuity`'s verdict: faithful 0, contained only 3, else 1."""
        return _verdict.continuation(self)

    @property
    def verdict_digest(self) -> str | None:
        """json-c14n of the envelope (schema, comparison, policy, valid, faithful,
        the two snapshot digests, sorted divergence ids); None without an envelope."""
        if self.policy is None or self.manifest_digest is None or self.probe_set_digest is None:
            return None
        return digest_json(
            {
                "schema": self.schema,
                "comparison": self.comparison,
                "policy": self.policy,
                "valid": self.valid,
                "faithful": self.faithful,
                "manifest_digest": self.manifest_digest,
                "probe_set_digest": self.probe_set_digest,
                "divergence_ids": sorted(str(d.get("id")) for d in self.divergences),
            }
        )

    @property
    def by_severity(self) -> dict[str, Any]:
        """Divergences grouped by `severity` (`untiered` when absent), groups in
        order of first appearance."""
        out: dict[str, Any] = {}
        for d in self.divergences:
            out.setdefault(d.get("severity", "untiered"), []).append(dict(d))
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": self.schema,
            "faithful": self.faithful,
            "valid": self.valid,
            "divergences": [dict(d) for d in self.divergences],
            "receipt": copy.deepcopy(self.receipt),
            "notes": list(self.notes),
            "by_severity": self.by_severity,
            "comparison": self.comparison,
            "claimed_property": self.claimed_property,
            "manifest_digest": self.manifest_digest,
            "probe_set_digest": self.probe_set_digest,
            "policy": copy.deepcopy(self.policy),
            "verdict_digest": self.verdict_digest,
        }


def _strict_extras(
    probe_list: Sequence[dict[str, Any]], answers: Mapping[str, Any]
) -> list[dict[str, Any]]:
    """Strict layer: an answered exact_match probe passes only when the answer
    equals the declared value after Python-whitespace trimming."""
    out = []
    for p in probe_list:
        sc = p.get("scoring") or {}
        if sc.get("type") != "exact_match" or p["id"] not in answers:
            continue
        got, want = answers[p["id"]], sc.get("answer")
        if isinstance(got, str) and isinstance(want, str) and got.strip() == want.strip():
            continue
        out.append(
            {
                "id": p["id"],
                "scoring_type": "exact_match",
                "reason": _NOT_EXACT,
                "declared": want,
                "restated": got,
            }
        )
    return out


@dataclass(frozen=True)
class _Answers:
    """Where a restatement comes from: `run` answers one prompt, `describe` names the
    runner in the report, `answered` gives `{probe id: answer}` once the run is over."""

    run: Callable[[str], Any]
    describe: Callable[[], dict[str, Any]]
    restated: dict[str, Any] | None = None
    recorded: dict[str, Any] | None = None

    def answered(self, prompts: Mapping[str, str]) -> dict[str, Any]:
        if self.restated is not None:
            return {pid: self.restated[pid] for pid in prompts if pid in self.restated}
        got = self.recorded or {}
        return {pid: got[pr] for pid, pr in prompts.items() if pr in got}


def _from_restated(restated: Any, prompts: Mapping[str, str]) -> _Answers:
    """A `{probe id: text}` dict as a runner that answers each prompt by its id."""
    if not isinstance(restated, dict):
        raise TypeError("restated= must be a {probe_id: answer_str} dict")
    for pid, ans in restated.items():
        if not isinstance(ans, str):
            raise TypeError(
                f"restated[{pid!r}] must be a str, got {type(ans).__name__} — a restatement is text"
            )
    by_prompt = {v: k for k, v in prompts.items()}

    def lookup(prompt: str) -> str:
        pid = by_prompt.get(prompt)
        if pid is None or pid not in restated:
            raise RunnerError(f"no restated answer for prompt: {prompt!r}")
        answer: str = restated[pid]  # checked to be a str above
        return answer

    def describe() -> dict[str, Any]:
        return {"type": "callable", "label": "restated"}

    return _Answers(_labelled(lookup, "restated"), describe, restated=restated)


def _from_runner(runner: Any) -> _Answers:
    """A `prompt → text` function or an object with `.run`, its answers recorded."""
    if isinstance(runner, str):
        raise TypeError("runner must be a Runner/callable, not a string — did you mean restated=?")
    if callable(runner) and not hasattr(runner, "run"):
        inner = _labelled(runner, "continuation")

        def describe() -> dict[str, Any]:
            return {"type": "callable", "label": "continuation"}
    else:

        def inner(prompt: str) -> Any:
            return runner.run(prompt)

        def describe() -> dict[str, Any]:
            return _describe(runner)

    recorded: dict[str, Any] = {}

    def run(prompt: str) -> str:
        out = inner(prompt)
        if not isinstance(out, str):
            raise RunnerError(
                f"runner returned {type(out).__name__}, not str, for prompt {prompt[:60]!r}"
            )
        recorded[prompt] = out
        return out

    return _Answers(run, describe, recorded=recorded)


def _baseline_report(
    snap: ContinuitySnapshot, probe_list: Sequence[dict[str, Any]], answers: _Answers
) -> dict[str, Any]:
    """The reference's file round trip, in memory: probes as ASCII JSONL, the
    registration as UTF-8 JSON, both re-read by the baseline loader, then compared."""
    probe_lines = [json.dumps(p, ensure_ascii=True) for p in probe_list]
    reg_text = json.dumps(snap.registration, ensure_ascii=False)
    reg_text.encode("utf-8")
    reg = _loads(reg_text)
    if not isinstance(reg, dict) or reg.get("schema") != REGISTRATION_SCHEMA:
        schema = reg.get("schema") if isinstance(reg, dict) else None
        raise ValueError(
            f"{AGAINST_FILE}: not an arcaeon-baseline registration (schema={schema!r})"
        )
    return _compare(reg, _reload_probes(probe_lines), answers.run, answers.describe)


def _invalid_verdict(
    report: dict[str, Any], strict: Any, common: dict[str, Any]
) -> ContinuationVerdict:
    return ContinuationVerdict(
        faithful=False if strict else None,
        valid=False,
        divergences=(),
        receipt=report,
        notes=(
            report.get("reason"),
            ("comparison not established: the probe set does not match the sealed baseline"),
        ),
        **common,
    )


def _valid_verdict(
    report: dict[str, Any],
    probe_list: Sequence[dict[str, Any]],
    answers: Mapping[str, Any],
    strict: Any,
    tiers: Mapping[str, Any] | None,
    severity_of: Callable[[dict[str, Any]], Any] | None,
    common: dict[str, Any],
) -> ContinuationVerdict:
    """Divergences: the score flips, plus (strict) the inexact answers; then tiered."""
    divs = list(report.get("flips", []))
    notes = []
    if strict:
        flipped = {d.get("id") for d in divs}
        extra = [d for d in _strict_extras(probe_list, answers) if d["id"] not in flipped]
        if extra:
            notes.append(
                f"{len(extra)} item(s) scored as a match by containment but are "
                "NOT exact restatements of the declared value; strict mode "
                "counts them as divergences"
            )
        divs += extra
    else:
        notes.append(_LOOSE_NOTE)
    report["strict_exact_restatement"] = strict
    if report.get("significance_note"):
        notes.append(report["significance_note"])
    divs = [_normalize_divergence(d) for d in divs]
    if tiers is not None or severity_of is not None:
        divs = [_apply_severity(d, tiers, severity_of) for d in divs]
    if divs:
        comparison = "divergence"
    else:
        comparison = "exact_match" if strict else "containment_only"
    notes.append(f"comparison={comparison!r} — {CLAIMED_PROPERTY[comparison]}")
    return ContinuationVerdict(
        faithful=(not divs) if strict else None,
        valid=True,
        divergences=tuple(divs),
        receipt=report,
        notes=tuple(notes),
        comparison=comparison,
        claimed_property=CLAIMED_PROPERTY[comparison],
        **common,
    )


def verify_continuation(
    snap: ContinuitySnapshot,
    *,
    probes: Any = None,
    runner: Any = None,
    restated: Any = None,
    ledger_path: str | Path | None = None,
    strict: Any = True,
    tiers: Mapping[str, Any] | None = None,
    severity_of: Callable[[dict[str, Any]], Any] | None = None,
) -> ContinuationVerdict:
    """Score a restatement (a `{probe id: text}` dict, or a runner: a `prompt →
    text` function or an object with `.run`) against the sealed baseline (§6.10).

    Divergences are the score flips (sorted by id) plus, in strict mode, every
    answered item that is not its declared value whitespace-trimmed. Invalid
    when the probe set or scorer changed. Appends a `continuity_verify` row to
    `ledger_path` when given."""
    if (runner is None) == (restated is None):
        raise ValueError("pass exactly one of runner= or restated=")
    policy = {"strict": bool(strict), "id_scheme": getattr(snap, "id_scheme", "index")}
    probe_list = probes if probes is not None else snap.probes
    _require_unique(probe_list)
    prompts = {p["id"]: p["prompt"] for p in probe_list}
    answers = _from_restated(restated, prompts) if restated is not None else _from_runner(runner)
    report = _baseline_report(snap, probe_list, answers)
    common = dict(
        schema=VERDICT_SCHEMA,
        manifest_digest=snap.manifest_digest,
        probe_set_digest=snap.probe_set_digest,
        policy=policy,
    )
    if not report.get("valid", False):
        verdict = _invalid_verdict(report, strict, common)
    else:
        verdict = _valid_verdict(
            report, probe_list, answers.answered(prompts), strict, tiers, severity_of, common
        )
    if ledger_path is not None:
        _ledger.append(
            ledger_path,
            {
                "kind": "continuity_verify",
                "label": snap.label,
                "manifest_digest": snap.manifest_digest,
                "faithful": verdict.faithful,
                "valid": verdict.valid,
                "n_divergences": len(verdict.divergences),
                "schema": verdict.schema,
                "comparison": verdict.comparison,
                "policy": verdict.policy,
                "verdict_digest": verdict.verdict_digest,
            },
        )
    return verdict
