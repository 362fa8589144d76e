"""The long tail's second recognition stage (KINDS-3.md §15): a path's `profile`.

After KINDS.md §1 has given a path its evidence kind (`core.kinds.identify`, never
changed here), the profile table below refines two of its answers, first match wins:
a folder or file §1 calls none (`unreadable`) may be a deal pack, a stored once
receipt, a vet grade or a mandate (its own check then answers for it); a `ledger` may
be a once ledger, a handshake ledger, a deal tape, an adapter tape or a readings
ledger, recognised by its first object line (its chain answer is kept and the
profile's check added beside it). Any other path has no profile.

`PROFILES` is the table, one frozen record per profile, in rule order: its name, the
rule (`P1`…`P9`), the §1 kind it refines (None for a path §1 calls none), what is
looked at (`folder`, `document`: the whole file parsed as one object, `first-row`:
the first object line), the predicate over that, its checker (`module:function`
under this package), whether it pairs with a second path of the same run, and how a
viewer opens it (`ledger`, `document`, or `pair`). `detect` applies it; `stage` runs
the checks and pairs paths within a run.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sealscope.core.profiles import deal as _deal
from sealscope.core.profiles import mandate as _mandate
from sealscope.core.profiles import once as _once
from sealscope.core.profiles import vet as _vet

__all__ = [
    "Profile",
    "PROFILES",
    "BY_NAME",
    "NAMES",
    "FOLDER",
    "DOCUMENT",
    "FIRST_ROW",
    "OPENS_LEDGER",
    "OPENS_DOCUMENT",
    "OPENS_PAIR",
]

FOLDER, DOCUMENT, FIRST_ROW = "folder", "document", "first-row"
OPENS_LEDGER, OPENS_DOCUMENT, OPENS_PAIR = "ledger", "document", "pair"


@dataclass(frozen=True)
class Profile:
    """One profile of KINDS-3.md §15.2: `test` is applied to what `looks_at` names (a
    folder's path, the parsed document, or the first object line)."""

    name: str
    rule: str
    refines: str | None
    looks_at: str
    test: Callable[[Any], bool]
    checker: str
    pairs: bool
    opens_as: str
    summary: str


def _once_row(row: Any) -> bool:
    return row.get("event") in ("once.intent", "once.executed") and "key" in row


def _handshake_row(row: Any) -> bool:
    return row.get("kind") in ("deal.handshake.propose", "deal.handshake.accept")


def _deal_row(row: Any) -> bool:
    kind = row.get("kind")
    return (
        isinstance(kind, str)
        and kind.startswith("deal.")
        and isinstance(row.get("deal"), str)
        and row.get("party") in ("buyer", "seller")
    )


def _tape_row(row: Any) -> bool:
    return bool(row.get("evt") == "tape_call" and row.get("tape") == "arcaeon-tape/1")


def _readings_row(row: Any) -> bool:
    pair = (row.get("evt"), row.get("format"))
    return pair in (("criterion", "arcaeon-criterion/1"), ("reading", "arcaeon-reading/1"))


PROFILES: tuple[Profile, ...] = (
    Profile(
        _deal.PROFILE_PACK,
        "P1",
        None,
        FOLDER,
        _deal.pack_files,
        "deal:check_pack",
        False,
        OPENS_DOCUMENT,
        "a deal pack folder: its deal files disputed, its stated verdict compared",
    ),
    Profile(
        _once.PROFILE_RECEIPT,
        "P2",
        None,
        DOCUMENT,
        _once.is_receipt,
        "once:check_receipt",
        False,
        OPENS_DOCUMENT,
        "a stored once receipt, re-derived from its ledger",
    ),
    Profile(
        _vet.PROFILE,
        "P3",
        None,
        DOCUMENT,
        _vet.is_grade,
        "vet:check",
        False,
        OPENS_DOCUMENT,
        "an mcp-vet grade, held against the source it graded",
    ),
    Profile(
        _mandate.PROFILE,
        "P4",
        None,
        DOCUMENT,
        _mandate.is_mandate,
        "mandate:check",
        False,
        OPENS_DOCUMENT,
        "a mandate file, linted (and a sealed body's digest checked)",
    ),
    Profile(
        _once.PROFILE_LEDGER,
        "P5",
        "ledger",
        FIRST_ROW,
        _once_row,
        "once:ledger_detail",
        False,
        OPENS_LEDGER,
        "an executed-once ledger: every key's state",
    ),
    Profile(
        "handshake",
        "P6",
        "ledger",
        FIRST_ROW,
        _handshake_row,
        "handshake:verify",
        True,
        OPENS_PAIR,
        "a handshake ledger, verified against the other agent's",
    ),
    Profile(
        _deal.PROFILE_TAPE,
        "P7",
        "ledger",
        FIRST_ROW,
        _deal_row,
        "deal:dispute",
        True,
        OPENS_PAIR,
        "a deal tape, disputed against the other party's",
    ),
    Profile(
        "tape",
        "P8",
        "ledger",
        FIRST_ROW,
        _tape_row,
        "tape:reconcile",
        True,
        OPENS_PAIR,
        "an adapter tape, reconciled against the other side's",
    ),
    Profile(
        "readings",
        "P9",
        "ledger",
        FIRST_ROW,
        _readings_row,
        "readings:compare",
        True,
        OPENS_PAIR,
        "a readings ledger, compared with the other reader's",
    ),
)

BY_NAME = {p.name: p for p in PROFILES}
NAMES = tuple(p.name for p in PROFILES)
