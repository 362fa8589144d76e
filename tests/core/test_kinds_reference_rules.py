"""Rules where `check` once answered otherwise than KINDS.md (issue 46) and the bytes of
no kind (§1 row 10), each on generated inputs of its shape, compared field by field with
the reference (arcaeon 0.10.0, a test-only oracle) through KINDS.md's mapping."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path

import pytest
from arcaeon.prove.compact import verify_receipt as ref_compact_receipt
from arcaeon.record.call_record import verify_call_record as ref_call_record
from arcaeon.record.receipt.core import verify_receipt as ref_portable_receipt
from sealscope.core import checks, kinds
from sealscope.core.checks.result import CheckContext

ROOT = Path(__file__).resolve().parents[2]
KINDS_SAMPLES = ROOT / "sample_ledgers" / "kinds"


def _ref_word(ok: bool | None) -> str:
    return {True: "VERIFIED", False: "BROKEN", None: "COULD NOT LOOK"}[ok]


# ---------------------------------------------------------------- rule 1 (§4.2)


def _portable(tmp: Path) -> tuple[Path, Path]:
    receipt = tmp / "portable-receipt.json"
    shutil.copy(KINDS_SAMPLES / "portable-receipt.json", receipt)
    name = json.loads(receipt.read_text())["ledger"]["path"]
    return receipt, KINDS_SAMPLES / "portable.ledger.jsonl" if name else Path()


@pytest.mark.parametrize("where", ["beside", "artefacts", "nowhere"])
def test_a_folder_named_as_the_ledger_is_no_ledger(tmp_path: Path, where: str) -> None:
    receipt, real_ledger = _portable(tmp_path)
    name = json.loads(receipt.read_text())["ledger"]["path"]
    (tmp_path / name).mkdir()  # a folder where the ledger would be
    (tmp_path / name / "x.jsonl").write_text("{}\n")
    art = None
    ledger = None
    if where == "artefacts":
        art = tmp_path / "art"
        art.mkdir()
        shutil.copy(real_ledger, art / name)
        ledger = art / name
    elif where == "beside":
        sub = tmp_path / "sub"
        sub.mkdir()
        shutil.copy(receipt, sub / receipt.name)
        shutil.copy(real_ledger, sub / name)
        receipt, ledger = sub / receipt.name, sub / name
    got = checks.run([str(receipt)], CheckContext(artefacts=str(art) if art else None))[0]
    want = ref_portable_receipt(json.loads(receipt.read_text()), ledger_path=ledger)
    assert got.detail["ledger"]["status"] == want["ledger"]["status"]
    assert got.detail["body_digest_ok"] == want["body_digest_ok"]
    assert got.ok == want["ok"] and got.verdict == _ref_word(want["ok"])
    if where == "nowhere":
        assert got.detail["ledger"]["status"] == "not_checked"


# ---------------------------------------------------------------- rule 2 (§1 "one line")


def _receipt_row() -> dict:
    return json.loads((KINDS_SAMPLES / "receipt.json").read_text())


@pytest.mark.parametrize("seed", range(6))
def test_one_line_is_byte_exact(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    row = _receipt_row()
    row["chain"] = "c" * 32
    tail = rng.choice([b"\n   \n", b"\n \t\n", b"\n\n  ", b"   \n  \n"])
    lead = rng.choice([b"", b"\n"])
    body = lead + json.dumps(row).encode() + tail
    # a receipt row followed by a line of spaces is a multi-line document: a receipt
    # (row 6a), checked as `arcaeon compact` checks the object
    path = tmp_path / f"r{seed}.out"
    path.write_bytes(body)
    got = checks.run([str(path)])[0]
    assert got.kind == "receipt"
    want = ref_compact_receipt(row)
    assert got.ok == want["ok"] and got.detail["verified_scope"] == want["verified_scope"]
    # an object of no kind in that shape is none, `unreadable` (row 6g), not a ledger
    other = tmp_path / f"o{seed}.log"
    other.write_bytes(lead + json.dumps({"a": seed, "chain": "c" * 32}).encode() + tail)
    got = checks.run([str(other)])[0]
    assert (got.kind, got.verdict, got.detail["reason_word"]) == (
        None,
        "COULD NOT LOOK",
        "unreadable",
    )
    # trailing CR/LF bytes alone keep it one line: a one-row ledger
    one = tmp_path / f"one{seed}.log"
    one.write_bytes(json.dumps({"a": seed, "chain": "c" * 32}).encode() + b"\r\n\n\r\n")
    assert kinds.identify(one).kind == "ledger"


# ---------------------------------------------------------------- rule 3 (§1 rows 8-9)


def test_a_first_line_that_is_not_utf8_is_skipped(tmp_path: Path) -> None:
    src = (KINDS_SAMPLES / "continuity.calls.jsonl").read_bytes()
    for i, bad in enumerate(
        [b'{"prev_hash": null, "x": "\xff"}\n', b"\xfe\xff garbage\n", b'{"a": "\xc3"}\n']
    ):
        path = tmp_path / f"calls{i}.jsonl"
        path.write_bytes(bad + src)
        # the first UTF-8 object line decides: a call record (not an AAT export, not a
        # plain ledger), whose reference verifier then raises on the undecodable bytes
        got = checks.run([str(path)])[0]
        assert got.kind == "call-record"
        try:
            ref_call_record(path)
        except UnicodeDecodeError:
            raised = "UnicodeDecodeError"
        assert (got.verdict, got.ok, got.detail["error"]) == ("COULD NOT LOOK", None, raised)


# ---------------------------------------------------------------- rule 5 (§0.1 rule 2)


def _raises(row: dict) -> str | None:
    try:
        ref_compact_receipt(row)
    except Exception as e:  # noqa: BLE001 - the class name is what is compared
        return type(e).__name__
    return None


@pytest.mark.parametrize(
    "mutate",
    [
        lambda r: r.__setitem__("compactor", "\ud800x"),
        lambda r: r.__setitem__("method", {"\udc00": 1}),
        lambda r: r["pre"].__setitem__("digest", "sha256:json-c14n:v1:\udfff"),
        lambda r: r.__setitem__("method", float("nan")),
        lambda r: r.__setitem__("compactor", ["\ud800", float("inf")]),
    ],
    ids=["surrogate", "surrogate-key", "surrogate-digest", "nan", "nan-and-surrogate"],
)
def test_the_exception_class_is_the_references(tmp_path: Path, mutate) -> None:
    row = _receipt_row()
    mutate(row)
    want = _raises(row)
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(row, ensure_ascii=True))
    got = checks.run([str(path)])[0]
    if want is None:
        assert got.detail.get("error") is None
        return
    assert (got.kind, got.verdict, got.ok) == ("receipt", "COULD NOT LOOK", None)
    assert got.detail["error"] == want
    # the same row inside a ledger: its row check names the same class
    led = tmp_path / "ledger.jsonl"
    as_row = {**row, "kind": "compaction_receipt", "ts": "t", "chain": "0" * 32}
    led.write_text(json.dumps(as_row, ensure_ascii=True) + "\n" + '{"n": 1}\n')
    entries = checks.run([str(led)])[0].rows_checked
    assert [e.get("error") for e in entries] == [want]


# ---------------------------------------------------------------- §1 row 10


@pytest.mark.parametrize(
    "name, data, kind",
    [
        ("notes.txt", b"The agent said it was fine.\nIt was not.\n", None),
        ("doc.cbor", bytes.fromhex("a3616101616282020361637863"), None),
        ("pack.zip", b"PK? not really a zip\n" + bytes(range(200)), None),
        ("report.pdf", b"%PDF-1.7\n%\xe2\xe3\xcf\xd3\n1 0 obj\n", None),
        ("log.JSONL", b"The agent said it was fine.\n", "ledger"),
        ("hex.log", b'text\n"a string line"\n', "ledger"),
        ("zero.bin", b"", "ledger"),
    ],
)
def test_bytes_of_no_kind_could_not_look(tmp_path: Path, name: str, data: bytes, kind) -> None:
    path = tmp_path / name
    path.write_bytes(data)
    got = checks.run([str(path)])[0]
    assert got.kind == kind
    if kind is None:
        assert (got.verdict, got.exit_code, got.detail["reason_word"]) == (
            "COULD NOT LOOK",
            3,
            "unreadable",
        )
        # what opens in the viewer and export agrees: not a ledger to be BROKEN
        assert kinds.classify(path).kind == kinds.UNREADABLE
