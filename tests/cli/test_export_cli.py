"""`sealscope export`: on every sample, the report's verdicts equal the CLI verbs'."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.core import kinds, verdict
from sealscope.core.export import REPORT_KINDS

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
SEALS = SAMPLES / "seals"

# every ledger sample (held-content and witness-store JSONL are read as ledgers too);
# a call record or an AAT export is its own kind, reported as `check` judges it
# (tests/cli/test_export_kinds_cli.py)
LEDGERS = sorted(p for p in SAMPLES.rglob("*.jsonl") if kinds.identify(p).kind not in REPORT_KINDS)
SNAPSHOTS = [SEALS / "seal-day1.json", SEALS / "seal-day2.json", SEALS / "seal-day1-tampered.json"]
RANK = {0: 0, 3: 1, 1: 2}


def sealscope(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sealscope", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
    )


def as_json(p: subprocess.CompletedProcess):
    assert "Traceback" not in p.stderr, p.stderr
    return json.loads(p.stdout)


def worst(*codes: int) -> int:
    return max(codes, key=lambda c: RANK[c])


def _ids(p: Path) -> str:
    return str(p.relative_to(SAMPLES))


def test_the_sample_set_is_covered():
    assert len(LEDGERS) >= 8 and (SEALS / "seals-ledger.jsonl") in LEDGERS


@pytest.mark.parametrize("path", LEDGERS, ids=_ids)
def test_ledger_report_equals_verify_and_receipts(path):
    exp = sealscope("export", path, "--format", "json")
    report = as_json(exp)
    ver = sealscope("verify", path, "--json")
    rec = sealscope("receipts", path, "--json")
    assert report["kind"] == "ledger"
    assert report["ledger"] == as_json(ver)
    assert report["receipts"] == as_json(rec)
    # the ledger alone (verdict.ledger): verify's code, 1 when a receipt row fails on its
    # own; a receipt checked without held content is counted, not judged
    # and its other row checks as `sealscope check` judges them (rows_checked)
    failed = any(not r["ok"] for r in report["receipts"])
    rows = {"VERIFIED": 0, "BROKEN": 1}
    row_codes = [rows.get(e["verdict"], 3) for e in report["rows_checked"]]
    want = worst(ver.returncode, 1 if failed else 0, *row_codes)
    assert exp.returncode == report["exit_code"] == want
    if not failed and not any(row_codes):
        assert report["verdict"] == as_json(ver)["verdict"]
    md = sealscope("export", path)
    assert md.returncode == want and f"verdict: **{report['verdict']}**" in md.stdout


@pytest.mark.parametrize("path", SNAPSHOTS, ids=_ids)
def test_snapshot_report_equals_snapshot_verb(path):
    exp = sealscope("export", path, "--format", "json")
    report = as_json(exp)
    snap = sealscope("snapshot", path, "--json")
    assert report["kind"] == "snapshot"
    assert report["snapshot"] == as_json(snap)
    assert exp.returncode == report["exit_code"] == snap.returncode


HARN = sorted((SAMPLES / "harn").glob("*.json"))


@pytest.mark.parametrize("path", HARN, ids=_ids)
def test_harn_report_equals_harn_verb(path):
    verb = sealscope("harn", path, "--json")
    rep = sealscope("export", path, "--format", "json")
    doc = as_json(rep)
    assert doc["kind"] == "harn" and doc["harn"] == as_json(verb)
    assert rep.returncode == verb.returncode == doc["exit_code"]
    sev = {f["severity"] for c in doc["harn"] for f in c["findings"]}
    want = "FINDINGS" if "high" in sev else "REVIEW" if "medium" in sev else "OK"
    # the verdict is one of the three words; the harn check's own word beside it
    assert doc["verdict"] == verdict.worst_word([want]) and doc["own_result"] == want
    md = sealscope("export", path)
    assert md.returncode == verb.returncode and "## harn compaction events" in md.stdout


# a seal's report word with one restatement scored, by continuity's exit code
# a report's verdict is one of the three words; the restatement's own word beside it
_words = {0: "VERIFIED", 1: "BROKEN", 3: "COULD NOT LOOK"}


def _verdict(doc: dict) -> dict:
    doc = json.loads(json.dumps(doc))
    doc.get("receipt", {}).pop("compared_at", None)  # a clock stamp
    return doc


@pytest.mark.parametrize("restated", ["restated-faithful.json", "restated-divergent.json"])
@pytest.mark.parametrize(
    "flags",
    [[], ["--loose"], ["--tiers", "tiers.json"], ["--loose", "--tiers", "tiers.json"]],
    ids=["strict", "loose", "strict-tiers", "loose-tiers"],
)
def test_restatement_report_equals_continuity_verb(restated, flags):
    exp = sealscope(
        "export", "seal-day1.json", "--restated", restated, *flags, "--format", "json", cwd=SEALS
    )
    report = as_json(exp)
    cont = sealscope(
        "continuity", "seal-day1.json", "--restated", restated, *flags, "--json", cwd=SEALS
    )
    (rec,) = report["session"]
    assert rec["kind"] == "verdict"
    assert _verdict(rec["result"]) == _verdict(as_json(cont))
    assert rec["exit_code"] == cont.returncode
    assert exp.returncode == report["exit_code"] == worst(0, cont.returncode)
    assert report["verdict"] == _words[cont.returncode]
    assert rec["verdict"] == _words[cont.returncode]
    own = verdict.continuation(as_json(cont)).verdict  # FAITHFUL, DIVERGENCE, ...
    assert rec["checked"] == f"restatement: {own}"
    md = sealscope("export", "seal-day1.json", "--restated", restated, *flags, cwd=SEALS)
    if "--loose" in flags:
        assert "not judged (loose mode)" in md.stdout
    for d in as_json(cont)["divergences"]:
        assert f"`{d['id']}`" in md.stdout


@pytest.mark.parametrize("tiers", [[], ["--tiers", "tiers.json"]], ids=["untiered", "tiers"])
def test_diff_report_equals_diff_verb(tiers):
    exp = sealscope(
        "export",
        "seal-day2.json",
        "--against",
        "seal-day1.json",
        *tiers,
        "--format",
        "json",
        cwd=SEALS,
    )
    report = as_json(exp)
    diff = sealscope("diff", "seal-day1.json", "seal-day2.json", *tiers, "--json", cwd=SEALS)
    (rec,) = report["session"]
    assert rec["kind"] == "diff" and rec["result"] == as_json(diff)
    assert exp.returncode == diff.returncode == 0
    changed = {k: [e["id"] for e in rec["result"][k]] for k in ("changed", "added", "removed")}
    assert changed == {
        "changed": ["open_commitments:0"],
        "added": ["live_threads:seal-diff"],
        "removed": ["live_threads:ledger-verify"],
    }


def test_diff_against_an_invalid_seal():
    exp = sealscope(
        "export",
        "seal-day2.json",
        "--against",
        "seal-day1-tampered.json",
        "--format",
        "json",
        cwd=SEALS,
    )
    diff = sealscope("diff", "seal-day1-tampered.json", "seal-day2.json", cwd=SEALS)
    assert exp.returncode == diff.returncode == 1
    assert as_json(exp)["session"][0]["exit_code"] == 1


def test_output_file(tmp_path):
    out = tmp_path / "report.md"
    p = sealscope("export", SEALS / "seal-day1.json", "--output", out)
    assert p.returncode == 0 and p.stdout == ""
    assert out.read_text().startswith("# sealscope audit report")
    assert "wrote" in p.stderr


def test_a_missing_output_folder_is_refused_not_created(tmp_path):
    for flag, name in (("--output", "report.md"), ("--junit", "r.xml"), ("--vsa", "r.json")):
        target = tmp_path / "no" / "such" / name
        p = sealscope("export", SAMPLES / "session.jsonl", flag, target)
        assert (p.returncode, p.stdout) == (2, "")
        assert p.stderr == (
            f"sealscope: export: cannot write {target}: the folder "
            f"{target.parent} does not exist (export creates no folders)\n"
        )
    assert list(tmp_path.iterdir()) == []
    (tmp_path / "file").write_text("x")
    p = sealscope("export", SAMPLES / "session.jsonl", "-o", tmp_path / "file" / "r.md")
    assert p.returncode == 2 and f"{tmp_path / 'file'} is not a folder" in p.stderr


def test_errors_are_one_line_and_never_a_traceback(tmp_path):
    p = sealscope("export", tmp_path / "missing.jsonl")
    assert p.returncode == 3 and p.stdout == ""
    assert p.stderr.count("\n") == 1 and "cannot read" in p.stderr
    p = sealscope("export", tmp_path)  # a folder: a report per evidence file; none here
    assert p.returncode == 3 and "COULD NOT LOOK" in p.stdout
    p = sealscope("export", tmp_path, "--as", "ledger")  # one file's kind: no report
    assert p.returncode == 3
    assert p.stderr == f"sealscope: export: cannot read {tmp_path}: Is a directory\n"
    p = sealscope("export", SEALS / "seals-ledger.jsonl", "--restated", SEALS / "tiers.json")
    assert p.returncode == 2 and "Traceback" not in p.stderr
    p = sealscope("export", SEALS / "seal-day1.json", "--output", SEALS / "seal-day1.json")
    assert p.returncode == 2 and "refusing" in p.stderr
    p = sealscope("export", SEALS / "seal-day1.json", "--restated", tmp_path / "none.json")
    assert p.returncode == 3 and p.stderr.count("\n") == 1
    p = sealscope("export", SEALS / "seal-day1.json", "--format", "xml")
    assert p.returncode == 2
    (tmp_path / "garbage.json").write_bytes(b"\xff\xfe{")
    p = sealscope("export", tmp_path / "garbage.json", "--as", "snapshot")
    assert p.returncode == 1 and "Traceback" not in p.stderr
    assert (SEALS / "seal-day1.json").read_text().startswith("{")  # untouched


def test_a_json_that_is_not_a_ledger_seal_or_harn_file_is_named(tmp_path):
    p = sealscope("export", SEALS / "tiers.json")
    assert p.returncode == 3 and p.stdout == "" and p.stderr.count("\n") == 1
    assert p.stderr.startswith(
        "sealscope: export: not a ledger / seal / harn file: it reads "
        "as a tiers file {tier: [field, ...]} (looked for"
    )
    p = sealscope("export", SEALS / "tiers.json", "--as", "ledger", "--format", "json")
    assert p.returncode == 1 and as_json(p)["kind"] == "ledger"  # --as insists
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    p = sealscope("export", fifo)  # never opened
    assert p.returncode == 3
    assert p.stderr == f"sealscope: export: cannot read {fifo}: not a regular file\n"
