"""A divergence record: completed to carry id, field, declared, restated and reason,
and tiered by severity (§6.11)."""
from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

__all__: list[str] = []

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


def _apply_severity(d: dict[str, Any], tiers: Mapping[str, Any] | None,
                    severity_of: Callable[[dict[str, Any]], Any] | None) -> dict[str, Any]:
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
