"""What CI and review systems read: GitHub workflow commands, a step summary, JUnit XML
and an in-toto verification summary (SLSA VSA v1), built from core verdicts.

An audit is a list of `Suite`s (one per ledger or file), each a list of `Case`s (one per
check: the chain, each receipt, each pin or witness check) and `Mark`s (a line of the
evidence to point at: a break, a failed receipt, a declared break). Every text taken
from evidence passes `sealscope.core.sanitize.clean` and then the target format's own
escaping, so no row can end a workflow command, start one, or break the XML.
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
from sealscope.core.sanitize import clean

PASSED, FAILED, BOUNDED = "passed", "failed", "bounded"
SUMMARY_LIMIT = 1 << 20  # GitHub's step summary limit, bytes


@dataclass(frozen=True)
class Mark:
    """A line of the evidence to annotate: `error` (a break, a failed receipt) or
    `warning` (a bounded or declared result). `line` None: the file as a whole."""
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


@dataclass
class Suite:
    """Every check of one file, and the lines to annotate."""
    path: str
    cases: list[Case] = field(default_factory=list)
    marks: list[Mark] = field(default_factory=list)
    exit_code: int = 0


# --------------------------------------------------------------------------- from verdicts

def _outcome(code: int) -> str:
    return {_verdict.HELD: PASSED, _verdict.WRONG: FAILED}.get(code, BOUNDED)


def chain_suite(path: str, res: Any, checks: Sequence[tuple[str, Any]] = ()) -> Suite:
    """A ledger's chain walk (`VerifyResult`) and its pin/witness checks
    (`(name, WitnessVerdict)`): a case each; a mark per break (error) and per declared
    break (warning), and one warning when the chain was bounded or could not be looked at."""
    chain = _verdict.chain(res)
    text = (f"{chain.verdict}: rows={res.rows} breaks={res.breaks} "
            f"scope={res.verified_scope}")
    if res.first_break:
        text += f"; first break: {res.first_break}"
    suite = Suite(path, [Case("chain", _outcome(chain.exit_code), text)])
    for f in res.findings:
        level = "error" if f.kind == "break" else "warning"
        title = "ledger break" if f.kind == "break" else "declared break"
        suite.marks.append(Mark(level, title, f.text, f.line))
    if chain.exit_code == _verdict.COULD_NOT and not any(f.kind == "declared"
                                                         for f in res.findings):
        why = res.first_break or f"scope {res.verified_scope}, rows {res.rows}"
        suite.marks.append(Mark("warning", f"ledger {chain.verdict.lower()}", why))
    codes = [chain.exit_code]
    for name, v in checks:
        out = _verdict.check(v)
        codes.append(out.exit_code)
        suite.cases.append(Case(name, _outcome(out.exit_code), f"{v.verdict}: {v.detail}"))
        if out.exit_code != _verdict.HELD:
            level = "error" if out.exit_code == _verdict.WRONG else "warning"
            suite.marks.append(Mark(level, f"{name} {v.verdict}", v.detail))
    suite.exit_code = _verdict.worst(codes)
    return suite


def receipts_suite(path: str, checks: Sequence[tuple[int, Any]]) -> Suite:
    """A ledger's receipt rows (`(line, ReceiptCheck)`): a case each, an error mark on
    each failing row, a warning on each row that held only within a bound."""
    suite = Suite(path)
    for line, c in checks:
        out = _verdict.receipt(c)
        notes = "; ".join(c.notes)
        text = (f"{out.verdict}: schema={c.schema} content={c.content} "
                f"scope={c.verified_scope}" + (f"; {notes}" if notes else ""))
        suite.cases.append(Case(f"receipt line {line}", _outcome(out.exit_code), text))
        if out.exit_code == _verdict.WRONG:
            suite.marks.append(Mark("error", "compaction receipt fails",
                                    f"line {line}: {notes or out.verdict}", line))
        elif out.exit_code == _verdict.COULD_NOT:
            suite.marks.append(Mark("warning", "compaction receipt bounded",
                                    f"line {line}: scope {c.verified_scope}", line))
    suite.exit_code = _verdict.receipts([c for _l, c in checks]).exit_code
    return suite


# --------------------------------------------------------------------------- GitHub

def _escape_data(text: str) -> str:
    return clean(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_commands(suites: Iterable[Suite]) -> str:
    """`::error file=P,line=N,title=T::message` per error mark, `::warning` per warning;
    one line each, escaped as the workflow-command rules require."""
    out = []
    for s in suites:
        for m in s.marks:
            props = [f"file={_escape_property(s.path)}"]
            if m.line is not None:
                props.append(f"line={int(m.line)}")
            props.append(f"title={_escape_property(m.title)}")
            out.append(f"::{m.level} {','.join(props)}::{_escape_data(m.message)}")
    return "".join(line + "\n" for line in out)


def step_summary(markdown: str, limit: int = SUMMARY_LIMIT) -> str:
    """The Markdown report for `$GITHUB_STEP_SUMMARY`, cut to `limit` bytes at a line
    boundary with a closing line saying how much was left out."""
    data = markdown.encode("utf-8")
    if len(data) <= limit:
        return markdown
    room = limit - 200
    cut = data.rfind(b"\n", 0, room) + 1 or room
    kept = data[:cut].decode("utf-8", "ignore")
    left = len(data) - cut
    return kept + (f"\n\n**Report truncated:** {left:,} more bytes "
                   f"({markdown.count(chr(10)) - kept.count(chr(10)):,} lines) left out "
                   "to fit GitHub's 1 MiB step-summary limit; see the JSON or JUnit output.\n")


# --------------------------------------------------------------------------- JUnit

_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def xml_text(text: str) -> str:
    """Sanitized text that XML 1.0 can carry (ElementTree escapes `<`, `&`, quotes)."""
    return _NOT_XML.sub("\ufffd", clean(text))


def junit_xml(suites: Sequence[Suite]) -> bytes:
    """`<testsuites>` with one `<testsuite>` per file and one `<testcase>` per check;
    a failed check carries `<failure message=... type=...>`, a bounded one `<skipped>`."""
    root = ET.Element("testsuites", name="sealscope",
                      tests=str(sum(len(s.cases) for s in suites)),
                      failures=str(sum(c.outcome == FAILED for s in suites for c in s.cases)),
                      errors="0",
                      skipped=str(sum(c.outcome == BOUNDED for s in suites for c in s.cases)))
    for s in suites:
        el = ET.SubElement(root, "testsuite", name=xml_text(s.path), tests=str(len(s.cases)),
                           failures=str(sum(c.outcome == FAILED for c in s.cases)),
                           errors="0",
                           skipped=str(sum(c.outcome == BOUNDED for c in s.cases)))
        for c in s.cases:
            tc = ET.SubElement(el, "testcase", name=xml_text(c.name),
                               classname=xml_text(s.path))
            if c.outcome == FAILED:
                f = ET.SubElement(tc, "failure", message=xml_text(c.text.split(";")[0]),
                                  type="sealscope.verdict")
                f.text = xml_text(c.text)
            elif c.outcome == BOUNDED:
                ET.SubElement(tc, "skipped", message=xml_text(c.text))
    return ET.tostring(root, encoding="utf-8", xml_declaration=True) + b"\n"


# --------------------------------------------------------------------------- VSA

STATEMENT_TYPE = "https://in-toto.io/Statement/v1"
VSA_TYPE = "https://slsa.dev/verification_summary/v1"
VERIFIER_ID = "https://pypi.org/project/sealscope/"


def sha256_file(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


def vsa_statement(suites: Sequence[Suite], *, version: str, policy: dict[str, Any],
                  now: datetime | None = None) -> dict[str, Any]:
    """An unsigned in-toto Statement v1 whose predicate is a SLSA verification summary:
    each file a subject (its path and the SHA-256 of its bytes, read now), the policy
    that ran, PASSED only when every check held in full; no verified levels."""
    when = (now or datetime.now(timezone.utc)).strftime("%Y-%m-%dT%H:%M:%SZ")
    subjects = []
    for s in suites:
        try:
            subjects.append({"name": s.path, "digest": {"sha256": sha256_file(s.path)}})
        except OSError:
            subjects.append({"name": s.path, "digest": {}})
    passed = bool(suites) and all(s.exit_code == _verdict.HELD for s in suites)
    return {
        "_type": STATEMENT_TYPE,
        "subject": subjects,
        "predicateType": VSA_TYPE,
        "predicate": {
            "verifier": {"id": VERIFIER_ID, "version": {"sealscope": version}},
            "timeVerified": when,
            "resourceUri": "file:" + (suites[0].path if len(suites) == 1 else "."),
            "policy": {"uri": "https://pypi.org/project/sealscope/#policy",
                       "digest": {"sha256": hashlib.sha256(json.dumps(
                           policy, sort_keys=True).encode()).hexdigest()}},
            "inputAttestations": [],
            "verificationResult": "PASSED" if passed else "FAILED",
            "verifiedLevels": [],
            "slsaVersion": "1.0",
            "sealscope": {"policy": policy,
                          "results": {s.path: {"exit_code": s.exit_code,
                                               "checks": {c.name: c.outcome for c in s.cases}}
                                      for s in suites}},
        },
    }


# --------------------------------------------------------------------------- the verbs' flags

def add_arguments(p: Any) -> None:
    """`--format github`, `--junit FILE`, `--vsa FILE` on a verb's parser."""
    p.add_argument("--format", dest="ci_format", choices=("text", "json", "github"),
                   default=None, help="stdout format: text (default), json (as --json), or "
                   "github (workflow-command annotations; with $GITHUB_STEP_SUMMARY set, "
                   "the Markdown report is appended there)")
    p.add_argument("--junit", metavar="FILE", help="also write JUnit XML to FILE")
    p.add_argument("--vsa", metavar="FILE",
                   help="also write an in-toto SLSA verification summary (unsigned) to FILE")


def github(args: Any) -> bool:
    return getattr(args, "ci_format", None) == "github"


def emit(args: Any, suites: Sequence[Suite], *, policy: dict[str, Any],
         markdown: Any = None, summary: str = "") -> None:
    """Write what the flags ask for: annotations on stdout (with `--format github`, plus
    the Markdown from `markdown()` appended to `$GITHUB_STEP_SUMMARY`), `--junit` and
    `--vsa` files; `summary` (human, one line) goes to stderr when stdout is taken."""
    import os
    import sys

    from sealscope.core.version import __version__

    if github(args):
        sys.stdout.write(github_commands(suites))
        sys.stdout.flush()
        target = os.environ.get("GITHUB_STEP_SUMMARY")
        if target and markdown is not None:
            with open(target, "a", encoding="utf-8") as fh:
                fh.write(step_summary(markdown()))
        if summary:
            sys.stderr.write(summary.rstrip("\n") + "\n")
    if getattr(args, "junit", None):
        with open(args.junit, "wb") as fh:
            fh.write(junit_xml(suites))
    if getattr(args, "vsa", None):
        doc = vsa_statement(suites, version=__version__, policy=policy)
        with open(args.vsa, "w", encoding="utf-8") as fh:
            fh.write(json.dumps(doc, indent=2, ensure_ascii=True) + "\n")
