"""A divergence record: completed to carry id, field, declared, restated and reason,
and tiered by severity (§6.11)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

__all__ = ["SEVERITY_ORDER", "grouped_divergences"]

# the conventional tier names, worst first: how divergences are shown and reported
SEVERITY_ORDER = ("critical", "notable", "advisory")


def _field_of(pid: Any) -> str:
    return str(pid).split(":", 1)[0]


def _normalize_divergence(d: dict[str, Any]) -> dict[str, Any]:
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


def _apply_severity(
    d: dict[str, Any],
    tiers: Mapping[str, Any] | None,
    severity_of: Callable[[dict[str, Any]], Any] | None,
) -> dict[str, Any]:
    """`severity` = first tier (map order) listing the field, else `notable`; then a
    non-null `severity_of(d)` overrides. Never changes faithful/valid."""
    if tiers is not None:
        f = d.get("field", "")
        d["severity"] = next((name for name, fields in tiers.items() if f in fields), "notable")
    if severity_of is not None:
        over = severity_of(d)
        if over is not None:
            d["severity"] = over
    return d


def grouped_divergences(divs: Sequence[dict[str, Any]]) -> list[tuple[str, list[dict[str, Any]]]]:
    """Divergences by severity for display: critical, notable, advisory, then other
    tiers in order of appearance, then `untiered` (no severity)."""
    groups: dict[str, list[dict[str, Any]]] = {}
    for d in divs:
        sev = d.get("severity")
        groups.setdefault("untiered" if sev is None else str(sev), []).append(d)
    order = [s for s in SEVERITY_ORDER if s in groups]
    order += [s for s in groups if s not in order and s != "untiered"]
    if "untiered" in groups:
        order.append("untiered")
    return [(s, groups[s]) for s in order]
