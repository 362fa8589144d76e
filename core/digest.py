"""Digest recipes: json-c14n v1, raw-bytes v1, the per-item content rule, and the
shape check for self-describing digests (`<alg>:<recipe>:<version>:<hex>`)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from typing import Any

from sealscope.core.jsonio import dumps_canonical

__all__ = [
    "JSON_C14N_PREFIX",
    "RAW_BYTES_PREFIX",
    "canonical_json",
    "digest_json",
    "digest_bytes",
    "is_well_formed",
    "ItemDigest",
    "item_digest",
    "EMPTY_LIST_DIGEST",
]

JSON_C14N_PREFIX = "sha256:json-c14n:v1:"
RAW_BYTES_PREFIX = "sha256:raw-bytes:v1:"

canonical_json = dumps_canonical


def digest_json(value: Any) -> str:
    """`sha256:json-c14n:v1:` + sha256 of the canonical bytes. ValueError when the
    value cannot be canonicalised (NaN, lone surrogate, too deep)."""
    return JSON_C14N_PREFIX + hashlib.sha256(dumps_canonical(value)).hexdigest()


def digest_bytes(data: bytes) -> str:
    """`sha256:raw-bytes:v1:` + sha256 of the exact bytes."""
    return RAW_BYTES_PREFIX + hashlib.sha256(bytes(data)).hexdigest()


_HEX = frozenset("0123456789abcdef")


def is_well_formed(value: Any) -> bool:
    """The receipt rule: a str with exactly four non-empty `:` parts whose last part is
    lowercase hex. Algorithm, recipe, version and length are not checked."""
    if not isinstance(value, str):
        return False
    parts = value.split(":")
    return len(parts) == 4 and all(parts) and _HEX.issuperset(parts[3])


@dataclass(frozen=True)
class ItemDigest:
    """One content item's digest and the byte size counted for it."""

    digest: str
    size: int


def item_digest(item: Any) -> ItemDigest:
    """bytes → raw-bytes of the bytes; str → raw-bytes of its strict UTF-8;
    anything else → json-c14n, sized by its canonical bytes."""
    if isinstance(item, (bytes, bytearray)):
        data = bytes(item)
        return ItemDigest(digest_bytes(data), len(data))
    if isinstance(item, str):
        data = item.encode("utf-8")
        return ItemDigest(digest_bytes(data), len(data))
    data = dumps_canonical(item)
    return ItemDigest(JSON_C14N_PREFIX + hashlib.sha256(data).hexdigest(), len(data))


EMPTY_LIST_DIGEST = (
    "sha256:json-c14n:v1:4f53cda18c2baa0c0354bb5f9a3ecbe5ed12ab4d8e11ba873c2f11161202b945"
)
