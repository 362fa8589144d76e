"""Receipt-row scanning and the drop-manifest index."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sealscope.core import digest
from sealscope.core.lookup import DropIndex, Entry, Location, _key, _unkey, iter_receipt_rows
from sealscope.core.receipt import CompactionReceipt, build_row

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


def _d(x) -> str:
    return digest.item_digest(x).digest


def _line(row: dict) -> str:
    return json.dumps(row, ensure_ascii=False)


@pytest.fixture
def led(tmp_path):
    """line 1 a plain row, 2 receipt (drops a, b), 3 blank, 4 receipt (drops b, b, c),
    5 a non-receipt kind holding a manifest, 6 garbage, 7 receipt with odd items."""
    r1 = build_row(["a", "b", "k"], ["k"], "c", "m")
    r2 = build_row(["b", "b", "c"], [], "c", "m")
    odd = dict(build_row(["z"], [], "c", "m"))
    odd["dropped"] = {"count": 3, "bytes": 0, "items": [7, _d("a"), None]}
    other = dict(r1, kind="note")
    p = tmp_path / "l.jsonl"
    p.write_text(
        "\n".join(
            [_line({"op": "x"}), _line(r1), "", _line(r2), _line(other), "{not json", _line(odd)]
        )
        + "\n",
        encoding="utf-8",
    )
    return p


def test_iter_receipt_rows_numbers_lines_like_the_verifier(led):
    assert [n for n, _r in iter_receipt_rows(led)] == [2, 4, 7]


def test_where(led):
    idx = DropIndex.build(led)
    assert idx.rows == 3 and idx.entries == 6 and len(idx) == 3
    s = str(led)
    assert idx.where(_d("a")) == [Location(s, 2, 0), Location(s, 7, 1)]
    assert idx.where(_d("b")) == [Location(s, 2, 1), Location(s, 4, 0), Location(s, 4, 1)]
    assert idx.where(_d("c")) == [Location(s, 4, 2)]
    assert idx.where(_d("k")) == [] and idx.where(None) == []  # kept items are not drops
    assert _d("a") in idx and _d("k") not in idx


def test_unexplained(led):
    idx = DropIndex.build(led)
    s = str(led)
    assert idx.unexplained([_d("b")]) == [
        Entry(s, 2, 0, _d("a")),
        Entry(s, 4, 2, _d("c")),
        Entry(s, 7, 1, _d("a")),
    ]
    assert idx.unexplained([_d("a"), _d("b"), _d("c")]) == []
    assert len(idx.unexplained([])) == 6


def test_escaped_kind_and_cr_only_lines(tmp_path):
    row = build_row(["a"], [], "c", "m")
    text = _line(row).replace('"compaction_receipt"', '"\\u0063ompaction_receipt"')
    assert "compaction_receipt" not in text
    p = tmp_path / "cr.jsonl"
    p.write_bytes(b'{"op": 1}\r' + text.encode() + b"\r\n\r" + _line(row).encode() + b"\r")
    assert [n for n, _r in iter_receipt_rows(p)] == [2, 4]
    assert DropIndex.build(p).where(_d("a")) == [Location(str(p), 2, 0), Location(str(p), 4, 0)]


def test_several_ledgers_and_progress(tmp_path):
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    r = CompactionReceipt.open(["x", {"y": 1}])
    r.record_kept([])
    r.seal(a, compactor="c", method="m")
    b.write_text("\n" + _line(build_row([{"y": 1}], [], "c", "m")) + "\n")
    seen = []
    idx = DropIndex.build([a, b], on_progress=lambda d, t: seen.append((d, t)))
    assert idx.where(_d({"y": 1})) == [Location(str(a), 1, 1), Location(str(b), 2, 0)]
    total = a.stat().st_size + b.stat().st_size
    assert seen[-1] == (total, total) and all(t == total for _d_, t in seen)


def test_missing_ledger_raises_oserror(tmp_path):
    with pytest.raises(OSError):
        DropIndex.build(tmp_path / "nope.jsonl")
    with pytest.raises(OSError):
        DropIndex.build(tmp_path)


def test_empty_ledger(tmp_path):
    p = tmp_path / "e.jsonl"
    p.write_bytes(b"")
    idx = DropIndex.build(p)
    assert (idx.rows, idx.entries, idx.where(_d("a"))) == (0, 0, [])


def test_keys_are_exact():
    canon = _d("a")
    assert isinstance(_key(canon), bytes) and len(_key(canon)) == 33
    assert _unkey(_key(canon)) == canon
    for odd in (
        canon.upper(),
        canon[:-1],
        canon + "0",
        "a:b:c:0",
        "sha256:json-c14n:v1:" + "g" * 64,
    ):
        assert _key(odd) == odd
    assert _key(canon.replace("raw-bytes", "json-c14n")) != _key(canon)


def test_huge_positions_still_round_trip(tmp_path):
    from sealscope.core.lookup import _pack, _unpack

    for li, line, pos in ((0, 1, 0), (3, 2**40 - 1, 2**32 - 1), (1, 2**41, 5), (2, 9, 2**33)):
        assert _unpack(_pack(li, line, pos)) == (li, line, pos)


def test_containing_finds_a_digest_fragment_as_shown_cut(tmp_path):
    """A digest seen cut (a receipt panel, an error: `sha256:…:09a32d6caf77…`) finds the
    manifest entries holding it, ignoring case and the trailing `…`; too short a
    fragment finds nothing."""
    full = "sha256:json-c14n:v1:09a32d6caf7737200a34ee38c65c82446831be896aa5d5aa6b858729ee13beb1"
    session, tampered = str(SAMPLES / "session.jsonl"), str(SAMPLES / "tampered.jsonl")
    idx = DropIndex.build([session, tampered])
    assert idx.containing(" SHA256:JSON-C14N:V1:09A32D6CAF7737200A… ") == [
        Entry(session, 5, 0, full),
        Entry(tampered, 5, 0, full),
    ]
    assert idx.containing("55465773f44533ed") == [
        Entry(
            session,
            5,
            1,
            "sha256:raw-bytes:v1:55465773f44533ed3181cc97d5957dd3a49a5438e4dc2c6533f38df7d6ce3e5c",
        ),
        Entry(
            tampered,
            5,
            1,
            "sha256:raw-bytes:v1:55465773f44533ed3181cc97d5957dd3a49a5438e4dc2c6533f38df7d6ce3e5c",
        ),
    ]
    assert idx.containing("09a32d6") == []  # 7 characters: under FRAGMENT_MIN
    assert idx.containing("not-a-digest-text") == []
