"""Recording and replaying checks in a case (issue 44): evidence read from the bytes the
check judged, every recorded check re-performed (holds, changed, evidence changed,
missing), a report bound to the case's head, and `check`'s profile of a case."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sealscope.core import checks, pins
from sealscope.core.case import perform, record, replay, report, rows, store

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


@pytest.fixture
def evidence(tmp_path: Path) -> Path:
    folder = tmp_path / "evidence"
    folder.mkdir()
    for name in ("session.jsonl", "tampered.jsonl", "truncated.jsonl", "truncated.pin"):
        shutil.copy(SAMPLES / name, folder / name)
    shutil.copytree(SAMPLES / "held", folder / "held")
    return folder


def _case(tmp_path: Path, evidence: Path) -> str:
    case = str(tmp_path / "case.jsonl")
    record.new_case(case, title="replay")
    record.add(case, str(evidence / "session.jsonl"))
    record.add(case, str(evidence / "tampered.jsonl"))
    record.add(case, str(evidence / "truncated.jsonl"), pin=str(evidence / "truncated.pin"))
    return case


def test_evidence_entry_is_what_was_read(tmp_path: Path, evidence: Path) -> None:
    case = _case(tmp_path, evidence)
    entries = store.read_case(case).entries
    ev = next(e for e in entries if e.entry == "evidence")
    import hashlib

    data = (evidence / "session.jsonl").read_bytes()
    assert ev.get("sha256") == hashlib.sha256(data).hexdigest()
    assert ev.get("bytes") == len(data)
    assert ev.get("kind") == "ledger"
    assert ev.get("head") == {"rows": 11, "chain": pins.head(evidence / "session.jsonl").chain}
    check = next(e for e in entries if e.entry == "check")
    assert check.get("inputs")[0]["sha256"] == ev.get("sha256")
    assert check.get("verdict") == "VERIFIED" and check.get("exit_code") == 0
    assert check.get("sealscope") and len(check.get("result_sha256")) == 64


def test_replay_holds_then_names_the_edited_and_the_missing(tmp_path: Path, evidence: Path) -> None:
    case = _case(tmp_path, evidence)
    rep = replay.replay(case)
    assert [i.status for i in rep.items] == ["holds"] * 4
    assert rep.verdict == "VERIFIED" and rep.exit_code == 0

    with open(evidence / "session.jsonl", "ab") as fh:
        fh.write(b"\n")
    rep = replay.replay(case)
    changed = [i for i in rep.items if i.status == "evidence changed"]
    assert [Path(i.path).name for i in changed] == ["session.jsonl"]
    assert "sha256 differs" in changed[0].detail
    assert rep.exit_code == 1

    (evidence / "tampered.jsonl").unlink()
    rep = replay.replay(case)
    assert [i.status for i in rep.items if "tampered" in i.path] == ["missing"]
    assert rep.exit_code == 1  # a change outweighs what could not be looked at

    shutil.copy(SAMPLES / "session.jsonl", evidence / "session.jsonl")
    rep = replay.replay(case)
    assert rep.exit_code == 3


def test_replay_under_another_root(tmp_path: Path, evidence: Path) -> None:
    case = _case(tmp_path, evidence)
    moved = tmp_path / "moved"
    evidence.rename(moved)
    assert replay.replay(case).exit_code == 3
    rep = replay.replay(case, root=str(moved))
    assert [i.status for i in rep.items] == ["holds"] * 4


def test_a_check_whose_word_differs_is_changed_was_now(tmp_path: Path, evidence: Path) -> None:
    case = str(tmp_path / "case.jsonl")
    record.new_case(case)
    done = perform.perform("kind", [perform.Input("evidence", str(evidence / "session.jsonl"))])
    fields = record.check_fields(done)
    fields.update(verdict="BROKEN", exit_code=1, bound=None)  # recorded, then re-performed
    store.append(case, rows.new_row("check", fields))
    item = replay.replay(case).items[0]
    assert item.status == "changed"
    assert item.detail.startswith("changed: was BROKEN, now VERIFIED")


def test_receipts_check_with_held_content(tmp_path: Path, evidence: Path) -> None:
    case = str(tmp_path / "case.jsonl")
    record.new_case(case)
    added = record.add(
        case,
        str(evidence / "session.jsonl"),
        pre=str(evidence / "held" / "session-pre.jsonl"),
        post=str(evidence / "held" / "session-post.jsonl"),
    )
    held = added.checks[-1]
    assert held.check == "receipts" and held.verdict == "VERIFIED"
    assert [i["role"] for i in held.input_fields()] == ["evidence", "pre", "post"]
    assert [i.status for i in replay.replay(case).items] == ["holds", "holds"]


def test_report_is_bound_to_the_head_and_lists_open_findings_first(
    tmp_path: Path, evidence: Path
) -> None:
    case = _case(tmp_path, evidence)
    record.note(case, "resolved later", finding="low")
    record.note(case, "still open", finding="high")
    record.resolve(case, "F1", "fixed")
    read = store.read_case(case)
    doc = report.build(read)
    assert [f["id"] for f in doc["findings"]] == ["F2", "F1"]
    assert doc["head"]["rows"] == read.head_rows
    pin = pins.parse_pin(doc["head"]["pin"])
    assert pins.check_pin(case, pin).verdict == "consistent"
    assert len(doc["evidence"]) == 3 and len(doc["checks"]) == 4


def test_check_profiles_a_case(tmp_path: Path, evidence: Path) -> None:
    case = _case(tmp_path, evidence)
    record.note(case, "open one", finding="medium")
    res = checks.run([case])[0]
    assert res.verdict == "VERIFIED"
    assert res.reason == "a sealscope case: 9 entries, 1 open finding"
    assert res.profile == "sealscope-case/1"
    assert res.detail["profile"] == {
        "name": "sealscope-case/1",
        "entries": 9,
        "open_findings": 1,
    }
    plain = checks.run([str(evidence / "session.jsonl")])[0]
    assert plain.detail["profile"] is None and plain.profile is None


def test_witness_check_records_and_replays(tmp_path: Path, evidence: Path) -> None:
    shutil.copytree(SAMPLES / "witness", evidence / "witness")
    case = str(tmp_path / "case.jsonl")
    record.new_case(case)
    inputs = [
        perform.Input("evidence", str(evidence / "truncated.jsonl")),
        perform.Input("witness", str(evidence / "witness" / "store.jsonl")),
    ]
    done = perform.perform("witness", inputs, {"namespace": "truncated"})
    assert done.verdict == "BROKEN" and done.reason == "truncated"
    record.record_check(case, done)
    assert [i.status for i in replay.replay(case).items] == ["holds"]
    with open(evidence / "witness" / "store.jsonl", "ab") as fh:
        fh.write(b"\n")
    [item] = replay.replay(case).items
    assert item.status == "evidence changed" and "store.jsonl" in item.detail
