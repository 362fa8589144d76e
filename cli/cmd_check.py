"""`sealscope check PATH... [--artefacts DIR] [--json]`: every kind's own check.

Each PATH is classified (`core.kinds.identify`, KINDS.md §1) and checked by its kind's
checker in core (`core.checks.run`); this verb only prints core's results. Text: one
line per PATH, `<VERDICT>  <kind>  <path>  <short reason>`, the bound named beside a
VERIFIED that held within one ("VERIFIED · self-consistent, content not checked").
`--json`: one array, one object per PATH in argv order (KINDS.md §12). Exit: the worst
over the PATHs (1 over 3 over 0); 2 for bad flags only. No network, no witness file.
"""

from __future__ import annotations

import argparse
import os
import sys

from sealscope import ci_formats, out_paths
from sealscope.core import verdict
from sealscope.core.checks.result import KindCheck
from sealscope.core.sanitize import clean as _clean
from sealscope.output import emit_json, error_line, paint_verdict

_REASON_WIDTH = 160


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("check", help="run each evidence file's own check, whatever its kind")
    p.add_argument("paths", nargs="+", metavar="PATH")
    p.add_argument(
        "--artefacts",
        metavar="DIR",
        help="a folder of held things: artefacts, ledgers, stored verdicts",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document")
    ci_formats.add_arguments(p)
    p.set_defaults(func=run_check)


def _short(text: str) -> str:
    text = _clean(text)
    return text if len(text) <= _REASON_WIDTH else text[: _REASON_WIDTH - 1] + "…"


def line_of(res: KindCheck) -> str:
    """The text line of one result (every evidence string sanitized)."""
    word = paint_verdict(res.verdict)
    if res.verdict == verdict.VERIFIED and res.bound:
        word += f" · {_clean(res.bound)}"
    kind = res.kind or "-"
    if res.profile:
        kind += f"/{res.profile}"
    reason = _short(res.reason) if res.reason else ""
    return f"{word}  {kind}  {_clean(res.path)}" + (f"  {reason}" if reason else "")


def run_check(args: argparse.Namespace) -> int:
    from sealscope.core import checks
    from sealscope.core.checks.result import CheckContext

    if args.artefacts is not None and not os.path.isdir(args.artefacts):
        error_line(f"check: --artefacts {_clean(args.artefacts)}: not a folder")
        return verdict.USAGE
    if out_paths.refused(args, "check", [*args.paths, args.artefacts]):
        return verdict.USAGE
    ctx = CheckContext(artefacts=args.artefacts, bind_reads=bool(args.vsa))
    results = checks.run(args.paths, ctx)
    suites = [ci_formats.check_suite(r) for r in results]
    lines = [line_of(r) for r in results]
    policy = {"verb": "check", "artefacts": args.artefacts is not None}
    code = ci_formats.emit(
        args,
        suites,
        code=checks.exit_code(results),
        policy=policy,
        summary=lines[0] if len(lines) == 1 else f"{len(lines)} paths checked",
        markdown=lambda: ci_formats.markdown_table(suites, "sealscope check"),
    )
    if ci_formats.github(args):
        return code
    if args.json or args.ci_format == "json":
        emit_json([r.to_dict() for r in results])
    else:
        out = sys.stdout
        for line in lines:
            out.write(line + "\n")
    return code
