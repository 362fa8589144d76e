"""Issue 33, "CLI conventions": what a new user meets at the command line.

Each test runs the installed entry point's `main` (or the module as a process where the
terminal matters) on real files and checks the outcome a user sees."""

from __future__ import annotations

from pathlib import Path

from sealscope.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
TRANSCRIPT = SAMPLES / "harn" / "session-transcript.json"


# --------------------------------------------------------------------------- harn seal


def test_harn_seal_twice_is_refused_with_exit_2_unless_again(tmp_path, capsys):
    ledger = tmp_path / "out.jsonl"
    assert main(["harn", "seal", str(TRANSCRIPT), "--ledger", str(ledger)]) == 0
    first = ledger.read_bytes()
    capsys.readouterr()
    assert main(["harn", "seal", str(TRANSCRIPT), "--ledger", str(ledger)]) == 2
    err = capsys.readouterr().err
    assert f"already sealed in {ledger}: " in err and "--again" in err
    assert ledger.read_bytes() == first  # nothing appended
    assert main(["harn", "seal", str(TRANSCRIPT), "--ledger", str(ledger), "--again"]) == 0
    assert len(ledger.read_bytes().splitlines()) == 2 * len(first.splitlines())


def test_harn_seal_is_a_sub_command_of_its_own(capsys):
    try:
        main(["harn", "seal", "--help"])
    except SystemExit as e:
        assert e.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: sealscope harn seal ")
    assert "--again" in out and "exit codes:" in out
    try:
        main(["harn", "--help"])
    except SystemExit:
        pass
    assert "sealscope harn seal [-h] --ledger OUT.jsonl" in capsys.readouterr().out
