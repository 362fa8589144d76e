"""The text and CI forms of a case for the `case` verbs: entry lines, replay lines and
the replay's CI suite. Every string from the case passes `sanitize.clean`; words,
statuses and order come from `sealscope.core.case`."""

from __future__ import annotations

from typing import Any

from sealscope import ci_formats
from sealscope.core import verdict
from sealscope.core.case.rows import describe, findings_of
from sealscope.core.sanitize import clean
from sealscope.output import paint_verdict


def finding_ids(read: Any) -> dict[int, str]:
    """A finding row's line → its id."""
    return {f.entry.line: f.id for f in findings_of(list(read.entries))}


def entry_lines(read: Any) -> list[str]:
    """One line per entry, in case order: `line  entry  ts  what it records`."""
    ids = finding_ids(read)
    return [
        f"{e.line:>5}  {e.entry:<8}  {clean(str(e.get('ts')))}  {clean(describe(e, ids))}"
        for e in read.entries
    ]


def replay_lines(rep: Any) -> list[str]:
    """One line per replayed check: `WORD  line N  check  path  status`."""
    return [
        f"{paint_verdict(i.verdict)}  line {i.line}  {clean(i.check)}  {clean(i.path)}  "
        f"{clean(i.detail)}"
        for i in rep.items
    ]


def replay_suite(rep: Any) -> ci_formats.Suite:
    """The replay as one CI suite of the case file: a case per replayed check, judged
    by its status's word; an error mark on the case line of each that changed, a
    warning on each that could not be looked at. Its subject is the case's own bytes."""
    suite = ci_formats.Suite(
        rep.case.path,
        exit_code=rep.exit_code,
        verdict=rep.verdict,
        digested=True,
        sha256=rep.case.sha256,
    )
    if rep.case.verdict != verdict.VERIFIED:
        code = rep.case.exit_code
        outcome = ci_formats.FAILED if code == verdict.WRONG else ci_formats.BOUNDED
        suite.cases.append(ci_formats.Case("case chain", outcome, rep.case.reason()))
    for i in rep.items:
        code = verdict.code_of(i.verdict)
        outcome = {verdict.HELD: ci_formats.PASSED, verdict.WRONG: ci_formats.FAILED}.get(
            code, ci_formats.BOUNDED
        )
        name = f"line {i.line} {i.check} {i.path}"
        suite.cases.append(ci_formats.Case(name, outcome, i.detail, code == verdict.COULD_NOT))
        if code != verdict.HELD:
            level = "error" if code == verdict.WRONG else "warning"
            suite.marks.append(ci_formats.Mark(level, f"replay {i.status}", i.detail, i.line))
    return suite
