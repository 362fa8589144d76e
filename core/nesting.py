"""How deep a ledger row may nest: the one home of that limit.

CPython's JSON parser and encoder recurse, one recursion unit per level of `[`/`{`, so
whether a deeply nested line is a row, `unparseable` or an `unhashable row
(RecursionError)` depends on how much of the interpreter's recursion budget (limit
1000) is left when the reference parses or hashes it. The authority is the reference's
command, `arcaeon verify FILE`, whose stack at its verifier is

    <module> (the console script) -> cli.main -> _verify -> verify_file

and from there: the walk's duplicate-refusing parse (and, after a duplicate key, the
last-wins re-parse) one frame down; the declaration pre-scan's plain parse two frames
down (inside `_scan_declarations`); the chain hash two frames down (`chain` ->
`body_digest` -> `json.dumps`).

Lines with enough brackets to come near that budget (`near_limit`) are parsed and
hashed here on a fresh thread whose stack is built to those same depths, through
calls shaped like the reference's (`json.loads` with an object-pairs hook, `json.dumps`
with sorted keys), so the result is the reference command's whatever our caller's
depth and whatever recursion limit our process runs under. Every other line is far
from the limit and is parsed in place. On CPython 3.11 this gives, counting levels of
`[`/`{` inside the row object: arrays up to 989 verify, 990 are `unhashable row
(RecursionError)`, 991 and deeper `unparseable`; objects up to 989 verify, 990 and
deeper `unparseable`; a duplicate key in the innermost of 989+ nested objects, or a
non-object line nested 992+ deep, is `unparseable`; a declaration row is honoured by
the pre-scan up to 989 levels.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any, NamedTuple

from sealscope.core.jsonio import DuplicateKeyError, dumps_body, loads, loads_strict

__all__ = [
    "NEAR_LIMIT_BRACKETS",
    "near_limit",
    "Parsed",
    "read_row",
    "read_value",
    "read_declaration",
    "row_body",
]

# A line with fewer brackets than this cannot nest near the limit, and parsing it in
# place is exact for any caller less than ~700 frames deep.
NEAR_LIMIT_BRACKETS = 256

# The reference command's depth at `verify_file` (see the module docstring), and the
# recursion limit it runs under.
_VERIFY_FILE_DEPTH = 4
_REFERENCE_LIMIT = 1000


def near_limit(raw: bytes | str) -> bool:
    """Whether a line has enough brackets that its nesting could reach the limit."""
    if len(raw) < NEAR_LIMIT_BRACKETS:
        return False
    if isinstance(raw, str):
        return raw.count("[") + raw.count("{") >= NEAR_LIMIT_BRACKETS
    return raw.count(b"[") + raw.count(b"{") >= NEAR_LIMIT_BRACKETS


# --------------------------------------------------------------------------- results


class Parsed(NamedTuple):
    """The verifier's reading of a line: `value` is the last-wins parse (None with
    `ok` false when the last-wins re-parse after a duplicate key failed too);
    `duplicate` is `duplicate key <repr>` when the duplicate-refusing parse found one."""

    value: Any
    duplicate: str | None = None
    ok: bool = True


# ----------------------------------------------------- calls shaped like the reference


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for k, v in pairs:
        if k in out:
            raise DuplicateKeyError(f"duplicate key {k!r}")
        out[k] = v
    return out


def _strict(text: str) -> Any:  # frame of the reference's loads_strict
    try:
        return json.loads(text, object_pairs_hook=_reject_duplicates)
    except RecursionError as e:
        raise ValueError(f"nesting too deep to parse: {e}") from None


def _plain(text: str) -> Any:  # frame of the reference's loads
    try:
        return json.loads(text)
    except RecursionError as e:
        raise ValueError(f"nesting too deep to parse: {e}") from None


def _walk_parse(text: str) -> Parsed:  # frame of verify_file
    try:
        return Parsed(_strict(text))
    except DuplicateKeyError as e:
        try:
            return Parsed(_plain(text), str(e))
        except ValueError:
            return Parsed(None, str(e), False)


def _scan_parse(text: str) -> Any:  # frame of verify_file
    return _scan_step(text)


def _scan_step(text: str) -> Any:  # frame of _scan_declarations
    return _plain(text)


def _walk_hash(obj: dict[str, Any]) -> str:  # frame of verify_file
    return _chain_step(obj)


def _chain_step(obj: dict[str, Any]) -> str:  # frame of the reference's chain
    return _body_step(obj)


def _body_step(obj: dict[str, Any]) -> str:  # frame of body_digest
    return json.dumps(obj, ensure_ascii=False, sort_keys=True)


# ------------------------------------------------------------- the reference's stack


class _AtDepth(threading.Thread):
    """Calls `fn(arg)` with `fn`'s frame at `depth` under a limit of 1000: padded with
    frames so the recursion budget left is the same whatever the real limit."""

    def __init__(self, depth: int, fn: Callable[[Any], Any], arg: Any):
        super().__init__(daemon=True, name="sealscope-nesting")
        self.call = (depth, fn, arg)
        self.result: Any = None
        self.error: BaseException | None = None
        self.short = 0  # frames missing (the process limit is too low to pad)

    def run(self) -> None:
        depth, fn, arg = self.call
        here = 0
        f: FrameType | None = sys._getframe()
        while f is not None:
            here += 1
            f = f.f_back
        # run() is frame `here`; _pad(k) adds k + 1 frames, then fn
        pad = depth + sys.getrecursionlimit() - _REFERENCE_LIMIT - here - 2
        if pad < 0:
            self.short = -pad
            return
        try:
            self.result = _pad(pad, fn, arg)
        except BaseException as e:  # noqa: BLE001 - re-raised in the caller's thread
            self.error = e


def _pad(k: int, fn: Callable[[Any], Any], arg: Any) -> Any:
    return _pad(k - 1, fn, arg) if k else fn(arg)


_LIMIT_LOCK = threading.Lock()


def _at_depth(depth: int, fn: Callable[[Any], Any], arg: Any) -> Any:
    """fn(arg) at the reference command's depth, on a fresh thread. One call at a time,
    so a limit lifted for one call is never seen by another."""
    with _LIMIT_LOCK:
        t = _AtDepth(depth, fn, arg)
        t.start()
        t.join()
        if t.short:
            # only under a recursion limit below ~1000: lift it for the one call
            old = sys.getrecursionlimit()
            sys.setrecursionlimit(old + t.short)
            try:
                t = _AtDepth(depth, fn, arg)
                t.start()
                t.join()
            finally:
                sys.setrecursionlimit(old)
    if t.error is not None:
        raise t.error
    return t.result


# --------------------------------------------------------------------------- API


def read_row(text: str, raw: bytes | str | None = None) -> Parsed:
    """The verify walk's parse of a decoded, stripped line: duplicate-refusing, then
    last-wins after a duplicate key. ValueError when the line is `unparseable`
    (including nesting past the reference command's limit). `raw` (the line's bytes)
    saves re-counting brackets on the text."""
    if near_limit(text if raw is None else raw):
        parsed: Parsed = _at_depth(_VERIFY_FILE_DEPTH, _walk_parse, text)
        return parsed
    try:
        return Parsed(loads_strict(text))
    except DuplicateKeyError as e:
        try:
            return Parsed(loads(text), str(e))
        except ValueError:
            return Parsed(None, str(e), False)


def read_value(text: str, raw: bytes | str | None = None) -> Any:
    """The value the verifier reads from a line (last wins on a duplicate key), for
    every reader that must see the rows the verifier sees (receipts, lookup, chain_at,
    the tip, the viewer). ValueError where the verifier calls the line unparseable."""
    if not near_limit(text if raw is None else raw):
        return loads(text)
    p = read_row(text, raw)
    if not p.ok:
        raise ValueError(p.duplicate)
    return p.value


def read_declaration(text: str) -> Any:
    """The declaration pre-scan's plain parse (one frame deeper than the walk's).
    ValueError when the pre-scan would not read the line."""
    if near_limit(text):
        return _at_depth(_VERIFY_FILE_DEPTH, _scan_parse, text)
    return loads(text)


def row_body(obj: dict[str, Any], deep: bool) -> str:
    """The chain body of a row (without `chain`); `deep` (the line was `near_limit`)
    hashes at the reference command's depth. RecursionError where the reference
    reports `unhashable row (RecursionError)`."""
    if deep:
        body: str = _at_depth(_VERIFY_FILE_DEPTH, _walk_hash, obj)
        return body
    return dumps_body(obj)
