"""The one function that turns untrusted text into displayable text, and its findings.

Evidence (ledger rows, held content, error text) may carry terminal control sequences,
bidi overrides or line separators that would hide or rewrite what an auditor sees:
`APPROVED\\rREJECTED` shows only `REJECTED` on a terminal, an RLO reverses the rest of
the line, an ESC starts a colour or hyperlink sequence. `clean` maps every such code
point to a visible escape (`\\x1b`, `\\r`, `\\u202e`, ...), so what is displayed is what
is stored (a non-UTF-8 byte of a file name, which Python decodes to U+DC80..U+DCFF, is
shown as the byte, `\\xff`); `findings` names what was found so a display can mark the row.

Evidence must not become a command either. A CI runner reading our output (GitHub
Actions) runs `::name props::message` when a line starts with it (after leading
whitespace) and the legacy `##[name props]message` found anywhere in a line. So `clean`
also writes the `[` of every `#[` as `\\x5b` (so no `##[` forms where two cleaned texts
meet) and the first `:` of a `::` that opens the text (after whitespace) as `\\x3a`:
a cleaned string can neither carry a legacy command anywhere nor open a line with one
(line breaks are escaped, so it cannot start a new line of its own). Inside one of our
own `::error` lines a `##[` is harmless (the runner's `::` parse wins), which is why a
`file=` property carries the real path, escaped by the property rules, not `clean`.

The same rule for JSON documents is `safe_json`: every such code point inside a string
written as a `\\uXXXX` escape (a lone surrogate of a non-UTF-8 name too, so the
document is always encodable UTF-8) and the `[` of every `#[` as `\\u005b`; a JSON
reader gets the same document back. Every JSON sealscope writes (CLI output, the
reports `x` and `export` write) passes through it.

Pure: no terminal, no Rich, no Textual.
"""

from __future__ import annotations

import re

__all__ = ["clean", "findings", "is_clean", "safe_json"]

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}

# C0 (except none), DEL, C1, bidi embeddings/overrides/isolates and marks, line/paragraph
# separators, and lone surrogates (U+D800..U+DFFF, only reachable through surrogatepass
# or JSON `\ud800` escapes).
_BAD = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
)

_BIDI_OVERRIDE = frozenset("\u202d\u202e")
_BIDI_EMBED = frozenset("\u202a\u202b\u202c")
_BIDI_ISOLATE = frozenset("\u2066\u2067\u2068\u2069")
_BIDI_MARK = frozenset("\u200e\u200f\u061c")


def _escape(m: re.Match[str]) -> str:
    ch = m.group(0)
    named = _NAMED.get(ch)
    if named is not None:
        return named
    cp = ord(ch)
    if cp <= 0xFF:
        return f"\\x{cp:02x}"
    if 0xDC80 <= cp <= 0xDCFF:  # a byte of a non-UTF-8 name, as Python decodes it
        return f"\\x{cp - 0xDC00:02x}"
    return f"\\u{cp:04x}"


# what the runner's line parser skips before `::` (.NET TrimStart: Unicode whitespace)
_LEAD = re.compile("^[\\s\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]*::")


def clean(text: str) -> str:
    """`text` with every control, bidi control, line separator and lone surrogate
    replaced by a visible escape, and no workflow command left in it (`#[` becomes
    `#\\x5b`, a leading `::` becomes `\\x3a:`). Backslashes are left as they are (the
    escapes are for the eye, not a reversible encoding). Never raises for any str; a
    non-str is `str()`-ed first."""
    if not isinstance(text, str):
        text = str(text)
    if _BAD.search(text):
        text = _BAD.sub(_escape, text)
    if "#[" in text:  # every `#[`, so no `##[` forms where two texts meet either
        text = text.replace("#[", "#\\x5b")
    m = _LEAD.match(text)
    if m is not None:
        text = text[: m.end() - 2] + "\\x3a:" + text[m.end() :]
    return text


def is_clean(text: str) -> bool:
    """True when `clean(text) == text` (nothing to escape)."""
    text = text if isinstance(text, str) else str(text)
    return not _BAD.search(text) and "#[" not in text and _LEAD.match(text) is None


def findings(text: str) -> tuple[str, ...]:
    """Names of what `clean` had to escape, each once, in a fixed order:
    "ESC", "CR", "C0 control", "DEL", "C1 control", "bidi override", "bidi embedding",
    "bidi isolate", "bidi mark", "line separator", "lone surrogate".
    TAB and LF inside a string are escaped but not reported (ordinary text)."""
    if not isinstance(text, str):
        text = str(text)
    found = set()
    for m in _BAD.finditer(text):
        ch = m.group(0)
        cp = ord(ch)
        if ch == "\x1b":
            found.add("ESC")
        elif ch == "\r":
            found.add("CR")
        elif ch in "\t\n":
            continue
        elif cp < 0x20:
            found.add("C0 control")
        elif cp == 0x7F:
            found.add("DEL")
        elif cp <= 0x9F:
            found.add("C1 control")
        elif ch in _BIDI_OVERRIDE:
            found.add("bidi override")
        elif ch in _BIDI_EMBED:
            found.add("bidi embedding")
        elif ch in _BIDI_ISOLATE:
            found.add("bidi isolate")
        elif ch in _BIDI_MARK:
            found.add("bidi mark")
        elif ch in "\u2028\u2029":
            found.add("line separator")
        else:
            found.add("lone surrogate")
    return tuple(n for n in _ORDER if n in found)


_ORDER = (
    "ESC",
    "CR",
    "C0 control",
    "DEL",
    "C1 control",
    "bidi override",
    "bidi embedding",
    "bidi isolate",
    "bidi mark",
    "line separator",
    "lone surrogate",
)


# inside JSON strings only (JSON syntax has none of them): written as \uXXXX escapes
_JSON_UNSAFE = re.compile(
    "[\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069\u2028\u2029\ud800-\udfff]"
)


def safe_json(text: str) -> str:
    """Serialized JSON that a terminal shows as stored and a CI runner cannot read a
    command in (the module docstring): C1 controls, DEL, bidi controls, line
    separators and lone surrogates escaped as `\\uXXXX`, the `[` of every `#[` as
    `\\u005b`. (`#[` and those characters occur only inside strings, so the escapes
    land in strings.) Idempotent."""
    text = _JSON_UNSAFE.sub(lambda m: f"\\u{ord(m.group()):04x}", text)
    return text.replace("#[", "#\\u005b")
