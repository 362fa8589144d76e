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

**Evidence kinds** (`identify`, KINDS.md §1): what `sealscope check` runs on a path —
`ledger`, `snapshot`, `harn`, `receipt`, `distill-receipt`, `portable-receipt`,
`continuity-verdict`, `evidence-pack`, `audit-bundle`, `aat-export`, `call-record`, or
none (`reason_word` `missing` / `unreadable`). The rules, first match wins:

1. missing → none (`missing`);
2. a folder with a `manifest.json` object holding `pack_schema`, or a regular
   `manifest.sha256` / `window.jsonl` / `could_not_look.json` → evidence-pack;
3. any other folder with a regular `records.jsonl`, a `manifest.json` whose `tool`
   starts `arcaeon-audit/`, or an `integrity.json` holding `bundle_schema` →
   audit-bundle; 4. any other folder → none (`unreadable`);
5. a regular file starting `PK\x03\x04` / `PK\x05\x06` → evidence-pack, except a
   readable zip with a `MANIFEST.json` entry and an entry under `cohort/` (a portable
   class archive) → none;
6. the whole file strict UTF-8 and one JSON object (Python parse), unless it is one
   line whose `chain` is a string (a ledger row): by its schema — receipt, distill
   receipt (or `arcaeon distill`'s stdout), portable receipt, continuity verdict,
   snapshot, harn; any other object named `.json` or spanning several lines → none;
7. a `.json` file that is not one JSON object → none;
8–9. by the first line (strict UTF-8) that parses as an object: `prev_hash` without
   `ts` → aat-export; `op` `tool_call` with `args_digest` → call-record;
10. a non-empty file not named `.jsonl` in which no line parses as a JSON value
   (plain text, CBOR, a "zip" that is not one) → none (`unreadable`);
11. anything else (an empty file, a `.jsonl` file of any bytes) → ledger.

`classify` answers the frontends' question (what opens, and how) and carries the
evidence kind beside it (`FileKind.check_kind`), so a file of another kind is named as
such in the reason a frontend shows.
"""

from __future__ import annotations

import os
import stat as _stat
import zipfile
from dataclasses import dataclass
from typing import Any

from sealscope.core import harn as _harn
from sealscope.core import lines as _lines
from sealscope.core import registry as _registry
from sealscope.core.continuity.schema import SNAPSHOT_SCHEMA
from sealscope.core.jsonio import loads as _loads

__all__ = [
    "LEDGER",
    "SNAPSHOT",
    "HARN",
    "RESTATEMENT",
    "TIERS",
    "MANIFEST",
    "OTHER",
    "UNREADABLE",
    "FOLDER",
    "OPENS",
    "FileKind",
    "classify",
    "SNIFF_LIMIT",
    "RECEIPT",
    "DISTILL_RECEIPT",
    "PORTABLE_RECEIPT",
    "CONTINUITY_VERDICT",
    "EVIDENCE_PACK",
    "AUDIT_BUNDLE",
    "AAT_EXPORT",
    "CALL_RECORD",
    "CHECK_KINDS",
    "UNIT_KINDS",
    "UNIT_MARKS",
    "Identified",
    "identify",
    "identify_data",
]

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

SNIFF_LIMIT = 64 << 20  # a file over this is never read whole to find a snapshot in it
# `identify` reads this much first; only a file its prefix does not settle as "not one
# JSON object" (`_prefix_settles`) is read further, up to SNIFF_LIMIT
PREFIX_BYTES = 64 << 10

LOOKED_FOR = (
    f"looked for JSONL rows with a `chain`, a continuity snapshot (`schema` "
    f"{SNAPSHOT_SCHEMA}) and a harn transcript or run record"
)
_WHAT = {
    RESTATEMENT: "a restatement {probe_id: answer}",
    TIERS: "a tiers file {tier: [field, ...]}",
    MANIFEST: "a manifest or other JSON object",
}


@dataclass(frozen=True)
class FileKind:
    """One file's kind; `reason` says why it does not open (unreadable, or not a
    ledger / seal / harn file); `document` is the loaded harn document of a harn file."""

    path: str
    kind: str
    reason: str | None = None
    document: Any = None
    check_kind: str | None = None

    @property
    def opens(self) -> bool:
        return self.kind in OPENS


def classify(path: str | os.PathLike[str]) -> FileKind:
    """The kind of `path` (rules in the module docstring), with its evidence kind
    (`identify`) as `check_kind`. Never raises."""
    found = _classify(path)
    ev = identify(path)
    if ev.kind is None and found.kind == LEDGER and not found.path.lower().endswith(".json"):
        # what `check` calls evidence of no kind never opens as a ledger to be BROKEN
        return FileKind(found.path, UNREADABLE, ev.reason)
    if ev.kind is None and found.check_kind is None:
        return found
    reason = found.reason
    record = _registry.get(ev.kind)
    if not found.opens and ev.kind not in (None, found.kind, *OPENS) and record is not None:
        reason = f"{found.path} is {record.title}: its own check is `sealscope check {found.path}`"
    return FileKind(found.path, found.kind, reason, found.document, ev.kind)


def _classify(path: str | os.PathLike[str]) -> FileKind:
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
    try:  # a file swapped since the stat is refused by the open, as the stat refuses it
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
    except (ValueError, RecursionError, MemoryError):  # UnicodeDecodeError is a ValueError
        return _NOT_ONE


def _is_snapshot(value: Any) -> bool:
    # a one-row ledger is one JSON object too: its row carries `chain`, a snapshot never
    return (
        isinstance(value, dict) and value.get("schema") == SNAPSHOT_SCHEMA and "chain" not in value
    )


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
    return FileKind(p, kind, f"not a ledger / seal / harn file: it reads as {what} ({LOOKED_FOR})")


_JSON_TYPE = {
    dict: "object",
    list: "array",
    str: "string",
    int: "number",
    float: "number",
    bool: "boolean",
    type(None): "null",
}


def _shape(value: Any) -> str:
    if not isinstance(value, dict) or not value:
        return OTHER
    values = list(value.values())
    if all(isinstance(v, str) for v in values):
        return RESTATEMENT
    if all(isinstance(v, list) and all(isinstance(f, str) for f in v) for v in values):
        return TIERS
    return MANIFEST


# ----------------------------------------------------------------------- evidence kinds

RECEIPT = "receipt"
DISTILL_RECEIPT = "distill-receipt"
PORTABLE_RECEIPT = "portable-receipt"
CONTINUITY_VERDICT = "continuity-verdict"
EVIDENCE_PACK = "evidence-pack"
AUDIT_BUNDLE = "audit-bundle"
AAT_EXPORT = "aat-export"
CALL_RECORD = "call-record"
CHECK_KINDS = _registry.names()  # the built-in kinds, in KINDS.md §12's order

MISSING_WORD = "missing"
UNREADABLE_WORD = "unreadable"

_COMPACT_SCHEMAS = ("arcaeon-compact:receipt:v1", "arcaeon-compact:receipt:v2")
_DISTILL_PREFIX = "arcaeon-distill:receipt:"
_PORTABLE_PREFIX = "arcaeon-receipt/"
_VERDICT_PREFIX = "arcaeon-continuity:verdict:"
_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_FOLDER_DOC_LIMIT = 16 << 20  # a folder's manifest.json / integrity.json read at most
_MANIFEST_FILE = "manifest.json"
_INTEGRITY_FILE = "integrity.json"
_PACK_FILES = ("manifest.sha256", "window.jsonl", "could_not_look.json")
_BUNDLE_FILES = ("records.jsonl",)

UNIT_KINDS = (EVIDENCE_PACK, AUDIT_BUNDLE)
"""The kinds read as one unit of several members (a folder or a zip)."""
UNIT_MARKS = frozenset((_MANIFEST_FILE, _INTEGRITY_FILE, *_PACK_FILES, *_BUNDLE_FILES))
"""Every name the folder rules look for (§1 rules 2-3): a folder listing none of them,
compared lowercased for a filesystem that ignores case, is neither a pack nor a bundle."""


@dataclass(frozen=True)
class Identified:
    """A path's evidence kind (KINDS.md §1); `kind` None with `reason_word` `missing`
    or `unreadable` when it is none of them, `reason` saying what was found."""

    path: str
    kind: str | None
    reason_word: str | None = None
    reason: str = ""


def identify(path: str | os.PathLike[str]) -> Identified:
    """The evidence kind of `path` (rules in the module docstring, KINDS.md §1). Never
    raises, never blocks on a FIFO or device (those are none, `unreadable`)."""
    p = os.fspath(path)
    try:
        st = os.stat(p)
    except FileNotFoundError:
        return Identified(p, None, MISSING_WORD, f"{p} does not exist")
    except (OSError, ValueError) as e:
        return Identified(
            p, None, UNREADABLE_WORD, f"cannot read {p}: {getattr(e, 'strerror', None) or e}"
        )
    if _stat.S_ISDIR(st.st_mode):
        return _identify_folder(p)
    if not _stat.S_ISREG(st.st_mode):
        return Identified(p, None, UNREADABLE_WORD, f"{p} is not a regular file")
    try:
        with _lines.open_regular(p) as fh:
            return _identify_open(p, fh, st.st_size)
    except (OSError, ValueError, MemoryError) as e:
        return Identified(
            p, None, UNREADABLE_WORD, f"cannot read {p}: {getattr(e, 'strerror', None) or e}"
        )


def identify_data(path: str, data: bytes) -> Identified:
    """`identify` of a regular file whose every byte `data` holds (read once through
    one open file, e.g. by a fleet worker), decided by the same rules from those
    bytes; never raises."""
    import io

    try:
        return _identify_open(path, io.BytesIO(data), len(data))
    except (OSError, ValueError, MemoryError) as e:
        return Identified(
            path, None, UNREADABLE_WORD, f"cannot read {path}: {getattr(e, 'strerror', None) or e}"
        )


def _identify_open(p: str, fh: Any, size: int) -> Identified:
    """Rules 5-10 for a regular file open on `fh` at its start, `size` bytes long."""
    head = fh.read(4)
    if head in _ZIP_MAGIC:
        return _identify_zip(p)
    whole = size <= SNIFF_LIMIT
    data = head + fh.read(PREFIX_BYTES - 4) if whole else head
    if whole and len(data) == PREFIX_BYTES and not _prefix_settles(data):
        data += fh.read(SNIFF_LIMIT - PREFIX_BYTES)  # may be one document
    kind = _identify_document(p, data) if whole else None
    if kind is not None:
        return kind
    fh.seek(0)
    return _by_first_row(p, fh, size)


def _regular(path: str) -> bool:
    try:
        return _stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _folder_doc(path: str) -> Any:
    """A folder's JSON document (Python parse of UTF-8), or None when it is not one."""
    try:
        with _lines.open_regular(path) as fh:
            data = fh.read(_FOLDER_DOC_LIMIT + 1)
        if len(data) > _FOLDER_DOC_LIMIT:
            return None
        return _loads(data.decode("utf-8"))
    except (OSError, ValueError, MemoryError):
        return None


def _identify_folder(p: str) -> Identified:
    manifest = _folder_doc(os.path.join(p, _MANIFEST_FILE))
    if (isinstance(manifest, dict) and "pack_schema" in manifest) or any(
        _regular(os.path.join(p, n)) for n in _PACK_FILES
    ):
        return Identified(p, EVIDENCE_PACK)
    tool = manifest.get("tool") if isinstance(manifest, dict) else None
    integrity = _folder_doc(os.path.join(p, _INTEGRITY_FILE))
    if (
        any(_regular(os.path.join(p, n)) for n in _BUNDLE_FILES)
        or (isinstance(tool, str) and tool.startswith("arcaeon-audit/"))
        or (isinstance(integrity, dict) and "bundle_schema" in integrity)
    ):
        return Identified(p, AUDIT_BUNDLE)
    return Identified(
        p,
        None,
        UNREADABLE_WORD,
        f"{p} is a folder that is neither an evidence pack nor an audit bundle "
        f"(`sealscope fleet {p}` audits a folder of evidence)",
    )


def _identify_zip(p: str) -> Identified:
    try:
        with zipfile.ZipFile(p) as z:
            names = z.namelist()
    except Exception:  # noqa: BLE001 - any unreadable zip is a pack that could not be looked at
        return Identified(p, EVIDENCE_PACK)
    if "MANIFEST.json" in names and any(n.startswith("cohort/") for n in names):
        return Identified(
            p, None, UNREADABLE_WORD, f"{p} is a portable class archive (no check of its own)"
        )
    return Identified(p, EVIDENCE_PACK)


def _is_row_line(data: bytes, value: dict[str, Any]) -> bool:
    """One line holding a string `chain`: a ledger row, never a whole document."""
    return b"\n" not in data.rstrip(b"\r\n") and isinstance(value.get("chain"), str)


def _document_kind(p: str, value: dict[str, Any], size: int) -> str | None:
    """Rows 6a-6f for one parsed object, then the kinds registered beyond them
    (`registry.matching`); None when it is none of them."""
    schema = value.get("schema")
    if schema in _COMPACT_SCHEMAS or value.get("kind") == "compaction_receipt":
        return RECEIPT
    inner = value.get("receipt")
    if (isinstance(schema, str) and schema.startswith(_DISTILL_PREFIX)) or (
        "content" in value
        and "strategy" in value
        and isinstance(inner, dict)
        and isinstance(inner.get("schema"), str)
        and inner["schema"].startswith(_DISTILL_PREFIX)
    ):
        return DISTILL_RECEIPT
    version = value.get("receipt_version")
    if isinstance(version, str) and version.startswith(_PORTABLE_PREFIX):
        return PORTABLE_RECEIPT
    if isinstance(schema, str) and schema.startswith(_VERDICT_PREFIX):
        return CONTINUITY_VERDICT
    if schema == SNAPSHOT_SCHEMA:
        return SNAPSHOT
    try:
        _harn.document_from_value(value, path=p, size=size)
        return HARN
    except Exception:  # noqa: BLE001 - not a harn document, whatever the reason
        return _registry.matching(value)  # a kind registered beyond §1's rows, if any


def _identify_document(p: str, data: bytes) -> Identified | None:
    """Rows 6 and 7; None to go on to the first-row rules."""
    is_json = p.lower().endswith(".json")
    value = _one_document(data) if _may_be_one_object(data) else _NOT_ONE
    if isinstance(value, dict) and not _is_row_line(data, value):
        kind = _document_kind(p, value, len(data))
        if kind is not None:
            return Identified(p, kind)
        if is_json or b"\n" in data.rstrip(b"\r\n"):
            return Identified(
                p, None, UNREADABLE_WORD, f"{p} is a JSON object of no kind sealscope checks"
            )
        return None
    if is_json and not isinstance(value, dict):
        return Identified(p, None, UNREADABLE_WORD, f"{p} is not one JSON object")
    return None


def _prefix_settles(prefix: bytes) -> bool:
    """Whether the first bytes of a file already show it is not one JSON object, so
    rules 6 and 7 answer from them as from the whole file: something other than `{`
    comes first, or a first line that is a whole value has more after it (a JSONL
    ledger). A ledger is then read no further than this prefix to be classified."""
    return bool(prefix.strip()) and not _may_be_one_object(prefix)


def _may_be_one_object(data: bytes) -> bool:
    """A cheap test before decoding the whole file: it starts with `{`, and it is not
    a first line that is a whole object followed by more (a JSONL ledger)."""
    body = data.lstrip()
    if body[:1] != b"{":
        return False
    end = body.find(b"\n")
    if end < 0 or not body[end:].strip():
        return True
    try:
        _loads(body[:end].decode("utf-8"))
    except ValueError:
        return True  # the first line is not a whole value: a pretty-printed document
    return False


def _by_first_row(p: str, fh: Any, size: int) -> Identified:
    """Rows 8-11: the first line (split on LF, strict UTF-8, stripped, Python-parsed;
    a line that is not UTF-8 or does not parse is skipped) that is an object decides;
    a non-empty file not named `.jsonl` in which no line parses as a JSON value is of
    no kind (row 10); anything else is a ledger. At most `SNIFF_LIMIT` bytes are read:
    a file that holds no JSON line within them is a ledger, judged by its walk."""
    read = 0
    any_value = False
    for raw in fh:
        read += len(raw)
        if read > SNIFF_LIMIT:
            return Identified(p, LEDGER)
        try:
            text = raw.decode("utf-8").strip()
        except UnicodeDecodeError:
            continue
        if not text:
            continue
        try:
            value = _loads(text)
        except (ValueError, RecursionError):
            continue
        any_value = True
        if not isinstance(value, dict):
            continue
        if "prev_hash" in value and "ts" not in value:
            return Identified(p, AAT_EXPORT)
        if value.get("op") == "tool_call" and "args_digest" in value:
            return Identified(p, CALL_RECORD)
        return Identified(p, LEDGER)
    if size and not any_value and not p.lower().endswith(".jsonl"):
        return Identified(
            p,
            None,
            UNREADABLE_WORD,
            f"{p} holds no JSON line: not evidence of a kind sealscope knows",
        )
    return Identified(p, LEDGER)
