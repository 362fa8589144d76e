"""The check verb: the kinds conformance corpus for every family of part one, the text
line, exit codes over several paths, usage errors, and hostile input — a verdict or one
clear line, never a traceback, every evidence string shown escaped."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import CHECK, CORPUS, sealscope_cmd

KINDS = CORPUS / "kinds"


def run(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sealscope", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.fixture
def kinds_corpus() -> Path:
    if not CHECK.is_file() or not (KINDS / "cases.jsonl").is_file():
        pytest.skip("../shared/conformance/corpus/kinds is not present")
    return KINDS


@pytest.mark.parametrize(
    "family",
    [
        "check/receipt/",
        "check/distill-receipt/",
        "check/portable-receipt/",
        "check/continuity-verdict/",
        "check/artefact/",
        "check/call-record/",
        "check/ledger/",
    ],
)
def test_kinds_conformance(kinds_corpus: Path, family: str) -> None:
    p = subprocess.run(
        [
            sys.executable,
            str(CHECK),
            "--cmd",
            sealscope_cmd(),
            "--jobs",
            "1",
            "--only",
            family,
            str(kinds_corpus),
        ],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    assert p.returncode == 0 and last.endswith(" 0 failed"), p.stdout + p.stderr


def _receipt_file(tmp: Path) -> Path:
    from sealscope.core import receipt

    row = receipt.build_row(["a", "b", "c"], ["a"], "agent", "fifo")
    path = tmp / "receipt.json"
    path.write_text(json.dumps(row, indent=2), encoding="utf-8")
    return path


def test_text_line_names_the_bound_beside_verified(tmp_path: Path) -> None:
    path = _receipt_file(tmp_path)
    res = run("check", str(path))
    assert res.returncode == 0, res.stderr
    assert res.stdout == (f"VERIFIED · self-consistent, content not checked  receipt  {path}\n")


def test_exit_code_is_the_worst_over_paths(tmp_path: Path) -> None:
    good = _receipt_file(tmp_path)
    bad = tmp_path / "bad.json"
    row = json.loads(good.read_text())
    row["compactor"] = "someone else"
    bad.write_text(json.dumps(row, indent=2), encoding="utf-8")
    missing = tmp_path / "missing.jsonl"
    assert run("check", str(good), str(missing)).returncode == 3
    res = run("check", str(good), str(missing), str(bad), "--json")
    assert res.returncode == 1
    doc = json.loads(res.stdout)
    assert [d["verdict"] for d in doc] == ["VERIFIED", "COULD NOT LOOK", "BROKEN"]
    assert doc[1]["kind"] is None and doc[1]["detail"]["reason_word"] == "missing"
    assert [d["path"] for d in doc] == [str(good), str(missing), str(bad)]
    lines = run("check", str(good), str(missing), str(bad)).stdout.splitlines()
    assert lines[1].startswith("COULD NOT LOOK  -  ") and lines[2].startswith("BROKEN  receipt  ")


def test_bad_flags_are_usage_errors(tmp_path: Path) -> None:
    path = _receipt_file(tmp_path)
    assert run("check").returncode == 2
    assert run("check", str(path), "--nope").returncode == 2
    res = run("check", str(path), "--artefacts", str(tmp_path / "no-such-folder"))
    assert res.returncode == 2 and "not a folder" in res.stderr


HOSTILE = {
    "deep.json": b"[" * 100_000 + b"]" * 100_000,
    "deep-object.json": b'{"schema": "arcaeon-compact:receipt:v2", "pre": '
    + b"[" * 50_000
    + b"]" * 50_000
    + b"}",
    "nan-receipt.json": b'{"schema": "arcaeon-compact:receipt:v2", "pre": NaN, "post": {}}',
    "verdict-escape.json": b'{"schema": "arcaeon-continuity:verdict:v1", "faithful": "\\u001b[31m",'
    b' "valid": true, "divergences": [], "receipt": {}}',
    "portable.json": b'{"receipt_version": "arcaeon-receipt/0.1", "ledger": {"chain": "x", '
    b'"path": "../../../etc/passwd"}, "body_digest": 1}',
    "calls.jsonl": b'{"op": "tool_call", "args_digest": 1, "args": {"a": NaN}}\n\xff\n',
    "garbage.bin": bytes(range(256)) * 50,
    "zip-ish.bin": b"PK\x03\x04" + b"\x00" * 40,
    "ledger.jsonl": b'{"kind": "continuity_verify", "verdict_digest": []}\n'
    b'{"artefact": {"digest": "sha256:raw-bytes:v1:' + b"0" * 64 + b'", "subject": '
    b'{"name": "../../x"}}}\n{"kind": "distill_receipt", "drops": 5}\n',
    "name-\x1b[2J-\u202e.json".encode(): b"{}",
}


@pytest.mark.parametrize("name", sorted(HOSTILE, key=repr))
def test_hostile_input_gives_a_verdict_not_a_traceback(tmp_path: Path, name: bytes | str) -> None:
    fname = name.decode() if isinstance(name, bytes) else name
    p = tmp_path / fname
    p.write_bytes(HOSTILE[name])
    held = tmp_path / "held"
    held.mkdir()
    for argv in (("--json",), (), ("--artefacts", str(held))):
        res = run("check", str(p), *argv)
        assert "Traceback" not in res.stderr, res.stderr
        assert res.returncode in (0, 1, 3)
        if argv == ("--json",):  # data: the path exactly as given, JSON-escaped
            [doc] = json.loads(res.stdout)
            assert doc["exit_code"] == res.returncode and doc["path"] == str(p)
        else:  # a terminal line: every evidence string escaped
            assert "\x1b" not in res.stdout and "\u202e" not in res.stdout


def test_hostile_path_is_shown_escaped(tmp_path: Path) -> None:
    p = tmp_path / "name-\x1b[2J-\u202e.json"
    p.write_bytes(b"{}")
    res = run("check", str(p))
    assert res.returncode == 3
    assert "name-\\x1b[2J-\\u202e.json" in res.stdout


def test_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    res = run("check", str(fifo), "--json")
    [doc] = json.loads(res.stdout)
    assert res.returncode == 3 and doc["kind"] is None
    assert doc["detail"]["reason_word"] == "unreadable"


# ----------------------------------------------------------------------- verify's additions


def test_verify_names_check_for_another_kind_on_stderr_only(tmp_path: Path) -> None:
    from sealscope.core import ledger

    path = _receipt_file(tmp_path)
    plain = tmp_path / "plain.jsonl"
    ledger.append(plain, {"i": 1})
    res = run("verify", str(path), "--json")
    note = f"note: {path} looks like receipt; its own check is `sealscope check {path}`"
    assert note in res.stderr.splitlines()
    doc = json.loads(res.stdout)
    assert "note" not in res.stdout and doc["verdict"] == "BROKEN" and res.returncode == 1
    quiet = run("verify", str(plain))
    assert "note:" not in quiet.stderr and quiet.returncode == 0


def _reference_since_pin(ledger: Path, pins: Path, ns: str, capsys) -> dict:
    from arcaeon import cli as ref_cli

    ref_cli.main(["verify", str(ledger), "--witness", str(pins), "--ns", ns])
    return json.loads(capsys.readouterr().out)["since_pin"]


@pytest.mark.parametrize("more", [0, 3, -2])
def test_verify_witness_since_pin_as_the_reference_cli(tmp_path: Path, capsys, more: int) -> None:
    from arcaeon.record.ledger import Ledger
    from arcaeon.record.ledger import witness as ref_witness

    path = tmp_path / "l.jsonl"
    led = Ledger(path)
    for i in range(4):
        led.append({"i": i})
    pins = tmp_path / "pins.jsonl"
    ref_witness.publish_head(ref_witness.WitnessStore(str(pins)), "ns", led)
    for i in range(max(more, 0)):
        led.append({"j": i})
    if more < 0:  # rows cut off the end
        lines = path.read_bytes().splitlines(keepends=True)
        path.write_bytes(b"".join(lines[:more]))
    want = _reference_since_pin(path, pins, "ns", capsys)
    res = run("verify", str(path), "--witness", str(pins), "--ns", "ns", "--json")
    assert json.loads(res.stdout)["since_pin"] == want
    assert want["rows_since_pin"] == more


def test_verify_witness_since_pin_without_a_pin(tmp_path: Path, capsys) -> None:
    from sealscope.core import ledger

    path = tmp_path / "l.jsonl"
    ledger.append(path, {"i": 1})
    for store in (tmp_path / "none.jsonl", tmp_path / "empty.jsonl"):
        if store.name == "empty.jsonl":
            store.write_bytes(b"")
        want = _reference_since_pin(path, store, "ns", capsys)
        got = json.loads(
            run("verify", str(path), "--witness", str(store), "--ns", "ns", "--json").stdout
        )["since_pin"]
        assert got["rows_since_pin"] is None is want["rows_since_pin"]
        assert got.get("namespace") == want.get("namespace")


# ----------------------------------------------------------------------- receipts FILE


@pytest.mark.parametrize("held", ["honest", "liar", "none"])
def test_receipts_reads_a_stand_alone_receipt_file_with_held_content(
    tmp_path: Path, held: str
) -> None:
    import arcaeon.prove.compact as compact

    pre, post = ["a", {"b": 1}, "c"], ["a"]
    r = compact.CompactionReceipt.open(pre)
    r.record_kept(post)
    row = r.seal(tmp_path / "ref.jsonl", compactor="agent", method="fifo")
    row.pop("chain")
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(row, indent=2), encoding="utf-8")
    argv = ["receipts", str(path), "--json"]
    given_pre = pre if held == "honest" else ["a", {"b": 2}, "c"]
    if held != "none":
        (tmp_path / "pre.json").write_text(json.dumps(given_pre), encoding="utf-8")
        (tmp_path / "post.json").write_text(json.dumps(post), encoding="utf-8")
        argv += ["--pre", str(tmp_path / "pre.json"), "--post", str(tmp_path / "post.json")]
    res = run(*argv)
    [got] = json.loads(res.stdout)
    ref = (
        compact.verify_receipt(row)
        if held == "none"
        else compact.verify_receipt(row, given_pre, post)
    )
    assert got["line"] == 1
    for key in ("ok", "self_consistent", "content", "verified_scope", "schema"):
        assert got[key] == ref[key], key
    assert res.returncode == (0 if ref["ok"] else 1)


# ----------------------------------------------------------------------- CI formats, MCP


def _mixed(tmp: Path) -> tuple[Path, Path]:
    """A call record whose line 2 carries no inline args, and a ledger with a failing
    receipt row on line 2."""
    from sealscope.core import ledger, receipt
    from sealscope.core.checks.call_record import args_digest

    calls = tmp / "x.calls.jsonl"
    for args in [{"a": 1}, None, {"c": 3}]:
        d, n = args_digest(args if args is not None else {"big": 1})
        ledger.append(
            calls, {"op": "tool_call", "tool": "t", "args_digest": d, "args": args, "args_bytes": n}
        )
    led = tmp / "l.jsonl"
    ledger.append(led, {"evt": "start"})
    row = receipt.build_row(["a", "b"], ["a"], "agent", "fifo")
    row["compactor"] = "edited"
    ledger.append(led, row)
    return calls, led


def test_github_annotations_point_at_row_checks(tmp_path: Path) -> None:
    calls, led = _mixed(tmp_path)
    res = run("check", str(calls), str(led), "--format", "github")
    assert res.returncode == 1
    lines = res.stdout.splitlines()
    assert any(
        x.startswith(f"::warning file={calls},line=2,title=call-args could not look::")
        for x in lines
    ), lines
    assert any(
        x.startswith(f"::error file={led},line=2,title=compaction-receipt broken::") for x in lines
    ), lines
    assert "2 paths checked" in res.stderr


def test_junit_has_a_case_per_check_and_vsa_is_written(tmp_path: Path) -> None:
    import xml.etree.ElementTree as ET

    calls, led = _mixed(tmp_path)
    junit, vsa = tmp_path / "j.xml", tmp_path / "v.json"
    res = run("check", str(calls), str(led), "--junit", str(junit), "--vsa", str(vsa))
    assert res.returncode == 1
    suites = ET.parse(junit).getroot().findall("testsuite")
    names = {s.get("name"): [c.get("name") for c in s.findall("testcase")] for s in suites}
    assert names[str(calls)] == [
        "call record chain",
        "line 1 call-args",
        "line 2 call-args",
        "line 3 call-args",
    ]
    assert names[str(led)] == ["chain", "line 2 compaction-receipt"]
    doc = json.loads(vsa.read_text())
    assert doc["predicate"]["verificationResult"] == "FAILED"
    assert doc["predicate"]["sealscope"]["policy"]["verb"] == "check"


def test_mcp_check_tool(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from sealscope import mcp_server as mcp

    monkeypatch.setenv("SEALSCOPE_CALL_RECORD", str(tmp_path / "server.calls.jsonl"))
    calls, led = _mixed(tmp_path)
    reply = mcp.handle(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "check", "arguments": {"paths": [str(calls), str(led)]}},
        }
    )
    assert reply is not None and not reply["result"].get("isError")
    doc = json.loads(reply["result"]["content"][0]["text"])
    assert [r["verdict"] for r in doc["results"]] == ["COULD NOT LOOK", "BROKEN"]
    assert doc["exit_code"] == 1
    bad = mcp.handle(
        {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "tools/call",
            "params": {"name": "check", "arguments": {"paths": []}},
        }
    )
    assert bad is not None and bad["result"]["isError"]
