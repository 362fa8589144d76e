"""Benchmark `lookup`: index the drop manifests of large ledgers, then find 100,000 held
items in them.

    python bench/lookup.py [N_HELD]

Writes `bench/out/lookup-receipts.jsonl` (once): 20,000 chained v2 receipt rows, each
dropping 5 of 8 realistic messages, so 100,000 manifest entries. The held set is
N_HELD items (default 100,000): half of them dropped somewhere, half never seen.
When `bench/out/verify-1m.jsonl` (bench/verify.py) exists, it is indexed too, as the
bulk of a realistic ledger the scan must cross. Prints timings and peak RSS.
"""

from __future__ import annotations

import json
import os
import random
import resource
import sys
import time
from pathlib import Path

from sealscope.core.digest import item_digest
from sealscope.core.ledger import GENESIS, link
from sealscope.core.lookup import DropIndex
from sealscope.core.receipt import build_row

OUT = Path(__file__).resolve().parent / "out"
RECEIPTS = OUT / "lookup-receipts.jsonl"
BULK = OUT / "verify-1m.jsonl"
N_ROWS = 20_000
WORDS = (
    "amber basalt cobalt delta ember fjord glacier harbor indigo juniper kestrel "
    "lantern meadow nickel orchid quartz raven saffron tundra umber violet willow "
    "naïve façade 東京 ünïcödé"
).split()


def message(i: int, rng: random.Random):
    """Message i of the simulated session: text, a tool result object, or bytes."""
    text = " ".join(rng.choice(WORDS) for _ in range(rng.randint(8, 60)))
    k = i % 10
    if k < 6:
        return f"turn {i}: {text}"
    if k < 9:
        return {"turn": i, "tool_result": {"ok": k != 8, "rows": [i, i + 1]}, "note": text}
    return f"blob {i}: {text}".encode()


def write_receipts(path: Path, rows: int = N_ROWS, seed: int = 11) -> None:
    """Receipt rows over consecutive windows of 8 messages, keeping 3 and a summary."""
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    prev = GENESIS
    tmp = path.with_suffix(".tmp")
    with tmp.open("w", encoding="utf-8") as fh:
        for r in range(rows):
            pre = [message(r * 8 + j, random.Random(r * 8 + j)) for j in range(8)]
            post = [
                pre[0],
                pre[3],
                pre[7],
                f"summary {r}: " + " ".join(rng.choice(WORDS) for _ in range(12)),
            ]
            row = build_row(
                pre, post, "bench-summarizer", "llm-summary", opened_at="2026-11-30T00:00:00Z"
            )
            row["ts"] = "2026-11-30T00:00:01Z"
            row["chain"] = prev = link(prev, row)
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    os.replace(tmp, path)


def held_items(n: int) -> list:
    """n held items: even ones were dropped (message ids 1,2,4,5,6 of a window), odd
    ones never existed."""
    out = []
    dropped_slots = (1, 2, 4, 5, 6)
    for i in range(n):
        if i % 2 == 0:
            j = i // 2
            w, s = divmod(j, len(dropped_slots))
            mid = (w % N_ROWS) * 8 + dropped_slots[s]
            out.append(message(mid, random.Random(mid)))
        else:
            out.append(f"never dropped {i}")
    return out


def rss_mb() -> float:
    ru = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return ru / (1 << 20) if sys.platform == "darwin" else ru / 1024


def main() -> int:
    n_held = int(sys.argv[1]) if len(sys.argv) > 1 else 100_000
    if not RECEIPTS.exists():
        t = time.perf_counter()
        write_receipts(RECEIPTS)
        print(
            f"wrote {RECEIPTS.name}: {N_ROWS:,} receipt rows, "
            f"{RECEIPTS.stat().st_size / 1e6:.1f} MB in {time.perf_counter() - t:.1f}s"
        )
    print(f"rss at start: {rss_mb():.0f} MB")

    t = time.perf_counter()
    items = held_items(n_held)
    digests = [item_digest(x).digest for x in items]
    t_digest = time.perf_counter() - t
    del items
    print(f"held items: {n_held:,} built and digested in {t_digest:.2f}s")

    ledgers = [RECEIPTS] + ([BULK] if BULK.exists() else [])
    size = sum(p.stat().st_size for p in ledgers)
    t = time.perf_counter()
    idx = DropIndex.build(ledgers)
    t_build = time.perf_counter() - t
    print(
        f"index build: {', '.join(p.name for p in ledgers)} ({size / 1e6:.0f} MB): "
        f"{idx.rows:,} receipt rows, {idx.entries:,} entries, {len(idx):,} distinct "
        f"in {t_build:.2f}s ({size / 1e6 / t_build:.0f} MB/s); rss {rss_mb():.0f} MB"
    )

    t = time.perf_counter()
    found = hits = 0
    for d in digests:
        locs = idx.where(d)
        if locs:
            found += 1
            hits += len(locs)
    t_look = time.perf_counter() - t
    print(
        f"lookup: {n_held:,} items in {t_look:.3f}s "
        f"({n_held / t_look:,.0f}/s): {found:,} found at {hits:,} positions"
    )

    t = time.perf_counter()
    un = idx.unexplained(digests)
    print(
        f"unexplained: {len(un):,} manifest entries no held item explains "
        f"in {time.perf_counter() - t:.2f}s"
    )
    print(f"peak rss: {rss_mb():.0f} MB")
    expect = (n_held + 1) // 2
    if found != expect:
        print(f"UNEXPECTED: {found} found, wanted {expect}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
