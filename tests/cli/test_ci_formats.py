"""CI formats: GitHub workflow commands, step summary, JUnit XML and the in-toto VSA,
parsed back with real parsers and checked against the samples' verdicts."""
from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from sealscope.core import ledger

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
EXE = Path(sys.executable).parent / "sealscope"

# GitHub's workflow-command grammar: `::name key=value,key=value::message`, one per line
COMMAND = re.compile(r"^::(?P<name>[a-z-]+)(?: (?P<props>[^:]*))?::(?P<msg>.*)$")


def run(*argv: str, env: dict | None = None) -> subprocess.CompletedProcess:
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    return subprocess.run([*cmd, *argv], capture_output=True, text=True, timeout=300,
                          env=env, stdin=subprocess.DEVNULL, check=False)


def unescape(text: str) -> str:
    return text.replace("%0A", "\n").replace("%0D", "\r").replace("%3A", ":") \
        .replace("%2C", ",").replace("%25", "%")


def commands(stdout: str) -> list[dict]:
    out = []
    for line in stdout.splitlines():
        m = COMMAND.match(line)
        assert m, f"not a workflow command: {line!r}"
        props = dict(p.split("=", 1) for p in (m["props"] or "").split(",") if p)
        out.append({"name": m["name"], **{k: unescape(v) for k, v in props.items()},
                    "msg": unescape(m["msg"])})
    return out


def test_tampered_gives_one_error_at_line_4():
    p = run("verify", str(SAMPLES / "tampered.jsonl"), "--format", "github")
    assert p.returncode == 1
    cmds = commands(p.stdout)
    assert cmds == [{"name": "error", "file": str(SAMPLES / "tampered.jsonl"), "line": "4",
                     "title": "ledger break", "msg": "line 4: chain mismatch"}]
    assert "BROKEN" in p.stderr  # the human one-line summary stays on stderr


def test_honest_gives_nothing_but_the_summary():
    p = run("verify", str(SAMPLES / "session.jsonl"), "--format", "github")
    assert p.returncode == 0 and p.stdout == ""
    assert "VERIFIED" in p.stderr


def test_declared_break_is_a_warning():
    p = run("verify", str(SAMPLES / "declared-break.jsonl"), "--format", "github")
    assert p.returncode == 3
    (cmd,) = commands(p.stdout)
    assert cmd["name"] == "warning" and cmd["line"] == "3"
    assert cmd["msg"].startswith("line 3: declared break (")


def test_liar_receipt_is_named(tmp_path):
    held = SAMPLES / "held"
    p = run("receipts", str(SAMPLES / "liar.jsonl"), "--pre", str(held / "liar-pre.json"),
            "--post", str(held / "liar-post.json"), "--format", "github")
    assert p.returncode == 1
    errors = [c for c in commands(p.stdout) if c["name"] == "error"]
    assert len(errors) == 1 and errors[0]["line"] == "3"
    assert errors[0]["title"] == "compaction receipt fails"
    assert errors[0]["msg"].startswith("line 3: ")


EVIL = "x%0A::set-output name=pwned::1\n::error::forged\r::warning::also %25"


def _hostile_ledger(tmp_path: Path) -> Path:
    """A file whose name and rows carry workflow-command text: an orphan row excused by
    a declaration whose `why` is hostile (a warning), a broken chain and a duplicate key
    whose name is hostile (errors)."""
    p = tmp_path / "evil,name:x\n::error::named.jsonl"
    ledger.append(p, {"op": "a"})
    with p.open("a") as fh:
        fh.write('{"op": "orphan"}\n')
    ledger.declare_break(p, 2, EVIL)
    ledger.append(p, {"op": EVIL})
    with p.open("a") as fh:
        fh.write('{"k\\n::error::x": 1, "k\\n::error::x": 2}\n')
    lines = p.read_text().splitlines()
    lines[0] = lines[0].replace('"op": "a"', '"op": "b"')
    p.write_text("\n".join(lines) + "\n")
    return p


def test_hostile_rows_cannot_inject_a_command(tmp_path):
    path = _hostile_ledger(tmp_path)
    p = run("verify", str(path), "--format", "github")
    assert p.returncode == 1
    cmds = commands(p.stdout)  # every line parses as exactly one of our commands
    doc = json.loads(run("verify", str(path), "--json").stdout)
    assert sorted(c["name"] for c in cmds) == ["error"] * doc["breaks"] + ["warning"], p.stdout
    shown = str(path).replace("\n", "\\n")  # the sanitizer's visible escape
    assert all(c["file"] == shown for c in cmds)
    assert all(line.startswith(("::error file=", "::warning file="))
               for line in p.stdout.splitlines())
    assert any("duplicate key" in c["msg"] for c in cmds)
    (warn,) = [c for c in cmds if c["name"] == "warning"]
    assert "::set-output" in warn["msg"] and "\\n::error::forged" in warn["msg"]
    assert all("\n" not in c["msg"] and "\r" not in c["msg"] for c in cmds)


def test_step_summary_is_appended_and_bounded(tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = dict(os.environ, GITHUB_STEP_SUMMARY=str(summary))
    p = run("verify", str(SAMPLES / "tampered.jsonl"), "--format", "github", env=env)
    assert p.returncode == 1
    text = summary.read_text()
    assert text.startswith("earlier step\n") and "line 4: chain mismatch" in text
    from sealscope.ci_formats import step_summary
    big = "".join(f"| row {i} | {'x' * 80} |\n" for i in range(20000))
    cut = step_summary(big)
    assert len(cut.encode()) <= 1 << 20 and "Report truncated" in cut
    assert step_summary("short\n") == "short\n"


def _junit(path: Path) -> ET.Element:
    root = ET.parse(path).getroot()
    # the common JUnit schema: testsuites > testsuite(name, tests, failures) > testcase(name,
    # classname), with at most one failure/skipped child carrying a message
    assert root.tag == "testsuites"
    for s in root:
        assert s.tag == "testsuite" and {"name", "tests", "failures"} <= set(s.attrib)
        assert int(s.get("tests")) == len(s)
        assert int(s.get("failures")) == sum(1 for c in s if c.find("failure") is not None)
        for c in s:
            assert c.tag == "testcase" and {"name", "classname"} <= set(c.attrib)
            assert len([x for x in c if x.tag in ("failure", "skipped", "error")]) <= 1
    return root


def test_junit_for_verify_and_receipts(tmp_path):
    out = tmp_path / "verify.xml"
    p = run("verify", str(SAMPLES / "tampered.jsonl"), str(SAMPLES / "session.jsonl"),
            "--junit", str(out))
    assert p.returncode == 1
    root = _junit(out)
    suites = {s.get("name"): s for s in root}
    t = suites[str(SAMPLES / "tampered.jsonl")]
    (case,) = list(t)
    assert case.get("name") == "chain"
    assert "line 4: chain mismatch" in case.find("failure").text
    assert suites[str(SAMPLES / "session.jsonl")].find("testcase/failure") is None
    out2 = tmp_path / "receipts.xml"
    run("receipts", str(SAMPLES / "session.jsonl"), "--junit", str(out2))
    cases = [c.get("name") for c in _junit(out2).iter("testcase")]
    assert cases == ["receipt line 5", "receipt line 7"]


def test_junit_survives_hostile_rows(tmp_path):
    path = _hostile_ledger(tmp_path)
    out = tmp_path / "h.xml"
    run("verify", str(path), "--junit", str(out))
    root = _junit(out)
    suite = root.find("testsuite")
    assert suite.get("name") == str(path).replace("\n", "\\n")  # visible, not raw
    failure = suite.find("testcase/failure")
    assert failure.get("message").startswith("BROKEN") and "chain mismatch" in failure.text


def test_pin_check_is_a_test_case(tmp_path):
    out = tmp_path / "pin.xml"
    p = run("verify", str(SAMPLES / "truncated.jsonl"), "--pin",
            (SAMPLES / "truncated.pin").read_text().strip(), "--junit", str(out))
    assert p.returncode == 1
    cases = {c.get("name"): c for c in _junit(out).iter("testcase")}
    assert set(cases) == {"chain", "pin"}
    assert cases["chain"].find("failure") is None
    assert "truncated" in cases["pin"].find("failure").text


def test_vsa_statement_shape_and_digests(tmp_path):
    out = tmp_path / "vsa.json"
    files = [SAMPLES / "session.jsonl", SAMPLES / "tampered.jsonl"]
    p = run("verify", *map(str, files), "--strict", "--vsa", str(out))
    assert p.returncode == 1
    st = json.loads(out.read_text())
    assert st["_type"] == "https://in-toto.io/Statement/v1"
    assert st["predicateType"] == "https://slsa.dev/verification_summary/v1"
    assert isinstance(st["subject"], list) and len(st["subject"]) == 2
    for subj, f in zip(st["subject"], files, strict=True):
        assert subj["name"] == str(f)
        assert set(subj["digest"]) == {"sha256"}
        assert re.fullmatch("[0-9a-f]{64}", subj["digest"]["sha256"])
        assert subj["digest"]["sha256"] == hashlib.sha256(f.read_bytes()).hexdigest()
        sha = subprocess.run(["sha256sum", str(f)], capture_output=True, text=True, check=True)
        assert subj["digest"]["sha256"] == sha.stdout.split()[0]
    pred = st["predicate"]
    assert pred["verifier"]["id"] and isinstance(pred["verifier"]["version"]["sealscope"], str)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", pred["timeVerified"])
    assert pred["verificationResult"] == "FAILED" and pred["verifiedLevels"] == []
    assert pred["sealscope"]["policy"]["strict"] is True
    ok = tmp_path / "ok.json"
    assert run("verify", str(files[0]), "--vsa", str(ok)).returncode == 0
    assert json.loads(ok.read_text())["predicate"]["verificationResult"] == "PASSED"


@pytest.mark.parametrize("verb", ["verify", "receipts"])
def test_stdout_carries_only_the_chosen_format(verb, tmp_path):
    p = run(verb, str(SAMPLES / "session.jsonl"), "--junit", str(tmp_path / "x.xml"),
            "--format", "github")
    assert all(COMMAND.match(line) for line in p.stdout.splitlines())
