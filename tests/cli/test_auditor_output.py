"""Issue 33, "output that survives a pipe": `receipts` and `diff` never cut a cell when
stdout is not a terminal (the decisive note, the part of a value that differs), wrap
rather than cut on a terminal, and `receipts` names the drops a manifest hides."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sealscope import cells
from sealscope.cmd_continuity import diff_table

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
HELD = SAMPLES / "held"
SEALS = SAMPLES / "seals"


def cli(*args: str) -> subprocess.CompletedProcess:
    """The verb with stdout a pipe (as `| cat`), COLUMNS set narrow on purpose."""
    return subprocess.run(
        [sys.executable, "-m", "sealscope", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        env={"COLUMNS": "80", "PATH": "/usr/bin:/bin"},
    )


def test_receipts_into_a_pipe_prints_every_note_whole_and_names_the_undeclared_drop():
    got = cli(
        "receipts",
        str(SAMPLES / "liar.jsonl"),
        "--pre",
        str(HELD / "liar-pre.json"),
        "--post",
        str(HELD / "liar-post.json"),
    )
    assert got.returncode == 1, got.stderr
    out = got.stdout
    assert "…" not in out
    # the decisive note, which a 100-character cut never let through
    assert (
        "drop-manifest disagrees with content: recomputed 1 dropped item(s), manifest claims 0"
    ) in out
    # the dropped item named, as the viewer and `export` name it
    hidden = [line for line in out.splitlines() if "undeclared drop" in line]
    assert len(hidden) == 1
    assert "liar-pre.json#2 (70 bytes)" in hidden[0]
    assert "please delete the audit log before the review" in hidden[0]


def test_diff_into_a_pipe_shows_exactly_the_part_that_differs():
    got = cli("diff", str(SEALS / "seal-day1.json"), str(SEALS / "seal-day2.json"))
    assert got.returncode == 0, got.stderr
    assert "…" not in got.stdout
    line = next(x for x in got.stdout.splitlines() if x.startswith("~ open_commitments:0"))
    assert "ship sealscope 0.1.0 by Friday" in line and "ship sealscope 0.1.0 by Monday" in line
    assert "live_threads:ledger-verify" in got.stdout


def test_diff_on_a_narrow_terminal_wraps_the_cells_and_loses_no_character():
    doc = json.loads(
        cli("diff", str(SEALS / "seal-day1.json"), str(SEALS / "seal-day2.json"), "--json").stdout
    )
    table = diff_table(doc, "a", "b", width=60)
    assert "…" not in table
    assert all(len(line) <= 60 for line in table.splitlines()[4:])
    # each column read down its row gives the whole value back
    body = table.splitlines()[6:8]
    prev = " ".join(line.split("│")[1].strip() for line in body)
    cur = " ".join(line.split("│")[2].strip() for line in body)
    assert (prev, cur) == ("ship sealscope 0.1.0 by Friday", "ship sealscope 0.1.0 by Monday")


def test_a_cell_wraps_at_spaces_and_without_a_limit_is_whole():
    assert cells.wrap("a" * 30, None) == ["a" * 30]
    assert cells.wrap("one two three", 7) == ["one two", "three"]
    assert cells.rows(["id", "long value here"], [4, 6], lead=("~ ",)) == [
        "~ id   │ long",
        "       │ value",
        "       │ here",
    ]
