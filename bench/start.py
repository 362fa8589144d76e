"""How long `sealscope` takes to start: `sealscope --version` and `sealscope verify` of a
small ledger, each against a bare `python -c pass` of the same interpreter, whole
process (fork, interpreter start, `site`, imports, the verb's work, exit).

Each command runs `--runs` times (default 15), interleaved so the machine's load moves
all alike; the minimum and the median wall time of each are printed, and the median's
difference to the bare interpreter (what sealscope itself adds). The bar (issue 42):
each command in 50 ms or less, whole process. `--imports` also lists, from
`python -X importtime`, the modules each command imports beyond the bare interpreter,
with the ten that cost most (cumulative microseconds).

    python bench/start.py [--runs 15] [--imports]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BAR_S = 0.050


def sealscope_argv() -> list[str]:
    """The installed console script beside this interpreter, else `python -m`."""
    here = Path(sys.executable).parent / "sealscope"
    if here.is_file():
        return [str(here)]
    found = shutil.which("sealscope")
    return [found] if found else [sys.executable, "-m", "sealscope"]


def small_ledger(folder: Path) -> Path:
    from sealscope.core.ledger import GENESIS, link

    path = folder / "small.jsonl"
    prev = GENESIS
    with open(path, "w", encoding="utf-8") as fh:
        for n in range(20):
            row = {"i": n, "tool": "search"}
            prev = link(prev, row)
            fh.write(json.dumps({**row, "chain": prev}) + "\n")
    return path


def wall(argv: list[str]) -> float:
    t = time.perf_counter()
    subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    return time.perf_counter() - t


def imported(argv: list[str]) -> dict[str, int]:
    """Module → cumulative import microseconds, from `-X importtime`."""
    if argv[0] != sys.executable:  # the console script: run it through this interpreter
        argv = [sys.executable, *argv]
    argv = [argv[0], "-X", "importtime", *argv[1:]]
    err = subprocess.run(argv, capture_output=True, text=True, check=False).stderr
    out: dict[str, int] = {}
    for line in err.splitlines():
        if line.startswith("import time:") and "|" in line:
            _self, cum, name = line[len("import time:") :].split("|")
            if cum.strip().isdigit():
                out[name.strip()] = int(cum)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--imports", action="store_true")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        small = small_ledger(Path(tmp))
        cmds = {
            "python -c pass": [sys.executable, "-c", "pass"],
            "sealscope --version": [*sealscope_argv(), "--version"],
            "sealscope verify small.jsonl": [*sealscope_argv(), "verify", str(small)],
        }
        times: dict[str, list[float]] = {k: [] for k in cmds}
        for argv in cmds.values():  # warm the page cache
            wall(argv)
        for _ in range(args.runs):
            for name, argv in cmds.items():
                times[name].append(wall(argv))
        one, five, _ = os.getloadavg()
        print(f"{os.cpu_count()} cores; load {one:.2f}/{five:.2f}; {args.runs} runs each")
        bare = statistics.median(times["python -c pass"])
        worst = 0.0
        for name, ts in times.items():
            med = statistics.median(ts)
            extra = "" if name.startswith("python") else f"  (+{(med - bare) * 1e3:.0f} ms)"
            print(f"{name:>30}: min {min(ts) * 1e3:.0f} ms, median {med * 1e3:.0f} ms{extra}")
            if not name.startswith("python"):
                worst = max(worst, med)
        print(
            f"bar: each in {BAR_S * 1e3:.0f} ms or less, whole process: worst {worst * 1e3:.0f} ms"
        )
        if args.imports:
            base = imported(cmds["python -c pass"])
            for name, argv in list(cmds.items())[1:]:
                mods = {m: us for m, us in imported(argv).items() if m not in base}
                top = sorted(mods.items(), key=lambda kv: -kv[1])[:10]
                print(f"{name}: {len(mods)} modules beyond the bare interpreter; costliest:")
                for m, us in top:
                    print(f"  {us / 1e3:7.1f} ms  {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
