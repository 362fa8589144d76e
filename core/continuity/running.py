"""Running a probe set through a runner and aggregating the scores, as arcaeon-baseline
does; plus the caveats the comparison report carries about them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from sealscope.core.continuity.scoring import _score

__all__ = ["RunnerError"]


class RunnerError(Exception):
    """A runner could not answer one probe; that probe scores null (a runner
    object may raise this, or any exception class named `RunnerError`)."""


def _is_runner_error(e: BaseException) -> bool:
    return any(c.__name__ == "RunnerError" for c in type(e).__mro__)


def _labelled(fn: Callable[[str], Any], label: str) -> Callable[[str], Any]:
    """A plain function as a runner: any exception it raises is a RunnerError
    naming the runner's label."""

    def run(prompt: str) -> Any:
        try:
            return fn(prompt)
        except Exception as e:  # every failure is a per-probe failure
            raise RunnerError(f"callable runner {label!r} raised: {e}") from e

    return run


def _run_items(probes: Sequence[dict[str, Any]], run: Callable[[str], Any]) -> list[dict[str, Any]]:
    """Score each probe's answer. A runner failure (or a non-string answer) is an
    item with null output/score and its error text; lone surrogates in an answer
    become U+FFFD before scoring."""
    items = []
    for p in probes:
        row: dict[str, Any] = {
            "id": p["id"],
            "prompt": p["prompt"],
            "scoring_type": p["scoring"]["type"],
        }
        try:
            out = run(p["prompt"])
            if not isinstance(out, str):
                raise RunnerError(f"runner returned {type(out).__name__}, not str")
        except Exception as e:  # filtered just below
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


def _aggregate(items: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """n, n_scored, n_errors, sum (int 0 when nothing scored), mean, by_type."""
    scored = [it for it in items if it["score"] is not None]
    total = sum(it["score"] for it in scored)
    by_type: dict[str, dict[str, Any]] = {}
    for it in scored:
        b = by_type.setdefault(it["scoring_type"], {"n": 0, "sum": 0.0})
        b["n"] += 1
        b["sum"] += it["score"]
    for b in by_type.values():
        b["mean"] = b["sum"] / b["n"] if b["n"] else None
    return {
        "n": len(items),
        "n_scored": len(scored),
        "n_errors": len(items) - len(scored),
        "sum": total,
        "mean": total / len(scored) if scored else None,
        "by_type": by_type,
    }


def _significance_note(n_scored: int, delta: float | None) -> str | None:
    """The smoke-test caveat when fewer than 30 probes scored and a delta exists."""
    if delta is None or n_scored == 0 or n_scored >= 30:
        return None
    f = 1.0 / n_scored
    if abs(delta) < 2 * f:
        return (
            f"n={n_scored} is a smoke test, not a benchmark. One flipped item moves "
            f"the mean by ~{f:.3f}; the observed delta ({delta:+.3f}) is not "
            f"distinguishable from a single-item flip — read directionally, not as proof."
        )
    return (
        f"n={n_scored} is a smoke test, not a benchmark. The observed delta "
        f"({delta:+.3f}) is larger than one flipped item (~{f:.3f}) but n is still "
        f"too small for a real significance claim."
    )


def _scope(before: dict[str, Any], after: dict[str, Any]) -> str:
    b, a = bool(before.get("n_errors")), bool(after.get("n_errors"))
    if a and b:
        return "bounded_both_unscored"
    if a:
        return "bounded_after_unscored"
    return "bounded_before_unscored" if b else "full"


def _coverage_note(before: dict[str, Any], after: dict[str, Any]) -> str | None:
    parts = [
        f"{agg.get('n_errors')} of {agg.get('n')} probe(s) could not be scored in {where}"
        for where, agg in (("this run", after), ("the registered baseline", before))
        if agg.get("n_errors") or 0
    ]
    if not parts:
        return None
    return (
        "; ".join(parts) + ". Unscored probes cannot flip (None vs None is not a "
        "change) and are excluded from the mean, so they cannot produce drift no "
        "matter what the model does with them. Read n_flips as covering "
        "verified_scope, not the whole probe set."
    )


def _describe(obj: Any) -> dict[str, Any]:
    try:
        described: dict[str, Any] = obj.describe()
        return described
    except Exception:  # noqa: BLE001 - provenance never breaks a verdict
        return {"type": type(obj).__name__}
