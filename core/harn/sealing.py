"""Sealing harn compactions as arcaeon v2 compaction receipts.

pre = the snapshot's messages; post = the messages that followed
(`sealscope.core.harn.read`). harn rebuilds the message list at compaction as
`kept prefix + [summary] + kept suffix` and only appends afterwards, so post is the
survivors, the summary, and anything appended before the next state: in a sealed
receipt the appended messages count as `introduced`. A compaction whose following state
is unknown is not sealed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from sealscope.core.harn.model import CompactionEvent, HarnSealError, Transcript, _one_line, _show
from sealscope.core.harn.read import _following, compaction_events, find_snapshot, transcripts_of

__all__ = [
    "compactor_of",
    "method_of",
    "SealPlan",
    "seal_plan",
    "SealOutcome",
    "seal",
    "seal_transcript",
    "already_sealed",
]


def compactor_of(ev: CompactionEvent) -> str:
    """`harn:<engine strategy>` (the engine that actually ran; the policy label when the
    engine is not recorded; `unknown` when neither is)."""
    return f"harn:{ev.engine_strategy or ev.strategy or 'unknown'}"


def method_of(ev: CompactionEvent) -> str:
    """`<mode>/<policy strategy>#<event id>`: the call surface, the policy label, and
    the harn compaction the row seals (empty parts read `unknown`)."""
    return (
        f"{ev.mode or 'unknown'}/{ev.strategy or ev.engine_strategy or 'unknown'}"
        f"#{ev.id or 'unknown'}"
    )


@dataclass(frozen=True)
class SealPlan:
    """What sealing would do for one compaction: the pre (snapshot messages) and post
    (following messages) content, or why it cannot be sealed (`skip`)."""

    transcript: Transcript
    event: CompactionEvent
    pre: tuple[Any, ...] | None
    post: tuple[Any, ...] | None
    compactor: str
    method: str
    skip: str | None = None


def seal_plan(source: Any) -> tuple[SealPlan, ...]:
    """One SealPlan per compaction event of every transcript in `source`."""
    out = []
    for t in transcripts_of(source):
        events = compaction_events(t)
        for k, ev in enumerate(events):
            skip = None
            pre = post = None
            snap = find_snapshot(t, ev.snapshot_asset_id)
            if not ev.snapshot_asset_id:
                skip = "no snapshot asset named"
            elif snap is None:
                skip = f"snapshot asset {_show(ev.snapshot_asset_id)} not found"
            elif snap.messages is None:
                skip = f"snapshot asset {_show(ev.snapshot_asset_id)} holds no messages list"
            else:
                pre = snap.messages
                following = _following(t, events, k)
                if following is None:
                    skip = "the messages that followed are not recorded"
                else:
                    post = following.messages
            out.append(SealPlan(t, ev, pre, post, compactor_of(ev), method_of(ev), skip))
    return tuple(out)


@dataclass(frozen=True)
class SealOutcome:
    """What `seal` did: the sealed (plan, row) pairs in order, the skipped (plan, reason)
    pairs, and the write error that stopped it (None when it ran to the end)."""

    sealed: tuple[tuple[SealPlan, dict[str, Any]], ...]
    skipped: tuple[tuple[SealPlan, str], ...]
    error: str | None = None

    @property
    def rows(self) -> list[dict[str, Any]]:
        return [row for _plan, row in self.sealed]


def seal(source: Any, ledger_path: str | os.PathLike[str]) -> SealOutcome:
    """Seal every compaction of `source` (a HarnDocument, Transcript or parsed value)
    that has a snapshot and a recorded following state, as an arcaeon v2 compaction
    receipt appended to `ledger_path`: pre = the snapshot's messages, post = the
    messages that followed (see the module docstring), compactor `compactor_of`,
    method `method_of`. Compactions that cannot be sealed (no snapshot, no following
    state, content or labels that cannot be canonicalised) are skipped with a reason.
    A ledger write failure stops the run and is reported in `error`; never raises for
    any transcript content."""
    from sealscope.core.receipt import CompactionReceipt  # lazy: sealing only

    sealed: list[tuple[SealPlan, dict[str, Any]]] = []
    skipped: list[tuple[SealPlan, str]] = []
    for plan in seal_plan(source):
        if plan.skip is not None or plan.pre is None or plan.post is None:
            # (seal_plan gives both lists whenever it gives no skip reason)
            skipped.append((plan, plan.skip or "nothing to seal"))
            continue
        try:
            rec = CompactionReceipt.open(list(plan.pre))
            rec.record_kept(list(plan.post))
        except (ValueError, RecursionError) as e:
            skipped.append((plan, f"content cannot be digested: {_one_line(e, 120)}"))
            continue
        try:
            sealed.append(
                (plan, rec.seal(ledger_path, compactor=plan.compactor, method=plan.method))
            )
        except (ValueError, RecursionError) as e:
            # UnicodeEncodeError (a lone surrogate in a label) lands here, before writing
            skipped.append((plan, f"cannot be sealed: {_one_line(e, 120)}"))
        except OSError as e:
            return SealOutcome(
                tuple(sealed),
                tuple(skipped),
                f"cannot write ledger {os.fspath(ledger_path)}: {e.strerror or _one_line(e)}",
            )
    return SealOutcome(tuple(sealed), tuple(skipped))


def seal_transcript(transcript: Any, ledger_path: str | os.PathLike[str]) -> list[dict[str, Any]]:
    """`seal`, returning the sealed rows in order (each with its `chain`). Raises
    HarnSealError when the ledger cannot be written (its `sealed` holds the rows
    appended before). Compactions that cannot be sealed are left out; `seal` says why."""
    out = seal(transcript, ledger_path)
    if out.error is not None:
        raise HarnSealError(out.error, out.rows)
    return out.rows


def already_sealed(source: Any, ledger_path: str | os.PathLike[str]) -> list[str]:
    """The compactions of `source` the ledger already holds a receipt for: a
    compaction-receipt row with the same compactor, method (which names the harn
    compaction) and pre-content digest as sealing it would write. Their `method`s, in
    order; empty when the ledger does not exist or holds none. Sealing them again
    would append the same receipts a second time (`harn seal` refuses unless asked).
    OSError when the ledger exists but cannot be read."""
    from sealscope.core.lookup import iter_receipt_rows
    from sealscope.core.receipt import digest_content

    p = os.fspath(ledger_path)
    if not os.path.lexists(p):
        return []
    held = set()
    for _n, row in iter_receipt_rows(p):
        pre = row.get("pre")
        held.add(
            (
                row.get("compactor"),
                row.get("method"),
                pre.get("digest") if isinstance(pre, dict) else None,
            )
        )
    out = []
    for plan in seal_plan(source):
        if plan.skip is not None or plan.pre is None:
            continue
        try:
            pre_digest = digest_content(list(plan.pre)).digest
        except (ValueError, RecursionError):
            continue
        if (plan.compactor, plan.method, pre_digest) in held:
            out.append(plan.method)
    return out
