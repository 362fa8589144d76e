"""What an evidence file is: the one classifier behind `export`, `view` and every
frontend that guesses.

`classify(path)` never raises and never blocks on a FIFO or device. Its answer, first
match wins:

1. a folder → **folder** (the viewer opens it as a fleet tab: its ledgers, audited as
   `sealscope fleet` audits them; no one-file frontend opens it);
   anything else that is not a regular file we can stat and open (missing, a FIFO,
   no permission) → **unreadable**, with the reason;
2. one JSON object whose `schema` is the continuity snapshot schema and which has no
   `chain` (a ledger row's) → **snapshot** (the viewer shows it in a seal tab);
3. a file not named `.json` → **ledger** (its chain verdict says what is wrong with it);
4. a `.json` file that is not one JSON document (a JSONL ledger saved as `.json`, text
   that is not JSON), or is too large to read whole → **ledger**;
5. a `.json` harn transcript or run record → **harn** (the loaded document kept);
6. a `.json` object with a `chain` (a one-row ledger) → **ledger**;
7. any other `.json` document is not a ledger, seal or harn file: **restatement**
   (an object of texts), **tiers** (an object of lists of texts), **manifest** (any
   other object) or **other**, each with a reason naming what was looked for.

Only ledger, snapshot and harn open as one file (`FileKind.opens`); the reason of the
others is the one line a frontend shows.
"""
from __future__ import annotations

import os
import stat as _stat
from dataclasses import dataclass
from typing import Any

from sealscope.core import harn as _harn
from sealscope.core import lines as _lines
from sealscope.core.continuity.schema import SNAPSHOT_SCHEMA
from sealscope.core.jsonio import loads as _loads

__all__ = ["LEDGER", "SNAPSHOT", "HARN", "RESTATEMENT", "TIERS", "MANIFEST", "OTHER",
           "UNREADABLE", "FOLDER", "OPENS", "FileKind", "classify", "SNIFF_LIMIT"]

LEDGER = "ledger"
SNAPSHOT = "snapshot"
HARN = "harn"
RESTATEMENT = "restatement"
TIERS = "tiers"
MANIFEST = "manifest"
OTHER = "other"
UNREADABLE = "unreadable"
FOLDER = "folder"
OPENS = (LEDGER, SNAPSHOT, HARN)

SNIFF_LIMIT = 64 << 20   # a file over this is never read whole to find a snapshot in it

LOOKED_FOR = (f"looked for JSONL rows with a `chain`, a continuity snapshot (`schema` "
              f"{SNAPSHOT_SCHEMA}) and a harn transcript or run record")
_WHAT = {RESTATEMENT: "a restatement {probe_id: answer}",
         TIERS: "a tiers file {tier: [field, ...]}",
         MANIFEST: "a manifest or other JSON object"}


@dataclass(frozen=True)
class FileKind:
    """One file's kind; `reason` says why it does not open (unreadable, or not a
    ledger / seal / harn file); `document` is the loaded harn document of a harn file."""
    path: str
    kind: str
    reason: str | None = None
    document: Any = None

    @property
    def opens(self) -> bool:
        return self.kind in OPENS


def classify(path: str | os.PathLike[str]) -> FileKind:
    """The kind of `path` (rules in the module docstring). Never raises."""
    p = os.fspath(path)
    try:
        st = os.stat(p)
    except (OSError, ValueError) as e:
        return FileKind(p, UNREADABLE, f"cannot read {p}: {getattr(e, 'strerror', None) or e}")
    if _stat.S_ISDIR(st.st_mode):
        return _folder(p)
    if not _stat.S_ISREG(st.st_mode):
        return FileKind(p, UNREADABLE, f"cannot read {p}: not a regular file")
    is_json = p.lower().endswith(".json")
    limit = _harn.DEFAULT_MAX_BYTES if is_json else SNIFF_LIMIT
    if st.st_size > limit:
        return FileKind(p, LEDGER)
    try:   # a file swapped since the stat is refused by the open, as the stat refuses it
        with _lines.open_regular(p) as fh:
            data = fh.read(limit)
    except IsADirectoryError:
        return _folder(p)
    except OSError as e:
        return FileKind(p, UNREADABLE, f"cannot read {p}: {e.strerror or e}")
    except MemoryError:
        return FileKind(p, LEDGER)
    if not is_json and not _may_be_snapshot(data):
        return FileKind(p, LEDGER)
    value = _one_document(data)
    if value is _NOT_ONE:
        return FileKind(p, LEDGER)
    if _is_snapshot(value):
        return FileKind(p, SNAPSHOT)
    if not is_json:
        return FileKind(p, LEDGER)
    return _json_kind(p, value, len(data))


def _folder(p: str) -> FileKind:
    return FileKind(p, FOLDER, f"cannot read {p}: Is a directory")


def _may_be_snapshot(data: bytes) -> bool:
    """A cheap byte test before parsing: an object naming the snapshot schema."""
    return data.lstrip()[:1] == b"{" and SNAPSHOT_SCHEMA.encode() in data


_NOT_ONE = object()


def _one_document(data: bytes) -> Any:
    try:
        return _loads(data.decode("utf-8"))
    except (ValueError, RecursionError, MemoryError):   # UnicodeDecodeError is a ValueError
        return _NOT_ONE


def _is_snapshot(value: Any) -> bool:
    # a one-row ledger is one JSON object too: its row carries `chain`, a snapshot never
    return isinstance(value, dict) and value.get("schema") == SNAPSHOT_SCHEMA \
        and "chain" not in value


def _json_kind(p: str, value: Any, size: int) -> FileKind:
    """Rules 5-7 for one parsed `.json` document."""
    try:
        return FileKind(p, HARN, document=_harn.document_from_value(value, path=p, size=size))
    except _harn.HarnShapeError:
        pass
    except (_harn.HarnParseError, _harn.HarnTooLargeError):
        return FileKind(p, LEDGER)
    except _harn.HarnError as e:
        return FileKind(p, UNREADABLE, e.message)
    if isinstance(value, dict) and "chain" in value:
        return FileKind(p, LEDGER)
    kind = _shape(value)
    what = _WHAT.get(kind) or f"one JSON {_JSON_TYPE.get(type(value), 'value')}"
    return FileKind(p, kind, f"not a ledger / seal / harn file: it reads as {what} "
                             f"({LOOKED_FOR})")


_JSON_TYPE = {dict: "object", list: "array", str: "string", int: "number", float: "number",
              bool: "boolean", type(None): "null"}


def _shape(value: Any) -> str:
    if not isinstance(value, dict) or not value:
        return OTHER
    values = list(value.values())
    if all(isinstance(v, str) for v in values):
        return RESTATEMENT
    if all(isinstance(v, list) and all(isinstance(f, str) for f in v) for v in values):
        return TIERS
    return MANIFEST
