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
    p = subprocess.run(
        [*cmd, *argv],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    if "github" in argv:  # stderr is text inside stop-commands pauses (issue 32)
        p.stderr = unwrap_stop_commands(p.stderr)
    return p


def unwrap_stop_commands(stderr: str) -> str:
    """stderr without its `::stop-commands::TOKEN` ... `::TOKEN::` lines, each pause
    closed by its own token."""
    kept, token = [], None
    for line in stderr.splitlines(keepends=True):
        m = re.match(r"^::stop-commands::(sealscope-[0-9a-f]{32})$", line.rstrip("\n"))
        if token is None and m:
            token = m[1]
        elif token is not None and line.rstrip("\n") == f"::{token}::":
            token = None
        else:
            kept.append(line)
    assert token is None, f"a stop-commands pause left open: {stderr!r}"
    return "".join(kept)


def unescape(text: str) -> str:
    return (
        text.replace("%0A", "\n")
        .replace("%0D", "\r")
        .replace("%3A", ":")
        .replace("%2C", ",")
        .replace("%25", "%")
    )


def commands(stdout: str) -> list[dict]:
    out = []
    for line in stdout.split("\n")[:-1]:  # the runner splits at LF (CR is escaped)
        m = COMMAND.match(line)
        assert m, f"not a workflow command: {line!r}"
        props = dict(p.split("=", 1) for p in (m["props"] or "").split(",") if p)
        out.append(
            {
                "name": m["name"],
                **{k: unescape(v) for k, v in props.items()},
                "msg": unescape(m["msg"]),
            }
        )
    return out


def test_tampered_gives_one_error_at_line_4():
    p = run("verify", str(SAMPLES / "tampered.jsonl"), "--format", "github")
    assert p.returncode == 1
    cmds = commands(p.stdout)
    assert cmds == [
        {
            "name": "error",
            "file": str(SAMPLES / "tampered.jsonl"),
            "line": "4",
            "title": "ledger break",
            "msg": "line 4: chain mismatch",
        }
    ]
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
    p = run(
        "receipts",
        str(SAMPLES / "liar.jsonl"),
        "--pre",
        str(held / "liar-pre.json"),
        "--post",
        str(held / "liar-post.json"),
        "--format",
        "github",
    )
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
    shown = str(path)  # the real path, escaped by the property rules only (issue 32)
    assert all(c["file"] == shown for c in cmds)
    assert all(
        line.startswith(("::error file=", "::warning file=")) for line in p.stdout.splitlines()
    )
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
    p = run(
        "verify",
        str(SAMPLES / "tampered.jsonl"),
        str(SAMPLES / "session.jsonl"),
        "--junit",
        str(out),
    )
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
    p = run(
        "verify",
        str(SAMPLES / "truncated.jsonl"),
        "--pin",
        (SAMPLES / "truncated.pin").read_text().strip(),
        "--junit",
        str(out),
    )
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


def test_vsa_of_a_fifo_lists_it_undigested_instead_of_waiting_on_it(tmp_path):
    """`verify A FIFO --vsa`: the verdict refuses the FIFO, and the summary's hashing must
    not open it for reading (that waits for a writer forever: the timeout would fire)."""
    fifo, out = tmp_path / "pipe.jsonl", tmp_path / "vsa.json"
    os.mkfifo(fifo)
    good = SAMPLES / "session.jsonl"
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    p = subprocess.run(
        [*cmd, "verify", str(good), str(fifo), "--vsa", str(out)],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert p.returncode == 3
    st = json.loads(out.read_text())
    assert [s["name"] for s in st["subject"]] == [str(good)]
    assert [(r["path"], r["sha256"]) for r in st["predicate"]["sealscope"]["results"]] == [
        (str(good), hashlib.sha256(good.read_bytes()).hexdigest()),
        (str(fifo), None),
    ]
    assert st["predicate"]["verificationResult"] == "FAILED"
    # a FIFO alone: nothing to digest, no summary, and still no wait
    p = subprocess.run(
        [*cmd, "verify", str(fifo), "--vsa", str(tmp_path / "none.json")],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert p.returncode == 3 and not (tmp_path / "none.json").exists()
    assert "no file could be read to digest" in p.stderr


@pytest.mark.parametrize(
    "verb,target",
    [
        ("verify", "tampered.jsonl"),
        ("receipts", "session.jsonl"),
        ("fleet", "."),
        ("harn", "harn/run-record.json"),
        ("export", "tampered.jsonl"),
    ],
)
def test_stdout_carries_only_the_chosen_format(verb, target, tmp_path):
    p = run(verb, str(SAMPLES / target), "--junit", str(tmp_path / "x.xml"), "--format", "github")
    assert p.stdout and all(COMMAND.match(line) for line in p.stdout.splitlines())
    assert len(p.stderr.strip().splitlines()) == 1  # the one-line human summary
    _junit(tmp_path / "x.xml")


# --------------------------------------------------------------------------- every verb
#
# JUnit rules checked by `_junit` (the common schema GitLab, Jenkins and the GitHub test
# reporters read): root `testsuites`; each child a `testsuite` with `name`, `tests`,
# `failures`; `tests` equals its `testcase` children and `failures` the cases holding a
# `failure`; each `testcase` has `name` and `classname` and at most one of
# `failure`/`skipped`/`error`, each with a `message`.
#
# The VSA rules checked by `_vsa` (in-toto Statement v1 + SLSA verification_summary v1):
# `_type`, `subject` (a non-empty list of `{name: str, digest: {alg: lowercase hex}}`
# with `sha256` a 64-digit digest), `predicateType`, `predicate` with `verifier.id`,
# `timeVerified` (RFC 3339 UTC), `resourceUri`, `policy`, `verificationResult`
# PASSED/FAILED and `verifiedLevels` a list (empty: sealscope claims no SLSA level).

HELD_DIR = SAMPLES / "held"
HARN = SAMPLES / "harn"


def sha256sum(path: Path) -> str:
    """What `sha256sum` prints for the file, computed here from its bytes."""
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _vsa(path: Path, files: list[Path]) -> dict:
    st = json.loads(path.read_text(encoding="ascii"))
    assert st["_type"] == "https://in-toto.io/Statement/v1"
    assert st["predicateType"] == "https://slsa.dev/verification_summary/v1"
    assert isinstance(st["subject"], list) and st["subject"]
    for subj in st["subject"]:
        assert set(subj) == {"name", "digest"} and isinstance(subj["name"], str)
        assert subj["digest"] and all(
            re.fullmatch("[a-z0-9-]+", alg) and re.fullmatch("[0-9a-f]+", v)
            for alg, v in subj["digest"].items()
        )
        assert re.fullmatch("[0-9a-f]{64}", subj["digest"]["sha256"])
    assert {s["name"]: s["digest"]["sha256"] for s in st["subject"]} == {
        str(f): sha256sum(f) for f in files
    }
    pred = st["predicate"]
    assert isinstance(pred["verifier"]["id"], str) and pred["verifier"]["id"]
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", pred["timeVerified"])
    assert isinstance(pred["resourceUri"], str)
    assert isinstance(pred["policy"], dict)
    assert pred["verificationResult"] in ("PASSED", "FAILED")
    assert pred["verifiedLevels"] == []
    return st


def _failing_receipt_ledger(path: Path) -> Path:
    """A chain that holds, with on line 2 a v2 receipt that contradicts itself
    (manifest of 3 items, dropped.count 99): it fails without any held content."""
    row = json.loads((SAMPLES / "session.jsonl").read_text().splitlines()[6])
    row["dropped"] = dict(row["dropped"], count=99)
    ledger.append(path, {"op": "start"})
    ledger.append(path, row)
    return path


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder to audit: honest, tampered, declared break, a failing receipt."""
    d = tmp_path / "ledgers"
    d.mkdir()
    for name in ("session.jsonl", "tampered.jsonl", "declared-break.jsonl"):
        (d / name).write_bytes((SAMPLES / name).read_bytes())
    _failing_receipt_ledger(d / "bad-receipt.jsonl")
    return d


def test_fleet_annotations_match_the_verdicts(folder):
    p = run("fleet", str(folder), "--format", "github")
    assert p.returncode == 1
    by_file: dict[str, list] = {}
    for c in commands(p.stdout):
        by_file.setdefault(Path(c["file"]).name, []).append(c)
    assert by_file == {
        "tampered.jsonl": [
            {
                "name": "error",
                "file": str(folder / "tampered.jsonl"),
                "line": "4",
                "title": "ledger break",
                "msg": "line 4: chain mismatch",
            }
        ],
        "declared-break.jsonl": [
            {
                "name": "warning",
                "file": str(folder / "declared-break.jsonl"),
                "line": "3",
                "title": "declared break",
                "msg": by_file["declared-break.jsonl"][0]["msg"],
            }
        ],
        "bad-receipt.jsonl": [
            {
                "name": "error",
                "file": str(folder / "bad-receipt.jsonl"),
                "line": "2",
                "title": "compaction receipt fails",
                "msg": by_file["bad-receipt.jsonl"][0]["msg"],
            }
        ],
    }
    assert by_file["declared-break.jsonl"][0]["msg"].startswith("line 3: declared break (")
    assert by_file["bad-receipt.jsonl"][0]["msg"].startswith(
        "line 2: manifest length 3 != dropped.count 99"
    )
    # the fleet's words: a failing receipt makes the ledger BROKEN 1, as `export` says
    assert p.stderr.startswith(
        "4 ledgers: 1 verified, 2 broken, 1 could not look; receipts 5 (1 failed, 4 bounded)"
    )


def test_fleet_honest_gives_nothing_but_the_summary(tmp_path):
    p = run("fleet", str(SAMPLES / "session.jsonl"), "--format", "github")
    assert p.returncode == 0 and p.stdout == ""
    assert p.stderr.startswith("1 ledger: 1 verified")


def test_fleet_junit_one_suite_per_ledger_a_case_per_check(folder, tmp_path):
    out = tmp_path / "fleet.xml"
    p = run("fleet", str(folder), "--junit", str(out))
    assert p.returncode == 1
    suites = {Path(s.get("name")).name: s for s in _junit(out)}
    assert set(suites) == {
        "session.jsonl",
        "tampered.jsonl",
        "declared-break.jsonl",
        "bad-receipt.jsonl",
    }
    cases = {n: {c.get("name"): c for c in s} for n, s in suites.items()}
    assert list(cases["session.jsonl"]) == ["chain", "receipt line 5", "receipt line 7"]
    assert cases["session.jsonl"]["chain"].find("failure") is None  # passed
    # a receipt checked without content is VERIFIED within a bound: passed, its scope said
    line7 = cases["session.jsonl"]["receipt line 7"]
    assert line7.find("skipped") is None and line7.find("failure") is None
    assert "scope=bounded_no_content" in line7.find("system-out").text
    assert "line 4: chain mismatch" in cases["tampered.jsonl"]["chain"].find("failure").text
    assert cases["declared-break.jsonl"]["chain"].find("skipped") is not None
    fail = cases["bad-receipt.jsonl"]["receipt line 2"].find("failure")
    assert fail.get("message") == "BROKEN: schema=v2 content=skipped scope=bounded_no_content"
    assert "dropped.count 99" in fail.text
    assert int(suites["bad-receipt.jsonl"].get("failures")) == 1
    # the human report still goes to stdout beside the JUnit file
    assert "4 ledgers: 1 verified, 2 broken, 1 could not look" in p.stdout


def test_fleet_vsa_every_ledger_a_subject(folder, tmp_path):
    out = tmp_path / "fleet.vsa.json"
    assert run("fleet", str(folder), "--strict", "--vsa", str(out)).returncode == 1
    files = sorted(folder.glob("*.jsonl"))
    st = _vsa(out, files)
    assert st["predicate"]["verificationResult"] == "FAILED"
    assert st["predicate"]["sealscope"]["policy"] == {
        "verb": "fleet",
        "strict": True,
        "glob": "*.jsonl",
        "incremental": False,
        "checks": ["chain", "receipts"],
    }
    ok = tmp_path / "ok.json"
    assert run("fleet", str(folder / "session.jsonl"), "--vsa", str(ok)).returncode == 0
    assert _vsa(ok, [folder / "session.jsonl"])["predicate"]["verificationResult"] == "PASSED"


def test_fleet_json_format_is_the_json_lines(folder):
    def lines(*flags: str) -> list[dict]:
        p = run("fleet", str(folder), *flags)
        assert p.returncode == 1
        docs = [json.loads(line) for line in p.stdout.splitlines()]
        docs[-1]["summary"].pop("seconds")
        return sorted(docs, key=lambda d: d.get("path", ""))

    assert lines("--format", "json") == lines("--json")


def test_fleet_entry_wire_keeps_every_finding_and_receipt(folder):
    """A pool or Dask worker sends entries as wire dicts: the rebuilt entry is the
    same, breaks and receipt rows included (the annotations are built from them)."""
    from sealscope.core.fleet import FleetEntry, audit_file

    for name in ("tampered.jsonl", "declared-break.jsonl", "bad-receipt.jsonl"):
        e = audit_file(folder / name)
        back = FleetEntry.from_dict(json.loads(json.dumps(e.to_wire())))
        assert back.result.findings == e.result.findings
        assert back.receipts == e.receipts and back.to_dict() == e.to_dict()
    e = audit_file(folder / "bad-receipt.jsonl")
    (row,) = e.receipts.rows
    assert (row.line, row.ok, row.schema) == (2, False, "v2")
    assert audit_file(folder / "tampered.jsonl").result.findings[0].line == 4


def test_harn_high_finding_is_an_error_medium_a_warning(tmp_path):
    p = run("harn", str(HARN / "run-record.json"), "--format", "github")
    assert p.returncode == 1
    cmds = commands(p.stdout)
    assert [(c["name"], c["title"]) for c in cmds] == [
        ("error", "harn archived_understated at run.stages[1].transcript"),
        ("warning", "harn snapshot_metadata_mismatch at run.stages[1].transcript"),
    ]
    assert all(c["file"] == str(HARN / "run-record.json") and "line" not in c for c in cmds)
    assert cmds[0]["msg"].startswith(
        "compaction #2 compaction-0196f3a2-b7e2-7022-8000-000000000022: archived_messages "
        "claims 3 but 5 messages are gone"
    )
    assert p.stderr.startswith("FINDINGS  ")


def test_harn_clean_gives_nothing_but_the_summary():
    p = run("harn", str(HARN / "session-transcript.json"), "--format", "github")
    assert p.returncode == 0 and p.stdout == ""
    assert p.stderr.startswith("OK  ")


def test_harn_junit_and_vsa(tmp_path):
    out, vsa = tmp_path / "h.xml", tmp_path / "h.json"
    f = HARN / "run-record.json"
    assert run("harn", str(f), "--junit", str(out), "--vsa", str(vsa)).returncode == 1
    (suite,) = _junit(out)
    cases = list(suite)
    assert [c.get("name") for c in cases] == [
        "compaction #1 evt-0196f3a2-b7e2-7009-8000-000000000009",
        "compaction #2 compaction-0196f3a2-b7e2-7022-8000-000000000022",
    ]
    assert cases[0].find("failure") is None
    assert cases[1].find("failure").get("message").startswith("FINDINGS: run.stages[1]")
    st = _vsa(vsa, [f])
    assert st["predicate"]["verificationResult"] == "FAILED"


def test_harn_unreadable_is_a_warning_exit_3(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    out = tmp_path / "b.xml"
    p = run("harn", str(bad), "--format", "github", "--junit", str(out))
    assert p.returncode == 3
    (cmd,) = commands(p.stdout)
    assert cmd["name"] == "warning" and cmd["file"] == str(bad)
    (case,) = _junit(out).iter("testcase")
    # could not look: a JUnit error (red), not a skip (grey) — issue 33
    assert case.find("error") is not None and case.find("skipped") is None


@pytest.mark.parametrize("verb", ["verify", "receipts", "fleet", "harn", "export"])
def test_a_missing_file_is_a_warning_and_a_junit_error(verb, tmp_path):
    gone = tmp_path / "gone.jsonl"
    out, vsa, summary = tmp_path / "m.xml", tmp_path / "m.json", tmp_path / "s.md"
    p = run(
        verb,
        str(gone),
        "--format",
        "github",
        "--junit",
        str(out),
        "--vsa",
        str(vsa),
        env=dict(os.environ, GITHUB_STEP_SUMMARY=str(summary)),
    )
    assert p.returncode == 3 and "Traceback" not in p.stderr
    assert "COULD NOT LOOK" in summary.read_text()
    (cmd,) = commands(p.stdout)
    assert cmd["name"] == "warning" and cmd["file"] == str(gone) and "line" not in cmd
    (case,) = _junit(out).iter("testcase")
    # could not look: a JUnit error (red in CI), not a skip (grey) — issue 33
    assert case.find("error") is not None and case.find("skipped") is None
    assert case.find("failure") is None
    assert not vsa.exists()  # nothing could be digested: no statement naming nothing
    assert "no file could be read to digest" in p.stderr


def test_harn_seal_refuses_the_audit_formats(tmp_path):
    p = run(
        "harn",
        "seal",
        str(HARN / "session-transcript.json"),
        "--ledger",
        str(tmp_path / "out.jsonl"),
        "--junit",
        str(tmp_path / "x.xml"),
    )
    assert p.returncode == 2 and "sealscope receipts OUT.jsonl" in p.stderr
    assert not (tmp_path / "out.jsonl").exists() and not (tmp_path / "x.xml").exists()


def test_export_github_annotates_the_report(tmp_path):
    f = SAMPLES / "tampered.jsonl"
    p = run("export", str(f), "--format", "github")
    assert p.returncode == 1
    cmds = commands(p.stdout)
    assert [c for c in cmds if c["name"] == "error"] == [
        {
            "name": "error",
            "file": str(f),
            "line": "4",
            "title": "ledger break",
            "msg": "line 4: chain mismatch",
        }
    ]
    # the receipts are VERIFIED within a bound: a notice each states the bound
    assert [(c["name"], c["line"]) for c in cmds if c["name"] in ("warning", "notice")] == [
        ("notice", "5"),
        ("notice", "7"),
    ]
    assert p.stderr.startswith("BROKEN  ")
    honest = run("export", str(SAMPLES / "hostile.jsonl"), "--format", "github")
    assert honest.returncode == 0 and honest.stdout == ""


def test_export_github_snapshot_and_usage(tmp_path):
    f = SAMPLES / "seals" / "seal-day1-tampered.json"
    p = run("export", str(f), "--format", "github")
    assert p.returncode == 1
    (cmd,) = commands(p.stdout)
    assert cmd["name"] == "error" and cmd["title"] == "snapshot broken"  # one of the three words
    assert cmd["msg"].startswith("BROKEN: manifest_digest does not reproduce")
    p = run("export", str(f), "--format", "github", "--output", str(tmp_path / "r.md"))
    assert p.returncode == 2 and not (tmp_path / "r.md").exists()
    p = run("export", str(SAMPLES / "session.jsonl"), "--junit", str(SAMPLES / "session.jsonl"))
    assert p.returncode == 2 and "refusing to write over an input" in p.stderr


def test_export_junit_vsa_and_the_report_together(tmp_path):
    f = SAMPLES / "tampered.jsonl"
    out, vsa, md = tmp_path / "e.xml", tmp_path / "e.json", tmp_path / "r.md"
    p = run("export", str(f), "--junit", str(out), "--vsa", str(vsa), "-o", str(md))
    assert p.returncode == 1 and "chain mismatch" in md.read_text()
    cases = {c.get("name"): c for c in _junit(out).iter("testcase")}
    assert list(cases) == ["chain", "receipt line 5", "receipt line 7"]
    assert "line 4: chain mismatch" in cases["chain"].find("failure").text
    assert _vsa(vsa, [f])["predicate"]["sealscope"]["policy"]["verb"] == "export"


def test_unwritable_outputs_are_one_line_exit_3(tmp_path):
    p = run(
        "verify",
        str(SAMPLES / "session.jsonl"),
        "--junit",
        str(tmp_path / "no" / "such" / "dir.xml"),
    )
    assert p.returncode == 3 and "Traceback" not in p.stderr
    assert "cannot write JUnit XML" in p.stderr
    p = run("verify", str(SAMPLES / "session.jsonl"), "--vsa", str(SAMPLES / "session.jsonl"))
    assert p.returncode == 2 and "refusing" in p.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ("fleet", "{folder}"),
        ("harn", str(HARN / "run-record.json")),
        ("export", str(SAMPLES / "tampered.jsonl")),
        (
            "receipts",
            str(SAMPLES / "liar.jsonl"),
            "--pre",
            str(HELD_DIR / "liar-pre.json"),
            "--post",
            str(HELD_DIR / "liar-post.json"),
        ),
    ],
)
def test_step_summary_for_every_verb(argv, folder, tmp_path):
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    env = dict(os.environ, GITHUB_STEP_SUMMARY=str(summary))
    argv = tuple(a.format(folder=folder) for a in argv)
    p = run(*argv, "--format", "github", env=env)
    assert p.returncode == 1
    text = summary.read_text()
    assert text.startswith("earlier step\n") and len(text) > len("earlier step\n") + 50
    assert "BROKEN" in text or "FINDINGS" in text or "high" in text


def test_step_summary_and_annotations_stay_bounded_end_to_end(tmp_path):
    """40,000 broken rows: the report is ~1.8 MB; the step summary file (with what an
    earlier step wrote) stays within 1 MiB and says what was left out; annotations stop
    at the limit with one warning saying how many more there were."""
    big = tmp_path / "big.jsonl"
    big.write_text("x\n" * 40000)
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n" * 1000)
    env = dict(os.environ, GITHUB_STEP_SUMMARY=str(summary))
    p = run("verify", str(big), "--format", "github", env=env)
    assert p.returncode == 1
    data = summary.read_bytes()
    assert len(data) <= 1 << 20 and data.startswith(b"earlier step\n" * 1000)
    tail = data.decode().rstrip().splitlines()[-1]
    assert tail.startswith("**Report truncated:** ") and "more bytes" in tail
    from sealscope.ci_formats import ANNOTATION_LIMIT

    cmds = commands(p.stdout)
    assert len(cmds) == ANNOTATION_LIMIT + 1
    assert [c["line"] for c in cmds[:3]] == ["1", "2", "3"]
    assert cmds[-1]["name"] == "warning" and cmds[-1]["msg"].startswith(
        f"{40000 - ANNOTATION_LIMIT} more annotation(s) ({40000 - ANNOTATION_LIMIT} error(s))"
    )


# --------------------------------------------------------------------------- injection

HOSTILE = (
    "x%0A::set-output name=pwned::1\n::error::forged\r::warning::also %25 "
    "\u2028::error::sep \u2029 \u202eevil\u202c \u2066iso\u2069 ]]> <x>&amp; "
    "\x00\x0b\x0c\x1b[31m\x85\ufffe\uffff end"
)
HOSTILE_NAME = "evil,name:x\n::error::named\u2028\u202e"
RAW = ("\r", "\x00", "\x0b", "\x0c", "\x1b", "\x85", "\u2028", "\u2029", "\u202e", "\u2066")


def _hostile_receipt_ledger(path: Path) -> Path:
    """An honest first row, then a receipt row whose schema is hostile (it fails,
    its note quotes the schema) and a row whose key is hostile."""
    row = json.loads((SAMPLES / "session.jsonl").read_text().splitlines()[6])
    row["schema"] = HOSTILE
    ledger.append(path, {"op": HOSTILE})
    ledger.append(path, row)
    return path


def _hostile_harn(path: Path) -> Path:
    """The run record with the understated compaction's id replaced by hostile text
    (both the event id and its receipt id, so no new finding appears)."""
    text = (HARN / "run-record.json").read_text()
    ident = "compaction-0196f3a2-b7e2-7022-8000-000000000022"
    path.write_text(text.replace(ident, json.dumps(HOSTILE)[1:-1] + ident))
    return path


def _hostile_case(verb: str, tmp_path: Path) -> tuple[list[str], list[Path], int, int]:
    """(argv, evidence files, errors expected, warnings expected)."""
    d = tmp_path / ("d" + HOSTILE_NAME)
    d.mkdir()
    if verb == "verify":
        f = _hostile_ledger(d)
        doc = json.loads(run("verify", str(f), "--json").stdout)
        return ["verify", str(f)], [f], doc["breaks"], 1
    if verb == "receipts":
        f = _hostile_receipt_ledger(d / (HOSTILE_NAME + ".jsonl"))
        return ["receipts", str(f)], [f], 1, 0
    if verb == "fleet":
        a = _hostile_ledger(d)
        b = _hostile_receipt_ledger(d / (HOSTILE_NAME + "2.jsonl"))
        doc = json.loads(run("verify", str(a), "--json").stdout)
        return ["fleet", str(d)], sorted([a, b]), doc["breaks"] + 1, 1
    if verb == "harn":
        f = _hostile_harn(d / (HOSTILE_NAME + ".json"))
        return ["harn", str(f)], [f], 1, 1
    f = _hostile_ledger(d)
    doc = json.loads(run("verify", str(f), "--json").stdout)
    return ["export", str(f)], [f], doc["breaks"], 1


@pytest.mark.parametrize("verb", ["verify", "receipts", "fleet", "harn", "export"])
def test_no_hostile_text_injects_into_any_format(verb, tmp_path):
    argv, files, errors, warnings = _hostile_case(verb, tmp_path)
    junit, vsa = tmp_path / "out.xml", tmp_path / "out.json"
    summary = tmp_path / "summary.md"
    env = dict(os.environ, GITHUB_STEP_SUMMARY=str(summary))
    p = run(*argv, "--format", "github", "--junit", str(junit), "--vsa", str(vsa), env=env)
    assert p.returncode == 1, p.stderr
    assert "Traceback" not in p.stderr
    # every stdout line is exactly one of our commands, on the evidence file
    cmds = commands(p.stdout)
    for line in p.stdout.split("\n")[:-1]:
        assert line.startswith(("::error file=", "::warning file=")), line
        # file= is the real path (issue 32); everything else is sanitized
        assert not any(ch in line.split(",title=")[-1] for ch in RAW), line
    assert [c["name"] for c in cmds].count("error") == errors, p.stdout
    assert [c["name"] for c in cmds].count("warning") == warnings, p.stdout
    assert {c["file"] for c in cmds} <= {str(f) for f in files}
    assert all("\n" not in c["msg"] and "\r" not in c["msg"] for c in cmds)
    if verb in ("receipts", "harn"):  # the hostile text reached a message, made visible
        assert any("::set-output" in c["msg"] and "\\u2028" in c["msg"] for c in cmds)
    # the XML parses, and no suite or case name carries a raw control character
    root = _junit(junit)
    for el in root.iter():
        for text in [*el.attrib.values(), el.text or ""]:
            assert not any(ch in text for ch in RAW + ("\ufffe", "\uffff")), (el.tag, text)
    assert b"]]>" not in junit.read_bytes()
    # the JSON parses and names every file by its own bytes' digest
    _vsa(vsa, files)
    # the step summary (Markdown) holds no raw control character either
    md = summary.read_text()
    assert md and not any(ch in md for ch in RAW if ch != "\r")


# --------------------------------------------------------------------------- docs/ci


def _pipeline_dir(tmp_path: Path) -> Path:
    work = tmp_path / "repo"
    (work / "ledgers").mkdir(parents=True)
    for name in ("session.jsonl", "tampered.jsonl"):
        (work / "ledgers" / name).write_bytes((SAMPLES / name).read_bytes())
    (work / "reports").mkdir()
    return work


def _shell(script: str, cwd: Path, env: dict) -> subprocess.CompletedProcess:
    path = f"{EXE.parent}{os.pathsep}{env.get('PATH', '')}"
    return subprocess.run(
        ["bash", "-e", "-c", script],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=dict(env, PATH=path),
        timeout=300,
        check=False,
    )


def test_the_github_actions_example_runs(tmp_path):
    import yaml

    doc = yaml.safe_load((ROOT / "docs" / "ci" / "github-actions.yml").read_text())
    steps = {s.get("name"): s for s in doc["jobs"]["audit"]["steps"]}
    work = _pipeline_dir(tmp_path)
    summary = tmp_path / "summary.md"
    p = _shell(
        steps["audit every ledger"]["run"], work, dict(os.environ, GITHUB_STEP_SUMMARY=str(summary))
    )
    assert p.returncode == 1, p.stderr
    assert commands(p.stdout) == [
        {
            "name": "error",
            "file": "ledgers/tampered.jsonl",
            "line": "4",
            "title": "ledger break",
            "msg": "line 4: chain mismatch",
        }
    ]
    assert len(list(_junit(work / "reports" / "ledgers.xml"))) == 2
    st = json.loads((work / "reports" / "ledgers.vsa.json").read_text())
    assert {s["name"]: s["digest"]["sha256"] for s in st["subject"]} == {
        f"ledgers/{n}": sha256sum(work / "ledgers" / n) for n in ("session.jsonl", "tampered.jsonl")
    }
    assert "tampered.jsonl" in summary.read_text()


def test_the_gitlab_example_runs(tmp_path):
    import yaml

    doc = yaml.safe_load((ROOT / "docs" / "ci" / "gitlab-ci.yml").read_text())
    work = _pipeline_dir(tmp_path)
    p = _shell("\n".join(doc["ledger-audit"]["script"]), work, dict(os.environ))
    assert p.returncode == 1, p.stderr
    suites = {s.get("name"): s for s in _junit(work / "reports" / "ledgers.xml")}
    assert suites["ledgers/tampered.jsonl"].get("failures") == "1"
    assert suites["ledgers/session.jsonl"].get("failures") == "0"


def test_liar_receipt_in_junit_and_vsa_matches_the_json_verdict(tmp_path):
    f = SAMPLES / "liar.jsonl"
    held = ["--pre", str(HELD_DIR / "liar-pre.json"), "--post", str(HELD_DIR / "liar-post.json")]
    (doc,) = json.loads(run("receipts", str(f), *held, "--json").stdout)
    assert doc["ok"] is False and doc["content"] == "mismatch"
    out, vsa = tmp_path / "liar.xml", tmp_path / "liar.json"
    p = run("receipts", str(f), *held, "--junit", str(out), "--vsa", str(vsa))
    assert p.returncode == 1
    (case,) = _junit(out).iter("testcase")
    assert case.get("name") == "receipt line 3"
    failure = case.find("failure")
    assert failure.get("message") == "BROKEN: schema=v2 content=mismatch scope=full"
    assert failure.text == failure.get("message") + "; " + "; ".join(doc["notes"])
    st = _vsa(vsa, [f])
    assert st["predicate"]["verificationResult"] == "FAILED"
    assert st["predicate"]["sealscope"]["policy"] == {
        "verb": "receipts",
        "line": None,
        "pre": True,
        "post": True,
    }
    (res,) = st["predicate"]["sealscope"]["results"]
    assert res["verdict"] == "BROKEN" and res["exit_code"] == 1
    assert res["checks"] == [{"name": "receipt line 3", "outcome": "failed"}]
