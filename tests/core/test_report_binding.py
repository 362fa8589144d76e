"""A report is bound to what was audited: the evidence file's SHA-256 and size, a
ledger's head (rows, last chain), when it was made and by which sealscope — in the
JSON and in the Markdown a person attaches to a ticket (issue 33)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pytest
from sealscope.core import export, pins
from sealscope.core.export.binding import bind
from sealscope.core.version import __version__

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.parametrize("name", ["session.jsonl", "tampered.jsonl", "truncated.jsonl"])
def test_a_ledger_report_carries_the_files_digest_size_head_time_and_version(name):
    path = SAMPLES / name
    report = export.build_report(path, now="2026-03-01T09:00:00Z")
    doc = report.to_dict()
    head = pins.head(path)
    assert doc["evidence"] == {
        "sha256": sha(path),
        "bytes": path.stat().st_size,
        "head": {"rows": head.rows, "chain": head.chain},
    }
    assert doc["generated_at"] == "2026-03-01T09:00:00Z"
    assert doc["sealscope_version"] == __version__
    md = report.to_markdown()
    assert f"- sha256: `{sha(path)}`, {path.stat().st_size:,} bytes\n" in md
    assert (
        f"- head: {head.rows:,} row{'s' if head.rows != 1 else ''}, last chain "
        f"`{head.chain}`\n" in md
    )
    assert f"- generated: 2026-03-01T09:00:00Z by sealscope {__version__}\n" in md


def test_a_snapshot_report_is_bound_to_its_bytes_and_has_no_chain_head():
    path = SAMPLES / "seals" / "seal-day1.json"
    doc = export.build_report(path).to_dict()
    assert doc["evidence"] == {"sha256": sha(path), "bytes": path.stat().st_size, "head": None}
    assert doc["generated_at"] and doc["sealscope_version"] == __version__


def test_the_binding_is_of_the_bytes_as_they_are_when_the_report_is_built(tmp_path):
    led = tmp_path / "l.jsonl"
    led.write_bytes((SAMPLES / "session.jsonl").read_bytes())
    first = export.build_report(led).to_dict()["evidence"]
    with led.open("ab") as fh:
        fh.write(b'{"kind": "note"}\n')
    again = export.build_report(led).to_dict()["evidence"]
    assert again["bytes"] == first["bytes"] + 17 and again["sha256"] != first["sha256"]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_never_waited_on_its_binding_says_why(tmp_path):
    fifo = tmp_path / "f.jsonl"
    os.mkfifo(fifo)
    got = bind(fifo, "ledger", rows=0)
    assert got["sha256"] is None and got["bytes"] is None and got["head"] is None
    assert got["error"]


def test_a_folder_report_binds_each_file_and_leaves_out_what_is_no_evidence(tmp_path):
    import json

    folder = tmp_path / "ledgers"
    folder.mkdir()
    for name in ("session.jsonl", "tampered.jsonl"):
        (folder / name).write_bytes((SAMPLES / name).read_bytes())
    (folder / "notes.md").write_text("# not a ledger\n")
    (folder / "held.json").write_bytes((SAMPLES / "held" / "liar-pre.json").read_bytes())
    report = export.build_folder_report(folder, now="2026-03-01T09:00:00Z")
    doc = json.loads(report.to_json())
    assert (doc["verdict"], doc["exit_code"]) == ("BROKEN", 1)
    assert doc["generated_at"] == "2026-03-01T09:00:00Z"
    assert doc["sealscope_version"] == __version__
    files = {os.path.basename(f["path"]): f for f in doc["files"]}
    assert sorted(files) == ["session.jsonl", "tampered.jsonl"]
    for name, f in files.items():
        p = folder / name
        head = pins.head(p)
        assert f["evidence"] == {
            "sha256": sha(p),
            "bytes": p.stat().st_size,
            "head": {"rows": head.rows, "chain": head.chain},
        }
    # held content and a note of no kind are listed, with why, not judged
    assert [os.path.basename(x["path"]) for x in doc["not_evidence"]] == ["held.json", "notes.md"]
    md = report.to_markdown()
    assert f"`{sha(folder / 'tampered.jsonl')}`" in md
    assert "## sealscope audit report: `session.jsonl`" in md
