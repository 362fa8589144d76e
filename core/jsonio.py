"""JSON reading and writing: CPython's exact semantics for digests, strict JSON for output.

Every digest in the formats is taken over a re-serialisation of a parsed value, so
the reader must keep what CPython's parser keeps (int vs float, big integers, NaN
tokens, lone surrogates, last-wins duplicate keys) and the digest writers
(`dumps_row`, `dumps_body`, `dumps_canonical`) must emit what CPython's `json.dumps`
emits for the given knobs.

Every JSON document sealscope prints or writes for a reader (CLI `--json`, reports,
CI formats, checkpoints, the MCP server's results, the viewer's exports) is written by
`dumps_output`, and is strict RFC 8259 JSON whatever the evidence holds (CLI.md, first
paragraph): a non-finite number is the string `"NaN"`, `"Infinity"` or `"-Infinity"`
(`-0.0` stays `-0.0`), a lone surrogate its `\\uXXXX` escape (so the text is always
encodable UTF-8), and nesting of any depth is written, never a RecursionError.
"""

from __future__ import annotations

import json
import math
from json.encoder import (  # type: ignore[attr-defined]  # c_make_encoder: CPython, untyped
    JSONEncoder,
    c_make_encoder,
    encode_basestring,
    encode_basestring_ascii,
)
from typing import Any

from sealscope.core.sanitize import safe_json

__all__ = [
    "DuplicateKeyError",
    "loads",
    "loads_strict",
    "dumps_row",
    "dumps_body",
    "dumps_canonical",
    "encode_body",
    "dumps_output",
    "dumps_output_bytes",
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


# ------------------------------------------------------------------------ output


def dumps_output(
    value: Any,
    *,
    indent: int | None = None,
    ensure_ascii: bool = False,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> str:
    """`value` as one strict RFC 8259 JSON document, laid out as `json.dumps` lays it
    out with the same knobs, then through `safe_json` (the sanitizer's JSON rule).

    A float NaN, +inf or -inf (a value or a key) is written as the string `"NaN"`,
    `"Infinity"` or `"-Infinity"`; every other finite float as `json.dumps` writes it
    (`-0.0` stays `-0.0`). A lone surrogate becomes its `\\uXXXX` escape. A value JSON
    has no form for is written as its `str()` (a key too). Nesting of any depth is
    written, whatever the caller's depth. Only a container that holds itself raises
    (ValueError); nothing from parsed evidence can."""
    try:
        text = json.dumps(
            value,
            indent=indent,
            ensure_ascii=ensure_ascii,
            separators=separators,
            sort_keys=sort_keys,
            default=str,
            allow_nan=False,
        )
    except (ValueError, TypeError, RecursionError):
        # a non-finite number, a key JSON has no form for, or nesting deeper than the
        # interpreter's encoder can recurse: the same layout, written without recursion
        text = _write_without_recursion(value, indent, ensure_ascii, separators, sort_keys)
    return safe_json(text)


def dumps_output_bytes(
    value: Any,
    *,
    indent: int | None = None,
    ensure_ascii: bool = False,
    separators: tuple[str, str] | None = None,
    sort_keys: bool = False,
) -> bytes:
    """`dumps_output` encoded as UTF-8 (always encodable: no lone surrogate is left)."""
    text = dumps_output(
        value, indent=indent, ensure_ascii=ensure_ascii, separators=separators, sort_keys=sort_keys
    )
    return text.encode("utf-8")


def _non_finite_word(number: float) -> str:
    """The string a non-finite float is written as."""
    if number != number:
        return "NaN"
    return "Infinity" if number > 0 else "-Infinity"


def _key_text(key: Any) -> str:
    """An object key as `json.dumps` converts it; a non-finite float its word, any
    other non-JSON key its `str()`."""
    if isinstance(key, str):
        return key
    if key is True:
        return "true"
    if key is False:
        return "false"
    if key is None:
        return "null"
    if isinstance(key, int):
        return int.__repr__(key)
    if isinstance(key, float):
        return float.__repr__(key) if math.isfinite(key) else _non_finite_word(key)
    return str(key)


class _Leave(int):
    """A work item: the container with this id is closed (cycle bookkeeping)."""


def _write_without_recursion(
    value: Any,
    indent: int | str | None,
    ensure_ascii: bool,
    separators: tuple[str, str] | None,
    sort_keys: bool,
) -> str:
    """`json.dumps(value, ...)`'s layout with an explicit work stack instead of
    recursion. The stack holds literal text (str), values to write with their depth
    (tuple) and container exits (`_Leave`)."""
    encode = encode_basestring_ascii if ensure_ascii else encode_basestring
    if indent is not None and not isinstance(indent, str):
        indent = " " * indent
    if separators is not None:
        item_sep, key_sep = separators
    else:
        item_sep, key_sep = (", ", ": ") if indent is None else (",", ": ")

    def line_break(depth: int) -> str:
        return "" if indent is None else "\n" + indent * depth

    out: list[str] = []
    open_ids: set[int] = set()
    work: list[Any] = [(value, 0)]
    while work:
        item = work.pop()
        if type(item) is str:
            out.append(item)
            continue
        if type(item) is _Leave:
            open_ids.discard(item)
            continue
        v, depth = item
        if isinstance(v, str):
            out.append(encode(v))
        elif v is None:
            out.append("null")
        elif v is True:
            out.append("true")
        elif v is False:
            out.append("false")
        elif isinstance(v, int):
            out.append(int.__repr__(v))
        elif isinstance(v, float):
            out.append(float.__repr__(v) if math.isfinite(v) else encode(_non_finite_word(v)))
        elif isinstance(v, (list, tuple, dict)):
            opener, closer = ("{", "}") if isinstance(v, dict) else ("[", "]")
            if not v:
                out.append(opener + closer)
                continue
            if id(v) in open_ids:
                raise ValueError("Circular reference detected")
            open_ids.add(id(v))
            inner = line_break(depth + 1)
            between = item_sep + inner
            out.append(opener + inner)
            work.append(_Leave(id(v)))
            work.append(line_break(depth) + closer)
            if isinstance(v, dict):
                pairs = [(_key_text(k), x) for k, x in v.items()]
                if sort_keys:
                    pairs.sort(key=lambda pair: pair[0])
                for n, (k, x) in enumerate(reversed(pairs)):
                    work.append((x, depth + 1))
                    work.append(encode(k) + key_sep)
                    if n < len(pairs) - 1:
                        work.append(between)
            else:
                for n, x in enumerate(reversed(v)):
                    work.append((x, depth + 1))
                    if n < len(v) - 1:
                        work.append(between)
        else:
            out.append(encode(str(v)))
    return "".join(out)
