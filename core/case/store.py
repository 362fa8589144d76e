"""A case on disk: create it, append one entry, find a torn tail, repair it, read it.

Rules:
- A case is written only at the path the auditor named: `create` refuses an existing
  file and a missing folder (it makes none), `append` refuses a missing file. No lock
  file or any other file is left beside it.
- Every append is one `write` of the whole row and its newline on a descriptor opened
  with O_APPEND, fsynced, under an exclusive `flock` on the case file itself (held from
  reading the tail chain to the fsync), so two writers never interleave or fork the
  chain. The row is chained as the reference's `append` chains it (FORMATS.md §2.2–2.3).
- Before writing, the case must end in a newline (else its last line is torn: a crash
  mid-write; `CaseTorn` says how many bytes) and must verify in full (a case BROKEN
  or bounded gets nothing more: `CaseRefused`).
- `repair` cuts exactly the bytes after the last newline, and only when they are still
  the torn tail the caller was shown (`torn_tail`).
- `read_case` reads the file once: the chain's verdict, the entries and the head all
  come from those bytes. A case is a human-sized record; it is held in memory whole.
"""

from __future__ import annotations

import errno
import fcntl
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core import verdict as _verdict
from sealscope.core.case.rows import CASE_FORMAT, CaseEntry, entries_of
from sealscope.core.chain import GENESIS, VerifyResult, link
from sealscope.core.jsonio import dumps_row
from sealscope.core.ledger_read import rows_in
from sealscope.core.rows import row_value

__all__ = [
    "CaseError",
    "CaseTorn",
    "CaseRefused",
    "Torn",
    "CaseRead",
    "create",
    "append",
    "torn_tail",
    "repair",
    "read_case",
]

_PREVIEW = 60
_TAIL_BLOCK = 1 << 16


class CaseError(OSError):
    """A case could not be written or read; the message is one line for the auditor."""


class CaseTorn(CaseError):
    """The case's last line is torn: nothing is appended until it is repaired."""

    def __init__(self, path: str, torn: Torn) -> None:
        super().__init__(
            f"{path}: torn last line, {torn.length} bytes; nothing is appended until "
            f"`sealscope case repair` cuts them"
        )
        self.torn = torn


class CaseRefused(CaseError):
    """The case does not verify (or is not a case): nothing is appended to it."""


@dataclass(frozen=True)
class Torn:
    """The torn tail of a case: `length` bytes from `offset` (after the last newline);
    `preview` is its first bytes, for saying what a repair cuts."""

    offset: int
    length: int
    preview: bytes


def _open_case(path: str, flags: int) -> int:
    fd = os.open(path, flags | os.O_NONBLOCK | os.O_CLOEXEC, 0o644)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise CaseError(f"{path}: not a regular file")
        os.set_blocking(fd, True)
        return fd
    except BaseException:
        os.close(fd)
        raise


@contextmanager
def _locked(path: str, flags: int) -> Iterator[int]:
    """The case opened with `flags` and held under an exclusive flock (waits for it);
    CaseError when it cannot be opened."""
    try:
        fd = _open_case(path, flags)
    except FileNotFoundError:
        raise CaseError(f"{path}: no such case (`sealscope case new` makes one)") from None
    except CaseError:
        raise
    except OSError as e:
        raise CaseError(f"{path}: {e.strerror or type(e).__name__}") from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield fd
    finally:
        os.close(fd)  # closing the descriptor releases its lock


def _tail_of(fd: int) -> tuple[Torn | None, bytes]:
    """(the torn tail or None, the last complete line's bytes), read backwards."""
    size = os.fstat(fd).st_size
    if size == 0:
        return None, b""
    block = _TAIL_BLOCK
    while True:
        start = max(0, size - block)
        data = os.pread(fd, size - start, start)
        end = len(data)
        torn: Torn | None = None
        if not data.endswith(b"\n"):
            cut = data.rfind(b"\n")
            if cut < 0 and start > 0:
                block *= 4
                continue
            offset = start + cut + 1
            torn = Torn(offset, size - offset, os.pread(fd, min(_PREVIEW, size - offset), offset))
            end = cut + 1
        body = data[:end].rstrip(b"\n")
        cut = body.rfind(b"\n")
        if cut < 0 and start > 0:
            block *= 4
            continue
        return torn, body[cut + 1 :]


_FIRST_ROW_MAX = 1 << 16  # an `opened` row is short: a longer first line opens no case


def _opens_a_case(fd: int) -> bool:
    """Whether the file's first line is a `sealscope-case/1` `opened` row."""
    head = os.pread(fd, _FIRST_ROW_MAX, 0)
    end = head.find(b"\n")
    if end < 0:
        return False
    first = head[:end]
    try:
        value = row_value(first.decode("utf-8", "replace").strip(), first)
    except ValueError:
        return False
    return (
        isinstance(value, dict)
        and value.get("case") == CASE_FORMAT
        and value.get("entry") == "opened"
    )


def _chain_after(path: str, last: bytes) -> str:
    text = last.decode("utf-8", "replace").strip()
    try:
        value = row_value(text, last)
    except ValueError:
        raise CaseRefused(f"{path}: its last line is not a row; nothing is appended") from None
    chain = value.get("chain") if isinstance(value, dict) else None
    if not isinstance(chain, str) or not chain:
        raise CaseRefused(f"{path}: its last row carries no chain; nothing is appended")
    return chain


def _write_row(fd: int, path: str, row: dict[str, Any], prev: str) -> str:
    obj = dict(row)
    obj.pop("chain", None)
    chain = link(prev, obj)
    obj["chain"] = chain
    payload = (dumps_row(obj) + "\n").encode("utf-8")  # strict: a lone surrogate refused
    written = os.write(fd, payload)
    if written != len(payload):
        raise CaseError(
            f"{path}: wrote {written} of {len(payload)} bytes; the last line is torn "
            "(`sealscope case repair` cuts it)"
        )
    try:
        os.fsync(fd)
    except OSError:
        pass
    return chain


def create(path: str, row: dict[str, Any]) -> str:
    """Write a new case holding `row` (its `opened` entry); its chain. Refuses an
    existing file and a folder that does not exist (CaseError)."""
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise CaseError(f"{path}: the folder {folder} does not exist (none is made)")
    try:
        fd = _open_case(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_EXCL)
    except FileExistsError:
        raise CaseError(
            f"{path}: already exists; a new case is never written over a file"
        ) from None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        return _write_row(fd, path, row, GENESIS)
    finally:
        os.close(fd)


def append(path: str, row: dict[str, Any]) -> str:
    """Append one entry row to the case at `path`; its chain. CaseTorn when the last
    line is torn, CaseRefused when the case does not verify in full, CaseError when it
    cannot be opened or the bytes did not all land."""
    with _locked(path, os.O_RDWR | os.O_APPEND) as fd:
        torn, last = _tail_of(fd)
        if torn is not None:
            raise CaseTorn(path, torn)
        if not last:
            raise CaseRefused(f"{path}: empty; not a case")
        if not _opens_a_case(fd):
            raise CaseRefused(
                f"{path}: not a sealscope case (its first row opens none); nothing is appended"
            )
        # the locked descriptor's own file, even if the name was moved meanwhile
        res = _ledger.verify(f"/proc/self/fd/{fd}" if _PROC_FD else path)
        if res.ok is not True:
            where = res.first_break or res.reason() or "not verified in full"
            raise CaseRefused(f"{path}: the case does not verify ({where}); nothing is appended")
        return _write_row(fd, path, row, _chain_after(path, last))


_PROC_FD = os.path.isdir("/proc/self/fd")


def torn_tail(path: str) -> Torn | None:
    """The case's torn tail (None when it ends in a newline or is empty)."""
    try:
        fd = _open_case(path, os.O_RDONLY)
    except CaseError:
        raise
    except IsADirectoryError:
        raise CaseError(f"{path}: a folder, not a case") from None
    except OSError as e:
        raise CaseError(f"{path}: {e.strerror or type(e).__name__}") from None
    try:
        return _tail_of(fd)[0]
    finally:
        os.close(fd)


def repair(path: str, shown: Torn) -> None:
    """Cut the torn tail `shown` (and only it): under the lock, the tail must still be
    exactly those bytes, else CaseError and nothing is cut."""
    with _locked(path, os.O_RDWR) as fd:
        torn, _last = _tail_of(fd)
        if torn != shown:
            raise CaseError(f"{path}: the tail changed since it was shown; nothing was cut")
        os.ftruncate(fd, shown.offset)
        try:
            os.fsync(fd)
        except OSError:
            pass


@dataclass(frozen=True)
class CaseRead:
    """A case as read once: the chain's verdict, the entries, the head (`rows`, the
    last row's `chain`), the torn tail (None when whole), and `is_case` (its first row
    opens a `sealscope-case/1` case)."""

    path: str
    chain: VerifyResult
    entries: tuple[CaseEntry, ...]
    head_rows: int
    head_chain: str | None
    torn: Torn | None
    is_case: bool
    sha256: str | None

    @property
    def verdict(self) -> str:
        """The chain's word; a torn tail or a ledger that opens no case makes it no
        better than COULD NOT LOOK."""
        words = [self.chain.verdict]
        if self.torn is not None or not self.is_case:
            words.append(_verdict.COULD_NOT_LOOK)
        return _verdict.worst_word(words)

    @property
    def exit_code(self) -> int:
        return _verdict.code_of(self.verdict)

    def reason(self) -> str:
        """Why the case is not VERIFIED, in words ("" when it is)."""
        if self.torn is not None:
            return f"torn last line, {self.torn.length} bytes (`sealscope case repair` cuts them)"
        if not self.is_case and self.chain.ok is not False:
            return f"not a sealscope case (its first row does not open a {CASE_FORMAT} case)"
        return self.chain.reason()


def read_case(path: str) -> CaseRead:
    """Read the case at `path` once. OSError (CaseError) when it cannot be read."""
    import hashlib

    try:
        fd = _open_case(path, os.O_RDONLY)
    except IsADirectoryError:
        raise CaseError(f"{path}: a folder, not a case") from None
    except FileNotFoundError:
        raise CaseError(f"{path}: no such case") from None
    except CaseError:
        raise
    except OSError as e:
        raise CaseError(f"{path}: {e.strerror or type(e).__name__}") from None
    try:
        size = os.fstat(fd).st_size
        chunks: list[bytes] = []
        got = 0
        while got < size:
            piece = os.pread(fd, size - got, got)
            if not piece:
                break
            chunks.append(piece)
            got += len(piece)
        data = b"".join(chunks)
    except OSError as e:
        raise CaseError(
            f"{path}: {e.strerror or errno.errorcode.get(e.errno or 0, 'error')}"
        ) from None
    finally:
        os.close(fd)
    res = _ledger.verify_bytes(data)
    rows = list(rows_in(data))
    entries = entries_of(rows)
    torn: Torn | None = None
    if data and not data.endswith(b"\n"):
        offset = data.rfind(b"\n") + 1
        torn = Torn(offset, len(data) - offset, data[offset : offset + _PREVIEW])
    last_chain = None
    for _line, value in reversed(rows):
        if isinstance(value, dict):
            c = value.get("chain")
            last_chain = c if isinstance(c, str) else None
            break
    first = rows[0][1] if rows else None
    is_case = (
        isinstance(first, dict)
        and first.get("case") == CASE_FORMAT
        and first.get("entry") == "opened"
    )
    return CaseRead(
        path,
        res,
        tuple(entries),
        res.rows,
        last_chain,
        torn,
        bool(is_case),
        hashlib.sha256(data).hexdigest(),
    )
