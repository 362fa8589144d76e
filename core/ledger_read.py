"""Reading a ledger's rows and chains: every row in order, the chain at a line, the tail's chain.

Lines are split and numbered as the verifier does and parsed by the same reader; a line
that does not parse is no row. `iter_rows` raises OSError for a file it cannot open as a
regular file; `chain_at` answers None and `tail_chain` `genesis` instead.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterator
from typing import Any

from sealscope.core import bound_reads as _bound
from sealscope.core import lines as _lines
from sealscope.core.chain import GENESIS, ProgressFn
from sealscope.core.rows import row_value

# --------------------------------------------------------------------------- reading


def iter_rows(
    path: str | os.PathLike[str],
    *,
    needles: tuple[bytes, ...] = (),
    on_progress: ProgressFn | None = None,
) -> Iterator[tuple[int, Any]]:
    """`rows_in` the file at `path`, read through one open file. OSError when the file
    cannot be opened or is not a regular file. In a check's recording
    (`bound_reads`), a file read to its end notes the digest of the bytes read."""
    with _lines.open_regular(path) as fh:
        h = hashlib.sha256() if _bound.active() else None
        yield from rows_in(
            _lines.FileSource(fh), needles=needles, on_progress=on_progress, hasher=h
        )
        if h is not None:
            _bound.note(path, h.hexdigest())


def rows_in(
    buf: _lines.Buffer,
    *,
    needles: tuple[bytes, ...] = (),
    on_progress: ProgressFn | None = None,
    hasher: Any = None,
) -> Iterator[tuple[int, Any]]:
    """(line number, plain-parsed value) for every non-blank line of `buf` (bytes, or a
    file's `FileSource`) that parses, lines split and numbered as the verifier does;
    `hasher` (a hashlib object) is fed every byte read, in order.
    With `needles`, only lines holding one of them (literally) are decoded at all: they
    are found window by window (`lines.window_holding`), not line by line.
    `on_progress(done, total)` gets bytes read."""
    total = len(buf)
    n = 0
    for s, e in _lines.window_bounds(buf, 0, total) if total else [(0, 0)]:
        data, final = buf[s:e], e == total
        if hasher is not None:
            hasher.update(data)
        if needles:
            count, hits = _lines.window_holding(data, final, needles)
        else:
            lines = _lines.split_window(data, final)
            count, hits = len(lines), list(enumerate(lines))
        for i, raw in hits:
            text = _lines.decode_line(raw)
            if not text:
                continue
            try:
                value = row_value(text, raw)
            except ValueError:
                continue
            yield n + i + 1, value
        n += count
        if on_progress is not None:
            on_progress(e, total)


def first_line(path: str | os.PathLike[str]) -> int:
    """The number of the first line of the file at `path` that is not blank, lines
    split and numbered as the verifier does (`rows_in`): the line a document held as
    its own file (a stand-alone receipt, one line or pretty-printed) starts on; 1 for
    a file with none. OSError when the file cannot be opened as a regular file."""
    with _lines.open_regular(path) as fh:
        buf = _lines.FileSource(fh)
        total, n = len(buf), 0
        for s, e in _lines.window_bounds(buf, 0, total):
            lines = _lines.split_window(buf[s:e], e == total)
            for i, raw in enumerate(lines):
                if _lines.decode_line(raw):
                    return n + i + 1
            n += len(lines)
    return 1


def chain_at(path: str | os.PathLike[str], n: int) -> Any:
    """The `chain` value of the n-th row (rows counted as `verify` counts them), None
    if unreadable, fewer rows, or no chain; `genesis` for n <= 0 without reading."""
    if n <= 0:
        return GENESIS
    count = 0
    try:
        for _ln, obj in iter_rows(path):
            if isinstance(obj, dict):
                count += 1
                if count == n:
                    return obj.get("chain")
    except OSError:
        return None
    return None


def tail_chain(path: str | os.PathLike[str], *, reference_split: bool = False) -> Any:
    """The chain the next append continues from: the last object row's truthy `chain`,
    else `genesis`. Reads backwards; never reads the whole file.

    By default lines are split and stripped as the verifier does, so a head taken from
    an honest CR-only or NBSP-padded file is the chain of its last row.
    `reference_split=True` reproduces arcaeon's writer instead (LF bytes only, ASCII
    whitespace only)."""
    try:
        with _lines.open_regular(path) as fh:
            fh.seek(0, os.SEEK_END)
            size = fh.tell()
            block = 1 << 16
            while True:
                start = max(0, size - block)
                fh.seek(start)
                data = fh.read(size - start)
                if reference_split:
                    pieces = data.split(b"\n")
                else:
                    pieces = _lines.split_window(data, final=True)
                if start > 0:
                    pieces = pieces[1:]  # the first piece may be a partial line
                for raw in reversed(pieces):
                    if reference_split:
                        raw = raw.strip()
                        text = raw.decode("utf-8", "replace") if raw else ""
                    else:
                        text = _lines.decode_line(raw)
                    if not text:
                        continue
                    try:
                        obj = row_value(text, raw)
                    except ValueError:
                        continue
                    if isinstance(obj, dict):
                        return obj.get("chain") or GENESIS
                if start == 0:
                    return GENESIS
                block *= 4
    except OSError:
        return GENESIS
