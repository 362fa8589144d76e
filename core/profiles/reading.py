"""How the long-tail checks read a file (KINDS-3.md §16–§23): the one home of the line
split, the plain parse and the "cannot be read without guessing" rule they share.

* `text_lines(path)`: the file's lines as a text-mode read gives them (UTF-8 with
  undecodable bytes replaced, `\\r\\n` and a lone `\\r` both ending a line), one line
  at a time, so memory is bounded by the longest line. OSError when the path cannot be
  opened as a regular file (never a FIFO or device).
* `object_rows(path)`: (row number, row) of every line that strips to a plain-parsed
  JSON object, rows numbered as the verifier numbers chained rows (objects only).
* `cannot_read(label, path)`: the first line a chain verdict cannot be trusted on — a
  line nested deeper than `MAX_DEPTH` levels, or one holding a duplicate key that does
  not parse even last-wins — named with its cause in brackets; None when there is none.
* `one_file(path)`: a name bound to one open file for every read of a check (the
  line scan, the chain walk, the rows), so the bytes behind one answer are one
  file's even when the path is replaced meanwhile.
* `refusal(...)`: the four could-not-look keys (`looked_for`, `where`, `reason_word`,
  `reason`) every check carries beside a COULD NOT LOOK.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from sealscope.core import lines as _lines
from sealscope.core.jsonio import DuplicateKeyError, loads, loads_strict

__all__ = [
    "MAX_DEPTH",
    "MISSING",
    "UNREADABLE",
    "BOUNDED",
    "EMPTY",
    "NAME_NOT_FOUND",
    "text_lines",
    "object_rows",
    "plain",
    "cannot_read",
    "refusal",
    "stat_refusal",
    "one_file",
]

# a row is flat: a line opening more levels than this is never read by guessing
MAX_DEPTH = 512

MISSING = "missing"
UNREADABLE = "unreadable"
BOUNDED = "bounded"
EMPTY = "empty"
NAME_NOT_FOUND = "name_not_found"


def text_lines(path: str | os.PathLike[str]) -> Iterator[str]:
    """Every line of the file as `read_text(errors="replace").split("\\n")` gives it
    (a trailing LF gives a last empty line). OSError when it cannot be read."""
    with _lines.open_regular(path) as fh:
        last = b""
        for raw in fh:
            last = raw
            text = raw.decode("utf-8", "replace")
            if text.endswith("\n"):
                text = text[:-1]
                if text.endswith("\r"):
                    text = text[:-1]
            yield from text.split("\r") if "\r" in text else (text,)
        if last.endswith(b"\n") or not last:
            yield ""


def plain(text: str) -> Any:
    """Plain parse (duplicate keys: last wins). ValueError on anything it refuses."""
    return loads(text)


def object_rows(path: str | os.PathLike[str]) -> Iterator[tuple[int, dict[str, Any]]]:
    """(row number, row) of every stripped line that parses as an object."""
    n = 0
    for raw in text_lines(path):
        raw = raw.strip()
        if not raw:
            continue
        try:
            row = plain(raw)
        except ValueError:
            continue
        if isinstance(row, dict):
            n += 1
            yield n, row


def _depth_before_stop(raw: str) -> int:
    """The deepest nesting a JSON parser opens on `raw` before it stops (at the end
    when it parses, at the error when not); brackets inside strings do not count."""
    stop = len(raw)
    try:
        json.loads(raw)
    except json.JSONDecodeError as e:
        stop = e.pos
    except (ValueError, RecursionError):
        pass
    depth = best = 0
    in_str = esc = False
    for c in raw[:stop]:
        if in_str:
            if esc:
                esc = False
            elif c == "\\":
                esc = True
            elif c == '"':
                in_str = False
        elif c == '"':
            in_str = True
        elif c in "[{":
            depth += 1
            best = max(best, depth)
        elif c in "]}":
            depth -= 1
    return best


def cannot_read(label: str, path: str | os.PathLike[str]) -> tuple[int, str] | None:
    """(line number, reason) of the first line the chain cannot be trusted on, or None.
    OSError when the file cannot be read."""
    for i, raw in enumerate(text_lines(path), 1):
        raw = raw.strip()
        if not raw:
            continue
        if raw.count("[") + raw.count("{") > MAX_DEPTH and _depth_before_stop(raw) > MAX_DEPTH:
            return (
                i,
                f"{label} line {i} is nested deeper than {MAX_DEPTH} levels [nesting_too_deep]",
            )
        try:
            loads_strict(raw)
        except DuplicateKeyError:
            try:
                loads(raw)
            except ValueError:
                return i, (
                    f"{label} line {i} holds a duplicate key and does not parse "
                    "[duplicate_key_unparseable]"
                )
        except ValueError:
            pass  # unparseable: the chain names it as a break
    return None


def refusal(looked_for: Any, where: Any, reason_word: str, reason: str) -> dict[str, Any]:
    """The could-not-look keys of one refusal."""
    return {"looked_for": looked_for, "where": where, "reason_word": reason_word, "reason": reason}


def stat_refusal(label: str, path: str, what: str) -> dict[str, Any] | None:
    """The refusal for a path that is missing, cannot be stat-ed or is a folder; None
    when it is something to open."""
    try:
        os.stat(path)
    except FileNotFoundError:
        return refusal(label, path, MISSING, f"{label} not found: {path}")
    except (OSError, ValueError) as e:
        return refusal(label, path, UNREADABLE, f"{label} unreadable: {e}")
    if os.path.isdir(path):
        return refusal(label, path, UNREADABLE, f"{label} is a directory, not {what}: {path}")
    return None


@contextmanager
def one_file(path: str) -> Iterator[str]:
    """A name for the file `path` names now, held open for the block: every read
    through it opens that same file (`/proc/self/fd/N`), whatever `path` names later.
    Where there is no such name, or the path cannot be opened (the reads then say
    why), `path` itself."""
    try:
        fh = _lines.open_regular(path)
    except (OSError, ValueError):
        yield path
        return
    with fh:
        via = f"/proc/self/fd/{fh.fileno()}"
        yield via if os.path.exists(via) else path
