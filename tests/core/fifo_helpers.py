"""FIFOs handed to readers, and files swapped for one between a stat and the open.

`returns(call)` runs the call in a thread and reports whether it came back: a reader
that opened a FIFO would wait for a writer forever, so a call still running after the
join is a reader that blocked (it is then let through, so no thread is left behind).
`swapped_after_stat` makes the race deterministic: the real stat of the path runs, then
the path is replaced (by a FIFO or a folder) before the caller's open; `fifo_in_place`
puts a FIFO there before the stat or after it."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any


def returns(call: Callable[[], Any], fifo: Path) -> tuple[bool, Any]:
    """(whether `call()` came back, its result or the exception it raised)."""
    out: dict[str, Any] = {}

    def run() -> None:
        try:
            out["value"] = call()
        except BaseException as e:  # noqa: BLE001 - the test reads what was raised
            out["value"] = e

    t = threading.Thread(target=run, daemon=True)
    t.start()
    t.join(timeout=10)
    came_back = not t.is_alive()
    if not came_back:  # a reader waits on the FIFO: a writer's open lets it through
        try:
            os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
        except OSError:
            pass
        t.join(timeout=10)
    return came_back, out.get("value")


def swapped_after_stat(monkeypatch: Any, path: Path, replacement: Path) -> None:
    """The first stat of `path` sees it as it is; `replacement` (a FIFO or a folder)
    then takes its place, before the open that follows the stat."""
    real_stat = os.stat
    done: list[bool] = []

    def stat_then_swap(p: Any, *args: Any, **kwargs: Any) -> os.stat_result:
        st = real_stat(p, *args, **kwargs)
        if not done and os.fsdecode(p) == str(path):
            done.append(True)
            if replacement.is_dir():
                os.unlink(path)
                os.rename(replacement, path)
            else:
                os.replace(replacement, path)
        return st

    monkeypatch.setattr(os, "stat", stat_then_swap)


def fifo_in_place(monkeypatch: Any, path: Path, when: str) -> None:
    """Make the reader of `path` (a regular file now) find a FIFO there: already `"at
    the stat"`, or only `"after the stat"` (the stat sees the file, the open the FIFO)."""
    fifo = path.with_name(path.name + ".fifo")
    os.mkfifo(fifo)
    if when == "at the stat":
        os.replace(fifo, path)
    else:
        swapped_after_stat(monkeypatch, path, fifo)
