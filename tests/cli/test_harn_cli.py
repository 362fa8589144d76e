"""`sealscope harn` and `sealscope harn seal`: output shapes and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.main import main

from tests.core.test_harn import (
    PRE,
    clean_receipt_transcript,
    compact,
    m,
    run_record,
    transcript,
    two_compactions,
)

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers" / "harn"


def write(tmp_path: Path, value, name="t.json") -> str:
    p = tmp_path / name
    p.write_text(json.dumps(value), encoding="utf-8")
    return str(p)


def run_json(capsys, *argv) -> tuple[int, object, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, json.loads(out), err


# --------------------------------------------------------------------------- show


def test_clean_transcript_exits_0(tmp_path, capsys):
    code, doc, err = run_json(capsys, "harn", write(tmp_path, clean_receipt_transcript()), "--json")
    assert code == 0 and err == ""
    assert isinstance(doc, list) and len(doc) == 1
    (obj,) = doc
    assert obj["path"] == "receipt" and obj["findings"] == []
    assert obj["receipt_id"] == "compaction-1" and obj["schema_version"] == 1
    assert obj["source_measurement"]["carried_source_bytes"] == 120
    assert obj["snapshot"]["message_count"] == 7 and obj["inferred"]["archived"] == 5


def test_high_finding_exits_1(tmp_path, capsys):
    t = compact(
        transcript(PRE),
        keep_last=2,
        claim=3,
        flat={"archived_messages": 3},
        asset_extra={"metadata": {}},
    )
    code, doc, _ = run_json(capsys, "harn", write(tmp_path, t), "--json")
    assert code == 1
    assert [(f["code"], f["severity"]) for f in doc[0]["findings"]] == [
        ("archived_understated", "high")
    ]


def test_medium_findings_exit_0(tmp_path, capsys):
    t = compact(
        transcript(PRE),
        keep_last=2,
        event_id="evt-9",
        measurement={"source_message_count": 5, "source_bytes": 10, "carried_source_bytes": 0},
    )
    code, doc, _ = run_json(capsys, "harn", write(tmp_path, t), "--json")
    assert code == 0
    assert sorted(f["code"] for f in doc[0]["findings"]) == [
        "nothing_carried_forward",
        "receipt_id_mismatch",
    ]


def test_measured_zero_and_null_in_json(tmp_path, capsys):
    t = compact(
        transcript(PRE), keep_last=2, measurement={"source_message_count": 0, "source_bytes": None}
    )
    _code, doc, _ = run_json(capsys, "harn", write(tmp_path, t), "--json")
    assert doc[0]["source_measurement"] == {
        "source_message_count": 0,
        "source_bytes": None,
        "summary_bytes": None,
        "carried_source_bytes": None,
    }


def test_legacy_and_fallback_paths_in_json(tmp_path, capsys):
    legacy = compact(transcript(PRE), keep_last=2, legacy=True)
    broken = compact(transcript(PRE), keep_last=2, receipt={"archived_messages": None})
    _c, a, _ = run_json(capsys, "harn", write(tmp_path, legacy, "a.json"), "--json")
    _c, b, _ = run_json(capsys, "harn", write(tmp_path, broken, "b.json"), "--json")
    assert (a[0]["path"], a[0]["schema_version"], a[0]["receipt_error"]) == ("legacy", 0, None)
    assert (b[0]["path"], b[0]["schema_version"]) == ("legacy", 0)
    assert "archived_messages" in b[0]["receipt_error"]
    assert [f["code"] for f in b[0]["findings"]] == ["receipt_malformed"]


def test_run_record_reports_every_stage(tmp_path, capsys):
    code, doc, _ = run_json(capsys, "harn", write(tmp_path, run_record()), "--json")
    assert code == 1
    assert [(o["location"], o["stage_id"], o["path"]) for o in doc] == [
        ("run.stages[0].transcript", "stage_a", "legacy"),
        ("run.stages[3].transcript", "stage_c", "receipt"),
    ]


def test_no_compactions_is_an_empty_array(tmp_path, capsys):
    code, doc, _ = run_json(capsys, "harn", write(tmp_path, transcript(PRE)), "--json")
    assert (code, doc) == (0, [])


@pytest.mark.parametrize(
    "content, kind",
    [
        (None, "unreadable"),
        (b"{nope", "not_json"),
        (b"[1, 2]", "not_a_transcript"),
        (b"[" * 50000, "not_json"),
        (b'{"x": 1}', "not_a_transcript"),
        (b'{"_type": "transcript", "version": NaN}', "not_json"),
        (b'{"_type": "transcript", "version": -Infinity}', "not_json"),
        (b'{"_type": "transcript", "version": 1e400}', "not_json"),
    ],
)
def test_unreadable_exits_3_with_one_json_error(tmp_path, capsys, content, kind):
    p = tmp_path / "in.json"
    if content is not None:
        p.write_bytes(content)
    code = main(["harn", str(p), "--json"])
    out, err = capsys.readouterr()
    assert code == 3 and err == ""
    doc = json.loads(out)
    assert set(doc) == {"error", "kind", "path"} and doc["kind"] == kind
    assert "\n" not in doc["error"]


def test_nan_is_unreadable_as_harn_says(tmp_path, capsys):
    p = tmp_path / "nan.json"
    p.write_bytes(b'{"_type": "transcript", "messages": [], "events": [], "x": NaN}')
    code = main(["harn", str(p)])
    out, err = capsys.readouterr()
    assert code == 3 and out == ""
    assert err == (
        f"sealscope: {p} is not JSON: NaN is not a JSON number; harn's JSON "
        f"reader (serde_json) refuses NaN and Infinity\n"
    )


def test_defaulted_archived_count_exits_0(tmp_path, capsys):
    t = compact(transcript(PRE), keep_last=2, asset_extra={"metadata": {}})
    meta = t["events"][-1]["metadata"]
    del meta["archived_messages"], meta["receipt"]["archived_messages"]
    code, doc, _ = run_json(capsys, "harn", write(tmp_path, t), "--json")
    assert code == 0
    assert doc[0]["defaulted"] == ["archived_messages"] and doc[0]["archived_messages"] == 0
    assert [(f["code"], f["severity"]) for f in doc[0]["findings"]] == [
        ("archived_unclaimed", "medium")
    ]


def test_unreadable_human_is_one_error_line(tmp_path, capsys):
    code = main(["harn", str(tmp_path / "missing.json")])
    out, err = capsys.readouterr()
    assert code == 3 and out == ""
    assert err.count("\n") == 1 and err.startswith("sealscope: cannot read ")


def test_human_report_without_a_terminal_has_no_colour(capsys):
    code = main(["harn", str(SAMPLES / "run-record.json")])
    out, err = capsys.readouterr()
    assert code == 1 and err == ""
    assert "\x1b[" not in out
    assert out.startswith("FINDINGS  ")
    assert "HIGH archived_understated: archived_messages claims 3 but 5 messages are gone" in out
    assert "run.stages[1].transcript (stage stage_implement)" in out
    assert "INFO legacy_event" in out


def test_human_report_sanitizes_evidence(tmp_path, capsys):
    t = compact(
        transcript(PRE),
        keep_last=2,
        event_id="evt\x1b[31mRED\rX",
        receipt={"mode": "auto\u202eevil"},
        flat={"mode": "auto\u202eevil"},
    )
    main(["harn", write(tmp_path, t)])
    out, _ = capsys.readouterr()
    assert "\x1b" not in out and "\r" not in out and "\u202e" not in out
    assert "evt\\x1b[31mRED\\rX" in out and "auto\\u202eevil" in out


def test_sample_session_is_clean(capsys):
    code, doc, _ = run_json(capsys, "harn", str(SAMPLES / "session-transcript.json"), "--json")
    assert code == 0 and len(doc) == 2
    assert all(o["findings"] == [] and o["path"] == "receipt" for o in doc)
    assert doc[1]["source_measurement"]["carried_source_bytes"] is None
    assert doc[0]["following"]["source"] == "snapshot"


def test_samples_are_what_the_script_makes(tmp_path):
    subprocess.run(
        [sys.executable, str(SAMPLES / "make_harn_samples.py"), str(tmp_path)], check=True
    )
    for name in ("session-transcript.json", "run-record.json"):
        assert (tmp_path / name).read_bytes() == (SAMPLES / name).read_bytes(), name


# --------------------------------------------------------------------------- usage


@pytest.mark.parametrize(
    "argv",
    [
        ["harn"],
        ["harn", "a.json", "b.json"],
        ["harn", "seal", "a.json"],
        ["harn", "a.json", "--ledger", "x.jsonl"],
        ["harn", "seal", "a", "b", "--ledger", "l"],
    ],
)
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as ei:
        main(argv)
    assert ei.value.code == 2


# --------------------------------------------------------------------------- seal


def test_seal_writes_receipts_the_reference_verifies(tmp_path, capsys):
    from arcaeon.prove.compact import verify_receipt

    t = two_compactions()
    ledger = tmp_path / "out.jsonl"
    code, doc, _ = run_json(
        capsys, "harn", "seal", write(tmp_path, t), "--ledger", str(ledger), "--json"
    )
    assert code == 0 and doc["skipped"] == [] and len(doc["sealed"]) == 2
    rows = [json.loads(x) for x in ledger.read_text().splitlines()]
    assert [r["chain"] for r in rows] == [s["chain"] for s in doc["sealed"]]
    assert [s["method"] for s in doc["sealed"]] == [
        "auto/hybrid#compaction-1",
        "auto/hybrid#compaction-2",
    ]
    snap1 = t["assets"][0]["data"]["messages"]
    snap2 = t["assets"][1]["data"]["messages"]
    for row, pre, post in ((rows[0], snap1, snap2), (rows[1], snap2, t["messages"])):
        v = verify_receipt(row, pre, post)
        assert (v["ok"], v["content"], v["verified_scope"]) == (True, "match", "full")
    # and our own verify verb holds the chain
    assert main(["verify", str(ledger), "--json"]) == 0
    capsys.readouterr()


def test_seal_skips_exit_3(tmp_path, capsys):
    t = compact(transcript(PRE), keep_last=2, snapshot=False)
    code, doc, _ = run_json(
        capsys, "harn", "seal", write(tmp_path, t), "--ledger", str(tmp_path / "l.jsonl"), "--json"
    )
    assert code == 3 and doc["sealed"] == []
    assert doc["skipped"] == [
        {
            "location": "transcript",
            "event_id": "compaction-1",
            "id": "compaction-1",
            "reason": "no snapshot asset named",
        }
    ]


def test_seal_ledger_unwritable_exits_3(tmp_path, capsys):
    code, doc, _ = run_json(
        capsys,
        "harn",
        "seal",
        write(tmp_path, two_compactions()),
        "--ledger",
        str(tmp_path),
        "--json",
    )
    assert code == 3 and doc["sealed"] == [] and doc["error"].startswith("cannot write ledger")


def test_seal_unreadable_transcript_exits_3(tmp_path, capsys):
    code, doc, _ = run_json(
        capsys,
        "harn",
        "seal",
        str(tmp_path / "nope.json"),
        "--ledger",
        str(tmp_path / "l.jsonl"),
        "--json",
    )
    assert code == 3 and doc["kind"] == "unreadable"
    assert not (tmp_path / "l.jsonl").exists()


def test_seal_human(tmp_path, capsys):
    code = main(
        ["harn", "seal", str(SAMPLES / "run-record.json"), "--ledger", str(tmp_path / "l.jsonl")]
    )
    out, _ = capsys.readouterr()
    assert code == 0 and out.startswith("SEALED  ") and "2 receipts sealed, 0 skipped" in out
    assert "pre 7 → post 3  dropped 5  introduced 1" in out


def test_file_named_seal_is_reachable(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("seal").write_text(json.dumps(clean_receipt_transcript()))
    code, doc, _ = run_json(capsys, "harn", "./seal", "--json")
    assert code == 0 and len(doc) == 1


def test_entry_point_subprocess(tmp_path):
    p = subprocess.run(
        [sys.executable, "-m", "sealscope", "harn", str(SAMPLES / "run-record.json"), "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 1 and p.stderr == ""
    assert len(json.loads(p.stdout)) == 2
    p = subprocess.run(
        [sys.executable, "-m", "sealscope", "harn", str(tmp_path / "x")],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert p.returncode == 3 and p.stdout == "" and "Traceback" not in p.stderr


def test_appended_messages_after_last_compaction(tmp_path, capsys):
    t = compact(transcript(PRE), keep_last=2)
    t["messages"].append(m("assistant", "all done"))
    code, doc, _ = run_json(capsys, "harn", write(tmp_path, t), "--json")
    assert code == 0 and doc[0]["inferred"]["appended"] == 1 and doc[0]["findings"] == []


def test_a_github_run_before_leaves_error_lines_plain(tmp_path, capsys):
    """The stop-commands pause of a `--format github` run ends with that run: a later
    `main` in the same process writes its error line plain (no leaked guard)."""
    assert (
        main(["verify", str(ROOT / "sample_ledgers" / "tampered.jsonl"), "--format", "github"]) == 1
    )
    capsys.readouterr()
    code = main(["harn", str(tmp_path / "missing.json")])
    _out, err = capsys.readouterr()
    assert code == 3 and err.startswith("sealscope: cannot read ") and err.count("\n") == 1
