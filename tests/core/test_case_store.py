"""The case file on disk (issue 44): rows chained byte for byte as the reference's
`Ledger.append` writes them, appends that never interleave across processes, a torn
tail refused and repaired exactly, an edited row BROKEN for us and for the reference."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from arcaeon.record import ledger as ref_ledger
from sealscope.core.case import record, rows, store

ROOT = Path(__file__).resolve().parents[2]


def _new(tmp_path: Path, name: str = "case.jsonl") -> str:
    path = str(tmp_path / name)
    record.new_case(path, title="audit", by="ann")
    return path


def test_rows_are_the_bytes_the_reference_append_writes(tmp_path: Path) -> None:
    ours = tmp_path / "ours.jsonl"
    theirs = tmp_path / "theirs.jsonl"
    recs = [
        rows.new_row("opened", {"title": "t é", "by": None, "sealscope": "0", "ts": "T1"}),
        rows.new_row("note", {"text": "a \u202e b", "on": None, "by": None, "ts": "T2"}),
        rows.new_row("signoff", {"by": "bob", "statement": "ok", "ts": "T3"}),
    ]
    store.create(str(ours), recs[0])
    for r in recs[1:]:
        store.append(str(ours), r)
    ref = ref_ledger.Ledger(str(theirs))
    for r in recs:
        ref.append(dict(r))
    assert ours.read_bytes() == theirs.read_bytes()
    assert ref_ledger.verify_file(str(ours)).ok is True


def test_new_refuses_an_existing_file_and_a_missing_folder(tmp_path: Path) -> None:
    path = _new(tmp_path)
    before = Path(path).read_bytes()
    with pytest.raises(store.CaseError, match="already exists"):
        record.new_case(path)
    assert Path(path).read_bytes() == before
    with pytest.raises(store.CaseError, match="does not exist"):
        record.new_case(str(tmp_path / "no-such-folder" / "c.jsonl"))
    assert not (tmp_path / "no-such-folder").exists()


def test_appends_leave_no_file_beside_the_case(tmp_path: Path) -> None:
    path = _new(tmp_path)
    record.note(path, "one")
    assert sorted(os.listdir(tmp_path)) == ["case.jsonl"]


def test_a_missing_case_is_not_created_by_an_append(tmp_path: Path) -> None:
    with pytest.raises(store.CaseError, match="no such case"):
        record.note(str(tmp_path / "c.jsonl"), "x")
    assert not (tmp_path / "c.jsonl").exists()


_WRITER = """
import sys
from sealscope.core.case import record
for i in range(500):
    record.note(sys.argv[1], f"{sys.argv[2]} note {i}")
"""


def test_two_processes_appending_500_notes_each_lose_none(tmp_path: Path) -> None:
    path = _new(tmp_path)
    procs = [
        subprocess.Popen([sys.executable, "-c", _WRITER, path, who], cwd=ROOT)
        for who in ("first", "second")
    ]
    assert [p.wait(timeout=600) for p in procs] == [0, 0]
    read = store.read_case(path)
    assert read.verdict == "VERIFIED"
    assert ref_ledger.verify_file(path).ok is True
    notes = [e.text for e in read.entries if e.entry == "note"]
    assert len(notes) == 1000
    for who in ("first", "second"):
        assert [t for t in notes if t.startswith(who)] == [f"{who} note {i}" for i in range(500)]


def test_a_torn_last_line_is_said_refused_and_cut_exactly(tmp_path: Path) -> None:
    path = _new(tmp_path)
    record.note(path, "kept")
    whole = Path(path).read_bytes()
    torn_bytes = b'{"case": "sealscope-case/1", "entry": "note", "te'
    with open(path, "ab") as fh:
        fh.write(torn_bytes)
    read = store.read_case(path)
    assert read.torn is not None and read.torn.length == len(torn_bytes)
    assert f"torn last line, {len(torn_bytes)} bytes" in read.reason()
    assert read.verdict != "VERIFIED"
    with pytest.raises(store.CaseTorn, match=f"torn last line, {len(torn_bytes)} bytes"):
        record.note(path, "refused")
    assert Path(path).read_bytes() == whole + torn_bytes
    shown = store.torn_tail(path)
    assert shown is not None and shown.offset == len(whole)
    store.repair(path, shown)
    assert Path(path).read_bytes() == whole
    assert store.read_case(path).verdict == "VERIFIED"
    assert ref_ledger.verify_file(path).ok is True
    record.note(path, "after")
    assert store.read_case(path).verdict == "VERIFIED"


def test_repair_cuts_nothing_when_the_tail_is_not_what_was_shown(tmp_path: Path) -> None:
    path = _new(tmp_path)
    with open(path, "ab") as fh:
        fh.write(b"{partial")
    shown = store.torn_tail(path)
    assert shown is not None
    with open(path, "ab") as fh:
        fh.write(b" more")
    before = Path(path).read_bytes()
    with pytest.raises(store.CaseError, match="nothing was cut"):
        store.repair(path, shown)
    assert Path(path).read_bytes() == before


def test_an_edited_row_is_broken_for_us_and_the_reference_and_gets_no_append(
    tmp_path: Path,
) -> None:
    path = _new(tmp_path)
    record.note(path, "the original note")
    record.note(path, "another")
    data = Path(path).read_bytes()
    Path(path).write_bytes(data.replace(b"the original note", b"the edited note!!"))
    read = store.read_case(path)
    assert read.verdict == "BROKEN" and "line 2" in read.reason()
    assert ref_ledger.verify_file(path).ok is False
    with pytest.raises(store.CaseRefused, match="does not verify"):
        record.note(path, "more")


def test_findings_resolve_only_by_id_and_chain(tmp_path: Path) -> None:
    path = _new(tmp_path)
    record.note(path, "first", finding="high")
    record.note(path, "second", finding="low")
    record.resolve(path, "F2", "done")
    found = rows.findings_of(list(store.read_case(path).entries))
    assert [(f.id, f.status) for f in found] == [("F1", "open"), ("F2", "resolved")]
    with pytest.raises(store.CaseError, match="already resolved"):
        record.resolve(path, "F2")
    with pytest.raises(store.CaseError, match="no finding F9"):
        record.resolve(path, "F9")
    ordered = rows.newest_first(list(store.read_case(path).entries))
    assert ordered[0].text == "first"  # the open finding on top, then newest first
    assert ordered[1].get("status") == "resolved"


def test_nothing_is_appended_to_a_ledger_that_is_not_a_case(tmp_path: Path) -> None:
    ledger = tmp_path / "session.jsonl"
    ledger.write_bytes((ROOT / "sample_ledgers" / "session.jsonl").read_bytes())
    before = ledger.read_bytes()
    with pytest.raises(store.CaseRefused, match="not a sealscope case"):
        record.note(str(ledger), "into the evidence?")
    assert ledger.read_bytes() == before
    assert not store.read_case(str(ledger)).is_case
