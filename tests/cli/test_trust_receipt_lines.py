"""`receipts` numbers a receipt row by the line it is on, as the verifier numbers
lines: a stand-alone receipt file (kind `receipt`) after blank lines is on the line its
document starts on, and a ledger's receipt rows are where `check` puts them. The
reference's numbering is its ledger verifier's: the same layout with the row made to
break (`arcaeon.record.ledger.verify_file`) names the row's line."""

from __future__ import annotations

import json
import re
from pathlib import Path

import arcaeon.record.ledger as rledger
import pytest
from sealscope.core import checks, kinds
from sealscope.core.receipt import build_row
from sealscope.main import main

ROW = build_row(["a", "b", "c"], ["a"], "c", "m:v1", opened_at="2026-11-30T02:38:06Z")
LEADS = ["\n", "\n\n", "\r\n  \n", " \t\n\r"]


def _reference_line(tmp_path: Path, lead: str) -> int:
    """The row's line by the reference verifier: the same layout, the row chained wrongly."""
    probe = tmp_path / "probe.jsonl"
    probe.write_text(lead + json.dumps(dict(ROW, chain="x")) + "\n", encoding="utf-8")
    found = re.match(r"line (\d+):", rledger.verify_file(str(probe)).first_break or "")
    assert found, "the probe row must break"
    return int(found.group(1))


def _receipts(capsys, path: Path, *more: str) -> tuple[int, list[dict]]:
    code = main(["receipts", str(path), "--json", *more])
    return code, json.loads(capsys.readouterr().out)


@pytest.mark.parametrize("lead", LEADS)
def test_a_receipt_file_after_blank_lines_is_on_its_own_line(tmp_path, capsys, lead):
    want = _reference_line(tmp_path, lead)
    assert want > 1
    for doc in (json.dumps(ROW), json.dumps(ROW, indent=2)):  # one line or pretty
        rec = tmp_path / "receipt.json"
        rec.write_text(lead + doc + "\n", encoding="utf-8")
        assert kinds.identify(str(rec)).kind == kinds.RECEIPT
        code, got = _receipts(capsys, rec)
        assert code == 0 and [r["line"] for r in got] == [want]
        code, picked = _receipts(capsys, rec, "--line", str(want))
        assert code == 0 and [r["line"] for r in picked] == [want]


def test_a_ledgers_receipt_rows_are_where_check_puts_them(tmp_path, capsys):
    led = tmp_path / "l.jsonl"
    led.write_text(
        "\n\r\n" + json.dumps({"op": "start"}) + "\n\n" + json.dumps(ROW) + "\n",
        encoding="utf-8",
    )
    _code, got = _receipts(capsys, led)
    [res] = checks.run([str(led)])
    rows = [e["line"] for e in res.rows_checked if e["check"] == "compaction-receipt"]
    assert [r["line"] for r in got] == rows == [5]
