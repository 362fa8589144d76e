"""The walk: parsing rows and judging each line's chain in order, from any saved state.

One `_Walk` carries what a pass over lines has seen so far (the last link, the counts, the
findings); its `WalkState` is the part a checkpoint saves and a follower resumes from.
A line reads as a row by `rows` (its fast half inline, `rows.exact_line` for the rest);
the C accelerator, when built, applies the same fast rule to the bytes in one pass and
gives the same body. Declarations (`chain_break_declared` rows) are found before the
walk, so a break they excuse is judged with them.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sealscope.core import lines as _lines
from sealscope.core.chain import _DECLARE_OP_B, DECLARE_OP, GENESIS, Declared, Findings, _link_of
from sealscope.core.jsonio import dumps_body
from sealscope.core.nesting import near_limit, row_body
from sealscope.core.rows import declaration_value, exact_line
from sealscope.core.rows import fast_object as _fast_parse

# a run of empty lines (LF after LF): `feed` strips each to nothing and returns
_BLANK_RUN = re.compile(rb"\n+")

try:  # optional C accelerator: same bodies, computed from the bytes in one pass
    from sealscope.core._fastrow import body as _fast_body
    from sealscope.core._fastrow import run as _fast_run

    _c_body: Callable[[bytes], tuple[bytes, str] | None] | None = _fast_body
    _c_run: RunFn | None = _fast_run
except ImportError:  # pragma: no cover - no compiler at install time
    _c_body = _c_run = None
if os.environ.get("SEALSCOPE_PURE_PYTHON"):  # measure or test the Python paths alone
    _c_body = _c_run = None

# the accelerator's run: (window, offset, prev, sha256) -> (offset, last chain, rows)
RunFn = Callable[
    [bytes | bytearray, int, bytes, Callable[[bytes], Any]], tuple[int, "str | None", int]
]


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
    findings: Sequence[tuple[int, str, str]]  # a walk's own: `Findings`, a few bytes each
    declared: Declared

    def to_dict(self) -> dict[str, Any]:
        """JSON-able (strings may hold lone surrogates: dump with ensure_ascii)."""
        return {
            "offset": self.offset,
            "lines": self.lines,
            "strict": self.strict,
            "prev": self.prev,
            "began": self.began,
            "rows": self.rows,
            "chained": self.chained,
            "prechain": self.prechain,
            "breaks": self.breaks,
            "declared_breaks": self.declared_breaks,
            "first_chained": self.first_chained,
            "findings": [list(f) for f in self.findings],
            "declared": [[n, _decl_core(d)] for n, d in sorted(self.declared.items())],
        }

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
            if not (
                isinstance(f, list)
                and len(f) == 3
                and isinstance(f[0], int)
                and f[1] in ("break", "declared")
                and isinstance(f[2], str)
            ):
                raise ValueError("walk state: a finding is out of shape")
            findings.append((f[0], f[1], f[2]))
        declared: Declared = {}
        for item in want("declared", list):
            if not (
                isinstance(item, list)
                and len(item) == 2
                and isinstance(item[0], int)
                and isinstance(item[1], dict)
                and isinstance(item[1].get("orphan_sha256"), str)
                and isinstance(item[1].get("why"), str)
            ):
                raise ValueError("walk state: a declaration is out of shape")
            declared[item[0]] = _decl_core(item[1])
        return cls(
            offset=want("offset", int),
            lines=want("lines", int),
            strict=want("strict", bool),
            prev=want("prev", str),
            began=want("began", bool),
            rows=want("rows", int),
            chained=want("chained", int),
            prechain=want("prechain", int),
            breaks=want("breaks", int),
            declared_breaks=want("declared_breaks", int),
            first_chained=want("first_chained", int),
            findings=tuple(findings),
            declared=declared,
        )


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
    outcome depends on state from before this range; a merge replays them.
    `first_break_only`: its findings keep only the first break (`Findings`), so a walk
    whose caller prints the verdict's fields alone holds nothing per break."""

    __slots__ = (
        "strict",
        "declared",
        "prev",
        "began",
        "rows",
        "chained",
        "prechain",
        "breaks",
        "declared_breaks",
        "findings",
        "pending",
        "held",
        "first_chained",
    )

    def __init__(
        self,
        strict: bool,
        declared: Declared,
        detached: bool = False,
        first_break_only: bool = False,
    ):
        self.strict = strict
        self.declared = declared
        self.prev: Any = GENESIS
        self.began = False
        self.rows = self.chained = self.prechain = self.breaks = self.declared_breaks = 0
        self.findings = Findings(first_break_only=first_break_only)
        self.pending: list[tuple[int, bytes]] | None = [] if detached else None
        self.held: list[tuple[int, bytes]] = []
        self.first_chained = 0

    def export(self, offset: int, lines: int) -> WalkState:
        """The complete state after line `lines`, which ends at byte `offset`."""
        assert self.pending is None, "a detached walk has no state of its own yet"
        return WalkState(
            offset=offset,
            lines=lines,
            strict=self.strict,
            prev=self.prev,
            began=self.began,
            rows=self.rows,
            chained=self.chained,
            prechain=self.prechain,
            breaks=self.breaks,
            declared_breaks=self.declared_breaks,
            first_chained=self.first_chained,
            findings=self.findings.copy(),
            declared=dict(self.declared),
        )

    @classmethod
    def resume(cls, state: WalkState, declared: Declared) -> _Walk:
        """A walk continuing from `state`, with the declarations of the whole file."""
        w = cls(state.strict, declared)
        w.prev, w.began = state.prev, state.began
        w.rows, w.chained, w.prechain = state.rows, state.chained, state.prechain
        w.breaks, w.declared_breaks = state.breaks, state.declared_breaks
        w.first_chained = state.first_chained
        if isinstance(state.findings, Findings):
            w.findings = state.findings.copy()
        else:
            w.findings = Findings(state.findings)
        return w

    def _break(self, n: int, text: str) -> None:
        self.breaks += 1
        self.findings.append((n, "break", text))

    def feed(self, n: int, raw: bytes) -> None:
        """One line, by the general path: read as `rows` reads it; what is not an
        object row, or repeats a key, is a break (held back while detached)."""
        raw = raw.strip()
        if not raw:
            return
        obj = _fast_parse(raw)
        text = None
        if obj is None:
            line = exact_line(raw)
            if line.state == "blank":
                return
            text = line.text
            if line.state != "object" or line.duplicate is not None:
                if self.pending is not None:
                    self.pending.append((n, raw))
                    return
                if line.duplicate is not None:  # arcaeon's refusal, whatever follows
                    self._break(n, f"line {n}: {line.duplicate}")
                elif line.state == "unparseable":
                    self._break(n, f"line {n}: unparseable")
                if line.state == "nonobject":
                    self._break(n, f"line {n}: not a JSON object")
                if line.state != "object":
                    return
            obj = line.value
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
                self._break(
                    n,
                    f"line {n}: chain mismatch; a declaration exists but its "
                    f"orphan_sha256 does not match these bytes",
                )
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
                self._break(
                    n,
                    f"line {n}: unchained row after chain began; a declaration "
                    f"exists but its orphan_sha256 does not match these bytes",
                )
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

    def walk_window(self, data: bytes | bytearray, final: bool, n: int) -> int:
        """Feed one window's lines, as `split_window(data, final)` gives them, from line
        n+1; returns the last line number. With the C accelerator and no CR in the
        window, runs of common rows are verified in place (without the GIL) and only
        the other lines are cut out, as bytes of their own, and fed one by one. `data`
        may be a buffer the caller reuses: nothing kept refers to it."""
        run = _c_run
        if run is None or b"\r" in data:
            return self.walk(_lines.split_window(bytes(data), final), n)
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
            blank = _BLANK_RUN.match(data, pos)
            if blank is not None:  # empty lines feed nothing: skip them
                n += blank.end() - pos
                pos = blank.end()
                continue
            nl = data.find(b"\n", pos)
            if nl < 0:  # the piece after the last line break is a line only at the end
                return self.walk([bytes(data[pos:])], n) if final else n
            n = self.walk([bytes(data[pos:nl])], n)
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
        d = declaration_value(text)
    except ValueError:
        return None
    if not isinstance(d, dict) or d.get("op") != DECLARE_OP:
        return None
    line_no, sha, why = d.get("orphan_line"), d.get("orphan_sha256"), d.get("why")
    if (
        isinstance(line_no, int)
        and not isinstance(line_no, bool)
        and isinstance(sha, str)
        and len(sha) == 64
        and isinstance(why, str)
        and why.strip()
        and isinstance(d.get("chain"), str)
    ):
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
