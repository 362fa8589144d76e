"""A ledger verified in a child process, so the UI thread keeps the GIL and the walk's
memory is the child's.

The child is this module run as a program, `python -m sealscope.viewer.verify_child
--follow PATH`: it opens a `follow.Follower` on PATH (`ledger.verify`'s walk), writes
progress to stderr as lines `done total` and `(result, snapshot)` (our own code's
pickle) to stdout, and exits 0. The parent side is `follow_in_child`: the tab takes
`verify`'s result and follows the file from where the child's walk ended. The child
imports only `sealscope.core` (and `viewer.lazy`, through which it reads the follower;
neither imports Textual).
"""

from __future__ import annotations

import pickle
import subprocess
import sys
import threading
from collections.abc import Callable
from os import PathLike

from sealscope.core.ledger import VerifyResult
from sealscope.viewer import lazy

__all__ = ["Cancelled", "follow_in_child", "main"]

MODULE = "sealscope.viewer.verify_child"


class Cancelled(Exception):
    """The caller cancelled the work in progress."""


def follow_in_child(
    path: str | PathLike[str], progress: Callable[[int, int], None], cancelled: Callable[[], bool]
) -> tuple[VerifyResult, dict] | None:
    """`ledger.verify(path)` in a child Python process, `progress(done, total)` called
    as its stderr reports: the child opens a `follow.Follower` and returns `verify`'s
    result with the follower's snapshot, which a follower here adopts (re-hashing the
    verified bytes) instead of walking. Raises `Cancelled` when `cancelled()` turns
    true (the child is killed); None when no child can run here or it did not finish."""
    got = _run_child(["--follow", str(path)], progress, cancelled)
    if (
        isinstance(got, tuple)
        and len(got) == 2
        and isinstance(got[0], VerifyResult)
        and isinstance(got[1], dict)
    ):
        return got
    return None


def _run_child(
    args: list[str], progress: Callable[[int, int], None], cancelled: Callable[[], bool]
) -> object:
    try:
        proc = subprocess.Popen(
            [sys.executable, "-m", MODULE, *args],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
    except (OSError, ValueError):
        return None
    stdout, stderr = proc.stdout, proc.stderr
    assert stdout is not None and stderr is not None
    # the result is read while progress is: a result larger than a pipe's buffer
    # (a ledger with thousands of findings) would otherwise block the child for ever
    got: list[bytes] = []
    reader = threading.Thread(target=lambda: got.append(stdout.read()), daemon=True)
    reader.start()
    try:
        for line in stderr:
            if cancelled():
                raise Cancelled()
            parts = line.split()
            if len(parts) == 2 and parts[0].isdigit() and parts[1].isdigit():
                progress(int(parts[0]), int(parts[1]))
        reader.join()
        out = got[0] if got else b""
        if proc.wait() != 0 or not out:
            return None
        return pickle.loads(out)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
        reader.join()
        stdout.close()
        stderr.close()


def _report(done: int, total: int) -> None:
    sys.stderr.write(f"{done} {total}\n")
    sys.stderr.flush()


def main(argv: list[str] | None = None) -> int:
    """The child: open a follower on the one path given, report progress, write the
    result (and the follower's snapshot, when it did not latch an alarm)."""
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 2 or args[0] != "--follow":
        sys.stderr.write(f"usage: python -m {MODULE} --follow PATH\n")
        return 2
    f = lazy.Follower(args[1])
    res = f.open(on_progress=_report)
    whole = f.whole if f.whole is not None else res
    out: object = (whole, f.snapshot()) if f.alarm is None else res
    f.close()
    sys.stdout.buffer.write(pickle.dumps(out))
    sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
