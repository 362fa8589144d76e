"""Following a ledger as it grows: each poll walks only the complete lines appended
since the last one, from the saved walk state, and says what changed.

The verdict is always that of the file up to its last line break (a writer may be
mid-line; the partial line waits for its break); `Follower.final` is how the file
ends, `verify`'s verdict of it with that partial line as its last line. A file that
shrinks, is replaced at its path (another inode) or whose verified bytes change is
caught: the bytes just before the cut are compared on every poll, the whole prefix is
re-hashed periodically, when the file changes without growing, and when an appended row does
not chain from the verified head. Once caught, the verdict stays BROKEN ("latched")
and the file is no longer followed. Frontends poll; this module never sleeps.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sealscope.core import checkpoint as _cp
from sealscope.core import chunk_digest as _chunks
from sealscope.core import ledger
from sealscope.core import lines as _lines
from sealscope.core.ledger import VerifyResult
from sealscope.core.receipt import KIND, is_receipt_row, verify_receipt
from sealscope.core.rows import row_value

__all__ = ["Event", "Follower", "Final", "ALARMS", "SEAM", "REHASH_SECONDS"]

SEAM = 4096  # bytes before the cut compared on every poll
REHASH_SECONDS = 30.0  # the whole verified prefix re-hashed at least this often
ALARMS = ("truncated", "replaced", "rewritten", "unreadable")
_RECEIPT_B = KIND.encode()


@dataclass(frozen=True)
class Event:
    """What one poll saw. kind: "grew" (rows appended: `rows` new, `line` the last
    complete line), "break" / "declared" (a new finding at `line`), "receipt" (a
    compaction receipt row at `line`, `text` its check), or an alarm in ALARMS
    (`rows` = rows gone for "truncated")."""

    kind: str
    text: str
    line: int = 0
    rows: int = 0


@dataclass(frozen=True)
class Final:
    """How a followed file ends (`Follower.final`): `result` is the verdict `verify`
    gives the whole file now, a last line without its break included (while following,
    that line waits; once the watch ends it is part of the file); `partial` the bytes
    of that last line (0 when the file ends with a line break)."""

    result: VerifyResult
    partial: int = 0


HASH_SHARE = 8  # walking a byte costs about this many times hashing it (chunks on 2 threads)


def _shares(
    on_progress: ledger.ProgressFn | None, size: int
) -> tuple[ledger.ProgressFn | None, Callable[[int], None] | None]:
    """Split one progress report over `open`'s two passes: the walk, then hashing the
    prefix for later polls, each weighted by what it costs, so the bar keeps moving
    while the prefix is hashed instead of resting at the walk's end."""
    if on_progress is None:
        return None, None
    report = on_progress
    total = size + size // HASH_SHARE

    def walk(done: int, _size: int) -> None:
        report(done, total)

    def hashed(done: int) -> None:
        report(size + done // HASH_SHARE, total)

    return walk, hashed


class _Fd:
    def __init__(self, fd: int):
        self._fd = fd

    def fileno(self) -> int:
        return self._fd


class Follower:
    """One ledger, followed. `open()` walks it once; `poll()` takes what was appended.
    `result` is the verdict of the complete lines so far (BROKEN once an alarm
    latched); `whole` the verdict `verify` gave at open, a last line without its
    break included; `rows_added` counts rows appended since `open()`."""

    def __init__(
        self,
        path: str | os.PathLike[str],
        *,
        strict: bool = False,
        rehash_seconds: float = REHASH_SECONDS,
        clock: Callable[[], float] = time.monotonic,
    ):
        self.path = str(path)
        self.strict = strict
        self.rehash_seconds = rehash_seconds
        self.clock = clock
        self.fd: int | None = None
        self.state: ledger.WalkState | None = None
        self.result: VerifyResult | None = None
        self.whole: VerifyResult | None = None  # at open: `verify` of the whole file
        self.alarm: Event | None = None
        self.rows_added = 0
        self._ident = (0, 0)
        self._size = self._mtime = 0
        self._roll = _chunks.Rolling()  # the chunk digests of the verified prefix
        self._seam = b""
        self._hashed_at = 0.0

    # ------------------------------------------------------------------ lifecycle

    def _unreadable(self, e: OSError) -> VerifyResult:
        """The file cannot be opened: the unreadable verdict, and the alarm latched."""
        self.result = ledger._unreadable(e)
        self.alarm = Event("unreadable", str(e))
        return self.result

    def open(
        self, on_progress: ledger.ProgressFn | None = None, workers: int | None = None
    ) -> VerifyResult:
        """Open and walk the whole file; the verdict of its complete lines. An
        unreadable file latches the "unreadable" alarm."""
        try:
            self.fd = _lines.regular_fd(self.path)
            st = os.fstat(self.fd)
        except OSError as e:
            return self._unreadable(e)
        self._ident, self._size, self._mtime = (st.st_dev, st.st_ino), st.st_size, st.st_mtime_ns
        buf = self._source()
        cut = _cp.line_cut(buf, 0, len(buf))
        walk_p, hash_p = _shares(on_progress, len(buf))
        # the follower hashes the prefix by chunks itself (below): no span digests
        walked = ledger.walk_span(
            buf,
            strict=self.strict,
            cut=cut,
            on_progress=walk_p,
            workers=workers,
            hash_spans=False,
        )
        self.state = walked.state
        self.whole = walked.result
        self.result = ledger.state_result(walked.state)
        self._roll = _chunks.Rolling.hashed(self.fd, cut, on_hashed=hash_p)
        if hash_p is not None:
            hash_p(len(buf))
        self._seam = os.pread(self.fd, min(SEAM, cut), cut - min(SEAM, cut))
        self._hashed_at = self.clock()
        return self.result

    def snapshot(self) -> dict[str, Any]:
        """What `open()` learnt, picklable, for a follower in another process (the
        viewer verifies in a child) to `adopt` without walking again."""
        assert self.state is not None
        return {
            "state": self.state,
            "ident": self._ident,
            "size": self._size,
            "mtime": self._mtime,
            "chunks": self._roll.digests(),
        }

    def adopt(self, snap: dict[str, Any]) -> VerifyResult:
        """Follow from another follower's `snapshot()`: the file must still be the
        same inode with the same verified bytes (re-hashed here, chunk by chunk), else
        the alarm."""
        try:
            self.fd = _lines.regular_fd(self.path)
            st = os.fstat(self.fd)
        except OSError as e:
            return self._unreadable(e)
        state = snap["state"]
        self.state = state
        self._ident, self._size, self._mtime = snap["ident"], snap["size"], snap["mtime"]
        self.result = ledger.state_result(state)
        if (st.st_dev, st.st_ino) != self._ident:
            self._latch(Event("replaced", "another file is at the path"))
            return self.result
        if st.st_size < state.offset:
            self._truncated(st.st_size)
            return self.result
        cut = state.offset
        self._roll = _chunks.Rolling.hashed(self.fd, cut)
        self._seam = os.pread(self.fd, min(SEAM, cut), cut - min(SEAM, cut)) if SEAM else b""
        self._hashed_at = self.clock()
        if self._roll.digests() != list(snap["chunks"]):
            self._latch(Event("rewritten", "the verified bytes changed after they were verified"))
        return self.result

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None

    def _source(self) -> _lines.FileSource:
        assert self.fd is not None
        return _lines.FileSource(_Fd(self.fd))  # type: ignore[arg-type]

    # ------------------------------------------------------------------ polling

    def poll(self) -> list[Event]:
        """Check the file once: alarms first, then the rows appended since the last
        poll. Returns nothing once an alarm has latched."""
        if self.alarm is not None or self.fd is None or self.state is None:
            return []
        try:
            return self._poll()
        except OSError as e:
            return [self._latch(Event("unreadable", f"the file could not be read: {e}"))]

    def _poll(self) -> list[Event]:
        state = self.state
        assert state is not None and self.fd is not None
        try:
            now = os.stat(self.path)
            here = (now.st_dev, now.st_ino)
        except FileNotFoundError:
            here = None
        if here != self._ident:
            what = (
                "the file was removed from its path"
                if here is None
                else f"another file is at the path (inode {self._ident[1]} → {here[1]})"
            )
            return [self._latch(Event("replaced", what))]
        st = os.fstat(self.fd)
        if st.st_size < state.offset:
            return [self._truncated(st.st_size)]
        seam = os.pread(self.fd, len(self._seam), state.offset - len(self._seam))
        due = self.clock() - self._hashed_at >= self.rehash_seconds
        still = st.st_size == self._size and st.st_mtime_ns != self._mtime
        if seam != self._seam or due or still:
            caught = self._rehash()
            if caught is not None:
                return [caught]
        self._size, self._mtime = st.st_size, st.st_mtime_ns
        buf = self._source()
        cut = _cp.line_cut(buf, state.offset, len(buf))
        if cut <= state.offset:
            return []
        walked = ledger.walk_span(buf, strict=self.strict, cut=cut, state=state)
        data = buf[state.offset : cut]
        new = walked.state
        events: list[Event] = []
        old_keys = set(state.findings) if walked.restarted else None
        mismatch = False
        for n, kind, text in new.findings:
            if (n > state.lines) if old_keys is None else ((n, kind, text) not in old_keys):
                events.append(Event(kind, text, n))
                mismatch = mismatch or "chain mismatch" in text
        events.extend(self._receipts(data, state.lines))
        events.sort(key=lambda e: e.line)
        if mismatch:  # an appended row that does not chain: was the prefix rewritten?
            caught = self._rehash()
            if caught is not None:
                return [caught]
        self._roll.update(data)
        self._seam = (self._seam + data)[-SEAM:] if SEAM else b""
        grown = new.rows - state.rows
        self.rows_added += grown
        self.state = new
        self.result = ledger.state_result(new)
        return [Event("grew", f"{grown} new rows", new.lines, grown)] + events

    def _receipts(self, data: bytes, n: int) -> list[Event]:
        out = []
        for s, e in _lines.window_bounds(data, 0, len(data)):
            for raw in _lines.split_window(data[s:e], False):
                n += 1
                if _RECEIPT_B not in raw and b"\\u" not in raw:
                    continue
                try:
                    row = row_value(_lines.decode_line(raw), raw)
                except ValueError:
                    continue
                if is_receipt_row(row):
                    chk = verify_receipt(row)
                    word = "verified" if chk.ok else "does not verify"
                    out.append(
                        Event(
                            "receipt",
                            f"line {n}: compaction receipt {word} (scope {chk.verified_scope})",
                            n,
                        )
                    )
        return out

    def final(self) -> Final | None:
        """The file's verdict as `verify` gives it, after one last `poll`: once an
        alarm latched, the latched verdict; else the complete lines' verdict, with a
        partial last line (bytes after the last line break) walked as the file's last
        line, as `verify` walks it. None when the file was never opened."""
        self.poll()
        if self.result is None or self.alarm is not None or self.state is None or self.fd is None:
            return None if self.result is None else Final(self.result)
        buf = self._source()
        tail = len(buf) - self.state.offset
        if tail <= 0:
            return Final(self.result)
        try:
            walked = ledger.walk_span(
                buf, strict=self.strict, cut=self.state.offset, state=self.state
            )
        except OSError as e:
            return Final(self._latch_result(e), 0)
        return Final(walked.result, tail)

    def _latch_result(self, e: OSError) -> VerifyResult:
        self._latch(Event("unreadable", f"the file could not be read: {e}"))
        assert self.result is not None
        return self.result

    # ------------------------------------------------------------------ hashing

    def _rehash(self) -> Event | None:
        """Re-hash [0, cut) from disk; the "rewritten" alarm naming the first changed
        chunk when it differs from what was verified."""
        assert self.state is not None and self.fd is not None
        self._hashed_at = self.clock()
        cut = self.state.offset
        now = _chunks.digests(self.fd, cut)
        # the file may have changed again while hashed: the first chunk that differs
        i = _chunks.first_differing(self._roll.digests(), now)
        if i is None:
            return None
        where = _chunks.chunk_text(i, cut)
        return self._latch(Event("rewritten", f"prefix changed in bytes {where}"))

    def _truncated(self, size: int) -> Event:
        assert self.state is not None and self.fd is not None
        buf = self._source()
        now = ledger.walk_span(
            buf, strict=self.strict, cut=_cp.line_cut(buf, 0, len(buf))
        ).state.rows
        gone = max(0, self.state.rows - now)
        return self._latch(
            Event(
                "truncated",
                f"{gone:,} rows gone (file shrank from {self.state.offset:,} to {size:,} bytes)",
                rows=gone,
            )
        )

    def _latch(self, ev: Event) -> Event:
        self.alarm = ev
        assert self.result is not None
        self.result = _cp.changed_result(self.result, f"{ev.kind} while open: {ev.text}")
        return ev
