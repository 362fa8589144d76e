"""Types of the optional C accelerator (core/_fastrow.c)."""

def body(raw: bytes, /) -> tuple[bytes, str] | None:
    """The chain body of a well-formed row and its `chain` string, or None to decline."""
