"""What CI and review systems read: GitHub workflow commands, a step summary, JUnit XML
and an in-toto verification summary (SLSA VSA v1), built from core verdicts.

An audit is a list of `Suite`s (one per ledger or file), each a list of `Case`s (one per
check: the chain, each receipt, each pin or witness check, each harn compaction) and
`Mark`s (a line of the evidence to point at: a break, a failed receipt, a high finding
are errors; a declared break, a bounded result, a medium finding are warnings). Verbs
build suites with the `*_suite` functions below and pass them to `emit`; verdict words
and exit codes come from `core.verdict` only. Every text taken from evidence passes
`sealscope.core.sanitize.clean` and then the target format's own escaping, so no row
can end a workflow command, start one, or break the XML or JSON.
"""

from __future__ import annotations

import hashlib
import json
import re
import xml.etree.ElementTree as ET
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.lines import open_regular
from sealscope.core.sanitize import clean

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
    a case per receipt row; an error mark per break and per failing receipt (receipts
    within a bound are counted in the fleet's summary, not annotated). Its verdict is
    the entry's (`verdict.ledger`); its subject digest the one the walk took.

    An entry of another kind (`entry.check`) is its `check_suite` (a pack: a case per
    check); a pack or bundle folder's VSA subjects are its listed members
    (`unit_subjects`), a zip's its own digest."""
    if getattr(entry, "check", None) is not None:
        suite = check_suite(entry.check)
        suite.subjects = _unit_subjects(entry.check)
        return suite
    suite = _judged(entry.path, entry.outcome())
    _add_chain(suite, _verdict.chain(entry.result), entry.result, entry.result.findings)
    suite.digested = True  # digested as walked
    suite.sha256 = getattr(entry.result, "sha256", None)
    _add_receipts(suite, ((row.line, row) for row in entry.receipts.rows), notices=False)
    return suite


def _unit_subjects(res: Any) -> list[tuple[str, str]] | None:
    """A pack or bundle folder's members as VSA subjects (`path/member`, sha256);
    None for anything else (a file: its own digest). A folder that cannot be read:
    no subject ([])."""
    import os

    if res.kind not in ("evidence-pack", "audit-bundle") or not os.path.isdir(res.path):
        return None
    if res.kind == "evidence-pack":
        from sealscope.core.checks.pack import unit_subjects
    else:
        from sealscope.core.checks.bundle import unit_subjects
    try:
        return [(f"{res.path}/{n}", d) for n, d in unit_subjects(res.path)]
    except OSError:
        return []


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
    a ledger as `verify` (its chain) plus a case per receipt row as `receipts`; a harn
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
        _add_receipts(suite, ((c["line"], c) for c in report.receipts))
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
    for r in report.session:
        out = _outcome(r.code)
        suite.cases.append(Case(r.title, out, f"{r.kind}: exit {r.code}"))
        if out != PASSED:
            suite.marks.append(
                Mark("error" if out == FAILED else "warning", r.title, f"{r.title}: exit {r.code}")
            )
    return suite


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


# --------------------------------------------------------------------------- GitHub


def _escape_data(text: str) -> str:
    return clean(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _escape_path(path: str) -> str:
    """A `file=` property: the real path (so the annotation lands on the file that
    exists), escaped only as the property rules say; not sanitized for display."""
    return (
        path.replace("%", "%25")
        .replace("\r", "%0D")
        .replace("\n", "%0A")
        .replace(":", "%3A")
        .replace(",", "%2C")
    )


def github_commands(suites: Iterable[Suite], limit: int = ANNOTATION_LIMIT) -> str:
    """`::error file=P,line=N,title=T::message` per error mark, `::warning` per warning;
    one line each, escaped as the workflow-command rules require. At most `limit`
    (errors first), then one warning saying how many were left out."""
    marks = [(s, m) for s in suites for m in s.marks]
    if len(marks) > limit:
        marks.sort(key=lambda sm: sm[1].level != "error")  # stable: file and line order
    out = []
    for s, m in marks[:limit]:
        props = [f"file={_escape_path(s.path)}"]
        if m.line is not None:
            props.append(f"line={int(m.line)}")
        props.append(f"title={_escape_property(m.title)}")
        out.append(f"::{m.level} {','.join(props)}::{_escape_data(m.message)}")
    if len(marks) > limit:
        left = marks[limit:]
        errors = sum(m.level == "error" for _s, m in left)
        out.append(
            f"::warning title=sealscope annotations left out::{len(left)} more "
            f"annotation(s) ({errors} error(s)) not written; `sealscope export FILE "
            "--format json` lists every result of a file"
        )
    return "".join(line + "\n" for line in out)


def stop_token() -> str:
    """A fresh random token for `::stop-commands::` (one per run: evidence cannot
    know it, so cannot end the pause)."""
    import secrets

    return "sealscope-" + secrets.token_hex(16)


def guarded(text: str, token: str) -> str:
    """`text` (not annotations) between `::stop-commands::TOKEN` and `::TOKEN::`: the
    runner runs no workflow command inside, whatever the text holds."""
    if not text:
        return text
    body = text if text.endswith("\n") else text + "\n"
    return f"::stop-commands::{token}\n{body}::{token}::\n"


def step_summary(markdown: str, limit: int = SUMMARY_LIMIT) -> str:
    """The Markdown report for `$GITHUB_STEP_SUMMARY`, cut to `limit` bytes at a line
    boundary with a closing line saying how much was left out."""
    data = markdown.encode("utf-8")
    if len(data) <= limit:
        return markdown
    if limit < 300:  # not even the closing line fits
        return ""
    room = limit - 300
    cut = data.rfind(b"\n", 0, room) + 1 or room
    kept = data[:cut].decode("utf-8", "ignore")
    left = len(data) - len(kept.encode("utf-8"))
    return kept + (
        f"\n\n**Report truncated:** {left:,} more bytes "
        f"({markdown.count(chr(10)) - kept.count(chr(10)):,} lines) left out "
        "to fit GitHub's 1 MiB step-summary limit; `sealscope export FILE "
        "--format json` lists every result of a file.\n"
    )


# --------------------------------------------------------------------------- JUnit

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """Sanitized text that XML 1.0 can carry (ElementTree escapes `<`, `&`, quotes)."""
    return _NOT_XML.sub("\ufffd", clean(text))


def junit_classname(path: str) -> str:
    """A file's JUnit `classname`: its path with every `.` made `_` (Jenkins and most
    JUnit readers split a classname at its dots into package and class, so
    `fleet/agent-005.jsonl` would show as class `jsonl` of package `fleet/agent-005`).
    The suite's `name` keeps the path as it is."""
    return xml_text(path).replace(".", "_")


def junit_xml(suites: Sequence[Suite]) -> bytes:
    """`<testsuites>` with one `<testsuite>` per file and one `<testcase>` per check,
    indented; a failed check carries `<failure message=... type=...>`, a file that
    could not be read `<error>` (it is no pass and no bound: CI shows it red), a bounded
    check `<skipped>`, a passed one its text (the scope it held in) as `<system-out>`."""

    def count(cases: Iterable[Case]) -> dict[str, str]:
        cases = list(cases)
        return {
            "tests": str(len(cases)),
            "failures": str(sum(c.outcome == FAILED for c in cases)),
            "errors": str(sum(c.outcome == BOUNDED and c.unreadable for c in cases)),
            "skipped": str(sum(c.outcome == BOUNDED and not c.unreadable for c in cases)),
        }

    root = ET.Element(
        "testsuites", {"name": "sealscope", **count(c for s in suites for c in s.cases)}
    )
    for s in suites:
        el = ET.SubElement(root, "testsuite", {"name": xml_text(s.path), **count(s.cases)})
        for c in s.cases:
            tc = ET.SubElement(
                el, "testcase", name=xml_text(c.name), classname=junit_classname(s.path)
            )
            if c.outcome == FAILED:
                f = ET.SubElement(
                    tc, "failure", message=xml_text(c.text.split(";")[0]), type="sealscope.verdict"
                )
                f.text = xml_text(c.text)
            elif c.outcome == BOUNDED and c.unreadable:
                e = ET.SubElement(
                    tc, "error", message=xml_text(c.text), type="sealscope.unreadable"
                )
                e.text = xml_text(c.text)
            elif c.outcome == BOUNDED:
                ET.SubElement(tc, "skipped", message=xml_text(c.text))
            else:
                ET.SubElement(tc, "system-out").text = xml_text(c.text)
    ET.indent(root, space="  ")
    # a character reference for the `[` of `#[`: no legacy `##[` command in the file
    return (
        ET.tostring(root, encoding="utf-8", xml_declaration=True).replace(b"#[", b"#&#91;") + b"\n"
    )


# --------------------------------------------------------------------------- VSA

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
VSA_TYPE = "https://slsa.dev/verification_summary/v1"
VERIFIER_ID = "https://pypi.org/project/sealscope/"


def sha256_file(path: str) -> str:
    """The SHA-256 of a regular file's bytes (a FIFO or device: `lines.NotRegularFile`,
    an OSError, raised on the open, never a wait)."""
    h = hashlib.sha256()
    with open_regular(path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def vsa_name(path: str) -> dict[str, str]:
    """A file name as a VSA carries it: the name itself when its bytes are UTF-8;
    else (`name`) those bytes percent-encoded (`%` itself too), with `name_hex`, the
    raw bytes in hex, beside it, so a JSON reader gets the bytes back, not lone
    surrogates."""
    import os
    from urllib.parse import quote

    try:
        path.encode("utf-8")
        return {"name": path}
    except UnicodeEncodeError:
        raw = os.fsencode(path)
        return {"name": quote(raw, safe="/"), "name_hex": raw.hex()}


def vsa_statement(
    suites: Sequence[Suite], *, version: str, policy: dict[str, Any], now: datetime | None = None
) -> dict[str, Any]:
    """An unsigned in-toto Statement v1 whose predicate is a SLSA verification summary:
    each file verified a subject (its path and the SHA-256 of its bytes), the policy
    that ran, PASSED only when every file held in full; no verified levels.

    A ledger's digest is the one its verification computed from the bytes it read,
    in the same pass through the same descriptor (`Suite.digested`); a ledger whose
    bytes could not be bound to one file (replaced or changed while read) is no
    subject and makes the result FAILED. Other files are hashed here, through
    `lines.open_regular`. A file that cannot be read (gone, or a remote URL) is no
    subject either (a subject needs a digest): it is listed under
    `predicate.sealscope.results` with a null digest, and the result is FAILED
    unless it held. A result resumed from a checkpoint says so (`resumed`), as does
    the policy."""
    when = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    subjects, results = [], []
    unbound = False
    for s in suites:
        digest: str | None
        for member, sha in s.subjects or ():  # a unit folder: each listed member
            subjects.append({"name": vsa_name(member)["name"], "digest": {"sha256": sha}})
        if s.subjects is not None:
            digest = None
        elif s.digested:
            digest = s.sha256
            unbound = unbound or digest is None
        else:
            try:
                digest = sha256_file(s.path) if "://" not in s.path else None
            except OSError:
                digest = None
        name = vsa_name(s.path)
        if digest is not None:
            subjects.append(
                {"name": name["name"], "digest": {"sha256": digest}}
                | ({"annotations": {"name_hex": name["name_hex"]}} if "name_hex" in name else {})
            )
        row: dict[str, Any] = {
            "path": name["name"],
            "sha256": digest,
            "verdict": s.verdict,
            "exit_code": s.exit_code,
            "checks": [{"name": c.name, "outcome": c.outcome} for c in s.cases],
        }
        if "name_hex" in name:
            row["path_hex"] = name["name_hex"]
        if s.resumed is not None:
            row["resumed"] = s.resumed
        results.append(row)
    passed = bool(suites) and not unbound and all(s.exit_code == _verdict.HELD for s in suites)
    from_cp = [
        {"path": vsa_name(s.path)["name"], **s.resumed}
        for s in suites
        if s.resumed is not None and s.resumed.get("resumed")
    ]
    if from_cp:  # a verdict from a checkpoint is not a full verification: say so
        policy = dict(policy, resumed_from_checkpoint=from_cp)
    return {
        "_type": STATEMENT_TYPE,
        "subject": subjects,
        "predicateType": VSA_TYPE,
        "predicate": {
            "verifier": {"id": VERIFIER_ID, "version": {"sealscope": version}},
            "timeVerified": when,
            "resourceUri": "file:"
            + (vsa_name(suites[0].path)["name"] if len(suites) == 1 else "."),
            "policy": {
                "uri": "https://pypi.org/project/sealscope/#policy",
                "digest": {
                    "sha256": hashlib.sha256(
                        json.dumps(policy, sort_keys=True).encode()
                    ).hexdigest()
                },
            },
            "inputAttestations": [],
            "verificationResult": "PASSED" if passed else "FAILED",
            "verifiedLevels": [],
            "slsaVersion": "1.0",
            "sealscope": {"policy": policy, "results": results},
        },
    }


# --------------------------------------------------------------------------- the verbs' flags


def add_arguments(p: Any, *, format_flag: bool = True) -> None:
    """`--format github`, `--junit FILE`, `--vsa FILE` on a verb's parser (without
    `--format` for a verb that has its own and adds `github` to it)."""
    if format_flag:
        p.add_argument(
            "--format",
            dest="ci_format",
            choices=("text", "json", "github"),
            default=None,
            help="stdout format: text (default), json (as --json), "
            "or github (workflow-command annotations; with $GITHUB_STEP_SUMMARY "
            "set, the Markdown report is appended there)",
        )
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML to FILE")
    p.add_argument(
        "--vsa",
        metavar="FILE",
        help="also write an in-toto SLSA verification summary (unsigned) to FILE",
    )


def github(args: Any) -> bool:
    return getattr(args, "ci_format", None) == "github"


def _same_file(a: str, b: str) -> bool:
    import os

    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def emit(
    args: Any,
    suites: Sequence[Suite],
    *,
    code: int,
    policy: dict[str, Any],
    markdown: Any = None,
    summary: str = "",
) -> int:
    """Write what the flags ask for: annotations on stdout (with `--format github`, plus
    the Markdown from `markdown()` appended to `$GITHUB_STEP_SUMMARY`), `--junit` and
    `--vsa` files; `summary` (human, one line) goes to stderr when stdout is taken.
    Returns the verb's exit code: `code` (the audit's); 2 when a file to write is one
    of the evidence files (it is not written); else the worse of `code` and 3 when a
    file cannot be written or no file could be digested for `--vsa` (one error line
    each)."""
    import os
    import sys

    from sealscope.core.version import __version__
    from sealscope.output import error_line

    refused = False
    failed = False
    if github(args):
        from sealscope import output

        output.guard_commands(stop_token())

    def write(kind: str, target: str, data: bytes, append: bool = False) -> None:
        nonlocal refused, failed
        if any(_same_file(target, s.path) for s in suites if "://" not in s.path):
            error_line(f"refusing to write {kind} over evidence: {clean(target)}")
            refused = True
            return
        try:
            with open(target, "ab" if append else "wb") as fh:
                fh.write(data)
        except OSError as e:
            error_line(f"cannot write {kind} {clean(target)}: {e.strerror or e}")
            failed = True

    if github(args):
        sys.stdout.flush()
        sys.stdout.buffer.write(github_commands(suites).encode("utf-8", "surrogateescape"))
        sys.stdout.buffer.flush()
        target = os.environ.get("GITHUB_STEP_SUMMARY")
        if target and markdown is not None:
            try:  # the limit is the step's whole file, earlier writes included
                room = SUMMARY_LIMIT - os.path.getsize(target)
            except OSError:
                room = SUMMARY_LIMIT
            write(
                "the step summary",
                target,
                step_summary(markdown(), max(room, 0)).encode("utf-8"),
                append=True,
            )
        if summary:  # not an annotation: no command may run from it
            sys.stderr.write(guarded(summary.rstrip("\n") + "\n", stop_token()))
            sys.stderr.flush()
    if getattr(args, "junit", None):
        write("JUnit XML", args.junit, junit_xml(suites))
    if getattr(args, "vsa", None):
        doc = vsa_statement(suites, version=__version__, policy=policy)
        if doc["subject"]:
            from sealscope.output import safe_json

            write(
                "the verification summary",
                args.vsa,
                (safe_json(json.dumps(doc, indent=2, ensure_ascii=True)) + "\n").encode("ascii"),
            )
        else:
            error_line("--vsa: no file could be read to digest; no verification summary written")
            failed = True
    if refused:
        return _verdict.USAGE
    return _verdict.worst([code, _verdict.COULD_NOT if failed else _verdict.HELD])


# --------------------------------------------------------------------------- check


def check_suite(res: Any) -> Suite:
    """One `sealscope check` result (`core.checks.KindCheck`): a case for the path's
    own check (named by its kind), then a case per row check of a ledger or call
    record (`line N <check>`), each judged by its own word; an error mark on the line
    of each BROKEN row check, a warning on each that could not look, and a mark for the
    path itself when its own check is not VERIFIED. The bound of a VERIFIED is stated
    in its case text."""
    out = res.outcome()
    own = {"ledger": "chain", "call-record": "call record chain"}.get(
        res.kind or "", res.kind or "read"
    )
    word_code = {_verdict.VERIFIED: _verdict.HELD, _verdict.BROKEN: _verdict.WRONG}
    entries = list(res.detail.get("rows_checked") or ()) if isinstance(res.detail, dict) else []
    chain_word = out.verdict
    if res.kind == "ledger":
        chain_word = _verdict.chain(res.detail).verdict
    elif res.kind == "call-record":
        rec = res.detail.get("call_record") or {}
        chain_word = (
            _verdict.BROKEN
            if rec.get("ok") is False
            else _verdict.VERIFIED
            if rec.get("ok") and rec.get("rows")
            else _verdict.COULD_NOT_LOOK
        )
    elif entries:
        chain_word = out.verdict
    own_code = word_code.get(chain_word, _verdict.COULD_NOT)
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
    _add_unit_checks(
        suite, res.detail.get("checks") if isinstance(res.detail, dict) else None, word_code
    )
    for e in entries:
        code = word_code.get(e.get("verdict"), _verdict.COULD_NOT)
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
    return suite


def _add_unit_checks(suite: Suite, checks: Any, word_code: dict[str, int]) -> None:
    """An evidence pack's (or any unit's) own named checks (`detail.checks`, each
    `{"check", "verdict", ...}` in the reference's order): a case each, judged by its
    own word; a mark on each that is not VERIFIED (error when BROKEN)."""
    if not isinstance(checks, list):
        return
    for c in checks:
        if not isinstance(c, dict) or not isinstance(c.get("check"), str):
            continue
        word = str(c.get("verdict"))
        code = word_code.get(word, _verdict.COULD_NOT)
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
