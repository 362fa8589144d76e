"""core.checks.bundle: an audit bundle's chain and only that, against `arcaeon audit
verify` (verify_file on DIR/records.jsonl) on bundles the reference exports from
random ledgers, randomly tampered."""

from __future__ import annotations

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


def test_differential_against_audit_verify(tmp_path):
    """50 reference bundles, randomly tampered: the verdict fields are verify_file's on
    records.jsonl (`missing` without it); manifest, integrity file and summary never
    enter the verdict and are named as not covered."""
    rng = random.Random(46)
    words = set()
    for i in range(50):
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
            assert got["ok"] is want.ok
            assert (
                got["verdict"]
                == {True: "VERIFIED", False: "BROKEN", None: "COULD NOT LOOK"}[want.ok]
            )
        assert set(got["detail"]["not_covered"]) <= set(bundle.NOT_COVERED)
        words.add(got["verdict"])
    assert words == {"VERIFIED", "BROKEN", "COULD NOT LOOK"}


def test_the_output_says_what_is_not_covered(tmp_path):
    out = _bundle(random.Random(2), tmp_path, 0)
    (out / "integrity.json").write_text(
        (out / "integrity.json").read_text().replace('"finding": "', '"finding": "X')
    )
    got = bundle.check(str(out), CheckContext())
    assert got.detail["not_covered"] == list(bundle.NOT_COVERED)
    side = got.detail["not_checked_by_reference"]
    assert side["integrity_finding"].startswith("X") and side["records_sha256_matches"]
    if got.ok:
        assert "manifest, integrity file and summary not covered" in got.bound


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
    import hashlib

    out = _bundle(random.Random(6), tmp_path, 0)
    outside = tmp_path / "outside.txt"
    outside.write_text("x")
    os.symlink(outside, out / "link.txt")
    got = bundle.unit_subjects(str(out))
    assert [n for n, _ in got] == sorted(p.name for p in out.iterdir() if p.name != "link.txt")
    assert all(hashlib.sha256((out / n).read_bytes()).hexdigest() == d for n, d in got)
