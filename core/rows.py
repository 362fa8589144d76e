"""What a ledger line is to every frontend: read as the verifier reads it (`read_line`),
its kind (`row_kind`) and its status in a verified file (`row_status`).

The verifier refuses a row that carries a key twice (`line N: duplicate key 'k'`), so a
line is read here with duplicate keys detected, as the verify walk reads it
(`nesting.read_row`): such a line is a row the verifier refused, shown with that
reason and with no kind, never as the kind its last duplicate happens to spell. A
well-formed row (orjson reads it, and its compact re-dump has the same text once spaces
are removed: the same members, numbers spelled as they round-trip) is read by orjson
alone, the verifier's own fast-path rule; any other line takes the exact reader.

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
from sealscope.core.lines import decode_line
from sealscope.core.nesting import near_limit, read_row

__all__ = ["row_kind", "Line", "read_line", "STATUSES", "row_status"]

STATUSES = ("ok", "break", "declared", "prechain", "unparseable", "blank", "pending")
"""Every status of a line, in the order a filter offers them."""

_SPACE = b" \t\n\r"


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


def _well_formed(raw: bytes) -> Any:
    """orjson's value of a well-formed object line, else None (take the exact path)."""
    if raw[:1] != b"{" or raw[-1:] != b"}" or near_limit(raw):
        return None
    try:
        obj = orjson.loads(raw)
        same = orjson.dumps(obj).translate(None, _SPACE) == raw.translate(None, _SPACE)
    except (orjson.JSONDecodeError, TypeError):  # TypeError: too deep to re-dump
        return None
    return obj if same else None


def read_line(raw: bytes) -> Line:
    """A line's bytes (without its terminator) read as the verify walk reads them."""
    obj = _well_formed(raw)
    if obj is not None:
        return Line("object", obj, None, raw.decode("utf-8"))
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
