"""`sealscope receipts`, `lookup`, `selftest`: JSON shapes, exit codes, human output,
clean errors, and the conformance corpus."""

from __future__ import annotations

import json
import subprocess

import pytest
from sealscope import main as cli_main
from sealscope.core import digest
from sealscope.core.receipt import build_row

from tests.conftest import assert_conformance, sealscope_cmd

PRE = ["the quick brown fox", {"role": "user", "text": "hello"}, "binary"]
POST = ["the quick brown fox", "summary: user said hello"]


def run(*argv: str, cwd=None, stdin: bytes | None = None) -> subprocess.CompletedProcess:
    cmd = sealscope_cmd().split() + list(argv)
    return subprocess.run(cmd, cwd=cwd, capture_output=True, input=stdin, timeout=120, check=False)


def in_process(capsys, *argv: str) -> tuple[int, str, str]:
    code = cli_main.main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def files(tmp_path):
    row = build_row(PRE, POST, "golden-fixture", "test:v1", opened_at="2026-11-30T02:38:06Z")
    bad = dict(row, compactor="forged")
    led = tmp_path / "l.jsonl"
    led.write_text(
        "\n".join([json.dumps({"op": "start"}), json.dumps(row), json.dumps(bad)]) + "\n",
        encoding="utf-8",
    )
    (tmp_path / "pre.json").write_text(json.dumps(PRE))
    (tmp_path / "post.jsonl").write_text("\n".join(json.dumps(x) for x in POST) + "\n")
    return tmp_path


def test_receipts_json_rows_and_exit(capsys, files):
    code, out, err = in_process(capsys, "receipts", str(files / "l.jsonl"), "--json")
    doc = json.loads(out)
    assert code == 1 and err == ""
    assert [d["line"] for d in doc] == [2, 3]
    assert list(doc[0]) == [
        "line",
        "ok",
        "self_consistent",
        "content",
        "schema",
        "understatement_check",
        "verified_scope",
        "notes",
    ]
    assert doc[0]["ok"] is True and doc[0]["verified_scope"] == "bounded_no_content"
    assert doc[1]["ok"] is False and doc[1]["notes"][0].startswith("receipt_digest does not")


def test_receipts_full_content_exit_0(capsys, files):
    code, out, _ = in_process(
        capsys,
        "receipts",
        str(files / "l.jsonl"),
        "--line",
        "2",
        "--pre",
        str(files / "pre.json"),
        "--post",
        str(files / "post.jsonl"),
        "--json",
    )
    assert code == 0
    assert json.loads(out) == [
        {
            "line": 2,
            "ok": True,
            "self_consistent": True,
            "content": "match",
            "schema": "v2",
            "understatement_check": "full",
            "verified_scope": "full",
            "notes": [],
        }
    ]


def test_receipts_line_without_receipt_exit_3(capsys, files):
    code, out, _ = in_process(capsys, "receipts", str(files / "l.jsonl"), "--line", "1", "--json")
    assert (code, json.loads(out)) == (3, [])


def test_receipts_human_table(capsys, files):
    code, out, _ = in_process(capsys, "receipts", str(files / "l.jsonl"))
    lines = out.splitlines()
    assert code == 1 and "\x1b" not in out  # capsys is not a terminal: no colour
    assert lines[0].split() == ["LINE", "SCHEMA", "CHECKS", "SCOPE", "NOTE"]
    assert lines[1].split() == ["2", "v2", "self:ok", "content:skipped", "bounded_no_content"]
    assert lines[2].split()[:5] == ["3", "v2", "self:FAIL", "content:skipped", "bounded_no_content"]
    assert "receipt_digest does not reproduce" in lines[2]
    assert lines[-1].endswith("0 verified in full, 1 verified within a bound, 1 failed -> BROKEN")


def test_human_output_escapes_control_characters(capsys, tmp_path):
    row = build_row(["a"], [], "c", "m")
    row["schema"] = "v9\x1b[31m\u202e"
    led = tmp_path / "l\x1b]0;x\x07.jsonl"
    led.write_text(json.dumps(row) + "\n")
    code, out, _ = in_process(capsys, "receipts", str(led))
    assert code == 1
    assert "\x1b" not in out and "\x07" not in out and "\u202e" not in out
    assert "unknown schema 'v9\\x1b[31m\\u202e' — cannot verify" in out
    folder = tmp_path / "held"
    folder.mkdir()
    (folder / "x\x1by").write_bytes(b"a")
    code, out, _ = in_process(capsys, "lookup", str(led), str(folder))
    assert code == 0 and "\x1b" not in out and "x\\x1by" in out
    assert out.startswith("DROPPED ")


@pytest.mark.parametrize(
    "argv",
    [
        ["receipts", "{missing}"],
        ["receipts", "{dir}"],
        ["receipts", "{led}", "--pre", "{missing}"],
        ["receipts", "{led}", "--post", "{notarray}"],
        ["lookup", "{missing}", "{pre}"],
        ["lookup", "{led}", "{missing}"],
        ["lookup", "{led}", "{nan}"],
    ],
)
@pytest.mark.parametrize("as_json", [False, True])
def test_unreadable_inputs_exit_3_without_traceback(files, argv, as_json):
    (files / "notarray.json").write_text('{"a": 1}')
    (files / "nan.jsonl").write_text('{"a": NaN}\n')
    names = {
        "missing": str(files / "missing.jsonl"),
        "dir": str(files),
        "led": str(files / "l.jsonl"),
        "pre": str(files / "pre.json"),
        "notarray": str(files / "notarray.json"),
        "nan": str(files / "nan.jsonl"),
    }
    p = run(*[a.format(**names) for a in argv], *(["--json"] if as_json else []))
    err = p.stderr.decode()
    assert p.returncode == 3, err
    assert "Traceback" not in err and err.startswith("sealscope: ") and err.count("\n") == 1
    if as_json:
        assert list(json.loads(p.stdout)) == ["error"]
    else:
        assert p.stdout == b""


def test_usage_errors_exit_2(files):
    assert run("receipts", str(files / "l.jsonl"), "--line", "0").returncode == 2
    assert run("receipts", str(files / "l.jsonl"), "--line", "x").returncode == 2
    assert run("receipts", str(files / "l.jsonl"), "--pre", "-", "--post", "-").returncode == 2
    assert run("lookup", str(files / "l.jsonl"), "-", "-").returncode == 2


def test_lookup_json_and_stdin(files):
    p = run(
        "lookup", str(files / "l.jsonl"), str(files / "pre.json"), "-", "--json", stdin=b"binary"
    )
    assert p.returncode == 0, p.stderr
    doc = json.loads(p.stdout)
    items = doc["items"]
    assert [list(i) for i in items] == [["digest", "bytes", "found"]] * 4
    assert items[1] == {
        "digest": digest.item_digest(PRE[1]).digest,
        "bytes": 30,
        "found": [{"line": 2, "position": 0}, {"line": 3, "position": 0}],
    }
    assert items[0]["found"] == []
    assert items[3] == items[2] | {"bytes": 6}  # stdin bytes == the str item
    assert doc["receipt_rows"] == 2 and doc["manifest_entries"] == 4


def test_lookup_several_ledgers(capsys, files):
    other = files / "other.jsonl"
    other.write_text(json.dumps(build_row(["binary"], [], "c", "m")) + "\n")
    code, out, _ = in_process(
        capsys,
        "lookup",
        str(files / "l.jsonl"),
        str(files / "pre.json"),
        "--ledger",
        str(other),
        "--json",
    )
    items = json.loads(out)["items"]
    assert code == 0
    assert items[2]["found"] == [
        {"ledger": str(files / "l.jsonl"), "line": 2, "position": 1},
        {"ledger": str(files / "l.jsonl"), "line": 3, "position": 1},
        {"ledger": str(other), "line": 1, "position": 0},
    ]


def test_selftest_json_subprocess():
    p = run("selftest", "--json")
    assert p.returncode == 0 and b"Traceback" not in p.stderr
    doc = json.loads(p.stdout)
    assert doc["ok"] is True and len(doc["checks"]) == 23
    assert all(c["ok"] is True and c["name"] for c in doc["checks"])


def test_selftest_human_and_broken(capsys, monkeypatch):
    code, out, _ = in_process(capsys, "selftest")
    assert code == 0 and out.count("PASS") == 23 and out.rstrip().endswith("all checks passed")
    monkeypatch.setattr(digest, "JSON_C14N_PREFIX", "sha256:json-c14n:v2:")
    code, out, _ = in_process(capsys, "selftest", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["ok"] is False
    assert {c["name"] for c in doc["checks"] if not c["ok"]} >= {"json []", "pre.digest vector"}
    code, out, _ = in_process(capsys, "selftest")
    assert code == 1 and "FAIL" in out and "checks failed" in out


def test_conformance_receipts(corpus):
    assert_conformance("receipts")


def test_conformance_lookup(corpus):
    assert_conformance("lookup")


def test_conformance_selftest(corpus):
    assert_conformance("selftest")
