"""`sealscope demo --record FILE`: the demo run in a pseudo-terminal this process owns,
every byte it writes timestamped into an asciicast v2 file.

asciicast v2 (the format asciinema, asciinema-player, svg-term and agg read): a first
line holding a JSON header object (`version` 2, `width`, `height`, `timestamp`, `title`,
`env`), then one JSON array per output chunk, `[seconds since start, "o", text]`, the
times monotonic (`time.monotonic`). Standard library only: `pty`, `select`, `termios`.
While recording on a terminal, the run is shown there too and the keys typed reach
the demo (Space, →, q).
"""

from __future__ import annotations

import codecs
import fcntl
import os
import select
import shutil
import signal
import struct
import subprocess
import sys
import termios
import time
import tty
from typing import IO, Any

from sealscope.core.jsonio import dumps_output

__all__ = ["record", "spawn", "header"]

TERM = "xterm-256color"
TITLE = "sealscope demo"


def header(cols: int, rows: int, started: float) -> dict[str, Any]:
    return {
        "version": 2,
        "width": cols,
        "height": rows,
        "timestamp": int(started),
        "title": TITLE,
        "env": {"TERM": TERM, "SHELL": os.environ.get("SHELL", "/bin/sh")},
    }


def spawn(
    args: list[str], cols: int, rows: int, env: dict[str, str] | None = None
) -> tuple[subprocess.Popen[bytes], int]:
    """`python -m sealscope ARGS` on a new pseudo-terminal of cols×rows: the process
    and the master side's file descriptor (the caller closes it)."""
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
    child_env = dict(os.environ if env is None else env)
    child_env.update(TERM=TERM, COLORTERM="truecolor", COLUMNS=str(cols), LINES=str(rows))
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", "sealscope", *args],
            stdin=slave,
            stdout=slave,
            stderr=slave,
            env=child_env,
            start_new_session=True,
            close_fds=True,
        )
    except OSError:
        os.close(master)
        raise
    finally:
        os.close(slave)
    return proc, master


def _size(size: tuple[int, int] | None) -> tuple[int, int]:
    if size is not None:
        return size
    got = shutil.get_terminal_size((100, 30))
    return max(80, got.columns), max(24, got.lines)


def record(
    path: str | os.PathLike[str], args: list[str], size: tuple[int, int] | None = None
) -> int:
    """Run `sealscope ARGS` in a pseudo-terminal, writing the asciicast to `path`;
    the run's exit code."""
    cols, rows = _size(size)
    show = sys.stdout.isatty()
    keys = sys.stdin.fileno() if sys.stdin.isatty() else None
    with open(path, "w", encoding="utf-8") as out:
        proc, master = spawn(args, cols, rows)
        saved = termios.tcgetattr(keys) if keys is not None else None
        try:
            if keys is not None:
                tty.setraw(keys)
            _pump(proc, master, out, cols, rows, keys, show)
        except KeyboardInterrupt:
            proc.send_signal(signal.SIGTERM)
        finally:
            if saved is not None and keys is not None:
                termios.tcsetattr(keys, termios.TCSADRAIN, saved)
            os.close(master)
            try:
                code = proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                proc.kill()
                code = proc.wait()
    return code


def _pump(
    proc: subprocess.Popen[bytes],
    master: int,
    out: IO[str],
    cols: int,
    rows: int,
    keys: int | None,
    show: bool,
) -> None:
    t0 = time.monotonic()
    out.write(dumps_output(header(cols, rows, time.time()), ensure_ascii=True) + "\n")
    decode = codecs.getincrementaldecoder("utf-8")(errors="replace")
    watch = [master] + ([keys] if keys is not None else [])
    while True:
        ready, _, _ = select.select(watch, [], [], 0.5)
        if keys is not None and keys in ready:
            data = os.read(keys, 1024)
            if data:
                os.write(master, data)
        if master in ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                data = b""
            if not data:
                break
            text = decode.decode(data)
            if text:
                at = round(time.monotonic() - t0, 6)
                out.write(dumps_output([at, "o", text]) + "\n")
            if show:
                os.write(sys.stdout.fileno(), data)
        elif not ready and proc.poll() is not None:
            break
    tail = decode.decode(b"", final=True)
    if tail:
        out.write(
            dumps_output([round(time.monotonic() - t0, 6), "o", tail], ensure_ascii=True) + "\n"
        )
