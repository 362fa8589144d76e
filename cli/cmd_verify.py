"""`sealscope verify LEDGER... [--strict] [--pin PIN] [--witness STORE --ns NS] [--json]
[--incremental [--checkpoint FILE]]`.

`--incremental` resumes from the ledger's checkpoint (the user's cache, or FILE) and
writes the new one: the verified prefix is hashed, only the appended bytes walked."""
from __future__ import annotations

import argparse
from typing import Any
import os
import sys

from sealscope import ci_formats
from sealscope.output import emit_json, error_line, paint_verdict, progress_callback


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("verify", help="walk and verify the hash chain of one or more ledgers")
    p.add_argument("ledgers", nargs="+", metavar="LEDGER")
    p.add_argument("--strict", action="store_true",
                   help="treat unchained rows as breaks and ignore declarations")
    p.add_argument("--pin", metavar="PIN",
                   help='a head pin ("arcaeon-ledger head chain=... rows=N as_of=...") '
                        'or a file holding one')
    p.add_argument("--witness", metavar="STORE", help="a witness store file to check against")
    p.add_argument("--ns", metavar="NAMESPACE", help="the witness namespace (with --witness)")
    p.add_argument("--json", action="store_true", help="print one JSON document")
    p.add_argument("--incremental", action="store_true",
                   help="resume from the ledger's checkpoint and update it: walk only "
                        "what was appended since (see README: checkpoints)")
    p.add_argument("--reset", action="store_true",
                   help="with --incremental: remove the ledger's checkpoint first (only a "
                        "sealscope checkpoint is removed) and verify in full")
    p.add_argument("--checkpoint", metavar="FILE",
                   help="the checkpoint file (with --incremental; default: "
                        "$XDG_CACHE_HOME/sealscope/checkpoints/)")
    ci_formats.add_arguments(p)
    p.set_defaults(func=run)


def judge(path: str, strict: bool = False, pin=None, store: str | None = None,
          ns: str | None = None, progress: bool = False, incremental: bool = False,
          checkpoint: str | None = None) -> tuple[dict, int, Any, Any]:
    """Verify one ledger (and its pin or witness): the JSON object, the exit code,
    the CI suite (the chain and each check, the lines to annotate) and the chain's
    `VerifyResult` (for the step summary's report, so it is not walked twice)."""
    from sealscope.core import ledger, pins, verdict, witness

    on_progress = progress_callback(f"verify {path}") if progress else None
    if incremental:
        from sealscope.core.checkpoint import verify_incremental
        inc = verify_incremental(path, strict=strict, checkpoint=checkpoint,
                                 on_progress=on_progress)
        res = inc.result
        doc = res.to_dict()
        doc["resumed"] = {"resumed": inc.resumed is not None,
                          **(inc.resumed.to_dict() if inc.resumed else {}),
                          "sentence": inc.resumed.sentence() if inc.resumed else None,
                          "checkpoint": inc.checkpoint, "written": inc.saved,
                          "caught": inc.change, "notes": list(inc.notes)}
    else:
        res = ledger.verify(path, strict=strict, on_progress=on_progress)
        doc = res.to_dict()
    checks = []
    if pin is not None:
        checks.append(pins.check_pin(path, pin, local=res))
        doc["pin"] = checks[-1].to_dict()
    elif store:
        checks.append(witness.verify_against_witness(store, ns or "", path, local=res))
        doc["witness"] = checks[-1].to_dict()
    out = verdict.combined(res, *checks)
    doc["verdict"] = out.verdict
    names = ["pin"] if pin is not None else ["witness"] if store else []
    suite = ci_formats.chain_suite(path, res, list(zip(names, checks, strict=True)))
    return doc, out.exit_code, suite, res


# Several ledgers: the small ones are verified side by side in worker processes while
# the large ones (each already split across workers) go one at a time here.
MANY_MIN_BYTES = 16 << 20


def judge_all(paths: list[str], strict: bool, pin, store: str | None, ns: str | None,
              progress: bool, incremental: bool = False,
              checkpoint: str | None = None) -> list[tuple[dict, int, Any, Any]]:
    from sealscope.core.ledger import PARALLEL_MIN_BYTES

    sizes: list[int | None] = []
    for p in paths:
        try:
            sizes.append(os.stat(p).st_size)
        except OSError:
            sizes.append(None)
    small = [i for i, n in enumerate(sizes) if n is not None and n < PARALLEL_MIN_BYTES]
    results: list = [None] * len(paths)
    many = sum(sizes[i] or 0 for i in small) >= MANY_MIN_BYTES
    if len(small) > 1 and many and (os.cpu_count() or 1) > 1:
        try:
            from concurrent.futures import ProcessPoolExecutor

            from sealscope.core.pools import spawn_context
            with ProcessPoolExecutor(max_workers=min(len(small), os.cpu_count() or 1),
                                     mp_context=spawn_context()) as pool:
                futures = {i: pool.submit(judge, paths[i], strict, pin, store, ns, False,
                                          incremental, checkpoint) for i in small}
                for i in range(len(paths)):
                    if i not in futures:
                        results[i] = judge(paths[i], strict, pin, store, ns, progress,
                                           incremental, checkpoint)
                for i, f in futures.items():
                    results[i] = f.result()
        except Exception:  # noqa: BLE001 - no worker processes here: one at a time below
            pass
    return [r if r is not None else judge(p, strict, pin, store, ns, progress, incremental,
                                          checkpoint)
            for p, r in zip(paths, results, strict=True)]


def run(args: argparse.Namespace) -> int:
    from sealscope.core import pins

    if args.witness and not args.ns:
        error_line("verify: --witness needs --ns NAMESPACE")
        return 2
    if args.ns and not args.witness:
        error_line("verify: --ns goes with --witness STORE")
        return 2
    if args.checkpoint and not args.incremental:
        error_line("verify: --checkpoint goes with --incremental")
        return 2
    if args.checkpoint and len(args.ledgers) > 1:
        error_line("verify: --checkpoint FILE holds one ledger's checkpoint; give one LEDGER")
        return 2
    if args.reset and not args.incremental:
        error_line("verify: --reset goes with --incremental")
        return 2
    from sealscope.core.sanitize import clean

    if args.reset:
        from sealscope.core.checkpoint import forget

        for path in args.ledgers:
            removed, message = forget(path, strict=args.strict, checkpoint=args.checkpoint)
            error_line(clean(f"verify: {message}"))
            if removed is False:
                return 2
    if args.pin and args.witness:
        error_line("verify: give --pin or --witness, not both")
        return 2
    pin = None
    if args.pin is not None:
        try:
            pin = pins.pin_from(args.pin)
        except ValueError as e:
            error_line(f"verify: --pin: {e}")
            return 2
    as_json = args.json or args.ci_format == "json"
    progress = not as_json or sys.stderr.isatty()
    results = judge_all(args.ledgers, args.strict, pin, args.witness, args.ns, progress,
                        args.incremental, args.checkpoint)
    for path in args.ledgers:   # the reference's answer stands; say what was meant
        if os.path.isdir(path):
            error_line(clean(f"verify: {path} is a folder: use `sealscope fleet {path}`"))
    from sealscope.core import verdict
    code = verdict.worst(r[1] for r in results)
    docs = [r[0] for r in results]
    policy = {"verb": "verify", "strict": args.strict,
              "checks": ["chain"] + (["pin"] if pin is not None else [])
              + (["witness"] if args.witness else [])}
    human = "\n".join(human_line(path, r[0], r[3])
                      for path, r in zip(args.ledgers, results, strict=True))
    if len(results) > 1:
        human += "\n" + _count_line(docs)
    one_line = human.split("\n", 1)[0] if len(docs) == 1 else _count_line(docs)
    code = ci_formats.emit(args, [r[2] for r in results], code=code, policy=policy,
                           summary=one_line,
                           markdown=lambda: _markdown([(p, r[3]) for p, r in
                                                       zip(args.ledgers, results, strict=True)]))
    if ci_formats.github(args):
        return code
    if as_json:
        emit_json(docs[0] if len(docs) == 1 else
                  [dict(d, path=p) for p, d in zip(args.ledgers, docs, strict=True)])
        return code
    print(human)
    return code


def _count_line(docs: list[dict]) -> str:
    from sealscope.core import verdict

    counts = {v: sum(1 for d in docs if d["verdict"] == v)
              for v in (verdict.VERIFIED, verdict.BROKEN, verdict.COULD_NOT_LOOK)}
    return (f"{len(docs)} ledgers: {counts[verdict.VERIFIED]} verified, "
            f"{counts[verdict.BROKEN]} broken, {counts[verdict.COULD_NOT_LOOK]} could not look")


def _markdown(walked: list[tuple[str, Any]]) -> str:
    """The audit report of each ledger from its walk, for a CI step summary."""
    from sealscope.core.export import build_report

    return "\n\n".join(build_report(p, kind="ledger", verify_result=res).to_markdown()
                       for p, res in walked)


def human_line(path: str, doc: dict, res: Any = None) -> str:
    """One or two lines: verdict, path, counts and scope; then the first break. When
    the chain (`res`) could not be looked at, why — `VerifyResult.reason()`, the words
    the viewer's banner shows — in the first line; a file that could not be read is
    that one line."""
    from sealscope.core import verdict
    from sealscope.core.sanitize import clean

    why = res.reason() if res is not None and \
        verdict.chain(res).verdict == verdict.COULD_NOT_LOOK else ""
    if why and res.unreadable:
        return f"{paint_verdict(doc['verdict'])}  {clean(path)}  {clean(why)}"
    head = (f"{paint_verdict(doc['verdict'])}  {clean(path)}  "
            + (f"{clean(why)} · " if why else "")
            + f"rows={doc['rows']} chained={doc['chained']} prechain={doc['prechain']} "
            f"breaks={doc['breaks']} scope={doc['verified_scope']}")
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
