"""`sealscope export PATH` of every kind `check` knows: the report's verdict and exit
code are `sealscope check`'s, in Markdown and JSON; GitHub annotations name a broken
check; nothing is written beside the evidence unless `--output` says so."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
from sealscope.core import kinds
from sealscope.core.export import REPORT_KINDS

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
ALL = sorted(p for d in (SAMPLES / "kinds", SAMPLES / "packs") for p in d.iterdir())
KIND_SAMPLES = [p for p in ALL if kinds.identify(p).kind in REPORT_KINDS]
PACK_ZIP = SAMPLES / "packs" / "session-pack.zip"


def sealscope(*args: str, cwd: Path = ROOT, env: dict[str, str] | None = None):
    p = subprocess.run(
        [sys.executable, "-m", "sealscope", *map(str, args)],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        check=False,
        env=env,
    )
    assert "Traceback" not in p.stderr, p.stderr
    return p


def _ids(p: Path) -> str:
    return str(p.relative_to(SAMPLES))


def _tree(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()
    }


@pytest.mark.parametrize("path", ALL, ids=_ids)
def test_export_says_what_check_says(path):
    chk = sealscope("check", "--json", path)
    want = json.loads(chk.stdout)[0]
    js = sealscope("export", "--format", "json", path)
    md = sealscope("export", path)
    if want["kind"] is None and path.is_dir():  # a plain folder: the report of its fleet
        fleet = sealscope("fleet", path)
        assert chk.returncode == 3  # check of a plain folder could not look (it names fleet)
        assert js.returncode == md.returncode == fleet.returncode
        return
    if want["kind"] is None:  # none of the kinds: refused, as check could not look
        assert js.returncode == md.returncode == chk.returncode == 3
        return
    doc = json.loads(js.stdout)
    assert doc["verdict"] == want["verdict"] and doc["kind"] == want["kind"]
    assert js.returncode == md.returncode == doc["exit_code"] == want["exit_code"]
    assert chk.returncode == want["exit_code"]
    assert f"- verdict: **{want['verdict']}**" in md.stdout
    assert doc["generated_at"] and doc["sealscope_version"]


@pytest.mark.parametrize("path", KIND_SAMPLES, ids=_ids)
def test_kind_report_lists_the_checks_in_order(path):
    doc = json.loads(sealscope("export", "--format", "json", path).stdout)
    want = json.loads(sealscope("check", "--json", path).stdout)[0]
    assert doc["bound"] == (want["bound"] if want["exit_code"] == 0 else None)
    if want["kind"] == "evidence-pack":
        assert [c["check"] for c in doc["checks"]] == [c["check"] for c in want["detail"]["checks"]]
        assert [c["verdict"] for c in doc["checks"]] == [
            c["verdict"] for c in want["detail"]["checks"]
        ]
    for row in want["detail"].get("rows_checked") or []:
        assert {
            "check": f"line {row['line']} {row['check']}",
            "verdict": row["verdict"],
        }.items() <= next(
            c for c in doc["checks"] if c["check"] == f"line {row['line']} {row['check']}"
        ).items()


def test_tampered_pack_report_is_broken_naming_the_check(tmp_path):
    folder = tmp_path / "pack"
    with zipfile.ZipFile(PACK_ZIP) as zf:
        zf.extractall(folder)
    rec = folder / "records.jsonl"
    rec.write_bytes(rec.read_bytes().replace(b"agent-7", b"agent-8", 1))
    md = sealscope("export", folder)
    assert md.returncode == 1
    assert "- verdict: **BROKEN**" in md.stdout
    assert "| 1 | `file hashes` | **BROKEN** |" in md.stdout
    gh = sealscope(
        "export",
        "--format",
        "github",
        folder,
        env={**os.environ, "GITHUB_STEP_SUMMARY": str(tmp_path / "summary.md")},
    )
    assert gh.returncode == 1
    assert "title=pack file hashes broken::" in gh.stdout
    assert "- verdict: **BROKEN**" in (tmp_path / "summary.md").read_text()


def test_export_writes_nothing_beside_the_evidence(tmp_path):
    ev = tmp_path / "ev"
    shutil.copytree(SAMPLES / "packs", ev / "packs")
    shutil.copy(SAMPLES / "kinds" / "receipt.json", ev / "receipt.json")
    before = _tree(ev)
    for target in (
        ev / "packs" / "session-pack.zip",
        ev / "packs" / "session-bundle",
        ev / "packs" / "session-aat.jsonl",
        ev / "receipt.json",
    ):
        for fmt in ("md", "json"):
            assert sealscope("export", "--format", fmt, target, cwd=tmp_path).returncode == 0
    assert _tree(ev) == before
    out = tmp_path / "report.json"
    p = sealscope("export", "--format", "json", "--output", out, ev / "packs" / "session-bundle")
    assert p.returncode == 0 and json.loads(out.read_text())["kind"] == "audit-bundle"
    assert _tree(ev) == before


def test_export_refuses_to_write_into_a_unit_or_over_it(tmp_path):
    bundle = tmp_path / "bundle"
    shutil.copytree(SAMPLES / "packs" / "session-bundle", bundle)
    before = _tree(bundle)
    p = sealscope("export", "--output", bundle / "report.md", bundle)
    assert p.returncode == 2 and "into the unit" in p.stderr
    receipt = tmp_path / "receipt.json"
    shutil.copy(SAMPLES / "kinds" / "receipt.json", receipt)
    p = sealscope("export", "--output", receipt, receipt)
    assert (
        p.returncode == 2
        and receipt.read_bytes() == (SAMPLES / "kinds" / "receipt.json").read_bytes()
    )
    assert _tree(bundle) == before


def test_ledger_flags_do_not_apply_to_a_kind():
    p = sealscope("export", "--pin", "x", SAMPLES / "kinds" / "receipt.json")
    assert p.returncode == 2 and "--pin" in p.stderr and p.stdout == ""
