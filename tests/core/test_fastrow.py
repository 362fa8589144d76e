"""The C accelerator computes chain bodies exactly as the exact path does, or declines."""
from __future__ import annotations

import importlib
import importlib.util
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from sealscope.core.jsonio import DuplicateKeyError, dumps_body, loads_strict

# The accelerator is optional (no compiler at install time): skip only when it was not
# built at all. A built module that fails to import is an error, never a skip.
if importlib.util.find_spec("sealscope.core._fastrow") is None:
    pytest.skip("C accelerator not built", allow_module_level=True)
fastrow = importlib.import_module("sealscope.core._fastrow")

scalars = (st.none() | st.booleans() | st.integers(-(10 ** 30), 10 ** 30)
           | st.floats(allow_nan=False, allow_infinity=False)
           | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=10)
           | st.sampled_from(["\x00", "\x1f\x7f", "\u2028\u0085", "\"\\/", "\b\f\n\r\t", "é😀"]))
values = st.recursive(scalars, lambda c: st.lists(c, max_size=4)
                      | st.dictionaries(st.text(max_size=4), c, max_size=4), max_leaves=12)
rows = st.dictionaries(st.text(max_size=6), values, max_size=6)


def exact(raw: bytes):
    """(body, chain) by the exact path, or None when the row is not fast-path material."""
    try:
        obj = loads_strict(raw.decode("utf-8"))
    except (DuplicateKeyError, ValueError, UnicodeDecodeError):
        return None
    if not isinstance(obj, dict) or not isinstance(obj.get("chain"), str):
        return None
    chain = obj.pop("chain")
    return dumps_body(obj).encode("utf-8", "surrogatepass"), chain


def check(raw: bytes) -> None:
    got = fastrow.body(raw)
    if got is not None:
        assert got == exact(raw), raw


@settings(max_examples=400, deadline=None)
@given(row=rows, chain=st.text(max_size=8),
       style=st.sampled_from(["py", "ascii", "compact", "spaced"]))
def test_body_equals_exact_path(row, chain, style):
    row = dict(row, chain=chain)
    if style == "py":
        raw = json.dumps(row, ensure_ascii=False).encode("utf-8")
    elif style == "ascii":
        raw = json.dumps(row).encode()
    elif style == "compact":
        raw = json.dumps(row, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    else:
        raw = json.dumps(row, ensure_ascii=False, indent=1).encode("utf-8")
    check(raw)
    if style == "py" and b"\\" not in raw:
        assert fastrow.body(raw) is not None, raw  # the common case takes the fast path


@settings(max_examples=300, deadline=None)
@given(row=rows, data=st.data())
def test_mutated_bytes_never_give_a_wrong_body(row, data):
    raw = bytearray(json.dumps(dict(row, chain="c"), ensure_ascii=False).encode("utf-8"))
    for _ in range(data.draw(st.integers(1, 3))):
        i = data.draw(st.integers(0, len(raw) - 1))
        raw[i] = data.draw(st.sampled_from(b'{}[]",:\\ 0-.eE\xff\xc3\x80aun'))
    check(bytes(raw))


@pytest.mark.parametrize("raw", [
    b'{"a": 1, "a": 2, "chain": "x"}',
    b'{"a": {"k": 1, "k": 1}, "chain": "x"}',
    b'{"chain": "x", "chain": "x"}',
    b'{"a": "\\u00e9", "chain": "x"}',
    b'{"a": "\\u001F", "chain": "x"}',
    b'{"a": "\\/", "chain": "x"}',
    b'{"a": -0, "chain": "x"}',
    b'{"a": 1e400, "chain": "x"}',
    b'{"a": NaN, "chain": "x"}',
    b'{"a": "\xed\xa0\x80", "chain": "x"}',
    b'{"a": "\xc0\xaf", "chain": "x"}',
    b'{"a\\n": 1, "chain": "x"}',
    b'{"a": 1}',
    b'{"a": 1, "chain": 5}',
    b'{"a": 1, "chain": "x"} trailing',
    b'[1, 2]',
    b'{"n": ' + b"9" * 4500 + b', "chain": "x"}',
    b'{"d": ' + b"[" * 300 + b"]" * 300 + b', "chain": "x"}',
])
def test_declines_what_it_cannot_read_exactly(raw):
    assert fastrow.body(raw) is None


@pytest.mark.parametrize("raw,body", [
    (b'{"b": 1E5, "a": [true, false, null, -1.5e-7, 0.1], "chain": "x"}',
     b'{"a": [true, false, null, -1.5e-07, 0.1], "b": 100000.0}'),
    (b'{ "z" : { "y":1 , "x": {}} ,"chain":"x", "e": []}', b'{"e": [], "z": {"x": {}, "y": 1}}'),
    (b'{"s": "\\"\\\\\\n\\u0000\xe2\x80\xa8", "chain": "c"}',
     b'{"s": "\\"\\\\\\n\\u0000\xe2\x80\xa8"}'),
])
def test_known_bodies(raw, body):
    assert fastrow.body(raw) == (body, raw.split(b'"chain"')[1].split(b'"')[1].decode())
    assert exact(raw)[0] == body
