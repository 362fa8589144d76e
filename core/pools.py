"""The worker processes sealscope starts: one start method, and a resource tracker that
can start under any host.

Every pool is started from `spawn_context()`: spawn, so a worker inherits nothing of a
parent that runs threads (the viewer's workers, a Dask client). multiprocessing starts
its resource tracker (a helper process) at a pool's first semaphore and hands it
`sys.stderr.fileno()`; a host that replaces `sys.stderr` with a stream reporting
descriptor -1 (Textual does while an app runs) makes that start fail ("bad value(s) in
fds_to_keep"), and every pool with it. `spawn_context()` then starts the tracker first,
with that descriptor hidden, so the tracker keeps the process's own stderr.
"""

from __future__ import annotations

import multiprocessing
import sys
import threading
from multiprocessing import resource_tracker
from multiprocessing.context import SpawnContext
from typing import Any

__all__ = ["spawn_context"]

_lock = threading.Lock()


class _NoDescriptor:
    """A stream as it is, but for a file descriptor it does not have."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)

    def fileno(self) -> int:
        raise OSError("no file descriptor")


def _has_descriptor(stream: Any) -> bool:
    try:
        return stream is not None and stream.fileno() >= 0
    except (OSError, ValueError, AttributeError):
        return False


def spawn_context() -> SpawnContext:
    """The context every pool of sealscope starts from (see the module)."""
    with _lock:
        err = sys.stderr
        if not _has_descriptor(err):
            sys.stderr = _NoDescriptor(err)
            try:
                resource_tracker.ensure_running()
            finally:
                sys.stderr = err
    return multiprocessing.get_context("spawn")
