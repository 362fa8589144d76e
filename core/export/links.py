"""Seal ↔ ledger links: the `continuity_snapshot` rows of a ledger (FORMATS §6.8),
and whether one of them seals a given snapshot (both digests equal)."""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from sealscope.core import ledger as _ledger

__all__ = ["SnapshotRowRef", "iter_snapshot_rows"]


@dataclass(frozen=True)
class SnapshotRowRef:
    """A `continuity_snapshot` row of a ledger (FORMATS §6.8)."""

    path: str
    line: int
    label: Any
    manifest_digest: Any
    probe_set_digest: Any

    def matches(self, snap: Any) -> bool:
        """The row seals this snapshot: both digests equal."""
        return bool(
            self.manifest_digest == getattr(snap, "manifest_digest", None)
            and self.probe_set_digest == getattr(snap, "probe_set_digest", None)
        )


_SNAP_NEEDLE = b"continuity_snapshot"


def iter_snapshot_rows(path: str | os.PathLike[str]) -> Iterator[SnapshotRowRef]:
    """Every `continuity_snapshot` row of a ledger, in file order, with its line
    number as the verifier counts lines. OSError when the file cannot be opened."""
    p = os.fspath(path)
    for n, obj in _ledger.iter_rows(p, needles=(_SNAP_NEEDLE, b"\\u")):
        if isinstance(obj, dict) and obj.get("kind") == "continuity_snapshot":
            yield SnapshotRowRef(
                p, n, obj.get("label"), obj.get("manifest_digest"), obj.get("probe_set_digest")
            )
