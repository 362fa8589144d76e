"""Audit a fleet of generated ledgers three ways, in one run: the reference
(arcaeon's `verify_file` in a loop, one process), `sealscope fleet` on the local
process pool, and `sealscope fleet --scheduler local:N` (a Dask LocalCluster).

Ledgers are prefixes of one realistic master ledger (bench/make_ledger.py rows), so
each is an honest chain; sizes are log-uniform between --min-kb and --max-mb; every
97th file has one row edited (a break). Each run happens in a fresh child process;
its peak RSS is the client's own (workers are separate processes). Verdicts of the
three runs are compared file by file.

    python bench/fleet.py [--files 2000] [--min-kb 10] [--max-mb 20] [--workers 2]
"""
from __future__ import annotations

import argparse
import json
import math
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import io, json, resource, sys, time, contextlib
which, root, workers = sys.argv[1], sys.argv[2], sys.argv[3]
t = time.perf_counter()
if which == "arcaeon":
    import os
    from arcaeon.record.ledger import verify_file
    res = {}
    for d, _dirs, files in os.walk(root):
        for f in files:
            if not f.endswith(".jsonl"):
                continue
            p = os.path.join(d, f)
            res[p] = verify_file(p).ok
else:
    from sealscope.main import main
    argv = ["fleet", root, "--json"]
    if which == "dask":
        argv += ["--scheduler", f"local:{workers}"]
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(argv)
    res = {}
    for line in buf.getvalue().splitlines():
        d = json.loads(line)
        if "path" in d:
            res[d["path"]] = d["ok"]
wall = time.perf_counter() - t
rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
print(json.dumps({"wall": wall, "rss_kb": rss, "ok": res}))
"""


def build(root: Path, files: int, min_kb: int, max_mb: int, seed: int = 11) -> int:
    """Write the fleet; returns its total bytes. Reuses an existing one of that shape."""
    stamp = root / ".shape"
    shape = f"{files} {min_kb} {max_mb} {seed}"
    if stamp.exists() and stamp.read_text() == shape:
        return sum(p.stat().st_size for p in root.rglob("*.jsonl"))
    sys.path.insert(0, str(HERE))
    from make_ledger import write

    master = HERE / "out" / "fleet-master.jsonl"
    if not master.exists() or master.stat().st_size < max_mb << 20:
        rows = int((max_mb << 20) / 330) + 1000
        print(f"writing the master ledger ({rows} rows) ...", flush=True)
        write(master, rows)
    data = master.read_bytes()
    rng = random.Random(seed)
    lo, hi = math.log(min_kb << 10), math.log(max_mb << 20)
    total = 0
    for i in range(files):
        want = int(math.exp(rng.uniform(lo, hi)))
        cut = data.rfind(b"\n", 0, want) + 1 or data.index(b"\n") + 1
        body = data[:cut]
        if i % 97 == 5:  # one edited row: a break
            mid = body.rfind(b'"step": ', 0, len(body) // 2)
            if mid > 0:
                body = body[:mid] + b'"step": -1' + body[body.index(b",", mid):]
        d = root / f"team-{i % 20:02d}" / f"agent-{i // 20:03d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"ledger-{i:04d}.jsonl").write_bytes(body)
        total += len(body)
    stamp.write_text(shape)
    return total


def run(which: str, root: Path, workers: int) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, which, str(root), str(workers)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--min-kb", type=int, default=10)
    ap.add_argument("--max-mb", type=int, default=20)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--root", type=Path, default=HERE / "out" / "fleet")
    ap.add_argument("--skip-reference", action="store_true")
    a = ap.parse_args()
    t = time.perf_counter()
    total = build(a.root, a.files, a.min_kb, a.max_mb)
    print(f"{a.files} ledgers, {total / 1e6:,.0f} MB ({time.perf_counter() - t:.0f} s to "
          f"prepare); {os.cpu_count()} cores")
    rows = []
    results = {}
    for which in (["sealscope", "dask"] if a.skip_reference else
                  ["arcaeon", "sealscope", "dask"]):
        r = run(which, a.root, a.workers)
        results[which] = r["ok"]
        rows.append((which, r["wall"], r["rss_kb"] / 1024))
        print(f"  {which:10s} {r['wall']:8.2f} s  {a.files / r['wall']:8.1f} files/s  "
              f"{total / 1e6 / r['wall']:8.1f} MB/s  client peak RSS {r['rss_kb'] / 1024:6.0f} MB",
              flush=True)
    walls = {w: s for w, s, _ in rows}
    if "arcaeon" in walls:
        print(f"local vs reference loop: {walls['arcaeon'] / walls['sealscope']:.1f}x faster")
    print(f"Dask local:{a.workers} vs local pool: {walls['dask'] / walls['sealscope']:.2f}x the "
          f"wall time ({(walls['dask'] / walls['sealscope'] - 1) * 100:+.0f} %)")
    per_worker = total / walls["sealscope"] / a.workers
    print(f"per-worker rate (local): {per_worker / 1e6:.0f} MB/s, "
          f"{a.files / walls['sealscope'] / a.workers:.0f} files/s")
    base = results["sealscope"]
    for which, got in results.items():
        if which == "arcaeon":
            same = got.keys() == base.keys() and all(got[p] == base[p] for p in got)
        else:
            same = got == base
        print(f"  verdicts {which} == sealscope local: {same}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
