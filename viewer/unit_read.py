"""What a unit's tab (an evidence pack or audit bundle, a folder or a zip) lists beside
core's verdict: its members with the digest its manifest lists and the digest of the
bytes there now, and its ledger's rows with a pack's window rows marked.

This is display, not judgement: which member counts as changed, missing or unlisted
is the `file hashes` check of core's `KindCheck`, and the banner shows that word.
When core's result carries the members itself (`detail["members"]`, a list of
`{name, listed, actual, matches}`, as the evidence-pack check gives it), that list is
shown, with core's `matches`, and only the rows are read here.

Reading is core's pack reader (`core.checks.zipread`): never a write, never an
extraction, a folder's symlinks never followed out of it, a zip's entries streamed
in place within its bounds. A zip it refuses (a bomb, traversal or duplicate names,
a CRC failure) lists its entry names from the central directory, none read.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import lines as _lines
from sealscope.core.checks import zipread as Z
from sealscope.core.jsonio import loads

__all__ = ["Member", "UnitView", "read_unit", "MAX_ROWS", "MAX_MEMBERS", "aat_rows"]

MAX_ROWS = 20_000  # ledger rows listed (the rest are counted, not shown)
MAX_MEMBERS = 5_000  # members listed
MAX_MANIFEST = 64 << 20  # a manifest.json larger than this is not read for its listing
_SKIP = ("manifest.json", "manifest.sha256")  # not listed in `files` by the format


@dataclass(frozen=True)
class Member:
    """One member: `listed` the manifest's sha256 hex (None: not listed), `actual` the
    sha256 hex of its bytes now (None: `note` says why: missing, unreadable, not read)."""

    name: str
    listed: str | None
    actual: str | None
    note: str = ""
    matches: bool | None = None  # core's answer, when its result lists the members


@dataclass
class UnitView:
    """A unit as its tab lists it."""

    members: list[Member] = field(default_factory=list)
    rows: list[tuple[int, Any]] = field(default_factory=list)  # (line, parsed row or raw)
    rows_total: int = 0
    window: frozenset[int] = frozenset()
    errors: list[str] = field(default_factory=list)


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


def _lines_of(m: Z.Members, name: str) -> Iterator[bytes]:
    """The member's lines (LF kept), streamed: a folder's file through
    `lines.open_regular`, a zip's entry through `zipfile` (already CRC-checked by
    core's reader); nothing when it is not a file of the unit or cannot be read."""
    if not m.is_file(name):
        return
    try:
        if isinstance(m, Z.ZipMembers):
            with m.zf.open(name) as src:
                yield from src
        elif isinstance(m, Z.FolderMembers):
            with _lines.open_regular(os.path.join(m.root, name)) as fh:
                yield from fh
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, RuntimeError):
        return


def _rows(lines: Iterable[bytes], view: UnitView) -> None:
    """Each non-blank line of a ledger by its 1-based number (split on LF), the first
    `MAX_ROWS` kept, the rest counted."""
    for n, raw in enumerate(lines, 1):
        if not raw.strip():
            continue
        view.rows_total += 1
        if len(view.rows) >= MAX_ROWS:
            continue
        text = raw.rstrip(b"\n").decode("utf-8", "replace")
        try:
            view.rows.append((n, loads(text)))
        except (ValueError, MemoryError):
            view.rows.append((n, text))


def _window(lines: Iterable[bytes]) -> frozenset[int]:
    out: set[int] = set()
    for raw in lines:
        w = _parse_json(raw) if raw.strip() else None
        if (
            isinstance(w, dict)
            and isinstance(w.get("line"), int)
            and not isinstance(w.get("line"), bool)
        ):
            out.add(w["line"])
    return frozenset(out)


# ------------------------------------------------------------------ members


def _read(m: Z.Members, name: str, cap: int = MAX_MANIFEST) -> bytes | None:
    """A small member's bytes (the manifest), or None over `cap` or unreadable."""
    out, n = [], 0
    for raw in _lines_of(m, name):
        n += len(raw)
        if n > cap:
            return None
        out.append(raw)
    return b"".join(out) if m.is_file(name) else None


def _list(m: Z.Members, view: UnitView) -> None:
    """Every member core's reader sees and every member the manifest lists."""
    listed = _listed(_parse_json(_read(m, "manifest.json")))
    names = m.names()[:MAX_MEMBERS]
    skip = _SKIP if listed else ()  # a unit listing no digests (a bundle) lists them all
    for name in sorted(set(listed) | {n for n in names if n not in skip}):
        actual, note = None, ""
        if name not in names:
            note = "missing"
        elif not m.is_file(name):
            note = "not a file of the unit (a link out of it, or in a subfolder)"
        else:
            try:
                actual = m.sha256(name)
            except (OSError, ValueError) as e:
                note = f"unreadable: {e}"
        view.members.append(Member(name, listed.get(name), actual, note))
    _rows(_lines_of(m, "records.jsonl"), view)
    view.window = _window(_lines_of(m, "window.jsonl"))


def _refused_zip(path: str, refused: Z.ZipRefused, view: UnitView) -> None:
    """A zip core's reader refused: its entry names from the central directory, no
    entry read."""
    view.errors.append(f"{refused.word}: {refused.reason}")
    try:
        with _lines.open_regular(path) as fh, zipfile.ZipFile(fh) as zf:
            infos = zf.infolist()[:MAX_MEMBERS]
    except (OSError, zipfile.BadZipFile, ValueError, EOFError, RuntimeError):
        return
    for i in infos:
        view.members.append(
            Member(i.filename, None, None, f"declares {i.file_size:,} bytes: not read")
        )


def _given_members(detail: Any) -> list[Member] | None:
    given = detail.get("members") if isinstance(detail, dict) else None
    if not isinstance(given, list):
        return None
    out = []
    for m in given:
        if isinstance(m, dict):
            name = str(m.get("name"))
            listed, actual = m.get("listed"), m.get("actual")
            note = str(m.get("note") or m.get("status") or "")
            if not note and listed is None and name in _SKIP:
                note = "the manifest"
            matches = m.get("matches")
            out.append(
                Member(
                    name,
                    listed if isinstance(listed, str) else None,
                    actual if isinstance(actual, str) else None,
                    note,
                    matches if isinstance(matches, bool) else None,
                )
            )
    return out


def read_unit(path: str, detail: Any = None) -> UnitView:
    """The members and rows of the pack or bundle at `path` (a folder or a zip).
    Never raises; what could not be read is in `errors` or a member's note."""
    view = UnitView()
    try:
        if os.path.isdir(path):
            _list(Z.FolderMembers(path), view)
        else:
            opened = Z.open_zip(path)
            if isinstance(opened, Z.ZipRefused):
                _refused_zip(path, opened, view)
            else:
                try:
                    _list(opened, view)
                finally:
                    opened.close()
    except (OSError, ValueError, MemoryError, RecursionError) as e:
        view.errors.append(f"could not read: {type(e).__name__}")
    given = _given_members(detail)
    if given is not None:
        view.members = given
    return view


def aat_rows(path: str) -> tuple[list[tuple[int, Any]], int, str | None]:
    """An AAT export's lines (line number, parsed record or raw text; the first
    `MAX_ROWS`), the number of lines, and why it could not be read (or None). Lines
    are split on LF as the export's chain splits them (one final LF ends the last);
    the file is streamed, so memory is bounded by its longest line."""
    rows: list[tuple[int, Any]] = []
    total = 0
    try:
        with _lines.open_regular(path) as fh:
            for total, raw in enumerate(fh, 1):
                if len(rows) >= MAX_ROWS:
                    continue
                text = (
                    raw[:-1].decode("utf-8", "replace")
                    if raw.endswith(b"\n")
                    else raw.decode("utf-8", "replace")
                )
                try:
                    rows.append((total, loads(text)))
                except (ValueError, MemoryError):
                    rows.append((total, text))
    except OSError as e:
        return rows, total, f"cannot read: {e.strerror or e}"
    except MemoryError:
        return rows, total, "a line too long to list"
    return rows, total, None
