"""Handing a seal to a successor (`carry_forward`) and sealing what a compaction cut
(`drop_receipt`, §6.15)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sealscope.core.continuity.continuation import ContinuationVerdict, verify_continuation
from sealscope.core.continuity.snapshots import ContinuitySnapshot

__all__ = ["CarryResult", "carry_forward", "DropReceipt", "drop_receipt"]


@dataclass(frozen=True)
class CarryResult:
    """The handoff: the declared manifest, the snapshot, and a bound `verify`."""

    manifest: dict[str, Any]
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

    row: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return dict(self.row)

    def verify(
        self, pre_content: Sequence[Any] | None = None, post_content: Sequence[Any] | None = None
    ) -> Any:
        """`verify_receipt(row, pre, post)` of sealscope.core.receipt."""
        from sealscope.core.receipt import verify_receipt

        return verify_receipt(self.row, pre_content, post_content)


def drop_receipt(
    before: Sequence[Any],
    after: Sequence[Any],
    *,
    ledger_path: str | Path = "arcaeon_continuity_drops.jsonl",
    compactor: Any = "arcaeon-continuity",
    method: Any = "manifest-diff",
) -> DropReceipt:
    """Open a compaction receipt on `before`, record `after` as kept, and seal it
    to `ledger_path` (§6.15)."""
    from sealscope.core.receipt import CompactionReceipt

    r = CompactionReceipt.open(before)
    r.record_kept(after)
    return DropReceipt(row=r.seal(ledger_path, compactor=compactor, method=method))
