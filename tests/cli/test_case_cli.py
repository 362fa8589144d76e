"""`sealscope case` end to end (issue 44's acceptance 1, 4 and 5): a case built over the
samples with the CLI is VERIFIED by the reference's own `arcaeon verify`, replays, names
an edited sample, turns BROKEN when a note is edited; a torn line is said, refused and
cut; hostile text is shown literally in `show`, the report and the CI formats."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"
NAMES = ("session.jsonl", "tampered.jsonl", "truncated.jsonl", "liar.jsonl", "hostile.jsonl")
HOSTILE = (
    "esc \x1b[31mred\x1b[0m bidi \u202eevil\u202c [bold]loud[/bold] ::error::boom *md* <b>x</b>"
)


def arcaeon_verify(path: Path) -> tuple[int, dict]:
    """The reference CLI's word on a file (`arcaeon verify PATH`)."""
    exe = shutil.which("arcaeon")
    cmd = [exe] if exe else [sys.executable, "-m", "arcaeon"]
    p = subprocess.run(
        [*cmd, "verify", str(path)], capture_output=True, text=True, timeout=120, check=False
    )
    return p.returncode, json.loads(p.stdout)


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def built(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Path, Path]:
    copies = tmp_path / "samples"
    copies.mkdir()
    for name in NAMES:
        shutil.copy(SAMPLES / name, copies / name)
    shutil.copytree(SAMPLES / "held", copies / "held")
    case = tmp_path / "case.jsonl"
    assert run(capsys, "case", "new", str(case), "--title", "samples", "--by", "ann")[0] == 0
    code, out, _ = run(capsys, "case", "add", str(case), *(str(copies / n) for n in NAMES))
    assert code == 1  # tampered.jsonl is BROKEN: add prints and exits as check does
    assert "BROKEN  ledger" in out and "tampered.jsonl" in out
    code, out, _ = run(
        capsys,
        "case",
        "add",
        str(case),
        str(copies / "session.jsonl"),
        "--pre",
        str(copies / "held" / "session-pre.jsonl"),
        "--post",
        str(copies / "held" / "session-post.jsonl"),
    )
    assert code == 0 and "VERIFIED  receipts" in out
    assert run(capsys, "case", "note", str(case), "a plain note")[0] == 0
    code, out, _ = run(
        capsys,
        "case",
        "note",
        str(case),
        "rows 4 on look wrong",
        "--on",
        f"{copies / 'tampered.jsonl'}:4",
        "--finding",
        "high",
    )
    assert code == 0 and "finding F1 (high)" in out
    assert run(capsys, "case", "signoff", str(case), "--by", "bob", "reviewed")[0] == 0
    return case, copies


def test_a_case_over_the_samples_verifies_replays_and_names_the_edited_copy(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    case, copies = built
    code, doc = arcaeon_verify(case)
    assert (code, doc["verdict"], doc["breaks"]) == (0, "VERIFIED", 0)
    code, out, _ = run(capsys, "verify", str(case))
    assert code == 0 and out.startswith("VERIFIED")
    code, out, _ = run(capsys, "check", str(case))
    assert code == 0 and "a sealscope case: 17 entries, 1 open finding" in out

    vsa = case.parent / "replay.vsa.json"
    code, out, _ = run(capsys, "case", "replay", str(case), "--vsa", str(vsa))
    assert code == 0, out
    assert out.count("holds") == 7
    statement = json.loads(vsa.read_text())
    assert (
        statement["subject"][0]["digest"]["sha256"] == hashlib.sha256(case.read_bytes()).hexdigest()
    )
    assert statement["predicate"]["verificationResult"] == "PASSED"

    path = copies / "liar.jsonl"
    path.write_bytes(path.read_bytes().replace(b'"ts"', b'"ts" ', 1))
    code, out, _ = run(capsys, "case", "replay", str(case))
    assert code == 1
    changed = [line for line in out.splitlines() if "evidence changed" in line]
    assert len(changed) == 1 and "liar.jsonl" in changed[0]

    code, out, _ = run(capsys, "case", "replay", str(case), "--json")
    doc = json.loads(out)
    assert doc["exit_code"] == 1
    assert [Path(c["path"]).name for c in doc["checks"] if c["status"] != "holds"] == ["liar.jsonl"]


def test_an_edited_note_row_is_broken_in_show_and_for_the_reference(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    case, _ = built
    data = case.read_bytes()
    assert b"a plain note" in data
    case.write_bytes(data.replace(b"a plain note", b"a plain NOTE"))
    code, out, _ = run(capsys, "case", "show", str(case))
    assert code == 1
    first = out.splitlines()[0]
    assert first.startswith("BROKEN  case") and "chain mismatch" in first
    code, doc = arcaeon_verify(case)
    assert code == 1 and doc["verdict"] == "BROKEN"
    code, out, err = run(capsys, "case", "note", str(case), "more")
    assert code == 3 and "does not verify" in err


def test_a_torn_line_is_said_refused_and_repaired(
    built: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    case, _ = built
    whole = case.read_bytes()
    torn = b'{"case": "sealscope-case/1", "entry": "note", "text": "half'
    with open(case, "ab") as fh:
        fh.write(torn)
    code, out, _ = run(capsys, "case", "show", str(case))
    assert code != 0
    assert f"torn last line, {len(torn)} bytes" in out.splitlines()[0]
    code, _, err = run(capsys, "case", "note", str(case), "refused")
    assert code == 3 and f"torn last line, {len(torn)} bytes" in err
    assert case.read_bytes() == whole + torn
    code, out, _ = run(capsys, "case", "repair", str(case))
    assert f"cutting the torn last line of {case}: {len(torn)} bytes" in out
    assert code == 0 and out.splitlines()[-1].startswith("VERIFIED  case")
    assert case.read_bytes() == whole
    assert arcaeon_verify(case)[0] == 0
    code, out, _ = run(capsys, "case", "repair", str(case))
    assert code == 0 and "nothing to repair" in out


def _literal(text: str) -> None:
    """No raw control or bidi character and no line opening a workflow command."""
    assert "\x1b" not in text and "\u202e" not in text and "\u202c" not in text
    assert not any(line.lstrip().startswith("::error::boom") for line in text.splitlines())


def test_hostile_text_is_shown_literally_everywhere(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    case = tmp_path / "case.jsonl"
    hostile_file = tmp_path / f"{HOSTILE.replace('/', '_')}.jsonl"
    shutil.copy(SAMPLES / "session.jsonl", hostile_file)
    assert run(capsys, "case", "new", str(case), "--title", HOSTILE)[0] == 0
    assert run(capsys, "case", "add", str(case), str(hostile_file))[0] == 0
    assert run(capsys, "case", "note", str(case), HOSTILE, "--finding", "medium")[0] == 0
    assert run(capsys, "case", "note", str(case), HOSTILE)[0] == 0

    code, out, _ = run(capsys, "case", "show", str(case))
    assert code == 0
    _literal(out)
    assert "\\x1b[31mred" in out and "\\u202eevil" in out and "[bold]loud[/bold]" in out

    code, out, _ = run(capsys, "case", "report", str(case))
    assert code == 0
    _literal(out)
    assert "\\[bold\\]loud\\[/bold\\]" in out and "\\*md\\*" in out and "\\<b\\>x" in out

    code, out, _ = run(capsys, "case", "report", str(case), "--format", "json")
    _literal(out)
    assert json.loads(out)["findings"][0]["text"] == HOSTILE

    junit = tmp_path / "replay.xml"
    code, out, err = run(
        capsys, "case", "replay", str(case), "--junit", str(junit), "--format", "github"
    )
    assert code == 0
    _literal(out + err)
    _literal(junit.read_text())
    assert "\\x1b[31mred" in junit.read_text() and "[bold]loud[_bold]" in junit.read_text()

    edited = hostile_file.read_bytes() + b"\n"
    hostile_file.write_bytes(edited)
    code, out, err = run(capsys, "case", "replay", str(case), "--format", "github")
    assert code == 1
    _literal(out + err)
    assert "::error" in out  # our own annotation, with the path escaped inside it


def test_case_verbs_in_help_and_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "case" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main(["case", "signoff", "x.jsonl"])  # --by is required
    assert e.value.code == 2
    assert run(capsys, "case")[0] == 2
