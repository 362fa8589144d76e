"""`receipts --pre/--post` without `--line` on a ledger with several receipt rows: held
content goes to the rows whose claimed digest equals the held content's (CLI.md)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

S = Path(__file__).resolve().parents[2] / "sample_ledgers"
EXE = Path(sys.executable).parent / "sealscope"


def run(*argv: str) -> subprocess.CompletedProcess:
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    return subprocess.run(
        [*cmd, *argv],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_content_goes_to_the_matching_row_only():
    p = run(
        "receipts",
        str(S / "session.jsonl"),
        "--pre",
        str(S / "held/session-pre.jsonl"),
        "--post",
        str(S / "held/session-post.jsonl"),
        "--json",
    )
    rows = json.loads(p.stdout)
    assert [(r["line"], r["ok"], r["content"], r["held_matched"]) for r in rows] == [
        (5, True, "skipped", False),
        (7, True, "match", True),
    ]
    assert rows[1]["verified_scope"] == "full"
    assert p.returncode == 0  # line 5 (v1, no content) is VERIFIED within a bound


def test_one_side_is_enough_to_match():
    p = run("receipts", str(S / "session.jsonl"), "--pre", str(S / "held/v1-pre.json"), "--json")
    rows = json.loads(p.stdout)
    assert [r["held_matched"] for r in rows] == [True, False]
    assert rows[0]["content"] != "skipped" and rows[1]["content"] == "skipped"


def test_no_match_is_a_usage_error_naming_line():
    p = run("receipts", str(S / "session.jsonl"), "--pre", str(S / "held/liar-pre.json"))
    assert p.returncode == 2 and "--line" in p.stderr and p.stdout == ""
    j = run("receipts", str(S / "session.jsonl"), "--pre", str(S / "held/liar-pre.json"), "--json")
    assert j.returncode == 2 and "--line" in json.loads(j.stdout)["error"]


def test_human_report_names_the_matched_lines():
    p = run(
        "receipts",
        str(S / "session.jsonl"),
        "--pre",
        str(S / "held/session-pre.jsonl"),
        "--post",
        str(S / "held/session-post.jsonl"),
    )
    assert p.stdout.splitlines()[0].startswith("held content matched line 7 ")


def test_one_receipt_row_or_line_unchanged():
    liar = run(
        "receipts", str(S / "liar.jsonl"), "--pre", str(S / "held/session-pre.jsonl"), "--json"
    )
    (row,) = json.loads(liar.stdout)
    assert "held_matched" not in row and row["content"] != "skipped"
    line = run(
        "receipts",
        str(S / "session.jsonl"),
        "--line",
        "5",
        "--pre",
        str(S / "held/session-pre.jsonl"),
        "--json",
    )
    (row,) = json.loads(line.stdout)
    assert row["line"] == 5 and "held_matched" not in row and row["ok"] is False


def test_pin_is_accepted_as_a_file(tmp_path):
    text = run(
        "verify",
        str(S / "truncated.jsonl"),
        "--pin",
        (S / "truncated.pin").read_text().strip(),
        "--json",
    )
    file = run("verify", str(S / "truncated.jsonl"), "--pin", str(S / "truncated.pin"), "--json")
    assert file.returncode == text.returncode == 1
    assert json.loads(file.stdout) == json.loads(text.stdout)
    assert json.loads(file.stdout)["pin"]["verdict"] == "truncated"
    junk = tmp_path / "junk.pin"
    junk.write_text("hello\n")
    bad = run("verify", str(S / "truncated.jsonl"), "--pin", str(junk))
    assert bad.returncode == 2 and "not a head pin" in bad.stderr and "junk.pin" in bad.stderr
