"""What an evidence file was when it was checked: its hash, size, kind and head.

`read_evidence(path)` opens the file once and takes everything from that descriptor:
the SHA-256 and byte count of its bytes and, for a ledger, its head (object rows and
the last row's `chain`). The file's identity (device, inode, size, mtime) is kept so
`changed_since(ev)` can say whether the path still names those same bytes after a
check read it: a check whose file changed under it is not a check of the recorded bytes.

A folder (an evidence pack, an artefacts folder) is hashed as a tree: the SHA-256 of
one line `relative-path NUL sha256 NUL size LF` per regular file, in sorted order
(`tree_digest`); its identity is that digest.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from typing import Any

from sealscope.core import kinds as _kinds
from sealscope.core import lines as _lines
from sealscope.core.ledger_read import rows_in

__all__ = ["Evidence", "Unreadable", "read_evidence", "changed_since", "tree_digest", "sha256_of"]

_BLOCK = 1 << 20


@dataclass(frozen=True)
class Evidence:
    """One evidence file or folder as read: `path` as given, `resolved` absolute."""

    path: str
    resolved: str
    sha256: str
    bytes: int
    kind: str | None
    head: dict[str, Any] | None
    tree: bool
    identity: tuple[int, ...] | str

    def fields(self) -> dict[str, Any]:
        """The `evidence` entry's fields, in row order."""
        return {
            "path": self.path,
            "resolved": self.resolved,
            "sha256": self.sha256,
            "bytes": self.bytes,
            "kind": self.kind,
            "head": self.head,
            "tree": self.tree,
        }


@dataclass(frozen=True)
class Unreadable:
    """A path that could not be read: `why` in words."""

    path: str
    resolved: str
    why: str
    missing: bool


def _identity(st: os.stat_result) -> tuple[int, ...]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns)


def _hash_fd(fd: int) -> tuple[str, int]:
    h = hashlib.sha256()
    n = 0
    offset = 0
    while True:
        piece = os.pread(fd, _BLOCK, offset)
        if not piece:
            break
        h.update(piece)
        n += len(piece)
        offset += len(piece)
    return h.hexdigest(), n


def _ledger_head(fh: Any) -> dict[str, Any]:
    rows = 0
    chain: Any = None
    for _line, value in rows_in(_lines.FileSource(fh)):
        if isinstance(value, dict):
            rows += 1
            chain = value.get("chain")
    return {"rows": rows, "chain": chain}


def tree_digest(folder: str) -> tuple[str, int]:
    """(the folder's tree digest, its files' total bytes); OSError when unreadable."""
    listed: list[tuple[str, str]] = []
    for root, dirs, files in os.walk(folder, onerror=_raise):
        dirs.sort()
        for name in files:
            full = os.path.join(root, name)
            listed.append((os.path.relpath(full, folder), full))
    h = hashlib.sha256()
    total = 0
    for rel, full in sorted(listed):
        try:
            fh = _lines.open_regular(full)
        except _lines.NotRegularFile:
            continue  # a link to a FIFO or a device is no content
        with fh:
            digest, size = _hash_fd(fh.fileno())
        total += size
        h.update(rel.encode("utf-8", "surrogateescape") + b"\0")
        h.update(f"{digest}\0{size}\n".encode())
    return h.hexdigest(), total


def _raise(e: OSError) -> None:
    raise e


def sha256_of(path: str) -> str | None:
    """The SHA-256 of a file (a folder's tree digest); None when it cannot be read."""
    got = read_evidence(path, with_kind=False)
    return got.sha256 if isinstance(got, Evidence) else None


def read_evidence(path: str, *, with_kind: bool = True) -> Evidence | Unreadable:
    """`path` read once (see the module docstring). Never raises."""
    resolved = os.path.abspath(path)
    try:
        if os.path.isdir(path):
            digest, size = tree_digest(path)
            kind = _kinds.identify(path).kind if with_kind else None
            return Evidence(path, resolved, digest, size, kind, None, True, digest)
        with _lines.open_regular(path) as fh:
            before = _identity(os.fstat(fh.fileno()))
            digest, size = _hash_fd(fh.fileno())
            kind = _kinds.identify(path).kind if with_kind else None
            head = _ledger_head(fh) if kind == _kinds.LEDGER else None
            after = _identity(os.fstat(fh.fileno()))
    except FileNotFoundError:
        return Unreadable(path, resolved, "missing", True)
    except OSError as e:
        return Unreadable(path, resolved, e.strerror or type(e).__name__, False)
    except ValueError as e:  # a NUL in the name
        return Unreadable(path, resolved, str(e), False)
    if before != after or size != before[2]:
        return Unreadable(path, resolved, "the file changed while it was read", False)
    return Evidence(path, resolved, digest, size, kind, head, False, before)


def changed_since(ev: Evidence) -> str | None:
    """None when `ev.path` still names the bytes `ev` read; else what changed."""
    try:
        if ev.tree:
            now = tree_digest(ev.path)[0]
            return None if now == ev.identity else "the folder changed while it was checked"
        st = os.stat(ev.path)
    except OSError as e:
        return f"cannot be read after the check: {e.strerror or type(e).__name__}"
    if _identity(st) != ev.identity:
        return "the file changed while it was checked"
    return None
