"""`sealscope watch LEDGER... [--strict] [--json] [--interval S] [--rehash S]`.

Follows ledgers as they grow: each new complete row is verified as it lands, from
the walk state of the last poll (never from byte 0). One line per new break,
declared break and compaction receipt, a status line whenever rows arrive, and a
loud line when a file is truncated, replaced or rewritten. Ctrl-C (SIGINT) or
SIGTERM ends it with the exit code of the worst verdict seen. While watching, a last
line without its line break is held back (a writer may be mid-line); the `stopped:`
verdict is the whole file's, as `verify` gives it, that line included, and says "a
partial last line (N bytes)" (`Follower.final`).

It polls (stat, then read from the last offset), as toolong's tail does, rather
than using watchfiles/inotify: no new dependency, the same behaviour on Linux and
macOS, and it sees appends on NFS and other network filesystems where kernel
change events are not delivered. A poll of an unchanged file is two stat calls
and a 4 KiB read.
"""

from __future__ import annotations

import argparse
import signal
import sys
import time

from sealscope.core import verdict
from sealscope.core.jsonio import dumps_output
from sealscope.output import error_line, paint, paint_verdict, progress_callback


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("watch", help="follow ledgers as they grow, verifying each new row")
    p.add_argument("ledgers", nargs="+", metavar="LEDGER")
    p.add_argument(
        "--strict",
        action="store_true",
        help="treat unchained rows as breaks and ignore declarations",
    )
    p.add_argument("--json", action="store_true", help="one JSON event per line")
    p.add_argument(
        "--interval",
        type=float,
        default=0.5,
        metavar="SECONDS",
        help="how often each file is polled (default 0.5)",
    )
    p.add_argument(
        "--rehash",
        type=float,
        default=30.0,
        metavar="SECONDS",
        help="re-hash the whole verified prefix at least this often (default 30)",
    )
    p.set_defaults(func=run)


class _Stop(Exception):
    pass


def _stop(_signum, _frame) -> None:
    raise _Stop


def run(args: argparse.Namespace) -> int:
    from sealscope.core.follow import Final, Follower
    from sealscope.core.verdict import worst

    if args.interval <= 0 or args.rehash <= 0:
        error_line("watch: --interval and --rehash must be positive")
        return verdict.USAGE
    out = _Out(args.json)
    followers = [Follower(p, strict=args.strict, rehash_seconds=args.rehash) for p in args.ledgers]
    seen: list[int] = []
    old = {s: signal.signal(s, _stop) for s in (signal.SIGINT, signal.SIGTERM)}
    try:
        for f in followers:
            res = f.open(on_progress=None if args.json else progress_callback(f"watch {f.path}"))
            seen.append(res.exit_code)
            if f.alarm is not None:
                out.alarm(f, f.alarm)
            else:
                out.status(f, "open")
        # a latched alarm is final (the file reports nothing more): once every file
        # has one, the watch is over
        while any(f.alarm is None for f in followers):
            time.sleep(args.interval)
            for f in followers:
                events = f.poll()
                if f.result is not None:
                    seen.append(f.result.exit_code)
                for ev in events:
                    if ev.kind == "grew":
                        continue
                    if f.alarm is ev:
                        out.alarm(f, ev)
                    else:
                        out.finding(f, ev)
                if events and f.alarm is None:
                    out.status(f, "grew", next((e.rows for e in events if e.kind == "grew"), 0))
    except (_Stop, KeyboardInterrupt):
        pass
    finally:
        # how each file ends, as `verify` reads it: a partial last line held back while
        # watching is now the file's last line
        try:
            finals = [f.final() for f in followers]
        except (_Stop, KeyboardInterrupt):  # asked again to stop: the verdicts known
            finals = [None if f.result is None else Final(f.result) for f in followers]
        for s, h in old.items():
            signal.signal(s, h)
        for f in followers:
            f.close()
    # every verdict seen, and the last ones (an alarm latches before it is printed)
    code = worst(seen + [e.result.exit_code for e in finals if e is not None])
    out.end(followers, finals, code)
    return code


class _Out:
    """Human lines or JSON events on stdout, one per line, flushed at once."""

    def __init__(self, as_json: bool):
        self.json = as_json

    def _emit(self, line: str) -> None:
        sys.stdout.write(line + "\n")
        sys.stdout.flush()

    def _event(self, doc: dict) -> None:
        self._emit(dumps_output(doc, ensure_ascii=True))

    def status(self, f, what: str, new: int = 0) -> None:
        from sealscope.core.sanitize import clean

        r = f.result
        if self.json:
            self._event(
                {
                    "event": what,
                    "path": f.path,
                    "verdict": r.verdict,
                    **r.to_dict(),
                    "new_rows": new,
                    "rows_since_open": f.rows_added,
                }
            )
            return
        line = (
            f"{paint_verdict(r.verdict)}  {clean(f.path)}  rows={r.rows:,}"
            f"{f' (+{new:,})' if what == 'grew' else ''} breaks={r.breaks} "
            f"scope={r.verified_scope}"
        )
        if r.declared_breaks:
            line += f" declared={r.declared_breaks}"
        if what == "open":
            line += "  following"
            if r.first_break:
                line += f"\n  first break: {clean(r.first_break)}"
        self._emit(line)

    def finding(self, f, ev) -> None:
        from sealscope.core.sanitize import clean

        if self.json:
            self._event({"event": ev.kind, "path": f.path, "line": ev.line, "text": ev.text})
            return
        word = {
            "break": paint("BREAK", "red"),
            "declared": paint("DECLARED", "yellow"),
            "receipt": paint("RECEIPT", "cyan"),
        }.get(ev.kind, ev.kind.upper())
        self._emit(f"  {word}  {clean(f.path)}  {clean(ev.text)}")

    def alarm(self, f, ev) -> None:
        from sealscope.core.sanitize import clean

        if self.json:
            self._event(
                {
                    "event": ev.kind,
                    "path": f.path,
                    "text": ev.text,
                    "rows_gone": ev.rows,
                    "verdict": f.result.verdict,
                }
            )
            return
        self._emit(
            paint(f"!! {ev.kind.upper()} while open: {clean(f.path)}: {clean(ev.text)}", "red")
        )

    def end(self, followers, finals, code: int) -> None:
        if self.json:
            ended = [(f, e) for f, e in zip(followers, finals, strict=True) if e is not None]
            doc = {
                "event": "stopped",
                "exit_code": code,
                "verdicts": {f.path: e.result.verdict for f, e in ended},
            }
            partial = {f.path: e.partial for f, e in ended if e.partial}
            if partial:  # bytes of a last line without its line break, per file
                doc["partial_bytes"] = partial
            self._event(doc)
            return
        from sealscope.core.sanitize import clean

        for f, e in zip(followers, finals, strict=True):
            if e is None:
                continue
            r = e.result
            line = (
                f"stopped: {paint_verdict(r.verdict)}  {clean(f.path)}  rows={r.rows:,} "
                f"(+{f.rows_added:,} while watched)"
            )
            if e.partial:
                line += f"  a partial last line ({e.partial:,} bytes)"
            if r.first_break and r.exit_code != f.result.exit_code:
                line += f"\n  first break: {clean(r.first_break)}"
            self._emit(line)
