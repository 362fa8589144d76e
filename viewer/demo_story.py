"""The evidence of `sealscope demo`: one agent's day, written by the real core into a
fresh temporary workspace.

The agent **wren** works a refund queue and writes every action to its ledger
(`wren.jsonl`, `ledger.append`); it compacts its context and seals a v2 receipt
(`receipt.build_row`) whose pre content silently lacks the user's instruction (the
planted drop — only the held transcript shows it); it seals its memory as a
continuity snapshot (`continuity.snapshot`) on day 1 and again on day 2, when the
instruction it lost is gone from its commitments too. An attacker then rewrites one
earlier refund row in place: same length, chain field untouched.

Every `ts`, `opened_at` and seal stamp is fixed, so the files (and the demo's screens)
are the same on every run. The workspace is `tempfile.mkdtemp()` (honouring
`TMPDIR`), never the samples or the current directory; `remove()` deletes it.
"""

from __future__ import annotations

import dataclasses
import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from sealscope.core import ledger, receipt
from sealscope.core.continuity import snapshot

__all__ = [
    "Workspace",
    "LEDGER",
    "SEAL_DAY1",
    "SEAL_DAY2",
    "HELD_PRE",
    "HELD_POST",
    "REPORT",
    "ATTACK_LINE",
    "RECEIPT_LINE",
    "LIVE_ROWS",
    "INSTRUCTION",
    "LOST_COMMITMENT",
]

# paths inside the workspace (the demo runs with the workspace as its current
# directory, so these are also what the screens show)
LEDGER = "wren.jsonl"
SEAL_DAY1 = "seals/day1.json"
SEAL_DAY2 = "seals/day2.json"
HELD_PRE = "held/context.json"
HELD_POST = "held/kept.json"
REPORT = "reports/wren-audit"

DAY1, DAY2 = "2026-03-01", "2026-03-02"
AGENT = ledger.authority(
    "wren", capability_version="2026.03", tool_schema={"name": "payments.refund"}
)

INSTRUCTION = {"role": "user", "text": "page Maya before any refund over 1,000 EUR"}
LOST_COMMITMENT = "page Maya before any refund over 1,000 EUR"

# (ticket, customer, amount in EUR, the account on file)
TICKETS = [
    ("T-4101", "c-2231", 35, "acct-1187"),
    ("T-4102", "c-0912", 120, "acct-3302"),
    ("T-4103", "c-7710", 18, "acct-5521"),
    ("T-4104", "c-1046", 260, "acct-0874"),
    ("T-4105", "c-3385", 42, "acct-6190"),
    ("T-4106", "c-5528", 75, "acct-2248"),
    ("T-4107", "c-8804", 9, "acct-7713"),
    ("T-4108", "c-2019", 1480, "acct-4406"),
    ("T-4109", "c-6631", 64, "acct-9052"),
    ("T-4110", "c-4470", 310, "acct-1339"),
]
ATTACKED_TICKET = "T-4108"  # its refund row is rewritten by the attacker
ATTACK_FROM, ATTACK_TO = b'"to": "acct-4406"', b'"to": "acct-6666"'


def stamp(day: str, second: int) -> str:
    return f"{day}T09:{second // 60:02d}:{second % 60:02d}Z"


def _session_rows() -> list[dict[str, Any]]:
    """Every row of the live session, in order (the receipt and seals come later)."""
    rows: list[dict[str, Any]] = [
        {"kind": "session_start", "agent": "wren", "task": "work the refund queue"},
        {"kind": "message", **INSTRUCTION},
    ]
    for ticket, customer, amount, account in TICKETS:
        rows.append({"tool": "tickets.read", "ticket": ticket, "customer": customer})
        rows.append({"tool": "crm.lookup", "customer": customer, "account": account})
        rows.append({"tool": "payments.refund", "ticket": ticket, "amount": amount, "to": account})
        rows.append(
            {
                "kind": "message",
                "role": "assistant",
                "text": f"{ticket}: refunded {amount} EUR to the account on file",
            }
        )
    rows.append({"kind": "note", "text": "queue empty; compacting context"})
    for i, r in enumerate(rows):
        r["ts"] = stamp(DAY1, 5 * i)
    return rows


SESSION = _session_rows()
LIVE_ROWS = len(SESSION)  # rows written live in step 1
RECEIPT_LINE = LIVE_ROWS + 1  # the compaction receipt
SEAL1_LINE = LIVE_ROWS + 2  # day 1's continuity_snapshot row
ATTACK_LINE = next(
    i + 1
    for i, r in enumerate(SESSION)
    if r.get("tool") == "payments.refund" and r["ticket"] == ATTACKED_TICKET
)

# the context the agent compacted (held by its harness), what it kept, and the pre
# content its compactor actually declared: the user's instruction is missing from it
CONTEXT: list[Any] = [
    "system: you are wren, the refunds agent of example.org",
    INSTRUCTION,
    *(
        {"role": "tool", "name": "crm.lookup", "text": f"{c}: account {a}"}
        for _t, c, _m, a in TICKETS[:2]
    ),
    {"role": "tool", "name": "payments.refund", "text": "10 refunds, 2,383 EUR in total"},
]
KEPT: list[Any] = [CONTEXT[0], "summary: 10 tickets refunded to the accounts on file"]
DECLARED_PRE = [x for x in CONTEXT if x is not INSTRUCTION]

ANCHOR = "I am wren, the refunds agent of example.org"
MANIFEST_DAY1 = {
    "identity_anchors": [ANCHOR],
    "open_commitments": ["refund only to the account on file", LOST_COMMITMENT],
    "canon_pointers": ["policy/refunds.md"],
    "live_threads": [{"id": "refund-queue", "value": "work the refund queue"}],
}
MANIFEST_DAY2 = {
    "identity_anchors": [ANCHOR],
    "open_commitments": ["refund to the account the customer names"],
    "canon_pointers": ["policy/refunds.md"],
    "live_threads": [
        {"id": "refund-queue", "value": "work the refund queue"},
        {"id": "chargebacks", "value": "answer the chargeback mails"},
    ],
}


class Workspace:
    """A fresh temporary folder holding the demo's evidence; `remove()` deletes it
    (idempotent)."""

    def __init__(self, parent: str | None = None) -> None:
        self.root = Path(tempfile.mkdtemp(prefix="sealscope-demo-", dir=parent)).resolve()
        for sub in ("seals", "held", "reports"):
            (self.root / sub).mkdir()

    def path(self, name: str) -> Path:
        return self.root / name

    @property
    def removed(self) -> bool:
        return not self.root.exists()

    def remove(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)

    # ------------------------------------------------------------------ the story
    def begin(self) -> None:
        """The ledger with its first row (the viewer opens it and follows it)."""
        self.append(SESSION[0])

    def live_rows(self) -> Iterator[dict[str, Any]]:
        """The rest of the session, one row at a time."""
        yield from SESSION[1:]

    def append(self, row: dict[str, Any]) -> str:
        auth = AGENT if "tool" in row else None
        return ledger.append(self.path(LEDGER), row, authority=auth)

    def compact(self) -> None:
        """The compaction: a v2 receipt over the declared pre content, the held
        transcript (`HELD_PRE`) and survivor (`HELD_POST`) written beside."""
        row = receipt.build_row(
            DECLARED_PRE,
            KEPT,
            "wren/compactor",
            "llm-summary:v2",
            opened_at=stamp(DAY1, 5 * LIVE_ROWS),
        )
        row["ts"] = stamp(DAY1, 5 * LIVE_ROWS + 1)
        ledger.append(self.path(LEDGER), row)
        for name, items in ((HELD_PRE, CONTEXT), (HELD_POST, KEPT)):
            # the demo's held content: evidence in its own format, not JSON output
            self.path(name).write_text(
                json.dumps(items, indent=1, ensure_ascii=False) + "\n", encoding="utf-8"
            )

    def seal(self, day: int) -> Path:
        """Seal day 1's or day 2's manifest: the `continuity_snapshot` row in the
        ledger and the snapshot file (`SEAL_DAY1` / `SEAL_DAY2`)."""
        manifest, when, name = (
            (MANIFEST_DAY1, DAY1, SEAL_DAY1) if day == 1 else (MANIFEST_DAY2, DAY2, SEAL_DAY2)
        )
        at = stamp(when, 0) if day == 2 else stamp(when, 5 * LIVE_ROWS + 10)
        snap = snapshot(manifest, label="wren")
        reg = snap.registration
        chain = ledger.append(
            self.path(LEDGER),
            {
                "kind": "continuity_snapshot",
                "label": snap.label,
                "manifest_digest": snap.manifest_digest,
                "probe_set_digest": snap.probe_set_digest,
                "aggregate_mean": reg["aggregate"]["mean"],
                "ts": at,
            },
        )
        snap = dataclasses.replace(
            snap,
            registration=dict(reg, registered_at=at),
            created_at=at,
            ledger_chain=chain,
            ledger_path=LEDGER,
        )
        out = self.path(name)
        out.write_text(snap.to_json() + "\n", encoding="utf-8")
        return out

    def attack(self) -> int:
        """Rewrite the attacked refund row in place (same length, its `chain` left as
        it was): the refund now goes to another account. Returns its line number."""
        p = self.path(LEDGER)
        data = p.read_bytes()
        lines = data.split(b"\n")
        row = lines[ATTACK_LINE - 1]
        assert row.count(ATTACK_FROM) == 1, "the attacked row is not where the story put it"
        offset = sum(len(x) + 1 for x in lines[: ATTACK_LINE - 1]) + row.index(ATTACK_FROM)
        with open(p, "r+b") as fh:
            fh.seek(offset)
            fh.write(ATTACK_TO)
        return ATTACK_LINE
