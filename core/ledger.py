"""Hash-chained JSONL ledgers: the chain rule, verification, and the writer.

A row's chain is the first 32 hex of sha256(prev + BODY), BODY being the row without
`chain` dumped with sorted keys and default separators, encoded UTF-8/surrogatepass;
the first chained row chains from `genesis`. Verification walks every line and
returns a `VerifyResult` value; it never raises for any file.
"""
from __future__ import annotations

import hashlib
import os
import stat
import time
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from collections.abc import Callable, Iterable, Iterator, Sequence
from array import array
from typing import Any, BinaryIO, NamedTuple, overload

import orjson

try:  # optional C accelerator: same bodies, computed from the bytes in one pass
    from sealscope.core._fastrow import body as _fast_body
    from sealscope.core._fastrow import run as _fast_run
    _c_body: Callable[[bytes], tuple[bytes, str] | None] | None = _fast_body
    _c_run: RunFn | None = _fast_run
except ImportError:  # pragma: no cover - no compiler at install time
    _c_body = _c_run = None
if os.environ.get("SEALSCOPE_PURE_PYTHON"):  # measure or test the Python paths alone
    _c_body = _c_run = None

from sealscope.core import lines as _lines
from sealscope.core import verdict as _verdict
from sealscope.core.clock import utc_stamp
from sealscope.core.jsonio import dumps_body, dumps_row, encode_body
from sealscope.core.nesting import near_limit, read_declaration, read_row, read_value, row_body

# the accelerator's run: (window, offset, prev, sha256) -> (offset, last chain, rows)
RunFn = Callable[[bytes, int, bytes, Callable[[bytes], Any]], tuple[int, "str | None", int]]

__all__ = ["GENESIS", "CHAIN_LEN", "DECLARE_OP", "Finding", "Findings", "VerifyResult", "link",
           "verify", "verify_bytes", "append", "authority", "declare_break", "chain_at",
           "tail_chain",
           "LedgerWriteError", "iter_rows", "WalkState", "Walked", "walk_span",
           "state_result", "Mismatch", "explain_mismatch", "explain_mismatches", "CONTENT_CHANGED",
           "EARLIER_OR_ORDER", "UNDETERMINED"]

GENESIS = "genesis"
CHAIN_LEN = 32
DECLARE_OP = "chain_break_declared"
_DECLARE_OP_B = DECLARE_OP.encode()

ProgressFn = Callable[[int, int], None]
Declared = dict[int, dict[str, Any]]  # declarations by the line they excuse
RunJobs = Callable[[list[tuple[Any, ...]]], Iterator[dict[str, Any]]]  # worker pool


def link(prev: Any, row: dict[str, Any]) -> str:
    """The chain link of `row` after `prev` (a non-string prev is `str()`-ed)."""
    return _link_of(prev, dumps_body({k: v for k, v in row.items() if k != "chain"}))


def _link_of(prev: Any, body: str) -> str:
    """First 32 hex of sha256(prev + body), UTF-8 with surrogatepass."""
    return hashlib.sha256(encode_body(str(prev) + body)).hexdigest()[:CHAIN_LEN]


# --------------------------------------------------------------------------- results

class Finding(NamedTuple):
    """One line's verdict beyond "ok": a break, or a break excused by a declaration."""
    line: int
    kind: str      # "break" | "declared"
    text: str      # the reference's message, e.g. "line 4: chain mismatch"


_KIND_CODE = {"break": 0, "declared": 1}
_KIND_NAME = ("break", "declared")
TEXT_TABLE_MAX = 4096  # distinct break messages kept as text; the rest re-derivable


class Findings(Sequence[Finding]):
    """Every finding of a walk, kept compactly so memory does not grow with the number
    of breaks as objects would: line numbers in an array, kinds in a byte array, and
    each message (the text after `line N: `) as an index into a table of the distinct
    messages. A million `chain mismatch` rows cost 17 bytes each, not ~350.

    The table keeps the first TEXT_TABLE_MAX distinct break messages (a hostile file
    can make every message distinct, e.g. a new duplicate key per row); a later break
    with a message not in it is kept by line and kind, its text saying so (the row
    itself tells again what broke: `explain_mismatch`, the viewer). Declared breaks
    always keep their text (each needs a declaration row of its own, and the verdict
    lists them). Reads as a sequence of `Finding`s in line order once the walk sorted
    it; equal to any sequence of the same findings."""

    __slots__ = ("lines", "kinds", "codes", "table", "_index")

    def __init__(self, items: Iterable[tuple[int, str, str]] = ()) -> None:
        self.lines = array("q")
        self.kinds = bytearray()
        self.codes = array("i")  # 2*i: table[i] after "line N: "; 2*i+1: table[i] whole
        self.table: list[str] = []
        self._index: dict[str, int] = {}
        for f in items:
            self.append(f)

    def _code(self, msg: str, keep: bool) -> int:
        c = self._index.get(msg)
        if c is None:
            if len(self.table) >= TEXT_TABLE_MAX and not keep:
                return -1
            c = self._index[msg] = len(self.table)
            self.table.append(msg)
        return c

    def append(self, f: tuple[int, str, str]) -> None:
        n, kind, text = f
        prefix = f"line {n}: "
        keep = kind == "declared"
        if text.startswith(prefix):
            c = self._code(text[len(prefix):], keep)
            code = -1 if c < 0 else 2 * c
        else:
            c = self._code(text, keep)
            code = -1 if c < 0 else 2 * c + 1
        self.lines.append(n)
        self.kinds.append(_KIND_CODE[kind])
        self.codes.append(code)

    def add_break(self, n: int, msg: str) -> None:
        """A break on line n whose text is `line n: msg` (the walk's common case)."""
        c = self._index.get(msg)
        if c is None:
            c = self._code(msg, False)
        self.lines.append(n)
        self.kinds.append(0)
        self.codes.append(-1 if c < 0 else 2 * c)

    def extend(self, other: Iterable[tuple[int, str, str]]) -> None:
        if isinstance(other, Findings):
            remap = [self._code(m, True) for m in other.table]  # kept texts stay kept
            self.lines.extend(other.lines)
            self.kinds.extend(other.kinds)
            self.codes.extend(-1 if c < 0 else 2 * remap[c >> 1] + (c & 1)
                              for c in other.codes)
            return
        for f in other:
            self.append(f)

    def shift(self, d: int) -> None:
        """Every line number moved by `d` (texts follow: they are stored without it)."""
        ls = self.lines
        if d:
            for i in range(len(ls)):
                ls[i] += d

    def text(self, i: int) -> str:
        n, c = self.lines[i], self.codes[i]
        if c < 0:
            return (f"line {n}: {_KIND_NAME[self.kinds[i]]} (one of more than "
                    f"{TEXT_TABLE_MAX:,} distinct messages; its text is not kept)")
        msg = self.table[c >> 1]
        return msg if c & 1 else f"line {n}: {msg}"

    def sorted(self) -> Findings:
        """Stably in line order (itself when it already is, as a walk leaves it)."""
        ls = self.lines
        if all(ls[i] <= ls[i + 1] for i in range(len(ls) - 1)):
            return self
        order = sorted(range(len(ls)), key=ls.__getitem__)
        out = Findings()
        out.table, out._index = list(self.table), dict(self._index)
        out.lines = array("q", (ls[i] for i in order))
        out.kinds = bytearray(self.kinds[i] for i in order)
        out.codes = array("i", (self.codes[i] for i in order))
        return out

    def first(self, kind: str) -> int:
        """Index of the first finding of `kind`, -1 when none."""
        return self.kinds.find(_KIND_CODE[kind])

    def __len__(self) -> int:
        return len(self.lines)

    @overload
    def __getitem__(self, i: int) -> Finding: ...

    @overload
    def __getitem__(self, i: slice) -> tuple[Finding, ...]: ...

    def __getitem__(self, i: int | slice) -> Finding | tuple[Finding, ...]:
        if isinstance(i, slice):
            return tuple(self[k] for k in range(*i.indices(len(self))))
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError("finding index out of range")
        return Finding(self.lines[i], _KIND_NAME[self.kinds[i]], self.text(i))

    def __iter__(self) -> Iterator[Finding]:
        for i in range(len(self.lines)):
            yield Finding(self.lines[i], _KIND_NAME[self.kinds[i]], self.text(i))

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, (str, bytes)):
            return NotImplemented
        return len(self) == len(other) and all(
            tuple(a) == tuple(b) for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash((len(self), tuple(self.lines[:8])))

    def __radd__(self, other: tuple[tuple[int, str, str], ...]) -> Findings:
        out = Findings(other)
        out.extend(self)
        return out

    def __repr__(self) -> str:
        shown = ", ".join(repr(tuple(f)) for f in self[:3])
        return f"Findings([{shown}{', ...' if len(self) > 3 else ''}], n={len(self)})"


@dataclass(frozen=True)
class VerifyResult(_verdict.Judged):
    """`verify`'s verdict. `ok` is True (every row checked), None (bounded or empty)
    or False (a break). `findings` lists every break and excused break in line order;
    `first_chained_line` is where the chain began (0 if never)."""
    ok: bool | None
    rows: int = 0
    chained: int = 0
    prechain: int = 0
    first_break: str | None = None
    breaks: int = 0
    verified_scope: str = "full"
    declared_breaks: int = 0
    declared: tuple[str, ...] = ()
    findings: Sequence[Finding] = ()
    first_chained_line: int = 0
    lines: int = 0
    unreadable: bool = False
    # SHA-256 of every byte the walk read (the file's bytes when it was opened), when
    # asked for (`verify(..., digest=True)`); None when not asked, or when the bytes
    # could not be bound to one file (it was replaced, or changed while it was read)
    sha256: str | None = field(default=None, compare=False)

    def __bool__(self) -> bool:
        return self.ok is True

    def outcome(self) -> _verdict.Outcome:
        """The chain's verdict and `sealscope verify`'s code for it alone."""
        return _verdict.chain(self)

    def reason(self) -> str:
        """Why the verdict is what it is, in words, for the line that shows it: a
        break's reference message; for COULD NOT LOOK what was not checked (declared
        break at line N, rows before the chain began, no chained rows, an empty file);
        "" when verified in full."""
        if self.unreadable or self.ok is False:
            return self.first_break or ""
        if self.ok:
            return ""
        why: list[str] = []
        if self.verified_scope == "empty":
            return "empty file" if self.lines <= 1 else "no rows, only blank lines"
        if self.prechain:
            if not self.chained:
                why.append(f"no chained rows ({_count(self.prechain, 'row')} without a chain)")
            else:
                why.append(f"{_count(self.prechain, 'row')} before the chain began at line "
                           f"{self.first_chained_line} not verified")
        declared = [f.line for f in self.findings if f.kind == "declared"]
        if declared:
            shown = ", ".join(str(n) for n in declared[:5]) + (", …" if len(declared) > 5 else "")
            why.append(f"declared break{'s' if len(declared) > 1 else ''} at "
                       f"line{'s' if len(declared) > 1 else ''} {shown}")
        return "; ".join(why) or f"scope {self.verified_scope}"

    def to_dict(self) -> dict[str, Any]:
        return {"ok": self.ok, "rows": self.rows, "chained": self.chained,
                "prechain": self.prechain, "first_break": self.first_break,
                "breaks": self.breaks, "verified_scope": self.verified_scope,
                "declared_breaks": self.declared_breaks, "declared": list(self.declared)}


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' if n != 1 else ''}"


# --------------------------------------------------------------------------- parsing

_SPACE = b" "


def _fast_parse(raw: bytes) -> dict[str, Any] | None:
    """Parse a well-formed row with orjson, or None to take the exact slow path.

    Accepted only when the line with all spaces removed equals orjson's compact dump
    of the parsed value with all spaces removed. Removing spaces keeps every string
    boundary and member, so equality means the text has exactly the parsed value's
    members (no duplicate key) and its numbers spelled as a round trip spells them
    (no big integer read as a float, no `-0`)."""
    if raw[:1] != b"{" or raw[-1:] != b"}" or near_limit(raw):
        return None
    try:
        obj = orjson.loads(raw)
        same = orjson.dumps(obj).translate(None, _SPACE) == raw.translate(None, _SPACE)
    except (orjson.JSONDecodeError, TypeError):  # TypeError: too deep to re-dump
        return None
    return obj if same else None


@dataclass(frozen=True)
class WalkState:
    """Everything the walk knows after line `lines`, which ends at byte `offset` just
    after a line break: with the file's bytes from `offset` on, enough to finish
    exactly as an uninterrupted walk would. `declared` holds the declarations found
    in [0, offset), reduced to what the walk reads."""
    offset: int
    lines: int
    strict: bool
    prev: str
    began: bool
    rows: int
    chained: int
    prechain: int
    breaks: int
    declared_breaks: int
    first_chained: int
    findings: tuple[tuple[int, str, str], ...]
    declared: Declared

    def to_dict(self) -> dict[str, Any]:
        """JSON-able (strings may hold lone surrogates: dump with ensure_ascii)."""
        return {"offset": self.offset, "lines": self.lines, "strict": self.strict,
                "prev": self.prev, "began": self.began, "rows": self.rows,
                "chained": self.chained, "prechain": self.prechain, "breaks": self.breaks,
                "declared_breaks": self.declared_breaks,
                "first_chained": self.first_chained,
                "findings": [list(f) for f in self.findings],
                "declared": [[n, _decl_core(d)] for n, d in sorted(self.declared.items())]}

    @classmethod
    def from_dict(cls, d: Any) -> WalkState:
        """The inverse of `to_dict`; ValueError naming the first thing out of shape."""
        def want(key: str, typ: type) -> Any:
            v = d.get(key)
            if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
                raise ValueError(f"walk state: `{key}` is not {typ.__name__}")
            if isinstance(v, int) and typ is int and v < 0:
                raise ValueError(f"walk state: `{key}` is negative")
            return v
        if not isinstance(d, dict):
            raise ValueError("walk state is not an object")
        findings = []
        for f in want("findings", list):
            if not (isinstance(f, list) and len(f) == 3 and isinstance(f[0], int)
                    and f[1] in ("break", "declared") and isinstance(f[2], str)):
                raise ValueError("walk state: a finding is out of shape")
            findings.append((f[0], f[1], f[2]))
        declared: Declared = {}
        for item in want("declared", list):
            if not (isinstance(item, list) and len(item) == 2 and isinstance(item[0], int)
                    and isinstance(item[1], dict)
                    and isinstance(item[1].get("orphan_sha256"), str)
                    and isinstance(item[1].get("why"), str)):
                raise ValueError("walk state: a declaration is out of shape")
            declared[item[0]] = _decl_core(item[1])
        return cls(offset=want("offset", int), lines=want("lines", int),
                   strict=want("strict", bool), prev=want("prev", str),
                   began=want("began", bool), rows=want("rows", int),
                   chained=want("chained", int), prechain=want("prechain", int),
                   breaks=want("breaks", int), declared_breaks=want("declared_breaks", int),
                   first_chained=want("first_chained", int), findings=tuple(findings),
                   declared=declared)


def _decl_core(d: dict[str, Any]) -> dict[str, Any]:
    """What the walk reads of a declaration: its hash, why, and a usable resume_prev."""
    out = {"orphan_sha256": d["orphan_sha256"], "why": d["why"]}
    rp = d.get("resume_prev")
    if isinstance(rp, str) and rp:
        out["resume_prev"] = rp
    return out


class _Walk:
    """The verifier's state machine over lines, exactly the reference's walk.

    `began` is "chained > 0". A walk may start detached (`pending` set): lines are
    held back until the first row carrying a non-null chain, because until then the
    outcome depends on state from before this range; a merge replays them."""

    __slots__ = ("strict", "declared", "prev", "began", "rows", "chained", "prechain",
                 "breaks", "declared_breaks", "findings", "pending", "held", "first_chained")

    def __init__(self, strict: bool, declared: Declared, detached: bool = False):
        self.strict = strict
        self.declared = declared
        self.prev: Any = GENESIS
        self.began = False
        self.rows = self.chained = self.prechain = self.breaks = self.declared_breaks = 0
        self.findings = Findings()
        self.pending: list[tuple[int, bytes]] | None = [] if detached else None
        self.held: list[tuple[int, bytes]] = []
        self.first_chained = 0

    def export(self, offset: int, lines: int) -> WalkState:
        """The complete state after line `lines`, which ends at byte `offset`."""
        assert self.pending is None, "a detached walk has no state of its own yet"
        return WalkState(offset=offset, lines=lines, strict=self.strict, prev=self.prev,
                         began=self.began, rows=self.rows, chained=self.chained,
                         prechain=self.prechain, breaks=self.breaks,
                         declared_breaks=self.declared_breaks,
                         first_chained=self.first_chained, findings=tuple(self.findings),
                         declared=dict(self.declared))

    @classmethod
    def resume(cls, state: WalkState, declared: Declared) -> _Walk:
        """A walk continuing from `state`, with the declarations of the whole file."""
        w = cls(state.strict, declared)
        w.prev, w.began = state.prev, state.began
        w.rows, w.chained, w.prechain = state.rows, state.chained, state.prechain
        w.breaks, w.declared_breaks = state.breaks, state.declared_breaks
        w.first_chained = state.first_chained
        w.findings = Findings(state.findings)
        return w

    def _break(self, n: int, text: str) -> None:
        self.breaks += 1
        self.findings.append((n, "break", text))

    def feed(self, n: int, raw: bytes) -> None:
        """One line, by the general path."""
        raw = raw.strip()
        if not raw:
            return
        obj = _fast_parse(raw)
        text = None
        if obj is None:
            text = _lines.decode_line(raw)
            if not text:
                return
            try:
                parsed = read_row(text, raw)
            except ValueError:
                if self.pending is not None:
                    self.pending.append((n, raw))
                    return
                self._break(n, f"line {n}: unparseable")
                return
            if parsed.duplicate is not None:
                if self.pending is not None:
                    self.pending.append((n, raw))
                    return
                self._break(n, f"line {n}: {parsed.duplicate}")
                if not parsed.ok:  # arcaeon raises here; the duplicate is the verdict
                    return
            obj = parsed.value
            if not isinstance(obj, dict):
                if self.pending is not None:
                    self.pending.append((n, raw))
                    return
                self._break(n, f"line {n}: not a JSON object")
                return
        self.row(n, raw, text, obj, obj.pop("chain", None))

    def row(self, n: int, raw: bytes, text: str | None, obj: dict[str, Any], claimed: Any) -> None:
        """A line that parsed to an object, its `chain` taken out as `claimed`."""
        if self.pending is not None:
            # detached: hold lines until a row whose chain fixes the state
            self.pending.append((n, raw))
            if claimed is not None:
                self.prev = claimed if isinstance(claimed, str) else ""
                self.began = True
                self.held, self.pending = self.pending, None
            return
        self.rows += 1
        if claimed is None:
            self._unchained(n, raw, text)
            return
        if not self.began:
            self.first_chained = n
        self.began = True
        self.chained += 1
        if not isinstance(claimed, str):
            self._break(n, f"line {n}: non-string chain value")
            self.prev = ""
            return
        try:
            want = _link_of(self.prev, row_body(obj, near_limit(raw)))
        except (UnicodeEncodeError, ValueError, TypeError, RecursionError) as e:
            self._break(n, f"line {n}: unhashable row ({type(e).__name__})")
            self.prev = claimed
            return
        if claimed != want:
            d = None if self.strict else self._excused(n, raw, text)
            if d is not None:
                self.declared_breaks += 1
                self.findings.append((n, "declared", f"line {n}: declared break ({d['why']})"))
            elif not self.strict and n in self.declared:
                self._break(n, f"line {n}: chain mismatch; a declaration exists but its "
                               f"orphan_sha256 does not match these bytes")
            else:
                self._break(n, f"line {n}: chain mismatch")
        self.prev = claimed

    def _unchained(self, n: int, raw: bytes, text: str | None) -> None:
        if self.began:
            d = None if self.strict else self._excused(n, raw, text)
            if d is not None:
                self.declared_breaks += 1
                self.findings.append((n, "declared", f"line {n}: declared break ({d['why']})"))
                rp = d.get("resume_prev")
                self.prev = rp if isinstance(rp, str) and rp else GENESIS
                return
            if not self.strict and n in self.declared:
                self._break(n, f"line {n}: unchained row after chain began; a declaration "
                               f"exists but its orphan_sha256 does not match these bytes")
            else:
                self._break(n, f"line {n}: unchained row after chain began")
            return
        self.prechain += 1
        if self.strict:
            self._break(n, f"line {n}: unchained (prechain) row rejected in strict mode")

    def _excused(self, n: int, raw: bytes, text: str | None) -> dict[str, Any] | None:
        d = self.declared.get(n)
        if d is None:
            return None
        if text is None:
            text = _lines.decode_line(raw)
        got = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
        return d if d.get("orphan_sha256") == got else None

    def walk_window(self, data: bytes, final: bool, n: int) -> int:
        """Feed one window's lines, as `split_window(data, final)` gives them, from line
        n+1; returns the last line number. With the C accelerator and no CR in the
        window, runs of common rows are verified in place and only the other lines are
        cut out and fed one by one."""
        run = _c_run
        if run is None or b"\r" in data:
            return self.walk(_lines.split_window(data, final), n)
        sha256 = hashlib.sha256
        pos = 0
        while True:
            if self.pending is None and self.began:
                pos, last, k = run(data, pos, self.prev.encode("utf-8", "surrogatepass"), sha256)
                if k:
                    self.rows += k
                    self.chained += k
                    self.prev = last
                    n += k
            nl = data.find(b"\n", pos)
            if nl < 0:  # the piece after the last line break is a line only at the end
                return self.walk([data[pos:]], n) if final else n
            n = self.walk([data[pos:nl]], n)
            pos = nl + 1

    def walk(self, lines: list[bytes], n: int) -> int:
        """Feed a window's lines numbered from n+1; returns the last line number.

        The common case (a well-formed row whose chain verifies after the chain began)
        runs inline; everything else goes through `feed`/`row`."""
        sha256 = hashlib.sha256
        c_body = _c_body
        for raw in lines:
            n += 1
            if self.pending is None and self.began and raw[:1] == b"{" and raw[-1:] == b"}":
                if c_body is not None:
                    got = c_body(raw)
                    if got is not None:
                        prev = self.prev.encode("utf-8", "surrogatepass")
                        self.rows += 1
                        self.chained += 1
                        if sha256(prev + got[0]).hexdigest()[:32] != got[1]:
                            if self.declared:  # a declaration may excuse it: the full rule
                                self.rows -= 1
                                self.chained -= 1
                                self.feed(n, raw)
                                continue
                            # a well-formed row whose chain does not link: what `row`
                            # decides without declarations, without parsing it again
                            self.breaks += 1
                            self.findings.add_break(n, "chain mismatch")
                        self.prev = got[1]
                        continue
                obj = _fast_parse(raw)
                if obj is not None:
                    claimed = obj.pop("chain", None)
                    if claimed.__class__ is str:
                        try:
                            want = _link_of(self.prev, dumps_body(obj))
                        except (ValueError, TypeError, RecursionError):
                            want = None
                        if want == claimed:
                            self.rows += 1
                            self.chained += 1
                            self.prev = claimed
                            continue
                    self.row(n, raw, None, obj, claimed)
                    continue
            self.feed(n, raw)
        return n


def _qualifying_declaration(text: str) -> tuple[int, dict[str, Any]] | None:
    """A pre-scan hit: (orphan_line, row) when the line is a usable declaration."""
    try:
        d = read_declaration(text)
    except ValueError:
        return None
    if not isinstance(d, dict) or d.get("op") != DECLARE_OP:
        return None
    line_no, sha, why = d.get("orphan_line"), d.get("orphan_sha256"), d.get("why")
    if (isinstance(line_no, int) and not isinstance(line_no, bool)
            and isinstance(sha, str) and len(sha) == 64
            and isinstance(why, str) and why.strip()
            and isinstance(d.get("chain"), str)):
        return line_no, d
    return None


def _scan_declarations(buf: _lines.Buffer, start: int = 0, first_line: int = 1) -> Declared:
    """Declarations keyed by the line they excuse; the last one for a line wins.
    `start` (a line start, numbered `first_line`) scans only the rest of the file."""
    found: dict[int, dict[str, Any]] = {}
    pos = buf.find(_DECLARE_OP_B, start)
    if pos < 0:
        return found
    # a declaration exists: walk lines properly (rare, so one plain pass is fine)
    n = first_line - 1
    for _s, _e, lines in _lines.iter_windows(buf, start):
        for raw in lines:
            n += 1
            if _DECLARE_OP_B not in raw:
                continue
            text = _lines.decode_line(raw)
            if DECLARE_OP not in text:
                continue
            hit = _qualifying_declaration(text)
            if hit is not None:
                found[hit[0]] = hit[1]
    return found


# --------------------------------------------------------------------------- verify

def _unreadable(e: OSError) -> VerifyResult:
    return VerifyResult(ok=False, first_break=f"unreadable: {e}", breaks=1, unreadable=True)


# Called as `after_open(path, fd)` once the verifier holds the file open, before a
# byte is read: tests install it to replace the file under its name at exactly that
# moment (the race a live writer can run), deterministically.
after_open: Callable[[str, int], None] | None = None


class FileReplaced(OSError):
    """The bytes could not be bound to the one open file: a range worker could not
    reach the parent's file, or the bytes it read differ from the parent's."""


def _open_checked(path: str | os.PathLike[str]) -> tuple[BinaryIO, _lines.FileSource]:
    """Open for reading by offset (the file and its `FileSource`), failing as the
    reference's read_text would; anything but a regular file (a FIFO, a device) is
    refused before it is read (`lines.open_regular`), never waited on. Every byte of
    the verdict is read through this one open file description."""
    fh = _lines.open_regular(path)
    try:
        if after_open is not None:
            after_open(os.fspath(path), fh.fileno())
        return fh, _lines.FileSource(fh)
    except BaseException:
        fh.close()
        raise


# A range job names the file it reads as (path, parent pid, parent fd, device, inode):
# the worker opens the parent's own descriptor (`/proc/PID/fd/FD`, the same file
# whatever its name now points at) and checks its identity; without /proc it opens
# the path and accepts it only when it is the same file (device and inode).
Source = tuple[str, int, int, int, int]


def _source(path: str, buf: _lines.Buffer) -> Source | None:
    """How a worker reaches the file behind `buf`, or None (no descriptor to share:
    the span is walked in this process)."""
    fd = getattr(buf, "fd", None)
    if not isinstance(fd, int):
        return None
    try:
        st = os.fstat(fd)
    except OSError:
        return None
    return (path, os.getpid(), fd, st.st_dev, st.st_ino)


def _reopen(src: str | Source) -> BinaryIO:
    """The file a range job names, opened here: the parent's descriptor itself when
    it can be reached, else the path when it is still the same file; `FileReplaced`
    otherwise."""
    if isinstance(src, str):
        return _lines.open_regular(src)
    path, pid, fd, dev, ino = src
    for name in (f"/proc/{pid}/fd/{fd}", path):
        try:
            fh = _lines.open_regular(name)
        except OSError:
            if name == path:
                raise
            continue
        st = os.fstat(fh.fileno())
        if (st.st_dev, st.st_ino) == (dev, ino):
            return fh
        fh.close()
    raise FileReplaced(f"{path!r} is no longer the file being verified (inode {ino})")


def _walk_range(src: str | Source, start: int, end: int, first_line: int, strict: bool,
                declared: Declared, detached: bool, final: bool | None = None) -> dict[str, Any]:
    """Worker body: walk [start, end) of the file (`src`: see `Source`); line numbers
    from `first_line`. `final`: whether `end` is the end of the file (its last line
    is kept). The result carries the SHA-256 of the bytes walked (`sha256`)."""
    with _reopen(src) as fh:
        return _walk_buf(_lines.FileSource(fh), start, end, first_line, strict, declared,
                         detached, final=final)


def _walk_lines(w: _Walk, buf: _lines.Buffer, start: int, end: int, n: int, final: bool,
                on_progress: ProgressFn | None = None, hasher: Any = None) -> int:
    """Feed [start, end) (starting at a line start) to `w` from line n+1; the last line
    number. `final`: `end` is the end of the file, so the piece after its last line
    break is a line (empty when the file ends with one); otherwise `end` is just after
    a line break and nothing after it is read. `hasher` (a hashlib object) is updated
    with every byte walked, as it is read."""
    total = len(buf)
    if start >= end:
        return w.walk([b""], n) if final else n
    for s, e in _lines.window_bounds(buf, start, end):
        data = buf[s:e]
        if hasher is not None:
            hasher.update(data)
        n = w.walk_window(data, final and e == end, n)
        if on_progress is not None:
            on_progress(e, total)
    return n


def _walk_buf(buf: _lines.Buffer, start: int, end: int, first_line: int, strict: bool,
              declared: Declared, detached: bool,
              on_progress: ProgressFn | None = None, final: bool | None = None) -> dict[str, Any]:
    w = _Walk(strict, declared, detached)
    h = hashlib.sha256()
    n = _walk_lines(w, buf, start, end, first_line - 1,
                    end == len(buf) if final is None else final, on_progress, h)
    held = w.pending if w.pending is not None else w.held
    return {"held": held, "detached_all": w.pending is not None, "last_line": n,
            "prev": w.prev, "began": w.began, "rows": w.rows, "chained": w.chained,
            "prechain": w.prechain, "breaks": w.breaks,
            "declared_breaks": w.declared_breaks, "findings": w.findings,
            "first_chained": w.first_chained, "sha256": h.hexdigest()}


def _finish(w: _Walk, strict: bool, declared: Declared, lines_total: int) -> VerifyResult:
    findings = w.findings.sorted()  # stable: keeps in-line order
    at = findings.first("break")
    first_break = findings.text(at) if at >= 0 else None
    ok: bool | None = w.breaks == 0
    scope = "full"
    declared_list = [findings.text(i) for i, k in enumerate(findings.kinds) if k == 1]
    if not strict and (w.prechain or w.declared_breaks):
        if w.prechain and w.declared_breaks:
            scope = "bounded_prechain_skipped+declared_break"
        elif w.prechain:
            scope = "bounded_prechain_skipped"
        else:
            scope = "bounded_declared_break"
        if ok:
            ok = None
    elif w.rows == 0 and ok:
        ok, scope = None, "empty"
    if strict and declared:
        declared_list.extend(
            f"line {n}: declaration present, NOT honored (strict mode) ({d['why']})"
            for n, d in sorted(declared.items()))
    return VerifyResult(
        ok=ok, rows=w.rows, chained=w.chained, prechain=w.prechain, first_break=first_break,
        breaks=w.breaks, verified_scope=scope, declared_breaks=w.declared_breaks,
        declared=tuple(declared_list),
        findings=findings,
        first_chained_line=w.first_chained, lines=lines_total)


PARALLEL_MIN_BYTES = 24 << 20
CHUNK_BYTES = 16 << 20

# (start, end, SHA-256) of each span of bytes a walk read, in order
Spans = list[tuple[int, int, str]]


def verify(path: str | os.PathLike[str], *, strict: bool = False,
           on_progress: ProgressFn | None = None, workers: int | None = None,
           chunk_bytes: int | None = None, digest: bool = False) -> VerifyResult:
    """Walk and verify a ledger file. Never raises for any file content.

    The verdict is bound to one open file description: every byte is read through
    the descriptor opened here (worker processes open that same descriptor, see
    `Source`). When the path names another file by the end of the walk (the file was
    replaced or moved while it was verified), the answer is not VERIFIED: a verdict
    that held becomes COULD NOT LOOK saying so. `digest=True` also gives the SHA-256
    of the bytes walked (`VerifyResult.sha256`), hashed from the same reads (parallel
    walks: each range's hash checked against the parent's own read of it).

    Large files are split at line starts into byte ranges verified in parallel
    processes; each range after the first holds back its lines up to its first
    chained row, which are replayed in order with the true incoming state, so the
    merged verdict equals one sequential pass. `workers=1` forces one process."""
    try:
        fh, buf = _open_checked(path)
    except OSError as e:
        return _unreadable(e)
    with fh:
        total = len(buf)
        declared = _scan_declarations(buf)
        w = _Walk(strict, declared)
        spans: Spans = []
        n = _walk_into(w, str(path), buf, 0, total, 0, True, workers, chunk_bytes,
                       on_progress, spans)
        res = _finish(w, strict, declared, n)
        sha = None
        if digest:
            sha, changed = span_digest(buf.fd, 0, total, spans)
            if changed:
                return changed_while_read(res, changed)
        return bound_to_file(replace(res, sha256=sha), str(path), buf.fd)


def span_digest(fd: int, start: int, end: int, spans: Spans) -> tuple[str | None, str | None]:
    """(SHA-256 of [start, end) read through `fd`, None) when every span in `spans`
    (each inside [start, end)) hashes to what its walk read; else (None, a sentence
    naming the first span whose bytes differ). One span that is all of [start, end)
    is that digest already (the walk hashed every byte it read); otherwise the bytes
    are read again here and each span's hash compared."""
    if [(a, b) for a, b, _h in spans] == [(start, end)]:
        return spans[0][2], None
    h = hashlib.sha256()
    pos = start
    for a, b, want in sorted(spans):
        if a < pos or b > end:
            continue
        _hash_into(fd, (h,), pos, a)
        part = hashlib.sha256()
        try:
            _hash_into(fd, (h, part), a, b)
        except OSError:
            return None, f"bytes {a:,}–{b:,} could not be read again"
        if part.hexdigest() != want:
            return None, f"bytes {a:,}–{b:,} differ from what the walk read"
        pos = b
    try:
        _hash_into(fd, (h,), pos, end)
    except OSError:
        return None, f"bytes {pos:,}–{end:,} could not be read again"
    return h.hexdigest(), None


def _hash_into(fd: int, hashers: tuple[Any, ...], start: int, end: int) -> None:
    pos = start
    while pos < end:
        data = os.pread(fd, min(_lines.WINDOW, end - pos), pos)
        if not data:
            raise OSError(f"file ended at byte {pos} while hashing to {end}")
        for h in hashers:
            h.update(data)
        pos += len(data)


def changed_while_read(res: VerifyResult, why: str) -> VerifyResult:
    """A verdict whose bytes did not hold still while they were read: COULD NOT LOOK
    (BROKEN stays BROKEN), the reason first, no digest."""
    text = f"the file changed while it was verified ({why})"
    if res.ok is False:
        return replace(res, sha256=None)
    return replace(res, ok=False, unreadable=True, first_break=text, sha256=None)


def bound_to_file(res: VerifyResult, path: str, fd: int) -> VerifyResult:
    """`res` when `path` still names the file open on `fd` (same device and inode),
    else the verdict of a file replaced while it was verified: a verdict that held
    becomes COULD NOT LOOK naming both inodes (BROKEN stays BROKEN), and no digest
    is given for a name that no longer holds those bytes."""
    try:
        a, b = os.fstat(fd), os.stat(path)
        same = (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
        why = "" if same else f"inode {a.st_ino} → {b.st_ino}"
    except OSError as e:
        same, why = False, f"{path!r} cannot be found again: {e.strerror or e}"
    if same:
        return res
    text = f"the file was replaced while it was verified ({why}); no verdict for {path!r}"
    if res.ok is False:
        return replace(res, sha256=None)
    return replace(res, ok=False, unreadable=True, first_break=text, sha256=None)


def verify_bytes(data: bytes, *, strict: bool = False) -> VerifyResult:
    """`verify` over a ledger held in memory (a zip member read in place, never
    extracted): the same walk and verdict, one process."""
    declared = _scan_declarations(data)
    w = _Walk(strict, declared)
    n = _walk_into(w, None, data, 0, len(data), 0, True, 1, None, None)
    return _finish(w, strict, declared, n)


def _walk_into(w: _Walk, path: str | None, buf: _lines.Buffer, start: int, end: int, n: int,
               final: bool, workers: int | None, chunk_bytes: int | None,
               on_progress: ProgressFn | None, spans: Spans | None = None) -> int:
    """Continue `w` over [start, end) from line n+1, in worker processes when the span
    is large and the workers can reach this very file (`Source`); the last line
    number. `spans` gets (start, end, SHA-256) of the bytes walked."""
    if workers is None:
        workers = min(2, os.cpu_count() or 1) if end - start >= PARALLEL_MIN_BYTES else 1
    src = _source(path, buf) if path is not None else None
    if workers > 1 and src is not None and end > start:
        before = w.export(start, n)
        got: Spans = []
        try:
            n = _walk_parallel(src, buf, start, end, final, w, n, workers,
                               chunk_bytes or CHUNK_BYTES, on_progress, spans=got)
            if spans is not None:
                spans.extend(got)
            return n
        except (OSError, RuntimeError, ImportError, ValueError):
            # no worker processes here (e.g. a __main__ without an import guard), or a
            # worker could not reach this file: this process gives the same verdict
            # from its own descriptor
            fresh = _Walk.resume(before, w.declared)
            h = hashlib.sha256()
            n = _walk_lines(fresh, buf, start, end, n, final, on_progress, h)
            _copy_state(fresh, w)
            if spans is not None:
                spans.append((start, end, h.hexdigest()))
            return n
    h = hashlib.sha256()
    n = _walk_lines(w, buf, start, end, n, final, on_progress, h)
    if spans is not None and end > start:
        spans.append((start, end, h.hexdigest()))
    return n


def _copy_state(src: _Walk, dst: _Walk) -> None:
    for k in ("prev", "began", "rows", "chained", "prechain", "breaks", "declared_breaks",
              "findings", "first_chained"):
        setattr(dst, k, getattr(src, k))


def _absorb(w: _Walk, out: dict[str, Any]) -> None:
    w.rows += out["rows"]
    w.chained += out["chained"]
    w.prechain += out["prechain"]
    w.breaks += out["breaks"]
    w.declared_breaks += out["declared_breaks"]
    w.findings.extend(out["findings"])
    if not w.first_chained and out["first_chained"]:
        w.first_chained = out["first_chained"]


def _verify_parallel(path: str | Source, buf: _lines.Buffer, total: int, strict: bool,
                     declared: Declared,
                     workers: int, chunk: int, on_progress: ProgressFn | None,
                     run_jobs: RunJobs | None = None
                     ) -> VerifyResult:
    """The whole file by byte ranges, merged (see `_walk_parallel`)."""
    w = _Walk(strict, declared)
    n = _walk_parallel(path, buf, 0, total, True, w, 0, workers, chunk, on_progress, run_jobs)
    return _finish(w, strict, declared, n)


def _walk_parallel(path: str | Source, buf: _lines.Buffer, start: int, end: int, final: bool,
                   w: _Walk, n: int,
                   workers: int, chunk: int, on_progress: ProgressFn | None,
                   run_jobs: RunJobs | None = None, spans: Spans | None = None) -> int:
    """Verify byte ranges of [start, end) independently and merge them into `w` as one
    sequential pass would leave it; the last line number.

    Each range not at byte 0 is walked detached: its lines up to and including its
    first row with a non-null chain are held back and replayed here with the true
    incoming state; from that row on the range's outcome depends on nothing before it.
    Line numbers are range-relative (shifted here) unless a declaration needs absolute
    ones. `run_jobs` maps `_walk_range` argument tuples to results in order; `spans`
    gets each range's (start, end, SHA-256 of the bytes its worker read)."""
    if start >= end:
        return _walk_lines(w, buf, start, end, n, final)
    declared = w.declared
    total = len(buf)
    bounds = list(_lines.window_bounds(buf, start, end, chunk))
    firsts: list[int] = []
    first = n + 1
    for s, e in bounds:
        firsts.append(first)
        if declared:
            first += _lines.count_lines(buf, s, e)
    relative = not declared
    if relative:
        firsts = [1] * len(bounds)
    jobs = [(path, s, e, f, w.strict, declared, s > 0, final and e == end)
            for (s, e), f in zip(bounds, firsts, strict=True)]
    line_base = n
    for i, out in enumerate((run_jobs or _pool_runner(workers))(jobs)):
        if spans is not None:
            spans.append((bounds[i][0], bounds[i][1], out["sha256"]))
        shift = line_base if relative else 0
        if shift:
            out["findings"].shift(shift)
            out["held"] = [(a + shift, raw) for a, raw in out["held"]]
            if out["first_chained"]:
                out["first_chained"] += shift
        for a, raw in out["held"]:
            w.feed(a, raw)
        if not out["detached_all"]:
            _absorb(w, out)
            w.prev, w.began = out["prev"], out["began"]
        line_base = out["last_line"] + shift
        if on_progress is not None:
            on_progress(bounds[i][1], total)
    return line_base


def _pool_runner(workers: int) -> Callable[[list[tuple[Any, ...]]], Iterator[dict[str, Any]]]:
    def run(jobs: list[tuple[Any, ...]]) -> Iterator[dict[str, Any]]:
        from sealscope.core.pools import spawn_context
        with spawn_context().Pool(workers) as pool:
            pending = [pool.apply_async(_walk_range, job) for job in jobs]
            for job in pending:
                yield job.get()
    return run


def _serial_runner(jobs: list[tuple[Any, ...]]) -> Iterator[dict[str, Any]]:
    """Run range jobs in this process (tests use it to exercise the merge)."""
    for job in jobs:
        yield _walk_range(*job)


@dataclass(frozen=True)
class Walked:
    """`walk_span`'s answer: the whole file's verdict, the walk state at the cut, and
    why a given state was not used (the walk then began at byte 0), if it was not.
    `spans`: (start, end, SHA-256) of every byte span the walk read, in order, from
    the state's offset (or 0) to the end, so a caller hashing the file can prove the
    bytes it hashed are the bytes that were walked (`span_digest`)."""
    result: VerifyResult
    state: WalkState
    restarted: str | None = None
    spans: tuple[tuple[int, int, str], ...] = ()


def walk_span(path: str | None, buf: _lines.Buffer, *, strict: bool, cut: int,
              state: WalkState | None = None, on_progress: ProgressFn | None = None,
              workers: int | None = None, chunk_bytes: int | None = None) -> Walked:
    """Verify the file in `buf` (a `FileSource` whose descriptor worker processes open
    again, with `path` its name; None: this process only) continuing from `state`
    (whose bytes [0, state.offset) the caller has proven to be this file's), and
    export the state at byte `cut` (just after a line break, at or after
    state.offset; the bytes after it are walked but kept out of the state).

    The declarations are the state's plus those found from its offset on, later ones
    winning, as the whole-file pre-scan gives. A later declaration naming a line
    before the state that broke (a chain mismatch, an unchained row after the chain
    began, or an excused break) could change that line's outcome and everything that
    follows through `prev`; the walk then starts again at byte 0."""
    total = len(buf)
    start, n = (state.offset, state.lines) if state is not None else (0, 0)
    later = _scan_declarations(buf, start, n + 1)
    if state is not None:
        why = None if strict else _redecided(state, later)
        if why is not None:
            again = walk_span(path, buf, strict=strict, cut=cut, state=None,
                              on_progress=on_progress, workers=workers,
                              chunk_bytes=chunk_bytes)
            return Walked(again.result, again.state, why, again.spans)
        declared = dict(state.declared)
        declared.update(later)
        w = _Walk.resume(state, declared)
    else:
        declared = later
        w = _Walk(strict, declared)
    spans: Spans = []
    n = _walk_into(w, path, buf, start, cut, n, False, workers, chunk_bytes, on_progress,
                   spans)
    at_cut = w.export(cut, n)
    h = hashlib.sha256()
    n = _walk_lines(w, buf, cut, total, n, True, on_progress, h)
    if total > cut:
        spans.append((cut, total, h.hexdigest()))
    return Walked(_finish(w, strict, declared, n), at_cut, spans=tuple(spans))

def state_result(state: WalkState) -> VerifyResult:
    """The verdict of the file as if it ended at the state's offset (`verify` of
    exactly those bytes): what is known for sure while a writer may be mid-line."""
    return _finish(_Walk.resume(state, state.declared), state.strict, state.declared,
                   state.lines + 1)


_REDECIDABLE = ("chain mismatch", "unchained row after chain began", "declared break (")


def _redecided(state: WalkState, later: dict[int, dict[str, Any]]) -> str | None:
    """Why a declaration found after `state` changes a line already walked, or None.
    Only lines of the two excusable classes ever read a declaration."""
    old = [ln for ln in later if 0 < ln <= state.lines]
    if not old:
        return None
    hits = {n for n, _k, t in state.findings
            if any(t.startswith(f"line {n}: {w}") for w in _REDECIDABLE)}
    for ln in sorted(old):
        if ln in hits:
            return (f"a declaration after the checkpoint names line {ln}, which broke "
                    f"before it; walked again from the start")
    return None


def _reline(text: str, old: int, new: int) -> str:
    prefix = f"line {old}: "
    return f"line {new}: " + text[len(prefix):] if text.startswith(prefix) else text


# --------------------------------------------------------------------------- explaining

CONTENT_CHANGED = "this row's content changed after it was chained"
EARLIER_OR_ORDER = "an earlier row or the order changed"
UNDETERMINED = "no later row tells whether this row or what came before it changed"
NEARBY = 8        # chained rows on each side tried as what a stored chain follows
_LOOK_AHEAD = 10_000   # lines read forward for the next chained row


@dataclass(frozen=True)
class Mismatch:
    """What the chain shows at a `chain mismatch` on `line`, beside the verdict (the
    finding's text stays the reference's).

    `stored` is the row's `chain`; `recomputed` is the link of the row after
    `prev_chain`, the chain the walk held (the stored chain of `prev_line`, 0 when the
    chain starts there, at `genesis`). `next_links` says whether the next chained row
    (`next_line`, 0 when none) links to this row's stored chain; `follows_line` is a
    nearby row (0: `genesis`) whose stored chain this row's stored chain does follow,
    None when none does. The `cause` that fits:

    * EARLIER_OR_ORDER when the stored chain follows another nearby row: the row is
      intact, what came before it changed (moved, removed or inserted rows);
    * else CONTENT_CHANGED when the next row still links to the stored chain: the
      chain continued from this row's stored value, so its content was changed after;
    * else EARLIER_OR_ORDER when a next row does not link to it either (the row does
      not belong where it is); UNDETERMINED when there is no next chained row."""
    line: int
    stored: str
    recomputed: str
    prev_line: int
    prev_chain: str
    next_line: int
    next_links: bool | None
    follows_line: int | None
    cause: str

    @property
    def evidence(self) -> str:
        """The fact the cause rests on, in words."""
        if self.follows_line is not None:
            after = f"line {self.follows_line}'s chain" if self.follows_line else GENESIS
            return f"its stored chain follows {after}, not line {self.prev_line}'s" \
                if self.prev_line else f"its stored chain follows {after}, not {GENESIS}"
        if self.next_links:
            return f"line {self.next_line} still links to this row's stored chain"
        if self.next_line:
            return f"line {self.next_line} does not link to this row's stored chain either"
        return "no chained row follows it"

    @property
    def text(self) -> str:
        """One line: what fits, and why."""
        return f"fits: {self.cause} ({self.evidence})"

    def to_dict(self) -> dict[str, Any]:
        return {"line": self.line, "stored": self.stored, "recomputed": self.recomputed,
                "prev_line": self.prev_line, "prev_chain": self.prev_chain,
                "next_line": self.next_line, "next_links": self.next_links,
                "follows_line": self.follows_line, "cause": self.cause,
                "evidence": self.evidence}


def explain_mismatch(path: str | os.PathLike[str], line: int, *,
                     offsets: Sequence[int] | None = None) -> Mismatch | None:
    """Explain the chain mismatch on `line` (see `Mismatch`), reading only the lines
    around it. `offsets` (line N spans [offsets[N-1], offsets[N]), as
    `lines.line_offsets` gives them) saves a pass over the file. None when the line
    is not a chained row whose stored chain differs from its link after the previous
    row, or the file cannot be read."""
    try:
        fh = _lines.open_regular(path)
    except OSError:
        return None
    with fh:
        buf = _lines.FileSource(fh)
        offs = offsets if offsets is not None else _lines.line_offsets(buf)
        return _Explainer(buf, offs).explain(line)


def explain_mismatches(path: str | os.PathLike[str], res: VerifyResult,
                       limit: int = 100) -> dict[int, Mismatch]:
    """The first `limit` chain mismatches of `res` (the verdict of `path`) explained,
    by line; one pass over the file for its line offsets, only when there is one."""
    lines = [f.line for f in res.findings
             if f.kind == "break" and f.text.startswith(f"line {f.line}: chain mismatch")]
    if not lines:
        return {}
    try:
        fh = _lines.open_regular(path)
    except OSError:
        return {}
    with fh:
        buf = _lines.FileSource(fh)
        ex = _Explainer(buf, _lines.line_offsets(buf))
        got = {n: ex.explain(n) for n in lines[:limit]}
    return {n: m for n, m in got.items() if m is not None}


class _Explainer:
    """Rows of one file read by line number, as the walk reads them."""

    def __init__(self, buf: _lines.Buffer, offsets: Sequence[int]) -> None:
        self.buf, self.offsets = buf, offsets
        self.count = len(offsets) - 1
        self._declared: Declared | None = None

    def raw(self, n: int) -> bytes:
        return self.buf[self.offsets[n - 1]:self.offsets[n]].strip()

    def obj(self, raw: bytes) -> dict[str, Any] | None:
        """The object the walk reads from a line (None: blank, unparseable, not an
        object, or a duplicate key the reference refuses)."""
        if not raw:
            return None
        got = _fast_parse(raw)
        if got is not None:
            return got
        text = _lines.decode_line(raw)
        if not text:
            return None
        try:
            parsed = read_row(text, raw)
        except ValueError:
            return None
        if parsed.duplicate is not None and not parsed.ok:
            return None
        return parsed.value if isinstance(parsed.value, dict) else None

    def chained(self, n: int) -> tuple[dict[str, Any], Any, bytes] | None:
        """(row without its chain, its chain, raw) when line n is an object row."""
        raw = self.raw(n)
        obj = self.obj(raw)
        if obj is None:
            return None
        claimed = obj.pop("chain", None)
        return obj, claimed, raw

    def link(self, prev: Any, row: dict[str, Any], raw: bytes) -> str | None:
        try:
            return _link_of(prev, row_body(row, near_limit(raw)))
        except (UnicodeEncodeError, ValueError, TypeError, RecursionError):
            return None

    def excused(self, n: int, raw: bytes) -> dict[str, Any] | None:
        if self._declared is None:
            self._declared = _scan_declarations(self.buf)
        w = _Walk(False, self._declared)
        return w._excused(n, raw, None)

    def prev_of(self, line: int) -> tuple[int, Any]:
        """(line, chain) the walk held when it reached `line`: the last row before it
        with a chain, or an excused unchained row's `resume_prev`; (0, genesis)."""
        for m in range(line - 1, 0, -1):
            got = self.chained(m)
            if got is None:
                continue
            _obj, claimed, raw = got
            if claimed is not None:
                return m, claimed if isinstance(claimed, str) else ""
            d = self.excused(m, raw)
            if d is not None and self.prev_of(m)[0]:   # excused only after the chain began
                rp = d.get("resume_prev")
                return m, rp if isinstance(rp, str) and rp else GENESIS
        return 0, GENESIS

    def explain(self, line: int) -> Mismatch | None:
        if not 1 <= line <= self.count:
            return None
        got = self.chained(line)
        if got is None or not isinstance(got[1], str):
            return None
        row, stored, raw = got
        prev_line, prev = self.prev_of(line)
        want = self.link(prev, row, raw)
        if want is None or want == stored:
            return None
        before: list[tuple[int, str]] = [(0, GENESIS)] if prev_line else []
        after: list[tuple[int, str]] = []
        next_line, next_links = 0, None
        for m in range(line - 1, 0, -1):
            if len(before) > NEARBY:
                break
            c = self.chained(m)
            if c is not None and isinstance(c[1], str) and m != prev_line:
                before.append((m, c[1]))
        for m in range(line + 1, min(self.count, line + _LOOK_AHEAD) + 1):
            c = self.chained(m)
            if c is None or c[1] is None:
                continue
            if not next_line:
                next_line = m
                next_links = isinstance(c[1], str) and self.link(stored, c[0], c[2]) == c[1]
            if isinstance(c[1], str):
                after.append((m, c[1]))
            if len(after) >= NEARBY:
                break
        follows = next((m for m, chain in before + after
                        if self.link(chain, row, raw) == stored), None)
        if follows is not None:
            cause = EARLIER_OR_ORDER
        elif next_links:
            cause = CONTENT_CHANGED
        else:
            cause = EARLIER_OR_ORDER if next_line else UNDETERMINED
        return Mismatch(line, stored, want, prev_line, str(prev), next_line, next_links,
                        follows, cause)


# --------------------------------------------------------------------------- reading

def iter_rows(path: str | os.PathLike[str], *, needles: tuple[bytes, ...] = (),
              on_progress: ProgressFn | None = None) -> Iterator[tuple[int, Any]]:
    """(line number, plain-parsed value) for every non-blank line that parses, lines
    split and numbered as the verifier does. With `needles`, only lines holding one of
    them (literally) are decoded at all: they are found window by window with
    `bytes.find`, not line by line. `on_progress(done, total)` gets bytes read. OSError when
    the file cannot be opened or is not a regular file."""
    with _lines.open_regular(path) as fh:
        buf = _lines.FileSource(fh)
        total = len(buf)
        n = 0
        for s, e in _lines.window_bounds(buf, 0, total) if total else [(0, 0)]:
            data, final = buf[s:e], e == total
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
                    value = read_value(text, raw)
                except ValueError:
                    continue
                yield n + i + 1, value
            n += count
            if on_progress is not None:
                on_progress(e, total)


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
                        obj = read_value(text, raw)
                    except ValueError:
                        continue
                    if isinstance(obj, dict):
                        return obj.get("chain") or GENESIS
                if start == 0:
                    return GENESIS
                block *= 4
    except OSError:
        return GENESIS


# --------------------------------------------------------------------------- writing

class LedgerWriteError(OSError):
    """The bytes did not land; nothing was recorded."""


@contextmanager
def _append_lock(path: Path, timeout: float = 15.0) -> Iterator[None]:
    """Exclusive advisory lock on `<path>.lock`; proceeds unlocked after `timeout`."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX
        yield
        return
    lock_path = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    locked = False
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = True
                break
            except OSError:
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.01)
        yield
    finally:
        if locked:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError:
                pass
        os.close(fd)


def authority(principal: str, *, capability_version: str | None = None,
              tool_schema: Any = None, time_source: str = "local") -> dict[str, Any]:
    """An authority block: principal, time_source, then optional capability_version and
    tool_schema_hash (first 16 hex of sha256 of the sorted default-separator dump)."""
    import json
    out: dict[str, Any] = {"principal": principal, "time_source": time_source}
    if capability_version is not None:
        out["capability_version"] = capability_version
    if tool_schema is not None:
        text = json.dumps(tool_schema, ensure_ascii=False, sort_keys=True)
        out["tool_schema_hash"] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return out


def append(path: str | os.PathLike[str], record: dict[str, Any], *,
           authority: dict[str, Any] | None = None) -> str:
    """Append one row; return its chain. Stamps `ts` when absent, puts `chain` last,
    heals a missing final newline, refuses a lone surrogate (UnicodeEncodeError)
    before writing, fsyncs, and confirms the bytes landed. Only a regular file is
    appended to: a FIFO or a device is refused at once (an OSError), never waited on."""
    p = Path(path)
    obj = dict(record)
    if authority is not None:
        obj["authority"] = authority
    obj.setdefault("ts", utc_stamp())
    obj.pop("chain", None)
    p.parent.mkdir(parents=True, exist_ok=True)
    with _append_lock(p):
        chain = link(tail_chain(p), obj)
        obj["chain"] = chain
        payload = (dumps_row(obj) + "\n").encode("utf-8")
        sep = b""
        try:
            with _lines.open_regular(p) as rf:
                rf.seek(0, os.SEEK_END)
                if rf.tell() > 0:
                    rf.seek(-1, os.SEEK_END)
                    if rf.read(1) != b"\n":
                        sep = b"\n"
        except OSError:
            pass
        payload = sep + payload
        with _open_append(p) as fh:
            fh.write(payload)
            fh.flush()
            try:
                os.fsync(fh.fileno())
            except OSError:
                pass
            landed = fh.tell()
        if landed < len(payload):
            raise LedgerWriteError(f"wrote {len(payload)} bytes to {p} but the file holds "
                                   f"{landed}; nothing was recorded")
    return chain


def _open_append(p: Path) -> BinaryIO:
    """`p` opened to append (created when missing): a regular file only. Opened
    without blocking and checked before a byte is written, so a FIFO (whose open waits
    for a reader) or a device is refused at once (`lines.NotRegularFile`, an OSError)."""
    fd = os.open(p, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NONBLOCK", 0)
                 | getattr(os, "O_CLOEXEC", 0), 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _lines.NotRegularFile(p)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "ab")
    except BaseException:
        os.close(fd)
        raise


def declare_break(path: str | os.PathLike[str], orphan_line: int, why: str, *,
                  resume_prev: str | None = None,
                  authority: dict[str, Any] | None = None) -> dict[str, Any]:
    """Append a `chain_break_declared` row pinning line `orphan_line`'s stripped text by
    sha256. Refuses (ValueError) a blank `why`, a non-int line, an unreadable file, a
    line outside the file, a blank line, or a non-string `resume_prev`."""
    if not isinstance(why, str) or not why.strip():
        raise ValueError(f"declare_break needs a non-empty `why`: {why!r}")
    if not isinstance(orphan_line, int) or isinstance(orphan_line, bool):
        raise ValueError(f"orphan_line must be an int line number, got {orphan_line!r}")
    try:
        text = _lines.read_text(path, errors="replace")
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e}") from None
    split = text.split("\n")
    if not 1 <= orphan_line <= len(split):
        raise ValueError(f"line {orphan_line} is not in {path}")
    orphan = split[orphan_line - 1].strip()
    if not orphan:
        raise ValueError(f"line {orphan_line} of {path} is blank; nothing to pin")
    if resume_prev is not None and not isinstance(resume_prev, str):
        raise ValueError(f"resume_prev must be a chain string, got {resume_prev!r}")
    row: dict[str, Any] = {
        "op": DECLARE_OP, "orphan_line": orphan_line,
        "orphan_sha256": hashlib.sha256(orphan.encode("utf-8", "surrogatepass")).hexdigest(),
        "why": why.strip()}
    if resume_prev is not None:
        row["resume_prev"] = resume_prev
    chain = append(path, row, authority=authority)
    row = dict(row)
    if authority is not None:
        row["authority"] = authority
    row["chain"] = chain
    return row
