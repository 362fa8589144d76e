"""`sealscope harn TRANSCRIPT [--json]` and `sealscope harn seal TRANSCRIPT --ledger OUT [--json]`.

`harn TRANSCRIPT` reads a harn transcript or run record and reports every compaction
event: its receipt fields, the path it was read by (receipt/legacy) and the findings of
the cross-checks. Exit 1 when any finding is high, 0 otherwise, 3 when the file cannot
be read as a transcript or run record (with --json still one document:
`{"error": ..., "kind": ..., "path": ...}`).

`harn seal TRANSCRIPT --ledger OUT` appends an arcaeon v2 compaction receipt for every
compaction whose snapshot and following messages the file holds. Exit 0 when every
compaction event was sealed, 3 when any could not be (or the file or the ledger could
not be read/written). A file literally named `seal` is reached as `./seal`.
"""

from __future__ import annotations

import argparse
from typing import Any

from sealscope import ci_formats, out_paths
from sealscope.core import bound_reads as _bound
from sealscope.core import verdict
from sealscope.output import emit_json, error_line, paint, paint_verdict
from sealscope.style import severity_colour


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "harn",
        help="show, cross-check and seal the compaction receipts of a harn transcript",
        usage="sealscope harn [-h] [--json] [--format {text,json,github}] [--junit FILE] "
        "[--vsa FILE] TRANSCRIPT\n       " + SEAL_USAGE,
        description="Show every compaction event of a harn transcript or run record and "
        "cross-check its receipt fields; `sealscope harn seal` (its own "
        "sub-command: `sealscope harn seal --help`) seals them into a ledger.",
    )
    p.add_argument(
        "words",
        nargs="+",
        metavar="TRANSCRIPT",
        help="a harn transcript or run record (.harn-runs/<run_id>.json); "
        "`seal TRANSCRIPT` to seal its compactions",
    )
    p.add_argument("--ledger", metavar="OUT.jsonl", help="the ledger `seal` appends to")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    ci_formats.add_arguments(p)
    p.set_defaults(func=run, _harn_parser=p)


SEAL_USAGE = "sealscope harn seal [-h] --ledger OUT.jsonl [--again] [--json] TRANSCRIPT"


def seal_parser(parser_class: type[argparse.ArgumentParser]) -> argparse.ArgumentParser:
    """`sealscope harn seal`, a sub-command of its own (main.py routes `harn seal ...`
    here): one TRANSCRIPT, `--ledger` required, `--again` to seal what the ledger
    already holds a second time."""
    p = parser_class(
        prog="sealscope harn seal",
        usage=SEAL_USAGE,
        description="Append an arcaeon v2 compaction receipt to OUT.jsonl for every "
        "compaction of TRANSCRIPT whose snapshot and following messages it "
        "holds. A transcript the ledger already holds receipts for is refused "
        "(exit 2, `already sealed in OUT.jsonl: ...`) unless --again.",
        epilog="exit codes: 0 every compaction sealed; 1 is not used (sealing judges no "
        "evidence); 2 usage, or already sealed; 3 a compaction could not be sealed, "
        "or a file could not be read or written",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    p.add_argument(
        "transcript",
        metavar="TRANSCRIPT",
        help="a harn transcript or run record (.harn-runs/<run_id>.json)",
    )
    p.add_argument(
        "--ledger",
        metavar="OUT.jsonl",
        required=True,
        help="the ledger the receipts are appended to (created if missing)",
    )
    p.add_argument(
        "--again",
        action="store_true",
        help="seal compactions the ledger already holds receipts for, again",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document")
    for flag in ("--format", "--junit", "--vsa"):  # refused below, with what to run instead
        p.add_argument(flag, dest=flag[2:], help=argparse.SUPPRESS)
    return p


def run_seal(argv: list[str], parser_class: type[argparse.ArgumentParser]) -> int:
    """`sealscope harn seal ARGV...`."""
    parser = seal_parser(parser_class)
    args = parser.parse_args(argv)
    if args.format == "github" or args.junit or args.vsa:
        parser.error(_AUDIT_FORMATS)
    return _seal(args.transcript, args.ledger, args.json or args.format == "json", again=args.again)


_AUDIT_FORMATS = (
    "--format github, --junit and --vsa report an audit, and `harn seal` "
    "writes one: audit the sealed ledger with `sealscope receipts "
    "OUT.jsonl` or `sealscope verify OUT.jsonl` and those flags"
)


def run(args: argparse.Namespace) -> int:
    parser = args._harn_parser
    words = list(args.words)
    if words[0] == "seal" and len(words) == 2:
        if not args.ledger:
            parser.error("harn seal needs --ledger OUT.jsonl")
        if args.ci_format == "github" or args.junit or args.vsa:
            parser.error(
                "--format github, --junit and --vsa report an audit, and `harn seal` "
                "writes one: audit the sealed ledger with `sealscope receipts "
                "OUT.jsonl` or `sealscope verify OUT.jsonl` and those flags"
            )
        return _seal(words[1], args.ledger, args.json or args.ci_format == "json")
    if len(words) != 1:
        parser.error("expected one TRANSCRIPT, or `seal TRANSCRIPT --ledger OUT.jsonl`")
    if args.ledger:
        parser.error("--ledger goes with `harn seal TRANSCRIPT`")
    if out_paths.refused(args, "harn", words):
        return verdict.USAGE
    return _show(words[0], args)


def _load(path: str, as_json: bool) -> tuple[Any, str | None]:
    """The harn document, or (None, why) after the error line (or JSON error document)."""
    from sealscope.core import harn
    from sealscope.core.sanitize import clean

    try:
        return harn.load(path), None
    except harn.HarnError as e:
        if as_json:
            emit_json({"error": e.message, "kind": e.kind, "path": path})
        else:
            error_line(clean(e.message))
        return None, e.message


# --------------------------------------------------------------------------- show


def _show(path: str, args: argparse.Namespace) -> int:
    from sealscope.core import harn

    github = ci_formats.github(args)
    as_json = (args.json or args.ci_format == "json") and not github
    with _bound.recording() as reads:  # a --vsa names the file by the bytes read here
        doc, error = _load(path, as_json)
    if doc is None:
        return _formats(
            args,
            ci_formats.harn_suite(path, (), error),
            verdict.harn(None, readable=False).exit_code,
            path,
        )
    checks = harn.check_document(doc)
    suite = ci_formats.harn_suite(path, checks)
    suite.subjects = [(path, d)] if (d := reads.digest_of(path)) else []
    code = _formats(args, suite, harn.outcome_of(checks).exit_code, path)
    if github:
        return code
    if as_json:
        emit_json([c.to_dict() for c in checks])
        return code
    print(_report(path, doc, checks))
    return code


def _formats(args: argparse.Namespace, suite: ci_formats.Suite, code: int, path: str) -> int:
    """The CI formats of one harn file (`--format github`, `--junit`, `--vsa`)."""
    from sealscope.core.sanitize import clean

    def markdown() -> str:
        from sealscope.core.export import build_report

        return build_report(path, kind="harn").to_markdown()

    return ci_formats.emit(
        args,
        [suite],
        code=code,
        policy={"verb": "harn"},
        summary=f"{suite.verdict}  {clean(path)}  {verdict.plural(len(suite.cases), 'compaction')}",
        markdown=markdown,
    )


def _count(findings) -> dict[str, int]:
    out = {s: 0 for s in ("high", "medium", "low", "info")}
    for f in findings:
        out[f.severity] = out.get(f.severity, 0) + 1
    return out


def _tokens(before: int, after: int) -> str:
    if before:
        pct = round((after - before) * 100 / before)
        return f"{before}→{after} ({pct:+d}%)"
    return f"{before}→{after}"


def _report(path: str, doc, checks) -> str:
    from sealscope.core import harn
    from sealscope.core.sanitize import clean

    all_findings = [f for c in checks for f in c.findings]
    n = _count(all_findings)
    what = "run record" if doc.kind == "run" else "transcript"
    word = paint_verdict(harn.outcome_of(checks).verdict)
    counts = (
        f"{verdict.plural(len(doc.transcripts), 'transcript')}, "
        f"{verdict.plural(len(checks), 'compaction')}"
    )
    lines = [
        (
            f"{word}  {clean(path)}  {what}, {counts}; findings: {n['high']} high, "
            f"{n['medium']} medium, {n['low']} low, {n['info']} info"
        )
    ]
    last_loc = None
    for i, c in enumerate(checks, 1):
        ev = c.event
        if doc.kind == "run" and ev.location != last_loc:
            stage = f" (stage {clean(c.transcript.stage_id)})" if c.transcript.stage_id else ""
            lines.append(f"{paint(clean(ev.location), 'bold')}{stage}")
            last_loc = ev.location
        schema = f"receipt v{ev.schema_version}" if ev.path == "receipt" else "legacy v0"
        strat = clean(ev.engine_strategy or ev.strategy or "?")
        if ev.engine_strategy and ev.strategy and ev.strategy != ev.engine_strategy:
            strat += f" (policy {clean(ev.strategy)})"
        lines.append(
            f"  #{i} {clean(ev.id or '(no id)')}  {schema}  "
            f"{clean(ev.mode or '?')}/{clean(ev.reason or '?')}  {strat}"
        )
        detail = [
            f"archived {ev.archived_messages}",
            f"tokens {_tokens(ev.estimated_tokens_before, ev.estimated_tokens_after)}",
        ]
        if c.inference is not None:
            detail.append(
                f"content shows {c.inference.archived} gone, "
                f"{c.inference.prefix + c.inference.kept} kept"
            )
        lines.append("     " + ", ".join(detail))
        sm = ev.source_measurement
        if sm is not None:

            def v(x):
                return "not measured" if x is None else str(x)

            lines.append(
                f"     measured: {v(sm.source_message_count)} messages, "
                f"{v(sm.source_bytes)} source bytes, {v(sm.summary_bytes)} summary "
                f"bytes, {v(sm.carried_source_bytes)} carried"
            )
        if ev.recap is not None:
            r = ev.recap
            lines.append(
                f"     recap: {r.recap_bytes}/{r.budget_bytes} bytes, "
                f"{r.kept_results_count} results kept, {r.dropped_count} dropped"
                + (", carried prior recap" if r.carried_prior_recap else "")
            )
        if c.snapshot is not None:
            snap = f"{clean(c.snapshot.asset_id)} at {clean(c.snapshot.location)}, " + (
                "no messages"
                if c.snapshot.messages is None
                else f"{len(c.snapshot.messages)} messages"
            )
        else:
            snap = (
                "none" if not ev.snapshot_asset_id else f"{clean(ev.snapshot_asset_id)} (not found)"
            )
        follow = ""
        if c.following is not None:
            src = (
                "current messages"
                if c.following.source == "current"
                else f"next snapshot {clean(c.following.asset_id or '')}"
            )
            follow = f"; followed by {len(c.following.messages)} messages ({src})"
        lines.append(f"     snapshot: {snap}{follow}")
        for f in c.findings:
            tag = paint(f.severity.upper(), severity_colour(f.severity))
            lines.append(f"     {tag} {f.code}: {clean(f.message)}")
    if not checks:
        lines.append("  no compaction events")
    return "\n".join(lines)


# --------------------------------------------------------------------------- seal


def _seal(path: str, ledger: str, as_json: bool, *, again: bool = False) -> int:
    from sealscope.core import harn
    from sealscope.core.harn.sealing import already_sealed
    from sealscope.core.sanitize import clean

    if out_paths.refused(None, "harn seal", [path], extra=[("--ledger", ledger)]):
        return verdict.USAGE
    doc, _error = _load(path, as_json)
    if doc is None:
        return verdict.harn(None, readable=False).exit_code
    if not again:
        try:
            held = already_sealed(doc, ledger)
        except OSError:
            held = []  # a ledger that cannot be read cannot be written: sealing says so
        if held:
            message = (
                f"already sealed in {ledger}: {', '.join(held)} "
                "(--again appends the same receipts a second time)"
            )
            error_line(clean(message))
            if as_json:
                emit_json({"error": message, "ledger": ledger, "already_sealed": held})
            return verdict.USAGE
    out = harn.seal(doc, ledger)
    error = out.error
    judged = verdict.harn_seal(len(out.rows), len(out.skipped), error)
    code = judged.exit_code
    if as_json:
        doc_out: dict[str, Any] = {
            "ledger": ledger,
            "sealed": [_sealed_dict(p, r) for p, r in out.sealed],
            "skipped": [
                {
                    "location": p.event.location,
                    "event_id": p.event.event_id,
                    "id": p.event.id,
                    "reason": reason,
                }
                for p, reason in out.skipped
            ],
        }
        if error is not None:
            doc_out["error"] = error
        emit_json(doc_out)
        return code
    if error is not None:
        error_line(clean(error))
    rows = out.rows
    print(
        f"{paint_verdict(judged.verdict)}  {clean(path)} → {clean(ledger)}  "
        f"{verdict.plural(len(rows), 'receipt')} sealed, {len(out.skipped)} skipped"
    )
    for p, r in out.sealed:
        print(
            f"  {clean(p.event.id or '(no id)')}  pre {r['pre']['count']} → post "
            f"{r['post']['count']}  dropped {r['dropped']['count']}  introduced "
            f"{r['introduced']['count']}  chain {r['chain']}"
        )
    for p, reason in out.skipped:
        print(f"  {clean(p.event.id or '(no id)')}  skipped: {clean(reason)}")
    return code


def _sealed_dict(plan, row: dict) -> dict:
    return {
        "location": plan.event.location,
        "event_id": plan.event.event_id,
        "id": plan.event.id,
        "compactor": row["compactor"],
        "method": row["method"],
        "pre": row["pre"],
        "post": row["post"],
        "dropped": {"count": row["dropped"]["count"], "bytes": row["dropped"]["bytes"]},
        "introduced": row["introduced"],
        "receipt_digest": row["receipt_digest"],
        "chain": row["chain"],
    }
