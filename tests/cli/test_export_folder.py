"""`sealscope export DIR` covers what `sealscope fleet DIR` audits (issues 30 and 33):
the same walk (subfolders, units as one entry, links out of the tree not followed
unless `--follow-links`), one section per evidence entry in the fleet's order with the
fleet's words and exit codes, the not-evidence paths listed with why, and the folder's
verdict the fleet's (held-back rule included). Real files, the real CLI."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.core import fleet
from sealscope.core.fleet import FleetEntry

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
EXE = Path(sys.executable).parent / "sealscope"

needs_fifo = pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")


def run(*argv: str, cwd: Path) -> subprocess.CompletedProcess:
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    return subprocess.run(
        [*cmd, *argv],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        check=False,
    )


OUTSIDE = b'{"op": "outside the tree: never read without --follow-links"}\n'


def make_folder(base: Path, *, fifo: bool = True) -> Path:
    """`base/fleet`: a ledger, a broken ledger in a subfolder, a pack zip, a bundle
    folder, an AAT export, held content, a FIFO and a link out of the tree."""
    root = base / "fleet"
    (root / "sub").mkdir(parents=True)
    shutil.copy(SAMPLES / "session.jsonl", root / "session.jsonl")
    shutil.copy(SAMPLES / "tampered.jsonl", root / "sub" / "tampered.jsonl")
    shutil.copy(SAMPLES / "packs" / "session-pack.zip", root / "pack.zip")
    shutil.copytree(SAMPLES / "packs" / "session-bundle", root / "bundle")
    shutil.copy(SAMPLES / "packs" / "session-aat.jsonl", root / "sub" / "aat.jsonl")
    shutil.copy(SAMPLES / "held" / "liar-pre.json", root / "held.json")  # no evidence kind
    if fifo:
        os.mkfifo(root / "pipe.jsonl")
    (base / "outside.jsonl").write_bytes(OUTSIDE)
    os.symlink(base / "outside.jsonl", root / "sub" / "out.jsonl")
    return root


def fleet_json(cwd: Path, *flags: str) -> tuple[dict[str, dict], dict, int]:
    """`sealscope fleet fleet --json`: its entries by path, its summary, its exit code."""
    proc = run("fleet", "fleet", "--json", *flags, cwd=cwd)
    docs = [json.loads(line) for line in proc.stdout.splitlines()]
    summary = docs.pop()["summary"]
    return {d["path"]: d for d in docs}, summary, proc.returncode


def fleet_order(cwd: Path, monkeypatch, follow_links: bool = False) -> list[FleetEntry]:
    """The fleet's entries of `cwd/fleet` (its walk and runner, in this process),
    evidence worst first then the not-evidence paths: the order `sealscope fleet`
    prints them in."""
    monkeypatch.chdir(cwd)
    skipped: list[tuple[str, str]] = []
    sized = list(fleet.walk(["fleet"], follow_links=follow_links, skipped=skipped))
    got = [fleet.unreadable_entry(p, why) for p, why in skipped] + fleet.run_local(sized)
    return fleet.worst_first(got) + fleet.not_evidence(got)


def export_json(cwd: Path, *flags: str) -> tuple[dict, int]:
    proc = run("export", "fleet", "--format", "json", *flags, cwd=cwd)
    assert proc.stderr == ""
    return json.loads(proc.stdout), proc.returncode


@needs_fifo
def test_export_dir_has_one_entry_per_fleet_entry_in_fleet_order_with_its_words(
    tmp_path, monkeypatch
):
    make_folder(tmp_path)
    listed, summary, fleet_code = fleet_json(tmp_path)
    doc, code = export_json(tmp_path)
    ordered = [e for e in fleet_order(tmp_path, monkeypatch) if e.evidence]
    # every kind is in it, each one entry: nothing "left out" that the fleet audits
    assert {e.kind for e in ordered} == {"ledger", "evidence-pack", "audit-bundle", "aat-export"}
    assert [f["path"] for f in doc["files"]] == [e.path for e in ordered]
    # the words and exit codes `sealscope fleet --json` printed for each
    judged = {p: d for p, d in listed.items() if d["exit_code"] is not None}
    assert sorted(judged) == sorted(f["path"] for f in doc["files"])
    assert [(f["kind"], f["verdict"], f["exit_code"]) for f in doc["files"]] == [
        (
            judged[f["path"]].get("kind", "ledger"),
            judged[f["path"]]["verdict"],
            judged[f["path"]]["exit_code"],
        )
        for f in doc["files"]
    ]
    assert [r["path"] for r in doc["reports"]] == [e.path for e in ordered]  # a section each
    assert [r["verdict"] for r in doc["reports"]] == [e.verdict for e in ordered]
    # the subfolder was entered; a unit is one entry, its members not walked again
    assert doc["files"][0]["path"] == "fleet/sub/tampered.jsonl"
    assert not any("bundle/" in f["path"] for f in doc["files"])
    # the not-evidence paths, listed with why, never judged
    left = sorted(p for p, d in listed.items() if d["exit_code"] is None)
    assert [x["path"] for x in doc["not_evidence"]] == left == ["fleet/held.json"]
    assert doc["not_evidence"][0]["reason"] == "is not one JSON object"
    # the folder's verdict is the fleet's
    assert (doc["verdict"], doc["exit_code"], code, fleet_code) == ("BROKEN", 1, 1, 1)
    assert doc["summary"] == {k: v for k, v in summary.items() if k != "seconds"}
    by = {f["relative"]: f for f in doc["files"]}
    assert (by["pipe.jsonl"]["verdict"], by["pipe.jsonl"]["why"]) == (
        "COULD NOT LOOK",
        "a FIFO (named pipe): not read",
    )
    assert by["sub/out.jsonl"]["verdict"] == "COULD NOT LOOK"
    assert "not followed (--follow-links follows it)" in by["sub/out.jsonl"]["why"]


@needs_fifo
def test_each_entry_is_bound_to_its_bytes_and_a_link_out_of_the_tree_is_never_read(tmp_path):
    root = make_folder(tmp_path)
    doc, _code = export_json(tmp_path)
    by = {f["relative"]: f for f in doc["files"]}
    for name in ("session.jsonl", "sub/tampered.jsonl", "pack.zip", "sub/aat.jsonl"):
        data = (root / name).read_bytes()
        ev = by[name]["evidence"]
        assert (ev["sha256"], ev["bytes"]) == (hashlib.sha256(data).hexdigest(), len(data))
    assert by["session.jsonl"]["evidence"]["head"]["rows"] == 11
    members = {m["name"]: m["actual"] for m in by["bundle"]["evidence"]["members"]}
    assert (
        members["records.jsonl"]
        == hashlib.sha256((root / "bundle" / "records.jsonl").read_bytes()).hexdigest()
    )
    for name in ("pipe.jsonl", "sub/out.jsonl"):
        ev = by[name]["evidence"]
        assert ev["sha256"] is None and ev["bytes"] is None and ev["error"]
    text = json.dumps(doc)
    assert hashlib.sha256(OUTSIDE).hexdigest() not in text and "outside the tree" not in text


@needs_fifo
def test_the_markdown_names_each_entry_and_has_a_section_for_each(tmp_path):
    make_folder(tmp_path)
    proc = run("export", "fleet", cwd=tmp_path)
    assert proc.returncode == 1, proc.stderr
    md = proc.stdout
    head = md.split("\n---\n")[0]  # the folder's own part, before the sections
    table = [line for line in head.splitlines() if line.startswith("| `")]
    names = ["sub/tampered.jsonl", "pipe.jsonl", "sub/out.jsonl", "sub/aat.jsonl", "bundle"]
    for name in [*names, "pack.zip", "session.jsonl"]:
        assert sum(line.startswith(f"| `{name}` |") for line in table) == 1, name
    assert len(table) == 7
    assert "- `held.json`: is not one JSON object" in md
    assert "audited: 4 ledgers, 1 aat-export, 1 audit-bundle, 1 evidence-pack:" in md
    sections = [line for line in md.splitlines() if line.startswith("## sealscope audit report")]
    assert len(sections) == 7
    assert "## sealscope audit report: `pack.zip`" in sections


def test_held_content_named_jsonl_is_a_ledger_of_the_folder_as_check_says(tmp_path):
    """A `.jsonl` file of held content (rows with no `chain`) is a ledger (KINDS.md
    §1): `export DIR` and `fleet` judge it with `check`'s word, never set it aside."""
    root = tmp_path / "fleet"
    root.mkdir()
    shutil.copy(SAMPLES / "session.jsonl", root / "session.jsonl")
    shutil.copy(SAMPLES / "packs" / "session-pack.zip", root / "pack.zip")
    doc, code = export_json(tmp_path)
    assert (doc["verdict"], code) == ("VERIFIED", 0)
    shutil.copy(SAMPLES / "held" / "session-pre.jsonl", root / "held.jsonl")
    checked = json.loads(run("check", "fleet/held.jsonl", "--json", cwd=tmp_path).stdout)[0]
    _listed, summary, fleet_code = fleet_json(tmp_path)
    doc, code = export_json(tmp_path)
    by = {f["relative"]: f for f in doc["files"]}
    assert (by["held.jsonl"]["kind"], by["held.jsonl"]["verdict"]) == ("ledger", "BROKEN")
    assert by["held.jsonl"]["verdict"] == checked["verdict"]
    assert (doc["verdict"], doc["exit_code"], code) == ("BROKEN", 1, 1)
    assert code == fleet_code == summary["exit_code"] and doc["not_evidence"] == []


OUTSIDE_LEDGER = SAMPLES / "truncated.jsonl"


def test_follow_links_reads_a_link_out_of_the_tree_as_fleet_follow_links(tmp_path, monkeypatch):
    root = make_folder(tmp_path, fifo=False)
    os.unlink(root / "sub" / "out.jsonl")
    os.symlink(OUTSIDE_LEDGER, root / "sub" / "out.jsonl")
    listed, _summary, fleet_code = fleet_json(tmp_path, "--follow-links")
    doc, code = export_json(tmp_path, "--follow-links")
    assert doc["follow_links"] is True and code == fleet_code
    ordered = [e for e in fleet_order(tmp_path, monkeypatch, True) if e.evidence]
    assert [(f["path"], f["verdict"]) for f in doc["files"]] == [
        (e.path, e.verdict) for e in ordered
    ]
    out = next(f for f in doc["files"] if f["relative"] == "sub/out.jsonl")
    assert out["verdict"] == listed["fleet/sub/out.jsonl"]["verdict"]
    data = OUTSIDE_LEDGER.read_bytes()
    assert out["evidence"]["sha256"] == hashlib.sha256(data).hexdigest()
    # without the flag the same link is not read
    doc, _code = export_json(tmp_path)
    out = next(f for f in doc["files"] if f["relative"] == "sub/out.jsonl")
    assert out["evidence"]["sha256"] is None and out["verdict"] == "COULD NOT LOOK"


def test_follow_links_is_refused_for_anything_but_a_folder(tmp_path):
    proc = run("export", str(SAMPLES / "session.jsonl"), "--follow-links", cwd=tmp_path)
    assert proc.returncode == 2 and proc.stdout == ""
    assert "--follow-links applies to a folder" in proc.stderr


def test_a_folder_with_no_evidence_is_could_not_look_nothing_audited(tmp_path):
    (tmp_path / "fleet").mkdir()
    (tmp_path / "fleet" / "notes.md").write_text("# not evidence\n")
    doc, code = export_json(tmp_path)
    assert (doc["verdict"], code, doc["files"], doc["reports"]) == ("COULD NOT LOOK", 3, [], [])
    md = run("export", "fleet", cwd=tmp_path).stdout
    assert "No evidence entry found: nothing was audited." in md


def test_the_count_words_are_the_fleets_own(tmp_path, monkeypatch):
    make_folder(tmp_path, fifo=False)
    words = fleet.count_words(fleet.summarize(fleet_order(tmp_path, monkeypatch), 0.0))
    assert words == "3 ledgers, 1 aat-export, 1 audit-bundle, 1 evidence-pack"
    human = run("fleet", "fleet", cwd=tmp_path).stdout.splitlines()
    assert human[-1].startswith(words + ": ")


def test_every_section_says_the_word_and_code_of_its_fleet_entry(tmp_path):
    """The samples hold every kind (snapshots, harn files, receipts, a pack...): each
    section is laid out from its entry, never judged again, so it never says another
    word than the table and `sealscope fleet` do."""
    proc = run("export", str(SAMPLES), "--format", "json", cwd=tmp_path)
    doc = json.loads(proc.stdout)
    assert {f["kind"] for f in doc["files"]} >= {"ledger", "snapshot", "harn", "evidence-pack"}
    assert [(r["path"], r["verdict"], r["exit_code"]) for r in doc["reports"]] == [
        (f["path"], f["verdict"], f["exit_code"]) for f in doc["files"]
    ]
    assert (
        proc.returncode == doc["exit_code"] == run("fleet", str(SAMPLES), cwd=tmp_path).returncode
    )


def test_a_folder_refuses_the_flags_of_one_file_rather_than_ignore_them(tmp_path):
    (tmp_path / "fleet").mkdir()
    shutil.copy(SAMPLES / "session.jsonl", tmp_path / "fleet" / "session.jsonl")
    for flag in (["--artefacts", str(tmp_path)], ["--pin", "x"]):
        proc = run("export", "fleet", *flag, cwd=tmp_path)
        assert proc.returncode == 2 and proc.stdout == "", flag
        assert f"{flag[0]} apply to one file" in proc.stderr
