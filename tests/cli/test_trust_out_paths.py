"""Nothing sealscope writes lands on its inputs: every output flag of every verb
(`--junit`, `--vsa`, export's `-o`, `--checkpoint`, harn seal's `--ledger`, the step
summary) naming an input file, or a path inside an input folder (a pack or bundle
folder, a fleet's source folder, the `--artefacts` folder), is refused with one line,
exit 2, before anything is read or written; links and `..` are resolved first."""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

import pytest
from sealscope.core import ledger as L
from sealscope.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


def _tree(root: Path) -> dict[str, str]:
    return {
        str(p.relative_to(root)): hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(root.rglob("*"))
        if p.is_file()
    }


@pytest.fixture
def audited(tmp_path: Path) -> Path:
    """A folder of evidence: a bundle folder, ledgers, a held-artefacts folder."""
    root = tmp_path / "audited"
    root.mkdir()
    shutil.copytree(SAMPLES / "packs" / "session-bundle", root / "bundle")
    shutil.copy(SAMPLES / "session.jsonl", root / "session.jsonl")
    led = root / "led.jsonl"
    for i in range(3):
        L.append(led, {"i": i})
    (root / "held").mkdir()
    (root / "held" / "report.txt").write_text("r")
    (root / "pre.json").write_text("[]")
    return root


def _cases(a: Path) -> list[list[str]]:
    b, led, held = a / "bundle", a / "led.jsonl", a / "held"
    out = []
    for flag in ("--junit", "--vsa"):
        out += [
            ["check", str(b), flag, str(b / "README.md")],  # over a member
            ["check", str(b), flag, str(b / "new.xml")],  # a member planted
            ["check", str(b), flag, str(b / "sub" / ".." / "x.xml")],
            ["check", str(led), flag, str(led)],
            ["check", str(led), "--artefacts", str(held), flag, str(held / "x")],
            ["fleet", str(a), flag, str(b / "records.jsonl")],
            ["fleet", str(a), flag, str(a / "out.xml")],
            ["verify", str(led), flag, str(led)],
            ["receipts", str(led), flag, str(led)],
            ["receipts", str(led), "--pre", str(a / "pre.json"), flag, str(a / "pre.json")],
            ["export", str(b), flag, str(b / "x.json")],
            ["export", str(led), flag, str(led)],
        ]
    out += [
        ["export", str(b), "-o", str(b / "README.md")],
        ["export", str(a), "-o", str(a / "report.md")],
        [
            "export",
            str(led),
            "--output",
            str(a / "session.jsonl"),
            "--pre",
            str(a / "session.jsonl"),
        ],
        [
            "verify",
            str(led),
            "--incremental",
            "--checkpoint",
            str(a / "session.jsonl"),
            "--witness",
            str(a / "session.jsonl"),
            "--ns",
            "x",
        ],
        [
            "harn",
            "seal",
            str(SAMPLES / "harn" / "session-transcript.json"),
            "--ledger",
            str(SAMPLES / "harn" / "session-transcript.json"),
        ],
    ]
    return out


def test_every_output_flag_onto_an_input_is_refused(audited, capsys, tmp_path):
    before = _tree(audited)
    harn = SAMPLES / "harn" / "session-transcript.json"
    harn_before = harn.read_bytes() if harn.exists() else None
    for argv in _cases(audited):
        if argv[0] == "harn" and harn_before is None:
            continue
        code = main(argv)
        err = capsys.readouterr().err
        assert code == 2, (argv, err)
        assert "refusing to write" in err and "Traceback" not in err, argv
        assert len(err.strip().splitlines()) == 1, (argv, err)
        assert _tree(audited) == before, argv
    if harn_before is not None:
        assert harn.read_bytes() == harn_before


def test_links_to_an_input_folder_are_resolved(audited, capsys, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(audited / "bundle")
    before = _tree(audited)
    for target in (link / "x.xml", link / ".." / "bundle" / "y.xml"):
        assert main(["check", str(audited / "bundle"), "--junit", str(target)]) == 2
        assert "into the unit it audits" in capsys.readouterr().err
    hard = tmp_path / "hard.jsonl"
    hard.hardlink_to(audited / "led.jsonl")
    assert main(["verify", str(audited / "led.jsonl"), "--vsa", str(hard)]) == 2
    assert _tree(audited) == before


def test_the_step_summary_inside_an_input_folder_is_refused(audited, capsys, monkeypatch):
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(audited / "bundle" / "summary.md"))
    before = _tree(audited)
    assert main(["fleet", str(audited), "--format", "github"]) == 2
    assert "$GITHUB_STEP_SUMMARY" in capsys.readouterr().err
    assert _tree(audited) == before


def test_outputs_beside_the_inputs_are_written(audited, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    b = audited / "bundle"
    assert main(["check", str(b), "--junit", str(out / "j.xml")]) == 0
    assert (out / "j.xml").exists()
    led = str(audited / "led.jsonl")
    assert main(["verify", led, "--vsa", str(out / "v.json")]) == 0
    assert json.loads((out / "v.json").read_text())["predicate"]["verificationResult"] == "PASSED"
    capsys.readouterr()
    assert main(["fleet", str(audited), "--junit", str(out / "f.xml")]) in (0, 1, 3)
    assert (out / "f.xml").exists()
