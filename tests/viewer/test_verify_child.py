"""The verify child: `python -m sealscope.viewer.verify_child --follow PATH` as a real
child process, its result equal to `ledger.verify` in this process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from sealscope.core import ledger
from sealscope.viewer.verify_child import Cancelled, follow_in_child

from tests.viewer.viewer_helpers import SAMPLES


@pytest.mark.parametrize("name", ["session.jsonl", "tampered.jsonl", "declared-break.jsonl"])
def test_child_result_equals_verify_here(name):
    seen: list[tuple[int, int]] = []
    got = follow_in_child(SAMPLES / name, lambda d, t: seen.append((d, t)), lambda: False)
    want = ledger.verify(SAMPLES / name)
    assert got is not None and got[0] == want and got[1]["size"] == (SAMPLES / name).stat().st_size
    size = (SAMPLES / name).stat().st_size
    # the walk reports bytes, then the prefix hashing for polls carries the bar to its end
    assert (size, seen[-1][1]) in seen and seen[-1][0] == seen[-1][1] > size


def test_a_result_larger_than_a_pipe_buffer_comes_back(tmp_path):
    # 3,000 unlinked rows: 3,000 findings, a result of ~150 kB (a pipe holds 64 kB)
    p = tmp_path / "breaks.jsonl"
    with open(p, "w") as fh:
        for i in range(3000):
            fh.write(json.dumps({"tool": "t", "n": i, "chain": "sha256:" + "0" * 64}) + "\n")
    got = follow_in_child(p, lambda d, t: None, lambda: False)
    assert got is not None and got[0].verdict == "BROKEN" and len(got[0].findings) == 3000
    assert got[0] == ledger.verify(p)


def test_cancelled_at_the_first_progress_line():
    with pytest.raises(Cancelled):
        follow_in_child(SAMPLES / "session.jsonl", lambda d, t: None, lambda: True)


def test_run_as_a_module_without_a_path_is_a_usage_error():
    proc = subprocess.run(
        [sys.executable, "-m", "sealscope.viewer.verify_child"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert proc.returncode == 2 and proc.stdout == ""
    assert proc.stderr == "usage: python -m sealscope.viewer.verify_child --follow PATH\n"
