"""The chain rule of an arcaeon ledger and the values a verification returns.

A row's chain is the first 32 hex of sha256(prev + BODY), BODY being the row without
`chain` dumped with sorted keys and default separators, encoded UTF-8/surrogatepass;
the first chained row chains from `genesis`. A walk's findings are kept compact
(`Findings`: arrays of line, kind and message index) and summed up in a `VerifyResult`,
the value every frontend reads.
"""

from __future__ import annotations

import hashlib
from array import array
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple, overload

from sealscope.core import verdict as _verdict
from sealscope.core.jsonio import dumps_body, encode_body

__all__ = [
    "GENESIS",
    "CHAIN_LEN",
    "DECLARE_OP",
    "Finding",
    "Findings",
    "VerifyResult",
    "link",
    "ProgressFn",
    "Declared",
    "TEXT_TABLE_MAX",
]

GENESIS = "genesis"
CHAIN_LEN = 32
DECLARE_OP = "chain_break_declared"
_DECLARE_OP_B = DECLARE_OP.encode()

ProgressFn = Callable[[int, int], None]
Declared = dict[int, dict[str, Any]]  # declarations by the line they excuse


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
    kind: str  # "break" | "declared"
    text: str  # the reference's message, e.g. "line 4: chain mismatch"


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
    it; equal to any sequence of the same findings.

    `first_break_only`: of the breaks only the first appended is kept (a walk appends
    in line order, so it is the file's first break); declared breaks are all kept. A
    caller that prints only the verdict's fields (`breaks` counts every break) then
    holds a fixed few bytes however many rows break."""

    __slots__ = ("lines", "kinds", "codes", "table", "_index", "first_break_only", "_broke")

    def __init__(
        self, items: Iterable[tuple[int, str, str]] = (), *, first_break_only: bool = False
    ) -> None:
        self.lines = array("q")
        self.kinds = bytearray()
        self.codes = array("i")  # 2*i: table[i] after "line N: "; 2*i+1: table[i] whole
        self.table: list[str] = []
        self._index: dict[str, int] = {}
        self.first_break_only = first_break_only
        self._broke = False  # a break is kept (read only when first_break_only)
        for f in items:
            self.append(f)

    def _skips_break(self) -> bool:
        """Whether a break appended now is not kept (one is, and only one is wanted)."""
        if not self.first_break_only:
            return False
        if self._broke:
            return True
        self._broke = True
        return False

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
        keep = kind == "declared"
        if not keep and self._skips_break():
            return
        prefix = f"line {n}: "
        if text.startswith(prefix):
            c = self._code(text[len(prefix) :], keep)
            code = -1 if c < 0 else 2 * c
        else:
            c = self._code(text, keep)
            code = -1 if c < 0 else 2 * c + 1
        self.lines.append(n)
        self.kinds.append(_KIND_CODE[kind])
        self.codes.append(code)

    def add_break(self, n: int, msg: str) -> None:
        """A break on line n whose text is `line n: msg` (the walk's common case)."""
        if self._skips_break():
            return
        c = self._index.get(msg)
        if c is None:
            c = self._code(msg, False)
        self.lines.append(n)
        self.kinds.append(0)
        self.codes.append(-1 if c < 0 else 2 * c)

    def extend(self, other: Iterable[tuple[int, str, str]]) -> None:
        if isinstance(other, Findings) and self.first_break_only:
            for i in range(len(other)):
                if other.kinds[i] == 1 or not self._broke:
                    self.append(other[i])
            return
        if isinstance(other, Findings):
            remap = [self._code(m, True) for m in other.table]  # kept texts stay kept
            self.lines.extend(other.lines)
            self.kinds.extend(other.kinds)
            self.codes.extend(-1 if c < 0 else 2 * remap[c >> 1] + (c & 1) for c in other.codes)
            return
        for f in other:
            self.append(f)

    def copy(self) -> Findings:
        """A copy of its own (arrays copied, a few bytes a finding)."""
        out = Findings(first_break_only=self.first_break_only)
        out._broke = self._broke
        out.table, out._index = list(self.table), dict(self._index)
        out.lines, out.kinds, out.codes = (
            array("q", self.lines),
            bytearray(self.kinds),
            (array("i", self.codes)),
        )
        return out

    def shift(self, d: int) -> None:
        """Every line number moved by `d` (texts follow: they are stored without it)."""
        ls = self.lines
        if d:
            for i in range(len(ls)):
                ls[i] += d

    def text(self, i: int) -> str:
        n, c = self.lines[i], self.codes[i]
        if c < 0:
            return (
                f"line {n}: {_KIND_NAME[self.kinds[i]]} (one of more than "
                f"{TEXT_TABLE_MAX:,} distinct messages; its text is not kept)"
            )
        msg = self.table[c >> 1]
        return msg if c & 1 else f"line {n}: {msg}"

    def sorted(self) -> Findings:
        """Stably in line order (itself when it already is, as a walk leaves it)."""
        ls = self.lines
        if all(ls[i] <= ls[i + 1] for i in range(len(ls) - 1)):
            return self
        order = sorted(range(len(ls)), key=ls.__getitem__)
        out = Findings(first_break_only=self.first_break_only)
        out._broke = self._broke
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
            tuple(a) == tuple(b) for a, b in zip(self, other, strict=True)
        )

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
                why.append(
                    f"{_count(self.prechain, 'row')} before the chain began at line "
                    f"{self.first_chained_line} not verified"
                )
        declared = [f.line for f in self.findings if f.kind == "declared"]
        if declared:
            shown = ", ".join(str(n) for n in declared[:5]) + (", …" if len(declared) > 5 else "")
            why.append(
                f"declared break{'s' if len(declared) > 1 else ''} at "
                f"line{'s' if len(declared) > 1 else ''} {shown}"
            )
        return "; ".join(why) or f"scope {self.verified_scope}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "rows": self.rows,
            "chained": self.chained,
            "prechain": self.prechain,
            "first_break": self.first_break,
            "breaks": self.breaks,
            "verified_scope": self.verified_scope,
            "declared_breaks": self.declared_breaks,
            "declared": list(self.declared),
        }


def _count(n: int, word: str) -> str:
    return f"{n:,} {word}{'s' if n != 1 else ''}"
