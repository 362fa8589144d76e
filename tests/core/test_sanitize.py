"""sanitize.clean / findings: every control, bidi control, separator and lone surrogate
becomes a visible escape, and nothing else changes."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sealscope.core.sanitize import clean, findings, is_clean


@pytest.mark.parametrize(
    "raw, shown",
    [
        ("plain text", "plain text"),
        ("APPROVED\rREJECTED", "APPROVED\\rREJECTED"),
        ("a\nb\tc", "a\\nb\\tc"),
        ("\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m"),
        ("\x00\x07\x7f", "\\x00\\x07\\x7f"),
        ("\x85\x9b", "\\x85\\x9b"),
        ("abc\u202edcba", "abc\\u202edcba"),
        ("\u2066x\u2069", "\\u2066x\\u2069"),
        ("\u200e\u200f\u061c", "\\u200e\\u200f\\u061c"),
        ("line\u2028para\u2029", "line\\u2028para\\u2029"),
        ("\ud800lone", "\\ud800lone"),
        ("[bold red]FORGED[/]", "[bold red]FORGED[/]"),  # markup is not sanitize's business
        ("caf\u00e9 \u65e5\u672c \U0001f600", "caf\u00e9 \u65e5\u672c \U0001f600"),
    ],
)
def test_clean(raw, shown):
    assert clean(raw) == shown


def test_cr_cannot_hide_prefix():
    out = clean("APPROVED\rREJECTED")
    assert "\r" not in out and out.startswith("APPROVED")


def test_osc_sequences_escaped():
    osc8 = "\x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\"
    title = "\x1b]0;pwned\x07"
    for s in (osc8, title):
        out = clean(s)
        assert "\x1b" not in out and "\x07" not in out
    assert findings(title) == ("ESC", "C0 control")


def test_findings_names():
    assert findings("ok") == ()
    assert findings("a\tb\nc") == ()
    assert findings("APPROVED\rREJECTED") == ("CR",)
    assert findings("\x1b[1m") == ("ESC",)
    assert findings("x\u202ey") == ("bidi override",)
    assert findings("\u202a") == ("bidi embedding",)
    assert findings("\u2067") == ("bidi isolate",)
    assert findings("\u200f") == ("bidi mark",)
    assert findings("\u2028") == ("line separator",)
    assert findings("\x7f") == ("DEL",)
    assert findings("\x9b") == ("C1 control",)
    assert findings("\udfff") == ("lone surrogate",)
    assert findings("\x1b\r\u202e") == ("ESC", "CR", "bidi override")


def test_non_str_is_stringified():
    assert clean(5) == "5"  # type: ignore[arg-type]
    assert findings(None) == ()  # type: ignore[arg-type]


def test_lone_surrogate_output_encodes():
    out = clean("a\ud83d b\udc00")
    out.encode("utf-8")  # strict: must not raise
    assert out == "a\\ud83d b\\udc00"


_DANGEROUS = (
    set(range(0x00, 0x20))
    | set(range(0x7F, 0xA0))
    | {0x061C, 0x200E, 0x200F, 0x2028, 0x2029}
    | set(range(0x202A, 0x202F))
    | set(range(0x2066, 0x206A))
)


@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_clean_output_is_safe(s):
    out = clean(s)
    assert not any(ord(c) in _DANGEROUS or 0xD800 <= ord(c) <= 0xDFFF for c in out)
    assert is_clean(out)
    assert clean(out) == out  # idempotent once clean
    if is_clean(s):
        assert out == s
