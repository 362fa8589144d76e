"""Held content files: .json arrays, .jsonl lines, raw files, folders, stdin, errors."""

from __future__ import annotations

import io
import os

import pytest
from sealscope.core import digest
from sealscope.core.held import (
    HeldContentError,
    HeldItem,
    containing,
    item_text,
    kind_of,
    load_held,
    load_many,
    values_of,
)

E_ACUTE = "sha256:raw-bytes:v1:4a99557e4033c3539de2eb65472017cad5f9557f7a0625a09f1c3f6e2ba69c4c"
TRUE = "sha256:json-c14n:v1:b5bea41b6c623f7c09f1bf24dcae58ebab3c0cdd90ad966bc43a45b44867e12b"
ONE_F = "sha256:json-c14n:v1:d0ff5974b6aa52cf562bea5921840c032a860a91a3512f7fe8f768f6bbe005f6"
OBJ = "sha256:json-c14n:v1:aa58fba8483623bed37c1b02edfccbdd9a53123837c20bfa4cb4049993a2872e"


def test_json_array_items_follow_the_item_rule(tmp_path):
    p = tmp_path / "c.json"
    p.write_text('[\n "\\u00e9", true, 1.0, {"b": 1, "a": "é"}, ""\n]', encoding="utf-8")
    items = load_held(p)
    assert [(i.digest, i.size) for i in items] == [
        (E_ACUTE, 2),
        (TRUE, 4),
        (ONE_F, 3),
        (OBJ, 16),
        ("sha256:raw-bytes:v1:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", 0),
    ]
    assert [i.index for i in items] == [0, 1, 2, 3, 4]
    assert items[0] == HeldItem(str(p), 0, "é", E_ACUTE, 2, None)
    assert values_of(items)[3] == {"b": 1, "a": "é"}


def test_json_duplicate_keys_last_wins_and_nan_refused(tmp_path):
    p = tmp_path / "d.json"
    p.write_text('[{"a": 1, "a": 2}]')
    assert load_held(p)[0].value == {"a": 2}
    p.write_text('[1, {"x": NaN}]')
    with pytest.raises(HeldContentError, match=r"d\.json: item 1 cannot be digested"):
        load_held(p)


@pytest.mark.parametrize(
    "text, got",
    [
        ("{}", "an object"),
        ('"s"', "a string"),
        ("3", "a number"),
        ("null", "null"),
        ("true", "a boolean"),
    ],
)
def test_json_must_be_an_array(tmp_path, text, got):
    p = tmp_path / "x.json"
    p.write_text(text)
    with pytest.raises(HeldContentError) as e:
        load_held(p)
    assert str(e.value) == f"{p}: a .json held file must hold one JSON array, got {got}"


def test_json_errors(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("[1,")
    with pytest.raises(HeldContentError, match=r"not JSON"):
        load_held(p)
    p.write_bytes(b'["\xff"]')
    with pytest.raises(HeldContentError, match=r"not UTF-8 text \(byte 2\)"):
        load_held(p)
    p.write_bytes(b"\xef\xbb\xbf[1]")  # a BOM is a parse error, as in CPython
    with pytest.raises(HeldContentError, match=r"not JSON"):
        load_held(p)
    with pytest.raises(HeldContentError) as e:
        load_held(tmp_path / "missing.json")
    assert str(e.value) == f"cannot read {tmp_path / 'missing.json'}: No such file or directory"
    assert isinstance(e.value, ValueError)


def test_jsonl_lines_blank_lines_and_crlf(tmp_path):
    p = tmp_path / "c.jsonl"
    p.write_bytes(b'"\\u00e9"\r\n\n   \ntrue\n1.0\n"line\xe2\x80\xa8sep"\n')
    items = load_held(p)
    assert [i.digest for i in items[:3]] == [E_ACUTE, TRUE, ONE_F]
    assert [i.line for i in items] == [1, 4, 5, 6]
    assert [i.index for i in items] == [0, 1, 2, 3]
    assert items[3].value == "line\u2028sep"  # U+2028 is content, not a line end
    p.write_text('1\n{"a":\n')
    with pytest.raises(HeldContentError, match=r"c\.jsonl: line 2 is not JSON"):
        load_held(p)


def test_jsonl_matches_json_for_the_corpus(corpus):
    a = [i.digest for i in load_held(corpus / "held" / "a-pre.json")]
    b = [i.digest for i in load_held(corpus / "held" / "a-pre.jsonl")]
    assert a == b and len(a) == 9


def test_other_files_are_one_bytes_item(tmp_path):
    p = tmp_path / "blob.txt"
    p.write_bytes(b"\x00\x01binary")
    (item,) = load_held(p)
    assert item.value == b"\x00\x01binary" and item.size == 8
    assert item.digest == (
        "sha256:raw-bytes:v1:f8c1ccc7df7243da4740c5b7875f88b70e3f935d99c7b37a5f7239d152d994e6"
    )
    q = tmp_path / "X.JSON"  # extensions are matched exactly
    q.write_text("[1]")
    assert load_held(q)[0].value == b"[1]"
    assert kind_of(str(q)) == "bytes" and kind_of("-") == "stdin"


def test_folder_regular_files_sorted_by_name(tmp_path):
    d = tmp_path / "f"
    d.mkdir()
    (d / "b.json").write_text("[1, 2]")  # inside a folder every file is bytes
    (d / "a.bin").write_bytes(b"A")
    (d / "B.txt").write_bytes(b"")
    (d / "sub").mkdir()
    (d / "sub" / "zzz").write_bytes(b"ignored")
    os.symlink(d / "a.bin", d / "c-link")
    items = load_held(d)
    assert [os.path.basename(i.source) for i in items] == ["B.txt", "a.bin", "b.json", "c-link"]
    assert [i.value for i in items] == [b"", b"A", b"[1, 2]", b"A"]
    assert kind_of(str(d)) == "folder"


def test_stdin(tmp_path):
    (item,) = load_held("-", io.BytesIO(b"hello"))
    assert (item.source, item.value, item.size) == ("-", b"hello", 5)
    with pytest.raises(HeldContentError, match="no standard input"):
        load_held("-", None)
    closed = io.BytesIO(b"")
    closed.close()
    with pytest.raises(HeldContentError, match="cannot read standard input"):
        load_held("-", closed)


def test_load_many_concatenates(tmp_path):
    a = tmp_path / "a.json"
    a.write_text('["x"]')
    b = tmp_path / "b.bin"
    b.write_bytes(b"x")
    items = load_many([a, b])
    assert [i.digest for i in items] == [digest.item_digest("x").digest] * 2


def test_containing_searches_the_text_of_every_kind_of_item(tmp_path):
    p = tmp_path / "c.json"
    p.write_text(
        '["Please DELETE the log", {"role": "user", "text": "délai"}, 7]', encoding="utf-8"
    )
    raw = tmp_path / "raw.bin"
    raw.write_bytes(b"\xffbinary delete\xfe")
    items = load_held(p) + load_held(raw)
    assert item_text(items[1].value) == '{"role": "user", "text": "délai"}'
    assert item_text(items[3].value) == "\ufffdbinary delete\ufffd"
    assert [i.index for i in containing(items, "delete")] == [0, 0]
    assert [i.source for i in containing(items, "delete")] == [str(p), str(raw)]
    assert containing(items, "DÉLAI") == [items[1]]
    assert containing(items, '"role": "user"') == [items[1]]
    assert containing(items, "7") == [items[2]]
    assert containing(items, "") == [] and containing(items, "absent") == []
