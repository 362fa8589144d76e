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
from array import array
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
# a text of hex digits only (and at least `FRAGMENT_MIN` of them): none of the tags'
# words holds such a run, so only a hash can
_HEX_TEXT = re.compile(r"[0-9a-f]+")


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
_U32, _I63 = 1 << 32, 1 << 63  # the widths of the columns' arrays


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
    """digest → every manifest position holding it, over one or more ledgers.

    A canonical digest's entry is kept in columns, not as objects: its key (the 33
    bytes `_key` gives) in one byte string, its ledger, line and position in arrays,
    49 bytes an entry, sorted by key (stably: a digest's locations stay in ledger,
    line, position order) when first asked; anything else (a digest that is not
    canonical, a location past the arrays' widths) in a dict beside them."""

    _REC = 33  # a canonical key's bytes: the tag byte and the 32 hash bytes

    def __init__(self) -> None:
        self.ledgers: list[str] = []
        self.rows = 0  # receipt rows seen
        self.entries = 0  # string manifest entries indexed
        self._keys = bytearray()  # canonical keys, _REC bytes each
        self._li, self._line, self._pos = array("I"), array("q"), array("I")  # where each is
        self._sorted = True
        self._distinct = 0  # distinct keys among `_keys`, once sorted
        self._other: dict[bytes | str, list[Any]] = {}

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
        self.rows += 1
        dropped = row.get("dropped")
        items = dropped.get("items") if isinstance(dropped, dict) else None
        if not isinstance(items, list):
            return
        for pos, d in enumerate(items):
            if not isinstance(d, str):
                continue
            k = _key(d)
            if isinstance(k, bytes) and li < _U32 and line < _I63 and pos < _U32:
                self._keys += k
                self._li.append(li)
                self._line.append(line)
                self._pos.append(pos)
                self._sorted = False
            else:
                self._other.setdefault(k, []).append(_pack(li, line, pos))
            self.entries += 1

    def _key_at(self, i: int) -> bytes:
        return bytes(self._keys[i * self._REC : (i + 1) * self._REC])

    def _order(self) -> None:
        """Sort the columns by key, stably (once, after the last entry was added)."""
        if self._sorted:
            return
        n, rec, keys = len(self._li), self._REC, self._keys
        order = sorted(range(n), key=lambda i: keys[i * rec : (i + 1) * rec])
        self._keys = bytearray().join(keys[i * rec : (i + 1) * rec] for i in order)
        for name in ("_li", "_line", "_pos"):
            col = getattr(self, name)
            setattr(self, name, array(col.typecode, (col[i] for i in order)))
        self._distinct = sum(
            1 for i in range(n) if i == 0 or self._key_at(i) != self._key_at(i - 1)
        )
        self._sorted = True

    def _span(self, k: bytes) -> range:
        """The indices of the columns' entries with key `k`."""
        self._order()
        lo, hi = 0, len(self._li)
        while lo < hi:
            mid = (lo + hi) // 2
            if self._key_at(mid) < k:
                lo = mid + 1
            else:
                hi = mid
        end = lo
        while end < len(self._li) and self._key_at(end) == k:
            end += 1
        return range(lo, end)

    def _items(self) -> Iterator[tuple[bytes | str, list[Any]]]:
        """(key, its packed locations) of every distinct key."""
        self._order()
        i, n = 0, len(self._li)
        while i < n:
            key, vals = self._key_at(i), []
            while i < n and self._key_at(i) == key:
                vals.append(self._at(i))
                i += 1
            yield key, vals + self._other.get(key, [])
        for k, more in self._other.items():
            if not (isinstance(k, bytes) and self._span(k)):
                yield k, more

    def _at(self, i: int) -> tuple[int, int, int]:
        return (self._li[i], self._line[i], self._pos[i])

    def _values(self, k: bytes | str) -> list[Any]:
        got = [self._at(i) for i in self._span(k)] if isinstance(k, bytes) else []
        return got + self._other.get(k, [])

    def __len__(self) -> int:
        """Distinct digests indexed."""
        self._order()
        return self._distinct + sum(
            1 for k in self._other if not (isinstance(k, bytes) and self._span(k))
        )

    def nbytes(self) -> int:
        """The bytes the canonical entries' columns hold."""
        cols = (self._li, self._line, self._pos)
        return len(self._keys) + sum(c.itemsize * len(c) for c in cols)

    def _locs(self, vals: list[Any]) -> list[Location]:
        out = sorted(_unpack(x) for x in vals)
        return [Location(self.ledgers[li], line, pos) for li, line, pos in out]

    def where(self, digest: str) -> list[Location]:
        """Every manifest position holding exactly `digest`, by ledger (in the order
        given), then line, then position. Empty when none."""
        if not isinstance(digest, str):
            return []
        return self._locs(self._values(_key(digest)))

    def __contains__(self, digest: object) -> bool:
        return isinstance(digest, str) and bool(self._values(_key(digest)))

    def containing(self, text: str) -> list[Entry]:
        """Manifest entries whose digest contains `text`, ignoring case, surrounding
        spaces and a trailing `…` (a digest shown cut ends so), by ledger, line,
        position. None for a text shorter than `FRAGMENT_MIN`, which most digests
        would contain."""
        want = text.strip().rstrip("…").strip().casefold()
        if len(want) < FRAGMENT_MIN:
            return []
        out: list[tuple[int, int, int, str]] = []
        if _HEX_TEXT.fullmatch(want):  # only a canonical key's hash can hold it
            for i in self._hex_hits(want):
                out.append((*self._at(i), _unkey(self._key_at(i))))
            items: Iterable[tuple[bytes | str, list[Any]]] = self._other.items()
        else:
            items = self._items()
        for k, vals in items:
            d = _unkey(k)
            if want in d.casefold():
                out.extend((*_unpack(x), d) for x in vals)
        out.sort(key=lambda t: t[:3])
        return [Entry(self.ledgers[li], line, pos, d) for li, line, pos, d in out]

    def _hex_hits(self, want: str) -> list[int]:
        """The columns' entries whose hash, in hex, holds `want` (lowercase hex): one
        search through the keys written out in hex (2 characters a byte; a record's
        tag byte is its first two)."""
        self._order()
        hexed, width = self._keys.hex(), 2 * self._REC
        hits: list[int] = []
        at = hexed.find(want)
        while at >= 0:
            i, off = divmod(at, width)
            if off >= 2 and off + len(want) <= width and (not hits or hits[-1] != i):
                hits.append(i)
            at = hexed.find(want, at + 1)
        return hits

    def unexplained(self, held_digests: Iterable[str]) -> list[Entry]:
        """Manifest entries whose digest no held item has (one held item explains every
        entry with its digest), by ledger, line, position."""
        held = {_key(d) for d in held_digests if isinstance(d, str)}
        out: list[tuple[int, int, int, str]] = []
        for k, vals in self._items():
            if k in held:
                continue
            d = _unkey(k)
            for x in vals:
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
