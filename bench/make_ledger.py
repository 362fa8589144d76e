"""Write a realistic N-row ledger exactly as arcaeon's `append` would write it.

Rows are mixed agent activity (tool calls with nested arguments, observations with
unicode and floats, decisions, notes) plus a compaction receipt every 500 rows, each
chained with the reference chain rule and serialised as `append` serialises. Writing
through `append` itself would fsync a million times; the bytes are the same.
"""

from __future__ import annotations

import json
import random
import sys
from pathlib import Path

from sealscope.core.ledger import GENESIS, link

WORDS = (
    "amber basalt cobalt delta ember fjord glacier harbor indigo juniper kestrel "
    "lantern meadow nickel orchid quartz raven saffron tundra umber violet willow "
    "xenon yarrow zephyr naïve façade Ωmega 東京 ünïcödé"
).split()


try:
    from sealscope.core.receipt import build_row as _build_row
except ImportError:  # receipts not available: plain rows only
    _build_row = None


def _text(rng: random.Random, lo: int, hi: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(rng.randint(lo, hi)))


def make_row(rng: random.Random, i: int) -> dict:
    ts = f"2026-11-{1 + i // 86400 % 28:02d}T{i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z"
    kind = rng.random()
    if i % 500 == 499 and _build_row is not None:
        build_row = _build_row  # a real v2 receipt row
        pre = [_text(rng, 5, 30) for _ in range(rng.randint(3, 8))]
        post = pre[: rng.randint(1, len(pre) - 1)] + [f"summary: {_text(rng, 3, 8)}"]
        row = build_row(pre, post, compactor="bench-summarizer", method="llm-summary")
        row["ts"] = ts
        return row
    if kind < 0.45:
        tool = rng.choice(["web.search", "fetch", "fs.read", "shell"])
        opts = {"lang": rng.choice(["en", "fr", "ja"]), "safe": rng.random() < 0.5}
        return {
            "kind": "tool_call",
            "step": i,
            "tool": tool,
            "args": {"query": _text(rng, 4, 12), "limit": rng.randint(1, 50), "opts": opts},
            "result_ok": rng.random() < 0.9,
            "latency_s": round(rng.random() * 3, 3),
            "ts": ts,
        }
    if kind < 0.75:
        return {
            "kind": "observation",
            "step": i,
            "text": _text(rng, 20, 60),
            "score": rng.randint(0, 1000),
            "tags": [rng.choice(WORDS) for _ in range(rng.randint(0, 4))],
            "ts": ts,
        }
    if kind < 0.9:
        return {
            "kind": "decision",
            "step": i,
            "text": _text(rng, 8, 24),
            "approved": rng.random() < 0.7,
            "reviewer": None if rng.random() < 0.5 else "agent-7",
            "meta": {"confidence": round(rng.random(), 4), "gloss": _text(rng, 1, 3)},
            "ts": ts,
        }
    return {"kind": "note", "step": i, "text": _text(rng, 24, 80), "ts": ts}


def write(path: Path, n: int, seed: int = 7) -> Path:
    rng = random.Random(seed)
    path.parent.mkdir(parents=True, exist_ok=True)
    prev = GENESIS
    with path.open("w", encoding="utf-8") as fh:
        for i in range(n):
            row = make_row(rng, i)
            row.pop("chain", None)
            row["chain"] = prev = link(prev, row)
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return path


if __name__ == "__main__":
    out = Path(sys.argv[1] if len(sys.argv) > 1 else "bench/out/verify-1m.jsonl")
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 1_000_000
    write(out, n)
    print(out, out.stat().st_size)
