"""`sealscope export`: the audit report of one evidence file, as Markdown or JSON.

export PATH [--format md|json|github] [--output FILE] [--as ledger|snapshot]
            [--pin PIN] [--witness STORE --ns NS] [--pre F] [--post F] [--line N]
            [--restated F [--loose] [--tiers F]] [--against OLD.json]
            [--artefacts DIR] [--junit FILE] [--vsa FILE]
export DIR [--format md|json] [--output FILE] [--follow-links]

PATH is a JSONL ledger, a continuity snapshot or a harn transcript / run record, as
`core.kinds.classify` decides; `--as` overrides it. Any other kind `sealscope check`
knows (`core.kinds.identify`: a receipt file, a distill or portable receipt, a stored
continuity verdict, an evidence pack folder or zip, an audit bundle, an AAT export, a
call record) gets its kind report (`core.export.build_kind_report`): the check's own
verdict, exit code and bound, its checks in order, a unit's ledger audit and members,
bound to the file's (a zip's) digest or each member's. A `.json` file that is none of them
(a restatement, tiers, a manifest) is one error line naming what it looked for, exit 3.
A file to write (`--output`, `--junit`, `--vsa`) in a folder that does not exist is
refused before anything is read, exit 2: export creates no folders.

A folder (DIR, none of those kinds itself) gets the report of what `sealscope fleet
DIR` audits (`core.export.build_folder_report`): walked and judged by the fleet's own
walker and runner, a section per evidence entry in the fleet's order, the paths that
are not evidence listed with why, the fleet's verdict and exit code; a link out of DIR
is read only with `--follow-links` (given for anything but such a folder: exit 2).

* ledger: the chain verdict (as `verify --json`), every break, every compaction
  receipt's status (as `receipts --json`). The checks the viewer runs in a ledger tab,
  as flags: `--pin` (its text or a file holding it) and `--witness STORE --ns NS` (as
  `verify`), `--pre`/`--post` held content recomputing a receipt (the row on `--line N`,
  the only receipt row, or those whose claimed digests the content matches, as
  `receipts`) — each a section of the report, built by the same core calls as the
  viewer's, so a CLI run's report equals the viewer's for the same checks. The
  ledger's other row checks (`continuity_verify` rows, artefact bindings, call and
  distill rows) are `check`'s and enter its verdict (`verdict.ledger`); `--artefacts
  DIR` holds artefacts for its bindings, as `check --artefacts` does.
* snapshot: its validation (as `snapshot --json`); `--restated` scores a
  restatement against it (as `continuity --json`, `--loose`/`--tiers` as there);
  `--against OLD.json` diffs OLD → PATH (as `diff --json`, with `--tiers`).

The report goes to stdout, or to `--output FILE` (never over PATH or any input).
`--format github` puts the report's checks on stdout as workflow-command annotations
and the Markdown report in `$GITHUB_STEP_SUMMARY`; `--junit`/`--vsa` also write the
report's checks as JUnit XML / a verification summary (`sealscope.ci_formats`).

Verdict and exit code: `core.export.judged`, as the viewer tab's with the same checks —
the file's own outcome (a ledger: the `verify` verb's, BROKEN 1 when a receipt row
fails on its own — a receipt checked without held content is counted, not judged; a
snapshot: the `snapshot` verb's), then each check's (`continuity`'s for `--restated`,
`diff`'s for `--against`): the code is the worst (1 over 3 over 0), the word the
file's own or the first check's with that code. A PATH that cannot be read is one
error line, exit 3; bad flags (e.g. `--restated` on a ledger) exit 2. Never a
traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any

from sealscope import ci_formats, export_session, out_paths
from sealscope.ci_suites import add_session
from sealscope.cmd_receipts import positive_line
from sealscope.core import bound_reads as _bound
from sealscope.core import verdict
from sealscope.core.sanitize import clean as _clean
from sealscope.export_session import Refused
from sealscope.output import error_line


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "export",
        help="write the audit report of a ledger, a snapshot, a "
        "harn transcript or any kind `check` knows",
    )
    p.add_argument(
        "path",
        metavar="PATH",
        help="a ledger (JSONL), a snapshot or a harn transcript (JSON), or any "
        "kind `sealscope check` knows (a receipt, a pack, a bundle, ...); or a "
        "folder: the report of what `sealscope fleet DIR` audits",
    )
    p.add_argument(
        "--format",
        choices=("md", "json", "github"),
        default="md",
        help="Markdown (default), one JSON document, or github (the checks as "
        "workflow-command annotations, the Markdown report appended to "
        "$GITHUB_STEP_SUMMARY)",
    )
    p.add_argument("--output", "-o", metavar="FILE", help="write the report here, not stdout")
    p.add_argument(
        "--as",
        dest="kind",
        choices=("ledger", "snapshot", "harn"),
        help="read PATH as this kind instead of detecting it",
    )
    p.add_argument(
        "--pin",
        metavar="PIN",
        help="ledger only: also check a head pin (its text, or a file holding it)",
    )
    p.add_argument(
        "--witness",
        metavar="STORE",
        help="ledger only: also check against a witness store (with --ns)",
    )
    p.add_argument("--ns", metavar="NAMESPACE", help="the witness namespace (with --witness)")
    p.add_argument(
        "--pre",
        metavar="FILE",
        help="ledger only: held pre-compaction content; recomputes a receipt",
    )
    p.add_argument(
        "--post", metavar="FILE", help="ledger only: held post-compaction (survivor) content"
    )
    p.add_argument(
        "--line",
        type=positive_line,
        metavar="N",
        help="with --pre/--post: the receipt row on this 1-based line",
    )
    p.add_argument(
        "--lookup",
        metavar="HELD",
        nargs="+",
        action="extend",
        default=[],
        help="ledger only: look each held-content file's items up in the drop "
        "manifests (one section per file, as the viewer's `l`)",
    )
    p.add_argument(
        "--lookup-text",
        metavar="TEXT",
        action="append",
        default=[],
        help="ledger only: look typed text up (as the viewer's `l`): the exact "
        "item, the held items containing it (from --lookup and --pre/--post) "
        "and the manifest digests containing it (repeatable)",
    )
    p.add_argument(
        "--restated",
        metavar="FILE",
        help="snapshot only: score this restatement {probe_id: answer}",
    )
    p.add_argument(
        "--loose",
        action="store_true",
        help="with --restated: containment scoring (faithful is never judged)",
    )
    p.add_argument(
        "--tiers",
        metavar="FILE",
        help="with --restated/--against: severity tiers {tier: [field, ...]}",
    )
    p.add_argument(
        "--against", metavar="OLD", help="snapshot only: diff the older seal OLD against PATH"
    )
    p.add_argument(
        "--added",
        metavar="MANIFEST",
        help="snapshot only: the ids a newer manifest (or seal) adds since the "
        "seal (as the viewer's `a`)",
    )
    p.add_argument(
        "--artefacts",
        metavar="DIR",
        help="a flat folder of held artefacts: a ledger's artefact bindings are "
        "checked against it, as `check --artefacts` checks them",
    )
    p.add_argument(
        "--follow-links",
        action="store_true",
        help="a folder only: read symlinks that point out of it (default: listed as "
        f"not followed, {verdict.COULD_NOT_LOOK}, as `sealscope fleet`)",
    )
    ci_formats.add_arguments(p, format_flag=False)
    p.set_defaults(func=run)


def _fail(message: str, code: int) -> int:
    error_line(_clean(message))
    return code


def run(args: argparse.Namespace) -> int:
    try:
        return _run(args)
    except (KeyboardInterrupt, BrokenPipeError):
        raise
    except Exception as e:  # noqa: BLE001 - never a traceback
        return _fail(f"export: internal error: {type(e).__name__}: {e}", verdict.COULD_NOT)


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


# The kinds of file each check's flag applies to; given for a file read as another
# kind, the flag is refused (`_refuse_misplaced`). Held content recomputes a receipt
# row of a ledger or a stand-alone receipt file.
_FLAG_KINDS: dict[str, tuple[str, ...]] = {
    **dict.fromkeys(("pin", "witness", "ns", "lookup", "lookup_text"), ("ledger",)),
    **dict.fromkeys(("pre", "post", "line"), ("ledger", "receipt")),
    **dict.fromkeys(("restated", "loose", "tiers", "against", "added"), ("snapshot",)),
}


def _flag(attr: str) -> str:
    return f"--{attr.replace('_', '-')}"


def _refuse_misplaced(args: argparse.Namespace, kind: str, what: str, insist: bool) -> None:
    """The one rule for the checks' flags, on every path export takes: each applies
    to the kinds `_FLAG_KINDS` names; any given for a file read as `kind` (`what` says
    how the file reads) stops export with exit 2, naming them."""
    wrong = [f for f, ks in _FLAG_KINDS.items() if getattr(args, f, None) and kind not in ks]
    if not wrong:
        return
    kinds_ = sorted({k for f in wrong for k in _FLAG_KINDS[f] if k in _OPENS})
    hint = f" (use --as {kinds_[0]} to insist)" if insist and len(kinds_) == 1 else ""
    named = sorted({k for f in wrong for k in _FLAG_KINDS[f]})
    raise Refused(
        f"export: {', '.join(map(_flag, wrong))} {'applies' if len(wrong) == 1 else 'apply'} "
        f"to a {' or a '.join(named)}, "
        f"and {args.path} {what}{hint}",
        verdict.USAGE,
    )


_OPENS = ("ledger", "snapshot", "harn")  # the kinds `--as` can insist on


def _refuse_github_output(args: argparse.Namespace) -> None:
    """`--format github` has its own outputs; `--output` is for md and json."""
    if args.format == "github" and args.output:
        raise Refused(
            "export: --format github writes annotations to stdout and the "
            "Markdown report to $GITHUB_STEP_SUMMARY; --output takes md or json",
            verdict.USAGE,
        )


def _refuse_targets(
    args: argparse.Namespace, inputs: list[str], unit: str | None, what: str = "folder"
) -> None:
    """The one rule for where export writes (`--output`, `--junit`, `--vsa`): never
    over an input, never inside the folder it audits (`unit`, named as `what`: a
    folder of evidence, or a unit), and only into a folder that exists (export
    creates none). Exit 2 otherwise."""
    from sealscope.core import export

    inside = os.path.abspath(unit) if unit is not None else None
    for target in (args.output, args.junit, args.vsa):
        if not target:
            continue
        if any(_same(target, x) for x in inputs):
            raise Refused(f"export: refusing to write over an input: {target}", verdict.USAGE)
        if inside is not None and os.path.commonpath([inside, os.path.abspath(target)]) == inside:
            raise Refused(
                f"export: refusing to write the report into the {what} it audits: {target}",
                verdict.USAGE,
            )
        missing = export.missing_folder(target)
        if missing is not None:
            raise Refused(
                f"export: cannot write {target}: {missing} (export creates no folders)",
                verdict.USAGE,
            )


def _folder(args: argparse.Namespace) -> int:
    """`export DIR`: the report of what `sealscope fleet DIR` audits, a section per
    evidence entry, each bound to its bytes (`core.export.build_folder_report`; links
    out of the folder read only with `--follow-links`); the checks' flags and the CI
    formats are for one file (`sealscope fleet DIR` writes the CI formats of a folder)."""
    from sealscope.core import export

    one_file = [
        f
        for f, v in (
            ("--pin", args.pin),
            ("--witness", args.witness),
            ("--pre", args.pre),
            ("--post", args.post),
            ("--line", args.line),
            ("--lookup", args.lookup),
            ("--lookup-text", args.lookup_text),
            ("--restated", args.restated),
            ("--against", args.against),
            ("--added", args.added),
            ("--tiers", args.tiers),
            ("--artefacts", args.artefacts),  # the fleet's walk holds no artefacts
            ("--as", args.kind),
            ("--junit", args.junit),
            ("--vsa", args.vsa),
        )
        if v
    ]
    if one_file or args.format == "github":
        flags = ", ".join(one_file or ["--format github"])
        return _fail(
            f"export: {args.path} is a folder: {flags} apply to one file "
            f"(`sealscope fleet {args.path}` writes the CI formats of a folder)",
            verdict.USAGE,
        )
    try:
        _refuse_targets(args, [], args.path)
    except Refused as e:
        return _fail(str(e), e.code)
    try:
        report = export.build_folder_report(args.path, follow_links=args.follow_links)
    except OSError as e:
        return _fail(f"export: cannot list {args.path}: {e.strerror or e}", verdict.COULD_NOT)
    return _write(
        args,
        report.to_json() + "\n" if args.format == "json" else report.to_markdown(),
        report.verdict,
        report.exit_code,
    )


def _run_outcome(word: str, code: int) -> tuple[str, int]:
    """The run's word and exit code once the CI formats were written: the report's,
    unless a format could not be (a VSA with no subject: 3), which makes the run's word
    worse with it, so the line saying what was written never says VERIFIED beside an
    exit of 3."""
    if verdict.code_of(word) == code:
        return word, code
    by_code = verdict.BROKEN if code == verdict.WRONG else verdict.COULD_NOT_LOOK
    return verdict.worst_word([word, by_code]), code


def _write(args: argparse.Namespace, text: str, word: str, code: int) -> int:
    """The report to `--output FILE` (saying so on stderr) or stdout; the exit code."""
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as e:
            return _fail(
                f"export: cannot write {args.output}: {e.strerror or e}", verdict.COULD_NOT
            )
        sys.stderr.write(f"sealscope: wrote {_clean(args.output)} ({word}, exit {code})\n")
    else:
        out = sys.stdout.buffer
        out.write(text.encode("utf-8", "backslashreplace"))
        out.flush()
    return code


def _run(args: argparse.Namespace) -> int:
    if out_paths.refused(args, "export", out_paths.inputs_of(args)):
        return verdict.USAGE
    checked = None if args.kind else _checked_kind(args.path)
    folder = checked is None and not args.kind and os.path.isdir(args.path)
    if args.follow_links and not folder:
        return _fail(
            f"export: --follow-links applies to a folder of evidence, and {args.path} is not one",
            verdict.USAGE,
        )
    if checked is not None:
        return _kind_export(args, checked)
    if folder:
        return _folder(args)
    try:
        kind = _kind(args)
        seal, session = (
            export_session.seal_session(args)
            if kind == "snapshot"
            else (None, export_session.ledger_session(args) if kind == "ledger" else [])
        )
    except Refused as e:
        code = _fail(str(e), e.code)
        if e.code == 2 or not (args.format == "github" or args.junit or args.vsa):
            return code
        args.ci_format = args.format  # the file could not be read: say so in the formats
        suites = [ci_formats.unreadable_suite(args.path, str(e))]
        return ci_formats.emit(
            args,
            suites,
            code=code,
            policy={"verb": "export"},
            summary=f"{suites[0].verdict}  {_clean(args.path)}",
            markdown=lambda: ci_formats.markdown_table(suites, "sealscope export"),
        )
    from sealscope.core import export
    from sealscope.output import progress_callback

    with _bound.recording() if args.vsa else contextlib.nullcontext() as reads:
        report = export.build_report(
            args.path,
            kind=kind,
            session=session,
            seal=seal,
            on_progress=progress_callback(f"export {args.path}"),
            artefacts=args.artefacts,
        )
    code = report.exit_code
    if args.format == "github" or args.junit or args.vsa:
        args.ci_format = args.format
        code = ci_formats.emit(
            args,
            [_bound_suite(ci_formats.report_suite(report), reads)],
            code=code,
            policy={
                "verb": "export",
                "kind": kind,
                "restated": bool(args.restated),
                "loose": args.loose,
                "against": bool(args.against),
            },
            summary=f"{report.verdict}  {_clean(args.path)}",
            markdown=report.to_markdown,
        )
        if args.format == "github":
            return code
    from sealscope.output import safe_json

    text = safe_json(report.to_json()) + "\n" if args.format == "json" else report.to_markdown()
    return _write(args, text, *_run_outcome(report.verdict, code))


def _bound_suite(suite: Any, reads: Any) -> Any:
    """`suite` naming the file by the digest of the bytes its report read, when they
    were recorded (`bound_reads`; --vsa): none when its reads disagree."""
    if reads is not None and reads.read(suite.path):
        digest = reads.digest_of(suite.path)
        suite.subjects = [(suite.path, digest)] if digest else []
    return suite


def _checked_kind(path: str) -> str | None:
    """PATH's evidence kind (`kinds.identify`) when it is one the kind report covers
    (a receipt, a pack, a bundle, ...: `registry.reported_alone`), or the name of a
    profile a path of no §1 kind has (KINDS-3.md §15.2), else None."""
    from sealscope.core import kinds, registry
    from sealscope.core.profiles.detect import detect

    found = kinds.identify(path)
    if found.kind is None:  # a document or folder with a profile (KINDS-3.md §15.2)
        return detect(found).name
    return found.kind if registry.reported_alone(found.kind) else None


def _kind_export(args: argparse.Namespace, kind: str) -> int:
    """`export PATH` of a kind `check` knows beyond ledger, snapshot and harn: the
    report of its `KindCheck` (`core.export.build_kind_report`), whose word and exit
    code are the check's; `--format github`/`--junit`/`--vsa` get its check suite, a
    case per check of the kind. The ledger and snapshot flags do not apply (exit 2);
    nothing is written over PATH or inside a unit folder."""
    from sealscope.core import checks, export

    try:
        _refuse_misplaced(args, kind, f"is {kind} evidence", insist=False)
        _refuse_github_output(args)
        unit = args.path if os.path.isdir(args.path) else None
        _refuse_targets(args, [args.path], unit, "unit")
    except Refused as e:
        return _fail(str(e), e.code)
    try:
        session = export_session.receipt_session(args) if kind == "receipt" else []
    except Refused as e:
        return _fail(str(e), e.code)
    result = checks.run([args.path], checks.CheckContext(artefacts=args.artefacts))[0]
    report = export.build_kind_report(args.path, result, session=session)
    code = report.exit_code
    if args.format == "github" or args.junit or args.vsa:
        args.ci_format = args.format
        code = ci_formats.emit(
            args,
            [_suite(result, report)],
            code=code,
            policy={"verb": "export", "kind": kind},
            summary=f"{report.verdict}  {_clean(args.path)}",
            markdown=report.to_markdown,
        )
        if args.format == "github":
            return code
    from sealscope.output import safe_json

    text = safe_json(report.to_json()) + "\n" if args.format == "json" else report.to_markdown()
    return _write(args, text, *_run_outcome(report.verdict, code))


def _suite(result: Any, report: Any) -> Any:
    """`ci_formats.check_suite` of the result, and for an evidence pack a case per
    check of its ten (each judged by its own word)."""
    from sealscope.core import kinds

    suite = ci_formats.check_suite(result)
    add_session(suite, report.session)
    if result.kind != kinds.EVIDENCE_PACK:
        return suite
    outcome = {verdict.HELD: ci_formats.PASSED, verdict.WRONG: ci_formats.FAILED}
    for c in report.checks:
        word = str(c.get("verdict"))
        note = c.get("note") or c.get("reason") or c.get("finding") or ""
        suite.cases.append(
            ci_formats.Case(
                f"pack {_clean(str(c.get('check')))}",
                outcome.get(verdict.code_of(word), ci_formats.BOUNDED),
                _clean(f"{word}: {note}" if note else word),
            )
        )
        if verdict.code_of(word) == verdict.WRONG:
            suite.marks.append(
                ci_formats.Mark(
                    "error",
                    f"pack {_clean(str(c.get('check')))} broken",
                    _clean(f"{c.get('check')}: {note or word}"),
                )
            )
    return suite


def _kind(args: argparse.Namespace) -> str:
    """What PATH is read as, after every check of the flags (`Refused` otherwise)."""
    from sealscope.core import kinds

    path = args.path
    found = kinds.classify(path)
    if found.kind in (kinds.UNREADABLE, kinds.FOLDER):
        raise Refused(f"export: {found.reason}", verdict.COULD_NOT)
    _refuse_github_output(args)
    if args.loose and not args.restated:
        raise Refused("export: --loose goes with --restated FILE", verdict.USAGE)
    if args.tiers and not (args.restated or args.against):
        raise Refused("export: --tiers goes with --restated or --against", verdict.USAGE)
    if bool(args.witness) != bool(args.ns):
        raise Refused("export: --witness STORE and --ns NAMESPACE go together", verdict.USAGE)
    if args.line is not None and not (args.pre or args.post):
        raise Refused("export: --line N goes with --pre or --post", verdict.USAGE)
    if args.pre == "-" and args.post == "-":
        raise Refused("export: standard input can feed --pre or --post, not both", verdict.USAGE)
    if "-" in args.lookup and (args.pre == "-" or args.post == "-" or args.lookup.count("-") > 1):
        raise Refused("export: standard input can be read only once", verdict.USAGE)
    inputs = [
        x
        for x in (
            path,
            args.restated,
            args.tiers,
            args.against,
            args.witness,
            args.pre,
            args.post,
            args.added,
            *args.lookup,
        )
        if x and x != "-"
    ]
    _refuse_targets(args, inputs, None)
    if not args.kind and not found.opens:
        raise Refused(
            f"export: {found.reason}; use --as ledger|snapshot|harn to insist", verdict.COULD_NOT
        )
    evidence = kinds.identify(path)
    if evidence.kind is None and not args.kind:  # of no kind to `check`: no report of one
        raise Refused(f"export: {evidence.reason}", verdict.COULD_NOT)
    kind: str = args.kind or found.kind
    _refuse_misplaced(args, kind, f"reads as a {kind}", insist=True)
    return kind
