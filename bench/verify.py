"""Verify a 1,000,000-row ledger with sealscope and with arcaeon's verify_file.

Each run happens in a fresh child process so peak RSS is its own; for sealscope the
figure is the parent's peak plus the largest worker's peak (they run at once).
Prints wall time, the ratio to the reference and to the hash floor (one core hashing
the file with OpenSSL SHA-256 in a fresh interpreter), peak RSS and the machine's load;
`--runs 3` reports the median of three.

    python bench/verify.py [--rows 1000000] [--runs 1] [--path bench/out/verify-1m.jsonl]

`--broken`: memory must not grow with the number of breaks. Verifies a ledger of N
small rows where every row breaks (each `chain` wrong) and an honest ledger of the
same N rows, each with sealscope in a fresh process, and prints both peak RSS figures,
their ratio (the bar: within 1.5x) and the times.

    python bench/verify.py --broken [--rows 1000000]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, resource, sys, time
which, path = sys.argv[1], sys.argv[2]
t = time.perf_counter()
if which == "sealscope":
    from sealscope.core.ledger import verify
    res = verify(path).to_dict()
else:
    from arcaeon.record.ledger import verify_file
    r = verify_file(path)
    res = {k: getattr(r, k) for k in ("ok", "rows", "chained", "prechain", "first_break",
                                      "breaks", "verified_scope", "declared_breaks", "declared")}
wall = time.perf_counter() - t
me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
print(json.dumps({"wall": wall, "rss_self_kb": me, "rss_child_kb": kids, "result": res}))
"""


# The hash floor: one core hashing the whole file with OpenSSL SHA-256 in a fresh
# interpreter, reading as the verifier reads (os.read, 8 MB at a time): no verifier can
# read and hash every byte faster on one core.
FLOOR = r"""
import hashlib, os, sys, time
t = time.perf_counter()
h = hashlib.sha256()
fd = os.open(sys.argv[1], os.O_RDONLY)
left = int(sys.argv[2]) if len(sys.argv) > 2 else -1
while left:
    b = os.read(fd, 8 << 20 if left < 0 else min(left, 8 << 20))
    if not b:
        break
    h.update(b)
    left = left - len(b) if left > 0 else left
print(time.perf_counter() - t)
"""


def hash_floor(path: Path, length: int | None = None) -> float:
    """Seconds for one core to SHA-256 `path` (its first `length` bytes) in a fresh
    interpreter, the file in the page cache as the runs around it leave it."""
    args = [sys.executable, "-c", FLOOR, str(path)] + ([str(length)] if length else [])
    out = subprocess.run(args, capture_output=True, text=True, check=True)
    return float(out.stdout.split()[0])


def run_one(which: str, path: Path, pure: bool = False) -> dict:
    env = dict(os.environ, SEALSCOPE_PURE_PYTHON="1") if pure else None
    out = subprocess.run(
        [sys.executable, "-c", CHILD, which, str(path)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    return json.loads(out.stdout)


def write_small(path: Path, rows: int, broken: bool) -> None:
    """N rows `{"i": n, "pad": ..., "chain": ...}`, chained honestly, or each with a
    chain that never links (every row a break)."""
    from sealscope.core.ledger import GENESIS, link

    path.parent.mkdir(parents=True, exist_ok=True)
    prev = GENESIS
    with open(path, "w", encoding="utf-8") as fh:
        for n in range(rows):
            row = {"i": n, "pad": "x"}
            chain = "0" * 32 if broken else link(prev, row)
            prev = chain
            fh.write(json.dumps({**row, "chain": chain}) + "\n")


def broken_vs_honest(rows: int) -> int:
    out = HERE / "out"
    runs = {}
    for broken in (False, True):
        path = out / f"verify-{rows}-{'broken' if broken else 'honest'}-small.jsonl"
        if not path.exists():
            print(
                f"writing {rows:,} {'broken' if broken else 'honest'} rows to {path} ...",
                flush=True,
            )
            write_small(path, rows, broken)
        r = run_one("sealscope", path)
        rss = (r["rss_self_kb"] + r["rss_child_kb"]) / 1024
        runs[broken] = (r, rss)
        print(
            f"{'all broken' if broken else 'honest':>10}: {path.stat().st_size / 1e6:.0f} MB,"
            f" {r['result']['breaks']:,} breaks, {r['wall']:.2f}s, peak RSS {rss:.0f} MB "
            f"(parent {r['rss_self_kb'] / 1024:.0f} MB + largest worker)",
            flush=True,
        )
    ratio = runs[True][1] / runs[False][1]
    print(f"peak RSS all-broken / honest: {ratio:.2f}x (bar: within 1.5x)")
    return 0 if ratio <= 1.5 else 1


def main() -> int:
    if "--broken" in sys.argv:
        ap = argparse.ArgumentParser()
        ap.add_argument("--broken", action="store_true")
        ap.add_argument("--rows", type=int, default=1_000_000)
        return broken_vs_honest(ap.parse_args().rows)
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--runs", type=int, default=1)
    ap.add_argument("--path", type=Path, default=HERE / "out" / "verify-1m.jsonl")
    ap.add_argument(
        "--pure",
        action="store_true",
        help="sealscope without its C accelerator (the pure-Python paths)",
    )
    a = ap.parse_args()
    if not a.path.exists():
        sys.path.insert(0, str(HERE))
        from make_ledger import write

        print(f"writing {a.rows} rows to {a.path} ...", flush=True)
        write(a.path, a.rows)
    size = a.path.stat().st_size
    print(f"ledger: {a.path} ({size / 1e6:.0f} MB)")
    print(f"load: {os.popen('uptime').read().strip()}")
    ours, ref, floors = [], [], []
    for i in range(a.runs):
        o, r = run_one("sealscope", a.path, a.pure), run_one("arcaeon", a.path)
        if o["result"] != r["result"]:
            print("VERDICTS DIFFER:", o["result"], r["result"])
            return 1
        ours.append(o)
        ref.append(r)
        floors.append(hash_floor(a.path))
        print(
            f"run {i + 1}: sealscope {o['wall']:.2f}s  arcaeon {r['wall']:.2f}s  "
            f"ratio {r['wall'] / o['wall']:.2f}x  hash floor {floors[-1]:.2f}s "
            f"({o['wall'] / floors[-1]:.2f}x the floor)",
            flush=True,
        )
    ow = statistics.median(x["wall"] for x in ours)
    rw = statistics.median(x["wall"] for x in ref)
    o_rss = max(x["rss_self_kb"] + x["rss_child_kb"] for x in ours) / 1024
    o_parent = max(x["rss_self_kb"] for x in ours) / 1024
    r_rss = max(x["rss_self_kb"] for x in ref) / 1024
    print(f"verdict (both): {json.dumps(ours[0]['result'])}")
    print(
        f"sealscope{' (pure Python)' if a.pure else ''}: {ow:.2f}s (median of {a.runs}), "
        f"peak RSS {o_rss:.0f} MB (parent {o_parent:.0f} MB + largest worker)"
    )
    print(f"arcaeon:   {rw:.2f}s (median of {a.runs}), peak RSS {r_rss:.0f} MB")
    fw = statistics.median(floors)
    print(
        f"hash floor (one core, OpenSSL SHA-256 of the file, fresh interpreter): {fw:.2f}s "
        f"(median of {a.runs})"
    )
    print(
        f"ratio: {rw / ow:.2f}x faster than the reference; {ow / fw:.2f}x the hash floor "
        f"(1.00x would be one core's hashing alone)"
    )
    print(f"load: {os.popen('uptime').read().strip()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
