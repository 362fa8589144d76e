"""`sealscope export` of a long-tail document (KINDS-3.md §15.4): a mandate, a deal
pack, a stored once receipt or a vet grade gets the kind report of its own check — the
check's word and exit code, its profile named, `detail` as `check` gives it."""

from __future__ import annotations

import json

from tests.cli.test_fleet_kinds import run
from tests.core.test_profiles_documents import TOOL, _pack


def test_export_of_a_mandate_is_its_check(tmp_path):
    path = tmp_path / "mandate.json"
    path.write_text(json.dumps({**TOOL, "not_before": "next tuesday"}))
    p = run("export", str(path), "--format", "json")
    doc = json.loads(p.stdout)
    assert p.returncode == 1, p.stderr
    assert (doc["kind"], doc["profile"], doc["verdict"]) == (None, "mandate", "BROKEN")
    assert doc["checks"][0]["check"] == "mandate"
    assert doc["detail"]["problems"] == [{"key": "not_before"}]
    md = run("export", str(path)).stdout
    assert "- profile: `mandate`" in md


def test_export_of_a_deal_pack_writes_nothing_into_it(tmp_path):
    folder = _pack(tmp_path)
    before = sorted(x.name for x in folder.iterdir())
    p = run("export", str(folder), "--format", "json")
    doc = json.loads(p.stdout)
    assert p.returncode == 0, p.stderr
    assert (doc["profile"], doc["verdict"], doc["detail"]["agrees"]) == (
        "deal-pack",
        "VERIFIED",
        True,
    )
    assert sorted(x.name for x in folder.iterdir()) == before


def test_export_of_a_folder_puts_the_pair_on_both_sections(tmp_path):
    from tests.core import profiles_cases as cases
    from tests.core.test_profiles_pairs import _tape_pair

    root = tmp_path / "tapes"
    root.mkdir()
    a, t = _tape_pair(root)
    cases.rechain_edit("resp", "sha256:json-c14n:v1:" + "2" * 64, 3)(t, t)
    p = run("export", str(root), "--format", "json")
    doc = json.loads(p.stdout)
    assert p.returncode == 1, p.stderr
    pairs = {r["path"]: r["detail"]["pair"] for r in doc["reports"]}
    assert pairs[str(a)]["partner"] == str(t) and pairs[str(t)]["partner"] == str(a)
    assert pairs[str(a)]["verdict"] == pairs[str(t)]["verdict"] == "ALTERED"
    assert [f["verdict"] for f in doc["files"]] == ["BROKEN", "BROKEN"]
