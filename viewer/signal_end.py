"""A viewer app run that SIGTERM or SIGHUP ends quietly, at any point of its life.

The signal never throws into the app. Its handler hands the request to the app
(`SignalEnd.request`), which exits from its own loop once it has shown its first frame
(`events.Ready`, `SignalEnd.ready`), at once when it already has: a start half done is
never torn down under Textual's widgets (a Header whose title is being set as its
children go, a driver leaving application mode it has not entered). A signal that comes
before the app's loop runs is held the same way, and one after the loop has stopped
finds nothing left to end. SIGCONT gets a no-op handler at once: GNU `timeout` sends
SIGTERM then SIGCONT, and Textual's SIGCONT handler, run once its loop is gone, would
resume the terminal and fail. The run then ends with 128 + the signal's number, as a
shell reports it, and prints nothing.
"""

from __future__ import annotations

import asyncio
import signal
from types import FrameType
from typing import Any

from textual.app import App

__all__ = ["SignalEnd", "run_app", "ENDING_SIGNALS"]

ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)


def _continued(_signum: int, _frame: FrameType | None) -> None:
    """SIGCONT once the app is ending: nothing to resume (the process continues
    whatever the handler)."""


class SignalEnd:
    """An app's end by a signal: the code asked for, and whether the app can exit now."""

    def __init__(self, app: App[Any]) -> None:
        self.app = app
        self.signum = 0  # the first ending signal received (0: none)
        self.shown = False  # the app has shown its first frame

    @property
    def code(self) -> int | None:
        """128 + the signal's number, or None when no ending signal came."""
        return 128 + self.signum if self.signum else None

    def handler(self, signum: int, _frame: FrameType | None) -> None:
        """The signal handler: note the signal, and end the app from its loop."""
        self.signum = self.signum or signum
        # a no-op, not SIG_DFL: a SIGCONT already pending finds a handler to run
        # (Python refuses a pending signal whose handler became SIG_DFL meanwhile)
        signal.signal(signal.SIGCONT, _continued)
        loop = asyncio._get_running_loop()
        if loop is not None:
            loop.call_soon_threadsafe(self.request)
        # no loop yet: `ready` ends the app once it has shown its first frame;
        # no loop any more: the app has ended

    def request(self) -> None:
        """End the app now if it has shown its first frame (else when it does)."""
        if self.shown and self.code is not None:
            self.app.exit(None, self.code)

    def ready(self) -> None:
        """The app has shown its first frame (its `on_ready`)."""
        self.shown = True
        self.request()


def run_app(app: App[Any], ending: SignalEnd) -> int | None:
    """Run `app` with SIGTERM and SIGHUP ending it through `ending` (the app calls
    `ending.ready()` on `events.Ready`); the previous handlers are put back after.
    The signal's exit code (`SignalEnd.code`), or None when the app ended otherwise."""
    old = {s: signal.signal(s, ending.handler) for s in ENDING_SIGNALS}
    try:
        app.run()
    finally:
        for s, h in old.items():
            signal.signal(s, h)
    return ending.code
