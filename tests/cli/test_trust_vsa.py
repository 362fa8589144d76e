"""Issue 32, H2 and the VSA findings: the subject digest is of the bytes the verifier
read (same pass, same descriptor); a file whose identity changed is no subject and
the result FAILED; a verdict from a checkpoint says so; non-UTF-8 names survive JSON.
The swap is made from `ledger.after_open` (in this process: `main([...])`)."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest
from sealscope.core import ledger as L
from sealscope.main import main


def _pair(tmp_path: Path) -> tuple[Path, Path]:
    h = tmp_path / "H.jsonl"
    for i in range(30):
        L.append(h, {"i": i, "ts": "t", "who": "abcd"})
    t = tmp_path / "T.jsonl"
    lines = h.read_bytes().split(b"\n")
    lines[10] = lines[10].replace(b"abcd", b"wxyz")
    t.write_bytes(b"\n".join(lines))
    return h, t


def _sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def test_a_file_swapped_after_it_was_opened_gives_no_passed_and_no_digest_of_it(
    tmp_path, monkeypatch, capsys
):
    h, t = _pair(tmp_path)
    led, vsa = tmp_path / "L.jsonl", tmp_path / "vsa.json"
    shutil.copy(h, led)
    tampered = _sha(t)

    def swap(path, fd):  # the verifier holds H open; the name now gets T
        if os.path.abspath(path) == str(led):
            os.replace(t, led)

    monkeypatch.setattr(L, "after_open", swap)
    code = main(["verify", str(led), "--vsa", str(vsa)])
    assert code != 0
    if vsa.exists():
        doc = json.loads(vsa.read_text())
        assert doc["predicate"]["verificationResult"] == "FAILED"
        assert all(s["digest"]["sha256"] != tampered for s in doc["subject"])
    assert "replaced while it was verified" in capsys.readouterr().out


def test_the_subject_digest_is_the_walks(tmp_path, monkeypatch):
    h, _t = _pair(tmp_path)
    vsa = tmp_path / "vsa.json"
    monkeypatch.setattr(
        "sealscope.ci_formats.sha256_file",
        lambda p: pytest.fail("the ledger was hashed a second time"),
    )
    assert main(["verify", str(h), "--vsa", str(vsa)]) == 0
    doc = json.loads(vsa.read_text())
    assert doc["subject"] == [{"name": str(h), "digest": {"sha256": _sha(h)}}]
    assert doc["predicate"]["verificationResult"] == "PASSED"


def test_a_verdict_resumed_from_a_checkpoint_says_so(tmp_path):
    h, _t = _pair(tmp_path)
    cp, vsa = tmp_path / "cp.json", tmp_path / "vsa.json"
    assert (
        main(["verify", str(h), "--incremental", "--checkpoint", str(cp), "--vsa", str(vsa)]) == 0
    )
    first = json.loads(vsa.read_text())["predicate"]
    assert "resumed_from_checkpoint" not in first["sealscope"]["policy"]
    assert first["sealscope"]["results"][0]["resumed"]["resumed"] is False
    cp_sha = _sha(cp)
    L.append(h, {"more": 1})
    assert (
        main(["verify", str(h), "--incremental", "--checkpoint", str(cp), "--vsa", str(vsa)]) == 0
    )
    doc = json.loads(vsa.read_text())
    pred = doc["predicate"]
    (rec,) = pred["sealscope"]["policy"]["resumed_from_checkpoint"]
    assert rec == {
        "path": str(h),
        "resumed": True,
        "checkpoint_sha256": cp_sha,
        "rows_resumed": 30,
        "bytes_resumed": rec["bytes_resumed"],
    }
    assert rec["bytes_resumed"] > 0
    assert pred["sealscope"]["results"][0]["resumed"] == {
        k: v for k, v in rec.items() if k != "path"
    }
    # the policy digest covers the resumption, so it differs from a full run's
    assert pred["policy"]["digest"] != first["policy"]["digest"]
    assert doc["subject"][0]["digest"]["sha256"] == _sha(h)


def test_a_non_utf8_name_is_percent_encoded_with_its_hex(tmp_path):
    raw = os.fsencode(tmp_path) + b"/l\xff\xfe.jsonl"
    for i in range(3):
        L.append(os.fsdecode(raw), {"i": i, "ts": "t"})
    vsa = tmp_path / "vsa.json"
    assert main(["verify", os.fsdecode(raw), "--vsa", str(vsa)]) == 0
    text = vsa.read_text(encoding="ascii")
    assert "\\udc" not in text  # no lone surrogates for a JSON reader to choke on
    (subj,) = json.loads(text)["subject"]
    assert subj["name"].endswith("/l%FF%FE.jsonl")
    assert bytes.fromhex(subj["annotations"]["name_hex"]) == raw
    from urllib.parse import unquote_to_bytes

    assert unquote_to_bytes(subj["name"]) == raw


def test_a_fleet_vsa_digests_each_ledger_as_it_was_walked(tmp_path, monkeypatch):
    tree = tmp_path / "ledgers"
    tree.mkdir()
    h, _t = _pair(tmp_path)
    shutil.copy(h, tree / "a.jsonl")
    vsa = tmp_path / "vsa.json"
    monkeypatch.setattr(
        "sealscope.ci_formats.sha256_file",
        lambda p: pytest.fail("a ledger was hashed a second time by name"),
    )
    assert main(["fleet", str(tree), "--vsa", str(vsa)]) == 0
    doc = json.loads(vsa.read_text())
    assert doc["subject"] == [{"name": str(tree / "a.jsonl"), "digest": {"sha256": _sha(h)}}]
    assert doc["predicate"]["verificationResult"] == "PASSED"
