"""Compaction receipts, the sealing side: the content digests of what a compaction
saw (`ContentDigest`), the drop set inferred from them (pre minus post, as a multiset,
in pre order), and the schema-v2 row that binds them (`build_row`,
`CompactionReceipt`). `sealscope.core.receipt` verifies rows and re-exports these.

Item digests follow FORMATS.md 1.5 (`sealscope.core.digest.item_digest`); the row's
fields follow FORMATS.md 5.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import digest as _digest
from sealscope.core import ledger as _ledger
from sealscope.core.clock import utc_stamp

__all__ = [
    "SCHEMA_V1",
    "SCHEMA_V2",
    "KIND",
    "CORE_KEYS",
    "ContentDigest",
    "DropSet",
    "digest_content",
    "content_of",
    "infer_drops",
    "core_of",
    "build_row",
    "CompactionReceipt",
    "is_receipt_row",
]

SCHEMA_V1 = "arcaeon-compact:receipt:v1"
SCHEMA_V2 = "arcaeon-compact:receipt:v2"
KIND = "compaction_receipt"
CORE_KEYS = ("schema", "pre", "post", "dropped", "introduced", "compactor", "method")

# each schema's short name and the byte reconciliation its rows can be held to
SCHEMAS = {SCHEMA_V1: ("v1", "truncation-only"), SCHEMA_V2: ("v2", "full")}


# --------------------------------------------------------------------------- content


@dataclass(frozen=True)
class ContentDigest:
    """An ordered content list, digested: per-item digests, the whole digest (json-c14n
    of the list of item digests) and the total byte count."""

    items: tuple[_digest.ItemDigest, ...]
    digest: str
    bytes: int

    @property
    def count(self) -> int:
        return len(self.items)

    @property
    def digests(self) -> list[str]:
        return [i.digest for i in self.items]


def content_of(items: Iterable[Any]) -> ContentDigest:
    """A ContentDigest from items already digested (anything with `.digest`, `.size`,
    e.g. ItemDigest or a held item)."""
    per = tuple(_digest.ItemDigest(i.digest, i.size) for i in items)
    return ContentDigest(
        per, _digest.digest_json([i.digest for i in per]), sum(i.size for i in per)
    )


def digest_content(values: Iterable[Any]) -> ContentDigest:
    """Digest every item (bytes/str raw, anything else json-c14n). ValueError when an
    item cannot be canonicalised (NaN, lone surrogate, too deep)."""
    return content_of(_digest.item_digest(v) for v in values)


def as_content(x: Any) -> ContentDigest:
    return x if isinstance(x, ContentDigest) else digest_content(x)


@dataclass(frozen=True)
class DropSet:
    """Pre minus post as a multiset of digests, walked in pre order: what was dropped
    (digests in pre order, their bytes) and what the post holds that pre did not."""

    items: tuple[str, ...]
    bytes: int
    introduced_count: int
    introduced_bytes: int
    leftover: Counter[Any] = field(compare=False, repr=False, default_factory=Counter)


def infer_drops(pre: ContentDigest, post: ContentDigest) -> DropSet:
    """Each pre item consumes one equal post digest if one is left, else it is dropped.
    Unconsumed post occurrences are introduced; their bytes are counted at the size of
    that digest's first item in post."""
    left = Counter(post.digests)
    dropped: list[str] = []
    dropped_bytes = 0
    for it in pre.items:
        if left[it.digest] > 0:
            left[it.digest] -= 1
        else:
            dropped.append(it.digest)
            dropped_bytes += it.size
    size_of: dict[str, int] = {}
    for it in post.items:
        size_of.setdefault(it.digest, it.size)
    left = +left
    return DropSet(
        tuple(dropped),
        dropped_bytes,
        sum(left.values()),
        sum(n * size_of[d] for d, n in left.items()),
        left,
    )


# --------------------------------------------------------------------------- building


def core_of(row: dict[str, Any]) -> dict[str, Any]:
    """The receipt core: exactly the seven core keys, a missing one as null."""
    return {k: row.get(k) for k in CORE_KEYS}


def _core(
    schema: str,
    pre: ContentDigest,
    post: ContentDigest,
    drops: DropSet,
    compactor: Any,
    method: Any,
) -> dict[str, Any]:
    introduced: dict[str, int] = {"count": drops.introduced_count}
    if schema == SCHEMA_V2:
        introduced["bytes"] = drops.introduced_bytes
    return {
        "schema": schema,
        "pre": {"count": pre.count, "bytes": pre.bytes, "digest": pre.digest},
        "post": {"count": post.count, "bytes": post.bytes, "digest": post.digest},
        "dropped": {"count": len(drops.items), "bytes": drops.bytes, "items": list(drops.items)},
        "introduced": introduced,
        "compactor": compactor,
        "method": method,
    }


def build_row(
    pre: Any,
    post: Any,
    compactor: Any,
    method: Any,
    schema: str = "v2",
    *,
    opened_at: str | None = None,
    envelope: bool | None = None,
) -> dict[str, Any]:
    """The receipt row for pre → post, without writing it anywhere.

    `pre`/`post` are item lists or ContentDigests; `schema` is "v2"/"v1" (or the full
    label). With `envelope` (default: on for v2, off for v1) the row carries `kind`
    and `opened_at` like a sealed row (minus `ts` and `chain`); without it, the core
    plus `receipt_digest`, the shape of a legacy v1 row."""
    label = {"v1": SCHEMA_V1, "v2": SCHEMA_V2}.get(schema, schema)
    if label not in SCHEMAS:
        raise ValueError(f"unknown receipt schema {schema!r}")
    pre_c, post_c = as_content(pre), as_content(post)
    core = _core(label, pre_c, post_c, infer_drops(pre_c, post_c), compactor, method)
    row = dict(core)
    if envelope if envelope is not None else label == SCHEMA_V2:
        row["kind"] = KIND
        row["opened_at"] = opened_at if opened_at is not None else utc_stamp()
    row["receipt_digest"] = _digest.digest_json(core)
    return row


class CompactionReceipt:
    """One compaction, opened on the full content and sealed once to a ledger.

    `open(pre)` → `record_kept(post)` → optional `record_dropped(items)` →
    `seal(path, compactor=, method=)`. Sealed receipts refuse every further call."""

    __slots__ = ("_pre", "_opened_at", "_post", "_claim", "_row")
    _pre: ContentDigest
    _opened_at: str
    _post: ContentDigest | None
    _claim: list[str] | None
    _row: dict[str, Any] | None

    def __init__(self, *_a: Any, **_k: Any) -> None:
        raise TypeError("use CompactionReceipt.open(pre_content)")

    @classmethod
    def open(cls, pre_content: Sequence[Any]) -> CompactionReceipt:
        """Digest every pre item and stamp `opened_at`. ValueError for an item that
        cannot be canonicalised."""
        self = object.__new__(cls)
        self._pre = digest_content(pre_content)
        self._opened_at = utc_stamp()
        self._post = None
        self._claim = None
        self._row = None
        return self

    @property
    def sealed(self) -> bool:
        return self._row is not None

    @property
    def opened_at(self) -> str:
        return self._opened_at

    def _unsealed(self) -> None:
        if self._row is not None:
            raise RuntimeError("receipt already sealed; open a new one")

    def record_kept(self, post_content: Sequence[Any]) -> None:
        """Digest the survivor (a later call replaces an earlier one)."""
        self._unsealed()
        self._post = digest_content(post_content)

    def record_dropped(self, items: Sequence[Any]) -> None:
        """Claim the dropped items; `seal` refuses when the claim's digest multiset
        differs from the inferred drops."""
        self._unsealed()
        self._claim = [_digest.item_digest(x).digest for x in items]

    def seal(
        self, ledger_path: str | os.PathLike[str], *, compactor: Any, method: Any
    ) -> dict[str, Any]:
        """Build the v2 row, append it to the ledger, return it with its `chain`."""
        self._unsealed()
        if self._post is None:
            raise ValueError(
                "seal() before record_kept() — record the survivor first "
                "(an empty list is a valid survivor: everything was dropped)"
            )
        drops = infer_drops(self._pre, self._post)
        if self._claim is not None and Counter(self._claim) != Counter(drops.items):
            raise ValueError(
                f"record_dropped() claim disagrees with pre-minus-kept (claimed "
                f"{len(self._claim)} item(s), inferred {len(drops.items)}); refusing "
                f"to seal an inconsistent receipt"
            )
        core = _core(SCHEMA_V2, self._pre, self._post, drops, compactor, method)
        row = dict(core)
        row["kind"] = KIND
        row["opened_at"] = self._opened_at
        row["receipt_digest"] = _digest.digest_json(core)
        row["ts"] = utc_stamp()
        row["chain"] = _ledger.append(ledger_path, row)
        self._row = row
        return row


def is_receipt_row(value: Any) -> bool:
    """A JSON object whose `kind` is exactly `compaction_receipt`."""
    return isinstance(value, dict) and value.get("kind") == KIND
