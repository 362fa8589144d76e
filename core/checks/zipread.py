"""A pack's members, read in place: a folder's files, or a zip's entries read with
`zipfile`, streamed, never extracted to disk (KINDS.md §8.2).

Both sources answer the same four questions (`Members`): every file in the unit,
whether a plain name is one of its files, its bytes, its sha256.

A zip is opened as the reference opens it, in the reference's order, and refused
before anything is read:

1. not readable as a zip (not a zip, cut, a broken central directory) → COULD NOT
   LOOK `unreadable`;
2. any entry name that is not a plain top-level file name (differs from its own last
   path component — `../x`, `/etc/x`, `sub/x` —, holds `\\`, is `""`, `.` or `..`,
   ends `/`), or a name occurring twice → BROKEN, one check `pack zip`;
3. the entries' total declared size over 4 GiB (the reference's bound), or past
   sealscope's own bounds on one entry's size and on the number of entries (what
   is held in memory at once) → COULD NOT LOOK `bounded`, nothing decompressed;
4. every entry, in the zip's order, streamed once through its CRC check (a changed
   stored byte, a truncated member, an encrypted or unsupported one → COULD NOT LOOK
   `unreadable`, quirk 45), hashing as it goes; an entry whose name the reference
   could not write to its extraction folder (longer than `NAME_MAX_BYTES` in UTF-8)
   → COULD NOT LOOK `unreadable` there, as the reference's extraction fails.
   Reads never exceed an entry's declared size.

The zip's own sha256 (`ZipMembers.sha256_of_zip`) is hashed from the one open file
the entries are then read from, before they are read: a path renamed over meanwhile
never lends its bytes to the digest.

A symlink entry in a zip is its stored bytes, as any other entry: nothing on disk is
created or followed. A folder's symlinks are never followed out of the folder: a
link whose target lies outside is listed (it is in the pack) but is not a file of
the pack, and is never opened.
"""

from __future__ import annotations

import hashlib
import os
import stat
import zipfile
import zlib
from collections.abc import Generator
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import IO, BinaryIO

from sealscope.core import lines as _lines
from sealscope.core import verdict as _verdict

__all__ = [
    "ZIP_MAX_BYTES",
    "ENTRY_MAX_BYTES",
    "ENTRY_MAX_COUNT",
    "NAME_MAX_BYTES",
    "TooBig",
    "Members",
    "FolderMembers",
    "ZipMembers",
    "ZipRefused",
    "open_zip",
    "bad_names",
    "file_sha256",
    "is_plain",
]

#: The reference's bound: a zip declaring more than this in total is not read.
ZIP_MAX_BYTES = 4 * 1024**3
#: sealscope's own bound on one entry (its bytes may be held in memory to parse).
ENTRY_MAX_BYTES = 1024**3
#: sealscope's own bound on the number of entries.
ENTRY_MAX_COUNT = 100_000
#: The longest file name (UTF-8 bytes) the reference's extraction folder takes
#: (NAME_MAX of the usual file systems); a longer entry name cannot be extracted.
NAME_MAX_BYTES = 255

_CHUNK = 1 << 20
_READ_ERRORS = (
    OSError,
    EOFError,
    zipfile.BadZipFile,
    zipfile.LargeZipFile,
    RuntimeError,
    ValueError,
    NotImplementedError,
    zlib.error,
)


class TooBig(Exception):
    """A member past `ENTRY_MAX_BYTES`, not read into memory: the unit's check is
    COULD NOT LOOK `bounded`. Not an OSError, so no reader takes it for a missing
    file."""


def is_plain(name: str) -> bool:
    """A plain top-level file name: its own last path component, not `""`/`.`/`..`,
    no backslash, no trailing slash."""
    return (
        name == PurePosixPath(name).name
        and "\\" not in name
        and name not in ("", ".", "..")
        and not name.endswith("/")
    )


def bad_names(names: list[str]) -> tuple[list[str], list[str]]:
    """(names that are not plain, names occurring twice), each sorted, unique."""
    seen: set[str] = set()
    dup: set[str] = set()
    for n in names:
        if n in seen:
            dup.add(n)
        seen.add(n)
    return sorted({n for n in names if not is_plain(n)}), sorted(dup)


def file_sha256(path: str) -> str:
    """sha256 hex of a regular file, streamed (through `lines.open_regular`)."""
    h = hashlib.sha256()
    with _lines.open_regular(path) as fh:
        for block in iter(lambda: fh.read(_CHUNK), b""):
            h.update(block)
    return h.hexdigest()


class Members:
    """A unit's files. `where` names the unit for messages."""

    where: str = ""

    def names(self) -> list[str]:
        """Every file in the unit, as `/`-joined names relative to it (subfolders
        included), sorted."""
        raise NotImplementedError

    def is_file(self, name: str) -> bool:
        """Whether `name` is a readable file of the unit (a plain top-level name)."""
        raise NotImplementedError

    def read(self, name: str) -> bytes:
        """The file's bytes; OSError when it cannot be read."""
        raise NotImplementedError

    def sha256(self, name: str) -> str:
        """The file's sha256 hex; OSError when it cannot be read."""
        raise NotImplementedError

    def open(self, name: str) -> IO[bytes]:
        """The file opened for streaming reads (the caller closes it); OSError when
        it cannot be opened. Reads may raise OSError (a zip entry that fails)."""
        raise NotImplementedError

    def lines(self, name: str) -> Generator[bytes, None, None]:
        """The file's lines split on LF only (each without its LF, a CR kept; no
        final empty piece), streamed: memory bounded by the longest line, which is
        bounded by `ENTRY_MAX_BYTES` (past it, `TooBig`)."""
        with self.open(name) as fh:
            while True:
                try:
                    line = fh.readline(ENTRY_MAX_BYTES + 1)
                except _READ_ERRORS as e:
                    raise OSError(f"{name}: {e}") from None
                if not line:
                    return
                if len(line) > ENTRY_MAX_BYTES:
                    raise TooBig(f"a line of {name} is longer than {ENTRY_MAX_BYTES} bytes")
                yield line[:-1] if line.endswith(b"\n") else line


class FolderMembers(Members):
    """The files of a folder; symlinks never followed out of it."""

    def __init__(self, root: str) -> None:
        self.root = root
        self.where = root
        self._real = os.path.realpath(root)

    def _inside(self, path: str) -> str | None:
        real = os.path.realpath(path)
        if real != self._real and real.startswith(self._real.rstrip(os.sep) + os.sep):
            return real
        return None

    def names(self) -> list[str]:
        out: list[str] = []
        for top, _dirs, files in os.walk(self.root, followlinks=False):
            rel = os.path.relpath(top, self.root)
            for f in files:
                # what the reference counts: anything that is a file once links are
                # followed (a link out of the folder is in the pack, never opened)
                if os.path.isfile(os.path.join(top, f)):
                    out.append(f if rel == "." else f"{rel.replace(os.sep, '/')}/{f}")
        return sorted(out)

    def inside(self, name: str) -> str | None:
        """The real path of `name` (a `/`-joined name, subfolders allowed) when it is
        a regular file inside the folder; None for a link out of it or anything else."""
        parts = name.split("/")
        if any(x in ("", ".", "..") for x in parts):
            return None
        real = self._inside(os.path.join(self.root, *parts))
        try:
            return real if real is not None and stat.S_ISREG(os.stat(real).st_mode) else None
        except OSError:
            return None

    def _path(self, name: str) -> str | None:
        # the reference's test for a folder: the name is its own last component
        if PurePosixPath(name).name != name or name in ("", ".", ".."):
            return None
        real = self._inside(os.path.join(self.root, name))
        if real is None:
            return None
        try:
            return real if stat.S_ISREG(os.stat(real).st_mode) else None
        except OSError:
            return None

    def is_file(self, name: str) -> bool:
        return self._path(name) is not None

    def read(self, name: str) -> bytes:
        path = self._path(name)
        if path is None:
            raise FileNotFoundError(f"{name}: not a file of the pack")
        with _lines.open_regular(path) as fh:
            if os.fstat(fh.fileno()).st_size > ENTRY_MAX_BYTES:
                raise TooBig(f"{name} is larger than {ENTRY_MAX_BYTES} bytes")
            return fh.read()

    def sha256(self, name: str) -> str:
        path = self._path(name)
        if path is None:
            raise FileNotFoundError(f"{name}: not a file of the pack")
        return file_sha256(path)

    def open(self, name: str) -> IO[bytes]:
        path = self._path(name)
        if path is None:
            raise FileNotFoundError(f"{name}: not a file of the pack")
        return _lines.open_regular(path)


@dataclass(frozen=True)
class ZipRefused:
    """A zip not read: `word` BROKEN (`finding`) or COULD NOT LOOK (`reason_word`)."""

    word: str
    reason_word: str | None
    reason: str
    entries: int | None = None


@dataclass
class ZipMembers(Members):
    """The entries of an open zip, each already streamed once through its CRC check;
    `digests` their sha256 by name."""

    zf: zipfile.ZipFile
    fh: BinaryIO
    where: str
    digests: dict[str, str] = field(default_factory=dict)
    #: The sha256 of the zip's bytes, as read through `fh`.
    sha256_of_zip: str = ""

    def names(self) -> list[str]:
        return sorted(self.digests)

    def is_file(self, name: str) -> bool:
        return is_plain(name) and name in self.digests

    def read(self, name: str) -> bytes:
        if not self.is_file(name):
            raise FileNotFoundError(f"{name}: not an entry of the zip")
        try:
            with self.zf.open(name) as src:
                return src.read(ENTRY_MAX_BYTES + 1)
        except _READ_ERRORS as e:
            raise OSError(f"{name}: {e}") from None

    def sha256(self, name: str) -> str:
        if not self.is_file(name):
            raise FileNotFoundError(f"{name}: not an entry of the zip")
        return self.digests[name]

    def open(self, name: str) -> IO[bytes]:
        if not self.is_file(name):
            raise FileNotFoundError(f"{name}: not an entry of the zip")
        try:
            return self.zf.open(name)
        except _READ_ERRORS as e:
            raise OSError(f"{name}: {e}") from None

    def close(self) -> None:
        self.zf.close()
        self.fh.close()


def _extractable(name: str) -> str | None:
    """Why the reference could not write an entry of this name into its extraction
    folder, or None when it could."""
    size = len(name.encode("utf-8", "surrogateescape"))
    if size > NAME_MAX_BYTES:
        return (
            f"the entry name is {size} bytes long, past the {NAME_MAX_BYTES} a file "
            "name may have, so it cannot be extracted"
        )
    return None


def _hash_open(fh: BinaryIO) -> str:
    """The sha256 of an open file's bytes from its start, read through `fh`."""
    h = hashlib.sha256()
    fh.seek(0)
    for block in iter(lambda: fh.read(_CHUNK), b""):
        h.update(block)
    fh.seek(0)
    return h.hexdigest()


def _stream(zf: zipfile.ZipFile, info: zipfile.ZipInfo) -> str:
    h = hashlib.sha256()
    with zf.open(info) as src:
        for block in iter(lambda: src.read(_CHUNK), b""):
            h.update(block)
    return h.hexdigest()


def open_zip(path: str) -> ZipMembers | ZipRefused:
    """Open a pack zip in place (the module docstring's order). The caller closes a
    `ZipMembers`."""
    try:
        fh = _lines.open_regular(path)
    except OSError as e:
        return ZipRefused(
            _verdict.COULD_NOT_LOOK, "unreadable", f"the file could not be opened ({e})"
        )
    try:
        zf = zipfile.ZipFile(fh)
    except _READ_ERRORS as e:
        fh.close()
        return ZipRefused(
            _verdict.COULD_NOT_LOOK, "unreadable", f"the file could not be read as a zip ({e})"
        )
    infos = zf.infolist()
    bad, dup = bad_names([i.filename for i in infos])
    refused: ZipRefused | None = None
    if bad or dup:
        parts = []
        if bad:
            parts.append(f"entries that are not a plain top-level file: {bad}")
        if dup:
            parts.append(f"entries named twice: {dup}")
        refused = ZipRefused(_verdict.BROKEN, None, "; ".join(parts), len(infos))
    elif sum(i.file_size for i in infos) > ZIP_MAX_BYTES:
        refused = ZipRefused(
            _verdict.COULD_NOT_LOOK,
            "bounded",
            f"the zip unpacks to more than {ZIP_MAX_BYTES} bytes, past what is read",
            len(infos),
        )
    elif len(infos) > ENTRY_MAX_COUNT or any(i.file_size > ENTRY_MAX_BYTES for i in infos):
        refused = ZipRefused(
            _verdict.COULD_NOT_LOOK,
            "bounded",
            f"an entry declares more than {ENTRY_MAX_BYTES} bytes, or the "
            f"zip more than {ENTRY_MAX_COUNT} entries: past sealscope's "
            "bound, nothing read",
            len(infos),
        )
    if refused is not None:
        zf.close()
        fh.close()
        return refused
    members = ZipMembers(zf=zf, fh=fh, where=path)
    try:
        members.sha256_of_zip = _hash_open(fh)
        for info in infos:
            members.digests[info.filename] = _stream(zf, info)
            why = _extractable(info.filename)
            if why is not None:
                raise OSError(why)
    except _READ_ERRORS as e:
        members.close()
        return ZipRefused(
            _verdict.COULD_NOT_LOOK,
            "unreadable",
            f"an entry could not be read from the zip ({e})",
            len(infos),
        )
    return members
