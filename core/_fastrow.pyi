"""Types of the optional C accelerator (core/_fastrow.c)."""

from collections.abc import Callable
from typing import Any

def body(raw: bytes, /) -> tuple[bytes, str] | None:
    """The chain body of a well-formed row and its `chain` string, or None to decline."""

def run(
    data: bytes | bytearray, pos: int, prev: bytes, sha256: Callable[[bytes], Any] = ..., /
) -> tuple[int, str | None, int]:
    """Rows verified in a run from byte `pos`: (offset where it stopped, last chain, rows);
    the digests are computed in C, without the GIL (`sha256` is accepted and unused)."""

def find(data: bytes | bytearray, needle: bytes, start: int = 0, /) -> int:
    """`data.find(needle, start)`, searched without the GIL."""

def sha256_hex(data: bytes, portable: bool = False, /) -> str:
    """The first 16 bytes of SHA-256(data) in hex, by `run`'s code (or the portable one)."""

def sha256_hex2(a: bytes, b: bytes, /) -> tuple[str, str]:
    """`sha256_hex` of two messages hashed at once, as `run` hashes a pair of rows."""

def sha_instructions() -> bool:
    """Whether `run` hashes with the CPU's SHA instructions."""

def line_ends(data: bytes | bytearray | memoryview, base: int, /) -> bytes:
    """Native int64 offsets (base + index) just after each line end of `data` under
    universal newlines, for `array("q").frombytes`; scanned without the GIL."""
