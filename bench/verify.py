"""Verify a 1,000,000-row ledger with sealscope and with arcaeon's verify_file.

Each run happens in a fresh child process so peak RSS is its own (sealscope walks a
large file on threads of that one process; any child process's peak would be added).
Prints wall time, the ratio to the reference and to the hash floor (one core hashing
the file with OpenSSL SHA-256 in a fresh interpreter), peak RSS and the machine's load;
`--runs 3` reports the median of three, and the median of the runs' own ratios (the
reference's time moves with the machine's load as much as ours). The issue's bar is
printed beside the figures: at least 25x the reference at a peak of 64 MB or less.

`--profile`: where the time goes. One walk on one thread under cProfile (the
accelerator's row runs, the reads, the declaration search, the Python around them),
then the threaded walk's wall and CPU time, and the interpreter's start and import.

    python bench/verify.py [--rows 1000000] [--runs 1] [--path bench/out/verify-1m.jsonl]

`--broken`: memory must not grow with the number of breaks. Verifies a ledger of N
small rows where every row breaks (each `chain` wrong) and an honest ledger of the
same N rows, each with sealscope in a fresh process, and prints both peak RSS figures,
their ratio (the bar: within 1.5x) and the times.

    python bench/verify.py --broken [--rows 1000000]

`--jobs N`: sealscope's walk on N threads (default: the cores the process may use).
`--sweep`: the whole `sealscope verify --jobs N` command (process start to exit) for
N = 1, 2, 4, 8, 16 capped at the cores this process may use (and that count itself),
each the median of `--runs`, with its peak RSS, its speed-up over N = 1 and its ratio
to one core hashing the file (the bar on 16 cores: 0.25 s whole process; on any N:
64 MB or less).

    python bench/verify.py --sweep [--runs 3] [--path LEDGER]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

CHILD = r"""
import json, resource, sys, time
which, path = sys.argv[1], sys.argv[2]
jobs = int(sys.argv[3]) if len(sys.argv) > 3 and sys.argv[3] != "0" else None
t = time.perf_counter()
if which == "sealscope":
    from sealscope.core.ledger import verify
    res = verify(path, workers=jobs).to_dict()
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


def run_one(which: str, path: Path, pure: bool = False, jobs: int | None = None) -> dict:
    env = dict(os.environ, SEALSCOPE_PURE_PYTHON="1") if pure else None
    out = subprocess.run(
        [sys.executable, "-c", CHILD, which, str(path), str(jobs or 0)],
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
            f"(its process {r['rss_self_kb'] / 1024:.0f} MB + any child's)",
            flush=True,
        )
    ratio = runs[True][1] / runs[False][1]
    print(f"peak RSS all-broken / honest: {ratio:.2f}x (bar: within 1.5x)")
    return 0 if ratio <= 1.5 else 1


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


def sealscope_argv() -> list[str]:
    here = Path(sys.executable).parent / "sealscope"
    return [str(here)] if here.is_file() else [sys.executable, "-m", "sealscope"]


def whole_command(argv: list[str]) -> tuple[float, float]:
    """(wall seconds, peak RSS MB) of one command, process start to exit."""
    t = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _pid, _status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t
    proc.returncode = 0  # reaped here
    return wall, usage.ru_maxrss / 1024


def sweep(path: Path, runs: int) -> int:
    """`sealscope verify --jobs N` whole process for each N (see the docstring)."""
    cores = usable_cores()
    ns = sorted({n for n in (1, 2, 4, 8, 16) if n <= cores} | {cores})
    print(f"ledger: {path} ({path.stat().st_size / 1e6:.0f} MB); {cores} usable cores")
    print(f"load: {os.popen('uptime').read().strip()}")
    whole_command([*sealscope_argv(), "verify", "--json", str(path)])  # page cache
    floor = statistics.median(hash_floor(path) for _ in range(runs))
    print(f"one core hashing the file (fresh interpreter): {floor:.2f}s (median of {runs})")
    first = None
    worst_rss = 0.0
    for n in ns:
        got = [
            whole_command([*sealscope_argv(), "verify", "--json", "--jobs", str(n), str(path)])
            for _ in range(runs)
        ]
        wall = statistics.median(w for w, _r in got)
        rss = max(r for _w, r in got)
        worst_rss = max(worst_rss, rss)
        first = first or wall
        print(
            f"  N={n:>2}: {wall:.2f}s whole process (median of {runs}), peak RSS {rss:.0f} MB, "
            f"{first / wall:.2f}x N=1, {wall / floor:.2f}x one core hashing",
            flush=True,
        )
    print(f"peak RSS over every N: {worst_rss:.0f} MB (bar: <= 64 MB whatever N)")
    print(f"load: {os.popen('uptime').read().strip()}")
    return 0


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
    ap.add_argument("--profile", action="store_true", help="where verify's time goes")
    ap.add_argument("--jobs", type=int, default=None, help="sealscope's threads")
    ap.add_argument("--sweep", action="store_true", help="whole command for N = 1, 2, 4, ...")
    a = ap.parse_args()
    if a.sweep and a.path.exists():
        return sweep(a.path, a.runs)
    if a.profile and a.path.exists():
        return profile(a.path)
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
        o, r = run_one("sealscope", a.path, a.pure, a.jobs), run_one("arcaeon", a.path)
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
    run_ratio = statistics.median(r["wall"] / o["wall"] for o, r in zip(ours, ref, strict=True))
    o_rss = max(x["rss_self_kb"] + x["rss_child_kb"] for x in ours) / 1024
    o_parent = max(x["rss_self_kb"] for x in ours) / 1024
    r_rss = max(x["rss_self_kb"] for x in ref) / 1024
    print(f"verdict (both): {json.dumps(ours[0]['result'])}")
    print(
        f"sealscope{' (pure Python)' if a.pure else ''} "
        f"({a.jobs or usable_cores()} threads): {ow:.2f}s (median of {a.runs}), "
        f"peak RSS {o_rss:.0f} MB (its process {o_parent:.0f} MB + any child's)"
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
    met = run_ratio >= 25 and o_rss <= 64
    print(
        f"median of the runs' ratios: {run_ratio:.2f}x at {o_rss:.0f} MB peak "
        f"(bar: >= 25x at <= 64 MB: {'met' if met else 'not met'})"
    )
    print(f"load: {os.popen('uptime').read().strip()}")
    return 0


PROFILE = r"""
import cProfile, io, os, pstats, resource, sys, time
path = sys.argv[1]
t0 = time.perf_counter()
from sealscope.core.ledger import verify
imported = time.perf_counter() - t0
prof = cProfile.Profile()
prof.enable()
t = time.perf_counter()
verify(path, workers=1)
one = time.perf_counter() - t
prof.disable()
st = pstats.Stats(prof)
parts = {}
for (fn, _line, name), (_cc, _nc, tt, _ct, _callers) in st.stats.items():
    key = name if fn == "~" else f"{os.path.basename(fn)}:{name}"
    parts[key] = parts.get(key, 0.0) + tt
print(f"import of sealscope.core.ledger: {imported:.3f}s")
print(f"one thread: {one:.3f}s")
for k, v in sorted(parts.items(), key=lambda kv: -kv[1])[:8]:
    print(f"  {v:7.3f}s {100 * v / one:5.1f}%  {k}")
for w in (2,):
    c, t = time.process_time(), time.perf_counter()
    verify(path, workers=w)
    wall, cpu = time.perf_counter() - t, time.process_time() - c
    print(f"{w} threads: {wall:.3f}s wall, {cpu:.3f}s CPU ({cpu / one:.2f}x one thread's)")
"""


def profile(path: Path) -> int:
    """Where verify's time goes (see the module's docstring)."""
    t = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    start = time.perf_counter() - t
    print(f"ledger: {path} ({path.stat().st_size / 1e6:.0f} MB)")
    print(f"load: {os.popen('uptime').read().strip()}")
    print(f"interpreter start (python -c pass): {start:.3f}s")
    out = subprocess.run(
        [sys.executable, "-c", PROFILE, str(path)], capture_output=True, text=True, check=True
    )
    print(out.stdout, end="")
    print(f"hash floor (one core): {hash_floor(path):.3f}s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
