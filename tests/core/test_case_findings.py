"""Look-ups, seal diffs and restatements as case checks (issue 44): each is recorded with
the result its verb gives (`lookup`, `diff`, `continuity`) and re-performed by replay,
which says `holds`, `changed` (the result differs, though the word is the same),
`evidence changed` or `missing`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sealscope.core.case import perform, record, replay, rows, store
from sealscope.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


@pytest.fixture
def evidence(tmp_path: Path) -> Path:
    folder = tmp_path / "evidence"
    folder.mkdir()
    shutil.copy(SAMPLES / "session.jsonl", folder / "session.jsonl")
    shutil.copytree(SAMPLES / "held", folder / "held")
    shutil.copytree(SAMPLES / "seals", folder / "seals")
    return folder


def _verb_json(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, dict]:
    code = main([*argv, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _checks(case: str) -> list[rows.CaseEntry]:
    return [e for e in store.read_case(case).entries if e.entry == "check"]


def test_a_lookup_is_recorded_as_sealscope_lookup_finds_it_and_replayed(
    tmp_path: Path, evidence: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = str(tmp_path / "case.jsonl")
    record.new_case(case)
    ledger = str(evidence / "session.jsonl")
    held = [str(evidence / "held" / n) for n in ("session-pre.jsonl", "session-post.jsonl")]
    added = record.add(case, ledger, lookup=held)
    done = added.checks[-1]
    code, doc = _verb_json(capsys, "lookup", ledger, *held)
    assert (done.check, done.exit_code, code) == ("lookup", 0, 0)
    assert done.result == doc
    assert done.reason == "3 of 8 held items found in the drop manifests (3 places)"
    entry = _checks(case)[-1]
    assert [i["role"] for i in entry.get("inputs")] == ["evidence", "held", "held"]
    assert entry.get("result_sha256") == perform.result_digest(doc)
    assert [i.status for i in replay.replay(case).items] == ["holds", "holds"]

    with open(held[1], "ab") as fh:
        fh.write(b'{"extra": 1}\n')
    item = replay.replay(case).items[-1]
    assert item.status == "evidence changed" and "session-post.jsonl" in item.detail
    Path(held[1]).unlink()
    assert replay.replay(case).items[-1].status == "missing"


def test_a_typed_text_lookup_replays(tmp_path: Path, evidence: Path) -> None:
    case = str(tmp_path / "case.jsonl")
    record.new_case(case)
    ledger = perform.Input("evidence", str(evidence / "session.jsonl"))
    done = perform.perform("lookup", [ledger], {"text": "no such item"})
    assert done.verdict == "NOTED" and done.reason.startswith("0 of 1 held item found")
    record.record_check(case, done)
    assert [i.status for i in replay.replay(case).items] == ["holds"]


def test_a_lookup_whose_places_differ_is_changed_though_its_word_is_the_same(
    tmp_path: Path, evidence: Path
) -> None:
    case = str(tmp_path / "case.jsonl")
    record.new_case(case)
    inputs = [
        perform.Input("evidence", str(evidence / "session.jsonl")),
        perform.Input("held", str(evidence / "held" / "session-pre.jsonl")),
    ]
    fields = record.check_fields(perform.perform("lookup", inputs))
    fields.update(result_sha256="0" * 64, reason="recorded otherwise")  # then re-performed
    store.append(case, rows.new_row("check", fields))
    [item] = replay.replay(case).items
    assert item.status == "changed" and item.verdict == "BROKEN"
    assert item.detail.startswith("changed: was NOTED (recorded otherwise), now NOTED (")
    assert replay.replay(case).exit_code == 1


def test_a_seal_diff_is_recorded_as_sealscope_diff_gives_it_and_replayed(
    tmp_path: Path, evidence: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = str(tmp_path / "case.jsonl")
    record.new_case(case)
    old, new = (
        str(evidence / "seals" / "seal-day1.json"),
        str(evidence / "seals" / "seal-day2.json"),
    )
    done = record.add(case, old, diff=new).checks[-1]
    code, doc = _verb_json(capsys, "diff", old, new)
    assert (done.check, done.verdict, done.exit_code, code) == ("diff", "VALID", 0, 0)
    assert done.result == doc
    assert [i["role"] for i in _checks(case)[-1].get("inputs")] == ["evidence", "new"]
    assert [i.status for i in replay.replay(case).items] == ["holds", "holds"]

    tampered = str(evidence / "seals" / "seal-day1-tampered.json")
    bad = record.add(case, tampered, diff=new).checks[-1]
    assert (bad.verdict, bad.exit_code) == ("INVALID", 1)
    shutil.copy(evidence / "seals" / "seal-day1.json", new)  # the later seal edited
    statuses = [i.status for i in replay.replay(case).items if i.check == "diff"]
    assert statuses == ["evidence changed", "evidence changed"]


def test_a_restatement_is_recorded_as_continuity_scores_it_and_replayed(
    tmp_path: Path, evidence: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    case = str(tmp_path / "case.jsonl")
    record.new_case(case)
    seals = evidence / "seals"
    snap = str(seals / "seal-day1.json")
    for name, word, code in (
        ("restated-faithful.json", "FAITHFUL", 0),
        ("restated-divergent.json", "DIVERGENCE", 1),
    ):
        done = record.add(case, snap, restated=str(seals / name)).checks[-1]
        got, doc = _verb_json(capsys, "continuity", snap, "--restated", str(seals / name))
        assert (done.check, done.verdict, done.exit_code, got) == ("restatement", word, code, code)
        assert done.result["divergences"] == doc["divergences"]
    loose = record.add(case, snap, restated=str(seals / "restated-faithful.json"), loose=True)
    assert (loose.checks[-1].verdict, loose.checks[-1].exit_code) == ("CONTAINED ONLY", 3)
    assert _checks(case)[-1].get("args") == {"loose": True}

    # scored again at another time: the same finding (its stamp is not part of it)
    from sealscope.core.continuity import baseline

    monkeypatch.setattr(baseline, "utc_stamp", lambda: "2000-01-01T00:00:00Z")
    assert [i.status for i in replay.replay(case).items] == ["holds"] * 6

    (seals / "restated-faithful.json").write_text('{"edited": "yes"}', encoding="utf-8")
    statuses = [i.status for i in replay.replay(case).items if i.check == "restatement"]
    assert statuses == ["evidence changed", "holds", "evidence changed"]


def test_an_unusable_restated_file_could_not_be_looked_at(tmp_path: Path, evidence: Path) -> None:
    bad = tmp_path / "restated.json"
    bad.write_bytes(b"not json")
    inputs = [
        perform.Input("evidence", str(evidence / "seals" / "seal-day1.json")),
        perform.Input("restated", str(bad)),
    ]
    done = perform.perform("restatement", inputs)
    assert (done.verdict, done.exit_code) == ("COULD NOT LOOK", 3)
    assert "not JSON" in done.reason
