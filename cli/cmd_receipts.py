"""`sealscope receipts`, `sealscope lookup`, `sealscope selftest`.

receipts LEDGER [--line N] [--pre F] [--post F] [--json]
    verify every compaction-receipt row (or the one on line N), recomputing from held
    content when given. Exit 1 if any row is not ok; else 3 if no row was found; else 0
    (a row ok within a bound is VERIFIED, its scope stated beside it).
lookup LEDGER HELD [HELD ...] [--ledger L ...] [--json]
    find each held item's digest in every receipt's drop manifest. Exit 0 whenever
    the files could be read and held at least one item (found or not); 3 when they
    hold none (nothing was looked up) or cannot be read.
selftest [--json]
    golden vectors and planted-fault checks. Exit 0 when every check held, else 1.

A file that cannot be read: one error line on stderr, `{"error": ...}` on stdout with
--json, exit 3.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from typing import Any

from sealscope import cells, ci_formats, out_paths
from sealscope.core import bound_reads as _bound
from sealscope.core import verdict
from sealscope.core.sanitize import clean as _clean
from sealscope.output import emit_json, error_line, paint, paint_verdict, progress_callback
from sealscope.style import verdict_colour


def positive_line(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a line number: {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"line numbers start at 1, got {n}")
    return n


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("receipts", help="verify the compaction receipts in a ledger")
    p.add_argument("ledger", metavar="LEDGER")
    p.add_argument(
        "--line", type=positive_line, metavar="N", help="only the receipt row on this 1-based line"
    )
    p.add_argument("--pre", metavar="FILE", help="held pre-compaction content")
    p.add_argument("--post", metavar="FILE", help="held post-compaction (survivor) content")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    ci_formats.add_arguments(p)
    p.set_defaults(func=run_receipts)

    p = sub.add_parser("lookup", help="find held items in the receipts' drop manifests")
    p.add_argument("ledger", metavar="LEDGER")
    p.add_argument(
        "held",
        nargs="+",
        metavar="HELD",
        help=".json array, .jsonl, any other file, a folder, or - for stdin",
    )
    p.add_argument(
        "--ledger",
        dest="more_ledgers",
        action="append",
        default=[],
        metavar="LEDGER",
        help="another ledger to search (repeatable)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_lookup)

    p = sub.add_parser("selftest", help="golden digest vectors and planted-fault checks")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=run_selftest)


# --------------------------------------------------------------------------- helpers


def _fail(args: argparse.Namespace, message: str, code: int = 3) -> int:
    """One clean error line (and a JSON error document with --json)."""
    message = _clean(message)
    error_line(message)
    if getattr(args, "json", False) or getattr(args, "ci_format", None) == "json":
        emit_json({"error": message})
    return code


def _os_text(e: OSError) -> str:
    return e.strerror or type(e).__name__


def _stdin():
    stream = sys.stdin
    return getattr(stream, "buffer", None) if stream is not None else None


def _short(text: str, width: int) -> str:
    text = _clean(text)
    return text if len(text) <= width else text[: width - 1] + "…"


# --------------------------------------------------------------------------- receipts


def run_receipts(args: argparse.Namespace) -> int:
    from sealscope.core import held, receipt

    if args.pre == "-" and args.post == "-":
        error_line("receipts: standard input can feed --pre or --post, not both")
        return verdict.USAGE
    if out_paths.refused(args, "receipts", [args.ledger, args.pre, args.post]):
        return verdict.USAGE
    contents: dict[str, Any] = {}
    held_items: list[Any] = []
    for side in ("pre", "post"):
        path = getattr(args, side)
        if path is None:
            contents[side] = None
            continue
        try:
            got = held.load_held(path, _stdin())
        except held.HeldContentError as e:
            return _fail(args, f"receipts: --{side}: {e}")
        contents[side] = receipt.content_of(got)
        held_items += got
    progress = progress_callback(f"receipts {_clean(args.ledger)}")
    try:  # a --vsa names the ledger by the digest of the bytes these reads took
        with _bound.recording() if args.vsa else contextlib.nullcontext() as reads:
            rows = [
                (line, row)
                for line, row in _receipt_rows(args.ledger, progress)
                if args.line is None or line == args.line
            ]
    except OSError as e:
        why = f"cannot read {args.ledger}: {_os_text(e)}"
        code = _fail(args, f"receipts: {why}")
        suites = [ci_formats.unreadable_suite(args.ledger, why)]
        return ci_formats.emit(
            args,
            suites,
            code=code,
            policy={"verb": "receipts"},
            summary=f"{suites[0].verdict}  {_clean(args.ledger)}",
            markdown=lambda: ci_formats.markdown_table(suites, "sealscope receipts"),
        )
    matched = held_matches(rows, contents) if args.line is None and len(rows) > 1 else None
    if matched is not None and not matched:
        return _fail(
            args,
            "receipts: the held content matches no receipt row's claimed "
            "pre.digest or post.digest; choose the row with --line N",
            verdict.USAGE,
        )
    results: list[tuple[int, Any]] = []
    undeclared: dict[int, list[dict[str, Any]]] = {}
    for line, row in rows:
        use = matched is None or line in matched
        check = receipt.verify_receipt(
            row, contents["pre"] if use else None, contents["post"] if use else None
        )
        results.append((line, check))
        if use and held_items:
            from sealscope.core.export import recompute_record

            named = recompute_record(line, check, row=row, held=held_items).result
            undeclared[line] = list(named.get("undeclared") or [])
    out = verdict.receipts(v for _n, v in results)
    suite = ci_formats.receipts_suite(args.ledger, results)
    if reads is not None:
        digest = reads.digest_of(args.ledger)
        suite.subjects = [(args.ledger, digest)] if digest else []
    policy = {
        "verb": "receipts",
        "line": args.line,
        "pre": args.pre is not None,
        "post": args.post is not None,
    }
    code = ci_formats.emit(
        args,
        [suite],
        code=out.exit_code,
        policy=policy,
        summary=f"{out.verdict}  {_clean(args.ledger)}  "
        f"{verdict.plural(len(results), 'receipt row')}",
        markdown=lambda: _receipts_markdown(args.ledger, results, out.verdict),
    )
    if ci_formats.github(args):
        return code
    if args.json or args.ci_format == "json":
        emit_json(
            [
                {
                    "line": n,
                    **v.to_dict(),
                    **({} if matched is None else {"held_matched": n in matched}),
                }
                for n, v in results
            ]
        )
    else:
        _print_receipts(args, results, out.verdict, matched, undeclared)
    return code


def _receipt_rows(path: str, progress: Any) -> list[tuple[int, Any]]:
    """The receipt rows of a ledger, or the one row of a stand-alone receipt file
    (`core.kinds.identify`: kind `receipt`), numbered by the line it starts on, as the
    verifier numbers lines (`ledger_read.first_line`). OSError when unreadable."""
    from sealscope.core import kinds, ledger_read, lookup
    from sealscope.core.checks import receipt_file

    if kinds.identify(path).kind == kinds.RECEIPT:
        try:
            row = receipt_file.read_receipt_file(path)
            return [(ledger_read.first_line(path), row)]
        except ValueError as e:
            raise OSError(str(e)) from None
    return list(lookup.iter_receipt_rows(path, progress))


def held_matches(rows: list[tuple[int, Any]], contents: dict[str, Any]) -> set[int] | None:
    """With several receipt rows and no --line, held content goes to the rows whose
    claimed `pre.digest` (or `post.digest`) equals the held pre (or post) content's
    digest (CLI.md). None when no content was given (nothing to place)."""
    held = {side: c.digest for side, c in contents.items() if c is not None}
    if not held:
        return None

    def claimed(row: dict[str, Any], side: str) -> Any:
        part = row.get(side)
        return part.get("digest") if isinstance(part, dict) else None

    return {line for line, row in rows if any(claimed(row, side) == d for side, d in held.items())}


def _receipts_markdown(path: str, results: list, word: str) -> str:
    """A short Markdown table of the receipt rows, for a CI step summary."""
    from sealscope.core.export import md_code, md_text

    lines = [
        f"### sealscope receipts: {md_code(path)} — **{word}**",
        "",
        "| line | schema | ok | content | scope |",
        "|---|---|---|---|---|",
    ]
    for n, v in results:
        lines.append(
            f"| {n} | {md_code(v.schema, in_table=True)} | {v.ok} | "
            f"{md_text(v.content)} | {md_code(v.verified_scope, in_table=True)} |"
        )
    return "\n".join(lines) + "\n"


def _print_receipts(
    args: argparse.Namespace,
    results: list,
    word: str,
    matched: set[int] | None = None,
    undeclared: dict[int, list[dict[str, Any]]] | None = None,
) -> None:
    """One row per receipt; a failed row's every note in NOTE, whole (`cells`: never
    cut into a pipe, wrapped on a terminal), then each drop its manifest does not
    declare, named by the held item that has it (as the viewer and `export` name it)."""
    out = sys.stdout
    where = _clean(args.ledger) + (f" line {args.line}" if args.line else "")
    if not results:
        out.write(paint(f"no compaction receipt rows in {where}", "yellow") + "\n")
        return
    if matched is not None:
        lines = ", ".join(str(n) for n in sorted(matched))
        out.write(
            f"held content matched {'line' if len(matched) == 1 else 'lines'} {lines} "
            "by claimed digest and was applied "
            "there; the other rows were checked without content\n"
        )
    width = cells.width()
    lead = 6 + 2 + 6 + 2 + 26 + 2 + 34 + 2
    note_w = None if width is None else max(20, width - lead)
    out.write(
        paint(f"{'LINE':>6}  {'SCHEMA':<6}  {'CHECKS':<26}  {'SCOPE':<34}  NOTE", "bold") + "\n"
    )
    for n, v in results:
        checks = f"self:{'ok' if v.self_consistent else verdict.FAIL} content:{v.content}"
        style = verdict_colour(v.verdict)
        notes = [_clean(x) for x in v.notes] if not v.ok else []
        first = cells.wrap(notes[0], note_w) if notes else [""]
        text = (
            f"{n:>6}  {v.schema or '-'!s:<6}  {checks:<26}  {v.verified_scope:<34}  {first[0]}"
        ).rstrip()
        out.write(paint(text, style) + "\n")
        more = first[1:] + [part for note in notes[1:] for part in cells.wrap(note, note_w)]
        for part in more:
            out.write(paint(" " * lead + part, style) + "\n")
        for drop in (undeclared or {}).get(n, []):
            size = verdict.plural(drop.get("bytes") or 0, "byte")
            named = (
                f"{_clean(str(drop.get('held')))} ({size}): {_clean(str(drop.get('preview')))}"
                if drop.get("held")
                else "no held item"
            )
            for i, part in enumerate(
                cells.wrap(
                    f"undeclared drop {drop['digest']} = {named}",
                    None if width is None else max(20, width - 8),
                )
            ):
                out.write(paint(("      ⚠ " if i == 0 else " " * 8) + part, "red") + "\n")
    rows = [v for _n, v in results]
    within = sum(map(verdict.bounded, rows))
    failed = sum(not v.ok for v in rows)
    out.write(
        f"{verdict.plural(len(results), 'receipt row')} in {where}: "
        f"{len(results) - within - failed} verified in full, {within} verified within a "
        f"bound, {failed} failed -> " + paint_verdict(word) + "\n"
    )


# --------------------------------------------------------------------------- lookup


def run_lookup(args: argparse.Namespace) -> int:
    from sealscope.core import held, lookup

    if sum(1 for h in args.held if h == "-") > 1:
        error_line("lookup: standard input can be read only once")
        return verdict.USAGE
    try:
        items = held.load_many(args.held, _stdin())
    except held.HeldContentError as e:
        return _fail(args, f"lookup: {e}")
    if not items:  # nothing was looked up: no answer, found or not
        return _fail(
            args,
            f"lookup: nothing to look up: {', '.join(args.held)} holds no held item",
            verdict.COULD_NOT,
        )
    ledgers = [args.ledger, *args.more_ledgers]
    try:
        index = lookup.DropIndex.build(ledgers, progress_callback("lookup: indexing"))
    except OSError as e:
        name = getattr(e, "filename", None) or ledgers[0]
        return _fail(args, f"lookup: cannot read {name}: {_os_text(e)}")

    several = len(ledgers) > 1
    docs = []
    for it in items:
        found = []
        for loc in index.where(it.digest):
            entry: dict[str, Any] = {"line": loc.line, "position": loc.position}
            if several:
                entry = {"ledger": loc.ledger, **entry}
            found.append(entry)
        docs.append({"digest": it.digest, "bytes": it.size, "found": found})
    if args.json:
        emit_json(
            {
                "items": docs,
                "receipt_rows": index.rows,
                "manifest_entries": index.entries,
                "unexplained_entries": len(index.unexplained(i.digest for i in items)),
            }
        )
    else:
        _print_lookup(items, docs, index, several)
    return verdict.HELD


def held_label(it: Any) -> str:
    """A held item as every verb, screen and report names it (`held.item_label`,
    `FILE#N` numbered from 1), with the folder it was given in."""
    from sealscope.core.held import item_label

    folder = os.path.dirname(it.source)
    return os.path.join(folder, item_label(it)) if folder else item_label(it)


def _print_lookup(items: list, docs: list, index: Any, several: bool) -> None:
    out = sys.stdout
    hits = 0
    for it, doc in zip(items, docs, strict=True):
        where = _clean(held_label(it))
        if doc["found"]:
            hits += 1
            locs = ", ".join(
                (f"{_clean(f['ledger'])}:" if several else "")
                + f"line {f['line']} pos {f['position']}"
                for f in doc["found"]
            )
            out.write(paint("DROPPED ", "yellow") + f"{where}  {it.size} bytes  in {locs}\n")
        else:
            out.write(paint("absent  ", "dim") + f"{where}  {it.size} bytes\n")
    out.write(
        f"{hits} of {verdict.plural(len(items), 'held item')} found in drop manifests "
        f"({verdict.plural(index.rows, 'receipt row')}, "
        f"{verdict.plural(index.entries, 'manifest entry', 'manifest entries')})\n"
    )


# --------------------------------------------------------------------------- selftest


def run_selftest(args: argparse.Namespace) -> int:
    from sealscope.core import selftest

    res = selftest.run()
    if args.json:
        emit_json(res.to_dict())
    else:
        out = sys.stdout
        for c in res.checks:
            mark = paint_verdict(verdict.selftest(c.ok).verdict)
            out.write(f"  {mark}  {_clean(c.name)}\n")
            if not c.ok:
                out.write(f"        {_short(c.detail, 160)}\n")
        failed = len(res.failed)
        out.write(
            paint("all checks passed", "green") + "\n"
            if not failed
            else paint(f"{verdict.plural(failed, 'check')} failed", "red") + "\n"
        )
    return res.exit_code
