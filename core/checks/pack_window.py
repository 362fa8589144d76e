"""Evidence packs, check 3 (KINDS.md §8.2): `window rows equal their records lines`,
and the window's line numbers as check 4 compares them with the window selected
again. Both stream window.jsonl and records.jsonl, holding one line of each at a
time (rows out of order are matched in a second pass)."""

from __future__ import annotations

import json
from typing import Any

from sealscope.core.checks.pack import (
    CHECKS,
    MANIFEST,
    RECORDS,
    WINDOW,
    Raised,
    _cnl,
    _finish,
    _get,
    _missing,
    _Pack,
)
from sealscope.core.checks.pack_records import add_line, chunks_of, line_digest, nonblank_lines

__all__ = ["step_window", "window_line_values"]


def window_line_values(p: _Pack) -> tuple[int, Any, bool]:
    """(lines, digest, all integers) of the `line` values window.jsonl's lines name
    (a line that is not an object naming one names None), streamed: what the window
    selected again is compared with (`Selected.digest`). Check 3 gathers them as it
    reads the window (`_Pack.window_values`); read here when it did not."""
    if p.window_values is not None:
        return p.window_values
    values = _WindowValues()
    for line in p.m.lines(WINDOW):
        values.add(_parsed(line))
    return values.result()


def _parsed(line: bytes) -> Any:
    """A window line parsed (UTF-8 JSON), None when it is not."""
    try:
        return json.loads(line.decode("utf-8"))
    except ValueError:
        return None


class _WindowValues:
    def __init__(self) -> None:
        self.count, self.digest, self.whole = 0, line_digest(), True

    def add(self, w: Any) -> None:
        self.count += 1
        v = w.get("line") if isinstance(w, dict) else None
        self.whole = add_line(self.digest, v) and self.whole

    def result(self) -> tuple[int, Any, bool]:
        return self.count, self.digest, self.whole


def _line_of_rows(p: _Pack, deferred: dict[int, list[tuple[int, bytes]]]) -> list[int]:
    """The row indexes whose raw text is not their records line: a second pass over
    every records line, for the rows the ordered pass could not place."""
    differ = []
    found: set[int] = set()
    for n, line in enumerate(p.record_lines(), start=1):
        for k, mine in deferred.get(n, ()):
            found.add(k)
            if mine != line:
                differ.append(k)
    differ += [k for rows in deferred.values() for k, _ in rows if k not in found]
    return differ


def step_window(p: _Pack) -> dict[str, Any]:
    """3. Every `window.jsonl` line is `{"line": int, "raw": str}` whose raw text
    (UTF-8) is that records line's bytes, and the lines named are the manifest's
    `window.lines` (COULD NOT LOOK when that is not a list). Streamed: window rows in
    increasing line order are matched in one pass over the records; any other row
    (out of order, or whitespace naming a blank line) in a second."""
    check = CHECKS[2]
    gone = _missing(
        p, check, (WINDOW, RECORDS), "the window rows could not be compared with the records"
    )
    if gone is not None:
        return gone
    listed = _get(p.manifest.get("window"), "lines")
    differ: list[tuple[int, int]] = []  # (window row index, ledger line)
    deferred: dict[int, list[tuple[int, bytes]]] = {}
    lines_of: dict[int, int] = {}
    unreadable: list[int] = []
    seen = 0
    same_as_listed = isinstance(listed, list)
    with p.m.open(RECORDS) as fh:
        records = nonblank_lines(chunks_of(fh))
        at, here = 0, b""
        values = _WindowValues()
        for k, line in enumerate(p.m.lines(WINDOW)):
            w = _parsed(line)
            values.add(w)
            ln, raw = (w.get("line"), w.get("raw")) if isinstance(w, dict) else (None, None)
            if not isinstance(ln, int) or isinstance(ln, bool) or not isinstance(raw, str):
                unreadable.append(k + 1)  # not {"line": int, "raw": str}
                continue
            if same_as_listed and (seen >= len(listed) or listed[seen] != ln):
                same_as_listed = False
            seen += 1
            if ln < 1:
                differ.append((k, ln))
                continue
            try:
                mine = raw.encode("utf-8")
            except UnicodeEncodeError:
                raise Raised("UnicodeEncodeError") from None  # a lone surrogate in `raw`
            if ln >= at:
                while at < ln:
                    at, here = next(records, (2**63, b""))
                if at == ln:
                    if mine != here:
                        differ.append((k, ln))
                    continue
                if mine.strip():  # line ln is blank (or past the end): not this text
                    differ.append((k, ln))
                    continue
            lines_of[k] = ln  # out of order, or whitespace naming a blank line
            deferred.setdefault(ln, []).append((k, mine))
    p.window_values = values.result()
    late = set(_line_of_rows(p, deferred)) if deferred else set()
    differ += [(k, lines_of[k]) for k in late]
    differ_lines = [ln for _k, ln in sorted(differ)]
    res = {
        "check": check,
        "rows_checked": seen,
        "differ_lines": differ_lines,
        "unreadable_window_rows": unreadable,
    }
    problems = []
    if differ:
        problems.append(
            f"window.jsonl rows differ from records.jsonl at ledger lines "
            f"{', '.join(map(str, differ_lines))}"
        )
    if unreadable:
        problems.append(f'window.jsonl rows {unreadable} are not {{"line": N, "raw": ...}}')
    if isinstance(listed, list) and not (same_as_listed and seen == len(listed)):
        problems.append(
            f"window.jsonl names {seen} ledger lines, not the {len(listed)} the manifest "
            "lists in its order"
        )
    if problems or isinstance(listed, list):
        return _finish(res, problems)
    return {
        **res,
        **_cnl(
            check,
            "the window's ledger line numbers",
            MANIFEST,
            "unreadable",
            "manifest.json has no `window.lines` list to compare the window against",
        ),
    }
