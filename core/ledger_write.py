"""Writing a ledger: `append` a chained row, `declare_break`, under one append lock.

A row is chained from the file's tail chain (`ledger_read.tail_chain`), written in one
write under an advisory lock on `<path>.lock`, fsynced, and confirmed landed, else
`LedgerWriteError`. Only a regular file is appended to: a FIFO or a device is refused at
once, never waited on.
"""

from __future__ import annotations

import hashlib
import os
import stat
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, BinaryIO

from sealscope.core import lines as _lines
from sealscope.core.chain import DECLARE_OP, link
from sealscope.core.clock import utc_stamp
from sealscope.core.jsonio import dumps_row
from sealscope.core.ledger_read import tail_chain

# --------------------------------------------------------------------------- writing


class LedgerWriteError(OSError):
    """The bytes did not land; nothing was recorded."""


@contextmanager
def _append_lock(path: Path, timeout: float = 15.0) -> Iterator[None]:
    """Exclusive advisory lock on `<path>.lock`; proceeds unlocked after `timeout`."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - non-POSIX
        yield
        return
    lock_path = path.with_name(path.name + ".lock")
    try:
        fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError:
        yield
        return
    locked = False
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                locked = True
                break
            except OSError:
                if time.monotonic() >= deadline:
                    break
                time.sleep(0.01)
        yield
    finally:
        if locked:
            try:
                fcntl.flock(fd, fcntl.LOCK_UN)
            except OSError:
                pass
        os.close(fd)


def authority(
    principal: str,
    *,
    capability_version: str | None = None,
    tool_schema: Any = None,
    time_source: str = "local",
) -> dict[str, Any]:
    """An authority block: principal, time_source, then optional capability_version and
    tool_schema_hash (first 16 hex of sha256 of the sorted default-separator dump)."""
    import json

    out: dict[str, Any] = {"principal": principal, "time_source": time_source}
    if capability_version is not None:
        out["capability_version"] = capability_version
    if tool_schema is not None:
        text = json.dumps(tool_schema, ensure_ascii=False, sort_keys=True)
        out["tool_schema_hash"] = hashlib.sha256(text.encode("utf-8")).hexdigest()[:16]
    return out


def append(
    path: str | os.PathLike[str], record: dict[str, Any], *, authority: dict[str, Any] | None = None
) -> str:
    """Append one row; return its chain. Stamps `ts` when absent, puts `chain` last,
    heals a missing final newline, refuses a lone surrogate (UnicodeEncodeError)
    before writing, fsyncs, and confirms the bytes landed. Only a regular file is
    appended to: a FIFO or a device is refused at once (an OSError), never waited on."""
    p = Path(path)
    obj = dict(record)
    if authority is not None:
        obj["authority"] = authority
    obj.setdefault("ts", utc_stamp())
    obj.pop("chain", None)
    p.parent.mkdir(parents=True, exist_ok=True)
    with _append_lock(p):
        chain = link(tail_chain(p), obj)
        obj["chain"] = chain
        payload = (dumps_row(obj) + "\n").encode("utf-8")
        sep = b""
        try:
            with _lines.open_regular(p) as rf:
                rf.seek(0, os.SEEK_END)
                if rf.tell() > 0:
                    rf.seek(-1, os.SEEK_END)
                    if rf.read(1) != b"\n":
                        sep = b"\n"
        except OSError:
            pass
        payload = sep + payload
        with _open_append(p) as fh:
            fh.write(payload)
            fh.flush()
            try:
                os.fsync(fh.fileno())
            except OSError:
                pass
            landed = fh.tell()
        if landed < len(payload):
            raise LedgerWriteError(
                f"wrote {len(payload)} bytes to {p} but the file holds "
                f"{landed}; nothing was recorded"
            )
    return chain


def _open_append(p: Path) -> BinaryIO:
    """`p` opened to append (created when missing): a regular file only. Opened
    without blocking and checked before a byte is written, so a FIFO (whose open waits
    for a reader) or a device is refused at once (`lines.NotRegularFile`, an OSError)."""
    fd = os.open(
        p,
        os.O_WRONLY
        | os.O_APPEND
        | os.O_CREAT
        | getattr(os, "O_NONBLOCK", 0)
        | getattr(os, "O_CLOEXEC", 0),
        0o644,
    )
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _lines.NotRegularFile(p)
        if hasattr(os, "set_blocking"):
            os.set_blocking(fd, True)
        return os.fdopen(fd, "ab")
    except BaseException:
        os.close(fd)
        raise


def declare_break(
    path: str | os.PathLike[str],
    orphan_line: int,
    why: str,
    *,
    resume_prev: str | None = None,
    authority: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Append a `chain_break_declared` row pinning line `orphan_line`'s stripped text by
    sha256. Refuses (ValueError) a blank `why`, a non-int line, an unreadable file, a
    line outside the file, a blank line, or a non-string `resume_prev`."""
    if not isinstance(why, str) or not why.strip():
        raise ValueError(f"declare_break needs a non-empty `why`: {why!r}")
    if not isinstance(orphan_line, int) or isinstance(orphan_line, bool):
        raise ValueError(f"orphan_line must be an int line number, got {orphan_line!r}")
    try:
        text = _lines.read_text(path, errors="replace")
    except OSError as e:
        raise ValueError(f"cannot read {path}: {e}") from None
    split = text.split("\n")
    if not 1 <= orphan_line <= len(split):
        raise ValueError(f"line {orphan_line} is not in {path}")
    orphan = split[orphan_line - 1].strip()
    if not orphan:
        raise ValueError(f"line {orphan_line} of {path} is blank; nothing to pin")
    if resume_prev is not None and not isinstance(resume_prev, str):
        raise ValueError(f"resume_prev must be a chain string, got {resume_prev!r}")
    row: dict[str, Any] = {
        "op": DECLARE_OP,
        "orphan_line": orphan_line,
        "orphan_sha256": hashlib.sha256(orphan.encode("utf-8", "surrogatepass")).hexdigest(),
        "why": why.strip(),
    }
    if resume_prev is not None:
        row["resume_prev"] = resume_prev
    chain = append(path, row, authority=authority)
    row = dict(row)
    if authority is not None:
        row["authority"] = authority
    row["chain"] = chain
    return row
