"""The audit CI and review systems read, as data: `Suite`s (one per ledger or file),
each a list of `Case`s (one per check: the chain, each receipt, each pin or witness check,
each harn compaction, each kind's check) and `Mark`s (a line of the evidence to point at:
a break, a failed receipt, a high finding are errors; a declared break, a bounded
result, a medium finding are warnings), built from core verdicts by the `*_suite`
functions; verdict words and exit codes come from `core.verdict` only.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import verdict as _verdict

PASSED, FAILED, BOUNDED = "passed", "failed", "bounded"
SUMMARY_LIMIT = 1 << 20  # GitHub's step summary limit, bytes
ANNOTATION_LIMIT = 1000  # workflow commands per run; GitHub shows only the first few anyway


@dataclass(frozen=True)
class Mark:
    """A line of the evidence to annotate: `error` (a break, a failed receipt, a high
    harn finding) or `warning` (a bounded or declared result, a medium finding). `line`
    None: the file as a whole."""

    level: str
    title: str
    message: str
    line: int | None = None


@dataclass(frozen=True)
class Case:
    """One check of one file: passed, failed (with the verdict text) or bounded."""

    name: str
    outcome: str
    text: str = ""
    unreadable: bool = False  # the file could not be read: an error, not a bound


@dataclass
class Suite:
    """Every check of one file, and the lines to annotate."""

    path: str
    cases: list[Case] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    exit_code: int = 0
    verdict: str = ""
    # `digested`: the verifier hashed the file in the pass it verified it; `sha256`
    # is then that digest, None when the bytes could not be bound to one file (the
    # VSA lists no subject for it and fails)
    digested: bool = False
    sha256: str | None = None
    resumed: dict[str, Any] | None = None  # from a checkpoint: what was resumed
    # a unit folder's VSA subjects, (name, sha256) each (its listed members); None:
    # the file itself is the subject
    subjects: list[tuple[str, str]] | None = None


# --------------------------------------------------------------------------- from verdicts


def _outcome(code: int) -> str:
    return {_verdict.HELD: PASSED, _verdict.WRONG: FAILED}.get(code, BOUNDED)


def chain_suite(
    path: str, res: Any, checks: Sequence[tuple[str, Any]] = (), *, digested: bool = False
) -> Suite:
    """A ledger's chain walk (`VerifyResult`) and its pin/witness checks
    (`(name, WitnessVerdict)`): a case each; a mark per break (error) and per declared
    break (warning), and one warning when the chain was bounded or could not be looked
    at. Its verdict: `verdict.combined`, as `verify` gives it. `digested`: the walk was
    asked for the digest of its bytes (`res.sha256`), which the VSA then names as the
    subject's."""
    suite = _judged(path, _verdict.combined(res, *(v for _n, v in checks)))
    _add_chain(suite, _verdict.chain(res), res, res.findings)
    suite.digested = digested
    suite.sha256 = getattr(res, "sha256", None) if digested else None
    for name, v in checks:
        out = _verdict.check(v)
        suite.cases.append(Case(name, _outcome(out.exit_code), f"{v.verdict}: {v.detail}"))
        if out.exit_code != _verdict.HELD:
            level = "error" if out.exit_code == _verdict.WRONG else "warning"
            suite.marks.append(Mark(level, f"{name} {v.verdict}", v.detail))
    return suite


def _judged(path: str, out: _verdict.Outcome) -> Suite:
    """An empty suite carrying its file's one verdict, decided once by core."""
    return Suite(path, exit_code=out.exit_code, verdict=out.verdict)


def _add_chain(suite: Suite, chain: _verdict.Outcome, res: Any, findings: Iterable[Any]) -> None:
    """The chain case and marks of a walk (`VerifyResult` or its dict; findings as
    `Finding`s or `{"line", "kind", "text"}` dicts) whose outcome is `chain`."""
    findings = list(findings)
    rows, scope, first = (
        _field(res, "rows"),
        _field(res, "verified_scope"),
        _field(res, "first_break"),
    )
    unread = bool(_field(res, "unreadable"))
    text = f"{chain.verdict}: rows={rows} breaks={_field(res, 'breaks')} scope={scope}"
    if unread:  # why it could not be read, and nothing a walk that never ran counted
        text = f"{chain.verdict}: {first}"
    elif first:
        text += f"; first break: {first}"
    suite.cases.append(Case("chain", _outcome(chain.exit_code), text, unread))
    for f in findings:
        brk = _field(f, "kind") == "break"
        suite.marks.append(
            Mark(
                "error" if brk else "warning",
                "ledger break" if brk else "declared break",
                _field(f, "text"),
                _field(f, "line"),
            )
        )
    if chain.exit_code == _verdict.COULD_NOT and not any(
        _field(f, "kind") == "declared" for f in findings
    ):
        why = first or f"scope {scope}, rows {rows}"
        suite.marks.append(Mark("warning", f"ledger {chain.verdict.lower()}", why))


def _field(obj: Any, key: str, default: Any = None) -> Any:
    return obj.get(key, default) if isinstance(obj, dict) else getattr(obj, key, default)


def _receipt_case(line: int, c: Any) -> Case:
    """One receipt row (a `ReceiptCheck`, a fleet `ReceiptRow` or a report's dict)."""
    out = _verdict.receipt(c)
    notes = "; ".join(_field(c, "notes", ()) or ())
    text = (
        f"{out.verdict}: schema={_field(c, 'schema')} content={_field(c, 'content')} "
        f"scope={_field(c, 'verified_scope')}" + (f"; {notes}" if notes else "")
    )
    return Case(f"receipt line {line}", _outcome(out.exit_code), text)


def _receipt_marks(suite: Suite, line: int, c: Any, notices: bool = True) -> None:
    """An error on a failing row; a notice stating the bound on a row that is VERIFIED
    only within one (unless the verb counts those rows in its summary instead:
    `notices=False`, a fleet, so an honest fleet annotates nothing)."""
    out = _verdict.receipt(c)
    notes = "; ".join(_field(c, "notes", ()) or ())
    if out.exit_code == _verdict.WRONG:
        suite.marks.append(
            Mark("error", "compaction receipt fails", f"line {line}: {notes or out.verdict}", line)
        )
    elif notices and _verdict.bounded(c):
        suite.marks.append(
            Mark(
                "notice",
                "compaction receipt verified within a bound",
                f"line {line}: scope {_field(c, 'verified_scope')}",
                line,
            )
        )


def receipts_suite(path: str, checks: Sequence[tuple[int, Any]]) -> Suite:
    """A ledger's receipt rows (`(line, ReceiptCheck)`): a case each, an error mark on
    each failing row; its verdict `verdict.receipts`."""
    suite = _judged(path, _verdict.receipts([c for _l, c in checks]))
    _add_receipts(suite, checks)
    return suite


def _add_receipts(suite: Suite, checks: Iterable[tuple[int, Any]], notices: bool = True) -> None:
    for line, c in checks:
        suite.cases.append(_receipt_case(line, c))
        _receipt_marks(suite, line, c, notices)


def fleet_suite(entry: Any) -> Suite:
    """A fleet entry (`core.fleet.FleetEntry`): the chain as `chain_suite` reads it and
    a case per receipt row, then a case per other row check (`_add_row_checks`); an
    error mark per break and per failing receipt (receipts within a bound are counted
    in the fleet's summary, not annotated). Its verdict is the entry's
    (`verdict.ledger`); its subject digest the one the walk took.

    An entry of another kind (`entry.check`) is its `check_suite` (a pack: a case per
    check), its VSA subjects those its check bound (`check_subjects`)."""
    if getattr(entry, "check", None) is not None:
        return check_suite(entry.check)
    suite = _judged(entry.path, entry.outcome())
    _add_chain(suite, _verdict.chain(entry.result), entry.result, entry.result.findings)
    suite.digested = True  # digested as walked
    suite.sha256 = getattr(entry.result, "sha256", None)
    _add_receipts(suite, ((row.line, row) for row in entry.receipts.rows), notices=False)
    _add_row_checks(suite, entry.rows_checked)
    return suite


def check_subjects(res: Any) -> list[tuple[str, str]]:
    """The VSA subjects of a kind's check (`core.checks.KindCheck`): the digests the
    check itself took of the bytes it judged, never taken again here: a pack's from its
    result (`pack.vsa_subjects`), any other kind's `KindCheck.subjects`. [] when it
    bound none (not read, or changed while read): the summary then fails."""
    if res.kind == "evidence-pack":
        from sealscope.core.checks.pack import vsa_subjects

        return list(vsa_subjects(res))
    return list(getattr(res, "subjects", None) or ())


def _add_unreadable(suite: Suite, why: str) -> None:
    word = _verdict.COULD_NOT_LOOK
    suite.cases.append(Case("read", BOUNDED, f"{word}: {why}", True))
    suite.marks.append(Mark("warning", f"{word.lower()}", why))


def unreadable_suite(path: str, why: str) -> Suite:
    """A file that could not be read (or read as its kind): one bounded `read` case and
    a warning, COULD NOT LOOK, exit 3."""
    suite = _judged(path, _verdict.Outcome(_verdict.COULD_NOT_LOOK, _verdict.COULD_NOT))
    _add_unreadable(suite, why)
    return suite


_HARN_LEVEL = {"high": "error", "medium": "warning"}


def harn_suite(path: str, checks: Iterable[Any], error: str | None = None) -> Suite:
    """A harn transcript or run record: a case per compaction event (`CompactionCheck`
    or its dict), judged by `verdict.harn` of its worst finding (a high one fails it);
    an error mark per high finding, a warning per medium one (the REVIEW word's tone);
    low and info findings are in the case text only. `error`: the file could not be
    read as one (a bounded case and a warning, exit 3). harn files are JSON documents,
    not lines: a mark points at the file and names the event's location in its title."""
    if error is not None:
        return unreadable_suite(path, error)
    from sealscope.core.harn import worst_severity

    checks = list(checks)
    every = [f for c in checks for f in (_field(c, "findings") or ())]
    suite = _judged(path, _verdict.harn(worst_severity(every)))
    _add_harn(suite, checks)
    return suite


def _add_harn(suite: Suite, checks: Iterable[Any]) -> None:
    from sealscope.core.harn import worst_severity

    for i, c in enumerate(checks, 1):
        ev = c if isinstance(c, dict) else c.event
        where, name = _field(ev, "location"), f"compaction #{i} {_field(ev, 'id') or '(no id)'}"
        findings = list(_field(c, "findings") or ())
        out = _verdict.harn(worst_severity(findings))
        said = "; ".join(
            f"{_field(f, 'severity')} {_field(f, 'code')}: {_field(f, 'message')}" for f in findings
        )
        suite.cases.append(
            Case(
                name,
                _outcome(out.exit_code),
                f"{out.verdict}: {where}" + (f"; {said}" if said else ""),
            )
        )
        for f in findings:
            level = _HARN_LEVEL.get(_field(f, "severity"))
            if level:
                suite.marks.append(
                    Mark(
                        level,
                        f"harn {_field(f, 'code')} at {where}",
                        f"{name}: {_field(f, 'message')}",
                    )
                )


def report_suite(report: Any) -> Suite:
    """An audit report (`core.export.AuditReport`) judged as the verbs it stands for:
    a ledger as `verify` (its chain) plus a case per receipt row as `receipts` and one
    per other row check (`_add_row_checks`, as `check` reports them); a harn
    file as `harn`; a snapshot as one case (an error when INVALID, a warning when it
    could not be looked at). Each session record (a restatement scored, a diff, ...)
    is one more case, judged by its own exit code. The suite's verdict is the report's,
    decided once by core; a case's outcome is read from its word (`verdict.code_of`)."""
    suite = _judged(report.path, _verdict.Outcome(report.verdict, report.exit_code))
    if report.kind == "harn":
        err = report.harn[0]["error"] if report.harn and "error" in report.harn[0] else None
        if err is not None:
            _add_unreadable(suite, err)
        else:
            _add_harn(suite, report.harn)
    elif report.kind == "ledger":
        led = report.ledger or {}
        word = led.get("verdict", report.verdict)
        _add_chain(suite, _verdict.Outcome(word, _verdict.code_of(word)), led, report.breaks)
        held = _recomputed_rows(report.session)
        _add_receipts(suite, ((c["line"], held.get(c["line"], c)) for c in report.receipts))
        _add_row_checks(suite, report.rows_checked)
    else:
        snap = report.snapshot or {}
        out = _outcome(_verdict.code_of(report.verdict))
        text = report.verdict + (f": {snap['error']}" if snap.get("error") else "")
        suite.cases.append(Case(report.kind, out, text))
        if out != PASSED:
            suite.marks.append(
                Mark(
                    "error" if out == FAILED else "warning",
                    f"{report.kind} {report.verdict.lower()}",
                    text,
                )
            )
    add_session(suite, report.session)
    return suite


def _recomputed_rows(records: Iterable[Any]) -> dict[int, Any]:
    """line → the receipt check recomputed with held content on that line (a session
    record's result): the row's check once its content was checked, so no mark says
    "content not checked" of a row whose content was checked."""
    out: dict[int, Any] = {}
    for r in records:
        res = r.result if getattr(r, "kind", None) == "recompute" else None
        if isinstance(res, dict) and isinstance(res.get("line"), int):
            out[res["line"]] = res
    return out


def add_session(suite: Suite, records: Iterable[Any]) -> None:
    """A case per session record (a check run on the file beyond reading it: held
    content, a restatement, a diff, ...), judged by its own exit code, its word the
    record's three-word verdict with its own result beside it; a mark on each that
    did not hold (an error when it is wrong)."""
    for r in records:
        out = _outcome(r.code)
        said = f"{r.word}" + (f" ({r.checked})" if r.checked else "")
        suite.cases.append(Case(r.title, out, f"{r.kind}: {said}, exit {r.code}"))
        if out != PASSED:
            suite.marks.append(
                Mark("error" if out == FAILED else "warning", r.title, f"{r.title}: {said}")
            )


def markdown_table(suites: Sequence[Suite], title: str) -> str:
    """A Markdown table of many files in the order given (a fleet's step summary: worst
    first, `fleet.worst_first`, as its other outputs): verdict, file, checks failed and
    bounded, the first thing to look at."""
    from sealscope.core.export import md_code, md_text

    lines = [
        f"### {md_text(title)}",
        "",
        "| verdict | file | checks | failed | bounded | first mark |",
        "|---|---|---:|---:|---:|---|",
    ]
    for s in suites:
        first = next((m for m in s.marks if m.level == "error"), s.marks[0] if s.marks else None)
        lines.append(
            f"| **{md_text(s.verdict)}** | {md_code(s.path, in_table=True)} | "
            f"{len(s.cases)} | {sum(c.outcome == FAILED for c in s.cases)} | "
            f"{sum(c.outcome == BOUNDED for c in s.cases)} | "
            + (md_text(first.message) if first else "")
            + " |"
        )
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------- check


def check_suite(res: Any) -> Suite:
    """One `sealscope check` result (`core.checks.KindCheck`): a case for the path's
    own check (named by its kind), then a case per row check of a ledger or call
    record (`line N <check>`), each judged by its own word; an error mark on the line
    of each BROKEN row check, a warning on each that could not look, and a mark for the
    path itself when its own check is not VERIFIED. The bound of a VERIFIED is stated
    in its case text. A pack or bundle folder's VSA subjects are its members
    (`_unit_subjects`), for `check`, `export` and `fleet` alike; a zip's is its own
    digest."""
    out = res.outcome()
    from sealscope.core.registry import own_check_name

    own = own_check_name(res.kind) if res.kind else (getattr(res, "profile", None) or "read")
    d = res.detail if isinstance(res.detail, dict) else {}
    entries = list(d.get("rows_checked") or ())
    # the word of the path's own check, as its checker set it (a ledger's or call
    # record's chain); any other kind's is its verdict
    chain_word = str(d.get("own_verdict") or out.verdict)
    own_code = _verdict.code_of(chain_word)
    why = _own_reason(res) if own_code != _verdict.HELD else ""
    text = (
        chain_word
        + (f" · {res.bound}" if res.bound and own_code == _verdict.HELD else "")
        + (f": {why}" if why else "")
    )
    suite = Suite(
        res.path,
        [Case(own, _outcome(own_code), text)],
        exit_code=out.exit_code,
        verdict=out.verdict,
        subjects=check_subjects(res),
    )
    if own_code != _verdict.HELD:
        at = re.match(r"line (\d+):", why)
        suite.marks.append(
            Mark(
                "error" if own_code == _verdict.WRONG else "warning",
                f"{res.kind or 'evidence'} {chain_word.lower()}",
                why or chain_word,
                int(at.group(1)) if at else None,
            )
        )
    _add_unit_checks(suite, d.get("checks"))
    _add_row_checks(suite, entries)
    _add_pair(suite, res.detail.get("pair") if isinstance(res.detail, dict) else None)
    return suite


def _add_pair(suite: Suite, pair: Any) -> None:
    """A two-file profile's pair check (KINDS-3.md §15.3): a case named by its
    partner, judged by the pair's word as core gave it; a mark when it is not
    VERIFIED."""
    if not isinstance(pair, dict):
        return
    word = str(pair.get("word") or _verdict.COULD_NOT_LOOK)
    code = {_verdict.VERIFIED: _verdict.HELD, _verdict.BROKEN: _verdict.WRONG}.get(
        word, _verdict.COULD_NOT
    )
    said = f"{pair.get('verdict')}" + (
        f" at {pair.get('at')}" if pair.get("at") is not None else ""
    )
    suite.cases.append(Case(f"pair with {pair.get('partner')}", _outcome(code), f"{word}: {said}"))
    if code != _verdict.HELD:
        level = "error" if code == _verdict.WRONG else "warning"
        suite.marks.append(Mark(level, f"pair {word.lower()}", said, None))


def _add_row_checks(suite: Suite, entries: Iterable[Any]) -> None:
    """A ledger's or call record's row checks (`rows_checked`, KINDS.md §11.2): a
    case each (`line N <check>`), judged by its own word; an error mark on the line of
    each BROKEN one, a warning on each that could not look."""
    for e in entries:
        code = _verdict.row_check(e).exit_code
        what = next(
            (
                str(e[k])
                for k in ("match", "args", "held", "verified_scope")
                if e.get(k) is not None
            ),
            "",
        )
        if code == _verdict.WRONG and e.get("check") == "artefact" and not e.get("ok"):
            what = str(e.get("artefact_verdict"))
        elif code == _verdict.WRONG and e.get("note"):
            what = str(e["note"])
        elif e.get("error"):
            what = f"the verifier raised {e['error']}"
        name = f"line {e.get('line')} {e.get('check')}"
        suite.cases.append(Case(name, _outcome(code), f"{e.get('verdict')}: {what}"))
        if code != _verdict.HELD:
            suite.marks.append(
                Mark(
                    "error" if code == _verdict.WRONG else "warning",
                    f"{e.get('check')} {str(e.get('verdict')).lower()}",
                    f"line {e.get('line')}: {e.get('check')} {what}",
                    e.get("line") if isinstance(e.get("line"), int) else None,
                )
            )


def _add_unit_checks(suite: Suite, checks: Any) -> None:
    """An evidence pack's (or any unit's) own named checks (`detail.checks`, each
    `{"check", "verdict", ...}` in the reference's order): a case each, judged by its
    own word; a mark on each that is not VERIFIED (error when BROKEN)."""
    if not isinstance(checks, list):
        return
    for c in checks:
        if not isinstance(c, dict) or not isinstance(c.get("check"), str):
            continue
        word = str(c.get("verdict"))
        code = _verdict.code_of(word)
        why = str(c.get("reason") or c.get("note") or c.get("first_break") or "")
        suite.cases.append(
            Case(f"check {c['check']}", _outcome(code), word + (f": {why}" if why else ""))
        )
        if code != _verdict.HELD:
            suite.marks.append(
                Mark(
                    "error" if code == _verdict.WRONG else "warning",
                    f"{c['check']} {word.lower()}",
                    why or word,
                )
            )


def _own_reason(res: Any) -> str:
    """Why a path's own check (a ledger's chain, a call record's chain, a document's
    check) is not VERIFIED, without its row checks."""
    d = res.detail if isinstance(res.detail, dict) else {}
    if res.kind == "ledger":
        return str(d.get("first_break") or f"scope {d.get('verified_scope')}")
    if res.kind == "call-record":
        rec = d.get("call_record") or {}
        if rec.get("ok") is False:
            return f"line {rec.get('first_break')}: {rec.get('note')}"
        return str(d.get("error") or "no call rows")
    return res.reason
