"""What a unit's tab (an evidence pack or audit bundle, a folder or a zip) lists beside
core's verdict: its members with the digest its manifest lists and the digest of the
bytes there now, and its ledger's rows with a pack's window rows marked.

This is display, not judgement: which member counts as changed, missing or unlisted
is the `file hashes` check of core's `KindCheck`, and the banner shows that word.
When core's result carries the members itself (`detail["members"]`, a list of
`{name, listed, actual}`), that list is shown and nothing is read here.

Reading never writes and never extracts: a folder's files are read through
`lines.open_regular` (symlinks are listed, not followed); a zip's members are read in
place with `zipfile`, each member's declared size and the total capped before a byte
is read (`MAX_MEMBER`, `MAX_TOTAL`), so a zip bomb lists its members unread. A
member that fails to read (a CRC error, a cut zip) is listed as unreadable.
"""
from __future__ import annotations

import hashlib
import os
import stat as _stat
import zipfile
from dataclasses import dataclass, field
from typing import IO, Any

from sealscope.core import lines as _lines
from sealscope.core.jsonio import loads

__all__ = ["Member", "UnitView", "read_unit", "MAX_MEMBER", "MAX_TOTAL", "MAX_ROWS",
           "MAX_MEMBERS", "aat_rows"]

MAX_MEMBER = 256 << 20      # a member declared larger is not read
MAX_TOTAL = 1 << 30         # members declared larger in total are not read at all
MAX_ROWS = 20_000           # ledger rows listed (the rest are counted, not shown)
MAX_MEMBERS = 5_000         # members listed
_CHUNK = 1 << 20
_SKIP = ("manifest.json", "manifest.sha256")   # not listed in `files` by the format


@dataclass(frozen=True)
class Member:
    """One member: `listed` the manifest's sha256 hex (None: not listed), `actual` the
    sha256 hex of its bytes now (None: `note` says why: missing, unreadable, not read)."""
    name: str
    listed: str | None
    actual: str | None
    note: str = ""


@dataclass
class UnitView:
    """A unit as its tab lists it."""
    members: list[Member] = field(default_factory=list)
    rows: list[tuple[int, Any]] = field(default_factory=list)   # (line, parsed row or raw)
    rows_total: int = 0
    window: frozenset[int] = frozenset()
    errors: list[str] = field(default_factory=list)


def _hash_stream(fh: IO[bytes], limit: int) -> str | None:
    h, n = hashlib.sha256(), 0
    while True:
        chunk = fh.read(_CHUNK)
        if not chunk:
            return h.hexdigest()
        n += len(chunk)
        if n > limit:
            return None
        h.update(chunk)


def _listed(manifest: Any) -> dict[str, str]:
    files = manifest.get("files") if isinstance(manifest, dict) else None
    if not isinstance(files, dict):
        return {}
    return {str(k): v if isinstance(v, str) else repr(v) for k, v in files.items()}


def _parse_json(data: bytes | None) -> Any:
    if data is None:
        return None
    try:
        return loads(data.decode("utf-8"))
    except (ValueError, MemoryError):
        return None


def _rows(data: bytes | None, view: UnitView) -> None:
    if data is None:
        return
    for n, raw in enumerate(data.split(b"\n"), 1):
        if not raw.strip():
            continue
        view.rows_total += 1
        if len(view.rows) >= MAX_ROWS:
            continue
        text = raw.decode("utf-8", "replace")
        try:
            view.rows.append((n, loads(text)))
        except (ValueError, MemoryError):
            view.rows.append((n, text))


def _window(data: bytes | None) -> frozenset[int]:
    out: set[int] = set()
    for raw in (data or b"").split(b"\n"):
        w = _parse_json(raw) if raw.strip() else None
        if isinstance(w, dict) and isinstance(w.get("line"), int) \
                and not isinstance(w.get("line"), bool):
            out.add(w["line"])
    return frozenset(out)


# ------------------------------------------------------------------ folders

def _folder_files(root: str) -> list[tuple[str, str]]:
    """(relative name, kind) of everything under `root`, symlinks not followed."""
    out: list[tuple[str, str]] = []
    stack = [""]
    while stack and len(out) < MAX_MEMBERS:
        rel = stack.pop()
        try:
            entries = sorted(os.scandir(os.path.join(root, rel)), key=lambda e: e.name)
        except OSError:
            continue
        for e in entries:
            name = f"{rel}/{e.name}" if rel else e.name
            if e.is_symlink():
                out.append((name, "symlink"))
            elif e.is_dir(follow_symlinks=False):
                stack.append(name)
            else:
                out.append((name, "file"))
    return sorted(out)


def _read_file(root: str, name: str, limit: int) -> bytes | None:
    p = os.path.join(root, name)
    try:
        if _stat.S_ISLNK(os.lstat(p).st_mode):
            return None
        with _lines.open_regular(p) as fh:
            data = fh.read(limit + 1)
    except OSError:
        return None
    return data if len(data) <= limit else None


def _read_folder(root: str, view: UnitView) -> None:
    manifest = _parse_json(_read_file(root, "manifest.json", MAX_MEMBER))
    listed = _listed(manifest)
    present = dict(_folder_files(root))
    for name in sorted(set(listed) | {n for n in present if n not in _SKIP}):
        kind = present.get(name)
        actual, note = None, ""
        if kind is None:
            note = "missing"
        elif kind == "symlink":
            note = "a symlink: not followed"
        else:
            try:
                p = os.path.join(root, name)
                if _stat.S_ISLNK(os.lstat(p).st_mode):
                    raise OSError("a symlink")
                with _lines.open_regular(p) as fh:
                    actual = _hash_stream(fh, MAX_MEMBER)
                if actual is None:
                    note = "over the size read"
            except OSError as e:
                note = f"unreadable: {e.strerror or e}"
        view.members.append(Member(name, listed.get(name), actual, note))
    _rows(_read_file(root, "records.jsonl", MAX_MEMBER), view)
    view.window = _window(_read_file(root, "window.jsonl", MAX_MEMBER))


# ------------------------------------------------------------------ zips

def _read_zip(path: str, view: UnitView) -> None:
    try:
        fh = _lines.open_regular(path)
    except OSError as e:
        view.errors.append(f"cannot read: {e.strerror or e}")
        return
    with fh:
        try:
            zf = zipfile.ZipFile(fh)
        except (zipfile.BadZipFile, OSError, ValueError, EOFError) as e:
            view.errors.append(f"not a readable zip: {type(e).__name__}")
            return
        with zf:
            infos = zf.infolist()[:MAX_MEMBERS]
            total = sum(i.file_size for i in infos)
            bounded = total > MAX_TOTAL
            if bounded:
                view.errors.append(f"members declare {total:,} bytes in all: not read")
            names = [i.filename for i in infos]
            by_name: dict[str, zipfile.ZipInfo] = {}
            for i in infos:
                by_name.setdefault(i.filename, i)

            def read(info: zipfile.ZipInfo | None) -> bytes | None:
                if info is None or bounded or info.file_size > MAX_MEMBER:
                    return None
                try:
                    with zf.open(info) as m:
                        data = m.read(MAX_MEMBER + 1)
                except (zipfile.BadZipFile, OSError, ValueError, EOFError,
                        NotImplementedError, RuntimeError):
                    return None
                return data if len(data) <= MAX_MEMBER else None

            listed = _listed(_parse_json(read(by_name.get("manifest.json"))))
            seen: set[str] = set()
            for name in names:
                info = by_name[name]
                twice = name in seen
                seen.add(name)
                if name in _SKIP and not twice:
                    continue
                actual, note = None, "named twice" if twice else ""
                if not twice:
                    if bounded or info.file_size > MAX_MEMBER:
                        note = f"declares {info.file_size:,} bytes: not read"
                    else:
                        data = read(info)
                        if data is None:
                            note = "unreadable (CRC or a cut member)"
                        else:
                            actual = hashlib.sha256(data).hexdigest()
                view.members.append(Member(name, listed.get(name), actual, note))
            for name in sorted(set(listed) - set(names)):
                view.members.append(Member(name, listed[name], None, "missing"))
            _rows(read(by_name.get("records.jsonl")), view)
            view.window = _window(read(by_name.get("window.jsonl")))


def _given_members(detail: Any) -> list[Member] | None:
    given = detail.get("members") if isinstance(detail, dict) else None
    if not isinstance(given, list):
        return None
    out = []
    for m in given:
        if isinstance(m, dict):
            out.append(Member(str(m.get("name")), m.get("listed"), m.get("actual"),
                              str(m.get("note") or m.get("status") or "")))
    return out


def read_unit(path: str, detail: Any = None) -> UnitView:
    """The members and rows of the pack or bundle at `path` (a folder or a zip).
    Never raises; what could not be read is in `errors` or a member's note."""
    view = UnitView()
    try:
        if os.path.isdir(path):
            _read_folder(path, view)
        else:
            _read_zip(path, view)
    except (OSError, ValueError, MemoryError, RecursionError) as e:
        view.errors.append(f"could not read: {type(e).__name__}")
    given = _given_members(detail)
    if given is not None:
        view.members = given
    return view


def aat_rows(path: str) -> tuple[list[tuple[int, Any]], int, str | None]:
    """An AAT export's lines (line number, parsed record or raw text), the number of
    lines, and why it could not be read (or None). Lines are split on LF as the
    export's chain splits them."""
    view = UnitView()
    try:
        with _lines.open_regular(path) as fh:
            data = fh.read(MAX_TOTAL + 1)
    except OSError as e:
        return [], 0, f"cannot read: {e.strerror or e}"
    if len(data) > MAX_TOTAL:
        return [], 0, "too large to list"
    if data.endswith(b"\n"):
        data = data[:-1]
    if not data:
        return [], 0, None
    for n, raw in enumerate(data.split(b"\n"), 1):
        view.rows_total += 1
        if len(view.rows) >= MAX_ROWS:
            continue
        text = raw.decode("utf-8", "replace")
        try:
            view.rows.append((n, loads(text)))
        except (ValueError, MemoryError):
            view.rows.append((n, text))
    return view.rows, view.rows_total, None
