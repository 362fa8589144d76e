"""core.kinds: one answer to "what is this file", on the samples and the edge cases."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sealscope.core import kinds, ledger

from tests.core.fifo_helpers import fifo_in_place, returns, swapped_after_stat

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
SEALS = SAMPLES / "seals"
LOOKED_FOR = (
    "looked for JSONL rows with a `chain`, a continuity snapshot (`schema` "
    "arcaeon-continuity:snapshot:v1) and a harn transcript or run record"
)


@pytest.mark.parametrize(
    "name, kind",
    [
        ("session.jsonl", "ledger"),
        ("tampered.jsonl", "ledger"),
        ("hostile.jsonl", "ledger"),
        ("truncated.pin", "unreadable"),  # a pin: plain text, no JSON line (§1 row 10)
        ("witness/store.jsonl", "ledger"),
        ("seals/seals-ledger.jsonl", "ledger"),
        ("seals/seal-day1.json", "snapshot"),
        ("seals/seal-day2.json", "snapshot"),
        ("seals/seal-day1-tampered.json", "snapshot"),
        ("harn/session-transcript.json", "harn"),
        ("harn/run-record.json", "harn"),
        ("seals/restated-faithful.json", "restatement"),
        ("seals/restated-divergent.json", "restatement"),
        ("seals/tiers.json", "tiers"),
        ("seals/manifest-day2.json", "manifest"),
        ("held/liar-pre.json", "other"),
    ],
)
def test_every_sample_has_one_kind(name, kind):
    got = kinds.classify(SAMPLES / name)
    assert got.kind == kind and got.path == os.fspath(SAMPLES / name)
    assert got.opens == (kind in ("ledger", "snapshot", "harn"))
    assert (got.reason is None) == got.opens


def test_a_harn_file_keeps_its_document():
    got = kinds.classify(SAMPLES / "harn" / "run-record.json")
    assert got.document.kind == "run" and len(got.document.transcripts) == 3


def test_what_is_not_a_ledger_seal_or_harn_file_says_what_was_looked_for():
    got = kinds.classify(SEALS / "tiers.json")
    assert got.reason == (
        "not a ledger / seal / harn file: it reads as a tiers file "
        "{tier: [field, ...]} (" + LOOKED_FOR + ")"
    )
    got = kinds.classify(SAMPLES / "held" / "liar-pre.json")
    assert got.reason.startswith("not a ledger / seal / harn file: it reads as one JSON array (")


def test_unreadable_paths(tmp_path):
    missing = kinds.classify(tmp_path / "missing.json")
    assert (missing.kind, missing.reason) == (
        "unreadable",
        f"cannot read {tmp_path / 'missing.json'}: No such file or directory",
    )
    folder = kinds.classify(tmp_path)
    assert (folder.kind, folder.reason) == ("folder", f"cannot read {tmp_path}: Is a directory")
    assert not folder.opens
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    got = kinds.classify(fifo)  # refused from its stat, never opened (it would block)
    assert (got.kind, got.reason) == ("unreadable", f"cannot read {fifo}: not a regular file")


def test_ledger_shapes(tmp_path):
    one = tmp_path / "one.jsonl"
    ledger.append(one, {"kind": "note", "schema": "arcaeon-continuity:snapshot:v1", "ts": "x"})
    assert kinds.classify(one).kind == "ledger"  # a row naming the schema is still a row
    as_json = tmp_path / "one.json"
    as_json.write_bytes(one.read_bytes())
    assert kinds.classify(as_json).kind == "ledger"  # a one-row ledger saved as .json
    rows = tmp_path / "rows.json"
    rows.write_text('{"a": 1}\n{"b": 2}\n')
    assert kinds.classify(rows).kind == "ledger"  # a JSONL ledger saved as .json
    bad = tmp_path / "broken.json"
    bad.write_text('{"_type": "transcript", ')
    assert kinds.classify(bad).kind == "ledger"  # not JSON: its chain verdict says so
    snap_text = (SEALS / "seal-day1.json").read_text()
    renamed = tmp_path / "seal.jsonl"
    renamed.write_text(snap_text)
    assert kinds.classify(renamed).kind == "snapshot"  # a snapshot whatever its name
    plain = tmp_path / "notes.txt"
    plain.write_text('{"a": "b"}')
    assert kinds.classify(plain).kind == "ledger"  # only a .json is asked to be more


def test_empty_and_scalar_json(tmp_path):
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    assert kinds.classify(empty).kind == "other"
    assert "one JSON object" in kinds.classify(empty).reason
    number = tmp_path / "n.json"
    number.write_text("42")
    assert "one JSON number" in kinds.classify(number).reason


@pytest.mark.parametrize("when", ["at the stat", "after the stat"])
def test_a_fifo_is_refused_without_blocking_even_when_swapped_in_after_the_stat(
    tmp_path, monkeypatch, when
):
    path = tmp_path / "rows.jsonl"
    path.write_bytes(b'{"chain": null}\n')
    fifo_in_place(monkeypatch, path, when)
    came_back, got = returns(lambda: kinds.classify(path), path)
    assert came_back, "classify blocked on a FIFO"
    assert (got.kind, got.reason) == ("unreadable", f"cannot read {path}: not a regular file")


def test_a_folder_swapped_in_after_the_stat_is_still_a_folder(tmp_path, monkeypatch):
    path, folder = tmp_path / "rows.jsonl", tmp_path / "dir"
    path.write_bytes(b'{"chain": null}\n')
    folder.mkdir()
    swapped_after_stat(monkeypatch, path, folder)
    got = kinds.classify(path)
    assert (got.kind, got.reason) == ("folder", f"cannot read {path}: Is a directory")
