"""Issue 33, "CLI conventions": what a new user meets at the command line.

Each test runs the installed entry point's `main` (or the module as a process where the
terminal matters) on real files and checks the outcome a user sees."""

from __future__ import annotations

from pathlib import Path

from sealscope.main import main

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
TRANSCRIPT = SAMPLES / "harn" / "session-transcript.json"


# --------------------------------------------------------------------------- harn seal


def test_harn_seal_twice_is_refused_with_exit_2_unless_again(tmp_path, capsys):
    ledger = tmp_path / "out.jsonl"
    assert main(["harn", "seal", str(TRANSCRIPT), "--ledger", str(ledger)]) == 0
    first = ledger.read_bytes()
    capsys.readouterr()
    assert main(["harn", "seal", str(TRANSCRIPT), "--ledger", str(ledger)]) == 2
    err = capsys.readouterr().err
    assert f"already sealed in {ledger}: " in err and "--again" in err
    assert ledger.read_bytes() == first  # nothing appended
    assert main(["harn", "seal", str(TRANSCRIPT), "--ledger", str(ledger), "--again"]) == 0
    assert len(ledger.read_bytes().splitlines()) == 2 * len(first.splitlines())


def test_harn_seal_is_a_sub_command_of_its_own(capsys):
    try:
        main(["harn", "seal", "--help"])
    except SystemExit as e:
        assert e.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: sealscope harn seal ")
    assert "--again" in out and "exit codes:" in out
    try:
        main(["harn", "--help"])
    except SystemExit:
        pass
    assert "sealscope harn seal [-h] --ledger OUT.jsonl" in capsys.readouterr().out


# --------------------------------------------------------------------------- --help


def _verbs():
    import argparse

    from sealscope.main import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return parser, sub.choices


def test_every_verb_has_a_description_its_exit_codes_and_help_for_each_positional():
    _parser, verbs = _verbs()
    assert len(verbs) >= 15
    for name, p in verbs.items():
        text = p.format_help()
        assert p.description, name
        assert "exit codes:" in text, name
        for action in p._actions:
            if not action.option_strings:
                assert action.help, (name, action.dest)
    # the exit codes a verb states are the convention's numbers
    assert "0 every ledger VERIFIED in full" in verbs["verify"].format_help().replace("\n", " ")


def test_the_top_level_help_says_paths_open_the_viewer_and_no_arguments_the_samples():
    parser = _verbs()[0]
    text = " ".join(parser.format_help().split())
    assert "sealscope PATH... opens the viewer" in text
    assert "with no arguments opens the viewer on the bundled samples" in text


def test_an_unknown_flag_prints_that_verbs_usage_only(capsys):
    try:
        main(["verify", "--bogus", str(SAMPLES / "session.jsonl")])
    except SystemExit as e:
        assert e.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: sealscope verify ")
    assert "{view,serve" not in err and "unrecognized arguments: --bogus" in err


# --------------------------------------------------------------------------- verify


def test_verify_a_folder_keeps_the_references_answer_and_hints_at_fleet(capsys):
    import json

    assert main(["verify", str(SAMPLES), "--json"]) == 3
    out, err = capsys.readouterr()
    assert json.loads(out)["first_break"].startswith("unreadable: [Errno 21] Is a directory")
    assert f"{SAMPLES} is a folder: use `sealscope fleet {SAMPLES}`" in err


def test_verify_incremental_reset_removes_only_a_sealscope_checkpoint(tmp_path, capsys):
    led = tmp_path / "l.jsonl"
    led.write_bytes((SAMPLES / "session.jsonl").read_bytes())
    cp = tmp_path / "cp.json"
    assert main(["verify", str(led), "--incremental", "--checkpoint", str(cp)]) == 0
    assert cp.exists()
    capsys.readouterr()
    assert main(["verify", str(led), "--incremental", "--checkpoint", str(cp), "--reset"]) == 0
    err = capsys.readouterr().err
    assert f"checkpoint {cp} removed" in err
    assert cp.exists()  # the full walk wrote a new one
    # anything that is not a sealscope checkpoint is left in place: usage, exit 2
    other = tmp_path / "notes.json"
    other.write_text('{"format": "something else"}')
    args = ["verify", str(led), "--incremental", "--checkpoint", str(other), "--reset"]
    assert main(args) == 2
    assert "is not a sealscope checkpoint: left in place" in capsys.readouterr().err
    assert other.read_text() == '{"format": "something else"}'
    assert main(["verify", str(led), "--reset"]) == 2  # --reset goes with --incremental


# --------------------------------------------------------------------------- lookup


def test_lookup_with_an_empty_held_folder_looked_nothing_up_exit_3(tmp_path, capsys):
    empty = tmp_path / "held"
    empty.mkdir()
    assert main(["lookup", str(SAMPLES / "session.jsonl"), str(empty)]) == 3
    assert "nothing to look up" in capsys.readouterr().err
    held = SAMPLES / "held" / "session-pre.jsonl"
    assert main(["lookup", str(SAMPLES / "session.jsonl"), str(held)]) == 0
    out = capsys.readouterr().out
    # one numbering of held items everywhere: FILE#N from 1
    assert f"{held}#1  53 bytes" in out and f"{held}#5  " in out
    assert out.rstrip().endswith(
        "3 of 5 held items found in drop manifests (2 receipt rows, 5 manifest entries)"
    )


# --------------------------------------------------------------------------- unreadable files


def _unreadables(tmp_path: Path) -> Path:
    import os

    folder = tmp_path / "fleet"
    folder.mkdir()
    (folder / "agent-005.jsonl").write_bytes((SAMPLES / "session.jsonl").read_bytes())
    (folder / "dangling.jsonl").symlink_to(tmp_path / "nowhere.jsonl")
    if hasattr(os, "mkfifo"):
        os.mkfifo(folder / "pipe.jsonl")
    return folder


def test_junit_is_indented_its_classname_has_no_dot_and_unreadable_files_are_errors(
    tmp_path, capsys
):
    import xml.etree.ElementTree as ET

    folder = _unreadables(tmp_path)
    out = tmp_path / "fleet.xml"
    assert main(["fleet", str(folder), "--junit", str(out)]) == 3
    text = out.read_text(encoding="utf-8")
    assert text.splitlines()[1].startswith("<testsuites ")
    assert "\n  <testsuite " in text and "\n    <testcase " in text
    root = ET.fromstring(text)
    by_name = {s.get("name"): s for s in root.iter("testsuite")}
    ok = by_name[str(folder / "agent-005.jsonl")]
    assert ok.find("testcase").get("classname") == str(folder / "agent-005_jsonl").replace(".", "_")
    assert all("." not in c.get("classname") for c in root.iter("testcase"))
    gone = by_name[str(folder / "dangling.jsonl")].find("testcase")
    assert gone.find("error") is not None and gone.find("skipped") is None
    assert "breaks=" not in gone.find("error").get("message")
    assert int(root.get("errors")) >= 1 and root.get("skipped") == "0"


def test_the_fleet_text_says_only_why_a_file_could_not_be_read(tmp_path, capsys):
    folder = _unreadables(tmp_path)
    main(["fleet", str(folder)])
    lines = capsys.readouterr().out.splitlines()
    gone = [x for x in lines if "dangling.jsonl" in x]
    # a link is not followed out of the tree (--follow-links follows it): that is why
    assert len(gone) == 1 and "not followed" in gone[0]
    assert "breaks=" not in gone[0] and "scope=" not in gone[0]
    assert not any(x.startswith("  first break: unreadable") for x in lines)


# --------------------------------------------------------------------------- demo


def _drain(master: int, until: bytes | None = None) -> bytes:
    """Read the pseudo-terminal until `until` has appeared, or until it closes."""
    import os
    import select

    got = b""
    while until is None or until not in got:
        ready, _, _ = select.select([master], [], [], 30)
        if not ready:
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not data:
            break
        got += data
    return got


def test_demo_ended_as_gnu_timeout_ends_it_exits_quietly_with_143():
    """`timeout 8 sealscope demo`: SIGTERM, then SIGCONT. No traceback, exit 143."""
    import os
    import signal

    from sealscope.demo_record import spawn

    proc, master = spawn(["demo"], 80, 24)
    try:
        seen = _drain(master, until=b"1/")  # the first step is narrated
        assert b"1/" in seen
        os.kill(proc.pid, signal.SIGTERM)
        os.kill(proc.pid, signal.SIGCONT)
        rest = _drain(master)
        code = proc.wait(timeout=60)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == 143
    assert b"Traceback" not in rest and b"RuntimeError" not in rest


def test_demo_size_without_record_is_refused(capsys):
    assert main(["demo", "--size", "100x30"]) == 2
    assert "--size sets the terminal of a --record run" in capsys.readouterr().err


# --------------------------------------------------------------------------- text for people


def test_report_markdown_is_not_over_escaped_when_read_raw():
    from sealscope.core import export

    md = export.build_report(SAMPLES / "session.jsonl").to_markdown()
    assert "bounded_no_content" in md and "bounded\\_no\\_content" not in md
    liar = SAMPLES / "liar.jsonl"
    held = SAMPLES / "held"
    from sealscope.core import held as held_mod
    from sealscope.core import lookup, receipt

    ((n, row),) = list(lookup.iter_receipt_rows(liar))
    pre = held_mod.load_held(held / "liar-pre.json")
    post = held_mod.load_held(held / "liar-post.json")
    check = receipt.verify_receipt(row, receipt.content_of(pre), receipt.content_of(post))
    rec = export.recompute_record(n, check, row=row, held=[*pre, *post])
    md = export.build_report(liar, session=[rec]).to_markdown()
    assert " != claimed " in md and "\\!=" not in md
    assert "1 drop the manifest does not declare:" in md and "drop(s)" not in md


def test_counts_read_as_words_and_python_does_not_leak(tmp_path, capsys):
    folder = tmp_path / "one"
    folder.mkdir()
    (folder / "a.jsonl").write_bytes((SAMPLES / "session.jsonl").read_bytes())
    main(["fleet", str(folder)])
    assert "1 ledger: 1 verified" in capsys.readouterr().out
    seals = SAMPLES / "seals"
    main(
        [
            "continuity",
            str(seals / "seal-day1.json"),
            "--restated",
            str(seals / "restated-faithful.json"),
            "--loose",
        ]
    )
    out = capsys.readouterr().out
    assert "`faithful` is deliberately null" in out and "None" not in out


def test_a_non_utf8_file_name_shows_its_byte_as_xff(tmp_path, capsys):
    import os

    folder = tmp_path / "names"
    folder.mkdir()
    name = os.fsdecode(b"agent-\xff.jsonl")
    try:
        (folder / name).write_bytes((SAMPLES / "session.jsonl").read_bytes())
    except (OSError, UnicodeEncodeError):
        import pytest

        pytest.skip("this file system refuses non-UTF-8 names")
    main(["fleet", str(folder)])
    out = capsys.readouterr().out
    assert "agent-\\xff.jsonl" in out and "\\udcff" not in out


def test_demo_help_and_the_readme_say_the_same_of_the_arrow_key():
    import re

    _parser, verbs = _verbs()
    help_text = " ".join(verbs["demo"].format_help().split())
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    row = re.search(r"^\| `→` \| (.+?) \|$", readme, re.M)
    assert row is not None
    assert (
        "→ rushes through the rest of the step (its actions still happen, without pauses)"
        in help_text
    )
    assert (
        row.group(1) == "rush through the rest of the step (its actions still happen, "
        "without pauses)"
    )
