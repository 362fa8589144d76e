"""`sealscope demo`: a self-running, narrated audit in a fresh temporary workspace.

The story and its checks are `sealscope.viewer.demo`; the evidence is written by the
core (`sealscope.viewer.demo_story`) into `tempfile.mkdtemp()`, removed at the end,
on `q`, Ctrl-C, SIGTERM/SIGHUP or a failed step. `--record FILE` runs the demo in a
pseudo-terminal this process owns and writes what it prints as an asciicast v2 file
(`sealscope.demo_record`). Exit 0 when every step's check held, 1 when one did not.
"""

from __future__ import annotations

import argparse

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
        "demo",
        help="a self-running, narrated audit (Space pause, → rush the step, q quit)",
        description="Run a narrated audit in a fresh temporary workspace: an agent's ledger "
        "written live, a compaction receipt, a continuity seal, an attacker's "
        "in-place edit caught, a hidden drop found in held content, two seals "
        "diffed, the report exported. Keys: Space pauses/resumes, → rushes "
        "through the rest of the step (its actions still happen, without "
        "pauses), q quits.",
    )
    p.add_argument(
        "--speed", type=_speed, default=1.0, metavar="X", help="divide every pause by X (default 1)"
    )
    p.add_argument("--step", action="store_true", help="wait for → after every step (for talks)")
    p.add_argument("--loop", action="store_true", help="start over at the end (for a booth)")
    p.add_argument(
        "--record",
        metavar="FILE",
        help="record the run as an asciicast v2 file (in a pseudo-terminal)",
    )
    p.add_argument(
        "--size",
        type=_size,
        default=None,
        metavar="COLSxROWS",
        help="terminal size of a --record run (default: this terminal's, at least 80x24)",
    )
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    if args.size is not None and not args.record:
        error_line("demo: --size sets the terminal of a --record run; it goes with --record FILE")
        return verdict.USAGE
    if args.record:
        from sealscope.core.sanitize import clean
        from sealscope.demo_record import record

        child = ["demo", "--speed", str(args.speed)]
        child += ["--step"] if args.step else []
        child += ["--loop"] if args.loop else []
        try:
            code = record(args.record, child, size=args.size)
        except OSError as e:
            error_line(clean(f"cannot record to {args.record}: {e}"))
            return verdict.COULD_NOT
        error_line(
            clean(
                f"demo: wrote {args.record} (an asciicast v2 recording; play "
                f"it with `asciinema play {args.record}`), exit {code}"
            )
        )
        return code
    from sealscope.viewer.demo import DemoApp
    from sealscope.viewer.signal_end import run_app

    app = DemoApp(speed=args.speed, step_mode=args.step, loop=args.loop)
    try:
        signalled = run_app(app, app.ending)  # SIGTERM/SIGHUP end it quietly
    except KeyboardInterrupt:
        return 130
    finally:
        app.cleanup()
    if signalled is not None:
        return signalled
    if app.failure:
        return verdict.WRONG
    return int(app.return_code or 0)
