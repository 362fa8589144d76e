"""`check --vsa` and `fleet --vsa` name each subject by the digest its check took of
the bytes it read, never by reading the path again: a file (a ledger, a zip pack, a
pack folder's member) renamed over by a tampered one after its check and before the
summary is written is named by the bytes that were verified, and a file that changed
while its check read it is no subject and the summary FAILED. The swaps are made
deterministically from a wrapper around the step between (no sleeps)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import zipfile
from pathlib import Path

import pytest
from sealscope import ci_formats
from sealscope.core import ledger as L
from sealscope.core.checks import ledger_rows
from sealscope.main import main

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def _ledgers(tmp_path: Path) -> tuple[Path, Path]:
    honest = tmp_path / "H.jsonl"
    for i in range(20):
        L.append(honest, {"i": i, "who": "abcd"})
    tampered = tmp_path / "T.jsonl"
    lines = honest.read_bytes().split(b"\n")
    lines[5] = lines[5].replace(b"abcd", b"wxyz")
    tampered.write_bytes(b"\n".join(lines))
    return honest, tampered


def _swap_before_the_summary(monkeypatch, swaps: list[tuple[Path, Path]]) -> None:
    """Rename each tampered file over its target once the checks are done, just before
    the summary is built (where the old code hashed the path)."""
    real = ci_formats.vsa_statement

    def swapped(*args, **kwargs):
        for tampered, target in swaps:
            os.replace(tampered, target)
        return real(*args, **kwargs)

    monkeypatch.setattr("sealscope.ci_formats.vsa_statement", swapped)


def _vsa(path: Path) -> dict:
    return json.loads(path.read_text())


def test_a_ledger_renamed_over_after_its_check_is_named_by_the_verified_bytes(
    tmp_path, monkeypatch
):
    honest, tampered = _ledgers(tmp_path)
    led, vsa = tmp_path / "L.jsonl", tmp_path / "out" / "vsa.json"
    vsa.parent.mkdir()
    shutil.copy(honest, led)
    bad = _sha(tampered)
    _swap_before_the_summary(monkeypatch, [(tampered, led)])
    assert main(["check", str(led), "--vsa", str(vsa)]) == 0
    doc = _vsa(vsa)
    assert doc["subject"] == [{"name": str(led), "digest": {"sha256": _sha(honest)}}]
    assert all(s["digest"]["sha256"] != bad for s in doc["subject"])


def test_a_ledger_changed_between_its_chain_walk_and_its_row_scan_fails(tmp_path, monkeypatch):
    honest, tampered = _ledgers(tmp_path)
    led, vsa = tmp_path / "L.jsonl", tmp_path / "out" / "vsa.json"
    vsa.parent.mkdir()
    shutil.copy(honest, led)
    shutil.copy(tampered, tmp_path / "T.copy")
    tampered_sha = _sha(tampered)
    real = ledger_rows.rows_checked

    def swapped(path, ctx, **kw):  # the chain was walked on H; the rows now read T
        os.replace(tampered, led)
        return real(path, ctx, **kw)

    monkeypatch.setattr(ledger_rows, "rows_checked", swapped)
    code = main(["check", str(led), "--vsa", str(vsa)])
    assert code != 0
    if vsa.exists():  # no file could be bound: no summary is written, or it fails
        assert _vsa(vsa)["predicate"]["verificationResult"] == "FAILED"
        assert all(s["digest"]["sha256"] != tampered_sha for s in _vsa(vsa)["subject"])


def _zip_pair(tmp_path: Path) -> tuple[Path, Path]:
    honest = tmp_path / "honest.zip"
    shutil.copy(SAMPLES / "packs" / "session-pack.zip", honest)
    tampered = tmp_path / "tampered.zip"
    with zipfile.ZipFile(honest) as src, zipfile.ZipFile(tampered, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            if info.filename == "records.jsonl":
                data = data.replace(b'"', b'"', 1) + b"\n"
            dst.writestr(info, data)
    assert _sha(tampered) != _sha(honest)
    return honest, tampered


@pytest.mark.parametrize("verb", ["check", "fleet"])
def test_a_zip_pack_renamed_over_is_named_by_the_verified_bytes(tmp_path, monkeypatch, verb):
    honest, tampered = _zip_pair(tmp_path)
    audited = tmp_path / "audited"
    audited.mkdir()
    pack, vsa = audited / "pack.zip", tmp_path / "vsa.json"
    shutil.copy(honest, pack)
    _swap_before_the_summary(monkeypatch, [(tampered, pack)])
    target = str(pack) if verb == "check" else str(audited)
    main([verb, target, "--vsa", str(vsa)])
    doc = _vsa(vsa)
    digests = [s["digest"]["sha256"] for s in doc["subject"]]
    assert _sha(honest) in digests and _sha(pack) not in digests


@pytest.mark.parametrize("verb", ["check", "fleet"])
def test_a_pack_folders_member_replaced_is_named_by_the_verified_bytes(tmp_path, monkeypatch, verb):
    src = Path(__file__).resolve().parents[2].parent / "shared" / "conformance" / "corpus"
    src = src / "kinds" / "packs" / "pack"
    if not src.is_dir():
        pytest.skip("the shared corpus is not here")
    audited = tmp_path / "audited"
    audited.mkdir()
    pack = audited / "pack"
    shutil.copytree(src, pack)
    records = pack / "records.jsonl"
    honest = _sha(records)
    forged = tmp_path / "records.forged"
    forged.write_bytes(records.read_bytes() + b'{"forged": true}\n')
    vsa = tmp_path / "vsa.json"
    _swap_before_the_summary(monkeypatch, [(forged, records)])
    main([verb, str(pack) if verb == "check" else str(audited), "--vsa", str(vsa)])
    named = {s["name"]: s["digest"]["sha256"] for s in _vsa(vsa)["subject"]}
    assert named[f"{pack}/records.jsonl"] == honest != _sha(records)


def test_check_names_what_each_kind_read(tmp_path):
    kinds = SAMPLES / "kinds"
    paths = [
        kinds / "receipt.json",
        kinds / "portable-receipt.json",
        kinds / "distill-receipt.json",
        kinds / "continuity.calls.jsonl",
        kinds / "artefacts.jsonl",
        SAMPLES / "packs" / "session-aat.jsonl",
        SAMPLES / "seals" / "seal-day1.json",
        SAMPLES / "harn" / "session-transcript.json",
    ]
    vsa = tmp_path / "vsa.json"
    main(["check", *map(str, paths), "--vsa", str(vsa)])
    named = {s["name"]: s["digest"]["sha256"] for s in _vsa(vsa)["subject"]}
    assert named == {str(p): _sha(p) for p in paths}
    bundle = SAMPLES / "packs" / "session-bundle"
    assert main(["check", str(bundle), "--vsa", str(vsa)]) == 0
    named = {s["name"]: s["digest"]["sha256"] for s in _vsa(vsa)["subject"]}
    assert named == {f"{bundle}/{n}": _sha(bundle / n) for n in ("records.jsonl", "integrity.json")}
    assert _vsa(vsa)["predicate"]["verificationResult"] == "PASSED"


def test_receipts_names_the_ledger_by_the_bytes_it_read(tmp_path, monkeypatch):
    honest, tampered = _ledgers(tmp_path)
    led, vsa = tmp_path / "L.jsonl", tmp_path / "out" / "vsa.json"
    vsa.parent.mkdir()
    shutil.copy(honest, led)
    _swap_before_the_summary(monkeypatch, [(tampered, led)])
    main(["receipts", str(led), "--vsa", str(vsa)])
    assert _vsa(vsa)["subject"] == [{"name": str(led), "digest": {"sha256": _sha(honest)}}]


def test_harn_names_the_transcript_by_the_bytes_it_read(tmp_path, monkeypatch):
    honest = tmp_path / "t.json"
    shutil.copy(SAMPLES / "harn" / "session-transcript.json", honest)
    forged = tmp_path / "forged.json"
    forged.write_bytes(honest.read_bytes() + b"\n")
    want = _sha(honest)
    vsa = tmp_path / "out" / "vsa.json"
    vsa.parent.mkdir()
    _swap_before_the_summary(monkeypatch, [(forged, honest)])
    main(["harn", str(honest), "--vsa", str(vsa)])
    assert [s["digest"]["sha256"] for s in _vsa(vsa)["subject"]] == [want]


def test_export_names_the_ledger_by_the_bytes_it_read(tmp_path, monkeypatch):
    honest, tampered = _ledgers(tmp_path)
    led, vsa = tmp_path / "L.jsonl", tmp_path / "out" / "vsa.json"
    vsa.parent.mkdir()
    shutil.copy(honest, led)
    _swap_before_the_summary(monkeypatch, [(tampered, led)])
    main(["export", str(led), "--vsa", str(vsa), "-o", str(tmp_path / "out" / "r.md")])
    assert _vsa(vsa)["subject"] == [{"name": str(led), "digest": {"sha256": _sha(honest)}}]
