"""`sealscope verify LEDGER... [--strict] [--pin PIN] [--witness STORE --ns NS] [--json]
[--incremental [--checkpoint FILE]] [--jobs N]`.

`--incremental` resumes from the ledger's checkpoint (the user's cache, or FILE) and
writes the new one: the verified prefix is hashed, only the appended bytes walked.
`--jobs N`: a large ledger is walked on N threads (default: the cores the process may
use), many small ones on N worker processes; the verdict is the same for every N.

Only what the verb's run needs is imported: the CI formats when a CI output is asked
for, the local pool when several ledgers are given."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from functools import partial
from typing import Any

from sealscope import ci_flags, out_paths
from sealscope.core import verdict
from sealscope.output import emit_json, error_line, paint_verdict, progress_callback


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="walk and verify the hash chain of one or more ledgers")
    p.add_argument("ledgers", nargs="+", metavar="LEDGER")
    p.add_argument(
        "--strict",
        action="store_true",
        help="treat unchained rows as breaks and ignore declarations",
    )
    p.add_argument(
        "--pin",
        metavar="PIN",
        help='a head pin ("arcaeon-ledger head chain=... rows=N as_of=...") or a file holding one',
    )
    p.add_argument("--witness", metavar="STORE", help="a witness store file to check against")
    p.add_argument("--ns", metavar="NAMESPACE", help="the witness namespace (with --witness)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument(
        "--incremental",
        action="store_true",
        help="resume from the ledger's checkpoint and update it: walk only "
        "what was appended since (see README: checkpoints)",
    )
    p.add_argument(
        "--reset",
        action="store_true",
        help="with --incremental: remove the ledger's checkpoint first (only a "
        "sealscope checkpoint is removed) and verify in full",
    )
    p.add_argument(
        "--checkpoint",
        metavar="FILE",
        help="the checkpoint file (with --incremental; default: "
        "$XDG_CACHE_HOME/sealscope/checkpoints/)",
    )
    p.add_argument(
        "--jobs",
        metavar="N",
        type=_jobs,
        default=None,
        help="threads for a large ledger's walk (default: the cores this process may use)",
    )
    ci_flags.add_arguments(p)
    p.set_defaults(func=run)


def _jobs(text: str) -> int:
    """`--jobs`: a whole number of at least 1."""
    try:
        n = int(text)
    except ValueError:
        n = 0
    if n < 1:
        raise argparse.ArgumentTypeError(f"not a whole number of at least 1: {text!r}")
    return n


def judge(
    path: str,
    strict: bool = False,
    pin=None,
    store: str | None = None,
    ns: str | None = None,
    progress: bool = False,
    incremental: bool = False,
    checkpoint: str | None = None,
    digest: bool = False,
    ci: bool = True,
    jobs: int | None = None,
) -> tuple[dict, int, Any, Any]:
    """Verify one ledger (and its pin or witness): the JSON object, the exit code,
    the CI suite (the chain and each check, the lines to annotate) and the chain's
    `VerifyResult` (for the step summary's report, so it is not walked twice).
    `digest` (for `--vsa`): the walk also hashes the bytes it reads. `ci=False` (no
    CI output asked for): no suite (None), and the walk keeps only the first break
    (`ledger.verify(all_findings=False)`), so memory does not grow with breaks.
    `jobs`: the walk's threads (None: core's default)."""
    from sealscope.core import ledger, verdict

    on_progress = progress_callback(f"verify {path}") if progress else None
    if incremental:
        from sealscope.core.checkpoint import verify_incremental

        inc = verify_incremental(
            path,
            strict=strict,
            checkpoint=checkpoint,
            on_progress=on_progress,
            digest=digest,
            workers=jobs,
        )
        res = inc.result
        doc = res.to_dict()
        doc["resumed"] = {
            "resumed": inc.resumed is not None,
            **(inc.resumed.to_dict() if inc.resumed else {}),
            "sentence": inc.resumed.sentence() if inc.resumed else None,
            "checkpoint": inc.checkpoint,
            "written": inc.saved,
            "caught": inc.change,
            "notes": list(inc.notes),
        }
        resumed = {
            "resumed": inc.resumed is not None,
            "checkpoint_sha256": inc.checkpoint_sha256,
            "rows_resumed": inc.resumed.rows_before if inc.resumed else 0,
            "bytes_resumed": inc.resumed.bytes_before if inc.resumed else 0,
        }
    else:
        res = ledger.verify(
            path,
            strict=strict,
            on_progress=on_progress,
            digest=digest,
            all_findings=ci,
            workers=jobs,
        )
        resumed = None
        doc = res.to_dict()
    checks = []
    if pin is not None:
        from sealscope.core import pins

        checks.append(pins.check_pin(path, pin, local=res))
        doc["pin"] = checks[-1].to_dict()
    elif store:
        from sealscope.core import witness

        checks.append(witness.verify_against_witness(store, ns or "", path, local=res))
        doc["witness"] = checks[-1].to_dict()
        doc["since_pin"] = witness.since_pin(path, store, ns or "")
    out = verdict.combined(res, *checks)
    doc["verdict"] = out.verdict
    if not ci:
        return doc, out.exit_code, None, res
    from sealscope import ci_formats

    names = ["pin"] if pin is not None else ["witness"] if store else []
    suite = ci_formats.chain_suite(
        path, res, list(zip(names, checks, strict=True)), digested=digest
    )
    suite.resumed = resumed
    return doc, out.exit_code, suite, res


# Several ledgers: when their small files hold this much, they are verified side by
# side in worker processes (below it a pool costs more than it saves); a large one is
# split across the workers by `verify` itself, here.
MANY_MIN_BYTES = 16 << 20


def _judge_items(items: Sequence[str], args: tuple[Any, ...]) -> list[tuple[dict, int, Any, Any]]:
    """`judge` of each item ("INDEX\0PATH") with `args` after the path: a worker's task."""
    return [judge(item.split("\0", 1)[1], *args) for item in items]


def judge_all(
    paths: list[str],
    strict: bool,
    pin,
    store: str | None,
    ns: str | None,
    progress: bool,
    incremental: bool = False,
    checkpoint: str | None = None,
    digest: bool = False,
    ci: bool = True,
    jobs: int | None = None,
) -> list[tuple[dict, int, Any, Any]]:
    """`judge` of each path, in the given order, planned and run by `core.fleet_run`:
    a small file a task of its own, on the local pool when the small files hold
    `MANY_MIN_BYTES` (else one at a time here, with progress); a large file here.
    One path is judged here (no plan to make). `jobs`: a large file's threads, and
    the pool's worker processes."""
    here = (strict, pin, store, ns, progress, incremental, checkpoint, digest, ci, jobs)
    if len(paths) == 1:
        return [judge(paths[0], *here)]
    from sealscope.core import fleet_run

    sized: list[tuple[str, int | None]] = []
    for i, p in enumerate(paths):
        try:
            size: int | None = os.stat(p).st_size
        except OSError:
            size = None
        sized.append((f"{i}\0{p}", size))  # by position too: a path may be given twice
    plan = fleet_run.plan_batches(sized, batch_files=1)
    executor: fleet_run.Executor = fleet_run.Serial()
    task = partial(_judge_items, args=here)
    if len(plan.batches) > 1 and plan.small_bytes >= MANY_MIN_BYTES:
        executor = fleet_run.LocalPool(jobs)  # a worker's progress is nobody's to show
        task = partial(
            _judge_items,
            args=(strict, pin, store, ns, False, incremental, checkpoint, digest, ci, 1),
        )
    results = dict(
        fleet_run.run(plan, task, executor, large_task=lambda item: _judge_items([item], here)[0])
    )
    return [results[item] for item, _n in sized]


def run(args: argparse.Namespace) -> int:
    if args.witness and not args.ns:
        error_line("verify: --witness needs --ns NAMESPACE")
        return verdict.USAGE
    if args.ns and not args.witness:
        error_line("verify: --ns goes with --witness STORE")
        return verdict.USAGE
    if args.checkpoint and not args.incremental:
        error_line("verify: --checkpoint goes with --incremental")
        return verdict.USAGE
    if args.checkpoint and len(args.ledgers) > 1:
        error_line("verify: --checkpoint FILE holds one ledger's checkpoint; give one LEDGER")
        return verdict.USAGE
    if args.reset and not args.incremental:
        error_line("verify: --reset goes with --incremental")
        return verdict.USAGE
    from sealscope.core.sanitize import clean

    if args.reset:
        from sealscope.core.checkpoint import forget

        for path in args.ledgers:
            removed, message = forget(path, strict=args.strict, checkpoint=args.checkpoint)
            error_line(clean(f"verify: {message}"))
            if removed is False:
                return verdict.USAGE
    if args.pin and args.witness:
        error_line("verify: give --pin or --witness, not both")
        return verdict.USAGE
    if args.checkpoint:
        from sealscope.core.checkpoint import evidence_target
        from sealscope.core.sanitize import clean

        hit = evidence_target(args.checkpoint, args.ledgers)
        if hit is not None:
            error_line(
                f"verify: refusing --checkpoint {clean(args.checkpoint)}: it is the "
                f"evidence file {clean(hit)} (a checkpoint is never written over "
                "evidence)"
            )
            return verdict.USAGE
    if out_paths.refused(args, "verify", [*args.ledgers, args.pin, args.witness]):
        return verdict.USAGE
    pin = None
    if args.pin is not None:
        from sealscope.core import pins

        try:
            pin = pins.pin_from(args.pin)
        except ValueError as e:
            error_line(f"verify: --pin: {e}")
            return verdict.USAGE
    as_json = args.json or args.ci_format == "json"
    progress = not as_json or sys.stderr.isatty()
    ci = ci_flags.wanted(args)
    results = judge_all(
        args.ledgers,
        args.strict,
        pin,
        args.witness,
        args.ns,
        progress,
        args.incremental,
        args.checkpoint,
        bool(getattr(args, "vsa", None)),
        ci,
        args.jobs,
    )
    from sealscope.core import kinds

    for path in args.ledgers:  # the reference's answer stands; say what was meant, once:
        # a pack or bundle folder is named by `_other_kind_notes`, any other by this
        if os.path.isdir(path) and kinds.identify(path).kind is None:
            error_line(clean(f"verify: {path} is a folder: use `sealscope fleet {path}`"))
    code = verdict.worst(r[1] for r in results)
    docs = [r[0] for r in results]
    policy = {
        "verb": "verify",
        "strict": args.strict,
        "checks": ["chain"]
        + (["pin"] if pin is not None else [])
        + (["witness"] if args.witness else []),
    }
    _other_kind_notes(args.ledgers)
    human = "\n".join(
        human_line(path, r[0], r[3]) for path, r in zip(args.ledgers, results, strict=True)
    )
    if len(results) > 1:
        human += "\n" + _count_line(docs)
    one_line = human.split("\n", 1)[0] if len(docs) == 1 else _count_line(docs)
    if ci:
        from sealscope import ci_formats

        code = ci_formats.emit(
            args,
            [r[2] for r in results],
            code=code,
            policy=policy,
            summary=one_line,
            markdown=lambda: _markdown(
                [(p, r[3]) for p, r in zip(args.ledgers, results, strict=True)]
            ),
        )
        if ci_formats.github(args):
            return code
    if as_json:
        emit_json(
            docs[0]
            if len(docs) == 1
            else [dict(d, path=p) for p, d in zip(args.ledgers, docs, strict=True)]
        )
        return code
    print(human)
    return code


def _other_kind_notes(paths: list[str]) -> None:
    """One stderr line per file `check` would classify as another kind than a ledger
    (CLI.md): verify's own answer is unchanged, this only names the kind's own check."""
    from sealscope.core import kinds
    from sealscope.core.sanitize import clean

    for p in paths:
        kind = kinds.identify(p).kind
        if kind is not None and kind != kinds.LEDGER:
            sys.stderr.write(
                f"note: {clean(p)} looks like {kind}; its own check is "
                f"`sealscope check {clean(p)}`\n"
            )


def _count_line(docs: list[dict]) -> str:

    counts = {
        v: sum(1 for d in docs if d["verdict"] == v)
        for v in (verdict.VERIFIED, verdict.BROKEN, verdict.COULD_NOT_LOOK)
    }
    return (
        f"{len(docs)} ledgers: {counts[verdict.VERIFIED]} verified, "
        f"{counts[verdict.BROKEN]} broken, {counts[verdict.COULD_NOT_LOOK]} could not look"
    )


def _markdown(walked: list[tuple[str, Any]]) -> str:
    """The audit report of each ledger from its walk, for a CI step summary."""
    from sealscope.core.export import build_report

    return "\n\n".join(
        build_report(p, kind="ledger", verify_result=res).to_markdown() for p, res in walked
    )


def human_line(path: str, doc: dict, res: Any = None) -> str:
    """One or two lines: verdict, path, counts and scope; then the first break. When
    the chain (`res`) could not be looked at, why — `VerifyResult.reason()`, the words
    the viewer's banner shows — in the first line; a file that could not be read is
    that one line."""
    from sealscope.core.sanitize import clean

    why = (
        res.reason()
        if res is not None and verdict.chain(res).verdict == verdict.COULD_NOT_LOOK
        else ""
    )
    if why and res.unreadable:
        return f"{paint_verdict(doc['verdict'])}  {clean(path)}  {clean(why)}"
    head = (
        f"{paint_verdict(doc['verdict'])}  {clean(path)}  "
        + (f"{clean(why)} · " if why else "")
        + f"rows={doc['rows']} chained={doc['chained']} prechain={doc['prechain']} "
        f"breaks={doc['breaks']} scope={doc['verified_scope']}"
    )
    if doc["declared_breaks"]:
        head += f" declared={doc['declared_breaks']}"
    extra = []
    if doc.get("first_break"):
        extra.append(f"first break: {clean(doc['first_break'])}")
    for side in ("pin", "witness"):
        if side in doc:
            extra.append(f"{side}: {doc[side]['verdict']} — {clean(doc[side]['detail'])}")
    resumed = doc.get("resumed")
    if resumed is not None:
        if resumed["sentence"]:
            extra.append(resumed["sentence"])
        extra.extend(f"note: {clean(n)}" for n in resumed["notes"])
    return "\n".join([head] + ["  " + e for e in extra])
