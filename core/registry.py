"""The kind registry: one frozen record per evidence kind, the one place a kind is
known. Classification's callers, `check` (`core.checks`), `fleet`, `export`, the CI
formats and the MCP tool description read it; none lists the kinds again.

A record says, for its kind:

* `name` — the kind's name (`check --json`'s `kind`, KINDS.md §12) and `title`, the
  words a frontend names it with ("a stand-alone compaction receipt");
* `detected` — how classification finds it (KINDS.md §1's row, in words); the rows
  of §1 are decided in order by `core.kinds`, and a kind registered beyond them is
  detected by its `matches` (a test on one parsed JSON object, asked after rows
  6a-6f and before 6g), so a registered kind needs no other file changed;
* `checker` — the module holding its `check(path, ctx) -> KindCheck` (a bare name
  is a module of `sealscope.core.checks`, a dotted one any importable module);
* `opens` — how a frontend opens it: `ledger` (a ledger tab: a ledger, a call
  record), `seal` (a snapshot), `harn`, `document` (one JSON document: a receipt, a
  verdict), `unit` (several members as one: a pack, a bundle; its checker gives
  `unit_subjects(path)`, the members a VSA names), `aat` (an AAT export), or `fleet`
  (a folder of evidence; no kind has it, `FOLDER` names it);
* `own_check` — the name of the case of its own check in a report or a CI suite
  ("chain" for a ledger: its rows' checks are cases beside it);
* `row` — for a kind that is also a row of a ledger (KINDS.md §11.2), the rule of
  that row: the `needle` bytes a line must hold to be parsed for it, the `entry` its
  `rows_checked` entry is named by, and the `bound` a VERIFIED row holds within.

A profile (a narrower reading of a kind, KINDS-3.md) is a record too: its own name,
title, `matches` and checker, `opens` that of the kind it narrows.

`register(record)` adds (or replaces) a kind; `get(name)` is its record (None for no
kind); `names()` every kind in registration order (the built-ins first, in §12's
order).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = [
    "LEDGER",
    "SEAL",
    "HARN",
    "DOCUMENT",
    "UNIT",
    "AAT",
    "FLEET",
    "RowRule",
    "KindRecord",
    "register",
    "get",
    "names",
    "records",
    "checker_module",
    "is_unit",
    "reported_alone",
    "own_check_name",
    "kinds_sentence",
    "matching",
    "CHECKERS",
]

# how a kind opens (`KindRecord.opens`)
LEDGER = "ledger"
SEAL = "seal"
HARN = "harn"
DOCUMENT = "document"
UNIT = "unit"
AAT = "aat"
FLEET = "fleet"

_CHECKS_PACKAGE = "sealscope.core.checks"


@dataclass(frozen=True)
class RowRule:
    """A kind's rule as a row of a ledger (KINDS.md §11.2): the bytes a line must hold
    to be parsed for it, the `check` name of its `rows_checked` entry, and the bound a
    VERIFIED row holds within ("" when none)."""

    needle: bytes
    entry: str
    bound: str = ""


@dataclass(frozen=True)
class KindRecord:
    """One evidence kind (module docstring)."""

    name: str
    title: str
    detected: str
    checker: str
    opens: str
    own_check: str = ""
    row: RowRule | None = None
    matches: Callable[[dict[str, Any]], bool] | None = None

    @property
    def module(self) -> str:
        """The dotted name of the checker's module."""
        return self.checker if "." in self.checker else f"{_CHECKS_PACKAGE}.{self.checker}"


_RECORDS: dict[str, KindRecord] = {}

# evidence kind → its checker's module under `sealscope.core.checks` (or dotted):
# kept by `register`, so it always says what the registry says
CHECKERS: dict[str, str] = {}


def register(record: KindRecord) -> KindRecord:
    """Add `record` (or replace the record of its name); returns it."""
    _RECORDS[record.name] = record
    CHECKERS[record.name] = record.checker
    return record


def unregister(name: str) -> None:
    """Remove a kind (a test's registration, undone)."""
    _RECORDS.pop(name, None)
    CHECKERS.pop(name, None)


def get(name: str | None) -> KindRecord | None:
    """The record of kind `name`; None for no kind or an unknown name."""
    return None if name is None else _RECORDS.get(name)


def names() -> tuple[str, ...]:
    """Every kind's name, in registration order."""
    return tuple(_RECORDS)


def records() -> tuple[KindRecord, ...]:
    """Every record, in registration order."""
    return tuple(_RECORDS.values())


def checker_module(name: str | None) -> str | None:
    """The dotted module of kind `name`'s checker; None when it is no kind."""
    rec = get(name)
    return None if rec is None else rec.module


def is_unit(name: str | None) -> bool:
    """Whether kind `name` is read as one unit of several members (a pack, a bundle)."""
    rec = get(name)
    return rec is not None and rec.opens == UNIT


# the kinds `core.export.report` writes a report of its own for (the chain walk, the
# snapshot validation, the harn findings); every other kind's report is its check's
_OWN_REPORT = ("ledger", "snapshot", "harn")


def reported_alone(name: str | None) -> bool:
    """Whether `export` reports kind `name` from its own check (`build_kind_report`):
    every kind but a ledger, a snapshot and a harn file."""
    return get(name) is not None and name not in _OWN_REPORT


def own_check_name(name: str | None) -> str:
    """The name of a kind's own-check case (its `own_check`, else its name; "read"
    for no kind)."""
    rec = get(name)
    if rec is None:
        return name or "read"
    return rec.own_check or rec.name


def kinds_sentence() -> str:
    """Every kind's title, joined for a description ("a ledger, a snapshot, ...")."""
    titles = [r.title for r in records()]
    return ", ".join(titles[:-1]) + (f" and {titles[-1]}" if len(titles) > 1 else "".join(titles))


def matching(value: dict[str, Any]) -> str | None:
    """The first registered kind beyond KINDS.md §1's rows whose `matches` accepts one
    parsed JSON object; None when none does (a test that raises is no match)."""
    for rec in records():
        if rec.matches is None:
            continue
        try:
            if rec.matches(value):
                return rec.name
        except Exception:  # noqa: BLE001 - a kind's test that fails matches nothing
            continue
    return None


# --------------------------------------------------------------------------- built-ins
# KINDS.md §12's order; their detection is `core.kinds`' (§1 rows 1-11, in order)

for _rec in (
    KindRecord(
        "ledger",
        "a ledger",
        "§1 row 11: any other file (a `.jsonl` file of any bytes, a file with a JSON line)",
        "ledger_rows",
        LEDGER,
        own_check="chain",
    ),
    KindRecord(
        "snapshot",
        "a continuity snapshot",
        "§1 row 6e: one object whose `schema` is `arcaeon-continuity:snapshot:v1`",
        "seal_harn",
        SEAL,
    ),
    KindRecord(
        "harn",
        "a harn transcript or run record",
        "§1 row 6f: one object the `harn` verb recognises",
        "seal_harn",
        HARN,
    ),
    KindRecord(
        "receipt",
        "a stand-alone compaction receipt",
        "§1 row 6a: `schema` `arcaeon-compact:receipt:v1`/`v2`, or `kind` `compaction_receipt`",
        "receipt_file",
        DOCUMENT,
        row=RowRule(b"compaction_receipt", "compaction-receipt", "bounded_no_content"),
    ),
    KindRecord(
        "distill-receipt",
        "a distill drop receipt",
        "§1 row 6b: `schema` starting `arcaeon-distill:receipt:` (or `arcaeon distill`'s stdout)",
        "distill",
        DOCUMENT,
        row=RowRule(b"distill_receipt", "distill-receipt", "structural only"),
    ),
    KindRecord(
        "portable-receipt",
        "a portable receipt",
        "§1 row 6c: `receipt_version` starting `arcaeon-receipt/`",
        "portable",
        DOCUMENT,
    ),
    KindRecord(
        "continuity-verdict",
        "a stored continuity verdict",
        "§1 row 6d: `schema` starting `arcaeon-continuity:verdict:`",
        "continuity_verdict",
        DOCUMENT,
        row=RowRule(b"continuity_verify", "continuity-verify", "no held verdict matched"),
    ),
    KindRecord(
        "evidence-pack",
        "an evidence pack",
        "§1 rows 2 and 5: a folder with a pack manifest or pack files, or a zip",
        "pack",
        UNIT,
    ),
    KindRecord(
        "audit-bundle",
        "an audit export bundle",
        "§1 row 3: a folder with `records.jsonl`, an audit manifest or a bundle integrity",
        "bundle",
        UNIT,
    ),
    KindRecord(
        "aat-export",
        "an agent-audit-trail export",
        "§1 row 8: the first object line has `prev_hash` and no `ts`",
        "aat",
        AAT,
    ),
    KindRecord(
        "call-record",
        "a call record",
        "§1 row 9: the first object line has `op` `tool_call` and `args_digest`",
        "call_record",
        LEDGER,
        own_check="call record chain",
        row=RowRule(b"args_digest", "call-args"),
    ),
):
    register(_rec)
del _rec
