"""core.pools: a pool starts even where sys.stderr reports no file descriptor (as
Textual's stand-in does while an app runs); multiprocessing alone fails there."""

from __future__ import annotations

import subprocess
import sys

HOST = """
import sys
class NoFd:
    def write(self, s): return len(s)
    def flush(self): pass
    def fileno(self): return -1
sys.stderr = NoFd()
if sys.argv[1] == "core":
    from sealscope.core.pools import spawn_context
    ctx = spawn_context()
else:
    import multiprocessing
    ctx = multiprocessing.get_context("spawn")
try:
    with ctx.Pool(1) as pool:
        print(pool.apply(abs, (-3,)))
except ValueError as e:
    print(f"failed: {e}")
"""


def _run(how: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", HOST, how], capture_output=True, text=True, timeout=120, check=True
    ).stdout.strip()


def test_a_pool_starts_when_stderr_has_no_descriptor():
    assert _run("core") == "3"
    # the host this guards against: multiprocessing on its own cannot start a pool there
    assert _run("plain") == "failed: bad value(s) in fds_to_keep"
