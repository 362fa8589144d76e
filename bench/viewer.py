"""Viewer benchmark: time to first screen and peak RSS on a 1,000,000-row ledger.

Builds `bench/out/verify-1m.jsonl` (~380 MB) unless it is already there, then runs the
viewer headless (`app.run_test()`), and prints: seconds from start to the first screen
with rows rendered, seconds until the chain verdict arrives, when the overview strip is
complete (the verify-to-strip delay), when the tab's one receipt/seal marker scan ended
and how many bytes it read (its own thread's reads: one pass is 1.00x the file; the
strip's bins read nothing), time for a burst of page scrolls, how long `kind:` filters
take, and peak RSS of this process and of its largest child (the verifier's pool).

Cold start: in fresh processes, alternately, the time from the first line of the
program (imports included) to the first screen of the viewer on the ledger, and to the
first screen of a bare Textual app that shows one line (the floor); prints the median
of each and their ratio (the target is at most 1.5x), twice: in this environment as it
is, and with every module's bytecode compiled (as a pip install leaves it; an editable
install under PYTHONDONTWRITEBYTECODE compiles sealscope's sources at every start).

    python bench/viewer.py [--rows N] [--path FILE] [--cold-runs 5] [--cold-only]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
DEFAULT = HERE / "out" / "verify-1m.jsonl"


def build(path: Path, rows: int) -> None:
    """A chained ledger of `rows` tool-call rows, ~380 bytes each, written in bulk
    (the chain computed with the core's `link`, so it verifies)."""
    from sealscope.core.jsonio import dumps_row
    from sealscope.core.ledger import GENESIS, link

    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    prev = GENESIS
    pad = "x" * 180
    with open(tmp, "w", encoding="utf-8") as fh:
        out = []
        for i in range(rows):
            row = {
                "tool": "search" if i % 3 else "fetch",
                "args": {"query": f"question number {i}", "page": i % 17},
                "result": {"status": "ok", "n": i, "note": pad},
                "agent": "bench-agent-7",
                "ts": f"2026-01-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z",
            }
            row["chain"] = prev = link(prev, row)
            out.append(dumps_row(row))
            if len(out) >= 10000:
                fh.write("\n".join(out) + "\n")
                out.clear()
        if out:
            fh.write("\n".join(out) + "\n")
    os.replace(tmp, path)


def read_chars(who: str = "self") -> int:
    """Bytes read through read/pread so far (rchar of /proc/WHO/io: "self" is this
    process and the children it has reaped, "thread-self" the calling thread only; a
    map's page faults are not counted); -1 where unavailable."""
    try:
        with open(f"/proc/{who}/io", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("rchar:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return -1


# One cold start, in a fresh process: seconds from the program's first line (before any
# import) to the first screen drawn (a row of the ledger, drawn by the first paint or the
# row list, with the app built as `sealscope FILE` builds it; or the bare app's one line).
COLD = r"""
import time
t0 = time.perf_counter()
import asyncio
import sys
which, path = sys.argv[1], sys.argv[2]
if which == "bare":
    from textual.app import App
    from textual.widgets import Static

    class Line(Static):
        drawn = 0

        def render_line(self, y):
            Line.drawn += 1
            return super().render_line(y)

    class Bare(App):
        def compose(self):
            yield Line("one line")

    app = Bare()
    ready = lambda: Line.drawn > 0
else:
    from sealscope.cmd_view import viewer_app
    app = viewer_app([path])     # as `sealscope FILE` makes it

    def ready():   # a row of the ledger drawn: by the first paint, or the row list
        first = app.first_paint if app.is_running else None
        if first is not None:
            return first.rows_drawn > 0
        tab = app.current_tab() if app.is_running else None
        rows = getattr(tab, "rows", None) if tab is not None else None
        return rows is not None and rows.rendered_rows > 0


async def main():
    async with app.run_test(size=(120, 36)):
        while not ready():
            await asyncio.sleep(0.002)
        print(time.perf_counter() - t0, flush=True)

asyncio.run(main())
"""


def cold_start(
    path: Path, runs: int, env: dict[str, str] | None = None, warm_up: bool = False
) -> tuple[float, float]:
    """Median seconds to the first screen: (the viewer on `path`, a bare Textual app),
    each in `runs` fresh processes, alternating so both see the same machine, in
    environment `env` (this one by default); `warm_up` runs each once first, unmeasured."""
    got: dict[str, list[float]] = {"viewer": [], "bare": []}
    for i in range(runs + warm_up):
        for which in ("bare", "viewer"):
            out = subprocess.run(
                [sys.executable, "-c", COLD, which, str(path)],
                env=env,
                capture_output=True,
                text=True,
                check=True,
                timeout=300,
            )
            if i >= warm_up:
                got[which].append(float(out.stdout.split()[0]))
    return statistics.median(got["viewer"]), statistics.median(got["bare"])


def cold_start_compiled(path: Path, runs: int) -> tuple[float, float]:
    """`cold_start` with every module's bytecode already compiled, as a pip install
    leaves it (an editable install from a source tree, or PYTHONDONTWRITEBYTECODE,
    compiles sealscope's sources again at every start): the children keep their
    bytecode under a temporary PYTHONPYCACHEPREFIX, the same for both apps, filled by
    one unmeasured run of each; nothing is written beside the sources."""
    with tempfile.TemporaryDirectory(prefix="sealscope-pycache-") as cache:
        env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
        env["PYTHONPYCACHEPREFIX"] = cache
        return cold_start(path, runs, env=env, warm_up=True)


async def filter_time(app, tab, spec: str) -> tuple[float, int]:
    """Seconds from asking for filter `spec` to its rows being shown, and their count."""
    t1 = time.perf_counter()
    tab.apply_filter(spec)
    while tab.rows.view is None or tab.filter_label != spec:
        await asyncio.sleep(0.01)
    took = time.perf_counter() - t1
    n = len(tab.rows.view)
    tab.action_clear_filter()
    return took, n


def peak_rss_mb() -> tuple[float, float]:
    me = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    kids = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return me, kids


async def measure(path: Path) -> dict:
    from sealscope.viewer.app import SealscopeApp
    from sealscope.viewer.row_list import RowList
    from sealscope.viewer.source import LedgerSource

    out: dict = {}
    scan = LedgerSource.marked_rows

    def counted_scan(self, *a, **kw):
        """The marker scan, with the bytes its own thread read and when it ended."""
        before = read_chars("thread-self")
        found = scan(self, *a, **kw)
        out["scan_bytes"] = out.get("scan_bytes", 0) + read_chars("thread-self") - before
        out["scan_done_s"] = time.perf_counter() - t0
        return found

    LedgerSource.marked_rows = counted_scan
    t0 = time.perf_counter()
    app = SealscopeApp([path])
    async with app.run_test(size=(120, 36)) as pilot:
        rows = None
        while True:
            rows = app.query(RowList)
            if rows and rows.first().rendered_rows > 0:
                break
            await asyncio.sleep(0.005)
        out["first_screen_s"] = time.perf_counter() - t0
        lst = rows.first()
        while not lst.source.complete and time.perf_counter() - t0 < 60:
            await asyncio.sleep(0.01)
        out["indexed_s"] = time.perf_counter() - t0
        t1 = time.perf_counter()
        lst.focus()
        for key in ["pagedown"] * 20 + ["end", "home", "pagedown"]:
            await pilot.press(key)
        await pilot.pause()
        out["scroll_23_keys_s"] = time.perf_counter() - t1
        # raw render cost, no Pilot overhead: 20 uncached screens of rows
        t1 = time.perf_counter()
        for k in range(20):
            lst.scroll_to(y=(k * 37_337) % max(1, lst.count - 40), animate=False, immediate=True)
            for y in range(34):
                lst.render_line(y)
        out["render_20_screens_s"] = time.perf_counter() - t1
        t1 = time.perf_counter()
        lst.cursor_to_line(min(500_000, lst.line_count))
        await pilot.pause()
        out["jump_to_500000_s"] = time.perf_counter() - t1
        tab = app.current_tab()
        while (
            tab.result is None
            and tab.banner.state not in ("cancelled", "error")
            and time.perf_counter() - t0 < 300
        ):
            await asyncio.sleep(0.05)
        out["verified_s"] = time.perf_counter() - t0
        # the overview strip: complete once the verdict is in and the marker scan is done
        strip = tab.strip
        while (
            time.perf_counter() - t0 < 300
            and tab.result is not None
            and (tab.series is None or {"pending", "walked"} & set(strip.bin_classes()))
        ):
            await asyncio.sleep(0.01)
        out["strip_s"] = time.perf_counter() - t0
        out["strip_classes"] = sorted(set(strip.bin_classes()))
        out["read_bytes"] = read_chars()  # this process and its reaped verify child
        out["verdict"] = (
            tab.result.verdict if tab.result else (f"none ({tab.reading_state}: {tab.message})")
        )
        out["rows"] = lst.line_count
        out["filters"] = [
            (spec, *await filter_time(app, tab, spec))
            for spec in ("kind:compaction_receipt", "kind:note", "kind:tool_call")
        ]
        t1 = time.perf_counter()
        for key in ["pagedown"] * 20 + ["end", "home", "pagedown"]:
            await pilot.press(key)
        await pilot.pause()
        out["scroll_after_s"] = time.perf_counter() - t1
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=1_000_000)
    ap.add_argument("--path", type=Path, default=DEFAULT)
    ap.add_argument(
        "--cold-runs", type=int, default=5, help="fresh processes for each cold start (median)"
    )
    ap.add_argument(
        "--cold-only", action="store_true", help="measure only the cold start against the floor"
    )
    args = ap.parse_args()
    if not args.path.exists():
        t = time.perf_counter()
        build(args.path, args.rows)
        mb = args.path.stat().st_size / 1e6
        print(f"built {args.path} ({mb:.0f} MB) in {time.perf_counter() - t:.1f}s")
    size = args.path.stat().st_size
    viewer_s, bare_s = cold_start(args.path, args.cold_runs)
    how = (
        "no bytecode cache: sources compiled at each start"
        if os.environ.get("PYTHONDONTWRITEBYTECODE")
        else "this environment's bytecode"
    )
    print(
        f"cold start to the first screen (median of {args.cold_runs} fresh processes, "
        f"imports included, {how}): viewer {viewer_s:.3f}s, bare Textual app showing one "
        f"line {bare_s:.3f}s: ratio {viewer_s / bare_s:.2f}x the floor (target <= 1.5x)"
    )
    viewer_s, bare_s = cold_start_compiled(args.path, args.cold_runs)
    print(
        f"cold start to the first screen (median of {args.cold_runs} fresh processes, "
        f"imports included, bytecode compiled as installed): viewer {viewer_s:.3f}s, "
        f"bare {bare_s:.3f}s: ratio {viewer_s / bare_s:.2f}x the floor (target <= 1.5x)"
    )
    if args.cold_only:
        return 0
    res = asyncio.run(measure(args.path))
    me, kids = peak_rss_mb()
    print(f"file: {args.path} ({size / 1e6:.0f} MB, {res['rows']:,} lines)")
    print(f"first screen with rows rendered: {res['first_screen_s']:.3f}s")
    print(f"line index complete:             {res['indexed_s']:.3f}s")
    print(f"23 scroll keys (pgdn/end/home):  {res['scroll_23_keys_s']:.3f}s")
    print(f"same 23 keys after the verdict:  {res['scroll_after_s']:.3f}s")
    print(f"render 20 fresh screens (34 rows): {res['render_20_screens_s']:.3f}s")
    print(f"jump to line 500,000:            {res['jump_to_500000_s']:.3f}s")
    print(f"verdict {res['verdict']} after:       {res['verified_s']:.3f}s")
    print(
        f"overview strip complete after:   {res['strip_s']:.3f}s "
        f"(verify-to-strip delay {res['strip_s'] - res['verified_s']:.3f}s; "
        f"bins: {', '.join(res['strip_classes'])})"
    )
    print(
        f"receipt/seal marker scan ended:  {res.get('scan_done_s', -1):.3f}s, read "
        f"{res.get('scan_bytes', 0) / 1e6:.0f} MB ({res.get('scan_bytes', 0) / size:.2f}x "
        f"the file: one pass; the strip's bins read nothing)"
    )
    print(
        f"all reads so far: {res['read_bytes'] / 1e6:.0f} MB "
        f"({res['read_bytes'] / size:.2f}x the file: this process and its reaped verify "
        f"child: the verify walk, the marker scan, follow mode's re-hash, ...)"
    )
    for spec, took, n in res["filters"]:
        print(f"filter {spec}: {took:.2f}s ({n:,} rows)")
    print(f"peak RSS: this process {me:.0f} MB, largest child {kids:.0f} MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
