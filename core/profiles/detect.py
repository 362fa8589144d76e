"""Applying the profile table (KINDS-3.md §15.2) to one path §1 has classified.

`detect(found)` never raises and never changes `found`: a path §1 called none
(`unreadable`) is looked at as a folder (P1) or as one whole JSON document (strict
UTF-8, plain parse; P2–P4); a `ledger` by its first object line (split on LF,
stripped, plain-parsed, lines that are not objects skipped; P5–P9). Anything else, or
a path that cannot be read again, has no profile.
"""

from __future__ import annotations

import os
import stat as _stat
from dataclasses import dataclass
from typing import Any

from sealscope.core import kinds as _kinds
from sealscope.core import lines as _lines
from sealscope.core.checks._read import NotADocument, read_document
from sealscope.core.profiles import DOCUMENT, FIRST_ROW, FOLDER, PROFILES, Profile
from sealscope.core.profiles import reading as _r

__all__ = ["Detected", "detect", "first_object_row"]

_FIRST_ROW_LIMIT = _kinds.SNIFF_LIMIT


@dataclass(frozen=True)
class Detected:
    """A path's profile (None: none) and what it was recognised by: the parsed
    document (P2–P4) or the first object line (P5–P9)."""

    profile: Profile | None
    document: Any = None
    first_row: dict[str, Any] | None = None

    @property
    def name(self) -> str | None:
        return self.profile.name if self.profile else None


NONE = Detected(None)


def first_object_row(path: str) -> dict[str, Any] | None:
    """The first line of the file that strips to a plain-parsed object (within the
    classifier's sniff limit); None when there is none or it cannot be read."""
    try:
        with _lines.open_regular(path) as fh:
            read = 0
            for raw in fh:
                read += len(raw)
                if read > _FIRST_ROW_LIMIT:
                    return None
                text = _lines.decode_line(raw)
                if not text:
                    continue
                try:
                    value = _r.plain(text)
                except ValueError:
                    continue
                if isinstance(value, dict):
                    return value
    except OSError:
        return None
    return None


def _safe(test: Any, value: Any) -> bool:
    try:
        return bool(test(value))
    except (ValueError, RecursionError, TypeError):
        return False


def _of(looks_at: str, value: Any, **held: Any) -> Detected:
    for p in PROFILES:
        if p.looks_at == looks_at and _safe(p.test, value):
            return Detected(p, **held)
    return NONE


def detect(found: _kinds.Identified) -> Detected:
    """The profile of one identified path (module docstring). Never raises."""
    try:
        return _detect(found)
    except (OSError, ValueError, RecursionError, MemoryError):
        return NONE


def _detect(found: _kinds.Identified) -> Detected:
    if found.kind == _kinds.LEDGER:
        row = first_object_row(found.path)
        return NONE if row is None else _of(FIRST_ROW, row, first_row=row)
    if found.kind is not None or found.reason_word != _kinds.UNREADABLE_WORD:
        return NONE
    try:
        mode = os.stat(found.path).st_mode
    except (OSError, ValueError):
        return NONE
    if _stat.S_ISDIR(mode):
        return _of(FOLDER, found.path)
    if not _stat.S_ISREG(mode):
        return NONE
    try:
        _text, value = read_document(found.path)
    except (OSError, NotADocument, RecursionError):
        return NONE
    if not isinstance(value, dict):
        return NONE
    return _of(DOCUMENT, value, document=value)
