"""Shared CLI output: one JSON document on stdout, colour only on a terminal,
a progress bar on stderr only when stderr is a terminal."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable
from typing import Any

from sealscope.core.jsonio import dumps_output
from sealscope.core.sanitize import safe_json  # noqa: F401  # re-exported: callers import it from here
from sealscope.style import verdict_colour


def emit_json(doc: Any) -> None:
    """Exactly one UTF-8 JSON document on stdout, strict JSON (`dumps_output`)."""
    text = dumps_output(doc, indent=2)
    out = sys.stdout.buffer
    out.write(text.encode("utf-8", "backslashreplace") + b"\n")
    out.flush()


def use_colour(stream=None) -> bool:
    stream = stream or sys.stdout
    return stream.isatty() and "NO_COLOR" not in os.environ


def paint(text: str, style: str, stream=None) -> str:
    """ANSI-colour `text` (already sanitized) when the stream is a terminal."""
    if not use_colour(stream):
        return text
    codes = {
        "green": "32",
        "red": "31",
        "yellow": "33",
        "bold": "1",
        "dim": "2",
        "cyan": "36",
        "magenta": "35",
    }
    return f"\x1b[{codes.get(style, '0')}m{text}\x1b[0m"


def paint_verdict(word: str, stream=None) -> str:
    """A verdict word in its tone's colour (`sealscope.style.verdict_colour`)."""
    return paint(word, verdict_colour(word), stream)


def progress_callback(label: str) -> Callable[[int, int], None] | None:
    """A `(done, total)` callback drawing a bar on stderr, or None without a terminal."""
    if not sys.stderr.isatty():
        return None
    state = {"last": 0.0}

    def draw(done: int, total: int) -> None:
        now = time.monotonic()
        if done < total and now - state["last"] < 0.1:
            return
        state["last"] = now
        frac = (done / total) if total else 1.0
        width = 30
        fill = int(frac * width)
        sys.stderr.write(f"\r{label} [{'#' * fill}{'.' * (width - fill)}] {frac * 100:5.1f}%")
        if done >= total:
            sys.stderr.write("\r" + " " * (len(label) + width + 12) + "\r")
        sys.stderr.flush()

    return draw


_GUARD: list[str] = []  # the run's stop-commands token, once GitHub output began


def guard_commands(token: str) -> None:
    """From now on (a `--format github` run), every error line is written between
    `::stop-commands::TOKEN` and `::TOKEN::`, so nothing in it runs as a command."""
    _GUARD[:] = [token]


def end_guard() -> None:
    """The run that began GitHub output has ended: error lines are plain again."""
    _GUARD.clear()


def error_line(message: str) -> None:
    """`sealscope: MESSAGE` on stderr (already sanitized); inside a stop-commands pause
    in a GitHub run (`guard_commands`)."""
    text = f"sealscope: {message}\n"
    if _GUARD:
        text = f"::stop-commands::{_GUARD[0]}\n{text}::{_GUARD[0]}::\n"
    sys.stderr.write(text)
