"""`build_report` reports its progress as one run and stops when asked (`Cancelled`);
`missing_folder` is why a report cannot be written where asked."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest
from sealscope.core import export, ledger

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"

_spec = importlib.util.spec_from_file_location(
    "bench_make_ledger", ROOT / "bench" / "make_ledger.py"
)
assert _spec is not None and _spec.loader is not None
make_ledger = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(make_ledger)


@pytest.fixture(scope="module")
def big(tmp_path_factory) -> Path:
    """~9 MB with a receipt row every 500 rows: more than one window of the scan."""
    return make_ledger.write(tmp_path_factory.mktemp("big") / "big.jsonl", 25000)


@pytest.mark.parametrize("given", [True, False], ids=["verdict given", "walked here"])
def test_progress_is_one_run_that_ends_at_its_total(big, given):
    seen: list[tuple[int, int]] = []
    res = ledger.verify(big) if given else None
    report = export.build_report(
        big, kind="ledger", verify_result=res, on_progress=lambda d, t: seen.append((d, t))
    )
    size = big.stat().st_size
    whole = size * (1 if given else 2)
    assert {t for _d, t in seen} == {whole}
    assert [d for d, _t in seen] == sorted(d for d, _t in seen)
    assert seen[-1] == (whole, whole) and any(0 < d < size for d, _t in seen)
    assert len(report.receipts) == 50 and report.verdict == "VERIFIED"


def test_cancelled_stops_the_report_in_the_scan(big):
    seen: list[int] = []
    asked = []

    def cancelled() -> bool:
        asked.append(1)
        return bool(seen)  # once the first window of the scan is reported

    with pytest.raises(export.Cancelled):
        export.build_report(
            big,
            kind="ledger",
            verify_result=ledger.verify(big),
            on_progress=lambda d, t: seen.append(d),
            cancelled=cancelled,
        )
    assert len(seen) == 1 and seen[0] < big.stat().st_size
    with pytest.raises(export.Cancelled):  # asked before anything is read
        export.build_report(SAMPLES / "session.jsonl", cancelled=lambda: True)
    got = export.build_report(SAMPLES / "session.jsonl", cancelled=lambda: False)
    assert got.verdict == "VERIFIED"


def test_missing_folder(tmp_path):
    assert export.missing_folder(tmp_path / "report.md") is None
    assert (
        export.missing_folder(tmp_path / "no" / "report.md")
        == f"the folder {tmp_path / 'no'} does not exist"
    )
    (tmp_path / "file").write_text("x")
    assert (
        export.missing_folder(tmp_path / "file" / "report.md")
        == f"{tmp_path / 'file'} is not a folder"
    )
