"""`export` refuses flags and targets by one rule on every path it takes (issue 28):
a ledger or snapshot, a kind `check` knows, a folder. The same misuse gets the same
sentence and exit 2 whichever path the file takes, and nothing is written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sealscope.core import verdict
from sealscope.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
LEDGER = SAMPLES / "session.jsonl"
RECEIPT = SAMPLES / "kinds" / "receipt.json"


def _export(capsys: pytest.CaptureFixture[str], *args: object) -> tuple[int, str]:
    code = main(["export", *map(str, args)])
    out, err = capsys.readouterr()
    assert out == ""
    return code, err


def test_a_flag_for_another_kind_is_refused_alike_on_both_paths(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, err = _export(capsys, LEDGER, "--restated", RECEIPT)
    assert code == verdict.USAGE
    assert f"--restated applies to a snapshot, and {LEDGER} reads as a ledger" in err
    assert "(use --as snapshot to insist)" in err
    code, err = _export(capsys, RECEIPT, "--pin", "x")
    assert code == verdict.USAGE
    assert f"--pin applies to a ledger, and {RECEIPT} is receipt evidence" in err
    code, err = _export(capsys, RECEIPT, "--pin", "x", "--against", LEDGER)
    assert code == verdict.USAGE and "--pin, --against apply to a ledger or a snapshot" in err


def test_a_target_is_refused_alike_on_every_path(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    nowhere = tmp_path / "no-such-folder" / "report.md"
    for path in (LEDGER, RECEIPT):
        code, err = _export(capsys, path, "--output", nowhere)
        assert code == verdict.USAGE and "(export creates no folders)" in err, path
    folder = tmp_path / "ledgers"
    (folder / "sub").mkdir(parents=True)
    shutil.copy(LEDGER, folder / "session.jsonl")
    inside = folder / "sub" / "report.md"  # not only a direct child: anywhere inside
    code, err = _export(capsys, folder, "--output", inside)
    assert code == verdict.USAGE and "into the folder it audits" in err
    assert not inside.exists() and not nowhere.parent.exists()
