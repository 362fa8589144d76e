"""Held content: the items a person still holds, loaded from files for recomputation.

Rules (CLI.md, "Held content files"):
- `NAME.json`: one JSON array; each element is an item. A JSON string is a `str` item
  (digested as raw UTF-8 text), anything else a JSON item (json-c14n).
- `NAME.jsonl`: one JSON value per line, each an item. Lines are split on LF (a CR
  before it is JSON whitespace); blank lines are skipped, since no JSON value is blank.
- any other file, or `-` (stdin): one `bytes` item, the exact bytes. A FIFO or a
  device is not a file here: refused, never waited on (stdin is `-`).
- a folder: its regular files (symlinks to regular files included), sorted by name,
  each one `bytes` item. Subfolders are not entered.

Extensions are matched exactly (`.JSON` is a plain file). JSON is parsed with CPython
semantics (`jsonio.loads`: NaN accepted, duplicate keys last-wins) and read as strict
UTF-8. Every item is digested on load, so an item that cannot be digested (NaN, a lone
surrogate, nesting too deep) is refused here, with its place named.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, BinaryIO

from sealscope.core import digest as _digest
from sealscope.core import lines as _lines
from sealscope.core.jsonio import loads

__all__ = [
    "HeldItem",
    "HeldContentError",
    "load_held",
    "load_many",
    "values_of",
    "kind_of",
    "item_text",
    "containing",
    "item_label",
]


class HeldContentError(ValueError):
    """A held-content file could not be turned into items; the message is one line
    naming the file (and item or line) and the reason."""


@dataclass(frozen=True)
class HeldItem:
    """One held item: where it came from (file path, 0-based position among that
    file's items, and for `.jsonl` its 1-based line), its value (bytes, str or a JSON
    value), its digest and its counted byte size."""

    source: str
    index: int
    value: Any
    digest: str
    size: int
    line: int | None = None


def kind_of(path: str) -> str:
    """How `path` is read: "stdin", "folder", "json", "jsonl" or "bytes"."""
    if path == "-":
        return "stdin"
    if os.path.isdir(path):
        return "folder"
    if path.endswith(".jsonl"):
        return "jsonl"
    if path.endswith(".json"):
        return "json"
    return "bytes"


def _why(e: BaseException) -> str:
    text = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
    return " ".join(str(text).split()) or type(e).__name__


def _read(path: str) -> bytes:
    """A held file's bytes: a regular file only (a FIFO or a device is refused, never
    waited on; standard input is `-`)."""
    try:
        with _lines.open_regular(path) as fh:
            return fh.read()
    except OSError as e:
        raise HeldContentError(f"cannot read {path}: {_why(e)}") from None


def _text(path: str, data: bytes) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        raise HeldContentError(f"{path}: not UTF-8 text (byte {e.start})") from None


def _item(source: str, index: int, value: Any, where: str, line: int | None = None) -> HeldItem:
    try:
        d = _digest.item_digest(value)
    except (ValueError, RecursionError) as e:
        raise HeldContentError(f"{source}: {where} cannot be digested ({_why(e)[:160]})") from None
    return HeldItem(source, index, value, d.digest, d.size, line)


def _load_json(path: str) -> list[HeldItem]:
    text = _text(path, _read(path))
    try:
        value = loads(text)
    except ValueError as e:
        raise HeldContentError(f"{path}: not JSON ({_why(e)[:160]})") from None
    if not isinstance(value, list):
        name = {dict: "an object", str: "a string", bool: "a boolean", type(None): "null"}.get(
            type(value), "a number"
        )
        raise HeldContentError(f"{path}: a .json held file must hold one JSON array, got {name}")
    return [_item(path, i, v, f"item {i}") for i, v in enumerate(value)]


def _load_jsonl(path: str) -> list[HeldItem]:
    text = _text(path, _read(path))
    out: list[HeldItem] = []
    for n, line in enumerate(text.split("\n"), 1):
        if not line.strip(" \t\r"):
            continue
        try:
            value = loads(line)
        except ValueError as e:
            raise HeldContentError(f"{path}: line {n} is not JSON ({_why(e)[:160]})") from None
        out.append(_item(path, len(out), value, f"line {n}", n))
    return out


def _load_folder(path: str) -> list[HeldItem]:
    try:
        with os.scandir(path) as it:
            names = sorted(e.name for e in it if e.is_file())
    except OSError as e:
        raise HeldContentError(f"cannot list folder {path}: {_why(e)}") from None
    return [
        _item(os.path.join(path, name), 0, _read(os.path.join(path, name)), "file")
        for name in names
    ]


def load_held(path: str | os.PathLike[str], stdin: BinaryIO | None = None) -> list[HeldItem]:
    """The items of one held-content argument (rules above). `stdin` is read for `-`.
    Raises HeldContentError, never anything else for a bad file."""
    p = os.fspath(path)
    kind = kind_of(p)
    if kind == "stdin":
        if stdin is None:
            raise HeldContentError("-: no standard input to read")
        try:
            data = stdin.read()
        except (OSError, ValueError) as e:
            raise HeldContentError(f"-: cannot read standard input ({_why(e)})") from None
        return [_item("-", 0, bytes(data or b""), "input")]
    if kind == "folder":
        return _load_folder(p)
    if kind == "json":
        return _load_json(p)
    if kind == "jsonl":
        return _load_jsonl(p)
    return [_item(p, 0, _read(p), "file")]


def load_many(
    paths: Iterable[str | os.PathLike[str]], stdin: BinaryIO | None = None
) -> list[HeldItem]:
    """The items of several arguments, concatenated in argument order."""
    out: list[HeldItem] = []
    for p in paths:
        out.extend(load_held(p, stdin))
    return out


def values_of(items: Iterable[HeldItem]) -> list[Any]:
    """The bare values, for APIs that take a content list."""
    return [i.value for i in items]


def item_text(value: Any) -> str:
    """The text of an item as a person searches it: a str as it is, bytes as UTF-8
    (undecodable bytes replaced), any other value as one line of JSON (non-ASCII as
    itself)."""
    if isinstance(value, str):
        return value
    if isinstance(value, (bytes, bytearray)):
        return bytes(value).decode("utf-8", "replace")
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        return ""


def containing(items: Iterable[HeldItem], text: str) -> list[HeldItem]:
    """The items whose text (`item_text`) contains `text`, ignoring case, in order;
    none for an empty text."""
    want = text.casefold()
    return [i for i in items if want and want in item_text(i.value).casefold()]


def item_label(item: HeldItem) -> str:
    """The one way a held item is named on every screen and in every report and verb:
    `FILE#N`, the file's base name and N the item's 1-based number among that file's
    items (a folder's files are each item 1 of themselves; standard input is `-#1`).
    A `.jsonl` item whose line differs from N (blank lines are skipped) adds
    `(line L)`. Not sanitized: callers clean it for display."""
    name = os.path.basename(item.source) or item.source
    where = f"{name}#{item.index + 1}"
    if item.line is not None and item.line != item.index + 1:
        where += f" (line {item.line})"
    return where
