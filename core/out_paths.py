"""Where sealscope may write: never onto its inputs. A path it is asked to write (a
report, JUnit XML, a verification summary, a checkpoint, a recording) lands on an
input when it is that input file (the same path once links and `..` are resolved, or
another name of the same file: a symlink, a hard link) or lies inside an input folder
(a pack or bundle folder, a fleet's source folder, a folder of held artefacts). Such a
write is refused before any work is done; nothing sealscope writes lands on evidence.

URLs and standard input (`-`) are no local input and take no write."""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = ["Landing", "landing"]


@dataclass(frozen=True)
class Landing:
    """The input a write target lands on: `inside` when the target lies in that input
    folder, else the target is that input file (or folder) itself."""

    target: str
    input: str
    inside: bool


def _local(path: str | None) -> bool:
    return bool(path) and path != "-" and "://" not in str(path)


def _same_file(a: str, b: str) -> bool:
    try:
        sa, sb = os.stat(a), os.stat(b)
    except OSError:
        return False
    return (sa.st_dev, sa.st_ino) == (sb.st_dev, sb.st_ino)


def landing(target: str, inputs: Iterable[str | None]) -> Landing | None:
    """The first of `inputs` that writing `target` would land on (module docstring),
    or None. Never raises: a path that cannot be resolved is compared as written."""
    real = os.path.realpath(os.path.expanduser(target))
    for given in inputs:
        if given is None or not _local(given):
            continue
        where = os.path.realpath(os.path.expanduser(given))
        if real == where or _same_file(target, given):
            return Landing(target, given, inside=False)
        if os.path.isdir(where) and real.startswith(where.rstrip(os.sep) + os.sep):
            return Landing(target, given, inside=True)
    return None
