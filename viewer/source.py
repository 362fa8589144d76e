"""A ledger file opened read-only for display: a map, line offsets, rows on demand.

No Textual here: this is the viewer's model of one file. The file is opened `rb` and
mapped ACCESS_READ; nothing is ever written or created next to it. Rows are read and
parsed only when asked for, through a bounded LRU cache (1,024 rows).

What the viewer holds per row of a file, indexed and verified, is 8 bytes: the line's
first byte in `offsets` (one `array('q')`, signed as `lines.line_offsets` builds it,
plus a sentinel; a line is found by bisection). Statuses take no bytes per row: they
are derived when a row is drawn (below). Findings cost 13 bytes each, not per row
(`finding_index.FindingIndex`); a filter's view and a search's matches 8 bytes per
line they hold. Whole-file passes (the index, searches, the marker scan, filters) read
in windows and hand the windows' freed pages back (`release_freed`).

Lines are read by the verifier's reader and get their status by its rules
(`core.rows`: `read_line`, `row_status`, `STATUSES`), from a `VerifyResult`'s findings
and first chained line; a row the verifier refuses for a duplicate key shows that
reason, with no kind.
"""

from __future__ import annotations

import bisect
import json
import mmap
import os
import re
from array import array
from collections import OrderedDict
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sealscope.core import lines as _lines
from sealscope.core import sanitize
from sealscope.core.lazy import load as _lazy_load
from sealscope.core.rows import STATUSES, read_line, row_status
from sealscope.viewer.style import json_text

__all__ = [
    "LedgerSource",
    "RowInfo",
    "STATUSES",
    "summary_of",
    "row_findings",
    "status_of",
    "release_freed",
]


_PAGE = mmap.PAGESIZE
_SCAN_STEP = 4 << 20  # bytes read at a time by a byte search of the whole file


_trim: Callable[[int], int] | None = None


def release_freed() -> None:
    """Give the pages of freed buffers back to the system (glibc's `malloc_trim`; a
    no-op elsewhere). A whole-file pass (the index, a search count, the marker scan, a
    filter) frees a block of megabytes per window in its worker thread's malloc arena,
    which glibc keeps for reuse otherwise: without this the viewer's RSS crept up ~20
    MB with each kind of pass, the size of the blocks, not of the file. Called at the
    end of each pass (a few calls a file, each well under a millisecond)."""
    global _trim
    if _trim is None:
        try:  # ctypes loads on this first call (2 ms), not with the first screen
            libc = _lazy_load("ctypes").CDLL(None)
            _trim = libc.malloc_trim
            # a fixed threshold: a block of a megabyte or more is mapped for itself and
            # unmapped when freed. glibc otherwise raises the threshold to the largest
            # block freed, so later window buffers come from the worker threads' arenas
            # and stay resident there (malloc_trim did not give them back: ~40 MB at
            # 1M rows)
            libc.mallopt(M_MMAP_THRESHOLD, 1 << 20)
        except (OSError, AttributeError, ImportError):
            _trim = lambda _pad: 0  # noqa: E731 - not glibc: nothing to trim
    _trim(0)


M_MMAP_THRESHOLD = -3  # glibc's mallopt parameter


class _ReleasingMap:
    """A view of a read-only mmap for `lines.line_offsets` that drops each window's
    pages from this process's mapping once read (MADV_DONTNEED on a read-only file
    map only unmaps; the page cache keeps them), so indexing a 400 MB file does not
    leave 400 MB resident."""

    def __init__(self, mm):
        self._mm = mm

    def __len__(self) -> int:
        return len(self._mm)

    def find(self, *args):
        return self._mm.find(*args)

    def __getitem__(self, sl):
        data = self._mm[sl]
        if isinstance(sl, slice) and hasattr(self._mm, "madvise") and sl.stop:
            start = (sl.start or 0) // _PAGE * _PAGE
            try:
                self._mm.madvise(mmap.MADV_DONTNEED, start, sl.stop - start)
            except (OSError, ValueError, AttributeError):
                pass
        return data


@dataclass(frozen=True)
class RowInfo:
    """One line, parsed for display."""

    line: int
    raw: str  # decoded, stripped text (unsanitized: sanitize at display)
    state: str  # "object" | "blank" | "unparseable" | "nonobject"
    obj: Any = None
    kind: str = ""
    ts: str = ""
    summary: str = ""  # unsanitized one-line summary
    marks: tuple[str, ...] = ()  # sanitize findings over the row's strings
    duplicate: str | None = None  # the verifier refuses the row: "duplicate key 'k'"


class _LRU(OrderedDict):
    def __init__(self, maxsize: int):
        super().__init__()
        self.maxsize = maxsize

    def get_or(self, key, make):
        try:
            self.move_to_end(key)
            return self[key]
        except KeyError:
            value = make()
            self[key] = value
            if len(self) > self.maxsize:
                self.popitem(last=False)
            return value


def _read_line(n: int, raw: bytes) -> RowInfo:
    """Line `n` read as far as its kind, by the verifier's reader (`rows.read_line`):
    raw text, state, value, kind, and the duplicate key the verifier refuses (no
    summary, no marks). `LedgerSource._make_row` completes it; a scan stops here."""
    got = read_line(raw)
    return RowInfo(n, got.text, got.state, got.value, kind=got.kind, duplicate=got.duplicate)


def _strip_end(data: bytes) -> bytes:
    """A line's bytes without its terminator (`\\r\\n`, `\\n` or `\\r`)."""
    if data.endswith(b"\r\n"):
        return data[:-2]
    if data.endswith((b"\n", b"\r")):
        return data[:-1]
    return data


def _kind_of(raw: bytes) -> str:
    """`_read_line(n, raw).kind`: the kind the verifier's reading gives the line."""
    return read_line(raw).kind


def _strings(value: Any, out: list[str], limit: int = 400, depth: int = 0) -> None:
    """Every string (keys and values) in `value`, up to `limit` of them."""
    if len(out) >= limit or depth > 64:
        return
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for k, v in value.items():
            if isinstance(k, str):
                out.append(k)
            _strings(v, out, limit, depth + 1)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out, limit, depth + 1)


def row_findings(obj: Any, raw: str = "") -> tuple[str, ...]:
    """sanitize findings over every string of a row (and its raw text)."""
    found: list[str] = list(sanitize.findings(raw)) if raw else []
    strs: list[str] = []
    _strings(obj, strs)
    for s in strs:
        for f in sanitize.findings(s):
            if f not in found:
                found.append(f)
    # TAB/LF inside a value matter too when they can rewrite a line's meaning
    return tuple(found)


def _short(v: Any, width: int = 60) -> str:
    s = json_text(v)
    return s if len(s) <= width else s[: width - 1] + "…"


def _given(obj: dict, key: str, width: int = 60) -> str:
    """A member's value for a summary: `?` when absent, else as JSON spells it."""
    return _short(obj[key], width) if key in obj else "?"


def _first_strings(obj: dict, skip: set[str], n: int = 4) -> list[str]:
    out = []
    for k, v in obj.items():
        if k in skip:
            continue
        if isinstance(v, str):
            out.append(f"{k}={v}")
            if len(out) >= n:
                break
    return out


def summary_of(obj: Any, kind: str) -> str:
    """A one-line, unsanitized summary of a row for the list."""
    if not isinstance(obj, dict):
        return _short(obj, 120)
    skip = {"ts", "chain", "kind", "op", "authority"}
    try:
        if kind == "compaction_receipt":
            schema = obj.get("schema")
            ver = schema.rsplit(":", 1)[-1] if isinstance(schema, str) else "?"
            pre, post = obj.get("pre") or {}, obj.get("post") or {}
            dr, intro = obj.get("dropped") or {}, obj.get("introduced") or {}
            g = lambda d, k: _given(d, k, 20) if isinstance(d, dict) else "?"  # noqa: E731
            return (
                f"receipt {ver}: pre {g(pre, 'count')} items/{g(pre, 'bytes')} B → post "
                f"{g(post, 'count')}/{g(post, 'bytes')} B, dropped {g(dr, 'count')} "
                f"({g(dr, 'bytes')} B), introduced {g(intro, 'count')} · "
                f"{_short(obj.get('compactor'), 30)}"
            )
        if kind == "chain_break_declared":
            return f"declares line {_given(obj, 'orphan_line')} broken: {_given(obj, 'why', 80)}"
        if kind == "continuity_snapshot":
            return (
                f"seal {_given(obj, 'label', 30)} · mean {_given(obj, 'aggregate_mean')} · "
                f"{_given(obj, 'manifest_digest', 40)}"
            )
        if kind == "tool" and isinstance(obj.get("tool"), str):
            parts = [obj["tool"]]
            for k, v in obj.items():
                if k in skip or k == "tool":
                    continue
                parts.append(f"{k}={_short(v, 40)}")
                if len(parts) > 4:
                    break
            return " ".join(parts)
    except (AttributeError, TypeError):
        pass
    parts = _first_strings(obj, skip)
    if not parts:
        parts = [f"{k}={_short(v, 30)}" for k, v in list(obj.items())[:4] if k not in skip]
    return " · ".join(parts)


def status_of(info: RowInfo, finding_kind: str | None, first_chained: int, verified: bool) -> str:
    """The status key of one line (`rows.row_status`, the core's rule)."""
    return row_status(info.state, info.line, finding_kind, first_chained, verified)


class LedgerSource:
    """One evidence file, read-only. Construct, then `index()` (slow, in a worker);
    `quick_index()` gives the first lines at once."""

    ROW_CACHE = 1024

    def __init__(self, path: str | os.PathLike):
        self.path = Path(path)
        self.name = self.path.name
        self._fh = None
        self.buf: Any = b""
        self.error: str | None = None
        self.offsets: array = array("q", [0])
        self.complete = False
        self._rows = _LRU(self.ROW_CACHE)
        try:
            # held open for the map (close()); a FIFO or device is refused on the open
            self._fh = _lines.open_regular(self.path)
            self.buf = _lines.open_map(self._fh)
        except (OSError, ValueError) as e:
            self.error = f"{type(e).__name__}: {e}"
            self.buf = b""
        self.size = len(self.buf)
        # whole-file scans read through pread, so their pages are not charged to RSS
        self.scan_buf: Any = (
            _lines.FileSource(self._fh) if self._fh is not None and self.size else self.buf
        )

    def _find_any(self, needles: tuple[bytes, ...], start: int, end: int) -> int:
        """The first position in [start, end) where one of `needles` lies wholly, -1 if
        none: ONE pass for all of them, in windows growing from 64 KiB (a near hit reads
        little) to `_SCAN_STEP`. (One search per needle read the whole file for a needle
        absent from it, such as the escaped form of a non-ASCII word, at every step.)"""
        overlap = max(len(x) for x in needles) - 1
        pos, step = start, max(1 << 16, overlap + 1)
        while pos < end:
            hi = min(end, pos + step)
            block = self.scan_buf[pos : min(end, hi + overlap)]
            hits = [i for i in (block.find(x, 0, hi - pos + len(x) - 1) for x in needles) if i >= 0]
            if hits:
                return pos + min(hits)
            pos, step = hi, max(min(step * 2, _SCAN_STEP), overlap + 1)
        return -1

    def _rfind_any(self, needles: tuple[bytes, ...], start: int, end: int) -> int:
        """The last position in [start, end) where one of `needles` lies wholly, -1 if
        none: one backward pass for all of them, windows as `_find_any`'s."""
        overlap = max(len(x) for x in needles) - 1
        hi, step = end, max(1 << 16, overlap + 1)
        while hi > start:
            lo = max(start, hi - step)
            block = self.scan_buf[lo : min(end, hi + overlap)]
            hits = [i for i in (block.rfind(x) for x in needles) if i >= 0]
            if hits:  # none starts at or after `hi`: the window above had none
                return lo + max(hits)
            hi, step = lo, max(min(step * 2, _SCAN_STEP), overlap + 1)
        return -1

    # ------------------------------------------------------------------ index
    def quick_index(self, max_bytes: int = 1 << 20) -> None:
        """Offsets for the lines wholly inside the first `max_bytes` (exact: the
        prefix is cut just after a `\\n`)."""
        if self.complete or not self.size:
            if not self.size:
                self.offsets, self.complete = array("q", [0, 0]), True
            return
        if self.size <= max_bytes:
            self.index()
            return
        cut = self.buf.rfind(b"\n", 0, max_bytes)
        if cut < 0:
            return
        offs = _lines.line_offsets(self.buf[: cut + 1])
        offs.pop()  # the phantom empty line after the cut; its start is the sentinel
        self.offsets = offs

    def index(self, on_progress: Callable[[int, int], None] | None = None) -> None:
        release_freed()  # before the file's first whole pass: see its threshold
        view = _ReleasingMap(self.buf) if isinstance(self.buf, mmap.mmap) else self.buf
        self.offsets = _lines.line_offsets(view, on_progress)
        self.complete = True
        release_freed()

    @property
    def line_count(self) -> int:
        """Lines as the verifier numbers them: a file ending in a line break has one
        more, empty, line after it."""
        return len(self.offsets) - 1

    @property
    def shown_lines(self) -> int:
        """The lines a reader sees (what an editor or `wc -l` counts): `line_count`
        without the empty line the verifier's split adds after a final line break
        (an empty file has none). The list shows these."""
        lc = self.line_count
        return lc - 1 if lc and self.offsets[lc - 1] == self.size else lc

    def line_of_offset(self, pos: int) -> int:
        """The 1-based line holding byte `pos` (bisect on the offsets)."""
        return max(1, min(self.line_count, bisect.bisect_right(self.offsets, pos)))

    # ------------------------------------------------------------------ growth
    def offsets_to(self, cut: int) -> tuple[array, int]:
        """The line offsets once the file has grown to `cut` (just after a line
        break), and the first line whose bytes are read anew: the lines before the
        last indexed one are kept as they are (a worker calls this; `grow_to`
        installs the result)."""
        offs = self.offsets
        keep = max(0, len(offs) - 2)  # the last indexed line may have been partial
        if keep and self.scan_buf[offs[keep] - 1 : offs[keep]] == b"\r":
            keep -= 1  # ... or its "\r" may have met its "\n"
        start = offs[keep]
        src = _lines.FileSource(self._fh) if self._fh is not None else self.scan_buf
        tail = _lines.line_offsets(src[start:cut])
        out = offs[:keep]
        out.extend(start + o for o in tail)
        return out, keep + 1

    def grow_to(self, offsets: array, first: int, cut: int) -> None:
        """Install what `offsets_to(cut)` computed: lines from `first` on are read
        again (their cached rows are dropped)."""
        self.offsets, self.size, self.complete = offsets, cut, True
        if hasattr(self.scan_buf, "size"):
            self.scan_buf.size = cut
        for n in [n for n in self._rows if n >= first]:
            del self._rows[n]

    # ------------------------------------------------------------------ rows
    def raw_bytes(self, n: int) -> bytes:
        if not 1 <= n <= self.line_count:
            return b""
        return _strip_end(self.scan_buf[self.offsets[n - 1] : self.offsets[n]])

    def row(self, n: int) -> RowInfo:
        return self._rows.get_or(n, lambda: self._make_row(n))

    def _make_row(self, n: int) -> RowInfo:
        info = _read_line(n, self.raw_bytes(n))
        if info.state == "unparseable":
            return RowInfo(n, info.raw, "unparseable", marks=sanitize.findings(info.raw))
        if info.state == "nonobject":
            return RowInfo(
                n,
                info.raw,
                "nonobject",
                info.obj,
                summary=_short(info.obj, 120),
                marks=row_findings(info.obj),
            )
        if info.state != "object":
            return info
        obj, kind = info.obj, info.kind
        ts = obj.get("ts")
        summary = (
            f"{info.duplicate}: the verifier refuses this row"
            if info.duplicate
            else summary_of(obj, kind)
        )
        return RowInfo(
            n,
            info.raw,
            "object",
            obj,
            kind=kind,
            ts=ts if isinstance(ts, str) else ("" if ts is None else _short(ts, 20)),
            summary=summary,
            marks=row_findings(obj),
            duplicate=info.duplicate,
        )

    # ------------------------------------------------------------------ search
    @staticmethod
    def _patterns(needle: str) -> set[bytes]:
        """The bytes a search for `needle` looks for: its UTF-8, and its JSON-escaped
        ASCII form."""
        return {needle.encode("utf-8", "surrogatepass"), json.dumps(needle)[1:-1].encode("ascii")}

    def find_text(self, needle: str, start_line: int, backwards: bool = False) -> int | None:
        """The next (or previous) line after `start_line` whose bytes contain `needle`
        (UTF-8, or its JSON-escaped ASCII form), wrapping around; None if absent."""
        if not needle or not self.size:
            return None
        pats = tuple(self._patterns(needle))
        lc = self.line_count
        if not backwards:
            begin = self.offsets[min(start_line, lc)]
            pos = self._find_any(pats, begin, self.size)
            if pos < 0:
                pos = self._find_any(pats, 0, begin)
            return self.line_of_offset(pos) if pos >= 0 else None
        end = self.offsets[max(0, start_line - 1)]
        pos = self._rfind_any(pats, 0, end)
        if pos < 0:
            pos = self._rfind_any(pats, end, self.size)
        return self.line_of_offset(pos) if pos >= 0 else None

    def match_lines(self, needle: str, cancelled: Callable[[], bool] = lambda: False) -> array:
        """Every line `find_text` can stop on for `needle`, in order: the indexed lines
        holding one of its `_patterns`, found window by window (`_hit_lines`). Costs 8
        bytes a matching line; no set of every hit is built (a common word on a
        10M-row file matches millions of lines)."""
        out = array("q")
        if needle and self.size and self.line_count:
            for n, _block, _pos in self._hit_lines(tuple(self._patterns(needle)), cancelled):
                out.append(n)
            release_freed()
        return out

    def receipt_lines(self, cancelled: Callable[[], bool] = lambda: False) -> list[int]:
        """Lines whose bytes mention `compaction_receipt` and parse as receipt rows."""
        return [n for n, _r in self.marked_rows(cancelled).get("compaction_receipt", [])]

    MARKED_KINDS = (b"compaction_receipt", b"continuity_snapshot")

    def marked_rows(
        self,
        cancelled: Callable[[], bool] = lambda: False,
        first: int = 1,
        keep: Callable[[str, int, Any], Any] | None = None,
    ) -> dict[str, list[tuple[int, Any]]]:
        """{kind: [(line, row)]} for the receipt and seal rows (`MARKED_KINDS`) from
        line `first` on: ONE windowed pass over those bytes for both names, then only
        the lines that mention one are parsed (not cached: receipts can be large).
        With `keep`, each row is replaced by `keep(kind, line, row)` as it is found, so
        only that is held (a 10M-row ledger has 20,000 receipts: held whole they cost
        ~12 bytes a row of the file, and the allocator keeps the pages after); a row
        for which `keep` gives None is not listed (the caller kept what it needs, e.g.
        in columns: no object per row survives the pass)."""
        out: dict[str, list[tuple[int, Any]]] = {k.decode(): [] for k in self.MARKED_KINDS}
        if not self.size or not 1 <= first <= self.line_count:
            return out
        pat = re.compile(b"|".join(re.escape(k) for k in self.MARKED_KINDS))
        overlap = max(len(k) for k in self.MARKED_KINDS) - 1
        step, pos, seen = 4 << 20, self.offsets[first - 1], -1
        while pos < self.size and not cancelled():
            block = self.scan_buf[pos : min(self.size, pos + step + overlap)]
            for m in pat.finditer(block):
                n = self.line_of_offset(pos + m.start())
                if n <= seen:
                    continue
                seen = n
                info = _read_line(n, self.raw_bytes(n))  # the kind and value only
                if info.kind in out:
                    kept = info.obj if keep is None else keep(info.kind, n, info.obj)
                    if kept is not None:
                        out[info.kind].append((n, kept))
            pos += step
        release_freed()
        return out

    def _hit_lines(
        self,
        needles: tuple[bytes, ...],
        cancelled: Callable[[], bool],
        on_progress: Callable[[int, int], None] | None = None,
    ) -> Iterator[tuple[int, bytes, int]]:
        """(line, window, window start) for each indexed line, once and in order, where
        one of `needles` begins (wholly inside the indexed bytes), found by a windowed
        byte search (nothing parsed; a hit moves the search on to the next line);
        `on_progress(done, total)` in bytes after each window. Stops early once
        `cancelled()`. Only one window's hits are held at a time."""
        needles = tuple(x for x in needles if x)
        if not self.size or not needles:
            return
        offsets, last = self.offsets, self.line_count
        limit = offsets[last]  # the end of the indexed lines
        overlap = max(len(x) for x in needles) - 1
        pos, seen = 0, 0
        while pos < limit:
            if cancelled():
                return
            end = min(limit, pos + _SCAN_STEP)
            block = self.scan_buf[pos : min(limit, end + overlap)]
            found: set[int] = set()
            for x in needles:
                i = block.find(x, 0, end - pos + len(x) - 1)
                while i >= 0:
                    n = min(last, bisect.bisect_right(offsets, pos + i))
                    found.add(n)
                    # the rest of this line adds nothing: search on from the next one
                    i = block.find(x, max(i + 1, offsets[n] - pos), end - pos + len(x) - 1)
            for n in sorted(found):
                if n > seen:
                    seen = n
                    yield n, block, pos
            pos = end
            if on_progress is not None:
                on_progress(pos, limit)

    def candidate_lines(
        self,
        needles: tuple[bytes, ...],
        cancelled: Callable[[], bool] = lambda: False,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> Iterator[tuple[int, bytes]]:
        """(line, bytes as `raw_bytes` gives them) for each line, once and in order,
        whose bytes hold one of `needles`, found by a windowed byte search of the file
        (`_hit_lines`: nothing parsed); `on_progress(done, total)` in bytes after each
        window. Stops early once `cancelled()`. Needs the complete index."""
        offsets = self.offsets
        for n, block, pos in self._hit_lines(needles, cancelled, on_progress):
            lo, hi = offsets[n - 1] - pos, offsets[n] - pos
            yield (
                n,
                (_strip_end(block[lo:hi]) if lo >= 0 and hi <= len(block) else self.raw_bytes(n)),
            )

    def kind_lines(
        self,
        kind: str,
        cancelled: Callable[[], bool] = lambda: False,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> array:
        """The lines whose row kind (`RowInfo.kind`, as the list shows it) is `kind`,
        equal to parsing every line, found fast: a row of kind K spells K in its line
        (as `kind`'s or `op`'s value, or the `tool` key for "tool") between quotes,
        literally or through a JSON escape, so only lines holding `"K"` in UTF-8 or a
        backslash are parsed. A kind that cannot be spelled so (empty, holding a `"`
        or U+FFFD, which an invalid byte also decodes to) parses every line."""
        try:
            needle = b'"' + kind.encode("utf-8") + b'"'
        except UnicodeEncodeError:
            needle = b""
        if not kind or "\ufffd" in kind or '"' in kind or not needle:
            return self.scan(lambda _n, info: info.kind == kind, cancelled, on_progress)
        out = array("q")
        for n, raw in self.candidate_lines((needle, b"\\"), cancelled, on_progress):
            if _kind_of(raw) == kind:
                out.append(n)
        release_freed()
        return out

    def scan(
        self,
        pred: Callable[[int, RowInfo], bool],
        cancelled: Callable[[], bool] = lambda: False,
        on_progress: Callable[[int, int], None] | None = None,
    ) -> array:
        """Lines for which pred(line, info) holds; `info` is read without the cache
        and without its summary and marks (line, raw text, state, value, kind)."""
        out = array("q")
        lc = self.shown_lines
        for n in range(1, lc + 1):
            if n % 20000 == 0:
                if cancelled():
                    break
                if on_progress:
                    on_progress(n, lc)
            info = self._rows.get(n) or _read_line(n, self.raw_bytes(n))
            if pred(n, info):
                out.append(n)
        if on_progress and not cancelled():
            on_progress(lc, lc)
        release_freed()
        return out

    # ------------------------------------------------------------------ lifecycle
    def stat(self) -> tuple[int, int] | None:
        try:
            st = os.stat(self.path)
            return st.st_size, st.st_mtime_ns
        except OSError:
            return None

    def close(self) -> None:
        try:
            if hasattr(self.buf, "close"):
                self.buf.close()
        except (BufferError, ValueError):
            pass
        if self._fh is not None:
            self._fh.close()
            self._fh = None
