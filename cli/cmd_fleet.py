"""`sealscope fleet SOURCE... [--glob PAT] [--strict] [--scheduler ADDR]
[--storage-option K=V]... [--incremental] [--artefacts DIR] [--json]`: audit many ledgers,
one line each, worst first.

A source is a directory (walked for `--glob`, default `*.jsonl`), a file, or an fsspec
URL (`s3://bucket/prefix/`, `file://...`). With the default glob a folder's `.json`
and `.zip` files and its evidence-pack / audit-bundle folders are taken too, and the
classifier decides what each is (`core.fleet.audit_path`): a ledger line, one line per
other evidence kind (its word, kind and bound, or why it is not VERIFIED), and the
paths that are not evidence listed after them, never judged. A fleet joins what `check`
joins (`core.fleet.fleet_context`): every stored continuity verdict it finds is held for
the `continuity_verify` rows of its ledgers, and `--artefacts DIR` is check's folder of
held artefacts and verdicts (a missing folder: exit 2). `--json` streams one JSON
object per entry per line as results arrive, then `{"summary": {...}}`. Exit code: the
worst evidence entry's.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from typing import Any

from sealscope import ci_formats, out_paths
from sealscope.cmd_view import view
from sealscope.core import fleet, fleet_run, verdict
from sealscope.core.fleet import FleetEntry
from sealscope.core.sanitize import clean
from sealscope.output import error_line, paint_verdict

GLOB = "*.jsonl"  # the default: with it a walk also finds every other evidence kind


def _option(text: str) -> tuple[str, Any]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE, got {text!r}")
    parsed: Any = value
    if value.lower() in ("true", "false"):
        parsed = value.lower() == "true"
    return key, parsed


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "fleet", help="audit many ledgers and evidence files at once (directories, files, URLs)"
    )
    p.add_argument(
        "sources",
        nargs="+",
        metavar="SOURCE",
        help="a directory, a ledger file, or an fsspec URL (s3://bucket/prefix/)",
    )
    p.add_argument(
        "--glob",
        default=GLOB,
        metavar="PATTERN",
        help="file names to take from directories (default *.jsonl, and then "
        "also .json and .zip files and pack / bundle folders; what each "
        "is, the classifier decides)",
    )
    p.add_argument("--strict", action="store_true", help="verify every ledger in strict mode")
    p.add_argument(
        "--follow-links",
        action="store_true",
        help="read symlinks that point out of a folder (default: listed as not "
        f"followed, {verdict.COULD_NOT_LOOK})",
    )
    p.add_argument(
        "--incremental",
        action="store_true",
        help="use and update each local ledger's checkpoint (the user's cache): a "
        "re-audit walks only what was appended since (see README: checkpoints)",
    )
    p.add_argument(
        "--artefacts",
        metavar="DIR",
        help="a folder of held things, as for `check`: artefacts, stored verdicts "
        "(the verdicts found among the sources are held too)",
    )
    p.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        default=os.environ.get("DASK_SCHEDULER_ADDRESS"),
        help="a dask.distributed scheduler (tcp://host:8786), or local:N for a "
        "LocalCluster of N workers (default: $DASK_SCHEDULER_ADDRESS, else "
        "the local process pool)",
    )
    p.add_argument(
        "--storage-option",
        dest="storage_options",
        action="append",
        default=[],
        type=_option,
        metavar="KEY=VALUE",
        help="an fsspec storage option, e.g. endpoint_url=http://127.0.0.1:9000 (repeatable)",
    )
    p.add_argument(
        "--json",
        action="store_true",
        help="one JSON object per ledger per line, then a summary line",
    )
    ci_formats.add_arguments(p)
    p.add_argument(
        "--view",
        action="store_true",
        help="open the viewer's fleet tab on the given local folders instead "
        "(each folder one tab; its *.jsonl ledgers)",
    )
    p.set_defaults(func=run)


def _options(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """fsspec storage options; `endpoint_url` is s3fs's `client_kwargs` entry."""
    opts: dict[str, Any] = {}
    for key, value in pairs:
        if key == "endpoint_url":
            opts.setdefault("client_kwargs", {})["endpoint_url"] = value
        else:
            opts[key] = value
    return opts


class _Progress:
    """files done / total, bytes, rate and ETA on stderr, only on a terminal."""

    def __init__(self, total: int, total_bytes: int) -> None:
        self.on = sys.stderr.isatty()
        self.total, self.total_bytes = total, total_bytes
        self.done = self.bytes = 0
        self.start = self.last = time.monotonic()

    def step(self, entry: FleetEntry) -> None:
        self.done += 1
        self.bytes += entry.size or 0
        now = time.monotonic()
        if not self.on or (now - self.last < 0.1 and self.done < self.total):
            return
        self.last = now
        rate = self.bytes / max(now - self.start, 1e-6)
        left = max(self.total_bytes - self.bytes, 0)
        eta = f"{left / rate:.0f}s" if rate > 0 and self.done < self.total else "-"
        sys.stderr.write(
            f"\rfleet {self.done}/{self.total} files  "
            f"{self.bytes / 1e6:.1f}/{self.total_bytes / 1e6:.1f} MB  "
            f"{rate / 1e6:.1f} MB/s  eta {eta}   "
        )
        sys.stderr.flush()

    def end(self) -> None:
        if self.on:
            sys.stderr.write("\r" + " " * 78 + "\r")
            sys.stderr.flush()


def json_line(doc: dict[str, Any]) -> str:
    """One JSON document on one line, ASCII only: no evidence character can end the
    line early for any reader (U+2028, CR) or arrive undecodable."""
    from sealscope.core.jsonio import dumps_output

    return dumps_output(doc, ensure_ascii=True, separators=(",", ":"))


def kind_line(e: FleetEntry) -> str:
    """A fleet entry of another kind: its word, path and kind, the bound of a
    VERIFIED beside it, or why it is not VERIFIED on the next line."""
    c = e.check
    assert c is not None
    kind = (c.kind or "-") + (f"/{c.profile}" if c.profile else "")
    line = f"{paint_verdict(e.verdict)}  {clean(e.path)}  kind={kind}"
    if e.exit_code == verdict.HELD and c.bound:
        line += f" · {clean(c.bound)}"
    elif e.exit_code != verdict.HELD and c.reason:
        line += f"\n  {clean(c.reason)}"
    return line


def not_evidence_lines(entries: list[FleetEntry]) -> list[str]:
    """The paths found that are no evidence: listed, each with why, never judged."""
    left = fleet.not_evidence(entries)
    if not left:
        return []

    def why(e: FleetEntry) -> str:  # the classifier's reason, without the path again
        text = e.check.reason if e.check else ""
        return text[len(e.path) + 1 :] if text.startswith(e.path + " ") else text

    return [f"not evidence ({len(left)}, not audited):"] + [
        f"  {clean(e.path)}  {clean(why(e))}" for e in left
    ]


def human_line(e: FleetEntry) -> str:
    if e.check is not None:
        return kind_line(e)
    r, rc = e.result, e.receipts
    if getattr(r, "unreadable", False):  # only why: a walk that never ran counted nothing
        return f"{paint_verdict(e.verdict)}  {clean(e.path)}  {clean(r.reason())}"
    line = (
        f"{paint_verdict(e.verdict)}  {clean(e.path)}  rows={r.rows} breaks={r.breaks} "
        f"scope={r.verified_scope}  receipts={rc.count} failed={rc.failed} "
        f"bounded={rc.bounded}"
    )
    if r.first_break:
        line += f"\n  first break: {clean(r.first_break)}"
    if rc.failed:
        line += f"\n  first failed receipt: line {rc.first_failed_line}"
    # what the receipts behind a VERIFIED held for, stated beside the word
    note = verdict.scope_note(rc.rows) if e.exit_code == verdict.HELD else ""
    if note:
        line += f"\n  receipts: {note}"
    if e.rows_checked:  # the row checks that decided the word, or the bound they held in
        from sealscope.core.checks.ledger_rows import describe

        for row in e.rows_checked:
            if row.get("verdict") != verdict.VERIFIED:
                line += f"\n  {paint_verdict(str(row.get('verdict')))}  {clean(describe(row))}"
        if e.bound:
            line += f"\n  rows: {clean(e.bound)}"
    return line


def view_fleet(args: argparse.Namespace) -> int:
    """`--view`: the viewer on local folders (fleet tabs) and files; a URL, or an option
    the fleet tab does not take, is a usage error."""
    remote = [s for s in args.sources if "://" in s]
    for s in remote:
        error_line(f"fleet --view: only local sources open in the viewer, not {clean(s)}")
    taken = [
        flag
        for flag, on in (
            ("--glob", args.glob != GLOB),
            ("--strict", args.strict),
            ("--incremental", args.incremental),
            ("--storage-option", args.storage_options),
            ("--artefacts", args.artefacts is not None),
            ("--json", args.json),
            ("--format", args.ci_format),
            ("--junit", args.junit),
            ("--vsa", args.vsa),
        )
        if on
    ]
    if taken:
        error_line(f"fleet --view: the viewer's fleet tab does not take {', '.join(taken)}")
    return verdict.USAGE if remote or taken else view(args.sources)


def run(args: argparse.Namespace) -> int:
    if args.view:
        return view_fleet(args)
    from sealscope import fleet_engine as engine

    if args.artefacts is not None and not os.path.isdir(args.artefacts):
        error_line(f"fleet: --artefacts {clean(args.artefacts)}: not a folder")
        return verdict.USAGE
    if out_paths.refused(args, "fleet", [*args.sources, args.artefacts]):
        return verdict.USAGE
    options = _options(args.storage_options)
    digest = bool(getattr(args, "vsa", None))  # a VSA names each file by its digest
    start = time.monotonic()
    if args.scheduler:
        engine.prepare_dask(args.scheduler)
    try:  # a pool's workers start once the walk found enough files, while it goes on
        sized, entries = engine.gather(
            args.sources,
            args.glob,
            options,
            args.follow_links,
            kinds=args.glob == GLOB,
            on_many=None if args.scheduler else fleet_run.prestart,
        )
    except engine.EngineMissing as e:
        engine.discard_started()
        error_line(f"fleet: {e}")
        return verdict.USAGE
    progress = _Progress(len(sized) + len(entries), sum(n or 0 for _p, n in sized))
    out = sys.stdout
    as_json = (args.json or args.ci_format == "json") and not ci_formats.github(args)

    def on_entry(entry: FleetEntry) -> None:
        entries.append(entry)
        progress.step(entry)
        if as_json:
            out.write(json_line(entry.to_dict()) + "\n")
            out.flush()

    if as_json:
        for listed in list(entries):
            out.write(json_line(listed.to_dict()) + "\n")
    try:
        if args.scheduler:
            engine.run_dask(
                sized,
                options,
                args.strict,
                on_entry,
                args.scheduler,
                args.incremental,
                args.artefacts,
                digest,
            )
        else:
            engine.run_pool(
                sized, options, args.strict, on_entry, args.incremental, args.artefacts, digest
            )
    except engine.EngineMissing as e:
        engine.discard_started()
        progress.end()
        error_line(f"fleet: {e}")
        return verdict.USAGE
    except engine.ClusterUnavailable as e:
        progress.end()
        error_line(f"fleet: {clean(str(e))}")
        return verdict.COULD_NOT
    progress.end()
    from sealscope.core.checks.result import CheckContext
    from sealscope.core.profiles.fleet_pairs import pair_entries

    # two-file profiles paired within the run's files (KINDS-3.md §15.3); a JSON
    # stream gets each paired entry again, complete, after the chain-only one
    entries, paired = pair_entries(entries, CheckContext(artefacts=args.artefacts))
    if as_json:
        for entry in paired:
            out.write(json_line(entry.to_dict()) + "\n")
    summary = fleet.summarize(entries, time.monotonic() - start)
    v = summary.verdicts
    left = (
        f"; {summary.not_evidence} not evidence (listed, not audited)"
        if summary.not_evidence
        else ""
    )
    nothing = (  # nothing judged is not a pass: the line says the run's word
        f"{paint_verdict(verdict.COULD_NOT_LOOK)}: nothing audited; "
        if summary.ledgers + summary.units == 0
        else ""
    )
    count_line = (
        f"{nothing}{fleet.count_words(summary)}: "
        f"{v.get(verdict.VERIFIED, 0)} verified, "
        f"{v.get(verdict.BROKEN, 0)} broken, {v.get(verdict.COULD_NOT_LOOK, 0)} "
        f"could not look; receipts {summary.receipts} ({summary.receipts_failed} "
        f"failed, {summary.receipts_bounded} bounded); {summary.bytes / 1e6:.1f} MB "
        f"in {summary.seconds:.2f} s{left}"
    )
    wanted = ci_formats.github(args) or getattr(args, "junit", None) or digest
    suites = (  # evidence only; built only for a format that writes them
        [ci_formats.fleet_suite(e) for e in fleet.worst_first(entries)] if wanted else []
    )
    code = ci_formats.emit(
        args,
        suites,
        code=summary.exit_code,
        summary=count_line,
        policy={
            "verb": "fleet",
            "strict": args.strict,
            "glob": args.glob,
            "incremental": args.incremental,
            **({"artefacts": True} if args.artefacts is not None else {}),
            "checks": ["chain", "receipts"],
        },
        markdown=lambda: ci_formats.markdown_table(suites, "sealscope fleet: " + count_line),
    )
    if ci_formats.github(args):
        return code
    if as_json:
        out.write(json_line({"summary": summary.to_dict()}) + "\n")
        out.flush()
        return code
    for entry in fleet.worst_first(entries):
        print(human_line(entry))
    for text in not_evidence_lines(entries):
        print(text)
    print(count_line)
    return code
