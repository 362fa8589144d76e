"""Incremental verification of a 1,000,000-row ledger after 1,000 rows are appended.

The bench ledger (bench/make_ledger.py) is copied, checkpointed, and 1,000 rows are
appended as arcaeon's `append` writes them. Then, each in a fresh child process:
a full `verify`, an incremental one (hash the checkpointed prefix, walk only the new
rows), and the floor (one core hashing the checkpointed prefix with OpenSSL SHA-256 in
a fresh interpreter: the incremental run hashes that prefix). Prints times, the ratio,
the ratio to the floor, peak RSS and the load; the two verdicts must be identical.

    python bench/incremental.py [--rows 1000000] [--append 1000] [--runs 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import hashlib, json, os, resource, sys, time
which, path, cp = sys.argv[1], sys.argv[2], sys.argv[3]
from sealscope.core import checkpoint, ledger
t = time.perf_counter()
extra = {}
if which == "full":
    r = ledger.verify(path)
elif which == "incremental":
    inc = checkpoint.verify_incremental(path, checkpoint=cp)
    r = inc.result
    extra = {"resumed": inc.resumed.to_dict() if inc.resumed else None,
             "notes": list(inc.notes), "saved": inc.saved}
else:  # the floor: a bare SHA-256 of the file's first int(which) bytes (the prefix)
    h = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY)
    left = int(which)
    while left > 0:
        b = os.read(fd, min(left, 8 << 20))
        if not b:
            break
        h.update(b)
        left -= len(b)
    r = None
wall = time.perf_counter() - t
me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
res = None if r is None else dict(r.to_dict(), lines=r.lines, findings=len(r.findings),
                                  first_chained_line=r.first_chained_line)
print(json.dumps({"wall": wall, "rss_kb": me + kids, "result": res, **extra}))
"""


def child(which: str, path: Path, cp: Path) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, which, str(path), str(cp)],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout)


def append_rows(path: Path, n: int, seed: int = 11) -> None:
    """n rows chained from the file's tail, written as arcaeon's append writes them."""
    sys.path.insert(0, str(HERE))
    from make_ledger import make_row
    from sealscope.core.ledger import link, tail_chain

    rng = random.Random(seed)
    prev = tail_chain(path)
    with path.open("a", encoding="utf-8") as fh:
        for i in range(n):
            row = make_row(rng, 2_000_000 + i)
            row.pop("chain", None)
            row["chain"] = prev = link(prev, row)
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--append", type=int, default=1_000)
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--source", type=Path, default=HERE / "out" / "verify-1m.jsonl")
    a = ap.parse_args()
    if not a.source.exists():
        sys.path.insert(0, str(HERE))
        from make_ledger import write

        print(f"writing {a.rows} rows to {a.source} ...", flush=True)
        write(a.source, a.rows)
    work = Path(tempfile.mkdtemp(prefix="sealscope-incr-"))
    try:
        path, cp = work / "ledger.jsonl", work / "checkpoint.json"
        shutil.copyfile(a.source, path)
        first = child("incremental", path, cp)
        print(
            f"ledger: {a.source} ({path.stat().st_size / 1e6:.0f} MB); first incremental run "
            f"(full walk + hashes, writes the checkpoint): {first['wall']:.2f}s",
            flush=True,
        )
        prefix = path.stat().st_size  # the checkpointed bytes, unchanged after
        append_rows(path, a.append)
        print(f"appended {a.append} rows -> {path.stat().st_size / 1e6:.0f} MB", flush=True)
        snap = cp.read_bytes()
        fulls, incs, bounds = [], [], []
        for i in range(a.runs):
            cp.write_bytes(snap)  # each run resumes the same checkpoint
            f = child("full", path, cp)
            n = child("incremental", path, cp)
            b = child(str(prefix), path, cp)  # the floor: one core hashing the prefix
            if f["result"] != n["result"] or n["resumed"] is None:
                print("VERDICTS DIFFER OR NOT RESUMED:", f["result"], n)
                return 1
            fulls.append(f)
            incs.append(n)
            bounds.append(b)
            print(
                f"run {i + 1}: full {f['wall']:.3f}s  incremental {n['wall']:.3f}s  "
                f"ratio {f['wall'] / n['wall']:.1f}x  floor (one core, SHA-256 of the "
                f"prefix) {b['wall']:.3f}s: {n['wall'] / b['wall']:.2f}x the floor",
                flush=True,
            )
        fw = statistics.median(x["wall"] for x in fulls)
        iw = statistics.median(x["wall"] for x in incs)
        bw = statistics.median(x["wall"] for x in bounds)
        print(f"verdict (both): {json.dumps(fulls[0]['result'])}")
        print(f"resumed: {json.dumps(incs[0]['resumed'])}")
        print(
            f"full verify:        {fw:.3f}s (median of {a.runs}), peak RSS "
            f"{max(x['rss_kb'] for x in fulls) / 1024:.0f} MB (its process and any child's)"
        )
        print(
            f"incremental verify: {iw:.3f}s (median of {a.runs}), peak RSS "
            f"{max(x['rss_kb'] for x in incs) / 1024:.0f} MB"
        )
        print(
            f"floor (one core, OpenSSL SHA-256 of the {prefix / 1e6:.0f} MB checkpointed "
            f"prefix, fresh interpreter): {bw:.3f}s"
        )
        print(
            f"ratio: incremental is {fw / iw:.1f}x faster than full "
            f"(aim >= 4x); {iw / bw:.2f}x the floor of the prefix (aim <= 1.0x)"
        )
        print(f"load: {os.popen('uptime').read().strip()}")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
