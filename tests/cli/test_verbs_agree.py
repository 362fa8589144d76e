"""Issue 28, one truth: every verb that judges a ledger as a whole (`export`, its CI
formats and VSA, a `fleet` entry and its VSA) gives the same word and exit code for the
same file, and `receipts` agrees wherever the chain holds (it judges receipt rows only).

The files: every sample ledger, and a chain that holds with a compaction receipt that
fails. Among them a bounded receipt (session), a declared break, a break (tampered)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.core import ledger

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
EXE = Path(sys.executable).parent / "sealscope"


def run(*argv: str) -> subprocess.CompletedProcess:
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    return subprocess.run(
        [*cmd, *argv],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _failing_receipt(path: Path) -> Path:
    """A chain our core writes (VERIFIED) whose one receipt row fails on its own."""
    for line in (SAMPLES / "session.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row.get("kind") == "compaction_receipt" and row.get("schema_version") != 1:
            row.pop("chain", None)
            break
    row["receipt_digest"] = "json-c14n-v1:sha256:" + "0" * 64
    ledger.append(path, {"op": "start", "ts": "2026-03-01T09:00:00Z"})
    ledger.append(path, row)
    return path


CASES = {  # file → the one answer every verb gives
    "session.jsonl": ("VERIFIED", 0),  # two receipts ok within a bound
    "tampered.jsonl": ("BROKEN", 1),  # a break
    "declared-break.jsonl": ("COULD NOT LOOK", 3),  # a declared break
    "truncated.jsonl": ("VERIFIED", 0),
    "liar.jsonl": ("VERIFIED", 0),  # its receipt holds without content
    "hostile.jsonl": ("VERIFIED", 0),
    "failing-receipt.jsonl": ("BROKEN", 1),  # a chain that holds, a receipt that fails
}


@pytest.fixture
def evidence(tmp_path: Path):
    def path_of(name: str) -> Path:
        if name == "failing-receipt.jsonl":
            return _failing_receipt(tmp_path / name)
        return SAMPLES / name

    return path_of


def _vsa_result(path: Path) -> tuple[str, int, str]:
    doc = json.loads(path.read_text())
    (r,) = doc["predicate"]["sealscope"]["results"]
    return r["verdict"], r["exit_code"], doc["predicate"]["verificationResult"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_verb_gives_one_word_and_one_code(name, evidence, tmp_path):
    word, code = CASES[name]
    path = evidence(name)
    passed = "PASSED" if code == 0 else "FAILED"

    exp = run("export", str(path), "--format", "json")
    doc = json.loads(exp.stdout)
    assert (doc["verdict"], doc["exit_code"], exp.returncode) == (word, code, code), exp.stderr

    gh = run("export", str(path), "--format", "github", "--vsa", str(tmp_path / "e.vsa"))
    assert gh.returncode == code, gh.stderr
    assert _vsa_result(tmp_path / "e.vsa") == (word, code, passed)

    fl = run("fleet", str(path), "--json", "--vsa", str(tmp_path / "f.vsa"))
    entry, summary = (json.loads(line) for line in fl.stdout.splitlines())
    assert (entry["verdict"], entry["exit_code"], fl.returncode) == (word, code, code)
    assert summary["summary"]["exit_code"] == code
    assert _vsa_result(tmp_path / "f.vsa") == (word, code, passed)

    rc = run("receipts", str(path), "--json")
    rows = json.loads(rc.stdout)
    if rows and ledger.verify(path).ok:  # receipts judges the rows; here they decide
        assert rc.returncode == code, rc.stdout
    elif not rows:
        assert rc.returncode == 3  # no receipt row: nothing claimed, could not look


def test_fleet_orders_worst_first_once_in_every_output(tmp_path):
    """The step summary's table lists the ledgers in the fleet's own order
    (`fleet.worst_first`), not re-sorted by another rule (issue 28)."""
    import os

    from tests.cli.test_fleet import make_tree

    root = tmp_path / "fleet"
    root.mkdir()
    make_tree(root)
    human = run("fleet", str(root))
    order = [  # each entry's line names its path (an unreadable one says only why)
        tok
        for ln in human.stdout.splitlines()
        if not ln.startswith(" ")
        for tok in ln.split()[1:]
        if tok.startswith(str(root))
    ]
    summary = tmp_path / "summary.md"
    env = dict(os.environ, GITHUB_STEP_SUMMARY=str(summary))
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    gh = subprocess.run(
        [*cmd, "fleet", str(root), "--format", "github"],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert gh.returncode == human.returncode == 1
    table = [ln for ln in summary.read_text().splitlines() if ln.startswith("| **")]
    assert [ln.split("`")[1] for ln in table] == order
    # a chain that holds with a failing receipt (0 breaks) after the broken chains
    assert order[2].endswith("liar-receipt.jsonl") and len(order) == 7
