"""Continuity seals (FORMATS §6): snapshots of a declared manifest, the baseline
registration sealed inside them, verdicts on a later restatement, checkpoints,
diffs between seals, and drop receipts.

Every digest and verdict equals arcaeon 0.10.0's (`arcaeon.prove.continuity`
0.2.4 over `arcaeon.prove.baseline` 0.1.9) for the same input. Verdicts,
checkpoints and diffs are values; only bad arguments raise (ValueError /
TypeError, as the reference does). Nothing here prints or touches a temporary
file: the reference's JSONL/registration round trip is reproduced in memory.
"""
from __future__ import annotations

import copy
import hashlib
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from sealscope.core import ledger as _ledger
from sealscope.core.clock import utc_stamp
from sealscope.core.digest import digest_json
from sealscope.core.jsonio import loads as _loads

__all__ = [
    "SNAPSHOT_SCHEMA", "VERDICT_SCHEMA", "CHECKPOINT_SCHEMA", "REGISTRATION_SCHEMA",
    "DIFF_SCHEMA", "SCORING_SEMANTICS", "BASELINE_VERSION", "VERDICT_COMPARISONS",
    "CLAIMED_PROPERTY", "CHECKPOINT_OUTCOMES", "AGAINST_FILE", "PROBES_FILE",
    "RunnerError", "ExactMatchScore", "normalize_answer", "contains_whole",
    "score_exact_match", "derive_probes", "restate", "probe_set_digest",
    "ContinuitySnapshot", "snapshot", "ContinuationVerdict", "verify_continuation",
    "CheckpointReceipt", "classify_checkpoint", "added_since_seal", "diff_seals",
    "CarryResult", "carry_forward", "DropReceipt", "drop_receipt",
]

SNAPSHOT_SCHEMA = "arcaeon-continuity:snapshot:v1"
VERDICT_SCHEMA = "arcaeon-continuity:verdict:v1"
CHECKPOINT_SCHEMA = "arcaeon-continuity:checkpoint:v1"
REGISTRATION_SCHEMA = "arcaeon-baseline:registration:v1"
DIFF_SCHEMA = "arcaeon-baseline:diff:v1"
SCORING_SEMANTICS = "arcaeon-baseline:scoring:v2"
BASELINE_VERSION = "0.1.9"
KNOWN_SCORING_TYPES = frozenset({"exact_match", "numeric_tolerance", "calibration"})

# The reference round-trips probes and the registration through files in a
# temporary folder and names them in messages and in `receipt.against_file`.
# These stable placeholders stand in for those paths; no digest covers them.
AGAINST_FILE = "<sealscope:in-memory>/registration.json"
PROBES_FILE = "<sealscope:in-memory>/probes.jsonl"

VERDICT_COMPARISONS = ("exact_match", "containment_only", "divergence")
CLAIMED_PROPERTY = {
    "exact_match": "every declared item was restated exactly, whitespace-trimmed (strict mode).",
    "containment_only": ("every declared value appeared in the restatement (containment — "
                         "NOT exact restatement)."),
    "divergence": "at least one declared item did not match under this verdict's scoring mode.",
}
CHECKPOINT_OUTCOMES = ("refused_explicitly", "due_not_attempted", "attempted_no_receipt",
                       "receipt_received_faithful", "receipt_received_contained",
                       "receipt_received_divergent")

_LOOSE_NOTE = (
    "strict=False: loose (containment) mode — `faithful` is deliberately None; the bare "
    "boolean is unobtainable for a containment-scored result. Read `comparison`: a pass "
    "here means each declared value APPEARED in the answer (arcaeon-baseline containment "
    "scoring), not that it was restated exactly")
_NOT_EXACT = "restatement is not an exact restatement of the declared item"
_CHAIN_SKIPPED = {
    "ran": False,
    "status": "skipped_no_ledger_path",
    "detail": ("no ledger_path was given, so the registration's contents were not checked "
               "against any chained record. This diff's `before` side is trusted straight "
               "off disk."),
}


class RunnerError(Exception):
    """A runner could not answer one probe; that probe scores null (a runner
    object may raise this, or any exception class named `RunnerError`)."""


def _is_runner_error(e: BaseException) -> bool:
    return any(c.__name__ == "RunnerError" for c in type(e).__mro__)


# --------------------------------------------------------------------------- scoring

_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|[()][0-9A-B]|[=>])")
_RUNS_OF_SPACE = re.compile(r"\s+")


def normalize_answer(text: Any) -> str:
    """§6.9 step 1: drop ANSI escapes, strip, lowercase, collapse whitespace runs
    to one space, drop trailing `.`/`!`/`?`. A falsy value reads as ``""``."""
    s = _ANSI.sub("", text or "")
    s = _RUNS_OF_SPACE.sub(" ", s.strip().lower())
    return s.rstrip(".!?")


def contains_whole(haystack: str, needle: str) -> bool:
    """`needle` occurs in `haystack` not glued to a word character, and not as
    part of a longer number (no digit or `.` before; no `[.,]?digit` after)."""
    if not needle:
        return False
    return re.search(r"(?<!\w)(?<![\d.])" + re.escape(needle) + r"(?!\w)(?![.,]?\d)",
                     haystack) is not None


@dataclass(frozen=True)
class ExactMatchScore:
    """One exact_match outcome: score 1.0/0.0 out of 1.0, with its detail."""
    score: float
    max_score: float
    detail: dict


def score_exact_match(output: Any, answer: Any, distractors: Any = None) -> ExactMatchScore:
    """§6.9: empty normalised answer → 0.0; equal or whole-word contained → 1.0
    (unless a declared distractor is also contained: 0.0 "shotgun"); else 0.0."""
    out, want = normalize_answer(output), normalize_answer(answer)
    if not want:
        return ExactMatchScore(0.0, 1.0, {"reason": "empty expected answer"})
    if not (out == want or contains_whole(out, want)):
        return ExactMatchScore(0.0, 1.0, {"match": "none"})
    present = [d for d in (distractors or []) if contains_whole(out, normalize_answer(d))]
    if present:
        return ExactMatchScore(0.0, 1.0, {"match": "shotgun", "shotgun": True,
                                          "distractors_present": present})
    return ExactMatchScore(1.0, 1.0, {"match": "exact" if out == want
                                      else "whole-word-in-output"})


def _score(scoring: dict, output: str) -> ExactMatchScore:
    kind = scoring.get("type")
    if kind == "exact_match":
        return score_exact_match(output, scoring["answer"], scoring.get("distractors"))
    if kind in KNOWN_SCORING_TYPES:
        raise ValueError(f"scoring type {kind!r} is not scored by sealscope: only "
                         f"exact_match probes (the only kind snapshot() can seal) are")
    raise ValueError(f"unknown scoring type {kind!r} (known: {sorted(KNOWN_SCORING_TYPES)})")


# --------------------------------------------------------------------------- probes

def _answer_text(value: Any) -> str:
    """A declared value as answer text: a string as-is, anything else as sorted-key
    JSON with default separators and raw non-ASCII."""
    if isinstance(value, str):
        return value
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _check_scheme(id_scheme: Any) -> None:
    if id_scheme not in ("index", "content"):
        raise ValueError(f"id_scheme must be 'index' or 'content', got {id_scheme!r}")


def _list_item(key: Any, idx: int, item: Any, id_scheme: str,
               seen: dict) -> tuple[str, str, str]:
    """(id, answer, prompt) of list element `idx` of `key` (§6.1 table)."""
    if isinstance(item, dict) and set(item.keys()) == {"id", "value"}:
        pid = f"{key}:{item['id']}"
        return pid, _answer_text(item["value"]), \
            f"Restate the declared manifest item {pid!r} exactly."
    answer = _answer_text(item)
    if id_scheme == "content":
        base = f"{key}:{hashlib.sha256(answer.encode('utf-8')).hexdigest()[:12]}"
        n = seen[base] = seen.get(base, 0) + 1
        pid = base if n == 1 else f"{base}#{n}"
        return pid, answer, f"Restate the declared manifest item {pid!r} exactly."
    return f"{key}:{idx}", answer, f"Restate the declared manifest item {key}[{idx}] exactly."


def _walk_manifest(manifest: Mapping, id_scheme: str):
    """Yield (id, answer, prompt) in derivation order: sorted keys, then list order."""
    for key in sorted(manifest.keys()):
        value = manifest[key]
        if isinstance(value, list):
            seen: dict = {}
            for idx, item in enumerate(value):
                yield _list_item(key, idx, item, id_scheme, seen)
        else:
            yield key, _answer_text(value), \
                f"Restate the declared manifest field {key!r} exactly."


def derive_probes(manifest: Mapping, id_scheme: str = "index") -> list[dict]:
    """One exact_match probe per declared item, in derivation order (§6.1).
    Refuses a bad scheme and a manifest declaring zero items."""
    _check_scheme(id_scheme)
    probes = [{"id": pid, "prompt": prompt,
               "scoring": {"type": "exact_match", "answer": answer}}
              for pid, answer, prompt in _walk_manifest(manifest, id_scheme)]
    if not probes:
        raise ValueError("manifest declared zero items — nothing to snapshot")
    return probes


def restate(manifest: Mapping, id_scheme: str = "index") -> dict[str, str]:
    """`{probe id: answer}` for a manifest with the sealing derivation (§6.2): no
    uniqueness check (a later duplicate overwrites), `{}` for an empty manifest."""
    _check_scheme(id_scheme)
    if not isinstance(manifest, Mapping):
        raise TypeError("manifest must be a dict")
    return {pid: answer for pid, answer, _p in _walk_manifest(manifest, id_scheme)}


def _require_unique(probes: Sequence[dict]) -> None:
    """Ids, then prompts, must be unique across the probe set."""
    for name in ("id", "prompt"):
        seen: set = set()
        for p in probes:
            v = p[name]
            if v in seen:
                raise ValueError(f"duplicate probe {name} {v!r} — refusing to seal a "
                                 f"snapshot that could never be verified")
            seen.add(v)


def probe_set_digest(probes: Sequence[dict]) -> str:
    """json-c14n of the `{id, prompt, scoring}` objects sorted by id (§6.4.1)."""
    return digest_json([{"id": p["id"], "prompt": p["prompt"], "scoring": p["scoring"]}
                        for p in sorted(probes, key=lambda p: p["id"])])


def _coerce_probes(probes: Any) -> list[dict]:
    """Caller probes: dicts (or objects with id/prompt/scoring attributes), id and
    prompt turned into text."""
    out = []
    for p in probes:
        if isinstance(p, dict):
            out.append({"id": str(p["id"]), "prompt": str(p["prompt"]), "scoring": p["scoring"]})
        elif all(hasattr(p, a) for a in ("id", "prompt", "scoring")):
            out.append({"id": p.id, "prompt": p.prompt, "scoring": p.scoring})
        else:
            raise TypeError(f"probe must be a Probe or dict, got {type(p).__name__}")
    return out


# --------------------------------------------------------------------------- running

def _labelled(fn: Callable[[str], Any], label: str) -> Callable[[str], Any]:
    """A plain function as a runner: any exception it raises is a RunnerError
    naming the runner's label."""
    def run(prompt: str) -> Any:
        try:
            return fn(prompt)
        except Exception as e:  # noqa: BLE001 - every failure is a per-probe failure
            raise RunnerError(f"callable runner {label!r} raised: {e}") from e
    return run


def _run_items(probes: Sequence[dict], run: Callable[[str], Any]) -> list[dict]:
    """Score each probe's answer. A runner failure (or a non-string answer) is an
    item with null output/score and its error text; lone surrogates in an answer
    become U+FFFD before scoring."""
    items = []
    for p in probes:
        row: dict[str, Any] = {"id": p["id"], "prompt": p["prompt"],
                               "scoring_type": p["scoring"]["type"]}
        try:
            out = run(p["prompt"])
            if not isinstance(out, str):
                raise RunnerError(f"runner returned {type(out).__name__}, not str")
        except Exception as e:  # noqa: BLE001 - filtered just below
            if not _is_runner_error(e):
                raise
            row.update(output=None, score=None, max_score=1.0, error=str(e), detail={})
            items.append(row)
            continue
        out = out.encode("utf-8", "surrogatepass").decode("utf-8", "replace")
        s = _score(p["scoring"], out)
        row.update(output=out, score=s.score, max_score=s.max_score, detail=s.detail)
        items.append(row)
    return items


def _aggregate(items: Sequence[dict]) -> dict:
    """n, n_scored, n_errors, sum (int 0 when nothing scored), mean, by_type."""
    scored = [it for it in items if it["score"] is not None]
    total = sum(it["score"] for it in scored)
    by_type: dict[str, dict] = {}
    for it in scored:
        b = by_type.setdefault(it["scoring_type"], {"n": 0, "sum": 0.0})
        b["n"] += 1
        b["sum"] += it["score"]
    for b in by_type.values():
        b["mean"] = b["sum"] / b["n"] if b["n"] else None
    return {"n": len(items), "n_scored": len(scored), "n_errors": len(items) - len(scored),
            "sum": total, "mean": total / len(scored) if scored else None,
            "by_type": by_type}


def _significance_note(n_scored: int, delta: float | None) -> str | None:
    """The smoke-test caveat when fewer than 30 probes scored and a delta exists."""
    if delta is None or n_scored == 0 or n_scored >= 30:
        return None
    f = 1.0 / n_scored
    if abs(delta) < 2 * f:
        return (f"n={n_scored} is a smoke test, not a benchmark. One flipped item moves "
                f"the mean by ~{f:.3f}; the observed delta ({delta:+.3f}) is not "
                f"distinguishable from a single-item flip — read directionally, not as proof.")
    return (f"n={n_scored} is a smoke test, not a benchmark. The observed delta "
            f"({delta:+.3f}) is larger than one flipped item (~{f:.3f}) but n is still "
            f"too small for a real significance claim.")


def _scope(before: dict, after: dict) -> str:
    b, a = bool(before.get("n_errors")), bool(after.get("n_errors"))
    if a and b:
        return "bounded_both_unscored"
    if a:
        return "bounded_after_unscored"
    return "bounded_before_unscored" if b else "full"


def _coverage_note(before: dict, after: dict) -> str | None:
    parts = [f"{agg.get('n_errors')} of {agg.get('n')} probe(s) could not be scored in {where}"
             for where, agg in (("this run", after), ("the registered baseline", before))
             if agg.get("n_errors") or 0]
    if not parts:
        return None
    return ("; ".join(parts) + ". Unscored probes cannot flip (None vs None is not a "
            "change) and are excluded from the mean, so they cannot produce drift no "
            "matter what the model does with them. Read n_flips as covering "
            "verified_scope, not the whole probe set.")


# --------------------------------------------------------------------------- snapshot

@dataclass(frozen=True)
class ContinuitySnapshot:
    """A sealed manifest: its probes and the baseline registered over them (§6.5).
    `digest` covers schema, manifest and probe-set digests, registration items and
    aggregate, and `id_scheme` when it is not `index`."""
    schema: str
    label: Any
    manifest: Any
    manifest_digest: Any
    probes: Any
    probe_set_digest: Any
    registration: Any
    ledger_chain: Any
    ledger_path: Any
    created_at: Any
    id_scheme: Any = "index"

    @property
    def digest(self) -> str:
        reg = self.registration if isinstance(self.registration, dict) else {}
        core = {"schema": self.schema, "manifest_digest": self.manifest_digest,
                "probe_set_digest": self.probe_set_digest,
                "registration_items": reg.get("items"),
                "registration_aggregate": reg.get("aggregate")}
        if self.id_scheme != "index":
            core["id_scheme"] = self.id_scheme
        return digest_json(core)

    def to_dict(self) -> dict:
        """The snapshot JSON (§6.5 key order), with a fresh `digest`; a copy."""
        return {"schema": self.schema, "label": self.label,
                "manifest": copy.deepcopy(self.manifest),
                "manifest_digest": self.manifest_digest,
                "probes": copy.deepcopy(self.probes),
                "probe_set_digest": self.probe_set_digest,
                "registration": copy.deepcopy(self.registration),
                "ledger_chain": self.ledger_chain, "ledger_path": self.ledger_path,
                "created_at": self.created_at, "id_scheme": self.id_scheme,
                "digest": self.digest}

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.to_dict(), indent=indent, ensure_ascii=False)

    def save(self, path: str | Path) -> None:
        Path(path).write_text(self.to_json(), encoding="utf-8")

    def validate(self) -> None:
        """Raise ValueError unless the content reproduces the digests it claims
        (§6.6, checks in the reference's order). The stored `digest`, probe
        derivability and registration scores are not checked."""
        if self.schema != SNAPSHOT_SCHEMA:
            raise ValueError(f"not an arcaeon-continuity snapshot (schema={self.schema!r})")
        if not isinstance(self.manifest, dict):
            raise ValueError("manifest must be a dict")
        _check_scheme(self.id_scheme)
        if not isinstance(self.probes, list) or not self.probes:
            raise ValueError("probes must be a non-empty list")
        for p in self.probes:
            if not (isinstance(p, dict) and {"id", "prompt", "scoring"} <= set(p)):
                raise ValueError("every probe needs id, prompt and scoring")
        got = digest_json(self.manifest)
        if got != self.manifest_digest:
            raise ValueError("manifest_digest does not reproduce from the manifest — the "
                             f"snapshot was altered (claims {self.manifest_digest}, "
                             f"content digests to {got})")
        try:
            got = probe_set_digest(self.probes)
        except TypeError as e:  # ids of mixed types cannot be ordered
            raise ValueError(f"probe_set_digest cannot be recomputed: {e}") from None
        if got != self.probe_set_digest:
            raise ValueError("probe_set_digest does not reproduce from the probes — the "
                             f"snapshot was altered (claims {self.probe_set_digest}, "
                             f"content digests to {got})")
        reg = self.registration if isinstance(self.registration, dict) else {}
        if reg.get("probe_set_digest") != self.probe_set_digest:
            raise ValueError("registration is for a different probe set than the snapshot "
                             "carries — the sealed baseline and the exam disagree")
        items = reg.get("items") or []
        if not isinstance(items, list) or not all(isinstance(it, dict) for it in items) or \
                sorted(str(it.get("id")) for it in items) != \
                sorted(str(p["id"]) for p in self.probes):
            raise ValueError("registration items do not cover exactly the snapshot's probes")

    @classmethod
    def from_dict(cls, d: Any, validate: bool = True) -> "ContinuitySnapshot":
        """Load a snapshot object; refuses a non-object, a wrong schema and a
        missing required field, then runs validate() unless told not to."""
        if not isinstance(d, dict):
            raise ValueError("not an arcaeon-continuity snapshot (expected a JSON object, "
                             f"got {type(d).__name__})")
        if d.get("schema") != SNAPSHOT_SCHEMA:
            raise ValueError(f"not an arcaeon-continuity snapshot (schema={d.get('schema')!r})")
        for key in ("label", "manifest", "manifest_digest", "probes", "probe_set_digest",
                    "registration", "created_at"):
            if key not in d:
                raise ValueError(f"malformed snapshot: missing field {key!r}")
        snap = cls(schema=d["schema"], label=d["label"], manifest=d["manifest"],
                   manifest_digest=d["manifest_digest"], probes=d["probes"],
                   probe_set_digest=d["probe_set_digest"], registration=d["registration"],
                   ledger_chain=d.get("ledger_chain"), ledger_path=d.get("ledger_path"),
                   created_at=d["created_at"], id_scheme=d.get("id_scheme", "index"))
        if validate:
            snap.validate()
        return snap

    @classmethod
    def from_json(cls, text: str | bytes, validate: bool = True) -> "ContinuitySnapshot":
        return cls.from_dict(_loads(text), validate=validate)

    @classmethod
    def load(cls, path: str | Path, validate: bool = True) -> "ContinuitySnapshot":
        return cls.from_json(Path(path).read_text(encoding="utf-8"), validate=validate)


def _register(probes: list[dict], label: str) -> dict:
    """The baseline registration sealed into a snapshot (§6.4): every probe answered
    by its own declared answer and scored."""
    digest = probe_set_digest(probes)
    declared = {p["prompt"]: p["scoring"]["answer"] for p in probes
                if p["scoring"].get("type") == "exact_match"}

    def identity(prompt: str) -> Any:
        if prompt not in declared:
            raise RunnerError(f"no declared answer for prompt: {prompt!r}")
        return declared[prompt]

    items = _run_items(probes, _labelled(identity, "manifest-declared"))
    agg = _aggregate(items)
    reg = {"schema": REGISTRATION_SCHEMA, "scoring_semantics": SCORING_SEMANTICS,
           "tool_version": BASELINE_VERSION, "label": label, "probe_set_digest": digest,
           "probe_count": len(probes), "probes_path": None,
           "runner": {"type": "callable", "label": "manifest-declared"},
           "items": items, "aggregate": agg,
           "items_digest": digest_json({"items": items, "aggregate": agg}),
           "registered_at": utc_stamp()}
    # the reference writes this object to a UTF-8 file: what cannot be, refuses
    json.dumps(reg, indent=2, ensure_ascii=False).encode("utf-8")
    return reg


def snapshot(manifest: Any, ledger_path: str | Path | None = None, label: str = "continuity",
             probes: Any = None, id_scheme: str = "index") -> ContinuitySnapshot:
    """Seal `manifest` (§6.3): derive (or take) probes, refuse duplicates, register
    the baseline, refuse any probe that could not be scored (coverage fence),
    and append a `continuity_snapshot` row to `ledger_path` when given."""
    if not isinstance(manifest, dict):
        raise TypeError("manifest must be a dict")
    manifest_digest = digest_json(manifest)
    probe_list = _coerce_probes(probes) if probes is not None \
        else derive_probes(manifest, id_scheme=id_scheme)
    _require_unique(probe_list)
    if not isinstance(label, str):
        raise TypeError(f"label must be a str, got {type(label).__name__}")
    reg = _register(probe_list, label)
    agg = reg["aggregate"]
    if agg["n_errors"]:
        bad = [it for it in reg["items"] if it.get("error")]
        named = ", ".join(f"{it.get('id')!r} ({it.get('error')})" for it in bad[:5])
        more = f", and {len(bad) - 5} more" if len(bad) > 5 else ""
        raise ValueError(
            f"{agg['n_errors']} of {agg['n']} probe(s) could not be scored while sealing "
            f"the baseline, so a later verdict would silently omit them and still report "
            f"exact_match: {named}{more}. Every probe must be answerable at seal time -- "
            f"supply a runner that can answer them, or drop them from the probe set.")
    chain = None
    if ledger_path is not None:
        chain = _ledger.append(ledger_path, {
            "kind": "continuity_snapshot", "label": label,
            "manifest_digest": manifest_digest,
            "probe_set_digest": reg["probe_set_digest"],
            "aggregate_mean": agg["mean"]})
    return ContinuitySnapshot(
        schema=SNAPSHOT_SCHEMA, label=label, manifest=manifest,
        manifest_digest=manifest_digest,
        probes=[{"id": p["id"], "prompt": p["prompt"], "scoring": p["scoring"]}
                for p in probe_list],
        probe_set_digest=reg["probe_set_digest"], registration=reg, ledger_chain=chain,
        ledger_path=str(ledger_path) if ledger_path else None, created_at=utc_stamp(),
        id_scheme=id_scheme)


# --------------------------------------------------------------------------- verdicts

@dataclass(frozen=True)
class ContinuationVerdict:
    """A verdict on a restatement (§6.10–6.11). `faithful` is True/False in strict
    mode and always None in loose mode; truthy only when `faithful is True`."""
    schema: str
    faithful: bool | None
    valid: bool
    divergences: tuple = ()
    receipt: dict = field(default_factory=dict)
    notes: tuple = ()
    comparison: str | None = None
    claimed_property: str | None = None
    manifest_digest: str | None = None
    probe_set_digest: str | None = None
    policy: dict | None = None

    def __bool__(self) -> bool:
        return self.faithful is True

    @property
    def verdict_digest(self) -> str | None:
        """json-c14n of the envelope (schema, comparison, policy, valid, faithful,
        the two snapshot digests, sorted divergence ids); None without an envelope."""
        if self.policy is None or self.manifest_digest is None or self.probe_set_digest is None:
            return None
        return digest_json({
            "schema": self.schema, "comparison": self.comparison, "policy": self.policy,
            "valid": self.valid, "faithful": self.faithful,
            "manifest_digest": self.manifest_digest,
            "probe_set_digest": self.probe_set_digest,
            "divergence_ids": sorted(str(d.get("id")) for d in self.divergences)})

    @property
    def by_severity(self) -> dict:
        """Divergences grouped by `severity` (`untiered` when absent), groups in
        order of first appearance."""
        out: dict = {}
        for d in self.divergences:
            out.setdefault(d.get("severity", "untiered"), []).append(dict(d))
        return out

    def to_dict(self) -> dict:
        return {"schema": self.schema, "faithful": self.faithful, "valid": self.valid,
                "divergences": [dict(d) for d in self.divergences],
                "receipt": copy.deepcopy(self.receipt), "notes": list(self.notes),
                "by_severity": self.by_severity, "comparison": self.comparison,
                "claimed_property": self.claimed_property,
                "manifest_digest": self.manifest_digest,
                "probe_set_digest": self.probe_set_digest,
                "policy": copy.deepcopy(self.policy), "verdict_digest": self.verdict_digest}


def _normalize_divergence(d: dict) -> dict:
    """Complete a divergence to carry id, field, declared, restated and reason
    (original keys kept; new ones appended in that order)."""
    out = dict(d)
    pid = str(out.get("id", ""))
    out.setdefault("field", pid.split(":", 1)[0] if pid else "")
    if out.get("declared") is None and "before_output" in out:
        out["declared"] = out["before_output"]
    if out.get("restated") is None and "after_output" in out:
        out["restated"] = out["after_output"]
    if not out.get("reason") and ("before_score" in out or "after_score" in out):
        out["reason"] = f"score {out.get('before_score')} -> {out.get('after_score')}"
    return out


def _apply_severity(d: dict, tiers: Mapping | None,
                    severity_of: Callable[[dict], Any] | None) -> dict:
    """`severity` = first tier (map order) listing the field, else `notable`; then a
    non-null `severity_of(d)` overrides. Never changes faithful/valid."""
    if tiers is not None:
        f = d.get("field", "")
        d["severity"] = next((name for name, fields in tiers.items() if f in fields),
                             "notable")
    if severity_of is not None:
        over = severity_of(d)
        if over is not None:
            d["severity"] = over
    return d


def _reload_probes(lines: Sequence[str]) -> list[dict]:
    """The baseline loader's view of the probe list written as ASCII-escaped
    JSONL lines: each probe validated, id and prompt as text, duplicate ids
    refused, sorted by id."""
    out: list[dict] = []
    seen: set = set()
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
        if not isinstance(sc, dict) or "type" not in sc:
            raise ValueError(f"{src}:{n}: scoring must be an object with a 'type'")
        kind = sc["type"]
        if kind not in KNOWN_SCORING_TYPES:
            raise ValueError(f"{src}:{n}: unknown scoring type {kind!r} "
                             f"(known: {sorted(KNOWN_SCORING_TYPES)})")
        if kind == "calibration":
            if not isinstance(sc.get("answerable"), bool):
                raise ValueError(f"{src}:{n}: calibration scoring requires 'answerable' (bool)")
            if sc["answerable"] and not isinstance(sc.get("answer"), str):
                raise ValueError(f"{src}:{n}: an answerable calibration probe requires a "
                                 "string 'answer'")
        elif kind == "exact_match":
            if not isinstance(sc.get("answer"), str):
                raise ValueError(f"{src}:{n}: exact_match scoring requires a string 'answer'")
        else:
            if "answer" not in sc:
                raise ValueError(f"{src}:{n}: numeric_tolerance scoring requires 'answer'")
            for key in ("answer", "tolerance"):
                val = sc.get(key, 0)
                try:
                    if isinstance(val, bool):
                        raise TypeError
                    float(val)
                except (TypeError, ValueError):
                    raise ValueError(f"{src}:{n}: numeric_tolerance {key!r} must be a "
                                     f"number, got {val!r}") from None
        probe = {"id": str(obj["id"]), "prompt": str(obj["prompt"]), "scoring": sc}
        try:
            json.dumps(probe, ensure_ascii=False).encode("utf-8")
        except UnicodeEncodeError:
            raise ValueError(f"{src}:{n}: probe contains a lone surrogate code point "
                             "(not encodable as UTF-8)") from None
        if probe["id"] in seen:
            raise ValueError(f"{src}:{n}: duplicate probe id {probe['id']!r} "
                             f"(first seen in {src})")
        seen.add(probe["id"])
        out.append(probe)
    if not out:
        raise ValueError(f"probe path {src} contained zero valid probes")
    return sorted(out, key=lambda p: p["id"])


def _invalid_report(reg: dict, reason: str, registered: Any, current: str,
                    semantics: Any, kind: str | None) -> dict:
    rep = {"schema": DIFF_SCHEMA, "valid": False, "reason": reason,
           "against_label": reg.get("label"), "against_file": AGAINST_FILE,
           "registered_probe_set_digest": registered, "current_probe_set_digest": current,
           "registered_scoring_semantics": semantics,
           "current_scoring_semantics": SCORING_SEMANTICS, "compared_at": utc_stamp()}
    if kind:
        rep["invalid_kind"] = kind
    return rep


def _compare(reg: dict, probes: list[dict], run: Callable[[str], Any],
             describe: Callable[[], dict]) -> dict:
    """The baseline comparison report (§6.10): invalid when the probe set or the
    scorer changed since registration; else every probe re-scored and flips listed."""
    current = probe_set_digest(probes)
    try:
        registered = reg["probe_set_digest"]
    except KeyError:
        raise ValueError("registration is malformed: no 'probe_set_digest'") from None
    semantics = reg.get("scoring_semantics")
    if current != registered:
        return _invalid_report(reg, "probe set changed since registration — comparison "
                               "invalid", registered, current, semantics, None)
    if semantics != SCORING_SEMANTICS:
        if semantics is None:
            reason = ("registration predates scoring-semantics recording (arcaeon-baseline "
                      "< 0.1.2) — the scorer that produced those scores cannot be "
                      f"identified, so a diff against {SCORING_SEMANTICS} would attribute "
                      "scorer changes to the substrate. Re-register a baseline with this "
                      "version.")
        else:
            reason = (f"scoring semantics changed since registration ({semantics} -> "
                      f"{SCORING_SEMANTICS}) — re-scoring old items with a new scorer "
                      "measures the scorer, not the substrate. Re-register a baseline.")
        return _invalid_report(reg, reason, registered, current, semantics,
                               "scoring_semantics")
    items = _run_items(probes, run)
    after = _aggregate(items)
    try:
        before_items = {it["id"]: it for it in reg["items"]}
        before = reg["aggregate"]
        flips = []
        for it in items:
            b = before_items.get(it["id"])
            if b is not None and b.get("score") != it.get("score"):
                flips.append({"id": it["id"], "scoring_type": it["scoring_type"],
                              "before_score": b.get("score"), "after_score": it.get("score"),
                              "before_output": b.get("output"),
                              "after_output": it.get("output")})
        delta = None
        if before.get("mean") is not None and after["mean"] is not None:
            delta = after["mean"] - before["mean"]
        scope, coverage = _scope(before, after), _coverage_note(before, after)
    except (KeyError, TypeError, AttributeError) as e:
        raise ValueError(f"registration is malformed: {type(e).__name__}: {e}") from None
    return {"schema": DIFF_SCHEMA, "valid": True, "against_label": reg.get("label"),
            "against_file": AGAINST_FILE, "against_registered_at": reg.get("registered_at"),
            "chain_check": dict(_CHAIN_SKIPPED), "probe_set_digest": current,
            "runner": describe(), "n": len(items), "flips": flips, "n_flips": len(flips),
            "aggregate_before": before, "aggregate_after": after,
            "aggregate_delta": {"mean": delta}, "calibration_shift": None,
            "significance_note": _significance_note(after["n_scored"], delta),
            "verified_scope": scope, "coverage_note": coverage, "compared_at": utc_stamp()}


def _strict_extras(probe_list: Sequence[dict], answers: Mapping) -> list[dict]:
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
        out.append({"id": p["id"], "scoring_type": "exact_match", "reason": _NOT_EXACT,
                    "declared": want, "restated": got})
    return out


def _describe(obj: Any) -> dict:
    try:
        return obj.describe()
    except Exception:  # noqa: BLE001 - provenance never breaks a verdict
        return {"type": type(obj).__name__}


def verify_continuation(snap: ContinuitySnapshot, *, probes: Any = None, runner: Any = None,
                        restated: Any = None, ledger_path: str | Path | None = None,
                        strict: Any = True, tiers: Mapping | None = None,
                        severity_of: Callable[[dict], Any] | None = None
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
    recorded: dict | None = None
    if restated is not None:
        if not isinstance(restated, dict):
            raise TypeError("restated= must be a {probe_id: answer_str} dict")
        for pid, ans in restated.items():
            if not isinstance(ans, str):
                raise TypeError(f"restated[{pid!r}] must be a str, got {type(ans).__name__} "
                                "— a restatement is text")
        by_prompt = {v: k for k, v in prompts.items()}

        def lookup(prompt: str) -> str:
            pid = by_prompt.get(prompt)
            if pid is None or pid not in restated:
                raise RunnerError(f"no restated answer for prompt: {prompt!r}")
            return restated[pid]

        run = _labelled(lookup, "restated")
        answers = {pid: restated[pid] for pid in prompts if pid in restated}

        def describe() -> dict:
            return {"type": "callable", "label": "restated"}
    elif isinstance(runner, str):
        raise TypeError("runner must be a Runner/callable, not a string — did you mean restated=?")
    else:
        if callable(runner) and not hasattr(runner, "run"):
            inner = _labelled(runner, "continuation")

            def describe() -> dict:
                return {"type": "callable", "label": "continuation"}
        else:
            def inner(prompt: str) -> Any:
                return runner.run(prompt)

            def describe() -> dict:
                return _describe(runner)
        recorded = {}

        def run(prompt: str) -> str:
            out = inner(prompt)
            if not isinstance(out, str):
                raise RunnerError(f"runner returned {type(out).__name__}, not str, for "
                                  f"prompt {prompt[:60]!r}")
            recorded[prompt] = out
            return out
        answers = {}

    # the reference's file round trip, in memory: probes as ASCII JSONL, the
    # registration as UTF-8 JSON, both re-read by the baseline loader
    probe_lines = [json.dumps(p, ensure_ascii=True) for p in probe_list]
    reg_text = json.dumps(snap.registration, ensure_ascii=False)
    reg_text.encode("utf-8")
    reg = _loads(reg_text)
    if not isinstance(reg, dict) or reg.get("schema") != REGISTRATION_SCHEMA:
        schema = reg.get("schema") if isinstance(reg, dict) else None
        raise ValueError(f"{AGAINST_FILE}: not an arcaeon-baseline registration "
                         f"(schema={schema!r})")
    report = _compare(reg, _reload_probes(probe_lines), run, describe)
    if recorded is not None:
        answers = {pid: recorded[pr] for pid, pr in prompts.items() if pr in recorded}

    common = dict(schema=VERDICT_SCHEMA, manifest_digest=snap.manifest_digest,
                  probe_set_digest=snap.probe_set_digest, policy=policy)
    if not report.get("valid", False):
        verdict = ContinuationVerdict(
            faithful=False if strict else None, valid=False, divergences=(), receipt=report,
            notes=(report.get("reason"), "comparison not established: the probe set does "
                   "not match the sealed baseline"), **common)
    else:
        divs = list(report.get("flips", []))
        notes = []
        if strict:
            flipped = {d.get("id") for d in divs}
            extra = [d for d in _strict_extras(probe_list, answers) if d["id"] not in flipped]
            if extra:
                notes.append(f"{len(extra)} item(s) scored as a match by containment but are "
                             "NOT exact restatements of the declared value; strict mode "
                             "counts them as divergences")
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
        verdict = ContinuationVerdict(
            faithful=(not divs) if strict else None, valid=True, divergences=tuple(divs),
            receipt=report, notes=tuple(notes), comparison=comparison,
            claimed_property=CLAIMED_PROPERTY[comparison], **common)
    if ledger_path is not None:
        _ledger.append(ledger_path, {
            "kind": "continuity_verify", "label": snap.label,
            "manifest_digest": snap.manifest_digest, "faithful": verdict.faithful,
            "valid": verdict.valid, "n_divergences": len(verdict.divergences),
            "schema": verdict.schema, "comparison": verdict.comparison,
            "policy": verdict.policy, "verdict_digest": verdict.verdict_digest})
    return verdict


# --------------------------------------------------------------------------- checkpoints

_CHECKPOINT_NOTES = {
    "refused_explicitly": ("an explicit decline was recorded — positive evidence, not "
                           "inferred from a missing restatement"),
    "due_not_attempted": ("checkpoint came due; no restatement attempt was evidenced. "
                          "UNKNOWN, not unfaithful — the scheduler, the delivery path, or "
                          "the successor itself may be the failed component, and this "
                          "receipt does not guess which"),
    "attempted_no_receipt": ("an attempt was evidenced but no receipt was durably stored. "
                             "The successor may have answered and the receipt store or "
                             "delivery path lost it before it could be verified — this is "
                             "a missing receipt, not a divergence"),
}


@dataclass(frozen=True)
class CheckpointReceipt:
    """The one named outcome of a scheduled checkpoint (§6.13); `verdict` only
    for the `receipt_received_*` outcomes."""
    schema: str
    outcome: str
    snapshot_digest: str
    label: Any
    verdict: ContinuationVerdict | None
    refusal: str | None
    notes: tuple = ()

    @property
    def is_unresolved(self) -> bool:
        """True for the two outcomes that carry no fidelity judgment at all."""
        return self.outcome in ("due_not_attempted", "attempted_no_receipt")

    def to_dict(self) -> dict:
        return {"schema": self.schema, "outcome": self.outcome,
                "snapshot_digest": self.snapshot_digest, "label": self.label,
                "verdict": self.verdict.to_dict() if self.verdict is not None else None,
                "refusal": self.refusal, "notes": list(self.notes),
                "is_unresolved": self.is_unresolved}


def classify_checkpoint(snap: ContinuitySnapshot, *, attempted: Any,
                        receipt_stored: Any = False, restated: Any = None, runner: Any = None,
                        refusal: Any = None, ledger_path: str | Path | None = None,
                        strict: Any = True, tiers: Mapping | None = None,
                        severity_of: Callable[[dict], Any] | None = None
                        ) -> CheckpointReceipt:
    """First match wins: a refusal text → refused_explicitly; not attempted →
    due_not_attempted (contradicted by content: ValueError); `restated={}` →
    ValueError; no stored receipt → attempted_no_receipt; no content → ValueError;
    else the verdict decides faithful / contained / divergent (invalid → divergent)."""
    def receipt(outcome: str, verdict=None, text=None, note=None) -> CheckpointReceipt:
        return CheckpointReceipt(CHECKPOINT_SCHEMA, outcome, snap.digest, snap.label,
                                 verdict, text, (note or _CHECKPOINT_NOTES[outcome],))

    if refusal is not None:
        if not isinstance(refusal, str) or not refusal.strip():
            raise TypeError("refusal must be a non-empty str — the successor's own stated "
                            "reason, not a bare truthy flag")
        return receipt("refused_explicitly", text=refusal)
    if not attempted:
        if restated is not None or runner is not None:
            raise ValueError("attempted=False but restated=/runner= was also supplied — "
                             "contradictory evidence; pass attempted=True if an attempt "
                             "actually happened")
        return receipt("due_not_attempted")
    if restated is not None and runner is None and len(restated) == 0:
        raise ValueError("restated={} is empty, not receipt content — an empty dict is not "
                         "evidence of a faithful OR unfaithful restatement; pass "
                         "receipt_stored=False (-> attempted_no_receipt) instead of an "
                         "empty restated=")
    if not receipt_stored:
        return receipt("attempted_no_receipt")
    if restated is None and runner is None:
        raise ValueError("receipt_stored=True needs restated= or runner= to verify it "
                         "against — a stored receipt has to have content")
    v = verify_continuation(snap, restated=restated, runner=runner, ledger_path=ledger_path,
                            strict=strict, tiers=tiers, severity_of=severity_of)
    if v.valid and v.comparison == "exact_match":
        outcome = "receipt_received_faithful"
    elif v.valid and v.comparison == "containment_only":
        outcome = "receipt_received_contained"
    else:
        outcome = "receipt_received_divergent"
    return receipt(outcome, verdict=v,
                   note=f"receipt stored and scored: comparison={v.comparison!r}, "
                        f"faithful={v.faithful}, valid={v.valid}")


# --------------------------------------------------------------------------- seals

def _field_of(pid: Any) -> str:
    return str(pid).split(":", 1)[0]


def added_since_seal(snap: ContinuitySnapshot, manifest: Any) -> dict:
    """`{field: [new id, ...]}`: ids `manifest` derives (with the snapshot's scheme)
    that the snapshot never sealed, sorted; fields without additions omitted."""
    if not isinstance(manifest, dict):
        raise TypeError("manifest must be a dict")
    fresh = restate(manifest, id_scheme=getattr(snap, "id_scheme", "index"))
    sealed = {p["id"] for p in snap.probes}
    out: dict = {}
    for pid in sorted(fresh):
        if pid not in sealed:
            out.setdefault(_field_of(pid), []).append(pid)
    return out


def diff_seals(previous: ContinuitySnapshot, current: ContinuitySnapshot, *,
               tiers: Mapping | None = None,
               severity_of: Callable[[dict], Any] | None = None) -> dict:
    """Compare two seals' declared exact_match answers by id (§6.14): changed,
    added and removed entries in sorted-id order, tiered like divergences."""
    def answers(s: ContinuitySnapshot) -> dict:
        return {p["id"]: p["scoring"].get("answer") for p in s.probes
                if (p.get("scoring") or {}).get("type") == "exact_match"}

    old, new = answers(previous), answers(current)
    changed, added, removed = [], [], []
    for pid in sorted(set(old) | set(new)):
        if pid in old and pid in new:
            if old[pid] == new[pid]:
                continue
            bucket, d = changed, {"declared": old[pid], "restated": new[pid],
                                  "reason": "value changed between seals"}
        elif pid in new:
            bucket, d = added, {"declared": None, "restated": new[pid],
                                "reason": "added since previous seal"}
        else:
            bucket, d = removed, {"declared": old[pid], "restated": None,
                                  "reason": "removed since previous seal"}
        bucket.append(_apply_severity({"id": pid, "field": _field_of(pid), **d},
                                      tiers, severity_of))
    return {"previous_digest": previous.digest, "current_digest": current.digest,
            "changed": changed, "added": added, "removed": removed,
            "n_unchanged": len(set(old) & set(new)) - len(changed)}


@dataclass(frozen=True)
class CarryResult:
    """The handoff: the declared manifest, the snapshot, and a bound `verify`."""
    manifest: dict
    snapshot: ContinuitySnapshot
    verify: Callable[..., ContinuationVerdict]


def carry_forward(snap: ContinuitySnapshot) -> CarryResult:
    """Verifies nothing: a shallow copy of the manifest and `verify(**kw)` =
    `verify_continuation(snap, **kw)`."""
    def bound(**kwargs: Any) -> ContinuationVerdict:
        return verify_continuation(snap, **kwargs)
    return CarryResult(manifest=dict(snap.manifest), snapshot=snap, verify=bound)


@dataclass(frozen=True)
class DropReceipt:
    """A sealed compaction-receipt row for what a compaction cut."""
    row: dict

    def to_dict(self) -> dict:
        return dict(self.row)

    def verify(self, pre_content: Sequence[Any] | None = None,
               post_content: Sequence[Any] | None = None) -> Any:
        """`verify_receipt(row, pre, post)` of sealscope.core.receipt."""
        from sealscope.core.receipt import verify_receipt
        return verify_receipt(self.row, pre_content, post_content)


def drop_receipt(before: Sequence[Any], after: Sequence[Any], *,
                 ledger_path: str | Path = "arcaeon_continuity_drops.jsonl",
                 compactor: Any = "arcaeon-continuity", method: Any = "manifest-diff"
                 ) -> DropReceipt:
    """Open a compaction receipt on `before`, record `after` as kept, and seal it
    to `ledger_path` (§6.15)."""
    from sealscope.core.receipt import CompactionReceipt
    r = CompactionReceipt.open(before)
    r.record_kept(after)
    return DropReceipt(row=r.seal(ledger_path, compactor=compactor, method=method))
