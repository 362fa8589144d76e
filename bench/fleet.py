"""Audit a fleet of generated ledgers three ways, in one run: the reference
(arcaeon's `verify_file` in a loop, one process), `sealscope fleet` on the local
process pool, `sealscope fleet --scheduler local:N` (a Dask LocalCluster the command
starts and stops, inside the clock), and `sealscope fleet --scheduler ADDRESS` on a
LocalCluster of N workers started before the clock (as a deployed cluster would be).

The fleet is written into a fresh temporary folder under /tmp and removed after.
Ledgers are prefixes of one realistic master ledger (bench/make_ledger.py rows, a
compaction receipt every 500 rows), so each is an honest chain; sizes run from
--min-kb to --max-mb, most ledgers small (log-uniform up to 1 MB) and a few large
(10 %, or --large N of them, log-uniform from 1 MB to the maximum); every 97th file has
one row edited (a break). Each run happens in a fresh child process on a warm page cache (the
files were just written); its peak RSS is the client's own (pool and Dask workers are
separate processes); CPU is the run's user + system time, its pool or cluster
included where its processes are the command's children (Dask workers are not: a
running cluster's are started before the clock, and local:N's come from a fork server,
so a Dask run's CPU is its client's alone), which a busy machine inflates less than
wall time. The sealscope runs take turns for --repeat rounds (3 by default; a
shared or virtual machine varies by 20 % from one run to the next) and the median run
of each is reported, with every run's wall time. Verdicts of the
runs are compared file by file, and the load average is printed beside each figure
(the machine may be shared). The last lines turn the measured per-worker rates into
how many workers audit 100,000 ledgers of this mix, or 1 TB, in an hour.

    python bench/fleet.py [--files 2000] [--min-kb 10] [--max-mb 20] [--workers 2] [--repeat 3]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from make_ledger import write  # noqa: E402 - bench/ is a folder of scripts

CHILD = r"""
import io, json, os, resource, sys, time, contextlib
which, root, workers = sys.argv[1], sys.argv[2], sys.argv[3]
t = time.perf_counter()
if which == "reference":
    from arcaeon.record.ledger import verify_file
    res = {}
    for d, dirs, files in os.walk(root):
        dirs.sort()
        for f in sorted(files):
            if f.endswith(".jsonl"):
                p = os.path.join(d, f)
                res[p] = verify_file(p).ok
else:
    from sealscope.main import main
    argv = ["fleet", root, "--json"]
    if which == "dask":
        argv += ["--scheduler", f"local:{workers}"]
    elif which == "dask-running":
        argv += ["--scheduler", workers]  # the address of a cluster started before the clock
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        main(argv)
    res = {}
    for line in buf.getvalue().splitlines():
        d = json.loads(line)
        if "path" in d:
            res[d["path"]] = d["ok"]
wall = time.perf_counter() - t
me = resource.getrusage(resource.RUSAGE_SELF)
kids = resource.getrusage(resource.RUSAGE_CHILDREN)
cpu = me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime
print(json.dumps({"wall": wall, "rss_kb": me.ru_maxrss, "cpu": cpu, "ok": res}))
"""

RUNS = (
    ("reference", "arcaeon verify_file loop"),
    ("local", "sealscope fleet"),
    ("dask", "sealscope fleet --scheduler local:{w}"),
    ("dask-running", "sealscope fleet --scheduler ADDRESS"),
)


def sizes(
    files: int, min_kb: int, max_mb: int, rng: random.Random, large: int | None = None
) -> list[int]:
    """`large` files (10 % when None) log-uniform in [1 MB, max_mb], the others
    log-uniform in [min_kb, 1 MB]."""
    lo, mid, hi = math.log(min_kb << 10), math.log(1 << 20), math.log(max_mb << 20)
    big = files // 10 if large is None else min(large, files)
    out = [
        int(math.exp(rng.uniform(mid, hi) if i < big else rng.uniform(lo, mid)))
        for i in range(files)
    ]
    rng.shuffle(out)
    return out


def build(
    root: Path, files: int, min_kb: int, max_mb: int, seed: int = 11, large: int | None = None
) -> tuple[int, int, list[int]]:
    """Write the fleet under `root`: (total bytes, broken files, sizes)."""
    master = root / "master.jsonl"
    rows = int((max_mb << 20) / 330) + 1000
    write(master, rows)
    data = master.read_bytes()
    master.unlink()
    rng = random.Random(seed)
    total = broken = 0
    got = []
    fleet = root / "fleet"
    for i, want in enumerate(sizes(files, min_kb, max_mb, rng, large)):
        cut = data.rfind(b"\n", 0, want) + 1 or data.index(b"\n") + 1
        body = data[:cut]
        if i % 97 == 5:  # one edited row: a break
            mid = body.rfind(b'"step": ', 0, len(body) // 2)
            if mid > 0:
                body = body[:mid] + b'"step": -1' + body[body.index(b",", mid) :]
                broken += 1
        d = fleet / f"team-{i % 20:02d}" / f"agent-{i // 20:03d}"
        d.mkdir(parents=True, exist_ok=True)
        (d / f"ledger-{i:04d}.jsonl").write_bytes(body)
        total += len(body)
        got.append(len(body))
    return total, broken, got


def load() -> str:
    one, five, _fifteen = os.getloadavg()
    return f"{one:.1f}/{five:.1f}"


def run(which: str, root: Path, workers: int) -> dict:
    if which != "dask-running":
        return _child(which, root, str(workers))
    # a deployed cluster outlives the command: start one (its workers idle, their
    # imports done, set up as local:N sets up its own) before the clock, give the
    # command its address, close it after
    import dask
    import dask.distributed as dd
    from sealscope.fleet_engine import local_cluster_config

    with (
        dask.config.set(local_cluster_config()),
        dd.LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
    ):
        return _child(which, root, cluster.scheduler_address)


def _child(which: str, root: Path, arg: str) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", CHILD, which, str(root), arg],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--files", type=int, default=2000)
    ap.add_argument("--min-kb", type=int, default=10)
    ap.add_argument("--max-mb", type=int, default=20)
    ap.add_argument(
        "--large",
        type=int,
        default=None,
        help="how many files are large (1 MB to --max-mb); 10 %% of --files when not given "
        "(issue 31's mix: --files 20020 --large 20 --min-kb 4 --max-mb 40)",
    )
    ap.add_argument(
        "--workers",
        type=int,
        default=os.cpu_count() or 2,
        help="Dask LocalCluster workers (the local pool takes every core)",
    )
    ap.add_argument("--skip-reference", action="store_true")
    ap.add_argument(
        "--repeat",
        type=int,
        default=3,
        help="rounds of the sealscope runs, alternating; the median run of each "
        "is reported (the reference runs once)",
    )
    a = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="sealscope-bench-fleet-", dir="/tmp"))
    try:
        return measure(a, tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def workers(n: int) -> str:
    return f"{n} worker{'s' if n != 1 else ''}"


def measure(a: argparse.Namespace, tmp: Path) -> int:
    t = time.perf_counter()
    total, broken, got = build(tmp, a.files, a.min_kb, a.max_mb, large=a.large)
    got.sort()
    mb = total / 1e6
    print(
        f"{a.files} ledgers, {mb:,.0f} MB ({broken} broken; sizes min "
        f"{got[0] / 1e3:.0f} kB, median {got[len(got) // 2] / 1e3:.0f} kB, max "
        f"{got[-1] / 1e6:.1f} MB; {time.perf_counter() - t:.0f} s to write); "
        f"{os.cpu_count()} cores; load {load()}",
        flush=True,
    )
    walls: dict[str, float] = {}
    cpus: dict[str, float] = {}
    results: dict[str, dict[str, bool]] = {}
    got_runs: dict[str, list[dict]] = {which: [] for which, _label in RUNS}
    loads: dict[str, list[str]] = {which: [] for which, _label in RUNS}
    for rnd in range(a.repeat):
        for which, _label in RUNS:
            if which == "reference" and (a.skip_reference or rnd > 0):
                continue
            before = load()
            got_runs[which].append(run(which, tmp / "fleet", a.workers))
            loads[which].append(f"{before} -> {load()}")
    for which, label in RUNS:
        rs = got_runs[which]
        if not rs:
            continue
        r = min(rs, key=lambda r: abs(r["wall"] - statistics.median(x["wall"] for x in rs)))
        results[which] = r["ok"]
        walls[which] = r["wall"]
        cpus[which] = r["cpu"]
        walls_s = ", ".join(f"{x['wall']:.2f}" for x in rs)
        spread = f" (runs {walls_s})" if len(rs) > 1 else ""
        print(
            f"  {label.format(w=a.workers):38s} {r['wall']:8.2f} s  "
            f"{a.files / r['wall']:7.1f} files/s  {mb / r['wall']:7.1f} MB/s  "
            f"client peak RSS {r['rss_kb'] / 1024:5.0f} MB  CPU {r['cpu']:7.1f} s  "
            f"(load {'; '.join(loads[which])}){spread}",
            flush=True,
        )
    if "reference" in walls:
        x = walls["reference"] / walls["local"]
        print(
            f"local vs reference loop: {x:.1f}x faster "
            f"(goal >= 12x: {'met' if x >= 12 else 'NOT met'})"
        )
    print(
        "CPU seconds: "
        + ", ".join(f"{w} {c:.1f}" for w, c in cpus.items())
        + (
            f" (reference / local {cpus['reference'] / cpus['local']:.1f}x)"
            if "reference" in cpus
            else ""
        )
    )
    started = f"local:{a.workers} (cluster started and stopped by the command)"
    for which, how in (
        ("dask", started),
        ("dask-running", f"on a running {a.workers}-worker cluster"),
    ):
        over = walls[which] / walls["local"] - 1
        print(
            f"Dask {how} vs local pool: {over * 100:+.0f} % wall time "
            f"(goal within 10 %: {'met' if over <= 0.10 else 'NOT met'})"
        )
    cores = os.cpu_count() or 1
    print(
        f"per-worker rate (local pool, {cores} cores): "
        f"{mb / walls['local'] / cores:.1f} MB/s, {a.files / walls['local'] / cores:.1f} "
        f"files/s; (Dask, a running cluster of {a.workers} workers): "
        f"{mb / walls['dask-running'] / a.workers:.1f} MB/s, "
        f"{a.files / walls['dask-running'] / a.workers:.1f} files/s"
    )
    for name, wall, n in (
        ("local pool", walls["local"], cores),
        ("Dask", walls["dask-running"], a.workers),
    ):
        files_s, mb_s = a.files / wall / n, mb / wall / n
        for_files, for_tb = math.ceil(1e5 / 3600 / files_s), math.ceil(1e6 / 3600 / mb_s)
        print(
            f"at the {name}'s per-worker rate: {workers(for_files)} audit 100,000 ledgers "
            f"of this mix in an hour, {workers(for_tb)} 1 TB"
        )
    base = results["local"]
    agree = True
    for which, ok in results.items():
        if which == "local":
            continue
        same = ok == base
        agree = agree and same
        print(
            f"  verdicts {which} == sealscope local: {same} ({len(ok)} files, "
            f"{sum(not v for v in ok.values())} not ok)"
        )
    return 0 if agree else 1


if __name__ == "__main__":
    sys.exit(main())
