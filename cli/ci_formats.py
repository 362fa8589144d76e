"""What CI and review systems read: GitHub workflow commands, a step summary, JUnit XML
and an in-toto verification summary (SLSA VSA v1), built from core verdicts.

Here: the verbs' CI flags (`add_arguments`, `github`) and `emit`, which writes each
format; the formats live beside it, every name re-exported here: `ci_suites` (the audit
as data: `Suite`s of `Case`s and `Mark`s, built from core verdicts by the `*_suite`
functions), `ci_github`, `ci_junit`, `ci_vsa`. Verdict words and exit codes come from
`core.verdict` only. Every text taken from evidence passes `sanitize.clean` and then the
target format's own escaping, so no row can end a workflow command, start one, or break
the XML or JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sealscope.ci_github import (
    github_commands,
    guarded,
    step_summary,
    stop_token,
)
from sealscope.ci_junit import junit_classname, junit_xml, xml_text
from sealscope.ci_suites import (
    ANNOTATION_LIMIT,
    BOUNDED,
    FAILED,
    PASSED,
    SUMMARY_LIMIT,
    Case,
    Mark,
    Suite,
    chain_suite,
    check_suite,
    fleet_suite,
    harn_suite,
    markdown_table,
    receipts_suite,
    report_suite,
    unreadable_suite,
)
from sealscope.ci_vsa import (
    STATEMENT_TYPE,
    VERIFIER_ID,
    VSA_TYPE,
    sha256_file,
    vsa_name,
    vsa_statement,
)
from sealscope.core import verdict as _verdict
from sealscope.core.jsonio import dumps_output
from sealscope.core.sanitize import clean

__all__ = [
    "ANNOTATION_LIMIT",
    "BOUNDED",
    "FAILED",
    "PASSED",
    "SUMMARY_LIMIT",
    "Case",
    "Mark",
    "Suite",
    "chain_suite",
    "check_suite",
    "fleet_suite",
    "harn_suite",
    "markdown_table",
    "receipts_suite",
    "report_suite",
    "unreadable_suite",
    "github_commands",
    "guarded",
    "step_summary",
    "stop_token",
    "junit_classname",
    "junit_xml",
    "xml_text",
    "STATEMENT_TYPE",
    "VERIFIER_ID",
    "VSA_TYPE",
    "sha256_file",
    "vsa_name",
    "vsa_statement",
    "add_arguments",
    "github",
    "emit",
]


# --------------------------------------------------------------------------- the verbs' flags

# in a module of their own, so registering them loads none of the formats
from sealscope.ci_flags import add_arguments, github


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
        doc = vsa_statement(
            suites, version=__version__, policy=policy, verifier=getattr(args, "verifier_id", None)
        )
        if doc["subject"]:
            write(
                "the verification summary",
                args.vsa,
                (dumps_output(doc, indent=2, ensure_ascii=True) + "\n").encode("ascii"),
            )
        else:
            error_line("--vsa: no file could be read to digest; no verification summary written")
            failed = True
    if refused:
        return _verdict.USAGE
    return _verdict.worst([code, _verdict.COULD_NOT if failed else _verdict.HELD])
