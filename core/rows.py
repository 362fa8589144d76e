"""How a ledger line reads as a row: the one home of that rule, for the verifier and
every frontend. Also a line's kind (`row_kind`) and its status in a verified file
(`row_status`).

**The reading** (`read_line`; `fast_object` its fast half, `exact_line` the rest): a
line's bytes, without their terminator and stripped, are

* blank when nothing is left once decoded (UTF-8, invalid bytes replaced, Python
  whitespace stripped, as `lines.decode_line` gives it);
* an object row, read by orjson alone, when they are well formed: they start `{`,
  end `}`, are not near the nesting limit (`nesting.near_limit`), orjson reads them
  (strict UTF-8, no NaN, no lone surrogate escapes) and its compact re-dump equals
  the line once JSON white space is removed (it only ever stands between tokens of
  a line orjson reads), so the text has exactly the value's members (no
  duplicate key) and its numbers spelled as a round trip spells them (no big integer
  read as a float, no `-0`);
* otherwise what the verify walk's exact reader (`nesting.read_row`) makes of the
  decoded text: unparseable (including nesting past the reference command's limit),
  or a value that is an object or not, carrying `duplicate key 'k'` when a key
  repeats (the verifier's refusal; the value is then the last-wins reading, as the
  walk hashes it, or none when that fails too).

CR, CRLF and a lone CR end lines before a line reaches here (`lines.split_window`);
U+2028, U+0085, VT and FF stay content. The verify walk (`walk`), the mismatch
explainer (`explain`), the fleet's first-row test (`first_object`) and the viewer all
read lines through this module. Beside it: the value the other row readers take
(`row_value`: receipts, lookups, the tip, a follower; last wins after a duplicate key)
and the declaration pre-scan's one-frame-deeper plain parse (`declaration_value`).

The status of a line (`STATUSES`): blank; a finding of the verifier's on the line is a
break (an unparseable or non-object line named by a finding is unparseable) or a
declared break; before the verdict everything else is pending; after it, a line that
is not an object is unparseable, an object before the first chained line (all of them
when the chain never began) prechain, every other line ok.

A module of its own, so a reader that only displays rows does not load the verifier.
"""

from __future__ import annotations

from typing import Any, NamedTuple

import orjson
from sealscope.core.lines import Buffer, decode_line, iter_windows
from sealscope.core.nesting import near_limit, read_declaration, read_row, read_value

__all__ = [
    "row_kind",
    "Line",
    "fast_object",
    "exact_line",
    "read_line",
    "row_value",
    "declaration_value",
    "first_object",
    "STATUSES",
    "row_status",
]

STATUSES = ("ok", "break", "declared", "prechain", "unparseable", "blank", "pending")
"""Every status of a line, in the order a filter offers them."""

_SPACE = b" \t\n\r"  # JSON's white space, only ever between tokens of a line orjson reads
FIRST_ROW_STEP = 64 << 10  # `first_object` reads this much at a time


def row_kind(row: dict[str, Any]) -> str:
    """A row's kind for display: `kind`, else `op`, else `tool`, else empty."""
    for key in ("kind", "op"):
        v = row.get(key)
        if isinstance(v, str):
            return v
    return "tool" if isinstance(row.get("tool"), str) else ""


class Line(NamedTuple):
    """One line as the verifier reads it. `state`: "blank", "object", "nonobject" or
    "unparseable"; `value` the value read (last wins after a duplicate key, as the
    walk hashes it); `duplicate` the verifier's reason when the row carries a key
    twice (`duplicate key 'k'`), else None; `text` the decoded, stripped line."""

    state: str
    value: Any = None
    duplicate: str | None = None
    text: str = ""

    @property
    def kind(self) -> str:
        """The row's kind (`row_kind`); none for a row the verifier refuses for a
        duplicate key, or for what is not an object."""
        if self.state != "object" or self.duplicate is not None:
            return ""
        return row_kind(self.value)


def fast_object(raw: bytes) -> dict[str, Any] | None:
    """The object a well-formed line reads as, by orjson alone (the module's rule), or
    None: the line is not well formed and `exact_line` reads it. `raw` is stripped."""
    if raw[:1] != b"{" or raw[-1:] != b"}" or near_limit(raw):
        return None
    try:
        obj = orjson.loads(raw)
        same = orjson.dumps(obj).translate(None, _SPACE) == raw.translate(None, _SPACE)
    except (orjson.JSONDecodeError, TypeError):  # TypeError: too deep to re-dump
        return None
    return obj if same else None


def exact_line(raw: bytes) -> Line:
    """A line's bytes read by the verify walk's exact reader (the module's rule), for a
    line `fast_object` does not take; the same answer for one it does."""
    text = decode_line(raw)
    if not text:
        return Line("blank")
    try:
        parsed = read_row(text, raw)
    except ValueError:
        return Line("unparseable", text=text)
    if not parsed.ok:
        return Line("unparseable", None, parsed.duplicate, text)
    state = "object" if isinstance(parsed.value, dict) else "nonobject"
    return Line(state, parsed.value, parsed.duplicate, text)


def read_line(raw: bytes) -> Line:
    """A line's bytes (without its terminator) read as the verify walk reads them."""
    obj = fast_object(raw)
    if obj is not None:
        return Line("object", obj, None, raw.decode("utf-8"))
    return exact_line(raw)


def row_value(text: str, raw: bytes | str | None = None) -> Any:
    """A decoded, stripped line's value as every reader of rows beside the walk sees it
    (receipts, lookups, the chain at a line, the tip, a follower): the last-wins value
    where the walk refuses a duplicate key (`nesting.read_value`). ValueError where the
    walk calls the line unparseable. `raw` (its bytes) saves re-counting brackets."""
    return read_value(text, raw)


def declaration_value(text: str) -> Any:
    """A decoded line as the declaration pre-scan reads it: a plain (last-wins) parse,
    one frame deeper than the walk's (`nesting.read_declaration`). ValueError when the
    pre-scan would not read it."""
    return read_declaration(text)


def first_object(buf: Buffer, step: int = FIRST_ROW_STEP) -> dict[str, Any] | None:
    """The first line of `buf` that reads as an object row (duplicate keys: the
    last-wins value, as every row reader sees it), lines split as the verifier splits
    them; None when no line does. Reads `step` bytes at a time from the start, so a
    file whose first row is near its start is read only that far."""
    for _s, _e, lines in iter_windows(buf, 0, None, step):
        for raw in lines:
            line = read_line(raw.strip())
            if line.state == "object":
                return line.value  # type: ignore[no-any-return]
    return None


def row_status(
    state: str, line: int, finding_kind: str | None, first_chained: int, verified: bool
) -> str:
    """The status of line `line` read in `state` (`Line.state`), given the verifier's
    finding on it ("break", "declared" or None), the first chained line (0: none) and
    whether the verdict is in (see the module's docstring)."""
    if state == "blank":
        return "blank"
    if finding_kind == "break":
        return "unparseable" if state in ("unparseable", "nonobject") else "break"
    if finding_kind == "declared":
        return "declared"
    if not verified:
        return "pending"
    if state != "object":
        return "unparseable"
    if not first_chained or line < first_chained:
        return "prechain"
    return "ok"
