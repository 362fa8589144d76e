"""Kind reports (`core.export.build_kind_report`): every sample of a kind `check` knows
reports the check's own verdict, exit code, bound, checks and binding, never judged
again; a pack or bundle report covers the unit (checks, ledger audit, members)."""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import zipfile
from pathlib import Path

import pytest
from sealscope.core import checks, kinds
from sealscope.core import verdict as V
from sealscope.core.checks import pack
from sealscope.core.export import KIND_SCHEMA, REPORT_KINDS, build_kind_report

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
KIND_SAMPLES = sorted(
    p
    for d in (SAMPLES / "kinds", SAMPLES / "packs")
    for p in d.iterdir()
    if kinds.identify(p).kind in REPORT_KINDS
)
PACK_ZIP = SAMPLES / "packs" / "session-pack.zip"
BUNDLE = SAMPLES / "packs" / "session-bundle"
NOW = "2026-01-01T00:00:00Z"


def _ids(p: Path) -> str:
    return str(p.relative_to(SAMPLES))


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _outside_literals(md: str) -> str:
    """The Markdown with its fenced blocks and code spans removed: what a renderer
    would interpret."""
    md = re.sub(r"(?ms)^(`{3,})json\n.*?^\1$", "", md)
    return re.sub(r"(`+).*?\1", "", md)


def test_every_kind_has_a_sample():
    found = {kinds.identify(p).kind for p in KIND_SAMPLES}
    assert found == set(REPORT_KINDS)
    assert len(KIND_SAMPLES) >= 8


@pytest.mark.parametrize("path", KIND_SAMPLES, ids=_ids)
def test_report_is_the_checks_own(path):
    res = checks.run([str(path)])[0]
    r = build_kind_report(str(path), now=NOW)
    assert (r.kind, r.verdict, r.exit_code) == (res.kind, res.verdict, res.exit_code)
    assert r.bound == (res.bound if res.exit_code == V.HELD else "")
    doc = json.loads(r.to_json())
    assert doc["schema"] == KIND_SCHEMA and doc["verdict"] == res.verdict
    assert doc["exit_code"] == res.exit_code and doc["generated_at"] == NOW
    assert doc["sealscope_version"] and doc["detail"] == json.loads(json.dumps(res.detail))
    assert [c["check"] for c in doc["checks"]] and all("verdict" in c for c in doc["checks"])
    md = r.to_markdown()
    assert f"- verdict: **{res.verdict}**" in md
    if res.bound and res.exit_code == V.HELD:
        assert "bounded: " in md
    if path.is_file():
        assert doc["evidence"]["sha256"] == _sha(path)
        assert doc["evidence"]["bytes"] == path.stat().st_size
        assert doc["evidence"]["sha256"] in md


def test_pack_zip_report_covers_the_unit():
    r = build_kind_report(str(PACK_ZIP), now=NOW)
    assert [c["check"] for c in r.checks] == list(pack.CHECKS)
    assert r.evidence is not None and r.evidence["sha256"] == _sha(PACK_ZIP)
    assert r.evidence["unit"] == "zip"
    with zipfile.ZipFile(PACK_ZIP) as zf:
        actual = {n: hashlib.sha256(zf.read(n)).hexdigest() for n in zf.namelist()}
    assert {m["name"]: m["actual"] for m in r.evidence["members"]} == actual
    assert r.ledger is not None and r.ledger["verdict"] == V.VERIFIED
    assert r.ledger["rows"] == 11 and r.ledger["findings"] == []
    md = r.to_markdown()
    assert "## Ledger audit (records.jsonl)" in md and "## Members" in md
    for h in actual.values():
        assert h in md


def _pack_folder(tmp_path: Path) -> Path:
    out = tmp_path / "pack"
    with zipfile.ZipFile(PACK_ZIP) as zf:
        zf.extractall(out)
    return out


def test_tampered_pack_is_broken_naming_the_check(tmp_path):
    folder = _pack_folder(tmp_path)
    records = folder / "records.jsonl"
    records.write_bytes(records.read_bytes().replace(b"agent-7", b"agent-8", 1))
    r = build_kind_report(str(folder), now=NOW)
    assert (r.verdict, r.exit_code) == (V.BROKEN, V.WRONG)
    words = {c["check"]: c["verdict"] for c in r.checks}
    assert words["file hashes"] == V.BROKEN and words["records chain and head"] == V.BROKEN
    assert r.evidence is not None and r.evidence["unit"] == "folder"
    assert r.evidence["sha256"] is None
    member = next(m for m in r.evidence["members"] if m["name"] == "records.jsonl")
    assert member["matches"] is False and member["actual"] == _sha(records)
    assert member["listed"] != member["actual"]
    assert r.ledger is not None and r.ledger["verdict"] == V.BROKEN
    assert r.ledger["findings"][0]["line"] == 1
    md = r.to_markdown()
    assert "- verdict: **BROKEN**" in md and "### 1. `file hashes`: **BROKEN**" in md
    assert "| 1 | `break` | `line 1: chain mismatch` |" in md


def test_hostile_member_names_are_escaped(tmp_path):
    folder = _pack_folder(tmp_path)
    evil = "<img src=x onerror=alert(1)>[x](javascript:y)\x1b[31m"
    (folder / evil).write_bytes(b"planted")
    r = build_kind_report(str(folder), now=NOW)
    assert r.verdict == V.BROKEN  # an unlisted file: the pack's own word
    md = r.to_markdown()
    assert "\x1b" not in md
    bare = _outside_literals(md)
    # outside literals every `<`, `[`, `]` and `(` after `]` is backslash-escaped
    assert not re.search(r"(?<!\\)<img", bare), bare
    assert not re.search(r"(?<!\\)\]\(", bare), bare
    assert "onerror" in md  # it is shown, literally, inside a code span or block


def test_bundle_report_lists_its_members_and_ledger(tmp_path):
    r = build_kind_report(str(BUNDLE), now=NOW)
    assert r.verdict == V.VERIFIED and "not covered" in r.bound
    names = {m["name"]: m for m in r.evidence["members"]} if r.evidence else {}
    assert names["records.jsonl"]["actual"] == _sha(BUNDLE / "records.jsonl")
    assert names["records.jsonl"]["listed"] is None
    copy = tmp_path / "bundle"
    shutil.copytree(BUNDLE, copy)
    rec = copy / "records.jsonl"
    lines = rec.read_bytes().splitlines(keepends=True)
    rec.write_bytes(b"".join(lines[:2] + lines[3:]))  # a row cut out of the middle
    bad = build_kind_report(str(copy), now=NOW)
    assert bad.verdict == checks.run([str(copy)])[0].verdict == V.BROKEN
    assert bad.ledger is not None and bad.ledger["findings"]
    assert "- chain: **BROKEN**" in bad.to_markdown()


def test_none_of_the_kinds_could_not_look(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("[1, 2]")
    r = build_kind_report(str(p), now=NOW)
    assert (r.kind, r.verdict, r.exit_code) == (None, V.COULD_NOT_LOOK, V.COULD_NOT)
