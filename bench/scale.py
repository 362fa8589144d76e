"""Scale benchmark: the viewer and `verify` on a 1M-row and a 10M-row ledger.

The ledgers are written by `make_ledger.py` (realistic mixed rows, a receipt every 500)
into a cache outside the repository (`~/.cache/sealscope-bench`, or `--cache`), once:
the 10M-row one is ~3.7 GB and takes a few minutes to write. For each size, each in a
fresh process:

- first screen: seconds from the program's first line (imports included) to a row of
  the ledger drawn, the app built as `sealscope FILE` builds it (`bench/viewer.py`'s
  cold start; median of `--cold-runs`), beside a bare Textual app showing one line,
  every size and the bare app alternating in the same minutes (the load moves);
- the viewer headless (`app.run_test()`): when the line index is complete, when the
  chain's verdict is in, when the overview strip is complete; what the banner's
  progress said at a quarter, half and three quarters of the verify phase (a truthful
  bar reads about 25/50/75 on this linear walk); then the UI process's RSS once
  everything is indexed and verified (after a garbage collection), its peak, and bytes
  per row (RSS ÷ rows, and the growth over a 1,000-row ledger ÷ rows); the verify child
  is another process, its peak printed apart;
- keys (unless `--no-keys`), pressed while the file is still being indexed and again
  after: `End`, `g` to the last line but one, `b` and `n` (answered once verified: the
  bench ledger has no break, so "no breaks"), a search for a word on one line only and
  for one on ~3 % of the lines (with its "match k of n" count), and the overview strip's
  `m 5` (the middle of the file): for each, when it was done and whether it landed;
- `verify` (`bench/verify.py`'s child: `ledger.verify` in a fresh process, peak RSS of
  it and its pool) and the hash floor (one core hashing the file with OpenSSL SHA-256 in
  a fresh interpreter), with the 10M ÷ 1M time ratio at the end (linear is 10x).

`--ledger PATH...` measures the viewer and `verify` on the given ledgers as well (or,
with `--only-given`, on those alone): e.g. the shared bench ledger, a receipt every ~20
rows (`python ../shared/bench/gen_ledger.py /tmp/bench-1m.jsonl 1000000 7`), where the
viewer's RSS once verified is printed per row and the receipt points it keeps per
receipt (`PointColumns.nbytes`).

Never run by the tests. Other work on the machine changes every figure: the load
average (`uptime`) is printed before and after.

    python bench/scale.py [--quick] [--rows 1000000 10000000] [--cache DIR]
                          [--cold-runs 9] [--no-keys] [--ledger PATH...] [--only-given]
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "sealscope-bench"

# One viewer run in a fresh process; prints one JSON object. argv: path, keys (0/1).
VIEWER = r"""
import time
t0 = time.perf_counter()
import asyncio, gc, json, resource, sys
path, keys = sys.argv[1], sys.argv[2] == "1"
from sealscope.cmd_view import viewer_app

def status(key):
    with open("/proc/self/status") as fh:
        for line in fh:
            if line.startswith(key + ":"):
                return int(line.split()[1]) * 1024
    return -1

app = viewer_app([path])
out = {}
samples = []       # (seconds, banner state, banner pct) while indexing/verifying

def tab_now():
    tab = app.current_tab() if app.is_running and app.first_paint is None else None
    return tab if tab is not None and hasattr(tab, "rows") else None

async def wait(pred, limit=3600.0):
    end = time.perf_counter() + limit
    while not pred():
        tab = tab_now()
        if tab is not None:
            state, pct = tab.banner.state, tab.pct  # the percent the banner shows
            if not samples or samples[-1][1:] != (state, pct):
                samples.append((time.perf_counter() - t0, state, pct))
        if time.perf_counter() > end:
            return False
        await asyncio.sleep(0.005)
    return True

def shown():
    first = app.first_paint if app.is_running else None
    if first is not None:
        return first.rows_drawn > 0
    tab = tab_now()
    return tab is not None and tab.rows.rendered_rows > 0

def notes():
    return [n.message for n in app._notifications]

async def press_keys(pilot, tab, when):
    # each key's result: (what, seconds from the press to done, landed)
    got = []
    rl = tab.rows
    def phase():
        return ("indexing" if not tab.source.complete else
                "verifying" if tab.result is None else "verified")
    async def one(what, keys_, done, landed):
        at = phase()
        t = time.perf_counter()
        for k in keys_:
            await pilot.press(k)
        ok = await wait(done, 3600)
        got.append((what, at, time.perf_counter() - t, bool(ok and landed())))
    n = int(sys.argv[3])
    rl.focus()
    await one("End", ["end"], lambda: tab.source.complete and rl.current_line == rl.shown_lines,
              lambda: rl.current_line == n)
    await one("home", ["home"], lambda: rl.current_line == 1, lambda: True)
    target = n - 1
    await one(f"g {target}", ["g", *str(target), "enter"],
              lambda: rl.current_line == target, lambda: True)
    for key, said in (("b", "no breaks"), ("n", "no later break")):
        before = len(notes())
        await one(key, [key], lambda: any(said in m for m in notes()[before:]),
                  lambda: tab.result is not None)
    for word, line in ((f'"step": {n - 2},', n - 1), ("Ωmega willow", None)):
        tab.rows.cursor_to_line(1)
        await pilot.pause()
        at = phase()
        t = time.perf_counter()
        await pilot.press("slash")
        await wait(lambda: app.screen.id == "search-prompt", 60)
        from textual.widgets import Input
        app.screen.query_one(Input).value = word
        await pilot.press("enter")
        fd = tab.finder
        ok = await wait(lambda: fd.search_at is not None and fd.search_count is not None
                        and fd.search_count[0][0] == word, 3600)
        landed = ok and (line is None or tab.finder.search_at == line)
        got.append((f"search {word!r} ({tab.finder._match_words() if ok else '?'})", at,
                    time.perf_counter() - t, bool(landed)))
        tab.finder.search_at, tab.finder.search_count = None, None
    rl.focus()
    await pilot.press("m")
    await pilot.pause()
    at = phase()
    t = time.perf_counter()
    await pilot.press("5")
    ok = await wait(lambda: abs(rl.current_line - rl.shown_lines // 2) <= rl.shown_lines // 50
                    + 2, 60)
    got.append(("strip m 5 (middle)", at, time.perf_counter() - t,
                bool(ok) and tab.source.complete))
    await pilot.press("enter")
    await pilot.pause()
    out["keys_" + when] = got

async def main():
    async with app.run_test(size=(120, 36)) as pilot:
        await wait(shown)
        out["first_screen_s"] = time.perf_counter() - t0
        await wait(lambda: tab_now() is not None)
        tab = tab_now()
        if keys:
            out["complete_at_keys"] = tab.source.complete
            await press_keys(pilot, tab, "while_indexing")
        await wait(lambda: tab.source.complete)
        out["indexed_s"] = time.perf_counter() - t0
        await wait(lambda: tab.result is not None or tab.banner.state in ("cancelled", "error"))
        out["verified_s"] = time.perf_counter() - t0
        out["verdict"] = tab.result.verdict if tab.result is not None else tab.banner.state
        strip = tab.strip
        await wait(lambda: tab.series is not None
                   and not {"pending", "walked"} & set(strip.bin_classes()))
        out["strip_s"] = time.perf_counter() - t0
        out["rows"] = tab.rows.shown_lines
        if keys:
            await press_keys(pilot, tab, "after")
        await pilot.pause()
        gc.collect()
        out["rss"] = status("VmRSS")
        out["peak"] = status("VmHWM")
        out["child_peak"] = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024
        out["findings_bytes"] = tab.rows.findings.nbytes()
        out["offsets_bytes"] = tab.source.offsets.itemsize * len(tab.source.offsets)
        out["receipts"] = len(tab.series or ())
        out["receipt_bytes"] = tab.series.nbytes() if hasattr(tab.series, "nbytes") else -1
    out["samples"] = samples

asyncio.run(main())
print(json.dumps(out))
"""


def ledger(cache: Path, rows: int) -> Path:
    """The cached `rows`-row bench ledger, written first if absent."""
    path = cache / f"ledger-{rows}.jsonl"
    if not path.exists():
        from make_ledger import write

        cache.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + ".tmp")
        t = time.perf_counter()
        print(f"writing {rows:,} rows to {path} (once; cached) ...", flush=True)
        write(tmp, rows)
        os.replace(tmp, path)
        print(f"  {path.stat().st_size / 1e9:.2f} GB in {time.perf_counter() - t:.0f}s", flush=True)
    return path


def viewer_run(path: Path, rows: int, keys: bool) -> dict:
    out = subprocess.run(
        [sys.executable, "-c", VIEWER, str(path), "1" if keys else "0", str(rows)],
        capture_output=True,
        text=True,
        check=False,
        timeout=7200,
    )
    if out.returncode != 0:
        raise SystemExit(f"viewer run failed: {out.stderr[-2000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def first_screens(paths: dict[int, Path], runs: int) -> tuple[dict[str, float], int]:
    """Median seconds to the first screen: the bare Textual app ("bare") and the viewer
    on each of `paths` (keyed by rows), each in `runs` fresh processes, all of them
    alternating in the same minutes, so the sizes are compared under the same load
    (`bench/viewer.py`'s cold-start child), the order turned by one each round: a run
    straight after a viewer's is measurably slower than one after the bare app's, so
    each takes every place in turn (use a multiple of three runs). A run that fails is
    retried once and counted (the second figure)."""
    from viewer import COLD

    runs_of = {"bare": Path(os.devnull), **{str(n): p for n, p in paths.items()}}
    got: dict[str, list[float]] = {k: [] for k in runs_of}
    failed = 0
    keys = list(runs_of)
    for r in range(runs):
        for key in keys[r % len(keys) :] + keys[: r % len(keys)]:
            path = runs_of[key]
            which = "bare" if key == "bare" else "viewer"
            for _attempt in range(2):
                out = subprocess.run(
                    [sys.executable, "-c", COLD, which, str(path)],
                    capture_output=True,
                    text=True,
                    timeout=300,
                    check=False,
                )
                if out.returncode == 0:
                    got[key].append(float(out.stdout.split()[0]))
                    break
                failed += 1
                print(f"  ({which} cold start failed: {out.stderr.strip()[-300:]})")
    return {k: statistics.median(v) for k, v in got.items() if v}, failed


def banner_truth(res: dict) -> str:
    """The banner's percent at 1/4, 1/2, 3/4 of the verify phase's wall time."""
    ver = [(t, p) for t, s, p in res["samples"] if s == "verifying"]
    if len(ver) < 2:
        return "too short to sample"
    t0, t1 = ver[0][0], res["verified_s"]
    said = []
    for q in (0.25, 0.5, 0.75):
        at = t0 + q * (t1 - t0)
        said.append(max((p for t, p in ver if t <= at), default=0.0))
    idx = [(t, p) for t, s, p in res["samples"] if s == "indexing"]
    mono = all(b[1] >= a[1] for a, b in itertools.pairwise(ver)) and all(
        b[1] >= a[1] for a, b in itertools.pairwise(idx)
    )
    last = ver[-1]
    return (
        f"reached {last[1]:.0f}% {t1 - last[0]:.1f}s before the verdict; "
        f"at 1/4, 1/2, 3/4 of the verify time it said {said[0]:.0f}%, {said[1]:.0f}%, "
        f"{said[2]:.0f}% ({len(ver)} updates; indexing {len(idx)}; "
        f"{'never went back' if mono else 'WENT BACK'})"
    )


def load() -> str:
    return os.popen("uptime").read().strip()


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, nargs="+", default=[1_000_000, 10_000_000])
    ap.add_argument("--quick", action="store_true", help="100,000 rows only, to try it")
    ap.add_argument("--cache", type=Path, default=CACHE)
    ap.add_argument("--cold-runs", type=int, default=9)
    ap.add_argument("--no-keys", action="store_true", help="skip the key presses")
    ap.add_argument("--ledger", type=Path, nargs="+", default=[], help="ledgers of your own")
    ap.add_argument("--only-given", action="store_true", help="the --ledger files alone")
    a = ap.parse_args()
    if a.only_given:
        return given_ledgers(a.ledger)
    sizes = [100_000] if a.quick else a.rows
    import verify as bench_verify

    print(f"load before: {load()}", flush=True)
    base = viewer_run(ledger(a.cache, 1_000), 1_000, keys=False)
    verify_s: dict[int, float] = {}
    paths = {rows: ledger(a.cache, rows) for rows in sizes}
    first, failed = first_screens(paths, a.cold_runs)
    print(
        f"first screen (fresh processes, imports included, median of {a.cold_runs} each, "
        f"all alternating): bare Textual app {first['bare']:.3f}s; "
        + "; ".join(
            f"viewer on {n:,} rows {first[str(n)]:.3f}s ({first[str(n)] / first['bare']:.2f}x)"
            for n in sizes
        )
        + (f"; {failed} failed run(s) retried" if failed else ""),
        flush=True,
    )
    for rows in sizes:
        path = paths[rows]
        size = path.stat().st_size
        print(f"\n== {rows:,} rows: {path} ({size / 1e9:.2f} GB)", flush=True)
        res = viewer_run(path, rows, keys=False)
        print(
            f"viewer: first screen {res['first_screen_s']:.2f}s, indexed "
            f"{res['indexed_s']:.1f}s, verdict {res['verdict']} {res['verified_s']:.1f}s, "
            f"strip complete {res['strip_s']:.1f}s",
            flush=True,
        )
        print(f"banner progress: {banner_truth(res)}")
        grow = res["rss"] - base["rss"]
        print(
            f"viewer RSS once indexed and verified: {res['rss'] / 1e6:.0f} MB = "
            f"{res['rss'] / rows:.1f} bytes a row ({grow / rows:.1f} a row over a 1,000-row "
            f"ledger's {base['rss'] / 1e6:.0f} MB; line offsets "
            f"{res['offsets_bytes'] / rows:.1f}); peak {res['peak'] / 1e6:.0f} MB; "
            f"verify child peak {res['child_peak'] / 1e6:.0f} MB",
            flush=True,
        )
        if not a.no_keys:
            keyed = viewer_run(path, rows, keys=True)
            print(
                "keys, pressed from the first screen on, then again once verified "
                "(what the tab was doing at the press; seconds to done):"
            )
            for when in ("while_indexing", "after"):
                for what, at, took, ok in keyed[f"keys_{when}"]:
                    print(f"  {what} [{at}]: {took:.2f}s, {'ok' if ok else 'WRONG'}")
            print(
                f"  RSS after the keys: {keyed['rss'] / 1e6:.0f} MB "
                f"({keyed['rss'] / rows:.1f} bytes a row), peak {keyed['peak'] / 1e6:.0f} MB",
                flush=True,
            )
        o = bench_verify.run_one("sealscope", path)
        floor = bench_verify.hash_floor(path)
        verify_s[rows] = o["wall"]
        peak_mb = (o["rss_self_kb"] + o["rss_child_kb"]) / 1024
        print(
            f"verify: {o['wall']:.2f}s, peak RSS {peak_mb:.0f} MB (its process and any child's), "
            f"{o['result']['rows']:,} rows ok={o['result']['ok']}; "
            f"hash floor (one core, SHA-256) {floor:.2f}s: {o['wall'] / floor:.2f}x the floor",
            flush=True,
        )
    if len(verify_s) > 1:
        lo, hi = min(verify_s), max(verify_s)
        print(
            f"\nfirst screen {hi:,} ÷ {lo:,} rows: {first[str(hi)] / first[str(lo)]:.2f}x "
            "(the goal: within 10 %)"
        )
        print(
            f"verify {hi:,} ÷ {lo:,} rows: {verify_s[hi] / verify_s[lo]:.1f}x (rows {hi / lo:.0f}x)"
        )
    given_ledgers(a.ledger)
    print(f"load after: {load()}")
    return 0


def given_ledgers(paths: list[Path]) -> int:
    """The viewer (no keys) and `verify` on each ledger given (`--ledger`)."""
    import verify as bench_verify

    for path in paths:
        with open(path, "rb") as fh:
            rows = sum(1 for _ in fh)
        print(f"\n== {path} ({path.stat().st_size / 1e6:.0f} MB, {rows:,} lines)", flush=True)
        print(f"load: {load()}", flush=True)
        res = viewer_run(path, rows, keys=False)
        n = max(1, res["receipts"])
        print(
            f"viewer: indexed {res['indexed_s']:.1f}s, verdict {res['verdict']} "
            f"{res['verified_s']:.1f}s, strip complete {res['strip_s']:.1f}s; RSS once "
            f"verified {res['rss'] / 1e6:.0f} MB = {res['rss'] / rows:.1f} bytes a row, peak "
            f"{res['peak'] / 1e6:.0f} MB; {res['receipts']:,} receipts kept in "
            f"{res['receipt_bytes'] / 1e6:.1f} MB = {res['receipt_bytes'] / n:.0f} bytes a "
            f"receipt; verify child peak {res['child_peak'] / 1e6:.0f} MB",
            flush=True,
        )
        o = bench_verify.run_one("sealscope", path)
        peak = (o["rss_self_kb"] + o["rss_child_kb"]) / 1024
        print(
            f"verify: {o['wall']:.2f}s, peak RSS {peak:.0f} MB, "
            f"{o['result']['rows']:,} rows ok={o['result']['ok']}",
            flush=True,
        )
    print(f"load: {load()}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
