"""An evidence pack's records.jsonl read as a stream (KINDS.md §8.2): what every check
re-derives from it gathered in one pass, with memory bounded by the longest line, and
work linear in its bytes.

A line of whitespace alone (ASCII space, tab, CR, LF, VT, FF) is no row for any
reader of the records (the tolerant reader strips it to nothing, the strict one
cannot parse it), so runs of such lines are skipped in bulk — counted, never
parsed (`nonblank_lines`).

One pass (`RecordsFacts.read`) gives, by the rules `pack_derive` states: the sha256 of
the bytes read; the tolerant row read (object rows, unreadable lines, event counts,
first and last `ts`, unknown event types) and the last object row's chain; the newest
readable `ts`; and, when the manifest's window can be read, the window selected
again (`Selected`: its rows' count, first and last line, the names they carry, a
digest of its line numbers, the unplaced lines). The chains at given object-row counts
(the pins) take a pass of their own over the records split on universal newlines
(`chains_at`).
"""

from __future__ import annotations

import hashlib
import json
import re
import struct
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, Any

from sealscope.core import ledger as _ledger
from sealscope.core.chain import _DECLARE_OP_B
from sealscope.core.checks import pack_derive as D
from sealscope.core.ledger import GENESIS, VerifyResult
from sealscope.core.ledger import _finish as _ledger_finish
from sealscope.core.walk import _Walk

__all__ = [
    "nonblank_lines",
    "Selected",
    "RecordsFacts",
    "chains_at",
    "line_digest",
    "add_line",
    "verify_stream",
]

_CHUNK = 1 << 20
_NONBLANK = re.compile(rb"[^ \t\r\n\x0b\x0c]")
_UNIVERSAL = re.compile(rb"[^\r\n]+")


def chunks_of(fh: IO[bytes], on_bytes: Callable[[bytes], None] | None = None) -> Iterator[bytes]:
    """The file's bytes in blocks, each also given to `on_bytes` (a hash's update)."""
    for block in iter(lambda: fh.read(_CHUNK), b""):
        if on_bytes is not None:
            on_bytes(block)
        yield block


def _blocks(chunks: Iterable[bytes]) -> Iterator[tuple[bytes, bool]]:
    """(block, final): blocks that each end just after an LF, then the piece after
    the last LF (final, possibly empty). A line longer than a chunk is joined once."""
    pending: list[bytes] = []
    for chunk in chunks:
        cut = chunk.rfind(b"\n")
        if cut < 0:
            pending.append(chunk)
            continue
        head = chunk[: cut + 1]
        yield (b"".join([*pending, head]) if pending else head), False
        pending = [chunk[cut + 1 :]] if cut + 1 < len(chunk) else []
    yield b"".join(pending), True


def nonblank_lines(
    chunks: Iterable[bytes], total: list[int] | None = None
) -> Iterator[tuple[int, bytes]]:
    """(line number, line) of each line not of whitespace alone, split on LF only (a
    CR kept, the LF dropped; the piece after the last LF a line when not empty).
    At the end, `total` (when given) gets the number of lines, blank ones included."""
    n = 0
    for data, final in _blocks(chunks):
        pos, end = 0, len(data)
        while pos < end:
            m = _NONBLANK.search(data, pos)
            if m is None:
                n += data.count(b"\n", pos, end) + (1 if final else 0)
                break
            q = m.start()
            start = data.rfind(b"\n", pos, q) + 1 or pos
            n += data.count(b"\n", pos, start) + 1
            stop = data.find(b"\n", q)
            if stop < 0:  # the final piece, after the last LF
                yield n, data[start:]
                break
            yield n, data[start:stop]
            pos = stop + 1
    if total is not None:
        total.append(n)


def line_digest() -> Any:
    """The digest a sequence of line numbers is compared by (`add_line`)."""
    return hashlib.sha256()


def add_line(h: Any, n: Any) -> bool:
    """Add line number `n` to digest `h`; False when `n` is no integer value (it
    then equals no line number a selection holds)."""
    if isinstance(n, float) and n.is_integer():
        n = int(n)
    if not isinstance(n, int) or not -(2**63) <= n < 2**63:
        return False
    h.update(struct.pack("<q", n))
    return True


@dataclass
class Selected:
    """The window selected again: what the checks compare and the README shows."""

    count: int = 0
    first_line: int | None = None
    last_line: int | None = None
    names: list[str] = field(default_factory=list)
    unplaced: list[int] = field(default_factory=list)
    digest: Any = field(default_factory=line_digest)

    @classmethod
    def of(cls, window: list[dict[str, Any]]) -> Selected:
        """What a selection keeps of window rows `{"line", "raw"}`."""
        sel = cls()
        for r in window:
            sel.add(r["line"], json.loads(r["raw"]))
        return sel

    def add(self, n: int, row: dict[str, Any]) -> None:
        self.count += 1
        if self.first_line is None:
            self.first_line = n
        self.last_line = n
        add_line(self.digest, n)
        for key in ("agent", "system_id"):
            v = row.get(key)
            if isinstance(v, str) and v and v not in self.names:
                self.names.append(v)


class _Deep:
    """A line nesting past the parser's depth."""


_DEEP = _Deep()


def _parse(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return None
    except RecursionError:
        return _DEEP


@dataclass
class RecordsFacts:
    """What one pass over records.jsonl gives (the module docstring)."""

    sha256: str = ""
    rows: int = 0
    unreadable: int = 0
    counts: dict[str, int] = field(default_factory=dict)
    first_ts: str | None = None
    last_ts: str | None = None
    unknown: set[str] = field(default_factory=set)
    last_chain: Any = GENESIS
    newest: datetime | None = None
    selected: Selected | None = None
    #: a line the window's strict reader could not parse for depth: selecting raises
    deep_in_window: bool = False

    def summary(self) -> dict[str, Any]:
        """The tolerant read's summary, as `pack_derive.summarise` words it."""
        return {
            "counts": self.counts,
            "first_ts": self.first_ts,
            "last_ts": self.last_ts,
            "unknown_event_types": sorted(self.unknown),
        }

    def _tolerant(self, obj: Any) -> None:
        if not isinstance(obj, dict):
            self.unreadable += 1
            return
        self.rows += 1
        ev = obj.get("event", "?")
        ev = ev if isinstance(ev, str) else str(ev)
        self.counts[ev] = self.counts.get(ev, 0) + 1
        if ev not in D.EVENT_TYPES:
            self.unknown.add(ev)
        ts = obj.get("ts")
        if isinstance(ts, str) and ts:
            self.first_ts = ts if self.first_ts is None else min(self.first_ts, ts)
            self.last_ts = ts if self.last_ts is None else max(self.last_ts, ts)
        self.last_chain = obj.get("chain") or GENESIS

    def _strict(self, n: int, row: dict[str, Any], window: tuple[Any, Any, Any] | None) -> None:
        ts_text = row.get("ts")
        ts = D.when_or_none(ts_text)
        if ts is not None and (self.newest is None or ts > self.newest):
            self.newest = ts
        if window is None or self.selected is None:
            return
        agent, since, until = window
        if agent is not None and agent not in (row.get("agent"), row.get("system_id")):
            return
        if since is not None or until is not None:
            if ts is None:
                self.selected.unplaced.append(n)
                return
            if (since is not None and ts < since) or (until is not None and ts > until):
                return
        self.selected.add(n, row)

    @classmethod
    def read(cls, fh: IO[bytes], window: tuple[Any, Any, Any] | None) -> RecordsFacts:
        """One pass over the open records file; `window` the manifest's (agent,
        since, until), None when it cannot be read (nothing is selected)."""
        facts = cls(selected=Selected() if window is not None else None)
        h = hashlib.sha256()
        for n, line in nonblank_lines(chunks_of(fh, h.update)):
            stripped = line.strip()
            obj = _parse(stripped.decode("utf-8", errors="replace"))
            facts._tolerant(obj if obj is not _DEEP else None)
            try:
                text = line.decode("utf-8")
            except UnicodeDecodeError:
                continue
            strict = obj if len(stripped) == len(line) else _parse(text)  # the same text
            if strict is _DEEP:
                facts.deep_in_window = True
            elif isinstance(strict, dict):
                facts._strict(n, strict, window)
        facts.sha256 = h.hexdigest()
        return facts


def verify_stream(open_records: Callable[[], IO[bytes]], max_bytes: int) -> VerifyResult:
    """The ledger chain walk (`ledger.verify`'s rule, non-strict) over a stream, one
    block at a time: memory bounded by the longest line. A file that holds a break
    declaration's op is walked again whole from memory (up to `max_bytes`), as
    `ledger.verify_bytes` walks it, since a declaration may excuse a line before it."""
    w = _Walk(False, {})
    n = 0
    with open_records() as fh:
        for data, final in _blocks(chunks_of(fh)):
            if _DECLARE_OP_B in data:
                break
            n = w.walk_window(data, final, n)
        else:
            return _ledger_finish(w, False, {}, n)
    with open_records() as fh:
        return _ledger.verify_bytes(fh.read(max_bytes + 1))


def chains_at(fh: IO[bytes], wanted: set[int]) -> dict[int, Any]:
    """The `chain` of the n-th object row for each wanted n ≥ 1 that the records
    reach (lines split on CR, LF or CRLF, decoded with replacement, stripped,
    parsed; blank lines and lines that do not parse skipped)."""
    got: dict[int, Any] = {}
    if not wanted:
        return got
    count, top = 0, max(wanted)
    for data, _final in _blocks(chunks_of(fh)):
        for m in _UNIVERSAL.finditer(data):
            piece = m.group().strip()
            if not piece:
                continue
            obj = _parse(piece.decode("utf-8", errors="replace"))
            if isinstance(obj, dict):
                count += 1
                if count in wanted:
                    got[count] = obj.get("chain")
                    if count >= top:
                        return got
    return got
