"""Issue 32: nothing from evidence can become a workflow command, in any output.

GitHub's runner reads every line of a step's stdout and stderr with two parsers
(actions/runner, ActionCommand.cs), emulated here from their rules:

* `::name props::message`, when the line starts with `::` after its leading
  whitespace is trimmed (TryParseV2);
* else the legacy `##[name props]message`, found anywhere in the line (TryParse).

Lines end at LF, CR or CRLF. After `::stop-commands::TOKEN` nothing runs until a
command named TOKEN. The emulation is stricter than the runner: any name counts, not
only the registered ones. The fuzz test puts random evidence strings (`##[`, `::`,
CR/LF, bidi, C1) into file names, a declaration's `why` and duplicate keys, runs every
output of verify, export and fleet (text, JSON, github, JUnit, VSA), and checks that
nothing parses as a command except our own annotations and pauses."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sealscope.core import ledger as L
from sealscope.core.sanitize import clean

LINE_END = re.compile(r"\r\n|\r|\n")
OURS = ("error", "warning", "notice")


def runner_commands(output: str) -> list[tuple[str, str, str]]:
    """(parser, name, rest) of every command the runner would run from `output`."""
    found: list[tuple[str, str, str]] = []
    stopped: str | None = None
    for line in LINE_END.split(output):
        cmd = None
        trimmed = line.lstrip()
        if trimmed.startswith("::"):
            end = trimmed.find("::", 2)
            if end >= 0:
                info = trimmed[2:end]
                cmd = ("v2", info.split(" ", 1)[0], trimmed[end + 2 :])
        if cmd is None:
            at = line.find("##[")
            if at >= 0:
                rb = line.find("]", at)
                if rb >= 0:
                    cmd = ("v1", line[at + 3 : rb].split(" ", 1)[0], line[rb + 1 :])
        if cmd is None or not cmd[1]:
            continue
        if stopped is not None:
            if cmd[1].lower() == stopped.lower():
                stopped = None
                found.append(("resume",) + cmd[1:])
            continue
        if cmd[1] == "stop-commands":
            stopped = cmd[2]
        found.append(cmd)
    return found


def test_the_emulation_finds_both_kinds():
    assert runner_commands("  ::error file=a::m\nx ##[set-output name=a]1\n") == [
        ("v2", "error", "m"),
        ("v1", "set-output", "1"),
    ]
    assert runner_commands(
        "::stop-commands::tok\n::error::x\n##[warning]y\n::tok::\n::debug::z"
    ) == [("v2", "stop-commands", "tok"), ("resume", "tok", ""), ("v2", "debug", "z")]
    assert runner_commands("a\rb ##[add-mask]s\r\n") == [("v1", "add-mask", "s")]


def assert_only_ours(output: str, github: bool) -> None:
    """Nothing but our annotations (on their own lines) and our random-token pauses."""
    token: str | None = None
    for parser, name, rest in runner_commands(output):
        assert github, f"a command in plain output: {parser} {name} {rest!r}"
        if parser == "resume":
            assert name == token
            token = None
            continue
        assert parser == "v2", (name, rest)
        if name == "stop-commands":
            assert re.fullmatch(r"sealscope-[0-9a-f]{32}", rest), rest
            token = rest
            continue
        assert name in OURS, (name, rest)
    assert token is None, "a pause left open"


# --------------------------------------------------------------------------- evidence

PIECES = [
    "##[",
    "::",
    "#",
    "[",
    "]",
    "\r",
    "\n",
    "\r\n",
    "\u202e",
    "\u2066",
    "\x9b",
    "\x85",
    "\u2028",
    "error",
    "set-output name=x",
    "stop-commands",
    " ",
    "\t",
    "%",
    ",",
    "=",
    "x",
    "é",
]
hostile = st.lists(st.sampled_from(PIECES), min_size=1, max_size=12).map("".join)


def _file_name(text: str) -> str:
    name = text.replace("/", "_").replace("\x00", "_")[:80]
    return (name or "x") + ".jsonl"


def _evidence(tmp: Path, name: str, why: str, key: str) -> Path:
    """A ledger named `name`: a good row, a row with a duplicate key `key`, a row
    broken then excused by a declaration whose `why` is `why`."""
    p = tmp / _file_name(name)
    L.append(p, {"i": 0, "ts": "t"})
    L.append(p, {"i": 1, "ts": "t"})
    L.append(p, {"i": 2, "ts": "t"})
    lines = p.read_bytes().split(b"\n")
    lines[1] = lines[1].replace(b'"i": 1', b'"i": 7')
    k = json.dumps(key).encode()
    lines[2] = lines[2][:-1] + b", " + k + b": 1, " + k + b": 2}"
    p.write_bytes(b"\n".join(lines))
    L.declare_break(p, 2, why.strip() or "why", resume_prev=None)
    return p


def _run_in_process(argv: list[str], env: dict[str, str] | None = None) -> tuple[str, str]:
    from sealscope.main import main

    out, err = io.BytesIO(), io.BytesIO()
    old = sys.stdout, sys.stderr, dict(os.environ)
    wo = io.TextIOWrapper(out, encoding="utf-8", errors="surrogateescape")
    we = io.TextIOWrapper(err, encoding="utf-8", errors="surrogateescape")
    sys.stdout, sys.stderr = wo, we
    os.environ.update(env or {})
    try:
        try:
            main(argv)
        except SystemExit:
            pass
        sys.stdout.flush()
        sys.stderr.flush()
    finally:
        sys.stdout, sys.stderr = old[0], old[1]
        os.environ.clear()
        os.environ.update(old[2])
        from sealscope import output

        output._GUARD.clear()
    got = (
        out.getvalue().decode("utf-8", "surrogateescape"),
        err.getvalue().decode("utf-8", "surrogateescape"),
    )
    wo.detach()
    we.detach()
    return got


@settings(
    max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=hostile, why=hostile, key=hostile)
def test_no_evidence_string_becomes_a_command(tmp_path_factory, name, why, key):
    tmp = tmp_path_factory.mktemp("fuzz")
    p = _evidence(tmp, name, why, key)
    junit, vsa, summary = tmp / "out.xml", tmp / "out.vsa.json", tmp / "summary.md"
    for argv, github in (
        (["verify", str(p)], False),
        (["verify", str(p), "--json"], False),
        (["verify", str(p), "--format", "github", "--junit", str(junit), "--vsa", str(vsa)], True),
        (["export", str(p), "--format", "json"], False),
        (["export", str(p)], False),
        (["export", str(p), "--format", "github"], True),
        (["receipts", str(p)], False),
    ):
        out, err = _run_in_process(argv, {"GITHUB_STEP_SUMMARY": str(summary)})
        assert "Traceback" not in err, err
        assert_only_ours(out, github)
        assert_only_ours(err, github)
        if github and argv[0] == "verify":  # each stdout line one of our annotations
            lines = out.split("\n")[:-1]
            assert lines and all(
                x.startswith(("::error file=", "::warning file=")) for x in lines
            ), out
    for f in (junit, vsa):
        assert_only_ours(f.read_text(encoding="utf-8", errors="surrogateescape"), False)


@settings(
    max_examples=5, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(name=hostile, why=hostile, key=hostile)
def test_no_evidence_string_becomes_a_command_in_a_fleet(tmp_path_factory, name, why, key):
    tmp = tmp_path_factory.mktemp("fleet")
    _evidence(tmp, name, why, key)
    exe = Path(sys.executable).parent / "sealscope"
    cmd = [str(exe)] if exe.is_file() else [sys.executable, "-m", "sealscope"]
    for extra, github in (([], False), (["--format", "github"], True), (["--json"], False)):
        r = subprocess.run(
            [*cmd, "fleet", str(tmp), *extra],
            capture_output=True,
            timeout=120,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        out = r.stdout.decode("utf-8", "surrogateescape")
        err = r.stderr.decode("utf-8", "surrogateescape")
        assert "Traceback" not in err, err
        assert_only_ours(out, github)
        assert_only_ours(err, github)


@pytest.mark.parametrize("text", ["h ##[stop-commands]tokX", "  ::error ::x", "a#", "#[b"])
def test_clean_leaves_no_command_even_where_two_texts_meet(text):
    assert runner_commands(clean(text)) == []
    assert runner_commands(clean("a#") + clean("#[add-mask]s")) == []
    assert runner_commands("  " + clean(text)) == []


def test_a_harn_file_named_with_stop_commands_stops_nothing(tmp_path):
    src = Path(__file__).resolve().parents[2] / "sample_ledgers" / "harn" / "run-record.json"
    if not src.is_file():
        pytest.skip("no sample harn file")
    bad = tmp_path / "h ##[stop-commands]tokX.json"
    bad.write_bytes(src.read_bytes())
    out, err = _run_in_process(["harn", str(bad), "--format", "github"])
    assert_only_ours(out, True)
    assert_only_ours(err, True)
    assert any(c[1] == "error" for c in runner_commands(out))
    out, err = _run_in_process(["harn", str(bad)])
    assert_only_ours(out + err, False)
