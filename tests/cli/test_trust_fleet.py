"""Issue 32 (fleet listing): symlinks out of the tree are not followed unless asked
(and are listed as such), an S3-style key holding `::` is one object, not a chain of
URLs, and a remote object is streamed with a size cap."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import fsspec
from sealscope import fleet_engine as engine
from sealscope.core import fleet
from sealscope.core import ledger as L


def _ledger(p, n=3):
    for i in range(n):
        L.append(p, {"i": i, "ts": "t"})
    return p


def _fleet(*argv):
    r = subprocess.run(
        [sys.executable, "-m", "sealscope", "fleet", *argv, "--json"],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    assert "Traceback" not in r.stderr, r.stderr
    return r, [json.loads(line) for line in r.stdout.splitlines()]


def test_a_symlink_out_of_the_tree_is_not_read(tmp_path):
    tree = tmp_path / "ledgers"
    tree.mkdir()
    _ledger(tree / "a.jsonl")
    secret = _ledger(tmp_path / "outside.jsonl")
    (tree / "x.jsonl").symlink_to(secret)
    (tree / "inside.jsonl").symlink_to(tree / "a.jsonl")  # inside the tree: read
    skipped: list = []
    got = dict(fleet.walk([str(tree)], skipped=skipped))
    # every file is taken (the lock file too: the classifier decides what each is)
    assert sorted(os.path.basename(p) for p in got) == ["a.jsonl", "a.jsonl.lock", "inside.jsonl"]
    assert skipped and skipped[0][0].endswith("x.jsonl")
    assert "not followed (--follow-links follows it)" in skipped[0][1]
    assert len(dict(fleet.walk([str(tree)], follow_links=True))) == 4
    vsa = tmp_path / "vsa.json"
    r, _docs = _fleet(str(tree), "--vsa", str(vsa))
    text = vsa.read_text()
    assert str(secret) not in text.split('"subject"')[1].split('"predicate"')[0]
    assert "not followed" in r.stdout
    r, _docs = _fleet(str(tree), "--follow-links")
    assert "not followed" not in r.stdout


def test_a_key_with_double_colons_is_one_object(tmp_path):
    fs = fsspec.filesystem("memory")
    src = _ledger(tmp_path / "l.jsonl")
    fs.pipe("/bucket/a::b.jsonl", src.read_bytes())
    try:
        entry = engine.audit_url("memory://bucket/a::b.jsonl", {})
        assert entry.verdict == "VERIFIED", entry.result.first_break
        listed = list(engine.list_remote("memory://bucket", "*.jsonl", {}))
        assert [(u.endswith("a::b.jsonl"), err) for u, _n, err in listed] == [(True, None)]
    finally:
        fs.rm("/bucket", recursive=True)


def test_a_remote_object_over_the_cap_is_not_fetched(tmp_path, monkeypatch):
    fs = fsspec.filesystem("memory")
    fs.pipe("/cap/big.jsonl", b"x" * (3 << 20))
    monkeypatch.setattr(engine, "REMOTE_MAX_BYTES", 1 << 20)
    try:
        entry = engine.audit_url("memory://cap/big.jsonl", {})
        assert entry.verdict == "COULD NOT LOOK"
        assert "not fetched" in entry.result.first_break
    finally:
        fs.rm("/cap", recursive=True)
