"""Verdict words and exit codes: the one place a result becomes a word and a code.

Exit codes (CLI.md): 0 the evidence held, 1 the evidence is wrong, 3 could not look
(or a chain checked only within a bound); 2 is a usage error, decided by the CLI alone.
When several results make one answer, `worst` ranks them 1 over 3 over 0 (`severity`,
which every worst-first order also sorts by); `code_of` is the code a word stands for.

Every word a frontend shows as a verdict is spelled here and nowhere else; result
types (`VerifyResult`, `SealFile`, `ReceiptCheck`, `WitnessVerdict`, a continuation
verdict, a harn check, an audit report) expose `.verdict` and `.exit_code` by calling
the functions below, and frontends only read those. `tone` says how a word is coloured
("pass", "fail", "warn"); which colour that is belongs to each frontend. `glyph` is a
word's one-cell mark (✓ ✗ ◐, or … while there is no verdict yet), for places too
narrow for the word (the viewer's tab labels).

The functions read results by attribute (or by key, for the dicts a report holds), so
this module imports no other core module and every other may import it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, NamedTuple

__all__ = [
    "HELD",
    "WRONG",
    "USAGE",
    "COULD_NOT",
    "severity",
    "worst",
    "code_of",
    "Outcome",
    "Judged",
    "tone",
    "VERIFIED",
    "BROKEN",
    "COULD_NOT_LOOK",
    "NOT_VERIFIED",
    "VALID",
    "INVALID",
    "FAITHFUL",
    "CONTAINED_ONLY",
    "DIVERGENCE",
    "INVALID_COMPARISON",
    "FINDINGS",
    "REVIEW",
    "OK",
    "SEALED",
    "PARTLY_SEALED",
    "NOT_SEALED",
    "PASS",
    "FAIL",
    "NOTED",
    "glyph",
    "GLYPHS",
    "chain",
    "combined",
    "check",
    "seal",
    "continuation",
    "receipt",
    "receipts",
    "recompute",
    "bounded",
    "scope_note",
    "plural",
    "kind_check",
    "ledger",
    "row_check",
    "audit",
    "harn",
    "harn_seal",
    "selftest",
    "judged",
    "stopped",
    "evidence",
    "beside",
    "tone_of",
]

# ----------------------------------------------------------------------- exit codes

HELD = 0  # the evidence held, in full
WRONG = 1  # the evidence is wrong
USAGE = 2  # the command was used wrongly (the CLI's own)
COULD_NOT = 3  # could not look, or only a bounded check was possible

_RANK = {HELD: 0, COULD_NOT: 1, WRONG: 2}


def severity(code: int) -> int:
    """How bad an exit code is: 2 for 1 (evidence wrong; an unknown code counts as 1),
    1 for 3 (could not look), 0 for 0. `worst` is the highest; worst-first orders
    (a fleet's, its step summary's, the viewer's fleet tab) sort by it, descending."""
    return _RANK.get(code, 2)


def worst(codes: Iterable[int]) -> int:
    """The most severe exit code (`severity`): 1 (evidence wrong) over 3 (could not
    look) over 0; an unknown code counts as 1. 0 when there is none."""
    codes = list(codes)
    return max(codes, key=severity) if codes else HELD


# ----------------------------------------------------------------------- the words

VERIFIED = "VERIFIED"  # a chain (and its pin) held in full
BROKEN = "BROKEN"  # a chain, pin or receipt is wrong
COULD_NOT_LOOK = "COULD NOT LOOK"  # unreadable, empty, or no chained row
NOT_VERIFIED = "NOT VERIFIED"  # a verification that did not finish
VALID = "VALID"  # a snapshot file that loads and validates
INVALID = "INVALID"  # one that does not
FAITHFUL = "FAITHFUL"  # a restatement: exact_match
CONTAINED_ONLY = "CONTAINED ONLY"  # containment_only (loose scoring)
DIVERGENCE = "DIVERGENCE"  # any other valid comparison
INVALID_COMPARISON = "INVALID COMPARISON"  # the comparison itself is invalid
FINDINGS = "FINDINGS"  # a harn file with a high-severity finding
REVIEW = "REVIEW"  # ... with a medium one at worst
OK = "OK"  # ... with none above low
SEALED = "SEALED"  # harn seal: every compaction sealed
PARTLY_SEALED = "PARTLY SEALED"  # some sealed, some skipped
NOT_SEALED = "NOT SEALED"  # none sealed
PASS = "PASS"  # one self-test or receipt check held
FAIL = "FAIL"  # one did not
NOTED = "NOTED"  # a finding recorded, not judged (a lookup)

_TONE = {
    VERIFIED: "pass",
    VALID: "pass",
    FAITHFUL: "pass",
    OK: "pass",
    SEALED: "pass",
    PASS: "pass",
    NOTED: "pass",
    BROKEN: "fail",
    INVALID: "fail",
    DIVERGENCE: "fail",
    INVALID_COMPARISON: "fail",
    FINDINGS: "fail",
    FAIL: "fail",
}


# every word's exit code: the functions below never pair a word with another code
_CODE = {
    VERIFIED: HELD,
    BROKEN: WRONG,
    COULD_NOT_LOOK: COULD_NOT,
    NOT_VERIFIED: COULD_NOT,
    VALID: HELD,
    INVALID: WRONG,
    FAITHFUL: HELD,
    CONTAINED_ONLY: COULD_NOT,
    DIVERGENCE: WRONG,
    INVALID_COMPARISON: WRONG,
    FINDINGS: WRONG,
    REVIEW: HELD,
    OK: HELD,
    SEALED: HELD,
    PARTLY_SEALED: COULD_NOT,
    NOT_SEALED: COULD_NOT,
    PASS: HELD,
    FAIL: WRONG,
    NOTED: HELD,
}


def code_of(word: str) -> int:
    """The exit code a verdict word stands for (the reverse of the functions below, for
    a result known only by its word, e.g. a report read back): VERIFIED 0, BROKEN 1,
    COULD NOT LOOK 3, REVIEW 0 (a medium harn finding), CONTAINED ONLY 3, ...; a word
    that is none of these 3 (nothing is known to have held)."""
    return _CODE.get(word, COULD_NOT)


def worst_word(words: Iterable[str]) -> str:
    """The worst of verdict words as one of the three: BROKEN over COULD NOT LOOK over
    VERIFIED, each word counted by its exit code (a word not in the table counts as
    BROKEN). Nothing looked at is not a pass: COULD NOT LOOK when there is no word."""
    codes = [_CODE.get(w, WRONG) for w in words]
    if not codes:
        return COULD_NOT_LOOK
    return {HELD: VERIFIED, COULD_NOT: COULD_NOT_LOOK}.get(worst(codes), BROKEN)


def tone(word: str) -> str:
    """ "pass", "fail" or "warn" (every other word: could not look, bounded, review,
    not finished, partly sealed)."""
    return _TONE.get(word, "warn")


# by tone; None: no verdict yet (one cell, as the row list's pending mark)
GLYPHS: dict[str | None, str] = {"pass": "✓", "fail": "✗", "warn": "◐", None: "…"}


def glyph(word: str | None) -> str:
    """A verdict word's one-cell mark, by its tone: ✓ pass, ✗ fail, ◐ warn (could not
    look, bounded, review, not finished); … when there is no verdict yet (None)."""
    return GLYPHS[None if word is None else tone(word)]


class Outcome(NamedTuple):
    """A verdict word and its exit code."""

    verdict: str
    exit_code: int


class Judged:
    """A result type's `.verdict` and `.exit_code`, both read from its `outcome()`
    (which calls one of the functions below)."""

    __slots__ = ()

    def outcome(self) -> Outcome:
        raise NotImplementedError

    @property
    def verdict(self) -> str:
        return self.outcome().verdict

    @property
    def exit_code(self) -> int:
        return self.outcome().exit_code


def _get(obj: Any, key: str, default: Any = None) -> Any:
    return obj.get(key, default) if isinstance(obj, dict) else getattr(obj, key, default)


# ----------------------------------------------------------------------- ledgers


def chain(res: Any) -> Outcome:
    """A chain walk (`VerifyResult`): COULD NOT LOOK when unreadable or nothing was
    checkable (`ok` None), VERIFIED when `ok`, else BROKEN."""
    if _get(res, "unreadable") or _get(res, "ok") is None:
        return Outcome(COULD_NOT_LOOK, COULD_NOT)
    return Outcome(VERIFIED, HELD) if _get(res, "ok") else Outcome(BROKEN, WRONG)


def check(v: Any) -> Outcome:
    """A pin or witness verdict (`WitnessVerdict`): 0 when consistent, 1 when red
    (truncated, rewritten, local or witness broken), else 3; None (a check that could
    not be made) 3."""
    if v is not None and _get(v, "red"):
        return Outcome(BROKEN, WRONG)
    if v is not None and _get(v, "verdict") == "consistent":
        return Outcome(VERIFIED, HELD)
    return Outcome(COULD_NOT_LOOK, COULD_NOT)


def combined(res: Any, *checks: Any) -> Outcome:
    """A chain verdict combined with pin or witness verdicts (`verify --pin`, the
    banner, the report): BROKEN if any is red, else COULD NOT LOOK if any could not
    look, else VERIFIED. No checks: the chain alone."""
    code = worst([chain(res).exit_code, *(check(v).exit_code for v in checks)])
    return Outcome({HELD: VERIFIED, WRONG: BROKEN}.get(code, COULD_NOT_LOOK), code)


def ledger(res: Any, receipt_checks: Iterable[Any] = (), row_checks: Iterable[Any] = ()) -> Outcome:
    """A ledger as one file, before any check an auditor adds: the one verdict of
    `check`, `export`, a fleet entry (and its CI formats and VSA) and a viewer tab's
    banner. The chain's verdict, made BROKEN 1 by a compaction receipt that fails on
    its own (`receipt`; one within a bound is VERIFIED, its scope stated beside it),
    and the worst of it and every row check of the ledger's own (KINDS.md §11.2,
    `row_checks`: the `rows_checked` entries, or anything with a `verdict` word — a
    `continuity_verify` row no held verdict matches COULD NOT LOOK 3, an artefact
    binding refuted or a call row whose args do not give its digest BROKEN 1, an
    artefact not held VERIFIED within its bound, `beside`)."""
    return audit(
        chain(res),
        *(o for o in map(receipt, receipt_checks) if o.exit_code == WRONG),
        *map(row_check, row_checks),
    )


def row_check(e: Any) -> Outcome:
    """One row check of a ledger (a `rows_checked` entry or its like), by its own word:
    VERIFIED 0, BROKEN 1, COULD NOT LOOK 3; any other word (or none) COULD NOT LOOK 3."""
    word = _get(e, "verdict")
    if word not in (VERIFIED, BROKEN):
        word = COULD_NOT_LOOK
    return Outcome(word, code_of(word))


def audit(own: Outcome, *checks: Outcome) -> Outcome:
    """A file's verdict with every check an auditor ran on it (a pin, a witness, held
    content, a restatement, a diff, a lookup): the one answer of a viewer tab (its
    banner and label) and of an audit report. The exit code is the worst of all; the
    word is the file's own when that is as bad, else the first check's that is (a
    red pin → BROKEN, held content that fails → FAIL, a divergent restatement →
    DIVERGENCE), so word and code always agree."""
    code = worst([own.exit_code, *(c.exit_code for c in checks)])
    for o in (own, *checks):
        if _RANK.get(o.exit_code, 2) == _RANK.get(code, 2):
            return Outcome(o.verdict, code)
    return Outcome(own.verdict, code)  # pragma: no cover - worst() picks one of them


def judged(own: Outcome, records: Iterable[Any]) -> Outcome:
    """A file's own outcome with the checks run on it (session records, or their
    dicts, each with its word and code): `audit` over them. The verdict of an audit
    report and of a viewer tab, one rule for both."""
    return audit(own, *(_record_outcome(r) for r in records))


def _record_outcome(r: Any) -> Outcome:
    if isinstance(r, Outcome):
        return r
    code = _get(r, "code", _get(r, "exit_code", WRONG))
    return Outcome(str(_get(r, "verdict", NOTED)), code if isinstance(code, int) else WRONG)


_STOPPED = {
    "alarm": Outcome(BROKEN, WRONG),
    "error": Outcome(COULD_NOT_LOOK, COULD_NOT),
    "cancelled": Outcome(NOT_VERIFIED, COULD_NOT),
}


def stopped(state: str) -> Outcome | None:
    """A reading of a file that ended without a result: `alarm` (the file changed
    under a follower: truncated, replaced, rewritten) BROKEN 1, `error` (it could not
    be read) COULD NOT LOOK 3, `cancelled` (the verification did not finish) NOT
    VERIFIED 3; None for any other state (still reading, or done)."""
    return _STOPPED.get(state)


def evidence(state: str, own: Outcome | None, records: Iterable[Any] = ()) -> Outcome | None:
    """The verdict of one opened piece of evidence (a viewer tab: its banner and its
    label) from where its reading is (`state`: "done" once `own`, the file's own
    outcome, is known; see `stopped`) and every check the auditor ran on it
    (`judged`). None while the file's own verdict is still to come."""
    base = stopped(state)
    if base is None:
        base = own if state == "done" else None
    return None if base is None else judged(base, records)


def beside(out: Outcome | None, receipt_checks: Iterable[Any], rows_bound: str = "") -> str:
    """What is said beside a ledger's verdict word when it is VERIFIED: the scope its
    receipts held within (`scope_note`) and `rows_bound`, the bounds its other row
    checks held within ("2 artefacts not held", `checks.ledger_rows.rows_bound`),
    joined by "; "; else nothing."""
    if out is None or out.verdict != VERIFIED:
        return ""
    return "; ".join(p for p in (scope_note(receipt_checks), rows_bound) if p)


def tone_of(out: Outcome | None) -> str | None:
    """The tone of a verdict (`tone`), None while there is none yet."""
    return None if out is None else tone(out.verdict)


# ----------------------------------------------------------------------- seals


def seal(status: str) -> Outcome:
    """A snapshot file by `SealFile.status`: ok VALID 0, invalid INVALID 1, else
    (unreadable) COULD NOT LOOK 3."""
    if status == "ok":
        return Outcome(VALID, HELD)
    if status == "invalid":
        return Outcome(INVALID, WRONG)
    return Outcome(COULD_NOT_LOOK, COULD_NOT)


def continuation(v: Any) -> Outcome:
    """A continuation verdict (object or its dict): an invalid comparison 1;
    exact_match FAITHFUL 0; containment_only CONTAINED ONLY 3; else DIVERGENCE 1."""
    if not _get(v, "valid"):
        return Outcome(INVALID_COMPARISON, WRONG)
    comparison = _get(v, "comparison")
    if comparison == "exact_match":
        return Outcome(FAITHFUL, HELD)
    if comparison == "containment_only":
        return Outcome(CONTAINED_ONLY, COULD_NOT)
    return Outcome(DIVERGENCE, WRONG)


# ----------------------------------------------------------------------- receipts


def bounded(c: Any) -> bool:
    """A receipt check (`ReceiptCheck` or its dict) that is `ok` only within a bound:
    its `verified_scope` is not `full` (no held content, v1 lower bound, ...)."""
    return bool(_get(c, "ok")) and _get(c, "verified_scope") != "full"


def receipt(c: Any) -> Outcome:
    """One receipt check (`ReceiptCheck` or its dict): not ok BROKEN 1, else VERIFIED 0,
    within a bound or in full, as `arcaeon compact` answers it; the bound (`bounded`,
    `scope_note`) is stated beside the word by every frontend."""
    return Outcome(VERIFIED, HELD) if _get(c, "ok") else Outcome(BROKEN, WRONG)


def receipts(checks: Iterable[Any]) -> Outcome:
    """Every receipt row of a ledger (`sealscope receipts`): BROKEN 1 if any row fails,
    else VERIFIED 0; no row at all is COULD NOT LOOK 3 (nothing was claimed, so
    nothing held)."""
    codes = [receipt(c).exit_code for c in checks]
    if not codes:
        return Outcome(COULD_NOT_LOOK, COULD_NOT)
    return Outcome(VERIFIED, HELD) if worst(codes) == HELD else Outcome(BROKEN, WRONG)


def scope_note(checks: Iterable[Any]) -> str:
    """What the receipt checks behind a VERIFIED held for, to be shown beside the word:
    "2 receipts verified in full", "2 receipts self-consistent, content not checked",
    or both counts; "" when there are none or one failed."""
    checks = list(checks)
    if not checks or any(not _get(c, "ok") for c in checks):
        return ""
    within = sum(bounded(c) for c in checks)
    full = len(checks) - within
    parts = []
    if full:
        parts.append(f"{plural(full, 'receipt')} verified in full")
    if within:
        parts.append(
            f"{plural(within, 'receipt')} self-consistent, content not checked"
            if not full
            else f"{within} within a bound (content not checked)"
        )
    return ", ".join(parts)


def plural(n: int, noun: str, many: str | None = None) -> str:
    """ "1 receipt", "2 receipts" (or the plural given)."""
    return f"{n} {noun if n == 1 else (many or noun + 's')}"


def recompute(c: Any) -> Outcome:
    """A receipt recomputed with held content (`ReceiptCheck` or its dict): not ok
    FAIL 1, else PASS 0 (`receipt`'s codes; a bound is stated beside it)."""
    out = receipt(c)
    return Outcome(PASS if out.exit_code == HELD else FAIL, out.exit_code)


# ----------------------------------------------------------------------- other kinds


def kind_check(ok: bool | None, word: str | None = None) -> Outcome:
    """One kind's own check (`sealscope check`, KINDS.md §0.1): the reference's own
    verdict word when it speaks one (`word`: VERIFIED, BROKEN or COULD NOT LOOK), else
    by its `ok`: true VERIFIED 0 (within a bound or not), false BROKEN 1, None COULD
    NOT LOOK 3."""
    if word is not None:
        return Outcome(word, _CODE.get(word, WRONG))
    if ok is None:
        return Outcome(COULD_NOT_LOOK, COULD_NOT)
    return Outcome(VERIFIED, HELD) if ok else Outcome(BROKEN, WRONG)


# ----------------------------------------------------------------------- harn


def harn(worst_severity: str | None, *, readable: bool = True) -> Outcome:
    """A harn transcript by its worst finding: high FINDINGS 1, medium REVIEW 0,
    else OK 0; a file that cannot be read as one COULD NOT LOOK 3."""
    if not readable:
        return Outcome(COULD_NOT_LOOK, COULD_NOT)
    if worst_severity == "high":
        return Outcome(FINDINGS, WRONG)
    return Outcome(REVIEW if worst_severity == "medium" else OK, HELD)


def harn_seal(sealed: int, skipped: int, error: str | None) -> Outcome:
    """`harn seal`: SEALED 0 when every compaction was sealed and nothing failed, else
    PARTLY SEALED (some rows written) or NOT SEALED, 3."""
    if error is None and not skipped:
        return Outcome(SEALED, HELD)
    return Outcome(PARTLY_SEALED if sealed else NOT_SEALED, COULD_NOT)


# ----------------------------------------------------------------------- self-test


def selftest(ok: bool) -> Outcome:
    """One self-test check, or the whole run: PASS 0 or FAIL 1."""
    return Outcome(PASS, HELD) if ok else Outcome(FAIL, WRONG)
