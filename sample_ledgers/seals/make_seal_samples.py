"""Write the continuity-seal sample files in this folder, deterministically.

    python sample_ledgers/seals/make_seal_samples.py [OUTDIR]

The agent `wren` seals its manifest on two days (see README.md beside this script):

* `seal-day1.json`, `seal-day2.json` — the two snapshots. Between them one open
  commitment changed, one live thread was added and one removed.
* `seal-day1-tampered.json` — day 1 with a commitment edited after sealing: it does
  not validate (`manifest_digest does not reproduce …`).
* `restated-faithful.json` — every day-1 item restated exactly.
* `restated-divergent.json` — the identity anchor restated with a clause appended
  (strict mode catches it, loose containment does not) and a commitment moved.
* `tiers.json` — severity tiers for diffs and verdicts.
* `manifest-day2.json` — the day-2 manifest alone ("what was added since the seal").
* `seals-ledger.jsonl` — a hash-chained ledger holding both seals'
  `continuity_snapshot` rows and one compaction receipt, so a viewer can link a seal
  to its ledger row.

The snapshots' `created_at` / `registered_at` stamps and the ledger rows' `ts` are
fixed (they are outside the snapshot digest); nothing depends on the clock.
"""

from __future__ import annotations

import dataclasses
import json
import sys
from pathlib import Path

from sealscope.core import ledger, receipt
from sealscope.core.continuity import snapshot

HERE = Path(__file__).resolve().parent

DAY1 = "2026-03-01T09:00:00Z"
DAY2 = "2026-03-02T09:00:00Z"
LEDGER = "seals-ledger.jsonl"

ANCHOR = "I am wren, the audit agent of the sealscope project"
MANIFEST_DAY1 = {
    "identity_anchors": [ANCHOR],
    "open_commitments": ["ship sealscope 0.1.0 by Friday", "review every harn receipt"],
    "canon_pointers": ["memory/CORE.md", "docs/ARCHITECTURE.md"],
    "live_threads": [
        {"id": "ledger-verify", "value": "speed up ledger verification"},
        {"id": "receipts", "value": "compaction receipts in the viewer"},
    ],
}
MANIFEST_DAY2 = {
    "identity_anchors": [ANCHOR],
    "open_commitments": ["ship sealscope 0.1.0 by Monday", "review every harn receipt"],
    "canon_pointers": ["memory/CORE.md", "docs/ARCHITECTURE.md"],
    "live_threads": [
        {"id": "receipts", "value": "compaction receipts in the viewer"},
        {"id": "seal-diff", "value": "diff two seals side by side"},
    ],
}
TIERS = {
    "critical": ["identity_anchors", "canon_pointers"],
    "notable": ["open_commitments"],
    "advisory": ["live_threads"],
}


def write_json(path: Path, value) -> None:
    path.write_text(json.dumps(value, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")


def seal(manifest: dict, stamp: str, chain: str | None) -> dict:
    """Seal, then fix the stamps and the ledger link (none of them is in the digest)."""
    snap = snapshot(manifest, label="wren")
    reg = dict(snap.registration, registered_at=stamp)
    snap = dataclasses.replace(
        snap,
        registration=reg,
        created_at=stamp,
        ledger_chain=chain,
        ledger_path=LEDGER if chain else None,
    )
    return snap.to_dict()


def snapshot_row(snap_dict: dict, stamp: str) -> dict:
    """The `continuity_snapshot` row (FORMATS §6.8) with a fixed `ts`."""
    return {
        "kind": "continuity_snapshot",
        "label": snap_dict["label"],
        "manifest_digest": snap_dict["manifest_digest"],
        "probe_set_digest": snap_dict["probe_set_digest"],
        "aggregate_mean": snap_dict["registration"]["aggregate"]["mean"],
        "ts": stamp,
    }


def main(outdir: Path) -> None:
    outdir.mkdir(parents=True, exist_ok=True)
    led = outdir / LEDGER
    if led.exists():
        led.unlink()

    # seal twice (the first pass only learns the digests the ledger rows carry)
    day1, day2 = seal(MANIFEST_DAY1, DAY1, None), seal(MANIFEST_DAY2, DAY2, None)
    ledger.append(led, {"kind": "note", "text": "wren starts work", "ts": DAY1})
    chain1 = ledger.append(led, snapshot_row(day1, DAY1))
    # an overnight compaction of wren's context: one tool output dropped
    pre = [
        "plan: verify the ledger",
        {"tool": "grep", "output": "42 matches"},
        "decision: ship by Monday",
    ]
    row = receipt.build_row(
        pre,
        [pre[0], pre[2]],
        "wren-compactor",
        "drop-tool-output",
        opened_at="2026-03-01T23:00:00Z",
    )
    row["ts"] = "2026-03-01T23:00:01Z"
    ledger.append(led, row)
    chain2 = ledger.append(led, snapshot_row(day2, DAY2))

    day1, day2 = seal(MANIFEST_DAY1, DAY1, chain1), seal(MANIFEST_DAY2, DAY2, chain2)
    write_json(outdir / "seal-day1.json", day1)
    write_json(outdir / "seal-day2.json", day2)

    tampered = json.loads(json.dumps(day1))
    tampered["manifest"]["open_commitments"][0] = "ship sealscope 0.1.0 whenever"
    write_json(outdir / "seal-day1-tampered.json", tampered)

    faithful = {p["id"]: p["scoring"]["answer"] for p in day1["probes"]}
    write_json(outdir / "restated-faithful.json", faithful)
    divergent = dict(faithful)
    divergent["identity_anchors:0"] = ANCHOR + ", and my earlier commitments are void"
    divergent["open_commitments:0"] = "ship sealscope 0.1.0 by Monday"
    write_json(outdir / "restated-divergent.json", divergent)

    write_json(outdir / "tiers.json", TIERS)
    write_json(outdir / "manifest-day2.json", MANIFEST_DAY2)
    lock = outdir / (LEDGER + ".lock")  # the append lock, not a sample
    if lock.exists():
        lock.unlink()


if __name__ == "__main__":
    main(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)
