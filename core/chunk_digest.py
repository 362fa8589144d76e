"""Chunk digests: bytes [0, N) of a file named by the SHA-256 of each CHUNK of them,
`[i*CHUNK, min((i+1)*CHUNK, N))`, the last one partial.

A checkpoint and a follower hold the prefix they verified this way, never as one
digest of the whole: chunks hash on every core the process may use at once
(`cores.usable`; `digests`, `check`), each thread's reads a share of one bounded
buffer budget (`cores.read_bytes`), so proving a prefix unchanged costs about one
core's pass over it divided by the cores, and a prefix that
grows keeps its whole chunks' digests (`Rolling`). A chunk digest vouches for a walk
only when it was hashed from the bytes the walk read (`check`'s `after`, `bound`).
Every read goes through the one descriptor given; a file that ends before the bytes
asked for is an OSError.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from sealscope.core import cores as _cores

if TYPE_CHECKING:  # loaded by the first pool: a walk that hashes nothing needs none
    from concurrent.futures import ThreadPoolExecutor

__all__ = [
    "CHUNK",
    "Checked",
    "Rolling",
    "bound",
    "check",
    "checked_read",
    "chunk_text",
    "digest",
    "digests",
    "first_differing",
    "read_into",
    "span_text",
]

CHUNK = 64 << 20  # a checkpoint document names it (`chunk_bytes`); read it from here at call time
READ = _cores.MAX_READ  # one read's bytes, at most


class Hasher(Protocol):
    def update(self, data: bytes | memoryview, /) -> None: ...


Spans = Sequence[tuple[int, int, str]]


def read_into(
    fd: int, hashers: Sequence[Hasher], start: int, end: int, buf: bytearray | None = None
) -> None:
    """Feed bytes [start, end) of `fd` to every hasher, read into `buf` (None: a buffer
    of this call's own, gone when it returns, so a long-lived caller keeps no 8 MB)."""
    if end <= start:
        return
    if buf is None:
        buf = bytearray(min(READ, end - start))
    view = memoryview(buf)
    pos = start
    while pos < end:
        want = min(len(buf), end - pos)
        got = os.preadv(fd, [view[:want]], pos)
        if not got:
            raise OSError(f"file ended at byte {pos} while hashing to {end}")
        for h in hashers:
            h.update(view[:got])
        pos += got


def digest(fd: int, start: int, end: int, buf: bytearray | None = None) -> str:
    """SHA-256 of bytes [start, end)."""
    h = hashlib.sha256()
    read_into(fd, (h,), start, end, buf)
    return h.hexdigest()


# a hashing pool thread's read buffer, reused for all its chunks while the pool lives
# (fresh memory for every read would cost a page fault per page)
_kept = threading.local()


def _pool_buf() -> bytearray:
    buf = getattr(_kept, "buf", None)
    if buf is None:
        buf = _kept.buf = bytearray(READ)
    return buf


def _give_buf(size: int) -> None:
    _kept.buf = bytearray(size)


def _pool(workers: int | None = None) -> ThreadPoolExecutor:
    """Hashing threads, one per core the process may use (or `workers`), each with
    its share of the buffer budget."""
    from concurrent.futures import ThreadPoolExecutor

    n = _cores.clamp(workers or _cores.usable())
    return ThreadPoolExecutor(
        max_workers=n, initializer=_give_buf, initargs=(_cores.read_bytes(n),)
    )


def chunk_spans(end: int, first_chunk: int = 0) -> list[tuple[int, int]]:
    """The chunks of [first_chunk*CHUNK, end) as (start, end) byte spans."""
    return [(a, min(a + CHUNK, end)) for a in range(first_chunk * CHUNK, end, CHUNK)]


def digests(
    fd: int, end: int, first_chunk: int = 0, on_hashed: Callable[[int], None] | None = None
) -> list[str]:
    """The chunk digests of [first_chunk*CHUNK, end), hashed on the cores' threads;
    `on_hashed(bytes)` hears how far the hashing has come, chunk by chunk."""
    spans = chunk_spans(end, first_chunk)
    out: list[str] = []

    def take(hexed: Iterable[str]) -> list[str]:
        for (_a, b), h in zip(spans, hexed, strict=True):
            out.append(h)
            if on_hashed is not None:
                on_hashed(b)
        return out

    if len(spans) <= 1:
        return take(digest(fd, a, b) for a, b in spans)
    with _pool() as pool:
        return take(pool.map(lambda ab: digest(fd, ab[0], ab[1], _pool_buf()), spans))


class Rolling:
    """The chunk digests of a prefix that grows from byte `start` (a chunk boundary):
    the whole chunks' digests kept, the last partial chunk's hasher open. It is a
    hasher itself: `update` the bytes that follow, in order."""

    def __init__(self, start: int = 0, whole: Sequence[str] = ()) -> None:
        self.pos = start
        self.whole = list(whole)
        self._h: Any = hashlib.sha256()

    @classmethod
    def hashed(cls, fd: int, end: int, on_hashed: Callable[[int], None] | None = None) -> Rolling:
        """[0, end) of `fd`: its whole chunks on the cores' threads, then the partial one."""
        full = (end // CHUNK) * CHUNK
        roll = cls(full, digests(fd, full, on_hashed=on_hashed))
        read_into(fd, (roll,), full, end)
        return roll

    def update(self, data: bytes | memoryview, /) -> None:
        view = memoryview(data)
        while view:
            room = CHUNK - self.pos % CHUNK
            self._h.update(view[:room])
            self.pos += min(room, len(view))
            if len(view) >= room:
                self.whole.append(self._h.hexdigest())
                self._h = hashlib.sha256()
            view = view[room:]

    def digests(self) -> list[str]:
        """The whole chunks' digests, then the partial chunk's (when it has bytes)."""
        tail = [self._h.hexdigest()] if self.pos % CHUNK else []
        return [*self.whole, *tail]


@dataclass(frozen=True)
class Checked:
    """`check`'s answer. `changed`: the first chunk of the prefix whose bytes differ
    from the digests it was checked against (None: none differs); `chunks`: the chunk
    digests of all bytes hashed; `after`: the SHA-256 of the bytes after the prefix,
    from the same reads as `chunks`."""

    changed: int | None
    chunks: tuple[str, ...]
    after: str


def check(fd: int, want: Sequence[str], length: int, end: int) -> Checked:
    """Hash [0, end) by chunks on the cores' threads, the prefix [0, length)'s checked against
    `want` (its chunk digests, as `digests` gives them). The chunk that holds byte
    `length` is read once: its prefix part is checked, then it and the chunks after
    it are hashed on from there, with the bytes after the prefix (`after`)."""
    keep = length // CHUNK

    def tail() -> tuple[bool, list[str], str]:
        buf = _pool_buf()
        roll = Rolling(keep * CHUNK)
        read_into(fd, (roll,), keep * CHUNK, length, buf)
        same = length % CHUNK == 0 or roll.digests() == [want[keep]]
        after = hashlib.sha256()
        read_into(fd, (roll, after), length, end, buf)
        return same, roll.digests(), after.hexdigest()

    with _pool() as pool:
        last = pool.submit(tail)  # first: the appended bytes may be the most
        whole = list(
            pool.map(lambda i: digest(fd, i * CHUNK, (i + 1) * CHUNK, _pool_buf()), range(keep))
        )
        same, rest, after = last.result()
    changed = first_differing(want[:keep], whole)
    if changed is None and not same:
        changed = keep
    return Checked(changed, (*whole, *rest), after)


def _whole_chunk(fd: int, i: int) -> str:
    """Chunk `i`'s digest, on a hashing pool thread."""
    return digest(fd, i * CHUNK, (i + 1) * CHUNK, _pool_buf())


def first_differing(want: Sequence[str], now: Sequence[str]) -> int | None:
    """The index of the first chunk whose digest differs (a chunk only one side has
    differs), or None when they are the same."""
    for i, (a, b) in enumerate(zip(want, now, strict=False)):
        if a != b:
            return i
    return None if len(want) == len(now) else min(len(want), len(now))


def chunk_text(i: int, length: int) -> str:
    """Chunk `i` of a prefix of `length` bytes, for people (`span_text`)."""
    return span_text(i * CHUNK, min((i + 1) * CHUNK, length))


def span_text(a: int, b: int) -> str:
    """A byte span for people: `0–64 MiB` on MiB boundaries, else `0–5,000`."""
    mib = 1 << 20
    if a % mib == 0 and b % mib == 0:
        return f"{a // mib}–{b // mib} MiB"
    return f"{a:,}–{b:,}"


def checked_read(fd: int, start: int, end: int, spans: Spans, into: Hasher) -> str | None:
    """Read [start, end) once into `into`, checking that each span of `spans` inside it
    hashes to what its walk read: None when all do, else a sentence naming the first
    span whose bytes differ or could not be read."""
    buf = bytearray(min(READ, max(1, end - start)))
    pos = start
    for a, b, want in sorted(spans):
        if a < pos or b > end:
            continue
        part = hashlib.sha256()
        try:
            read_into(fd, (into,), pos, a, buf)
        except OSError:
            return f"bytes {pos:,}–{a:,} could not be read again"
        try:
            read_into(fd, (into, part), a, b, buf)
        except OSError:
            return f"bytes {a:,}–{b:,} could not be read again"
        if part.hexdigest() != want:
            return f"bytes {a:,}–{b:,} differ from what the walk read"
        pos = b
    try:
        read_into(fd, (into,), pos, end, buf)
    except OSError:
        return f"bytes {pos:,}–{end:,} could not be read again"
    return None


def bound(fd: int, end: int, spans: Spans) -> tuple[tuple[str, ...] | None, str | None]:
    """(the chunk digests of [0, end), None), each hashed from bytes shown to be the
    ones a walk read (`spans`: its (start, end, SHA-256) of every span it read, from
    byte 0), or (None, why not). A chunk that is exactly one span is that span's
    digest, read no more; otherwise [0, end) is read again once (`checked_read`)."""
    have = {(a, b): h for a, b, h in spans}
    pieces = chunk_spans(end)
    if all(p in have for p in pieces):
        return tuple(have[p] for p in pieces), None
    roll = Rolling()
    why = checked_read(fd, 0, end, spans, roll)
    return (None, why) if why is not None else (tuple(roll.digests()), None)
