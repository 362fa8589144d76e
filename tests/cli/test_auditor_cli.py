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
