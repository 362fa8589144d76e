"""Held artefacts under `check --artefacts DIR` (KINDS.md §6.2): a binding's
`subject.name` names the folder's file by its last component as `PurePath.name` reads
it (a trailing `/` or `/.` included), and each held file is read once per run however
many binding rows name or search it. Bindings are the reference's own
(`arcaeon.record.ledger.artefact.bind_artefact`), checked offline by it too."""

from __future__ import annotations

from pathlib import Path, PurePath

import arcaeon.record.ledger as rledger
import arcaeon.record.ledger.artefact as art
import pytest
from sealscope.core import checks
from sealscope.core.checks import artefact as s_artefact
from sealscope.core.checks.result import CheckContext

NAMES = ["report.pdf/", "sub/report.pdf/", "./report.pdf/.", "a/b/report.pdf//", "report.pdf"]


def _check(ledger: Path, held: Path) -> dict:
    [got] = checks.run([str(ledger)], CheckContext(artefacts=str(held)))
    return got.to_dict()


@pytest.mark.parametrize("name", NAMES)
def test_a_name_ending_in_a_slash_names_its_last_component(tmp_path: Path, name: str) -> None:
    held = tmp_path / "held"
    held.mkdir()
    report = held / "report.pdf"
    report.write_bytes(b"%PDF the report\n")
    binding = art.bind_artefact(report)
    binding["subject"]["name"] = name
    assert PurePath(name).name == "report.pdf"  # the spec's basename of the name
    assert art.verify_artefact(binding)["digest_ok"] is True  # the reference's offline leg
    ledger = tmp_path / "bound.jsonl"
    rledger.Ledger(ledger).append({"evt": "artefact", "artefact": binding})
    honest = _check(ledger, held)
    assert honest["verdict"] == "VERIFIED", honest
    assert honest["detail"]["rows_checked"][0]["held"] == "match"
    report.write_bytes(b"%PDF the report, tampered\n")
    tampered = _check(ledger, held)
    assert tampered["verdict"] == "BROKEN", tampered
    assert tampered["detail"]["rows_checked"][0]["held"] == "mismatch"


def test_a_name_with_no_last_component_is_no_name(tmp_path: Path) -> None:
    for name in ("/", ".", "./", ""):
        assert s_artefact.held_name({"name": name}) is None
    assert s_artefact.held_name({"name": "https://example.org/report.pdf/"}) is None


def test_each_held_file_is_hashed_once_per_run(tmp_path: Path, monkeypatch) -> None:
    held = tmp_path / "held"
    held.mkdir()
    for i in range(5):
        (held / f"other{i}.bin").write_bytes(b"other %d\n" % i)
    report = held / "report.pdf"
    report.write_bytes(b"%PDF the report\n")
    named = art.bind_artefact(report)
    unnamed = art.bind_artefact(b"held nowhere")  # searches every file of the folder
    ledger = tmp_path / "bound.jsonl"
    led = rledger.Ledger(ledger)
    for _ in range(40):
        led.append({"evt": "artefact", "artefact": named})
        led.append({"evt": "artefact", "artefact": unnamed})
    reads: list[int] = []
    real = s_artefact.recompute

    def counted(data: bytes, recipe: str) -> str | None:
        reads.append(len(data))
        return real(data, recipe)

    monkeypatch.setattr(s_artefact, "recompute", counted)
    got = _check(ledger, held)
    assert got["verdict"] == "VERIFIED"
    assert [e["held"] for e in got["detail"]["rows_checked"]] == ["match", "not_held"] * 40
    assert len(reads) == 6  # six files, each read and hashed once
    report.write_bytes(b"%PDF the report, edited later\n")  # a new size: read again
    reads.clear()
    assert _check(ledger, held)["verdict"] == "BROKEN"
    assert len(reads) == 6
