"""Finding receipt rows in ledgers, and a digest index over their drop manifests.

Receipt rows are the lines, split and decoded exactly as the verifier reads a ledger
(`sealscope.core.lines`: universal newlines, UTF-8 with replacement, Python-whitespace
strip), that plain-parse (duplicate keys: last wins) to a JSON object whose `kind` is
exactly `compaction_receipt`. Lines are numbered as the verifier numbers them.

`DropIndex.build` reads every ledger once, window by window by offset (the verifier's
reader), so memory grows with the number of manifest entries, not with the files. A manifest entry
is one string in a receipt row's `dropped.items`; its position is its 0-based index
there (non-string entries keep their place but never match). Whether the row verifies
is not this module's question: every receipt row's manifest is indexed.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any, NamedTuple

from sealscope.core import held as _held
from sealscope.core.digest import item_digest
from sealscope.core.jsonio import loads
from sealscope.core.ledger import iter_rows
from sealscope.core.receipt import KIND, is_receipt_row

__all__ = [
    "iter_receipt_rows",
    "Location",
    "Entry",
    "DropIndex",
    "FRAGMENT_MIN",
    "TypedItem",
    "typed_items",
    "containing_items",
    "places_in",
]

ProgressFn = Callable[[int, int], None]

_NEEDLE = KIND.encode()

FRAGMENT_MIN = 8  # characters of a digest fragment `DropIndex.containing` searches for


# a receipt row spells its kind literally, or with a `\\u` escape that could spell it
_NEEDLES = (_NEEDLE, b"\\u")


def iter_receipt_rows(
    path: str | os.PathLike[str],
    on_progress: ProgressFn | None = None,
    *,
    done_before: int = 0,
    grand_total: int | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """(line number, row) for every receipt row of one ledger, in file order. OSError
    when the file cannot be opened. `on_progress(done, total)` gets bytes read
    (offset by `done_before` out of `grand_total` when scanning several files)."""

    def progress(done: int, total: int) -> None:
        if on_progress is not None:
            on_progress(done_before + done, total if grand_total is None else grand_total)

    for n, obj in iter_rows(
        path, needles=_NEEDLES, on_progress=progress if on_progress is not None else None
    ):
        if is_receipt_row(obj):
            yield n, obj


class Location(NamedTuple):
    """Where a manifest entry sits: ledger (as given), 1-based line, 0-based position."""

    ledger: str
    line: int
    position: int


class Entry(NamedTuple):
    """A manifest entry with its digest."""

    ledger: str
    line: int
    position: int
    digest: str


# Keys: a canonical sha256 digest is stored as 1 tag byte + the 32 raw hash bytes;
# anything else as its own string. Bytes and str keys never compare equal.
_TAGS = {"sha256:raw-bytes:v1:": b"r", "sha256:json-c14n:v1:": b"j"}
_UNTAG = {v[0]: k for k, v in _TAGS.items()}
_HEX64 = re.compile(r"[0-9a-f]{64}")


def _key(d: str) -> bytes | str:
    tag = _TAGS.get(d[:20])
    if tag is not None and len(d) == 84 and _HEX64.fullmatch(d, 20):
        return tag + bytes.fromhex(d[20:])
    return d


def _unkey(k: bytes | str) -> str:
    return k if isinstance(k, str) else _UNTAG[k[0]] + k[1:].hex()


# Values: one location packed in an int (ledger index, line < 2^40, position < 2^32),
# a tuple when it does not fit, or a list of those for a digest seen more than once.
_POS_BITS, _LINE_BITS = 32, 40


def _pack(li: int, line: int, pos: int) -> int | tuple[int, int, int]:
    if line < (1 << _LINE_BITS) and pos < (1 << _POS_BITS):
        return (((li << _LINE_BITS) | line) << _POS_BITS) | pos
    return (li, line, pos)


def _unpack(v: int | tuple[int, int, int]) -> tuple[int, int, int]:
    if isinstance(v, tuple):
        return v
    return (
        v >> (_POS_BITS + _LINE_BITS),
        (v >> _POS_BITS) & ((1 << _LINE_BITS) - 1),
        v & ((1 << _POS_BITS) - 1),
    )


class DropIndex:
    """digest → every manifest position holding it, over one or more ledgers."""

    def __init__(self) -> None:
        self.ledgers: list[str] = []
        self.rows = 0  # receipt rows seen
        self.entries = 0  # string manifest entries indexed
        self._map: dict[bytes | str, Any] = {}

    @classmethod
    def build(
        cls,
        paths: str | os.PathLike[str] | Iterable[str | os.PathLike[str]],
        on_progress: ProgressFn | None = None,
    ) -> DropIndex:
        """Index every receipt row's `dropped.items` of the ledgers, in one pass each.
        OSError when a ledger cannot be read."""
        if isinstance(paths, (str, os.PathLike)):
            paths = [paths]
        paths = [os.fspath(p) for p in paths]
        sizes = [os.stat(p).st_size for p in paths]
        idx = cls()
        done = 0
        for p, size in zip(paths, sizes, strict=True):
            idx.add_ledger(p, on_progress, done_before=done, grand_total=sum(sizes))
            done += size
        return idx

    def add_ledger(
        self,
        path: str | os.PathLike[str],
        on_progress: ProgressFn | None = None,
        *,
        done_before: int = 0,
        grand_total: int | None = None,
    ) -> None:
        """Add one ledger's manifests (its locations report `path` as given)."""
        name = os.fspath(path)
        li = len(self.ledgers)
        self.ledgers.append(name)
        for line, row in iter_receipt_rows(
            name, on_progress, done_before=done_before, grand_total=grand_total
        ):
            self._add_row(li, line, row)

    def add_receipt(self, path: str | os.PathLike[str], row: Any, line: int = 1) -> None:
        """Add one stand-alone receipt's manifest (a receipt file, KINDS.md §2: the
        document already read, `row`), its locations reporting `path` and `line` (1:
        the file is the one receipt). A document that is not an object adds nothing
        but the name."""
        li = len(self.ledgers)
        self.ledgers.append(os.fspath(path))
        if isinstance(row, dict):
            self._add_row(li, line, row)

    def _add_row(self, li: int, line: int, row: dict[str, Any]) -> None:
        """Index the `dropped.items` of one receipt row (string entries only)."""
        m = self._map
        self.rows += 1
        dropped = row.get("dropped")
        items = dropped.get("items") if isinstance(dropped, dict) else None
        if not isinstance(items, list):
            return
        for pos, d in enumerate(items):
            if not isinstance(d, str):
                continue
            k = _key(d)
            v = _pack(li, line, pos)
            old = m.get(k)
            if old is None:
                m[k] = v
            elif isinstance(old, list):
                old.append(v)
            else:
                m[k] = [old, v]
            self.entries += 1

    def __len__(self) -> int:
        """Distinct digests indexed."""
        return len(self._map)

    def _locs(self, v: Any) -> list[Location]:
        vals = v if isinstance(v, list) else [v]
        out = []
        for x in vals:
            li, line, pos = _unpack(x)
            out.append(Location(self.ledgers[li], line, pos))
        return out

    def where(self, digest: str) -> list[Location]:
        """Every manifest position holding exactly `digest`, by ledger (in the order
        given), then line, then position. Empty when none."""
        if not isinstance(digest, str):
            return []
        v = self._map.get(_key(digest))
        return [] if v is None else self._locs(v)

    def __contains__(self, digest: object) -> bool:
        return isinstance(digest, str) and _key(digest) in self._map

    def containing(self, text: str) -> list[Entry]:
        """Manifest entries whose digest contains `text`, ignoring case, surrounding
        spaces and a trailing `…` (a digest shown cut ends so), by ledger, line,
        position. None for a text shorter than `FRAGMENT_MIN`, which most digests
        would contain."""
        want = text.strip().rstrip("…").strip().casefold()
        if len(want) < FRAGMENT_MIN:
            return []
        out: list[tuple[int, int, int, str]] = []
        for k, v in self._map.items():
            d = _unkey(k)
            if want in d.casefold():
                out.extend((*_unpack(x), d) for x in (v if isinstance(v, list) else [v]))
        out.sort(key=lambda t: t[:3])
        return [Entry(self.ledgers[li], line, pos, d) for li, line, pos, d in out]

    def unexplained(self, held_digests: Iterable[str]) -> list[Entry]:
        """Manifest entries whose digest no held item has (one held item explains every
        entry with its digest), by ledger, line, position."""
        held = {_key(d) for d in held_digests if isinstance(d, str)}
        out: list[tuple[int, int, int, str]] = []
        for k, v in self._map.items():
            if k in held:
                continue
            d = _unkey(k)
            for x in v if isinstance(v, list) else [v]:
                out.append((*_unpack(x), d))
        out.sort(key=lambda t: t[:3])
        return [Entry(self.ledgers[li], line, pos, d) for li, line, pos, d in out]


# --------------------------------------------------------------------------- typed text


class TypedItem(NamedTuple):
    """An item a person typed or pasted: how it is read, its value, digest and size."""

    label: str
    value: Any
    digest: str
    size: int


def typed_items(text: str) -> list[TypedItem]:
    """Typed text as the items it can be: always a str item (its UTF-8 raw bytes), and
    also a JSON item (json-c14n) when it parses as a JSON value other than a string,
    so a pasted `{"role": ...}` finds the digest a manifest holds for it."""
    d = item_digest(text)
    out = [TypedItem("typed text (raw-bytes of its UTF-8)", text, d.digest, d.size)]
    try:
        v = loads(text)
    except ValueError:
        v = None
    if v is not None and not isinstance(v, str):
        try:
            j = item_digest(v)
            out.append(TypedItem("typed text read as a JSON item (json-c14n)", v, j.digest, j.size))
        except ValueError:
            pass
    return out


def containing_items(
    pool: Iterable[_held.HeldItem], text: str, exclude: Iterable[str] = ()
) -> list[_held.HeldItem]:
    """The held items of `pool` whose text contains `text` (`held.containing`, the text
    stripped), one per digest (the same item held twice has the same places), leaving
    out the digests of `exclude` (the exact items themselves)."""
    seen = set(exclude)
    out = []
    for h in _held.containing(pool, text.strip()):
        if h.digest not in seen:
            seen.add(h.digest)
            out.append(h)
    return out


def places_in(locations: Iterable[Location | Entry], ledger: str) -> list[dict[str, int]]:
    """The places of one ledger among `locations`, as `sealscope lookup --json` prints
    them: `{"line": 1-based line, "position": 0-based manifest index}`."""
    return [
        {"line": loc.line, "position": loc.position}
        for loc in locations
        if str(loc.ledger) == str(ledger)
    ]
