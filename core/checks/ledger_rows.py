"""A plain ledger under `check` (KINDS.md §11): the chain exactly as `verify` walks it
(non-strict), plus one `rows_checked` entry for every row with a check of its own.

Rows are read as the `receipts` verb reads them (split on LF, stripped, Python-parsed,
undecodable bytes replaced); for every object row, in line order, each check that
applies adds an entry, in this order within the row: `compaction-receipt` (`kind`
`compaction_receipt`, `verify_receipt(row)` with no content), `distill-receipt`
(`kind` `distill_receipt`), `continuity-verify` (`kind` `continuity_verify`, joined to
the held verdicts), `artefact` (an object `artefact`), `call-args` (`op` `tool_call`
with `args_digest`). A row's checks run whether or not the chain holds at it. The path's
`ok` is the chain's; its word the worst of the chain's and every entry's (BROKEN over
COULD NOT LOOK over VERIFIED).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from sealscope.core import bound_reads as _bound
from sealscope.core import ledger as _ledger
from sealscope.core import ledger_read as _ledger_read
from sealscope.core import lines as _lines
from sealscope.core import receipt as _receipt
from sealscope.core import verdict as _verdict
from sealscope.core.checks import artefact as _artefact
from sealscope.core.checks import call_record as _calls
from sealscope.core.checks import continuity_verdict as _cv
from sealscope.core.checks import distill as _distill
from sealscope.core.checks.receipt_file import raised
from sealscope.core.checks.result import CheckContext, KindCheck

__all__ = [
    "rows_checked",
    "row_checks",
    "rows_bound",
    "bound_of",
    "describe",
    "check",
    "row_entries",
    "NEEDLES",
    "TOKENS",
    "MARKS",
    "scan",
    "scan_bytes",
    "iter_marked_rows",
]

KIND = "ledger"
# the `detail` key holding the word of the path's own check (a ledger's chain, a call
# record's chain), set once by its checker and read by every frontend beside the word
OWN_VERDICT = "own_verdict"
# a row with a check of its own spells one of these literally, or with a `\\u` escape
# that could spell it (no other JSON escape can write a letter or `_`): only lines
# holding one are parsed at all
NEEDLES = (
    b"compaction_receipt",
    b"distill_receipt",
    b"continuity_verify",
    b"artefact",
    b"args_digest",
    b"\\u",
)


def _receipt_entry(line: int, row: dict[str, Any]) -> dict[str, Any]:
    res = _receipt.verify_receipt(row)
    base = {"line": line, "check": "compaction-receipt"}
    error = raised(row, res)
    if error is not None:
        return {
            **base,
            "ok": None,
            "verdict": _verdict.COULD_NOT_LOOK,
            "self_consistent": None,
            "schema": None,
            "verified_scope": None,
            "error": error,
        }
    return {
        **base,
        "ok": res.ok,
        "verdict": _verdict.VERIFIED if res.ok else _verdict.BROKEN,
        "self_consistent": res.self_consistent,
        "schema": res.schema,
        "verified_scope": res.verified_scope,
        "note": "" if res.ok else (res.notes[0] if res.notes else ""),
    }


def _distill_entry(line: int, row: dict[str, Any]) -> dict[str, Any]:
    res = _distill.verify_drop_receipt(row)
    return {
        "line": line,
        "check": "distill-receipt",
        "ok": res["ok"],
        "verdict": _verdict.VERIFIED if res["ok"] else _verdict.BROKEN,
        "verified_scope": res["verified_scope"],
    }


def row_entries(
    line: int,
    row: Any,
    ctx: CheckContext,
    held: list[_cv.HeldVerdict] | None = None,
    calls_only: bool = False,
    receipts: bool = True,
) -> list[dict[str, Any]]:
    """Every `rows_checked` entry of one parsed row, in KINDS.md §11.2's order
    (`receipts` False: without the compaction receipt's, judged elsewhere)."""
    if not isinstance(row, dict):
        return []
    out: list[dict[str, Any]] = []
    kind = row.get("kind")
    if not calls_only:
        if kind == _receipt.KIND and receipts:
            out.append(_receipt_entry(line, row))
        if kind == "distill_receipt":
            out.append(_distill_entry(line, row))
        if kind == "continuity_verify":
            out.append(
                _cv.row_entry(line, row, held if held is not None else _cv.held_verdicts(ctx))
            )
        if isinstance(row.get("artefact"), dict):
            out.append(_artefact.row_entry(line, row["artefact"], ctx.artefacts, ctx.held_digests))
    if _calls.is_call_row(row):
        out.append(_calls.row_entry(line, row))
    return out


def rows_checked(path: str, ctx: CheckContext, *, calls_only: bool = False) -> list[dict[str, Any]]:
    """Every `rows_checked` entry of a ledger or call record, in line order. OSError
    when the file cannot be read."""
    held: list[_cv.HeldVerdict] | None = None
    out: list[dict[str, Any]] = []
    for line, row in _file_rows(path):
        if (
            not calls_only
            and held is None
            and isinstance(row, dict)
            and row.get("kind") == "continuity_verify"
        ):
            held = _cv.held_verdicts(ctx)
        out.extend(row_entries(line, row, ctx, held, calls_only))
    return out


def _what(e: dict[str, Any]) -> str:
    """A failing or undecided entry in a few words."""
    check = e["check"]
    if check == "compaction-receipt":
        return "raised " + str(e["error"]) if e.get("error") else (e.get("note") or "fails")
    if check == "distill-receipt":
        return f"inconsistent ({e['verified_scope']})"
    if check == "artefact":
        return str(e["artefact_verdict"] if not e["ok"] else f"held {e['held']}")
    return str(e.get("match") or e.get("args") or "")


def describe(e: dict[str, Any]) -> str:
    """One row check in a few words: "line 4: continuity-verify unmatched"."""
    return f"line {e.get('line')}: {e.get('check')} {_what(e)}".rstrip()


def _reason(res: _ledger.VerifyResult, entries: list[dict[str, Any]]) -> str:
    bad = [e for e in entries if e["verdict"] != _verdict.VERIFIED]
    chain = res.reason()
    if bad:
        e = bad[0]
        more = f" (+{len(bad) - 1} more)" if len(bad) > 1 else ""
        row = describe(e) + more
        return f"{chain}; {row}" if chain else row
    return chain


def rows_bound(entries: Iterable[dict[str, Any]]) -> str:
    """The bounds the VERIFIED row checks other than compaction receipts held within,
    named once each ("distill receipts structural only, ...", "2 artefacts not held");
    "" when none holds only within a bound. Said beside a VERIFIED ledger by every
    frontend (`verdict.beside`)."""
    entries = list(entries)
    parts: list[str] = []
    if any(e.get("check") == "distill-receipt" and e.get("ok") for e in entries):
        parts.append("distill receipts " + _distill.BOUND)
    held = sum(1 for e in entries if e.get("check") == "artefact" and e.get("bound"))
    if held:
        parts.append(f"{_verdict.plural(held, 'artefact')} not held")
    return "; ".join(parts)


def bound_of(res: _ledger.VerifyResult, entries: list[dict[str, Any]]) -> str:
    """The bounds the VERIFIED entries held within, named once each: the receipts'
    (`verdict.scope_note`, when any is bounded), then `rows_bound`."""
    receipts = [e for e in entries if e["check"] == "compaction-receipt"]
    note = _verdict.scope_note(receipts)
    bounded = note if note and any(_verdict.bounded(e) for e in receipts) else ""
    return "; ".join(p for p in (bounded, rows_bound(entries)) if p)


@dataclass(frozen=True)
class LedgerScan:
    """One read of a ledger's marked rows for both of its row judgments: `receipts`
    the (line, row) of every compaction receipt row, as `lookup.iter_receipt_rows`
    gives them, and `checks` its other row checks, as `row_checks` gives them."""

    receipts: tuple[tuple[int, dict[str, Any]], ...] = ()
    checks: tuple[dict[str, Any], ...] = ()


def scan(path: str, ctx: CheckContext | None = None, *, receipts: bool = True) -> LedgerScan:
    """The receipt rows and the other row checks of a ledger in one pass over the
    lines that could hold either (`iter_marked_rows`). OSError when the file cannot be
    read. `receipts=False`: the receipt rows are not kept (`LedgerScan.receipts` is
    empty), so the pass holds only the other checks' entries."""
    return _scan_rows(_file_rows(path), ctx, receipts)


def scan_bytes(data: bytes, ctx: CheckContext | None = None) -> LedgerScan:
    """`scan` of a ledger whose every byte `data` holds (read once, e.g. by a fleet
    worker): the same rows, lines numbered alike (`iter_marked_rows`)."""
    return _scan_rows(iter_marked_rows(data), ctx)


# The JSON string tokens a row with a check of its own holds, unescaped: a `kind`
# value, or a key (`artefact`, `args_digest`). A token written with escapes holds a
# `\u` (no other JSON escape writes a letter or `_`): every line these and `\u` find
# holds one of `NEEDLES`, and every line of `NEEDLES` that holds a checked row is
# found: `MARKS` find the rows `NEEDLES` would (in fewer, faster searches).
TOKENS = (
    b'"compaction_receipt"',
    b'"distill_receipt"',
    b'"continuity_verify"',
    b'"artefact"',
    b'"args_digest"',
)
MARKS = (*TOKENS, b"\\u")


def _file_rows(path: str) -> Iterator[tuple[int, Any]]:
    """`iter_marked_rows` of the file at `path`, read through one open file."""
    return _ledger_read.iter_rows(path, needles=MARKS)


def iter_marked_rows(data: _lines.Buffer) -> Iterator[tuple[int, Any]]:
    """(line number, plain-parsed value) of every line of `data` (the bytes, or a
    file's `FileSource`) that could hold a checked row (`MARKS`), numbered as the
    verifier numbers lines and parsed as `rows` reads them (`ledger_read.rows_in`): the
    one search of every row check."""
    return _ledger_read.rows_in(data, needles=MARKS)


def _scan_rows(
    rows: Iterable[tuple[int, Any]], ctx: CheckContext | None, keep_receipts: bool = True
) -> LedgerScan:
    ctx = ctx or CheckContext()
    held: list[_cv.HeldVerdict] | None = None
    receipts: list[tuple[int, dict[str, Any]]] = []
    checks: list[dict[str, Any]] = []
    for line, row in rows:
        if keep_receipts and _receipt.is_receipt_row(row):
            receipts.append((line, row))
        if held is None and isinstance(row, dict) and row.get("kind") == "continuity_verify":
            held = _cv.held_verdicts(ctx)
        checks.extend(row_entries(line, row, ctx, held, receipts=False))
    return LedgerScan(tuple(receipts), tuple(checks))


def row_checks(path: str, ctx: CheckContext | None = None) -> tuple[dict[str, Any], ...]:
    """The row checks a ledger is judged by besides its compaction receipts (which
    every frontend scans and judges itself): `rows_checked` without the
    `compaction-receipt` entries, as `check` reports them. What `export`, a fleet
    entry and a viewer tab pass to `verdict.ledger`. () when the file cannot be read
    (its chain then could not look)."""
    try:
        # the receipts' own entries are not even built, nor their rows kept: a
        # receipt-dense ledger's rows held whole cost ~3 KB each
        return scan(path, ctx, receipts=False).checks
    except (OSError, ValueError):
        return ()


def check(path: str, ctx: CheckContext) -> KindCheck:
    """Check a plain ledger (KINDS.md §11.1–§11.2). In a recording (`bound_reads`) the
    walk's digest of the bytes it read is noted, as the row scan's is."""
    res = _ledger.verify(path, digest=_bound.active())
    if _bound.active():
        _bound.note(path, res.sha256)
    detail: dict[str, Any] = res.to_dict()
    detail[OWN_VERDICT] = _verdict.chain(res).verdict  # the chain's word, set once here
    if res.unreadable:
        detail["rows_checked"] = []
        return KindCheck(
            path, KIND, res.ok, detail, word=_verdict.COULD_NOT_LOOK, reason=res.reason()
        )
    try:
        entries = rows_checked(path, ctx)
    except OSError as e:
        entries = []
        detail["rows_error"] = e.strerror or type(e).__name__
    detail["rows_checked"] = entries
    word = _verdict.ledger(res, (), entries).verdict
    return KindCheck(
        path,
        KIND,
        res.ok,
        detail,
        word=word,
        bound=bound_of(res, entries) if word == _verdict.VERIFIED else "",
        reason=_reason(res, entries),
    )
