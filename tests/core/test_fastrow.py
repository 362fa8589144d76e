"""The C accelerator computes chain bodies exactly as the exact path does, or declines."""

from __future__ import annotations

import hashlib
import importlib
import importlib.util
import json
from array import array

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sealscope.core import lines
from sealscope.core.jsonio import DuplicateKeyError, dumps_body, loads_strict

# The accelerator is optional (no compiler at install time): skip only when it was not
# built at all. A built module that fails to import is an error, never a skip.
if importlib.util.find_spec("sealscope.core._fastrow") is None:
    pytest.skip("C accelerator not built", allow_module_level=True)
fastrow = importlib.import_module("sealscope.core._fastrow")

scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(10**30), 10**30)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(alphabet=st.characters(blacklist_categories=("Cs",)), max_size=10)
    | st.sampled_from(["\x00", "\x1f\x7f", "\u2028\u0085", '"\\/', "\b\f\n\r\t", "é😀"])
)
values = st.recursive(
    scalars,
    lambda c: st.lists(c, max_size=4) | st.dictionaries(st.text(max_size=4), c, max_size=4),
    max_leaves=12,
)
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
@given(
    row=rows, chain=st.text(max_size=8), style=st.sampled_from(["py", "ascii", "compact", "spaced"])
)
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


@pytest.mark.parametrize(
    "raw",
    [
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
        b"[1, 2]",
        b'{"n": ' + b"9" * 4500 + b', "chain": "x"}',
        b'{"d": ' + b"[" * 300 + b"]" * 300 + b', "chain": "x"}',
    ],
)
def test_declines_what_it_cannot_read_exactly(raw):
    assert fastrow.body(raw) is None


@pytest.mark.parametrize(
    "raw,body",
    [
        (
            b'{"b": 1E5, "a": [true, false, null, -1.5e-7, 0.1], "chain": "x"}',
            b'{"a": [true, false, null, -1.5e-07, 0.1], "b": 100000.0}',
        ),
        (
            b'{ "z" : { "y":1 , "x": {}} ,"chain":"x", "e": []}',
            b'{"e": [], "z": {"x": {}, "y": 1}}',
        ),
        (
            b'{"s": "\\"\\\\\\n\\u0000\xe2\x80\xa8", "chain": "c"}',
            b'{"s": "\\"\\\\\\n\\u0000\xe2\x80\xa8"}',
        ),
    ],
)
def test_known_bodies(raw, body):
    assert fastrow.body(raw) == (body, raw.split(b'"chain"')[1].split(b'"')[1].decode())
    assert exact(raw)[0] == body


def _chained(bodies: list[dict], prev: str = "genesis") -> list[bytes]:
    out = []
    for body in bodies:
        chain = hashlib.sha256(
            prev.encode() + dumps_body(body).encode("utf-8", "surrogatepass")
        ).hexdigest()[:32]
        out.append(json.dumps(dict(body, chain=chain), ensure_ascii=False).encode("utf-8"))
        prev = chain
    return out


def python_run(data: bytes, pos: int, prev: bytes):
    """What `run` must return, by the exact path: whole lines from byte `pos` verified
    in a row."""
    last, count = None, 0
    while (nl := data.find(b"\n", pos)) >= 0:
        raw = data[pos:nl]
        got = exact(raw) if raw[:1] == b"{" and raw[-1:] == b"}" else None
        if got is None or fastrow.body(raw) is None:
            break
        if hashlib.sha256(prev + got[0]).hexdigest()[:32] != got[1]:
            break
        prev, last, count, pos = got[1].encode(), got[1], count + 1, nl + 1
    return pos, last, count


@settings(max_examples=200, deadline=None)
@given(bodies=st.lists(rows, min_size=1, max_size=8), data=st.data())
def test_run_verifies_exactly_the_rows_the_exact_path_verifies(bodies, data):
    lines = _chained(bodies)
    # tamper with one line, or put a line the fast path declines, or leave it honest
    k = data.draw(st.integers(0, len(lines)))
    what = data.draw(st.sampled_from(["honest", "edit", "decline", "blank", "crlf"]))
    if k < len(lines) and what != "honest":
        lines[k] = {
            "edit": lines[k].replace(b"{", b'{"x": 1, ', 1),
            "decline": lines[k].replace(b"{", b'{"n": -0, ', 1),
            "blank": b"",
            "crlf": lines[k] + b"\r",
        }[what]
    buf = b"\n".join(lines) + data.draw(st.sampled_from([b"\n", b""]))
    starts = [0] + [i + 1 for i, c in enumerate(buf) if c == 10]
    start = data.draw(st.sampled_from(starts))
    prev = b"genesis" if start == 0 else data.draw(st.sampled_from([b"", b"genesis", b"x" * 32]))
    assert fastrow.run(buf, start, prev, hashlib.sha256) == python_run(buf, start, prev)


def test_run_on_a_honest_chain_takes_every_row_and_stops_at_a_tampered_one():
    lines = _chained([{"i": i, "s": "é"} for i in range(5)])
    chain = [json.loads(x)["chain"] for x in lines]
    buf = b"\n".join(lines) + b"\n"
    assert fastrow.run(buf, 0, b"genesis", hashlib.sha256) == (len(buf), chain[4], 5)
    assert fastrow.run(buf[:-1], 0, b"genesis", hashlib.sha256)[1:] == (chain[3], 4)  # no LF
    third = sum(len(x) + 1 for x in lines[:3])
    tampered = buf.replace(b'"i": 3', b'"i": 33')
    assert fastrow.run(tampered, 0, b"genesis", hashlib.sha256) == (third, chain[2], 3)
    assert fastrow.run(tampered, third, chain[2].encode(), hashlib.sha256) == (third, None, 0)


decimals = st.builds(
    lambda sign, ip, zeros, fp: f"{sign}{ip}.{'0' * zeros}{fp}",
    st.sampled_from(["", "-"]),
    st.sampled_from(["0", "1", "9"]) | st.integers(1, 10**17).map(str),
    st.integers(0, 6),
    st.text(alphabet="0123456789", min_size=1, max_size=18),
)


@settings(max_examples=1500, deadline=None)
@given(decimals)
def test_float_literals_come_out_as_repr_spells_them(lit):
    got = fastrow.body(b'{"a": ' + lit.encode() + b', "chain": "x"}')
    assert got is not None and got[0] == b'{"a": ' + repr(float(lit)).encode() + b"}"


@pytest.mark.parametrize(
    "lit",
    [
        "2.75",
        "2.50",
        "0.1",
        "0.10",
        "0.0",
        "-0.0",
        "2.0",
        "0.0001",
        "0.00001",
        "123456789012345.5",
        "1234567890123456.0",
        "0.30000000000000004",
        "1e16",
        "1.5E-7",
        "100000000000000.0",
    ],
)
def test_known_float_literals(lit):
    got = fastrow.body(b'{"a": ' + lit.encode() + b', "chain": "x"}')
    assert got == (b'{"a": ' + repr(float(lit)).encode() + b"}", "x")


def reference_line_ends(data: bytes) -> list[int]:
    """Offsets just after each line end, by the reference's rule: universal newlines
    (`\\r\\n` and a lone `\\r` become `\\n`), then a split on `\\n`."""
    text = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    ends, pos, i = [], 0, 0
    while i < len(data):  # walk the raw bytes in step with the translated text
        if data[i : i + 2] == b"\r\n":
            i += 2
        else:
            i += 1
        if text[pos : pos + 1] == b"\n":
            ends.append(i)
        pos += 1
    return ends


def c_line_ends(data: bytes, base: int = 0) -> list[int]:
    out = array("q")
    out.frombytes(fastrow.line_ends(data, base))
    return list(out)


@settings(max_examples=400, deadline=None)
@given(
    data=st.lists(
        st.sampled_from([b"a", b"\n", b"\r", b"\r\n", b"{}", b"\xe9", b"\x85"]), max_size=40
    ).map(b"".join),
    base=st.integers(0, 1 << 40),
)
def test_line_ends_follow_universal_newlines(data, base):
    assert c_line_ends(data, base) == [base + e for e in reference_line_ends(data)]


@settings(max_examples=100, deadline=None)
@given(
    data=st.lists(st.sampled_from([b"row", b"\n", b"\r", b"\r\n", b"x" * 50]), max_size=60).map(
        b"".join
    ),
    window=st.integers(1, 64),
)
def test_line_offsets_equal_with_and_without_the_accelerator(data, window):
    """`lines.line_offsets` gives the same offsets through the C scan and the Python
    loop, whatever the window size (a window ends just after a `\\n`)."""
    bounds = lines.window_bounds
    got = []
    for accel in (fastrow.line_ends, None):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(lines, "_c_line_ends", accel)
            mp.setattr(
                lines, "window_bounds", lambda buf, start, end: bounds(buf, start, end, window)
            )
            got.append(list(lines.line_offsets(data)))
    assert got[0] == got[1]
    assert got[0][0] == 0 and got[0][-1] == len(data)


def test_line_ends_read_any_buffer_and_refuse_text():
    assert c_line_ends(memoryview(b"a\nb\r\nc"), 5) == [7, 10]
    assert c_line_ends(b"", 3) == []
    with pytest.raises(TypeError):
        fastrow.line_ends("a\n", 0)


@settings(max_examples=300, deadline=None)
@given(
    data=st.binary(max_size=300)
    | st.integers(0, 5000).map(lambda n: bytes(range(256)) * (n // 256) + b"x" * (n % 256))
)
def test_the_chain_digest_equals_hashlibs_by_either_code(data):
    """`run` hashes in C: by the CPU's SHA instructions where it has them, else the
    portable rounds; both give hashlib's SHA-256, every padding length included."""
    want = hashlib.sha256(data).hexdigest()[:32]
    assert fastrow.sha256_hex(data) == want
    assert fastrow.sha256_hex(data, True) == want


def test_every_message_length_around_the_padding_edges():
    for n in range(0, 300):
        data = bytes((i * 7 + n) & 0xFF for i in range(n))
        want = hashlib.sha256(data).hexdigest()[:32]
        assert fastrow.sha256_hex(data) == want == fastrow.sha256_hex(data, True), n


@settings(max_examples=200, deadline=None)
@given(a=st.binary(max_size=400), b=st.binary(max_size=400))
def test_two_messages_hashed_at_once_are_each_hashlibs_digest(a, b):
    """`run` hashes a pair of rows at once (the second's block count may be more, less
    or the same): each digest is hashlib's."""
    want = (hashlib.sha256(a).hexdigest()[:32], hashlib.sha256(b).hexdigest()[:32])
    assert fastrow.sha256_hex2(a, b) == want


def test_pairs_of_message_lengths_around_the_padding_edges():
    for n in (0, 1, 55, 56, 63, 64, 65, 119, 120, 128, 200):
        for m in range(0, 140):
            a, b = bytes([n & 0xFF]) * n, bytes([m & 0xFF]) * m
            got = fastrow.sha256_hex2(a, b)
            assert got == (hashlib.sha256(a).hexdigest()[:32], hashlib.sha256(b).hexdigest()[:32])


@settings(max_examples=300, deadline=None)
@given(
    data=st.binary(max_size=64),
    needle=st.binary(max_size=4),
    start=st.integers(-3, 70),
)
def test_find_is_bytes_find(data, needle, start):
    assert fastrow.find(data, needle, max(start, 0)) == data.find(needle, max(start, 0))
    assert fastrow.find(bytearray(data), needle) == data.find(needle)


def test_runs_in_threads_at_once_give_what_one_run_gives():
    """`run` lets go of the GIL while it reads rows, and takes it back for the floats
    only CPython can spell: runs on several threads at once, over rows with such
    floats and over a reused bytearray, give exactly the serial answers."""
    import threading

    lines = _chained([{"i": i, "x": 1e16 * (i + 1), "y": 0.1 * i, "s": "é東"} for i in range(400)])
    buf = b"\n".join(lines) + b"\n"
    want = fastrow.run(buf, 0, b"genesis")
    assert want == (len(buf), json.loads(lines[-1])["chain"], 400)
    assert fastrow.run(bytearray(buf), 0, b"genesis") == want
    got: list = []
    go = threading.Barrier(4)

    def one() -> None:
        go.wait()
        got.extend(fastrow.run(buf, 0, b"genesis") for _ in range(20))

    threads = [threading.Thread(target=one) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert got == [want] * 80
