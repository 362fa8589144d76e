"""Explaining a chain mismatch: what the chain shows beside the verdict, never a verdict.

At a `chain mismatch` the row's stored chain is tried against its neighbours: when it
follows another nearby row's stored chain, the row is intact and what came before it
changed; else when the next chained row still links to it, the row's content changed
after it was chained; else an earlier row or the order changed, or, with no chained row
after it, nothing tells (`Mismatch.cause`). The finding's text stays the reference's.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from sealscope.core import lines as _lines
from sealscope.core.chain import GENESIS, Declared, VerifyResult, _link_of
from sealscope.core.nesting import near_limit, row_body
from sealscope.core.rows import read_line
from sealscope.core.walk import _scan_declarations, _Walk

# --------------------------------------------------------------------------- explaining

CONTENT_CHANGED = "this row's content changed after it was chained"
EARLIER_OR_ORDER = "an earlier row or the order changed"
UNDETERMINED = "no later row tells whether this row or what came before it changed"
NEARBY = 8  # chained rows on each side tried as what a stored chain follows
_LOOK_AHEAD = 10_000  # lines read forward for the next chained row


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
            return (
                f"its stored chain follows {after}, not line {self.prev_line}'s"
                if self.prev_line
                else f"its stored chain follows {after}, not {GENESIS}"
            )
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
        return {
            "line": self.line,
            "stored": self.stored,
            "recomputed": self.recomputed,
            "prev_line": self.prev_line,
            "prev_chain": self.prev_chain,
            "next_line": self.next_line,
            "next_links": self.next_links,
            "follows_line": self.follows_line,
            "cause": self.cause,
            "evidence": self.evidence,
        }


def explain_mismatch(
    path: str | os.PathLike[str], line: int, *, offsets: Sequence[int] | None = None
) -> Mismatch | None:
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


def explain_mismatches(
    path: str | os.PathLike[str], res: VerifyResult, limit: int = 100
) -> dict[int, Mismatch]:
    """The first `limit` chain mismatches of `res` (the verdict of `path`) explained,
    by line; one pass over the file for its line offsets, only when there is one."""
    lines = [
        f.line
        for f in res.findings
        if f.kind == "break" and f.text.startswith(f"line {f.line}: chain mismatch")
    ]
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
        return self.buf[self.offsets[n - 1] : self.offsets[n]].strip()

    def obj(self, raw: bytes) -> dict[str, Any] | None:
        """The object the walk reads from a line, as `rows` reads it (None: blank,
        unparseable, not an object, or a duplicate key the reference refuses)."""
        line = read_line(raw)
        return line.value if line.state == "object" else None

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
            if d is not None and self.prev_of(m)[0]:  # excused only after the chain began
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
        follows = next(
            (m for m, chain in before + after if self.link(chain, row, raw) == stored), None
        )
        if follows is not None:
            cause = EARLIER_OR_ORDER
        elif next_links:
            cause = CONTENT_CHANGED
        else:
            cause = EARLIER_OR_ORDER if next_line else UNDETERMINED
        return Mismatch(
            line, stored, want, prev_line, str(prev), next_line, next_links, follows, cause
        )
