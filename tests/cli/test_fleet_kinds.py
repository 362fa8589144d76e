"""`sealscope fleet` over every evidence kind (issues 29/30): exactly what it prints
for the samples; packs, bundles and AAT exports as one entry each in the text, JSON,
`--format github`, `--junit` (a pack: one suite, a case per check) and `--vsa` (a zip's
subject its own digest, a folder's each listed member)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

from sealscope.core.checks import pack

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
EXE = Path(sys.executable).parent / "sealscope"


def run(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    return subprocess.run(
        [*cmd, *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        check=False,
        env={"PATH": "/usr/bin:/bin", "NO_COLOR": "1", "TERM": "dumb"},
    )


# exactly what `sealscope fleet sample_ledgers` prints (the time replaced by `S`)
SAMPLES_TEXT = (Path(__file__).parent / "fleet_kinds_samples.txt").read_text(encoding="utf-8")


def test_fleet_of_the_samples_prints_exactly_this(tmp_path):
    # a copy without Python's caches (present once the samples package is imported)
    shutil.copytree(
        SAMPLES, tmp_path / "sample_ledgers", ignore=shutil.ignore_patterns("__pycache__")
    )
    p = run("fleet", "sample_ledgers", cwd=tmp_path)
    assert p.returncode == 1, p.stderr
    assert re.sub(r"in \d+\.\d\d s", "in S s", p.stdout) == SAMPLES_TEXT


def _units(tmp_path: Path) -> Path:
    root = tmp_path / "fleet"
    root.mkdir()
    shutil.copytree(SAMPLES / "packs" / "session-bundle", root / "bundle")
    shutil.copy(SAMPLES / "packs" / "session-pack.zip", root / "pack.zip")
    shutil.copy(SAMPLES / "packs" / "session-aat.jsonl", root / "aat.jsonl")
    shutil.copy(SAMPLES / "session.jsonl", root / "session.jsonl")
    shutil.copy(SAMPLES / "held" / "liar-pre.json", root / "held.json")  # no evidence kind
    return root


def test_json_lines_carry_each_units_check(tmp_path):
    root = _units(tmp_path)
    p = run("fleet", str(root), "--json")
    assert p.returncode == 0, p.stderr  # the held `.json` is listed, not judged
    docs = [json.loads(line) for line in p.stdout.splitlines()]
    summary = docs.pop()["summary"]
    by = {Path(d["path"]).name: d for d in docs}
    assert sorted(by) == ["aat.jsonl", "bundle", "held.json", "pack.zip", "session.jsonl"]
    assert (by["pack.zip"]["kind"], by["pack.zip"]["verdict"], by["pack.zip"]["exit_code"]) == (
        "evidence-pack",
        "VERIFIED",
        0,
    )
    assert [c["check"] for c in by["pack.zip"]["detail"]["checks"]] == list(pack.CHECKS)
    assert by["bundle"]["kind"] == "audit-bundle" and by["bundle"]["bound"]
    assert by["aat.jsonl"]["kind"] == "aat-export"
    assert by["session.jsonl"]["receipts"]["count"] == 2 and "kind" not in by["session.jsonl"]
    assert by["held.json"]["not_evidence"] is True and by["held.json"]["verdict"] is None
    assert (summary["ledgers"], summary["units"], summary["not_evidence"]) == (1, 3, 1)
    assert summary["exit_code"] == 0


def test_junit_makes_a_pack_one_suite_with_a_case_per_check(tmp_path):
    root = _units(tmp_path)
    out = tmp_path / "junit.xml"
    p = run("fleet", str(root), "--junit", str(out))
    assert p.returncode == 0, p.stderr
    suites = {Path(s.get("name")).name: s for s in ET.parse(out).getroot()}
    assert sorted(suites) == ["aat.jsonl", "bundle", "pack.zip", "session.jsonl"]
    cases = [c.get("name") for c in suites["pack.zip"]]
    assert cases == ["evidence-pack"] + [f"check {n}" for n in pack.CHECKS]
    assert not suites["pack.zip"].findall(".//failure")
    assert next(c.get("name") for c in suites["session.jsonl"]) == "chain"


def test_vsa_subject_of_a_zip_is_its_digest_of_a_bundle_each_file_its_check_read(tmp_path):
    root = _units(tmp_path)
    out = tmp_path / "vsa.json"
    p = run("fleet", str(root), "--vsa", str(out))
    assert p.returncode == 0, p.stderr
    doc = json.loads(out.read_text())
    subjects = {s["name"]: s["digest"]["sha256"] for s in doc["subject"]}

    def sha(path: Path) -> str:
        return hashlib.sha256(path.read_bytes()).hexdigest()

    assert subjects[str(root / "pack.zip")] == sha(root / "pack.zip")
    read = [n for n in ("records.jsonl", "integrity.json") if (root / "bundle" / n).exists()]
    bundle_subjects = [n for n in subjects if n.startswith(f"{root / 'bundle'}/")]
    assert sorted(bundle_subjects) == sorted(f"{root / 'bundle'}/{n}" for n in read)
    for name in read:  # the files the bundle's check read, by the bytes it read
        assert subjects[f"{root / 'bundle'}/{name}"] == sha(root / "bundle" / name)
    assert str(root / "bundle") not in subjects
    assert str(root / "held.json") not in subjects  # not evidence: no subject
    assert doc["predicate"]["verificationResult"] == "PASSED"


def test_github_format_annotates_a_broken_bundle_once(tmp_path):
    root = _units(tmp_path)
    records = root / "bundle" / "records.jsonl"
    records.write_text(records.read_text().replace("intranet", "extranet", 1))
    p = run("fleet", str(root), "--format", "github")
    assert p.returncode == 1, p.stderr
    errors = [line for line in p.stdout.splitlines() if line.startswith("::error")]
    assert len(errors) == 1 and "bundle" in errors[0] and "line 3" in errors[0]
    assert "held.json" not in p.stdout
