"""The real `sealscope` command in a pseudo-terminal, read through a terminal emulator
(pyte): what a user's terminal would show, and every byte the process wrote."""

from __future__ import annotations

import fcntl
import os
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from collections.abc import Callable, Mapping

import pyte

DEADLINE = 180.0  # a safety net against a hang, not a timing assertion


class Terminal:
    """`python -m sealscope ARGS` on a new pseudo-terminal of `cols`×`rows`, with `env`
    as its whole environment (no TERM or COLORTERM of its own)."""

    def __init__(
        self, args: list[str], env: Mapping[str, str], cols: int = 100, rows: int = 30
    ) -> None:
        master, slave = os.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", rows, cols, 0, 0))
        try:
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "sealscope", *args],
                stdin=slave,
                stdout=slave,
                stderr=slave,
                env=dict(env),
                start_new_session=True,
                close_fds=True,
            )
        except OSError:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.master = master
        self.raw = b""  # every byte written so far
        self.screen = pyte.Screen(cols, rows)
        self._stream = pyte.ByteStream(self.screen)

    @property
    def shown(self) -> str:
        """The terminal's screen now, one line per row."""
        return "\n".join(self.screen.display)

    def _read(self, wait: float) -> bool:
        """Read what is there (waiting up to `wait` s for it); False at the end."""
        ready, _, _ = select.select([self.master], [], [], wait)
        if not ready:
            return True
        try:
            got = os.read(self.master, 65536)
        except OSError:  # the other side is closed: the process has gone
            return False
        if not got:
            return False
        self.raw += got
        self._stream.feed(got)
        return True

    def until(self, pred: Callable[[Terminal], bool], what: str) -> None:
        """Read the output until `pred(self)` holds (AssertionError naming `what` when
        the process ends first or the safety net runs out)."""
        end = time.monotonic() + DEADLINE
        while not pred(self):
            if time.monotonic() > end or not self._read(0.2):
                tail = self.raw[-800:].decode("utf-8", "replace")
                raise AssertionError(f"never {what}: {tail}")

    def press(self, keys: bytes) -> None:
        os.write(self.master, keys)

    def signal(self, signum: int) -> None:
        self.proc.send_signal(signum)

    def wait(self) -> int:
        """Read everything until the process ends; its exit status."""
        end = time.monotonic() + DEADLINE
        while self.proc.poll() is None and time.monotonic() < end:
            self._read(0.2)
        while select.select([self.master], [], [], 0)[0] and self._read(0):
            pass  # what it wrote before it ended
        return self.proc.wait(timeout=30)

    def close(self) -> None:
        os.close(self.master)
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGKILL)
            self.proc.wait()

    def __enter__(self) -> Terminal:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def base_env(**changes: str | None) -> dict[str, str]:
    """This process's environment with `changes` (None: unset), colours as a colour
    terminal has them unless changed."""
    env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor")
    for name in ("NO_COLOR", "TEXTUAL_COLOR_SYSTEM", "FORCE_COLOR"):
        env.pop(name, None)
    for name, value in changes.items():
        if value is None:
            env.pop(name, None)
        else:
            env[name] = value
    return env


# what a terminal setting changes, as the environment a user would have
TERMINALS: dict[str, dict[str, str | None]] = {
    "NO_COLOR=1": {"NO_COLOR": "1"},
    "NO_COLOR empty": {"NO_COLOR": ""},
    "TERM=dumb": {"TERM": "dumb", "COLORTERM": None},
    "COLORTERM unset": {"COLORTERM": None},
    "16 colours": {"TERM": "xterm-16color", "COLORTERM": None},
}


def no_traceback(raw: bytes) -> bool:
    """Nothing Python or Textual prints for an error: no traceback, no warning."""
    return b"Traceback" not in raw and b"Warning" not in raw
