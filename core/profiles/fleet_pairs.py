"""Profiles in a fleet (KINDS-3.md §15.3, "pairs found within a folder, as within
argv"): after a run, the ledger entries whose file has a two-file profile are paired
among the run's own files exactly as `check` pairs its PATHs, in path order (the
order a listing gives, so the answer does not depend on which worker finished first).

A ledger entry that finds a partner becomes the entry of its `check` result (its chain
answer, `detail.pair`, the worst of the two words); every other entry is left exactly
as the run gave it — a lone deal tape, handshake, tape or readings ledger, and a once
ledger, stay plain ledger entries, as `check` leaves their answer unchanged.
Remote entries (URLs) are never paired: both halves must be local files.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from sealscope.core import kinds as _kinds
from sealscope.core.checks.result import CheckContext

if TYPE_CHECKING:
    from sealscope.core.fleet_entry import FleetEntry

__all__ = ["pair_entries"]


def pair_entries(
    entries: Sequence[FleetEntry], ctx: CheckContext | None = None
) -> tuple[list[FleetEntry], list[FleetEntry]]:
    """(every entry, paired ones replaced; the replaced entries alone, in path order).
    Never raises."""
    import dataclasses

    from sealscope.core.checks import check_kind
    from sealscope.core.profiles import stage as _stage
    from sealscope.core.profiles.detect import detect

    ctx = ctx or CheckContext()
    ledgers = sorted(
        (e for e in entries if e.check is None and "://" not in e.path and not e.result.unreadable),
        key=lambda e: e.path,
    )
    found = [_kinds.Identified(e.path, _kinds.LEDGER) for e in ledgers]
    got = [detect(f) for f in found]
    keep = [i for i, g in enumerate(got) if g.profile is not None and g.profile.pairs]
    if len(keep) < 2:
        return list(entries), []
    paths = [found[i].path for i in keep]
    plain = [check_kind(found[i], ctx) for i in keep]
    unpaired = [_stage.apply(found[i], r, ctx)[0] for i, r in zip(keep, plain, strict=True)]
    paired = _stage.pair_results(paths, [got[i] for i in keep], unpaired)
    changed: dict[str, FleetEntry] = {}
    for k, res in zip(keep, paired, strict=True):
        if res.detail.get("pair") is not None:
            changed[ledgers[k].path] = dataclasses.replace(ledgers[k], check=res)
    out = [changed.get(e.path, e) if e.check is None else e for e in entries]
    return out, [changed[p] for p in sorted(changed)]
