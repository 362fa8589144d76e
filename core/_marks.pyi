"""Types of the optional C accelerator of the row checks' line search (core/_marks.c)."""

def marked(data: bytes, tokens: tuple[bytes, ...], /) -> list[tuple[int, int, int]]:
    """(index, start, end) of each line (split on LF) of a CR-free window holding a
    token, in order, each once; `end` is its LF's offset or the window's length."""
