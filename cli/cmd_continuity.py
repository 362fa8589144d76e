"""`sealscope snapshot`, `sealscope diff`, `sealscope continuity`.

snapshot FILE [--json]
    load and validate a continuity snapshot. Exit 0 valid, 1 invalid, 3 missing or
    unreadable.
diff OLD NEW [--tiers F] [--json]
    what changed between two seals. Exit 0 when both load and validate (changes are
    findings), 1 when either is invalid, 3 when either cannot be read.
continuity FILE --restated F [--loose] [--tiers F] [--json]
    score a restatement against the seal. Exit 0 faithful, 1 divergence or an invalid
    comparison (or snapshot), 3 containment_only (loose) or an input that cannot be
    read (missing snapshot, bad --restated/--tiers file).

With --json exactly one JSON document is printed, `{"error": ...}` when there is no
result to print; errors also get one line on stderr.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any

from sealscope import cells
from sealscope.core import verdict
from sealscope.core.sanitize import clean as _clean
from sealscope.output import emit_json, error_line, paint, paint_verdict
from sealscope.style import severity_colour

if TYPE_CHECKING:
    from sealscope.core.sealfile import SealFile


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("snapshot", help="load and validate a continuity snapshot")
    p.add_argument("file", metavar="SNAPSHOT")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=_guard(run_snapshot))

    p = sub.add_parser("diff", help="what changed between two sealed snapshots")
    p.add_argument("old", metavar="OLD")
    p.add_argument("new", metavar="NEW")
    p.add_argument("--tiers", metavar="FILE", help="a JSON object {tier: [field, ...]}")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=_guard(run_diff))

    p = sub.add_parser("continuity", help="score a restatement against a sealed snapshot")
    p.add_argument("file", metavar="SNAPSHOT")
    p.add_argument(
        "--restated", required=True, metavar="FILE", help="a JSON object {probe_id: answer}"
    )
    p.add_argument(
        "--loose", action="store_true", help="containment scoring: faithful is always null"
    )
    p.add_argument("--tiers", metavar="FILE", help="a JSON object {tier: [field, ...]}")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.set_defaults(func=_guard(run_continuity))


def _guard(fn):
    """Never a traceback: an unexpected failure is one error line (and a JSON
    error document with --json), exit 3."""

    def run(args: argparse.Namespace) -> int:
        try:
            return fn(args)
        except (KeyboardInterrupt, BrokenPipeError):
            raise
        except Exception as e:  # noqa: BLE001 - last line of defence
            return _fail(
                args, f"{args.verb}: internal error: {type(e).__name__}: {e}", verdict.COULD_NOT
            )

    return run


def _fail(args: argparse.Namespace, message: str, code: int, doc: dict | None = None) -> int:
    error_line(_clean(message))
    if args.json:
        emit_json(doc if doc is not None else {"error": message})
    return code


# --------------------------------------------------------------------------- loading


def load_snapshot(path: str) -> SealFile:
    from sealscope.core.sealfile import load_seal

    return load_seal(path)


def _load_tiers(path: str) -> dict:
    from sealscope.core.sealfile import load_tiers

    return load_tiers(path)


def _load_restated(path: str) -> dict:
    from sealscope.core.sealfile import load_restated

    return load_restated(path)


# --------------------------------------------------------------------------- snapshot


def run_snapshot(args: argparse.Namespace) -> int:
    got = load_snapshot(args.file)
    doc = got.summary()
    if args.json:
        if got.status != "ok":
            error_line(_clean(f"snapshot: {got.path}: {got.error}"))
        emit_json(doc)
        return got.exit_code
    print(f"{paint_verdict(got.verdict)}  {_clean(got.path)}")
    if got.status == "ok":
        print(f"  digest     {doc['digest']}")
    else:
        print(f"  error      {_clean(got.error or '')}")
    if doc["label"] is not None:
        print(f"  label      {_clean(doc['label'])}")
    if doc["id_scheme"] is not None or doc["probes"] is not None:
        print(f"  id_scheme  {_clean(doc['id_scheme'])}    probes {doc['probes']}")
    return got.exit_code


# --------------------------------------------------------------------------- diff

_KIND_STYLE = {"changed": "yellow", "added": "green", "removed": "red"}
_KIND_MARK = {"changed": "~", "added": "+", "removed": "-"}


def _both(args: argparse.Namespace, a: SealFile, b: SealFile) -> int | None:
    """Exit code and error output when either seal is not usable, else None."""
    from sealscope.core.sealfile import unusable

    why = unusable(a, b)
    if why is None:
        return None
    message, code = why
    return _fail(
        args,
        f"{args.verb}: {message}",
        code,
        {"error": message, "previous": a.summary(), "current": b.summary()},
    )


def run_diff(args: argparse.Namespace) -> int:
    from sealscope.core.continuity import diff_seals

    a, b = load_snapshot(args.old), load_snapshot(args.new)
    code = _both(args, a, b)
    if code is not None:
        return code
    tiers = None
    if args.tiers:
        try:
            tiers = _load_tiers(args.tiers)
        except ValueError as e:
            return _fail(args, f"diff: {e}", verdict.COULD_NOT)
    assert a.snap is not None and b.snap is not None  # both loaded: checked above
    doc = diff_seals(a.snap, b.snap, tiers=tiers)
    if args.json:
        emit_json(doc)
        return verdict.HELD
    print(diff_table(doc, a.path, b.path))
    return verdict.HELD


def _text(value: Any) -> str:
    return "" if value is None else _clean(value)


def diff_table(doc: dict, old: str, new: str, width: int | None = None) -> str:
    """The side-by-side report: one row per changed/added/removed id, previous |
    current, coloured by severity (by kind when untiered). Nothing is cut: on a
    terminal (or with `width`) a cell longer than its column wraps within its row;
    into a pipe or a file every column is as wide as its widest cell (`cells`)."""
    width = width or cells.width()
    rows = [(kind, d) for kind in ("changed", "added", "removed") for d in doc[kind]]
    tiered = any("severity" in d for _k, d in rows)
    lines = [
        f"{paint('diff', 'bold')}  {_clean(old)} → {_clean(new)}",
        f"  previous  {doc['previous_digest']}",
        f"  current   {doc['current_digest']}",
    ]
    if not rows:
        lines.append(f"  no declared item changed ({doc['n_unchanged']} unchanged)")
        return "\n".join(lines)
    table = [
        [
            _text(d["id"]),
            *([_text(d.get("severity", ""))] if tiered else []),
            _text(d["declared"]),
            _text(d["restated"]),
        ]
        for _k, d in rows
    ]
    natural = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    widths: list[int | None] = list(natural)
    if width is not None:
        idw = min(natural[0], max(12, width // 4))
        sevw = natural[1] if tiered else 0
        rest = max(20, width - idw - sevw - 12 - (3 if tiered else 0))
        colw = rest // 2
        widths = [idw, *([sevw] if tiered else []), min(natural[-2], colw) or colw, colw]
    names = ["id", *(["severity"] if tiered else []), "previous", "current"]
    widths = [None if w is None else max(w, len(n)) for w, n in zip(widths, names, strict=True)]
    head = cells.rows(names, widths, lead=("  ",))[0]
    lines += ["", head, "  " + "─" * (len(head) - 2)]
    for (kind, d), cols in zip(rows, table, strict=True):
        style = severity_colour(d.get("severity")) if "severity" in d else _KIND_STYLE[kind]
        for line in cells.rows(cols, widths, lead=(f"{_KIND_MARK[kind]} ",)):
            lines.append(paint(line, style))
    lines += [
        "",
        (
            f"  {len(doc['changed'])} changed, {len(doc['added'])} added, "
            f"{len(doc['removed'])} removed, {doc['n_unchanged']} unchanged"
        ),
    ]
    return "\n".join(lines)


# --------------------------------------------------------------------------- continuity


def run_continuity(args: argparse.Namespace) -> int:
    from sealscope.core.continuity import verify_continuation

    got = load_snapshot(args.file)
    if got.status != "ok":
        return _fail(
            args,
            f"continuity: {got.path}: {got.error}",
            got.exit_code,
            {"error": got.error, "snapshot": got.summary()},
        )
    try:
        restated = _load_restated(args.restated)
        tiers = _load_tiers(args.tiers) if args.tiers else None
    except ValueError as e:
        return _fail(args, f"continuity: {e}", verdict.COULD_NOT)
    try:
        assert got.snap is not None  # a loaded seal: checked above
        v = verify_continuation(got.snap, restated=restated, strict=not args.loose, tiers=tiers)
    except (ValueError, TypeError) as e:
        # the seal validates but its probes or registration cannot be scored
        return _fail(
            args,
            f"continuity: {got.path}: the sealed snapshot cannot be scored: {e}",
            verdict.WRONG,
        )
    code = verdict.continuation(v).exit_code
    if args.json:
        emit_json(v.to_dict())
        return code
    print(verdict_report(v, got.path, args.restated))
    return code


def verdict_report(v: Any, snap_path: str, restated_path: str) -> str:
    """A short human report: the verdict, each divergence, the notes."""
    mode = "strict" if v.policy and v.policy.get("strict") else "loose"
    head = paint_verdict(verdict.continuation(v).verdict)
    lines = [f"{head}  {_clean(snap_path)}  restated={_clean(restated_path)}  ({mode})"]
    if v.claimed_property:
        lines.append(f"  {_clean(v.claimed_property)}")
    for d in v.divergences:
        sev = d.get("severity")
        tag = f"[{_clean(sev)}] " if sev is not None else ""
        style = severity_colour(sev) if sev is not None else "red"
        lines.append(paint(f"  {tag}{_clean(d.get('id'))}", style) + f"  {_clean(d.get('reason'))}")
        lines.append(f"      declared: {_clean(_show(d.get('declared')))}")
        lines.append(f"      restated: {_clean(_show(d.get('restated')))}")
    from sealscope.core.export.markdown import note_text

    for note in v.notes:
        if note and not str(note).startswith("comparison="):
            lines.append(paint(f"  note: {_clean(note_text(note))}", "dim"))
    lines.append(f"  verdict_digest {v.verdict_digest}")
    return "\n".join(lines)


def _show(value: Any) -> str:
    """A declared or restated value for a person: text as it is, anything else as JSON
    (never Python's repr)."""
    if value is None:
        return "(none)"
    if isinstance(value, str):
        return value
    import json

    try:
        return json.dumps(value, ensure_ascii=False)  # text for a person, not JSON output
    except (TypeError, ValueError, RecursionError):
        return str(value)
