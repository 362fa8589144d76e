"""Reading one whole-document evidence file the way the reference's readers do: the
file's bytes through `lines.open_regular` (never a FIFO or device), strict UTF-8,
Python parse (duplicate keys: last wins). Shared by the checkers of receipt files,
distill receipts, portable receipts and continuity verdicts."""

from __future__ import annotations

import os
from typing import Any

from sealscope.core import bound_reads as _bound
from sealscope.core import lines as _lines
from sealscope.core.jsonio import loads as _loads

__all__ = ["DOCUMENT_LIMIT", "NotADocument", "read_document", "none_result"]

DOCUMENT_LIMIT = 256 << 20  # a whole-document evidence file is read whole up to this


class NotADocument(ValueError):
    """The file is not one UTF-8 JSON document (or is too large to read whole)."""


def read_document(path: str | os.PathLike[str]) -> tuple[str, Any]:
    """(text, parsed value) of the file. OSError when it cannot be read,
    NotADocument when it is not one UTF-8 JSON document."""
    with _lines.open_regular(path) as fh:
        data = fh.read(DOCUMENT_LIMIT + 1)
    if len(data) > DOCUMENT_LIMIT:
        raise NotADocument(f"larger than {DOCUMENT_LIMIT >> 20} MiB")
    _bound.note_bytes(path, data)
    try:
        text = data.decode("utf-8")
        return text, _loads(text)
    except ValueError as e:  # UnicodeDecodeError is a ValueError
        raise NotADocument(str(e)) from None


def none_result(path: str, kind: str, why: str) -> dict[str, Any]:
    """The `detail` of a file its kind's checker could not read at all."""
    return {"reason_word": "unreadable", "error": why}
