"""Line splitting exactly as the reference verifier reads a ledger.

The reference decodes the whole file as UTF-8 (invalid bytes replaced), applies
universal newlines (`\\r\\n` and a lone `\\r` become `\\n`) and splits on `\\n` only.
Line numbers are 1-based positions in that split; a trailing newline yields a final
empty line. U+2028, U+0085, VT, FF stay content. Here the same split is done on bytes,
window by window over an mmap, so memory does not grow with the file; decoding with
replacement per line gives the same text because line ends are ASCII.
"""

from __future__ import annotations

import errno
import io
import mmap
import os
import re
import stat
from array import array
from collections.abc import Callable, Iterator
from typing import BinaryIO, Protocol

try:  # optional C accelerator: the same offsets, found without holding the GIL
    from sealscope.core._fastrow import find as _fast_find
    from sealscope.core._fastrow import line_ends as _fast_line_ends

    _c_line_ends: Callable[[bytes, int], bytes] | None = _fast_line_ends
    _c_find: Callable[[bytes | bytearray, bytes], int] | None = _fast_find
except ImportError:  # pragma: no cover - no compiler at install time
    _c_line_ends = _c_find = None
try:  # optional C line search (core/_marks.c): the same lines, found without the GIL
    from sealscope.core._marks import marked as _fast_marked

    _c_marked: Callable[[bytes, tuple[bytes, ...]], list[tuple[int, int, int]]] | None = (
        _fast_marked
    )
except ImportError:  # pragma: no cover - no compiler at install time
    _c_marked = None
if os.environ.get("SEALSCOPE_PURE_PYTHON"):  # measure or test the Python paths alone
    _c_line_ends = _c_find = _c_marked = None

__all__ = [
    "WINDOW",
    "NotRegularFile",
    "regular_fd",
    "open_regular",
    "read_text",
    "open_map",
    "window_bounds",
    "iter_windows",
    "split_window",
    "window_holding",
    "decode_line",
    "line_offsets",
    "count_lines",
    "FileSource",
    "Buffer",
    "find",
]

WINDOW = 8 << 20


class Buffer(Protocol):
    """What the splitter reads: bytes, an mmap, a `FileSource`, or a view of one."""

    def __len__(self) -> int: ...

    def __getitem__(self, sl: slice, /) -> bytes: ...

    def find(self, needle: bytes, start: int = ..., end: int = ..., /) -> int: ...


class NotRegularFile(OSError):
    """Evidence that is not a regular file (a FIFO, a device, a socket): `strerror`
    "not a regular file", printed with its path as Python prints an OSError."""

    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__(f"not a regular file: {os.fspath(path)!r}")
        self.strerror = "not a regular file"
        self.filename = os.fspath(path)

    def __str__(self) -> str:
        return f"{self.strerror}: {self.filename!r}"


def regular_fd(path: str | os.PathLike[str]) -> int:
    """A file descriptor reading evidence: a regular file only. Opened without
    blocking and checked before anything is read, so a FIFO (whose open waits for a
    writer) or a device (`/dev/zero` never ends) is refused at once: `NotRegularFile`
    (`not a regular file: 'PATH'`); a folder fails as Python's `open` fails (`[Errno 21] Is a
    directory`)."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, os.strerror(errno.EISDIR), os.fspath(path))
        if not stat.S_ISREG(mode):
            raise NotRegularFile(path)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return fd
    except BaseException:
        os.close(fd)
        raise


def open_regular(path: str | os.PathLike[str]) -> BinaryIO:
    """`regular_fd(path)` as a binary file object."""
    return os.fdopen(regular_fd(path), "rb")


def read_text(path: str | os.PathLike[str], errors: str = "strict") -> str:
    """The file's text as `Path.read_text(encoding="utf-8", errors=errors)` reads it
    (universal newlines, the same errors), opened by `open_regular`."""
    fh = open_regular(path)
    with io.TextIOWrapper(fh, encoding="utf-8", errors=errors) as text:
        return text.read()


def open_map(fh: BinaryIO) -> mmap.mmap | bytes:
    """A read-only map of an open file (bytes for an empty file, which mmap refuses)."""
    size = os.fstat(fh.fileno()).st_size
    if size == 0:
        return b""
    return mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ)


class FileSource:
    """Random-access reads of an open file by offset (os.pread), sliceable like bytes.

    Unlike a map, pages read this way are not charged to the process's resident
    memory, so walking a huge file keeps RSS flat."""

    def __init__(self, fh: BinaryIO):
        self.fd = fh.fileno()
        self.size = os.fstat(self.fd).st_size

    def __len__(self) -> int:
        return self.size

    def __getitem__(self, sl: slice) -> bytes:
        start, stop, _ = sl.indices(self.size)
        if stop <= start:
            return b""
        out = os.pread(self.fd, stop - start, start)
        while len(out) < stop - start:  # short reads on some filesystems
            more = os.pread(self.fd, stop - start - len(out), start + len(out))
            if not more:
                break
            out += more
        return out

    def read_into(self, start: int, stop: int, into: bytearray) -> bytearray:
        """Bytes [start, stop), as `self[start:stop]` gives them, read into `into`
        (resized to them) or, when it is far too short, into a fresh buffer; the buffer
        read into is returned, for the next call to reuse."""
        want = max(0, min(stop, self.size) - start)
        if len(into) > want:
            del into[want:]
        elif want - len(into) > 1 << 16:  # zeroed pages, charged only as they are read into
            into = bytearray(want)
        elif len(into) < want:
            into.extend(bytes(want - len(into)))
        view = memoryview(into)
        got = 0
        while got < want:  # short reads on some filesystems
            k = os.preadv(self.fd, [view[got:]], start + got)
            if not k:
                break
            got += k
        view.release()
        if got < want:
            del into[got:]
        return into

    def find(self, needle: bytes, start: int = 0, end: int | None = None) -> int:
        end = self.size if end is None else end
        step = 1 << 16
        pos = start
        while pos < end:
            block = self[pos : min(end, pos + step + len(needle) - 1)]
            i = find(block, needle)
            if i >= 0:
                return pos + i
            pos += step
            step = min(step * 2, WINDOW)
        return -1


def find(data: bytes | bytearray, needle: bytes) -> int:
    """`data.find(needle)`, searched without holding the GIL where the accelerator is
    built (threads walking other windows run meanwhile)."""
    return _c_find(data, needle) if _c_find is not None else data.find(needle)


def window_bounds(
    buf: Buffer, start: int, end: int, size: int = WINDOW
) -> Iterator[tuple[int, int]]:
    """Split [start, end) into windows that each end just after a `\\n` (or at `end`)."""
    pos = start
    while pos < end:
        want = pos + size
        if want >= end:
            yield pos, end
            return
        nl = buf.find(b"\n", want, end)
        if nl < 0:
            yield pos, end
            return
        yield pos, nl + 1
        pos = nl + 1


def split_window(data: bytes, final: bool) -> list[bytes]:
    """The lines of one window. `final` keeps the piece after the last terminator
    (the file's last line, possibly empty); otherwise the window ends in `\\n`."""
    if b"\r" in data:
        data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    parts = data.split(b"\n")
    if not final:
        parts.pop()
    return parts


def iter_windows(
    buf: Buffer, start: int = 0, end: int | None = None, size: int = WINDOW
) -> Iterator[tuple[int, int, list[bytes]]]:
    """Yield (byte_start, byte_end, lines) for each window of [start, end).

    The range must begin at a line start; the last window of the buffer keeps the
    file's final line. An empty range at EOF still yields the file's final (empty)
    line when it is the whole file."""
    total = len(buf)
    end = total if end is None else end
    if start >= end:
        if end == total and start == 0:
            yield 0, 0, [b""]
        return
    for s, e in window_bounds(buf, start, end, size):
        yield s, e, split_window(buf[s:e], final=(e == total))


def lines_holding(lines: list[bytes], needles: tuple[bytes, ...]) -> list[int]:
    """Indexes of the `lines` (one window's) that hold one of `needles` literally, found
    by searching the joined window once per needle (`bytes.find`), each hit placed by
    counting terminators since the last, resuming at the next line. No needle may
    hold a line terminator."""
    if any(b"\n" in nd or b"\r" in nd for nd in needles):
        raise ValueError("a needle holds a line terminator")
    joined = b"\n".join(lines)
    hits: set[int] = set()
    for nd in needles:
        pos = line = 0
        while (at := joined.find(nd, pos)) >= 0:
            line += joined.count(b"\n", pos, at)
            hits.add(line)
            nl = joined.find(b"\n", at)
            if nl < 0:
                break
            pos, line = nl + 1, line + 1
    return sorted(hits)


def window_holding(
    data: bytes, final: bool, needles: tuple[bytes, ...]
) -> tuple[int, list[tuple[int, bytes]]]:
    """(how many lines the window has, (index, line) of each line holding a needle), as
    `split_window` and `lines_holding` give them; a window without a CR is searched
    in place, not split (by the accelerator's `marked` where it is built), and a
    needle whose first byte is absent costs one memchr."""
    if b"\r" in data:
        lines = split_window(data, final)
        return len(lines), [(i, lines[i]) for i in lines_holding(lines, needles)]
    if any(b"\n" in nd for nd in needles):
        raise ValueError("a needle holds a line terminator")
    if _c_marked is not None:
        count = data.count(b"\n") + (1 if final else 0)
        return count, [(i, data[a:b]) for i, a, b in _c_marked(data, needles) if i < count]
    counted: tuple[int, int] | None = None  # (lines before byte pos, pos), from a search
    spans: dict[int, tuple[int, int]] = {}
    for nd in needles:
        if data.find(nd[:1]) < 0:
            continue
        pos = line = 0
        while (at := data.find(nd, pos)) >= 0:
            line += data.count(b"\n", pos, at)
            nl = data.find(b"\n", at)
            spans[line] = (data.rfind(b"\n", 0, at) + 1, len(data) if nl < 0 else nl)
            if nl < 0:
                pos = at
                break
            pos, line = nl + 1, line + 1
        counted = counted or (line, pos)
    line, pos = counted or (0, 0)
    count = line + data.count(b"\n", pos) + (1 if final else 0)
    return count, [(i, data[a:b]) for i, (a, b) in sorted(spans.items()) if i < count]


def decode_line(raw: bytes) -> str:
    """A line's text as the reference sees it: UTF-8, invalid bytes replaced, then
    stripped of Python whitespace."""
    return raw.decode("utf-8", "replace").strip()


def count_lines(buf: Buffer, start: int, end: int) -> int:
    """Number of line terminators in [start, end) under universal newlines."""
    data = buf[start:end]
    n = data.count(b"\n")
    cr = data.count(b"\r")
    if cr:
        n += cr - data.count(b"\r\n")
    return n


def line_offsets(
    buf: Buffer, on_progress: Callable[[int, int], object] | None = None
) -> array[int]:
    """Byte offset of the start of every line (1-based line N starts at [N-1]), plus
    a final sentinel len(buf): line N spans [off[N-1], off[N]) including its end, and
    there are len(off) - 1 lines, as in the reference's split. With the C accelerator a
    window is scanned without the GIL, so a thread indexing a large file does not slow
    the interpreter's other threads (the viewer's first screen)."""
    offs = array("q", [0])
    total = len(buf)
    term = re.compile(rb"\r\n|\r|\n")
    for s, e in window_bounds(buf, 0, total):
        data = buf[s:e]
        if _c_line_ends is not None:
            offs.frombytes(_c_line_ends(data, s))
        elif b"\r" in data:
            offs.extend(m.end() + s for m in term.finditer(data))
        else:
            pos = data.find(b"\n")
            ext = offs.append
            while pos >= 0:
                ext(s + pos + 1)
                pos = data.find(b"\n", pos + 1)
        if on_progress:
            on_progress(e, total)
    offs.append(total)
    return offs
