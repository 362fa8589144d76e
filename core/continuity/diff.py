"""What changed between two seals, and what a manifest adds to one (§6.14)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from sealscope.core.continuity.divergences import _apply_severity, _field_of
from sealscope.core.continuity.probes import restate
from sealscope.core.continuity.snapshots import ContinuitySnapshot

__all__ = ["added_since_seal", "diff_seals"]


def added_since_seal(snap: ContinuitySnapshot, manifest: Any) -> dict[str, Any]:
    """`{field: [new id, ...]}`: ids `manifest` derives (with the snapshot's scheme)
    that the snapshot never sealed, sorted; fields without additions omitted."""
    if not isinstance(manifest, dict):
        raise TypeError("manifest must be a dict")
    fresh = restate(manifest, id_scheme=getattr(snap, "id_scheme", "index"))
    sealed = {p["id"] for p in snap.probes}
    out: dict[str, Any] = {}
    for pid in sorted(fresh):
        if pid not in sealed:
            out.setdefault(_field_of(pid), []).append(pid)
    return out


def diff_seals(
    previous: ContinuitySnapshot,
    current: ContinuitySnapshot,
    *,
    tiers: Mapping[str, Any] | None = None,
    severity_of: Callable[[dict[str, Any]], Any] | None = None,
) -> dict[str, Any]:
    """Compare two seals' declared exact_match answers by id (§6.14): changed,
    added and removed entries in sorted-id order, tiered like divergences."""

    def answers(s: ContinuitySnapshot) -> dict[str, Any]:
        return {
            p["id"]: p["scoring"].get("answer")
            for p in s.probes
            if (p.get("scoring") or {}).get("type") == "exact_match"
        }

    old, new = answers(previous), answers(current)
    changed: list[dict[str, Any]] = []
    added: list[dict[str, Any]] = []
    removed: list[dict[str, Any]] = []
    for pid in sorted(set(old) | set(new)):
        if pid in old and pid in new:
            if old[pid] == new[pid]:
                continue
            bucket, d = (
                changed,
                {
                    "declared": old[pid],
                    "restated": new[pid],
                    "reason": "value changed between seals",
                },
            )
        elif pid in new:
            bucket, d = (
                added,
                {"declared": None, "restated": new[pid], "reason": "added since previous seal"},
            )
        else:
            bucket, d = (
                removed,
                {"declared": old[pid], "restated": None, "reason": "removed since previous seal"},
            )
        bucket.append(
            _apply_severity({"id": pid, "field": _field_of(pid), **d}, tiers, severity_of)
        )
    return {
        "previous_digest": previous.digest,
        "current_digest": current.digest,
        "changed": changed,
        "added": added,
        "removed": removed,
        "n_unchanged": len(set(old) & set(new)) - len(changed),
    }
