"""`sealscope case add --lookup/--diff/--restated` records a look-up, a seal diff and a
restatement as case checks that `case replay` re-performs; `case replay --junit/--vsa`
and `case report -o` write nothing onto a recorded evidence file or into a recorded
evidence folder (issue 44)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from sealscope.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def copies(tmp_path: Path) -> Path:
    folder = tmp_path / "samples"
    folder.mkdir()
    shutil.copy(SAMPLES / "session.jsonl", folder / "session.jsonl")
    shutil.copytree(SAMPLES / "held", folder / "held")
    shutil.copytree(SAMPLES / "seals", folder / "seals")
    return folder


def test_lookup_diff_and_restatement_are_recorded_and_replayed(
    tmp_path: Path, copies: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = str(tmp_path / "case.jsonl")
    seals = copies / "seals"
    assert run(capsys, "case", "new", case)[0] == 0
    held = [str(copies / "held" / "session-pre.jsonl"), str(copies / "held" / "session-post.jsonl")]
    code, out, _ = run(
        capsys, "case", "add", case, str(copies / "session.jsonl"), "--lookup", *held
    )
    assert code == 0
    assert "NOTED  lookup" in out and "3 of 8 held items found in the drop manifests" in out
    code, out, _ = run(
        capsys,
        "case",
        "add",
        case,
        str(seals / "seal-day1.json"),
        "--diff",
        str(seals / "seal-day2.json"),
        "--tiers",
        str(seals / "tiers.json"),
    )
    assert code == 0 and "VALID  diff" in out
    code, out, _ = run(
        capsys,
        "case",
        "add",
        case,
        str(seals / "seal-day1.json"),
        "--restated",
        str(seals / "restated-divergent.json"),
        "--json",
    )
    doc = json.loads(out)
    assert code == 1  # a divergence, as `sealscope continuity` exits
    assert [(c["check"], c["verdict"]) for c in doc[0]["checks"]] == [
        ("kind", "VERIFIED"),
        ("restatement", "DIVERGENCE"),
    ]

    code, out, _ = run(capsys, "case", "replay", case, "--json")
    rep = json.loads(out)
    assert code == 0
    assert [(c["check"], c["status"]) for c in rep["checks"]] == [
        ("kind", "holds"),
        ("lookup", "holds"),
        ("kind", "holds"),
        ("diff", "holds"),
        ("kind", "holds"),
        ("restatement", "holds"),
    ]

    (seals / "tiers.json").write_text("{}", encoding="utf-8")
    Path(held[0]).unlink()
    code, out, _ = run(capsys, "case", "replay", case)
    assert code == 1
    assert "diff" in out and "evidence changed: sha256 differs" in out and "tiers.json" in out
    [gone] = [line for line in out.splitlines() if "session-pre.jsonl: missing" in line]
    assert gone.startswith("COULD NOT LOOK") and "  lookup  " in gone


@pytest.mark.parametrize(
    "argv",
    [
        ("--loose",),
        ("--tiers", "t.json"),
        ("--lookup", "h.json", "--diff", "n.json", "--restated", "r.json", "--pin", "p"),
    ],
)
def test_flags_without_their_partner_are_usage(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], argv: tuple[str, ...]
) -> None:
    case = str(tmp_path / "case.jsonl")
    assert run(capsys, "case", "new", case)[0] == 0
    paths = ["a.jsonl", "b.jsonl"] if "--lookup" in argv else ["a.jsonl"]
    code, _, err = run(capsys, "case", "add", case, *paths, *argv)
    assert code == 2 and "case:" in err


def test_replay_and_report_write_nothing_onto_recorded_evidence(
    tmp_path: Path, copies: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = str(tmp_path / "case.jsonl")
    artefacts = copies / "held"
    assert run(capsys, "case", "new", case)[0] == 0
    ledger = str(copies / "session.jsonl")
    code, _, _ = run(capsys, "case", "add", case, ledger, "--artefacts", str(artefacts))
    assert code == 0
    held = artefacts / "session-pre.jsonl"
    before = {p: p.read_bytes() for p in copies.rglob("*") if p.is_file()}
    targets = [
        ("--junit", str(artefacts / "replay.xml")),  # into a recorded folder
        ("--vsa", str(artefacts / "deeper" / "..")),  # the folder itself, by another name
        ("--vsa", ledger),  # over a recorded evidence file
        ("--junit", case),  # over the case itself
    ]
    for flag, target in targets:
        code, _, err = run(capsys, "case", "replay", case, flag, target)
        assert code == 2, (flag, target)
        assert "refusing to write" in err and "over evidence" in err
    assert not (artefacts / "replay.xml").exists()
    code, _, err = run(capsys, "case", "report", case, "-o", str(artefacts / "papers.md"))
    assert code == 2 and "over evidence" in err
    assert {p: p.read_bytes() for p in copies.rglob("*") if p.is_file()} == before
    assert held.exists()

    moved = tmp_path / "moved"
    copies.rename(moved)
    code, _, err = run(
        capsys, "case", "replay", case, "--root", str(moved), "--junit", str(moved / "held" / "x")
    )
    assert code == 2 and "over evidence" in err  # where the replay finds the folder now
    code, _, _ = run(
        capsys, "case", "replay", case, "--root", str(moved), "--junit", str(tmp_path / "r.xml")
    )
    assert code == 0 and (tmp_path / "r.xml").exists()
