"""Process pools started from inside the running app.

While the app runs, Textual's stand-in for `sys.stderr` reports file descriptor -1.
multiprocessing starts its resource tracker (a helper process) at a pool's first
semaphore and hands it `sys.stderr.fileno()`: -1 fails the start ("bad value(s) in
fds_to_keep"), so every pool the app starts would fail. `pools_ready()` starts the
tracker once with that stand-in's descriptor hidden; the tracker then keeps the
process's own stderr, and every later pool of the process finds it running.
"""
from __future__ import annotations

import sys
import threading
from multiprocessing import resource_tracker
from typing import Any

__all__ = ["pools_ready"]

_lock = threading.Lock()


class _NoDescriptor:
    """A stream as it is, but for a file descriptor it does not have."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def fileno(self) -> int:
        raise OSError("no file descriptor")


def pools_ready() -> None:
    """Make sure this process can start process pools (see the module)."""
    with _lock:
        err = sys.stderr
        try:
            usable = err is not None and err.fileno() >= 0
        except (OSError, ValueError, AttributeError):
            usable = False
        if usable:
            resource_tracker.ensure_running()
            return
        sys.stderr = _NoDescriptor(err)
        try:
            resource_tracker.ensure_running()
        finally:
            sys.stderr = err
