"""Finding a fleet's files: which paths under the sources named are audited, in order.

`walk(sources)` yields (path, size) for each file a fleet audits. A folder source is
walked top-down, each folder's matches in name order before its subfolders (also in
name order); a symlinked folder is never walked into. With `kinds` every file is
taken, whatever its name (the classifier, not the name, decides what it is: a
`distill.out` is a distill receipt, a `.txt` of no kind is listed as not evidence,
KINDS.md §1), and a folder the classifier calls an evidence pack or audit
bundle (a unit kind, `registry.is_unit`; the source itself too) is ONE path, size None, its members
not walked. A symlink that points out of the source tree is not read unless
`follow_links`: it goes to `skipped`, with why, for the caller to report.

Each folder is listed once (`os.scandir`): that listing says whether it may be a pack
or bundle (`kinds.UNIT_MARKS`; only then is the classifier asked) and is the one the
walk descends with. A folder that cannot be listed is skipped, as `os.walk` skips it.
"""

from __future__ import annotations

import os
import stat as _stat
from collections.abc import Iterator, Sequence
from fnmatch import fnmatchcase

from sealscope.core import kinds as _kinds
from sealscope.core import registry as _registry

__all__ = ["walk", "LISTINGS_KEPT"]

# at most this many entries of listed subfolders are kept to walk into (the rest are
# listed again when their turn comes): a folder of many large folders stays bounded
LISTINGS_KEPT = 1 << 16


def _listing(folder: str) -> list[os.DirEntry[str]] | None:
    """The folder's entries, or None when it cannot be listed."""
    try:
        with os.scandir(folder) as it:
            return list(it)
    except (OSError, ValueError):
        return None


def _is_dir(entry: os.DirEntry[str]) -> bool:
    """As `os.walk` sorts: a folder, or a symlink to one."""
    try:
        return entry.is_dir()
    except OSError:
        return False


def _is_link(entry: os.DirEntry[str]) -> bool:
    try:
        return entry.is_symlink()
    except OSError:
        return False


class _Walker:
    """One walk's rules: what a name must match, whether a folder is a unit, how a
    found file's size is read."""

    def __init__(
        self, pattern: str, follow_links: bool, skipped: list[tuple[str, str]] | None, kinds: bool
    ) -> None:
        self.pattern = pattern
        self.follow_links = follow_links
        self.skipped = skipped
        self.kinds = kinds

    def taken(self, name: str) -> bool:
        return self.kinds or fnmatchcase(name, self.pattern)

    def unit(self, folder: str, entries: list[os.DirEntry[str]] | None) -> bool:
        """Whether `folder` is a pack or bundle; `entries` its listing (None when it
        could not be listed: the classifier then says)."""
        if not self.kinds:
            return False
        if entries is not None and _kinds.UNIT_MARKS.isdisjoint(e.name.lower() for e in entries):
            return False
        return _registry.is_unit(_kinds.identify(folder).kind)

    def sized(self, src: str, top: str, p: str) -> tuple[str, int | None] | None:
        """(p, size) for a found file (size None when it cannot be read), or None when
        it is a symlink out of `top` not followed (added to `skipped`)."""
        try:  # one lstat: a plain file's size, or a link to look behind
            st: os.stat_result | None = os.lstat(p)
        except OSError:
            st = None
        if st is not None and _stat.S_ISLNK(st.st_mode) and not self.follow_links:
            real = os.path.realpath(p)
            if os.path.commonpath([top, real]) != top:
                why = (
                    f"a symlink out of {src} (to {real}): not followed (--follow-links follows it)"
                )
                if self.skipped is not None:
                    self.skipped.append((p, why))
                return None
        if st is None or _stat.S_ISLNK(st.st_mode):
            try:
                st = os.stat(p)
            except OSError:
                st = None
        return p, None if st is None else st.st_size

    def tree(self, src: str, entries: list[os.DirEntry[str]]) -> Iterator[tuple[str, int | None]]:
        """The files under folder `src` (listed as `entries`), depth first."""
        top = os.path.realpath(src)
        stack: list[tuple[str, list[os.DirEntry[str]] | None]] = [(src, entries)]
        kept = 0
        while stack:
            root, listed = stack.pop()
            if listed is None:
                listed = _listing(root)
                if listed is None:
                    continue
            else:
                kept -= len(listed)
            found: list[tuple[str, bool]] = []
            walk_into: list[tuple[str, list[os.DirEntry[str]] | None]] = []
            for e in sorted(listed, key=lambda e: e.name):
                if not _is_dir(e):
                    if self.taken(e.name):
                        found.append((e.name, False))
                    continue
                if _is_link(e):  # a symlinked folder: neither a unit nor walked into
                    continue
                sub = os.path.join(root, e.name)
                children = _listing(sub)
                if self.unit(sub, children):
                    found.append((e.name, True))
                    continue
                if children is not None and kept + len(children) <= LISTINGS_KEPT:
                    kept += len(children)
                    walk_into.append((sub, children))
                else:
                    walk_into.append((sub, None))
            for name, is_unit in sorted(found):
                p = os.path.join(root, name)
                if is_unit:
                    yield p, None
                    continue
                got = self.sized(src, top, p)
                if got is not None:
                    yield got
            stack.extend(reversed(walk_into))


def walk(
    sources: Sequence[str],
    pattern: str = "*.jsonl",
    *,
    follow_links: bool = False,
    skipped: list[tuple[str, str]] | None = None,
    kinds: bool = True,
) -> Iterator[tuple[str, int | None]]:
    """(path, size) for each local source (module docstring): a folder walked for the
    files matching `pattern` (with `kinds`: every file, and each pack or bundle
    folder as one path); anything else taken as a file, as given (a missing one, size None, is
    reported later)."""
    walker = _Walker(pattern, follow_links, skipped, kinds)
    for src in sources:
        if os.path.isdir(src):
            entries = _listing(src)
            if walker.unit(src, entries):
                yield src, None
            elif entries is not None:
                yield from walker.tree(src, entries)
            continue
        try:
            yield src, os.stat(src).st_size
        except OSError:
            yield src, None
