"""The digests of the bytes one check read: what a verification summary names as its
subjects (a VSA's subject is the file the verdict is about, by the SHA-256 of the very
bytes the check judged).

While `recording()` is open (in this thread and what it calls), each reader that reads
a whole file for a check says what it read: `note(path, sha256)`, the digest of the
bytes it took from its one open file (None: it could not bind them, the file changed
or was replaced while read). `Reads.digest_of(path)` is then the one digest every
read of that path gave; a path read twice with different bytes, or once unbound, has
none: the check cannot say which bytes its verdict is about, and a summary naming it
fails. Nothing is hashed, and nothing noted, outside a recording.
"""

from __future__ import annotations

import contextvars
import hashlib
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, BinaryIO

__all__ = ["Reads", "recording", "active", "note", "note_bytes", "HashingReader"]

_UNBOUND = "unbound"


@dataclass
class Reads:
    """The digests noted per path (real path, links resolved) during one recording."""

    seen: dict[str, set[str]] = field(default_factory=dict)

    def digest_of(self, path: str | os.PathLike[str]) -> str | None:
        """The one digest every read of `path` gave; None when it was not read, read
        unbound, or read as different bytes."""
        got = self.seen.get(os.path.realpath(path))
        if not got or len(got) != 1 or _UNBOUND in got:
            return None
        return next(iter(got))

    def read(self, path: str | os.PathLike[str]) -> bool:
        """Whether anything was noted for `path`."""
        return os.path.realpath(path) in self.seen


_current: contextvars.ContextVar[Reads | None] = contextvars.ContextVar(
    "sealscope_bound_reads", default=None
)


@contextmanager
def recording() -> Iterator[Reads]:
    """Record the reads of the code run inside (see the module docstring)."""
    reads = Reads()
    token = _current.set(reads)
    try:
        yield reads
    finally:
        _current.reset(token)


def active() -> bool:
    """Whether a recording is open: readers hash what they read only then."""
    return _current.get() is not None


def note(path: str | os.PathLike[str], sha256: str | None) -> None:
    """Say that a check read the whole of `path` as bytes whose digest is `sha256`
    (None: bytes it could not bind to one file). No-op outside a recording."""
    reads = _current.get()
    if reads is not None:
        reads.seen.setdefault(os.path.realpath(path), set()).add(sha256 or _UNBOUND)


def note_bytes(path: str | os.PathLike[str], data: bytes) -> None:
    """`note` of a whole file read at once as `data` (hashed only in a recording)."""
    if _current.get() is not None:
        note(path, hashlib.sha256(data).hexdigest())


class HashingReader:
    """A binary file's `read`/`readline`, every byte returned also hashed; `finish()`
    reads what the caller left, hashes it, and gives the whole file's SHA-256 (of the
    bytes read through this one open file)."""

    def __init__(self, fh: BinaryIO) -> None:
        self._fh: Any = fh
        self._h = hashlib.sha256()

    def read(self, n: int = -1) -> bytes:
        data: bytes = self._fh.read(n)
        self._h.update(data)
        return data

    def read1(self, n: int = -1) -> bytes:
        data: bytes = self._fh.read1(n)
        self._h.update(data)
        return data

    def readline(self, n: int = -1) -> bytes:
        data: bytes = self._fh.readline(n)
        self._h.update(data)
        return data

    def finish(self) -> str:
        for block in iter(lambda: self._fh.read(1 << 20), b""):
            self._h.update(block)
        return self._h.hexdigest()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fh, name)
