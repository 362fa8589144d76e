"""The evidence classifier (`core.kinds.identify`, KINDS.md §1): every row of the table,
first match wins, on real files; and `classify` (the frontends' question) naming the
kind's own check for a file of another kind."""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import pytest
from sealscope.core import kinds, receipt

RECEIPT = receipt.build_row(["a", "b"], ["a"], "agent", "fifo", opened_at="2026-01-01T00:00:00Z")


def _zip(path: Path, names: list[str]) -> Path:
    with zipfile.ZipFile(path, "w") as z:
        for n in names:
            z.writestr(n, "x")
    return path


def _folder(tmp: Path, name: str, files: dict[str, str]) -> Path:
    d = tmp / name
    d.mkdir()
    for n, text in files.items():
        (d / n).write_text(text, encoding="utf-8")
    return d


CASES: dict[str, tuple[object, str | None]] = {
    # name: (content: bytes | dict of folder files | "zip:<names>", expected kind)
    "pack-manifest": ({"manifest.json": '{"pack_schema": 1}'}, "evidence-pack"),
    "pack-window-only": ({"window.jsonl": ""}, "evidence-pack"),
    "pack-sha-only": ({"manifest.sha256": "x", "records.jsonl": ""}, "evidence-pack"),
    "bundle-records": ({"records.jsonl": ""}, "audit-bundle"),
    "bundle-tool": ({"manifest.json": '{"tool": "arcaeon-audit/0.10.0"}'}, "audit-bundle"),
    "bundle-integrity": ({"integrity.json": '{"bundle_schema": 2}'}, "audit-bundle"),
    "folder-other": ({"notes.txt": "hi"}, None),
    "pack.zip": ("zip:manifest.json", "evidence-pack"),
    "empty.zip": (b"PK\x05\x06" + b"\x00" * 18, "evidence-pack"),
    "cut.zip": (b"PK\x03\x04garbage", "evidence-pack"),
    "archive.zip": ("zip:MANIFEST.json,cohort/a.json", None),
    "receipt.json": (json.dumps(RECEIPT, indent=2).encode(), "receipt"),
    "receipt-one-line.txt": (json.dumps(RECEIPT).encode(), "receipt"),
    "receipt-row.json": (json.dumps({**RECEIPT, "chain": "ab"}).encode() + b"\r\n", "ledger"),
    "receipt-row-pretty.json": (
        json.dumps({**RECEIPT, "chain": "ab"}, indent=1).encode(),
        "receipt",
    ),
    "receipt-v3.json": (
        json.dumps({**RECEIPT, "schema": "arcaeon-compact:receipt:v3"}).encode(),
        "receipt",
    ),
    "distill.json": (b'{"schema": "arcaeon-distill:receipt:v9"}', "distill-receipt"),
    "distill.out": (
        (
            b'{\n "content": 1, "strategy": "json",\n "receipt": '
            b'{"schema": "arcaeon-distill:receipt:v1"}\n}'
        ),
        "distill-receipt",
    ),
    "portable.json": (b'{"receipt_version": "arcaeon-receipt/0.2"}', "portable-receipt"),
    "verdict.json": (b'{"schema": "arcaeon-continuity:verdict:v2"}', "continuity-verdict"),
    "snapshot.json": (b'{"schema": "arcaeon-continuity:snapshot:v1"}', "snapshot"),
    "harn.json": (b'{"_type": "transcript", "messages": []}', "harn"),
    "unknown.json": (b'{"a": 1}', None),
    "unknown-pretty.out": (b'{\n "a": 1\n}\n', None),
    "unknown-one-line.out": (b'{"a": 1}\n', "ledger"),
    "array.json": (b"[1, 2]", None),
    "not-json.json": (b"{nope", None),
    "non-utf8.json": (b'{"schema": "arcaeon-compact:receipt:v2", "x": "\xff"}', None),
    "aat.jsonl": (
        b'junk\n[1]\n{"prev_hash": null, "timestamp": "t", "chain": "c"}\n',
        "aat-export",
    ),
    "aat-one.jsonl": (b'{"prev_hash": null, "chain": "c"}\n', "aat-export"),
    "row-with-ts.jsonl": (b'{"prev_hash": null, "ts": "t"}\n', "ledger"),
    "calls.jsonl": (
        b'{"op": "tool_call", "args_digest": "x", "chain": "c"}\n\n{"n": 1}\n',
        "call-record",
    ),
    # "one line" is byte-exact (issue 46 rule 2): a leading blank line or a trailing line
    # of spaces makes a one-object file a multi-line document of no kind, not a row
    "row-after-blank.jsonl": (b'\n{"op": "tool_call", "args_digest": "x", "chain": "c"}\n', None),
    "row-then-spaces.jsonl": (b'{"a": 1, "chain": "c"}\n   \n', None),
    "row-then-crlf.jsonl": (b'{"a": 1, "chain": "c"}\r\n\r\n', "ledger"),
    # a first line that is not UTF-8 is skipped, not decoded with replacements (rule 3)
    "non-utf8-first.jsonl": (
        b'{"prev_hash": null, "x": "\xff"}\n{"op": "tool_call", "args_digest": "x"}\n',
        "call-record",
    ),
    "call-no-digest.jsonl": (b'{"op": "tool_call", "chain": "c"}\n', "ledger"),
    "empty.jsonl": (b"", "ledger"),
    # bytes of no kind (§1 row 10): no line parses as a JSON value, name not .jsonl
    "garbage.bin": (bytes(range(256)), None),
    "garbage.jsonl": (bytes(range(256)), "ledger"),
    "GARBAGE.JSONL": (b"plain text\n", "ledger"),
    "notes.txt": (b"plain text\nmore text\n", None),
    "blank.log": (b"\n\n", None),
    "cbor.cbor": (bytes.fromhex("a26161016162820203"), None),
    "not-a-zip.zip": (b"this is not a zip\n", None),
    "value-line.txt": (b"plain text\n42\n", "ledger"),
    "empty.txt": (b"", "ledger"),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_every_row_of_the_table(tmp_path: Path, name: str) -> None:
    content, want = CASES[name]
    if isinstance(content, dict):
        path = _folder(tmp_path, name, content)
    elif isinstance(content, str) and content.startswith("zip:"):
        path = _zip(tmp_path / name, content[4:].split(","))
    else:
        assert isinstance(content, bytes)
        path = tmp_path / name
        path.write_bytes(content)
    got = kinds.identify(path)
    assert got.kind == want, got
    if want is None:
        assert got.reason_word == "unreadable" and got.reason


def test_missing_and_not_regular(tmp_path: Path) -> None:
    assert kinds.identify(tmp_path / "nope").reason_word == "missing"
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    got = kinds.identify(fifo)  # refused from its stat, never opened
    assert (got.kind, got.reason_word) == (None, "unreadable")


def test_classify_keeps_its_answers_and_names_the_own_check(tmp_path: Path) -> None:
    path = tmp_path / "receipt.json"
    path.write_text(json.dumps(RECEIPT, indent=2), encoding="utf-8")
    found = kinds.classify(path)
    assert found.kind == kinds.MANIFEST and not found.opens  # the frontends' answer
    assert found.check_kind == "receipt"
    assert f"`sealscope check {path}`" in (found.reason or "")
    calls = tmp_path / "x.calls.jsonl"
    calls.write_text('{"op": "tool_call", "args_digest": "x", "chain": "c"}\n')
    got = kinds.classify(calls)
    assert (got.kind, got.opens, got.check_kind) == ("ledger", True, "call-record")
