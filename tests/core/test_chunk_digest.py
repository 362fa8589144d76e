"""Chunk digests against hashlib on real files: the digests, a growing prefix's
rolling digests, the two-thread check of a prefix, and the binding to a walk's spans."""

from __future__ import annotations

import hashlib
import itertools
import os
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sealscope.core import chunk_digest as D

SMALL = 256


@pytest.fixture(autouse=True)
def small_chunks(monkeypatch):
    monkeypatch.setattr(D, "CHUNK", SMALL)


def _by_hashlib(data: bytes) -> list[str]:
    return [hashlib.sha256(data[a : a + SMALL]).hexdigest() for a in range(0, len(data), SMALL)]


def _file(tmp_path: Path, data: bytes) -> int:
    p = tmp_path / "f.bin"
    p.write_bytes(data)
    return os.open(p, os.O_RDONLY)


SETTINGS = settings(
    max_examples=150,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@SETTINGS
@given(data=st.binary(max_size=5 * SMALL + 7))
def test_digests_are_hashlibs_per_chunk(tmp_path, data):
    fd = _file(tmp_path, data)
    try:
        assert D.digests(fd, len(data)) == _by_hashlib(data)
        assert D.Rolling.hashed(fd, len(data)).digests() == _by_hashlib(data)
        # from a later chunk on
        assert D.digests(fd, len(data), first_chunk=2) == _by_hashlib(data)[2:]
    finally:
        os.close(fd)


@SETTINGS
@given(data=st.binary(max_size=4 * SMALL + 3), cuts=st.lists(st.integers(0, 4 * SMALL + 3)))
def test_rolling_digests_equal_the_whole_files_however_the_bytes_arrive(data, cuts):
    roll = D.Rolling()
    pos = 0
    for c in sorted({min(c, len(data)) for c in cuts}) + [len(data)]:
        roll.update(data[pos:c])
        pos = c
        assert roll.digests() == _by_hashlib(data[:pos])


@SETTINGS
@given(
    data=st.binary(min_size=1, max_size=5 * SMALL + 9),
    length=st.integers(0, 5 * SMALL + 9),
    flip=st.one_of(st.none(), st.integers(0, 5 * SMALL + 8)),
)
def test_check_names_the_first_changed_chunk_and_hashes_on(tmp_path, data, length, flip):
    """The prefix [0, length) checked against the digests it had: unchanged, nothing
    changed, and the chunks and the bytes after it are hashlib's; a flipped byte inside
    the prefix is named by its chunk; one after it changes no prefix chunk."""
    length = min(length, len(data))
    want = _by_hashlib(data[:length])
    now = data
    if flip is not None:
        i = flip % len(data)
        now = data[:i] + bytes([data[i] ^ 0x5A]) + data[i + 1 :]
    fd = _file(tmp_path, now)
    try:
        got = D.check(fd, want, length, len(now))
    finally:
        os.close(fd)
    assert got.chunks == tuple(_by_hashlib(now))
    assert got.after == hashlib.sha256(now[length:]).hexdigest()
    if flip is not None and flip % len(data) < length:
        assert got.changed == (flip % len(data)) // SMALL
    else:
        assert got.changed is None


def test_check_of_a_file_shorter_than_asked_is_an_oserror(tmp_path):
    data = b"x" * (3 * SMALL)
    fd = _file(tmp_path, data)
    try:
        with pytest.raises(OSError, match="file ended"):
            D.check(fd, _by_hashlib(data), len(data), len(data) + 10)
    finally:
        os.close(fd)


@SETTINGS
@given(
    data=st.binary(max_size=4 * SMALL + 5),
    marks=st.lists(st.integers(0, 4 * SMALL + 5)),
    bad=st.one_of(st.none(), st.integers(0, 100)),
)
def test_bound_chunks_are_of_the_walks_bytes(tmp_path, data, marks, bad):
    """Spans partitioning the file (as a walk's ranges do): the chunk digests come
    out as hashlib's; a span whose digest is not of its bytes gives none, and says
    which, unless every chunk is a span (then the digests are the walk's own, which
    is what a checkpoint must name: the bytes walked)."""
    cuts = sorted({0, len(data), *(min(m, len(data)) for m in marks)})
    spans = [(a, b, hashlib.sha256(data[a:b]).hexdigest()) for a, b in itertools.pairwise(cuts)]
    wrong = None
    if bad is not None and spans:
        k = bad % len(spans)
        a, b, _h = spans[k]
        spans[k] = (a, b, hashlib.sha256(b"not " + data[a:b]).hexdigest())
        wrong = f"bytes {a:,}–{b:,} differ from what the walk read"
    fd = _file(tmp_path, data)
    try:
        got = D.bound(fd, len(data), spans)
    finally:
        os.close(fd)
    have = {(a, b): h for a, b, h in spans}
    pieces = [(a, min(a + SMALL, len(data))) for a in range(0, len(data), SMALL)]
    if all(p in have for p in pieces):  # each chunk is a span: the walk's own digests
        assert got == (tuple(have[p] for p in pieces), None)
    elif wrong is None:
        assert got == (tuple(_by_hashlib(data)), None)
    else:
        assert got == (None, wrong)


def test_bound_takes_a_chunk_that_is_one_span_without_reading(tmp_path):
    """A chunk exactly one walked span is that span's digest: nothing is read (the
    descriptor here is closed)."""
    data = b"a" * SMALL + b"b" * 10
    spans = [
        (0, SMALL, hashlib.sha256(data[:SMALL]).hexdigest()),
        (SMALL, len(data), hashlib.sha256(data[SMALL:]).hexdigest()),
    ]
    fd = _file(tmp_path, data)
    os.close(fd)
    assert D.bound(fd, len(data), spans) == (tuple(_by_hashlib(data)), None)


def test_first_differing_and_texts():
    assert D.first_differing(["a", "b"], ["a", "b"]) is None
    assert D.first_differing(["a", "b"], ["a", "c"]) == 1
    assert D.first_differing(["a"], ["a", "c"]) == 1
    assert D.chunk_text(1, 3 * SMALL) == f"{SMALL:,}–{2 * SMALL:,}"
    assert D.chunk_text(2, 2 * SMALL + 5) == f"{2 * SMALL:,}–{2 * SMALL + 5:,}"
    assert D.span_text(0, 64 << 20) == "0–64 MiB"
