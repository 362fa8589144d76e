"""What a ledger row shows as, for every frontend: its kind (`row_kind`). A module of
its own, so a reader that only displays rows does not load the verifier."""
from __future__ import annotations

from typing import Any

__all__ = ["row_kind"]


def row_kind(row: dict[str, Any]) -> str:
    """A row's kind for display: `kind`, else `op`, else `tool`, else empty."""
    for key in ("kind", "op"):
        v = row.get(key)
        if isinstance(v, str):
            return v
    return "tool" if isinstance(row.get("tool"), str) else ""
