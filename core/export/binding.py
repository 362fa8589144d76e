"""What a report is bound to: the evidence file's bytes as read when the report is built.

A report attached to a ticket must say which file it judged, so that anyone holding a
file can tell whether it is the one audited. `bind(path, kind, rows=...)` gives:

* `sha256` and `bytes`: the SHA-256 (hex) and size of the file's bytes, read through
  `lines.open_regular` (a FIFO or device is refused, never waited on); both null, with
  `error` saying why, when the file cannot be read;
* `head` (a ledger only): `rows`, the rows the verdict counted, and `chain`, the chain
  the next append would continue from (`ledger.tail_chain`, the head a pin names);
  null for a snapshot or a harn transcript, which have no chain.

`generated_at` (a UTC second stamp, `clock.utc_stamp`) and `version` (sealscope's,
`core.version`) are the report's own and sit beside the evidence's binding.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from sealscope.core import lines as _lines

__all__ = ["bind", "file_digest"]

_BLOCK = 1 << 20


def file_digest(path: str | os.PathLike[str]) -> tuple[str, int]:
    """(SHA-256 hex, byte count) of a regular file's bytes; OSError when it cannot
    be read (a FIFO or device included, refused on the open)."""
    h = hashlib.sha256()
    size = 0
    with _lines.open_regular(path) as fh:
        for block in iter(lambda: fh.read(_BLOCK), b""):
            h.update(block)
            size += len(block)
    return h.hexdigest(), size


def bind(path: str | os.PathLike[str], kind: str, *, rows: int | None = None) -> dict[str, Any]:
    """The evidence binding of `path` read as `kind` (see the module docstring)."""
    out: dict[str, Any] = {"sha256": None, "bytes": None, "head": None}
    try:
        out["sha256"], out["bytes"] = file_digest(path)
    except OSError as e:
        out["error"] = e.strerror or type(e).__name__
        return out
    if kind == "ledger":
        from sealscope.core import ledger as _ledger

        out["head"] = {"rows": rows, "chain": _ledger.tail_chain(path)}
    return out
