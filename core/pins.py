"""Head pins: `arcaeon-ledger head chain=<chain> rows=<rows> as_of=<stamp>`.

A head is the ledger's tip (the chain of its last row), its row count and a stamp. A
pin is refused over a ledger whose verdict is red; a bounded verdict pins. A ledger is
checked against a pin exactly as against a witness store holding that one pin.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core import lines as _lines
from sealscope.core import witness as _witness
from sealscope.core.clock import utc_stamp

__all__ = [
    "Head",
    "Pin",
    "UnverifiedLedgerError",
    "head",
    "parse_pin",
    "pin_from",
    "check_pin",
    "rows_since_pin",
    "stale",
    "STALE_AFTER_ROWS",
]

STALE_AFTER_ROWS = 100


class UnverifiedLedgerError(ValueError):
    """A pin was asked for over a ledger that does not verify."""


@dataclass(frozen=True)
class Head:
    chain: Any
    rows: int
    as_of: str
    ok: bool | None = True
    first_break: str | None = None

    def as_pin(self) -> str:
        if self.ok is False:
            raise UnverifiedLedgerError(
                "refusing to mint a pin over a ledger that does not verify: "
                f"{self.first_break or 'chain broken'}. A pin is published outside your "
                "control and asserts this log at this height; over a broken chain it asserts "
                "something the file cannot support. Repair the log, or name the break with "
                "declare_break(), then pin."
            )
        return f"arcaeon-ledger head chain={self.chain} rows={self.rows} as_of={self.as_of}"


@dataclass(frozen=True)
class Pin:
    chain: str
    rows: int
    as_of: str

    def as_record(self) -> dict[str, Any]:
        return {"rows": self.rows, "chain": self.chain, "as_of": self.as_of}

    @property
    def text(self) -> str:
        """The pin as its one line (what a report names as the pin checked)."""
        return f"arcaeon-ledger head chain={self.chain} rows={self.rows} as_of={self.as_of}"


def head(path: str | os.PathLike[str], *, reference_split: bool = False) -> Head:
    """The ledger's tip; never raises. A missing or empty file is a green genesis head.

    The tip is read with the verifier's line rules (see ledger.tail_chain), so a pin
    from an honest CR-only file matches that file; `reference_split=True` gives
    arcaeon's tip instead."""
    res = _ledger.verify(path)
    ok, first = res.ok, res.first_break
    if ok is False and _absent(path):
        ok, first = True, None
    elif res.verified_scope == "empty":
        ok, first = True, None
    return Head(
        chain=_ledger.tail_chain(path, reference_split=reference_split),
        rows=res.rows,
        as_of=utc_stamp(),
        ok=ok,
        first_break=first,
    )


def _absent(path: str | os.PathLike[str]) -> bool:
    try:
        Path(path).stat()
        return False
    except FileNotFoundError:
        return True
    except OSError:
        return False


_PIN = re.compile(r"^\s*arcaeon-ledger\s+head\s+(?P<fields>.*?)\s*$", re.S)


def parse_pin(text: str) -> Pin:
    """Parse a pin string; ValueError naming what is wrong. Field order is free;
    `chain`, `rows` (a whole number) and `as_of` are required."""
    m = _PIN.match(text or "")
    if not m:
        raise ValueError(
            "not a head pin: expected 'arcaeon-ledger head chain=... rows=N as_of=...'"
        )
    fields: dict[str, str] = {}
    for tok in m.group("fields").split():
        key, sep, value = tok.partition("=")
        if not sep or key not in ("chain", "rows", "as_of"):
            raise ValueError(f"not a head pin: unexpected field {tok!r}")
        if key in fields:
            raise ValueError(f"not a head pin: field {key!r} given twice")
        fields[key] = value
    missing = [k for k in ("chain", "rows", "as_of") if k not in fields]
    if missing:
        raise ValueError(f"not a head pin: missing {', '.join(missing)}")
    if not re.fullmatch(r"[0-9]+", fields["rows"]):
        raise ValueError(f"not a head pin: rows must be a whole number, got {fields['rows']!r}")
    return Pin(chain=fields["chain"], rows=int(fields["rows"]), as_of=fields["as_of"])


PIN_FILE_MAX = 64 << 10  # a pin is one short line; a bigger "pin file" is not one


def pin_from(value: str) -> Pin:
    """A pin given as its text or as a file holding it: a value naming an existing
    regular file is read (UTF-8, surrounding whitespace stripped) and parsed; anything
    else is parsed as the pin text. ValueError naming what is wrong."""
    text = value.strip()
    try:
        is_file = os.path.isfile(text)
    except (OSError, ValueError):  # a NUL or an over-long name is not a path
        is_file = False
    if is_file:
        try:
            with _lines.open_regular(text) as fh:
                data = fh.read(PIN_FILE_MAX + 1)
        except (_lines.NotRegularFile, IsADirectoryError):
            return parse_pin(text)  # no longer a regular file: read as text, as if at the check
        except OSError as e:
            raise ValueError(f"cannot read pin file {text!r}: {e.strerror or e}") from None
        if len(data) > PIN_FILE_MAX:
            raise ValueError(f"not a head pin: {text!r} is larger than a pin file")
        try:
            return parse_pin(data.decode("utf-8").strip())
        except UnicodeDecodeError:
            raise ValueError(f"not a head pin: {text!r} is not UTF-8 text") from None
        except ValueError as e:
            raise ValueError(f"{e} (read from the file {text!r})") from None
    return parse_pin(text)


def check_pin(
    ledger_path: str | os.PathLike[str], pin: Pin, local: _ledger.VerifyResult | None = None
) -> _witness.WitnessVerdict:
    """Judge a ledger against one pin, as a witness store holding only that pin (an
    unchained legacy record, so the store's self-integrity is `unestablished`)."""
    return _witness.compare_pin(
        pin.as_record(), "pin", ledger_path, local, integrity="unestablished"
    )


def rows_since_pin(ledger_path: str | os.PathLike[str], pin: dict[str, Any]) -> int:
    rows = pin.get("rows") if isinstance(pin, dict) else None
    if not isinstance(rows, int) or isinstance(rows, bool) or rows < 0:
        raise ValueError(f"pin rows is not a non-negative integer: {rows!r}")
    return head(ledger_path).rows - rows


def stale(gap: int, limit: int = STALE_AFTER_ROWS) -> bool:
    return gap > limit
