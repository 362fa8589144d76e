"""The checkpoint file: where it lives, its document, and what it is trusted for.

A checkpoint is a cache, not a trust root: it proves the prefix is byte-identical to
what this machine verified, not that those bytes were honest. Checkpoints live in
`$XDG_CACHE_HOME/sealscope/checkpoints/` (else `~/.cache/...`), keyed by the file's
real path, or in a file the caller names; never beside the evidence. One that cannot
be read, comes from another rules version or names another file is ignored with a
one-line note (`load`) and the walk starts at byte 0.

* It is read like evidence: a regular file only (`lines.open_regular`: a FIFO or a
  device is refused, never waited on), at most `MAX_BYTES`, parsed with the safe parse
  (nesting too deep is a note, not a crash), its walk state checked for consistency
  (counts, first break, offsets inside the file) before it is used. One owned by
  another user, or in a world-writable folder owned by another user, is ignored.
* It is written only where nothing else lives: a path that is evidence (the ledger
  itself, a symlink or hard link to it) is refused (`evidence_target`), and an
  existing file is replaced only when it is itself a sealscope checkpoint (not a
  symlink, not hard-linked elsewhere) (`save`); `forget` removes only a checkpoint.

Resuming from one is `checkpoint.verify_incremental`'s; every name here is also
`sealscope.core.checkpoint`'s.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, TypeGuard

from sealscope.core import chunk_digest as _chunks
from sealscope.core import lines as _lines
from sealscope.core.jsonio import dumps_output_bytes
from sealscope.core.jsonio import loads as _safe_loads
from sealscope.core.ledger import WalkState

__all__ = [
    "RULES",
    "CHUNK",
    "FORMAT",
    "MAX_FINDINGS",
    "MAX_BYTES",
    "Checkpoint",
    "NotReplaceable",
    "cache_dir",
    "default_location",
    "load",
    "save",
    "evidence_target",
    "forget",
]

FORMAT = "sealscope-checkpoint/2"
# Formats this one replaced: a checkpoint in one is not resumed (its prefix is named
# another way) but is ours to rewrite after a verification in full.
OLDER_FORMATS = ("sealscope-checkpoint/1",)
# Bumped whenever the walk's rules or its state change: an older checkpoint is then
# ignored rather than resumed with other rules.
RULES = "sealscope-walk/1 (arcaeon 0.10.0)"
CHUNK = _chunks.CHUNK
MAX_FINDINGS = 100_000  # more breaks than this: no checkpoint (it would not be small)
MAX_BYTES = 64 << 20  # a checkpoint larger than this is not one (MAX_FINDINGS fit well)


# --------------------------------------------------------------------------- where


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """`$XDG_CACHE_HOME/sealscope/checkpoints`, else `~/.cache/sealscope/checkpoints`."""
    source: Mapping[str, str] = os.environ if env is None else env
    base = source.get("XDG_CACHE_HOME") or ""
    root = Path(base) if os.path.isabs(base) else Path.home() / ".cache"
    return root / "sealscope" / "checkpoints"


def default_location(real_path: str, strict: bool, env: Mapping[str, str] | None = None) -> Path:
    """The cache file for a ledger's real path (strict walks keep their own)."""
    key = hashlib.sha256(real_path.encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return cache_dir(env) / f"{key}{'-strict' if strict else ''}.json"


# --------------------------------------------------------------------------- document


class OlderFormat(ValueError):
    """A checkpoint document of a format this one replaced (`OLDER_FORMATS`)."""


def _is_ours(doc: Any) -> bool:
    """Whether a parsed document is a sealscope checkpoint, of this format or one it
    replaced: the one test of what `save` may replace and `forget` may remove."""
    return isinstance(doc, dict) and doc.get("format") in (FORMAT, *OLDER_FORMATS)


def _holds_ours(where: Path) -> bool:
    """Whether the regular file at `where` (never a FIFO's wait or a device's endless
    read; at most MAX_BYTES) parses as a sealscope checkpoint (`_is_ours`); OSError
    when it cannot be opened or read."""
    with _lines.open_regular(where) as fh:
        head = fh.read(MAX_BYTES + 1)
    try:
        return len(head) <= MAX_BYTES and _is_ours(_safe_loads(head))
    except (ValueError, UnicodeDecodeError):
        return False


@dataclass(frozen=True)
class Checkpoint:
    """The document. `length` is N; `identity` is (device, inode, size, mtime_ns) of the
    file when it was verified; `chunks` name the prefix [0, N): the SHA-256 of each
    `chunk_digest.CHUNK` of it, [i*CHUNK, min((i+1)*CHUNK, N)), hashed from the bytes
    the walk read. There is no digest of the whole prefix: its chunks are checked on
    two cores."""

    path: str
    identity: tuple[int, int, int, int]
    length: int
    chunks: tuple[str, ...]
    state: WalkState
    rules: str = RULES
    written_at: str = ""
    digest: str = ""  # SHA-256 of the document as it was loaded ("" when not loaded)

    def to_json(self) -> bytes:
        doc = {
            "format": FORMAT,
            "rules": self.rules,
            "path": self.path,
            "identity": dict(
                zip(("device", "inode", "size", "mtime_ns"), self.identity, strict=True)
            ),
            "length": self.length,
            "lines": self.state.lines,
            "rows": self.state.rows,
            "chunk_bytes": _chunks.CHUNK,
            "chunks": list(self.chunks),
            "written_at": self.written_at,
            "state": self.state.to_dict(),
        }
        return dumps_output_bytes(doc, ensure_ascii=True, indent=1) + b"\n"

    @classmethod
    def from_json(cls, data: bytes) -> Checkpoint:
        """ValueError naming what is wrong, for anything but a well-formed document."""
        try:
            doc = _safe_loads(data)
        except (ValueError, UnicodeDecodeError) as e:
            raise ValueError(f"not JSON ({e})") from None
        if isinstance(doc, dict) and doc.get("format") in OLDER_FORMATS:
            raise OlderFormat(f"it is of an older format ({doc['format']})")
        if not isinstance(doc, dict) or doc.get("format") != FORMAT:
            raise ValueError("not a sealscope checkpoint")
        ident = doc.get("identity")
        keys = ("device", "inode", "size", "mtime_ns")
        if not isinstance(ident, dict) or not all(_nat(ident.get(k)) for k in keys):
            raise ValueError("identity out of shape")
        chunks = doc.get("chunks")
        length = doc.get("length")
        if not (
            _nat(length)
            and isinstance(chunks, list)
            and all(_hex64(c) for c in chunks)
            and isinstance(doc.get("path"), str)
            and isinstance(doc.get("rules"), str)
            and doc.get("chunk_bytes") == _chunks.CHUNK
            and len(chunks) == -(-length // _chunks.CHUNK)
        ):
            raise ValueError("fields out of shape")
        state = WalkState.from_dict(doc.get("state"))
        if state.offset != length:
            raise ValueError("walk state and length disagree")
        why = _inconsistent(state)
        if why:
            raise ValueError(f"walk state inconsistent: {why}")
        device, inode, size, mtime_ns = (ident[k] for k in keys)
        return cls(
            path=doc["path"],
            identity=(device, inode, size, mtime_ns),
            length=length,
            chunks=tuple(chunks),
            state=state,
            rules=doc["rules"],
            written_at=str(doc.get("written_at", "")),
        )


def _nat(v: Any) -> TypeGuard[int]:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _hex64(v: Any) -> bool:
    return isinstance(v, str) and len(v) == 64 and all(c in "0123456789abcdef" for c in v)


def _inconsistent(st: WalkState) -> str:
    """What in a walk state cannot come from any walk, or "" (see `Checkpoint`)."""
    breaks = sum(1 for f in st.findings if f[1] == "break")
    declared = len(st.findings) - breaks
    lines = [f[0] for f in st.findings]
    if st.breaks != breaks or st.declared_breaks != declared:
        return "break counts and findings disagree"
    if st.chained + st.prechain > st.rows or st.began != (st.chained > 0):
        return "row counts disagree"
    if st.rows > st.lines or st.lines > st.offset + 1:
        return "more rows or lines than bytes"
    if any(not 0 < n <= st.lines for n in lines):
        return "a finding outside the lines walked"
    if st.first_chained > st.lines or (st.chained > 0) != (st.first_chained > 0):
        return "the first chained line is out of place"
    return ""


def _untrusted_place(fd: int, where: Path) -> str:
    """Why a checkpoint at `where` (open on `fd`) may have been planted by someone
    else, or "": a file owned by another user, or a world-writable folder owned by
    another user (anyone may put a file there)."""
    me = os.geteuid() if hasattr(os, "geteuid") else None
    if me is None:  # pragma: no cover - not POSIX
        return ""
    if os.fstat(fd).st_uid != me:
        return "it is owned by another user"
    try:
        d = os.stat(where.parent)
    except OSError:
        return ""
    if d.st_mode & stat.S_IWOTH and d.st_uid != me:
        return "its folder is world-writable and owned by another user"
    return ""


def _read_capped(where: Path) -> bytes:
    """A checkpoint's bytes: a regular file only (never a FIFO's wait or a device's
    endless read), at most MAX_BYTES (ValueError beyond), ignored when another user
    could have put it there (PermissionError)."""
    with _lines.open_regular(where) as fh:
        why = _untrusted_place(fh.fileno(), where)
        if why:
            raise PermissionError(why)
        data = fh.read(MAX_BYTES + 1)
    if len(data) > MAX_BYTES:
        raise ValueError(f"larger than {MAX_BYTES >> 20} MiB")
    return data


def load(where: Path, real_path: str, strict: bool) -> tuple[Checkpoint | None, str | None]:
    """The checkpoint at `where` if it may be resumed for this file and mode, else
    (None, a one-line note; None when there simply is none yet)."""
    try:
        data = _read_capped(where)
    except FileNotFoundError:
        return None, None
    except PermissionError as e:
        return None, f"checkpoint {where} ignored: {e.strerror or e}; verified in full"
    except OSError as e:
        return None, f"checkpoint {where} ignored: unreadable ({e.strerror or e}); verified in full"
    except ValueError as e:
        return None, f"checkpoint {where} ignored: unreadable ({e}); verified in full"
    try:
        cp = Checkpoint.from_json(data)
    except OlderFormat as e:
        return None, f"checkpoint {where} not resumed: {e}; verified in full, then rewritten"
    except ValueError as e:
        return None, f"checkpoint {where} ignored: unreadable ({e}); verified in full"
    cp = replace(cp, digest=hashlib.sha256(data).hexdigest())
    if cp.rules != RULES:
        return None, (
            f"checkpoint {where} ignored: made by rules {cp.rules!r}, these are "
            f"{RULES!r}; verified in full"
        )
    if cp.path != real_path:
        return None, (
            f"checkpoint {where} ignored: it is for another file ({cp.path}); verified in full"
        )
    if cp.state.strict != strict:
        mode = "strict" if cp.state.strict else "non-strict"
        return None, f"checkpoint {where} ignored: made by a {mode} walk; verified in full"
    return cp, None


class NotReplaceable(OSError):
    """The checkpoint path holds something that is not a sealscope checkpoint."""


def _replaceable(where: Path, any_content: bool = False) -> str:
    """Why the file at `where` may not be replaced by a checkpoint, or "" (nothing
    there, or a sealscope checkpoint of ours: a regular file with one link; with
    `any_content`, in sealscope's own cache, any such file)."""
    try:
        st = os.lstat(where)
    except FileNotFoundError:
        return ""
    except OSError as e:
        return f"it cannot be examined ({e.strerror or e})"
    if stat.S_ISLNK(st.st_mode):
        return "it is a symbolic link"
    if not stat.S_ISREG(st.st_mode):
        return "it is not a regular file"
    if st.st_nlink > 1:
        return "it has other hard links"
    if any_content:
        return ""
    try:
        ours = _holds_ours(where)
    except OSError:
        ours = False
    return "" if ours else "it is not a sealscope checkpoint"


def save(where: Path, cp: Checkpoint, *, in_cache: bool = False) -> None:
    """Write atomically: a temporary file in the same directory (created new, never
    through a link), fsynced, renamed over `where`. Never replaces a file that is not
    a sealscope checkpoint (`NotReplaceable`, nothing written), a symlink or a file
    with other hard links; `in_cache`: `where` is the file `default_location` names
    in sealscope's own cache, where an unreadable checkpoint may be replaced."""
    why = _replaceable(where, in_cache)
    if why:
        raise NotReplaceable(f"{where} is kept: {why}")
    where.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
    tmp = where.with_name(f".{where.name}.{os.getpid()}.{threading.get_ident()}.tmp")
    flags = (
        os.O_WRONLY
        | os.O_CREAT
        | os.O_EXCL
        | getattr(os, "O_NOFOLLOW", 0)
        | getattr(os, "O_CLOEXEC", 0)
    )
    made = False
    try:
        fd = os.open(tmp, flags, 0o600)
        made = True
        with os.fdopen(fd, "wb") as fh:
            fh.write(cp.to_json())
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, where)
        made = False
    finally:
        if made:
            tmp.unlink(missing_ok=True)


def evidence_target(
    where: str | os.PathLike[str], evidence: list[str] | tuple[str, ...]
) -> str | None:
    """The evidence file that the checkpoint path `where` is (the same file, a symlink
    to it, a hard link of it), or None. A checkpoint is never written there."""
    try:
        st = os.stat(where)
    except OSError:
        st = None
    real = os.path.realpath(where)
    for e in evidence:
        try:
            es = os.stat(e)
        except OSError:
            es = None
        if st is not None and es is not None and (st.st_dev, st.st_ino) == (es.st_dev, es.st_ino):
            return e
        if real == os.path.realpath(e):
            return e
    return None


# --------------------------------------------------------------------------- forget


def forget(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    checkpoint: str | os.PathLike[str] | None = None,
    env: Mapping[str, str] | None = None,
) -> tuple[bool | None, str]:
    """Remove a ledger's checkpoint (`verify --incremental --reset`): the file at
    `checkpoint`, else the cache file for the ledger's real path and mode. Only a
    file that is a sealscope checkpoint (`_is_ours`, this format or an older one) is
    removed; anything else is left in place. (True, what was removed), (None, there was none) or
    (False, why it was left)."""
    real = os.path.realpath(os.fspath(path))
    where = Path(checkpoint) if checkpoint is not None else default_location(real, strict, env)
    try:
        ours = _holds_ours(where)  # a FIFO is refused, never waited on
    except FileNotFoundError:
        return None, f"no checkpoint to reset at {where}"
    except OSError as e:
        return False, f"checkpoint {where} left in place: unreadable ({e.strerror or e})"
    if not ours:
        return False, f"{where} is not a sealscope checkpoint: left in place"
    try:
        where.unlink()
    except OSError as e:
        return False, f"checkpoint {where} left in place: {e.strerror or e}"
    return True, f"checkpoint {where} removed; verified in full"
