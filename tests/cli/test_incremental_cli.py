"""`sealscope verify --incremental [--checkpoint FILE]`: the resumed report, the JSON
`resumed` object beside unchanged verdict fields, and bad checkpoints ignored with a
note."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sealscope.core import ledger as L


def run(*argv: str, cache: Path) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "sealscope", *argv],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
        env=env,
        check=False,
    )


def _ledger(p: Path, n: int, start: int = 0) -> Path:
    for i in range(start, start + n):
        L.append(p, {"i": i, "ts": "t"})
    return p


def test_resumed_report_and_json(tmp_path):
    ev = tmp_path / "evidence"
    ev.mkdir()
    p = _ledger(ev / "l.jsonl", 8)
    cache = tmp_path / "cache"
    first = run("verify", str(p), "--incremental", cache=cache)
    assert first.returncode == 0
    where = next((cache / "sealscope" / "checkpoints").iterdir())
    assert first.stdout == (
        f"VERIFIED  {p}  rows=8 chained=8 prechain=0 breaks=0 scope=full\n"
        f"  note: no checkpoint at {where} yet: verified in full\n"
    )
    _ledger(p, 4, 8)
    again = run("verify", str(p), "--incremental", cache=cache)
    assert again.returncode == 0
    assert again.stdout.splitlines() == [
        f"VERIFIED  {p}  rows=12 chained=12 prechain=0 breaks=0 scope=full",
        "  rows 1..8 unchanged since checkpoint (prefix hash matched), 9..12 verified now",
    ]
    _ledger(p, 1, 12)
    doc = json.loads(run("verify", str(p), "--incremental", "--json", cache=cache).stdout)
    plain = json.loads(run("verify", str(p), "--json", cache=cache).stdout)
    resumed = doc.pop("resumed")
    assert doc == plain  # the verdict fields are exactly plain verify's
    assert resumed == {
        "resumed": True,
        "rows_unchanged": 12,
        "rows_total": 13,
        "lines_unchanged": 12,
        "bytes_unchanged": resumed["bytes_unchanged"],
        "bytes_total": p.stat().st_size,
        "checkpoint_written_at": resumed["checkpoint_written_at"],
        "sentence": (
            "rows 1..12 unchanged since checkpoint (prefix hash matched), 13..13 verified now"
        ),
        "checkpoint": str(where),
        "written": True,
        "caught": None,
        "notes": [],
    }
    # nothing beside the evidence but the ledger and the test writer's own append lock
    assert sorted(os.listdir(ev)) == ["l.jsonl", "l.jsonl.lock"]
    assert "resumed" not in plain


def test_explicit_checkpoint_file_and_a_rewrite(tmp_path):
    p = _ledger(tmp_path / "l.jsonl", 6)
    cp = tmp_path / "ci" / "l.checkpoint.json"
    assert (
        run(
            "verify", str(p), "--incremental", "--checkpoint", str(cp), cache=tmp_path / "c"
        ).returncode
        == 0
    )
    assert json.loads(cp.read_text())["rows"] == 6
    assert not (tmp_path / "c").exists()
    data = p.read_bytes()
    p.write_bytes(data.replace(b'"i": 1,', b'"i": 5,', 1))
    r = run("verify", str(p), "--incremental", "--checkpoint", str(cp), cache=tmp_path / "c")
    assert r.returncode == 1
    assert r.stdout.splitlines()[:2] == [
        f"BROKEN  {p}  rows=6 chained=6 prechain=0 breaks=2 scope=full",
        f"  first break: checkpoint: prefix changed in bytes 0–{len(data):,} since it was verified",
    ]
    assert "  note: the full walk's first break: line 2: chain mismatch" in r.stdout


def _bad(kind: str, cp: Path, p: Path) -> None:
    doc = json.loads(cp.read_text())
    if kind == "corrupted":
        cp.write_bytes(cp.read_bytes()[:40])
    elif kind == "foreign":
        doc["path"] = "/somewhere/else.jsonl"
        cp.write_text(json.dumps(doc))
    else:
        doc["rules"] = "sealscope-walk/0 (arcaeon 0.9.0)"
        cp.write_text(json.dumps(doc))


def test_corrupted_foreign_and_old_checkpoints_are_ignored_with_a_note(tmp_path):
    p = _ledger(tmp_path / "l.jsonl", 5)
    cp = tmp_path / "cp.json"
    expect = {
        "corrupted": "ignored: unreadable (not JSON",
        "foreign": "ignored: it is for another file (/somewhere/else.jsonl)",
        "old": "ignored: made by rules 'sealscope-walk/0 (arcaeon 0.9.0)'",
    }
    for kind, words in expect.items():
        run("verify", str(p), "--incremental", "--checkpoint", str(cp), cache=tmp_path)
        _bad(kind, cp, p)
        r = run("verify", str(p), "--incremental", "--checkpoint", str(cp), cache=tmp_path)
        assert r.returncode == 0, kind
        lines = r.stdout.splitlines()
        assert lines[0] == f"VERIFIED  {p}  rows=5 chained=5 prechain=0 breaks=0 scope=full"
        assert lines[1].startswith(f"  note: checkpoint {cp} {words}")
        assert lines[1].endswith("; verified in full")
        if kind == "corrupted":  # not a checkpoint: kept, never replaced (issue 32)
            assert len(lines) == 3 and "is kept: it is not a sealscope checkpoint" in lines[2]
            cp.unlink()
            continue
        assert len(lines) == 2
        # and a good checkpoint replaced it
        r = run("verify", str(p), "--incremental", "--checkpoint", str(cp), cache=tmp_path)
        assert "unchanged since checkpoint (prefix hash matched)" in r.stdout


def test_usage_errors(tmp_path):
    p = _ledger(tmp_path / "l.jsonl", 1)
    r = run("verify", str(p), "--checkpoint", "x", cache=tmp_path)
    assert r.returncode == 2 and "--checkpoint goes with --incremental" in r.stderr
    r = run("verify", str(p), str(p), "--incremental", "--checkpoint", "x", cache=tmp_path)
    assert r.returncode == 2 and "give one LEDGER" in r.stderr


def test_unreadable_ledger_exits_3_without_a_checkpoint(tmp_path):
    r = run("verify", str(tmp_path / "nope.jsonl"), "--incremental", cache=tmp_path / "c")
    assert r.returncode == 3 and "Traceback" not in r.stderr
    assert not (tmp_path / "c").exists()
