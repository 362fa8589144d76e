"""`sealscope case VERB CASE ...`: the working papers of an audit (issue 44).

new CASE [--title T] [--by NAME]          open a case (refuses an existing file)
add CASE PATH... [--artefacts DIR] [--pin PIN] [--pre F --post F [--line N]]
         [--lookup HELD...] [--diff NEW.json] [--restated R.json [--loose]] [--tiers F]
                                          record each path's evidence and its checks
note CASE TEXT [--on PATH[:LINE]] [--finding high|medium|low] [--by NAME]
resolve CASE FINDING_ID [TEXT] [--by NAME]
signoff CASE --by NAME [TEXT]
show CASE                                 the case's own chain first, then its entries
replay CASE [--root DIR]                  re-perform every recorded check
report CASE [--format md|json] [-o FILE]  the working papers, bound to the case's head
repair CASE                               cut a torn last line (says what it cuts first)
open CASE [PATH...]                       the viewer on the case (as `sealscope --case`)

Every decision (the case's word, a check's word, a replay's status, the order of the
report) is core's (`sealscope.core.case`); this module prints it. Every string from the
case or the evidence is sanitized (`sanitize.clean`) before it is printed. `--json`
prints one document (`core.case.report.dumps_output`). Exit codes: 0 held, 1 the
evidence or the case is wrong (or a replayed check changed), 3 could not look (or a
case that refuses an append), 2 usage.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import Any

from sealscope import ci_formats
from sealscope.cmd_receipts import positive_line
from sealscope.core import verdict
from sealscope.core.sanitize import clean
from sealscope.output import error_line, paint_verdict


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("case", help="keep an audit's working papers in a hash-chained case file")
    p.set_defaults(func=_no_verb, _case_parser=p)
    verbs = p.add_subparsers(
        dest="case_verb",
        parser_class=_intermixed(type(p)),
        metavar="VERB",
        help="what to do with the case",
    )

    def verb(name: str, text: str) -> argparse.ArgumentParser:
        from sealscope.help_texts import EXIT_CODES

        v: argparse.ArgumentParser = verbs.add_parser(
            name, help=text, description=text + ".", epilog=f"exit codes: {EXIT_CODES['case']}"
        )
        v.add_argument("case", metavar="CASE", help="the case file (JSONL)")
        v.add_argument("--json", action="store_true", help="print one JSON document")
        return v

    v = verb("new", "open a new case file (refuses an existing file)")
    v.add_argument("--title", metavar="T", help="the audit's title")
    v.add_argument("--by", metavar="NAME", help="who opens it")
    v.set_defaults(func=run_new)

    v = verb("add", "record each path's evidence and its checks, printing what check prints")
    v.add_argument("paths", nargs="+", metavar="PATH", help="an evidence file or folder")
    v.add_argument("--artefacts", metavar="DIR", help="a folder of held things")
    v.add_argument("--pin", metavar="PIN", help="a head pin (text or file) to judge a ledger by")
    v.add_argument("--pre", metavar="FILE", help="held pre-compaction content")
    v.add_argument("--post", metavar="FILE", help="held post-compaction content")
    v.add_argument("--line", type=positive_line, metavar="N", help="only the receipt row on line N")
    v.add_argument(
        "--lookup",
        nargs="+",
        action="extend",
        metavar="HELD",
        help="look held items up in the ledger's drop manifests (as sealscope lookup)",
    )
    v.add_argument(
        "--diff", metavar="NEW", help="diff the seal against a later one (as sealscope diff)"
    )
    v.add_argument(
        "--restated",
        metavar="FILE",
        help="score a restatement against the seal (as sealscope continuity)",
    )
    v.add_argument("--loose", action="store_true", help="with --restated: containment scoring")
    v.add_argument("--tiers", metavar="FILE", help="with --diff/--restated: a tiers file")
    v.set_defaults(func=run_add)

    v = verb("note", "write a note (or with --finding a finding) into the case")
    v.add_argument("text", metavar="TEXT", help="the note's text")
    v.add_argument("--on", metavar="PATH[:LINE]", help="anchor it to an evidence file (a line)")
    v.add_argument("--finding", choices=("high", "medium", "low"), help="record a finding")
    v.add_argument("--by", metavar="NAME", help="who writes it")
    v.set_defaults(func=run_note)

    v = verb("resolve", "resolve an open finding")
    v.add_argument("finding", metavar="FINDING_ID", help="the finding's id (F1, F2, ...)")
    v.add_argument("text", nargs="?", default="", metavar="TEXT", help="how it was resolved")
    v.add_argument("--by", metavar="NAME", help="who resolves it")
    v.set_defaults(func=run_resolve)

    v = verb("signoff", "sign the case off")
    v.add_argument("text", nargs="?", default="", metavar="TEXT", help="the statement")
    v.add_argument("--by", metavar="NAME", required=True, help="who signs off")
    v.set_defaults(func=run_signoff)

    v = verb("show", "verify the case's own chain, then list its entries")
    v.set_defaults(func=run_show)

    v = verb("replay", "re-perform every recorded check on the files it names")
    v.add_argument("--root", metavar="DIR", help="find the evidence under DIR instead")
    ci_formats.add_arguments(v)
    v.set_defaults(func=run_replay)

    v = verb("report", "the working papers: evidence, checks, notes, findings, sign-offs")
    v.add_argument("--format", dest="report_format", choices=("md", "json"), default="md")
    v.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE")
    v.set_defaults(func=run_report)

    v = verb("repair", "cut a torn last line (and only it), saying what it cuts")
    v.set_defaults(func=run_repair)

    v = verb("open", "open the case in the viewer")
    v.add_argument("paths", nargs="*", metavar="PATH", help="more evidence to open and record")
    v.set_defaults(func=run_open)


def _intermixed(base: type[argparse.ArgumentParser]) -> type[argparse.ArgumentParser]:
    """`base` parsing positionals and options in any order (`case signoff CASE --by
    NAME TEXT`): argparse alone gives an optional positional the empty match before
    the option and leaves TEXT over."""

    class Intermixed(base):  # type: ignore[misc,valid-type]
        _mixing = False

        def parse_known_args(self, args=None, namespace=None):
            if self._mixing:  # the intermixed parse calls back in, twice
                return super().parse_known_args(args, namespace)
            self._mixing = True
            try:
                return self.parse_known_intermixed_args(args, namespace)
            finally:
                self._mixing = False

    return Intermixed


def _no_verb(args: argparse.Namespace) -> int:
    args._case_parser.print_help()
    return verdict.USAGE


# --------------------------------------------------------------------------- output


def _emit(doc: Any) -> None:
    """One JSON document on stdout (the case's one strict JSON writer)."""
    from sealscope.core.case.report import dumps_output

    try:
        text = dumps_output(doc, indent=2)
    except ValueError:  # a non-finite number from the evidence: no strict JSON holds it
        why = "the result holds a number JSON cannot carry (NaN or Infinity)"
        error_line(f"case: {why}")
        text = dumps_output({"error": why}, indent=2)
    out = sys.stdout.buffer
    out.write(text.encode("utf-8", "backslashreplace") + b"\n")
    out.flush()


def _fail(args: argparse.Namespace, message: str, code: int = verdict.COULD_NOT) -> int:
    message = clean(message)
    error_line(f"case: {message}")
    if getattr(args, "json", False):
        _emit({"error": message})
    return code


def _line(word: str, what: str, path: str, reason: str = "", bound: str = "") -> str:
    shown = paint_verdict(word) + (f" · {clean(bound)}" if bound else "")
    return f"{shown}  {what}  {clean(path)}" + (f"  {clean(reason)}" if reason else "")


# --------------------------------------------------------------------------- recording


def run_new(args: argparse.Namespace) -> int:
    from sealscope.core.case import record, store

    try:
        chain = record.new_case(args.case, title=args.title, by=args.by)
    except (store.CaseError, UnicodeEncodeError) as e:
        return _fail(args, str(e))
    if args.json:
        _emit({"case": args.case, "chain": chain})
    else:
        print(f"opened the case {clean(args.case)}")
    return verdict.HELD


def run_add(args: argparse.Namespace) -> int:
    from sealscope.core.case import record, store

    one_path = (args.pre, args.post, args.line, args.pin, args.lookup, args.diff, args.restated)
    if any(x is not None for x in one_path) and len(args.paths) != 1:
        return _fail(
            args,
            "--pin/--pre/--post/--line/--lookup/--diff/--restated go with one PATH",
            verdict.USAGE,
        )
    if args.loose and args.restated is None:
        return _fail(args, "--loose goes with --restated", verdict.USAGE)
    if args.tiers is not None and args.diff is None and args.restated is None:
        return _fail(args, "--tiers goes with --diff or --restated", verdict.USAGE)
    if args.artefacts is not None and not os.path.isdir(args.artefacts):
        return _fail(args, f"--artefacts {args.artefacts}: not a folder", verdict.USAGE)
    added = []
    for path in args.paths:
        try:
            added.append(
                record.add(
                    args.case,
                    path,
                    artefacts=args.artefacts,
                    pin=args.pin,
                    pre=args.pre,
                    post=args.post,
                    line=args.line,
                    lookup=args.lookup,
                    diff=args.diff,
                    restated=args.restated,
                    loose=args.loose,
                    tiers=args.tiers,
                )
            )
        except (store.CaseError, UnicodeEncodeError) as e:
            return _fail(args, str(e))
    codes = [d.exit_code for a in added for d in a.checks]
    if args.json:
        _emit(
            [
                {
                    "path": a.path,
                    "sha256": getattr(a.evidence, "sha256", None),
                    "checks": [
                        {
                            "check": d.check,
                            "verdict": d.verdict,
                            "exit_code": d.exit_code,
                            "bound": d.bound or None,
                            "reason": d.reason,
                            "result": d.result,
                        }
                        for d in a.checks
                    ],
                }
                for a in added
            ]
        )
    else:
        for a in added:
            for d in a.checks:
                kind = getattr(a.evidence, "kind", None) or "-"
                what = kind if d.check == "kind" else d.check
                print(_line(d.verdict, what, a.path, d.reason, d.bound))
        print(f"recorded in {clean(args.case)}")
    return verdict.worst(codes)


def _anchor_of(text: str) -> tuple[str, int | None]:
    """PATH[:LINE]: a trailing `:N` is a line unless the whole text names a file."""
    path, sep, tail = text.rpartition(":")
    if sep and tail.isdigit() and not os.path.exists(text):
        return path, int(tail)
    return text, None


def run_note(args: argparse.Namespace) -> int:
    from sealscope.core.case import record, rows, store

    try:
        on = None
        if args.on is not None:
            path, line = _anchor_of(args.on)
            on = record.anchor(path, line=line)
        chain = record.note(args.case, args.text, on=on, finding=args.finding, by=args.by)
    except (store.CaseError, UnicodeEncodeError, ValueError) as e:
        return _fail(args, str(e))
    fid = None
    if args.finding:
        try:
            found = rows.findings_of(list(store.read_case(args.case).entries))
            fid = next((f.id for f in found if f.entry.get("chain") == chain), None)
        except store.CaseError:
            fid = None
    if args.json:
        _emit({"case": args.case, "chain": chain, "finding": fid})
    elif fid:
        print(f"finding {fid} ({args.finding}) recorded in {clean(args.case)}")
    else:
        print(f"note recorded in {clean(args.case)}")
    return verdict.HELD


def run_resolve(args: argparse.Namespace) -> int:
    from sealscope.core.case import record, store

    try:
        chain = record.resolve(args.case, args.finding, args.text, by=args.by)
    except (store.CaseError, UnicodeEncodeError) as e:
        return _fail(args, str(e))
    if args.json:
        _emit({"case": args.case, "chain": chain, "resolved": args.finding})
    else:
        print(f"{clean(args.finding)} resolved in {clean(args.case)}")
    return verdict.HELD


def run_signoff(args: argparse.Namespace) -> int:
    from sealscope.core.case import record, store

    try:
        chain = record.signoff(args.case, args.by, args.text)
    except (store.CaseError, UnicodeEncodeError, ValueError) as e:
        return _fail(args, str(e))
    if args.json:
        _emit({"case": args.case, "chain": chain, "by": args.by})
    else:
        print(f"signed off by {clean(args.by)} in {clean(args.case)}")
    return verdict.HELD


# --------------------------------------------------------------------------- reading


def _read(args: argparse.Namespace) -> Any:
    from sealscope.core.case import store

    try:
        return store.read_case(args.case)
    except store.CaseError as e:
        _fail(args, str(e))
        return None


def run_show(args: argparse.Namespace) -> int:
    from sealscope.case_text import entry_lines
    from sealscope.core.case import report

    read = _read(args)
    if read is None:
        return verdict.COULD_NOT
    doc = report.build(read)
    if args.json:
        _emit({**doc, "entries": [{"line": e.line, **e.row} for e in read.entries]})
        return read.exit_code
    print(_line(read.verdict, "case", read.path, read.reason()))
    for text in entry_lines(read):
        print(text)
    case = doc["case"]
    print(
        f"{verdict.plural(case['entries'], 'entry', 'entries')}, "
        f"{verdict.plural(case['open_findings'], 'open finding')}; "
        f"head rows {read.head_rows} chain {clean(str(read.head_chain))}"
    )
    return read.exit_code


def run_replay(args: argparse.Namespace) -> int:
    from sealscope import case_text
    from sealscope.core.case import replay, store

    if args.root is not None and not os.path.isdir(args.root):
        return _fail(args, f"--root {args.root}: not a folder", verdict.USAGE)
    try:
        rep = replay.replay(args.case, root=args.root)
    except store.CaseError as e:
        return _fail(args, str(e))
    for flag, target in (("--junit", args.junit), ("--vsa", args.vsa)):
        if target is not None and _onto_evidence(target, rep.case, args.root):
            return _fail(args, f"refusing to write {flag} over evidence: {target}", verdict.USAGE)
    lines = case_text.replay_lines(rep)
    summary = (
        f"{rep.verdict}  {clean(args.case)}  "
        f"{verdict.plural(len(rep.items), 'recorded check')} replayed"
    )
    suites = [case_text.replay_suite(rep)]
    code = ci_formats.emit(
        args,
        suites,
        code=rep.exit_code,
        policy={"verb": "case replay", "root": args.root is not None},
        summary=summary,
        markdown=lambda: ci_formats.markdown_table(suites, "sealscope case replay"),
    )
    if ci_formats.github(args):
        return code
    if args.json or args.ci_format == "json":
        _emit(rep.to_dict())
        return code
    print(_line(rep.case.verdict, "case", rep.case.path, rep.case.reason()))
    for line in lines:
        print(line)
    print(summary)
    return code


def _onto_evidence(target: str, read: Any, root: str | None = None) -> bool:
    """Whether writing `target` would land on what the case names: the case itself,
    a recorded evidence file or check input (where a replay with `root` finds it), or
    a place inside a recorded folder."""
    from sealscope.core.case.replay import read_paths

    named = [read.path, *read_paths(list(read.entries), root)]
    into = os.path.realpath(target)
    for p in named:
        if _same(target, p):
            return True
        if os.path.isdir(p):
            folder = os.path.realpath(p)
            if os.path.commonpath([into, folder]) == folder:
                return True
    return False


def _same(a: str, b: str) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:
        return os.path.abspath(a) == os.path.abspath(b)


def run_report(args: argparse.Namespace) -> int:
    from sealscope.core.case import report

    read = _read(args)
    if read is None:
        return verdict.COULD_NOT
    doc = report.build(read)
    as_json = args.json or args.report_format == "json"
    try:
        text = report.dumps_output(doc, indent=2) + "\n" if as_json else report.markdown(doc)
    except ValueError:  # a non-finite number in a row: no strict JSON holds it
        return _fail(args, "the case holds a number JSON cannot carry (NaN or Infinity)")
    if args.output is None:
        sys.stdout.buffer.write(text.encode("utf-8", "backslashreplace"))
        sys.stdout.flush()
        return read.exit_code
    if _onto_evidence(args.output, read):
        return _fail(
            args, f"refusing to write the report over evidence: {args.output}", verdict.USAGE
        )
    try:
        with open(args.output, "w", encoding="utf-8", errors="backslashreplace") as fh:
            fh.write(text)
    except OSError as e:
        return _fail(args, f"cannot write {args.output}: {e.strerror or e}")
    print(
        f"wrote the working papers of {clean(args.case)} to {clean(args.output)}", file=sys.stderr
    )
    return read.exit_code


def run_repair(args: argparse.Namespace) -> int:
    from sealscope.core.case import store

    try:
        torn = store.torn_tail(args.case)
    except store.CaseError as e:
        return _fail(args, str(e))
    if torn is None:
        if args.json:
            _emit({"case": args.case, "cut": None})
        else:
            print(f"nothing to repair: {clean(args.case)} ends with a complete line")
        read = _read(args)
        return verdict.COULD_NOT if read is None else read.exit_code
    preview = torn.preview.decode("utf-8", "replace")
    more = "…" if torn.length > len(torn.preview) else ""
    if not args.json:
        print(
            f"cutting the torn last line of {clean(args.case)}: {torn.length} bytes at offset "
            f"{torn.offset}: {clean(preview)}{more}"
        )
        sys.stdout.flush()
    try:
        store.repair(args.case, torn)
    except store.CaseError as e:
        return _fail(args, str(e))
    read = _read(args)
    if read is None:
        return verdict.COULD_NOT
    if args.json:
        _emit(
            {
                "case": args.case,
                "cut": {"offset": torn.offset, "bytes": torn.length, "preview": preview},
                "verdict": read.verdict,
            }
        )
    else:
        print(_line(read.verdict, "case", read.path, read.reason()))
    return read.exit_code


def run_open(args: argparse.Namespace) -> int:
    """The viewer on the case (as `sealscope --case CASE [PATH...]`)."""
    from sealscope import cmd_view

    if _read(args) is None:
        return verdict.COULD_NOT
    return cmd_view.view(list(args.paths), args.case)
