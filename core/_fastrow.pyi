"""Types of the optional C accelerator (core/_fastrow.c)."""

from collections.abc import Callable
from typing import Any

def body(raw: bytes, /) -> tuple[bytes, str] | None:
    """The chain body of a well-formed row and its `chain` string, or None to decline."""

def run(
    data: bytes, pos: int, prev: bytes, sha256: Callable[[bytes], Any], /
) -> tuple[int, str | None, int]:
    """Rows verified in a run from byte `pos`: (offset where it stopped, last chain, rows)."""

def line_ends(data: bytes | bytearray | memoryview, base: int, /) -> bytes:
    """Native int64 offsets (base + index) just after each line end of `data` under
    universal newlines, for `array("q").frombytes`; scanned without the GIL."""
