"""core.checks.bundle: an audit bundle's chain (`arcaeon audit verify`: verify_file on
DIR/records.jsonl) and then its own record of itself (KINDS.md §9.2: integrity.json can
make the word worse, never better), on bundles the reference exports from random
ledgers, randomly tampered."""

from __future__ import annotations

import hashlib
import json
import os
import random
from pathlib import Path

import pytest
from arcaeon.prove.audit import export_bundle
from arcaeon.record.ledger import Ledger, verify_file
from sealscope.core.checks import bundle
from sealscope.core.checks.result import CheckContext

from tests.core.checks_cases import cases, run_case

FIELDS = (
    "ok",
    "rows",
    "chained",
    "prechain",
    "first_break",
    "breaks",
    "verified_scope",
    "declared_breaks",
    "declared",
)


@pytest.mark.parametrize("case", cases("check/audit-bundle/"), ids=lambda c: c["id"])
def test_conformance_case(case):
    run_case(case, bundle.check)


def _bundle(rng: random.Random, tmp: Path, i: int) -> Path:
    led = tmp / f"l{i}.jsonl"
    if rng.random() < 0.1:
        led.write_text('{"unchained": 1}\n')
    L = Ledger(led)
    for n in range(rng.randint(0, 7)):
        L.append({"event": rng.choice(["tool_call", "output", "odd"]), "n": n, "t": "ü"})
    if not led.exists():
        led.write_bytes(b"")
    out = tmp / f"b{i}"
    export_bundle(led, out, system_id="s", provider="p", generated_at="2026-01-01T00:00:00Z")
    return out


def _tamper(rng: random.Random, out: Path) -> str:
    op = rng.choice(
        [
            "byte",
            "line",
            "manifest",
            "integrity-gone",
            "summary",
            "records-gone",
            "rename",
            "extra",
            "cut-tail",
            "integrity-broken",
            "integrity-could-not",
            "integrity-sha",
            "none",
        ]
    )
    rec = out / "records.jsonl"
    if op == "byte" and rec.stat().st_size:
        b = bytearray(rec.read_bytes())
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        rec.write_bytes(bytes(b))
    elif op in ("line", "cut-tail"):
        lines = rec.read_bytes().split(b"\n")
        if len(lines) > 2:
            del lines[-2 if op == "cut-tail" else rng.randrange(len(lines) - 1)]
        rec.write_bytes(b"\n".join(lines))
    elif op == "manifest":
        m = json.loads((out / "manifest.json").read_text())
        m["record_count"] = 999
        (out / "manifest.json").write_text(json.dumps(m))
    elif op.startswith("integrity-") and op != "integrity-gone":
        d = json.loads((out / "integrity.json").read_text())
        if op == "integrity-broken":
            d["verdict"], d["finding"] = "BROKEN", "TRUNCATION_DETECTED"
        elif op == "integrity-could-not":
            d["verdict"], d["finding"] = "COULD NOT LOOK", "WITNESS_CHECK_FAILED"
        else:
            d["records_sha256"] = "0" * 64
        (out / "integrity.json").write_text(json.dumps(d, indent=2))
    elif op == "integrity-gone":
        (out / "integrity.json").unlink()
    elif op == "summary":
        (out / "ARTICLE_12_SUMMARY.md").write_text("all good")
    elif op == "records-gone":
        rec.unlink()
    elif op == "rename":
        rec.rename(out / "records.jsonl.bak")
    elif op == "extra":
        (out / "notes.txt").write_text("x")
    return op


RANK = {"VERIFIED": 0, "COULD NOT LOOK": 1, "BROKEN": 2}


def _expected_word(chain_ok: bool | None, out: Path) -> str:
    """KINDS.md §9.2 written out independently: the chain's word, made worse by the
    bundle's integrity.json (a records_sha256 that differs, its own BROKEN or COULD NOT
    LOOK), never better."""
    words = [{True: "VERIFIED", False: "BROKEN", None: "COULD NOT LOOK"}[chain_ok]]
    try:
        integrity = json.loads((out / "integrity.json").read_text())
    except (OSError, ValueError):
        integrity = None
    if isinstance(integrity, dict):
        sha = hashlib.sha256((out / "records.jsonl").read_bytes()).hexdigest()
        if "records_sha256" in integrity and integrity["records_sha256"] != sha:
            words.append("BROKEN")
        if integrity.get("verdict") in ("BROKEN", "COULD NOT LOOK"):
            words.append(integrity["verdict"])
    return max(words, key=RANK.__getitem__)


def test_differential_against_audit_verify(tmp_path):
    """80 reference bundles, randomly tampered: the chain fields are verify_file's on
    records.jsonl (`missing` without it); the word is the worst of the chain's and the
    bundle's own record; manifest and summary never enter it."""
    rng = random.Random(46)
    words = set()
    for i in range(80):
        out = _bundle(rng, tmp_path, i)
        op = _tamper(rng, out)
        got = bundle.check(str(out), CheckContext()).to_dict()
        rec = out / "records.jsonl"
        if not rec.is_file():
            assert got["verdict"] == "COULD NOT LOOK" and got["ok"] is None
            assert got["detail"]["reason_word"] == "missing", op
        else:
            want = verify_file(rec)
            assert {k: got["detail"][k] for k in FIELDS} == {
                k: getattr(want, k) if k != "declared" else list(want.declared) for k in FIELDS
            }, op
            word = _expected_word(want.ok, out)
            assert got["verdict"] == word, op
            assert got["ok"] is {"VERIFIED": True, "BROKEN": False, "COULD NOT LOOK": None}[word]
        assert set(got["detail"]["not_covered"]) <= set(bundle.NOT_COVERED)
        words.add(got["verdict"])
    assert words == {"VERIFIED", "BROKEN", "COULD NOT LOOK"}


def _honest(tmp: Path) -> Path:
    led = tmp / "honest.jsonl"
    L = Ledger(led)
    for n in range(4):
        L.append({"event": "tool_call", "n": n})
    out = tmp / "honest"
    export_bundle(led, out, system_id="s", provider="p", generated_at="2026-01-01T00:00:00Z")
    return out


def test_the_bundles_own_record_makes_it_worse_never_better(tmp_path):
    out = _honest(tmp_path)
    integrity = out / "integrity.json"
    honest = integrity.read_text()
    assert bundle.check(str(out), CheckContext()).verdict == "VERIFIED"
    d = json.loads(honest)
    for said, finding, word in (
        ("BROKEN", "TRUNCATION_DETECTED", "BROKEN"),
        ("COULD NOT LOOK", "WITNESS_CHECK_FAILED", "COULD NOT LOOK"),
        ("VERIFIED", "PASS", "VERIFIED"),
    ):
        integrity.write_text(json.dumps({**d, "verdict": said, "finding": finding}))
        got = bundle.check(str(out), CheckContext())
        assert got.verdict == word, said
        assert got.detail["integrity"]["finding"] == finding
        if word != "VERIFIED":
            assert f"integrity.json records {finding}" in got.reason
    integrity.write_text(honest)
    lines = (out / "records.jsonl").read_bytes().splitlines(keepends=True)
    (out / "records.jsonl").write_bytes(b"".join(lines[:-1]))
    got = bundle.check(str(out), CheckContext())
    assert (got.verdict, got.ok, got.detail["ok"]) == ("BROKEN", False, True)
    assert got.detail["integrity"]["records_sha256_matches"] is False
    assert "records_sha256 differs" in got.reason


def test_the_output_says_what_is_not_covered(tmp_path):
    out = _honest(tmp_path)
    got = bundle.check(str(out), CheckContext())
    assert got.detail["not_covered"] == list(bundle.NOT_COVERED)
    assert got.detail["integrity"]["records_sha256_matches"] is True
    assert got.ok and "manifest and summary not covered" in got.bound
    (out / "integrity.json").unlink()
    got = bundle.check(str(out), CheckContext())
    assert got.ok and got.bound == bundle.BOUND_NO_INTEGRITY
    assert got.detail["integrity"] == {
        "verdict": None,
        "finding": None,
        "records_sha256_matches": None,
    }


def test_records_linked_out_of_the_folder_is_not_followed(tmp_path):
    out = _bundle(random.Random(3), tmp_path, 0)
    real = tmp_path / "real.jsonl"
    (out / "records.jsonl").rename(real)
    os.symlink(real, out / "records.jsonl")
    got = bundle.check(str(out), CheckContext()).to_dict()
    assert got["verdict"] == "COULD NOT LOOK" and got["detail"]["reason_word"] == "missing"


def test_an_unreadable_records_file_could_not_look(tmp_path):
    out = _bundle(random.Random(4), tmp_path, 0)
    rec = out / "records.jsonl"
    rec.unlink()
    os.mkfifo(rec)
    got = bundle.check(str(out), CheckContext()).to_dict()
    assert got["verdict"] == "COULD NOT LOOK"


def test_unit_subjects_are_each_file(tmp_path):
    out = _bundle(random.Random(6), tmp_path, 0)
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    os.symlink(outside, out / "link.txt")
    got = bundle.unit_subjects(str(out))
    assert [n for n, _ in got] == sorted(p.name for p in out.iterdir() if p.name != "link.txt")
    assert all(hashlib.sha256((out / n).read_bytes()).hexdigest() == d for n, d in got)
