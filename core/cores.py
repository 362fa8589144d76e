"""The cores a walk may use, and the read buffer each of its threads gets.

A walk or a hash over a large file runs on as many threads as the process may run on
(`usable`: its CPU affinity, which a container's or `taskset`'s limit narrows, else the
machine's count). Memory does not grow with the threads: they share one budget of read
buffer bytes (`BUFFER_BUDGET`), each thread's read (`read_bytes`) a share of it, never
more than `MAX_READ` nor less than `MIN_READ`; threads beyond `MAX_THREADS` would only
shrink every read further, so no pool has more.
"""

from __future__ import annotations

import os

__all__ = ["BUFFER_BUDGET", "MAX_READ", "MIN_READ", "MAX_THREADS", "usable", "read_bytes", "clamp"]

BUFFER_BUDGET = 16 << 20  # every thread's read buffer together
MAX_READ = 8 << 20  # one thread's read, however few threads share the budget
MIN_READ = BUFFER_BUDGET // 64  # 256 KiB: many reads of less cost more than they save
MAX_THREADS = BUFFER_BUDGET // MIN_READ


def usable() -> int:
    """How many cores this process may run on (at least 1)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not every platform has affinity
        return max(1, os.cpu_count() or 1)


def clamp(threads: int) -> int:
    """A pool's thread count: `threads`, at least 1 and at most `MAX_THREADS`."""
    return max(1, min(int(threads), MAX_THREADS))


def read_bytes(threads: int) -> int:
    """One thread's read buffer when `threads` share `BUFFER_BUDGET`."""
    return max(MIN_READ, min(MAX_READ, BUFFER_BUDGET // clamp(threads)))
