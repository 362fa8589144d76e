"""JSON reading and writing with CPython's exact semantics.

Every digest in the formats is taken over a re-serialisation of a parsed value, so
the reader must keep what CPython's parser keeps (int vs float, big integers, NaN
tokens, lone surrogates, last-wins duplicate keys) and the writers must emit what
CPython's `json.dumps` emits for the given knobs.
"""

from __future__ import annotations

import json
from json.encoder import JSONEncoder, c_make_encoder, encode_basestring  # type: ignore[attr-defined]  # c_make_encoder: CPython, untyped
from typing import Any

__all__ = [
    "DuplicateKeyError",
    "loads",
    "loads_strict",
    "dumps_row",
    "dumps_body",
    "dumps_canonical",
    "encode_body",
]


class DuplicateKeyError(ValueError):
    """An object carried the same key twice; message `duplicate key <repr(key)>`."""


def _no_duplicates(pairs: list[Any]) -> dict[str, Any]:
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[Any] = set()
        for k, _ in pairs:
            if k in seen:
                raise DuplicateKeyError(f"duplicate key {k!r}")
            seen.add(k)
    return out


_strict_decoder = json.JSONDecoder(object_pairs_hook=_no_duplicates)


def loads(text: str | bytes) -> Any:
    """Plain parse (duplicate keys: last wins). Every failure is a ValueError,
    including nesting too deep for the interpreter."""
    try:
        return json.loads(text)
    except RecursionError as e:
        raise ValueError(f"nesting too deep to parse: {e}") from None


def loads_strict(text: str) -> Any:
    """Parse refusing a duplicate key at any depth (DuplicateKeyError, a ValueError).

    Objects are checked as they close, innermost first, so the error names the first
    repeated key of the first object to close with a repeat."""
    try:
        return _strict_decoder.decode(text)
    except RecursionError as e:
        raise ValueError(f"nesting too deep to parse: {e}") from None


def dumps_row(obj: Any) -> str:
    """A ledger line as `append` writes it: insertion order, `", "`/`": "`, raw non-ASCII,
    NaN/Infinity as bare tokens."""
    return json.dumps(obj, ensure_ascii=False)


_body_encoder = (
    c_make_encoder(
        None,
        JSONEncoder(ensure_ascii=False).default,
        encode_basestring,
        None,
        ": ",
        ", ",
        True,
        False,
        True,
    )
    if c_make_encoder is not None
    else None
)
_body_py = JSONEncoder(ensure_ascii=False, sort_keys=True)


def dumps_body(obj: Any) -> str:
    """The chain body: sorted keys at every depth, default separators, raw non-ASCII,
    NaN/Infinity allowed. May raise RecursionError on pathological nesting."""
    if _body_encoder is not None:
        return "".join(_body_encoder(obj, 0))
    return _body_py.encode(obj)


def encode_body(text: str) -> bytes:
    """UTF-8 with surrogatepass: a lone surrogate becomes its 3-byte form."""
    return text.encode("utf-8", "surrogatepass")


def dumps_canonical(value: Any) -> bytes:
    """json-c14n v1 canonical bytes: sorted keys, `,`/`:`, raw non-ASCII, strict UTF-8.

    Refuses (ValueError) NaN/Infinity, a lone surrogate, and nesting too deep to
    serialise (message starting `value nests too deeply to canonicalize: `)."""
    try:
        text = json.dumps(
            value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
        )
    except RecursionError as e:
        raise ValueError(f"value nests too deeply to canonicalize: {e}") from None
    return text.encode("utf-8")
