"""SIGTERM (what `timeout`, a service manager or a closing terminal sends) ends the real
`sealscope demo` and `sealscope` at any point of their lives quietly: no traceback, the
terminal given back, 128 + 15 as a shell reports it (or, before Python has started,
the default death by the signal), and the demo's workspace removed. Each point is an
event read from the terminal's output, not a time."""

from __future__ import annotations

import signal

import pytest
from terminal_run import Terminal, base_env, no_traceback

ENTERED = b"\x1b[?1049h"  # the app takes the terminal: its start has begun
LEFT = b"\x1b[?1049l"

# where in the app's life the signal comes: what has been written by then
POINTS = {
    "right after start": None,  # at once: Python may not even have started
    "while starting": lambda t: ENTERED in t.raw,
    "first frame": lambda t: b"sealscope" in t.raw[t.raw.find(ENTERED) :] and ENTERED in t.raw,
}
AFTER_FIRST_SCREEN = {
    "demo": lambda t: "1/9" in t.shown,
    "view": lambda t: any(
        "VERIFIED" in line and "session.jsonl" in line for line in t.screen.display
    ),
}
ARGS = {"demo": ["demo", "--speed", "1"], "view": []}


@pytest.mark.parametrize("point", [*POINTS, "after the first screen"])
@pytest.mark.parametrize("verb", list(ARGS))
def test_sigterm_ends_it_quietly(tmp_path, verb, point):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = base_env(TMPDIR=str(tmp))
    with Terminal(ARGS[verb], env) as term:
        pred = AFTER_FIRST_SCREEN[verb] if point == "after the first screen" else POINTS[point]
        if pred is not None:
            term.until(pred, f"reached the point {point!r}")
        term.signal(signal.SIGTERM)
        term.signal(signal.SIGCONT)  # as GNU timeout sends them
        code = term.wait()
        raw = term.raw
    assert no_traceback(raw), raw[-3000:].decode("utf-8", "replace")
    if pred is None:
        assert code in (-signal.SIGTERM, 128 + signal.SIGTERM)
    else:
        assert code == 128 + signal.SIGTERM
    if ENTERED in raw:
        assert raw.rfind(LEFT) > raw.rfind(ENTERED)  # the terminal is given back
    assert list(tmp.iterdir()) == []  # the demo's workspace is gone
