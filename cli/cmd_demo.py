"""`sealscope demo`: a self-running, narrated audit in a fresh temporary workspace.

The story and its checks are `sealscope.viewer.demo`; the evidence is written by the
core (`sealscope.viewer.demo_story`) into `tempfile.mkdtemp()`, removed at the end,
on `q`, Ctrl-C, SIGTERM/SIGHUP or a failed step. `--record FILE` runs the demo in a
pseudo-terminal this process owns and writes what it prints as an asciicast v2 file
(`sealscope.demo_record`). Exit 0 when every step's check held, 1 when one did not.
"""
from __future__ import annotations

import argparse
import signal
from typing import Any

from sealscope.core import verdict
from sealscope.output import error_line


def _speed(text: str) -> float:
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a number: {text!r}") from None
    if not 0.05 <= v <= 1000:
        raise argparse.ArgumentTypeError("speed must be between 0.05 and 1000")
    return v


def _size(text: str) -> tuple[int, int]:
    w, _, h = text.lower().partition("x")
    if not (w.isdigit() and h.isdigit()) or int(w) < 80 or int(h) < 24:
        raise argparse.ArgumentTypeError("size is COLSxROWS, at least 80x24")
    return int(w), int(h)


def register(sub) -> None:
    p = sub.add_parser(
        "demo", help="a self-running, narrated audit (Space pause, → next, q quit)",
        description="Run a narrated audit in a fresh temporary workspace: an agent's ledger "
                    "written live, a compaction receipt, a continuity seal, an attacker's "
                    "in-place edit caught, a hidden drop found in held content, two seals "
                    "diffed, the report exported. Keys: Space pauses/resumes, → skips to "
                    "the next step, q quits.")
    p.add_argument("--speed", type=_speed, default=1.0, metavar="X",
                   help="divide every pause by X (default 1)")
    p.add_argument("--step", action="store_true",
                   help="wait for → after every step (for talks)")
    p.add_argument("--loop", action="store_true", help="start over at the end (for a booth)")
    p.add_argument("--record", metavar="FILE",
                   help="record the run as an asciicast v2 file (in a pseudo-terminal)")
    p.add_argument("--size", type=_size, default=None, metavar="COLSxROWS",
                   help="terminal size of a --record run (default: this terminal's, "
                        "at least 80x24)")
    p.set_defaults(func=run)


def _interrupt(signum: int, _frame: Any) -> None:
    raise KeyboardInterrupt(f"signal {signum}")


def run(args: argparse.Namespace) -> int:
    if args.record:
        from sealscope.demo_record import record
        child = ["demo", "--speed", str(args.speed)]
        child += ["--step"] if args.step else []
        child += ["--loop"] if args.loop else []
        try:
            return record(args.record, child, size=args.size)
        except OSError as e:
            error_line(f"cannot record to {args.record}: {e}")
            return verdict.COULD_NOT
    from sealscope.viewer.demo import DemoApp
    app = DemoApp(speed=args.speed, step_mode=args.step, loop=args.loop)
    old = {s: signal.signal(s, _interrupt) for s in (signal.SIGTERM, signal.SIGHUP)}
    try:
        app.run()
    except KeyboardInterrupt:
        return 130
    finally:
        app.cleanup()
        for s, h in old.items():
            signal.signal(s, h)
    if app.failure:
        return verdict.WRONG
    return int(app.return_code or 0)
