"""Every kind's own check (`sealscope check`, KINDS.md): one module per kind, each with
`check(path, ctx) -> KindCheck`; `result.KindCheck` is what they return.

`run(paths, ctx)` classifies each path (`core.kinds.identify`, KINDS.md §1) and runs
its kind's checker (the kind registry's, `core.registry`), imported by name when first
needed, so a kind whose checker is
not installed answers COULD NOT LOOK (`detail.error` naming the missing module) instead
of failing the run. Stored verdicts named as PATHs join the `continuity_verify` rows of
every ledger of the run (KINDS.md §5.3): `run_context` gives that context, the same for
`check` and for a fleet (whose run is every path it found). A checker that raises
could not look: the result is COULD NOT LOOK with `detail.error` the exception's class
name (§0.1 rule 2), never a traceback.
"""

from __future__ import annotations

import contextlib
import dataclasses
import importlib
import os
from collections.abc import Iterable, Sequence
from typing import Any

from sealscope.core import bound_reads as _bound
from sealscope.core import kinds as _kinds
from sealscope.core import registry as _registry
from sealscope.core import verdict as _verdict
from sealscope.core.checks.result import CheckContext, KindCheck

__all__ = [
    "CHECKERS",
    "run",
    "run_context",
    "check_path",
    "check_kind",
    "KindCheck",
    "CheckContext",
]

# evidence kind → the module that checks it: the kind registry's (`core.registry`)
CHECKERS = _registry.CHECKERS


def _none(found: _kinds.Identified) -> KindCheck:
    return KindCheck(
        found.path, None, None, {"reason_word": found.reason_word}, reason=found.reason
    )


def _could_not(path: str, kind: str, error: str, why: str) -> KindCheck:
    return KindCheck(path, kind, None, {"error": error}, reason=why)


def check_path(found: _kinds.Identified, ctx: CheckContext) -> KindCheck:
    """The check of one identified path, its profile applied (KINDS-3.md §15.4),
    paired with no other path. Never raises."""
    from sealscope.core.profiles import stage as _stage

    own = check_kind(found, ctx)
    return _profile_bound(lambda: [_stage.apply(found, own, ctx)[0]], ctx)[0]


def _profile_bound(stage: Any, ctx: CheckContext) -> list[KindCheck]:
    """The profile stage's results (`stage()`), each that names no bytes yet bound to
    the bytes the stage read of its path when the run binds reads (a VSA): a profile
    read the document its §1 check did not (a mandate, a once receipt), so a VERIFIED
    of its has a subject as every other kind's has."""
    if not ctx.bind_reads:
        out: list[KindCheck] = stage()
        return out
    with _bound.recording() as reads:
        out = stage()
    return [r if r.subjects is not None else _bound_to(r, reads) for r in out]


def check_kind(found: _kinds.Identified, ctx: CheckContext) -> KindCheck:
    """The §1 kind's own check of one identified path. Never raises."""
    if found.kind is None:
        return _none(found)
    name = _registry.checker_module(found.kind)
    if name is None:  # pragma: no cover - every identified kind has a record
        return _could_not(
            found.path, found.kind, "NotImplementedError", f"no checker for {found.kind}"
        )
    try:
        mod = importlib.import_module(name)
    except ImportError as e:
        return _could_not(
            found.path,
            found.kind,
            type(e).__name__,
            f"the {found.kind} checker is not available in this build",
        )
    try:
        with _bound.recording() if ctx.bind_reads else contextlib.nullcontext() as reads:
            res: KindCheck = mod.check(found.path, ctx)
        if reads is not None:
            res = _bound_to(res, reads)
    except Exception as e:  # noqa: BLE001 - a verifier that raises could not look (§0.1)
        return _could_not(
            found.path,
            found.kind,
            type(e).__name__,
            f"the check could not finish: {type(e).__name__}",
        )
    if res.kind is None and res.detail.get("reason_word") is None:
        res = dataclasses.replace(res, detail={**res.detail, "reason_word": "unreadable"})
    if res.kind == _kinds.LEDGER:  # a profile of a ledger: a case says what it is
        from sealscope.core.case.profile import profiled

        res = profiled(res)
    return res


def _bound_to(res: KindCheck, reads: _bound.Reads) -> KindCheck:
    """`res` naming the bytes it judged (`KindCheck.subjects`): a file its checker read
    whole is its one digest, `()` when its reads did not agree or could not be bound
    (it changed while read). A unit folder's members are its checker's own answer."""
    if res.subjects is not None or os.path.isdir(res.path) or not reads.read(res.path):
        return res
    digest = reads.digest_of(res.path)
    return dataclasses.replace(res, subjects=((res.path, digest),) if digest else ())


def _joined(found: Iterable[_kinds.Identified], ctx: CheckContext) -> CheckContext:
    """`ctx` with every continuity verdict of `found` held (after those it held)."""
    verdicts = tuple(f.path for f in found if f.kind == _kinds.CONTINUITY_VERDICT)
    return dataclasses.replace(
        ctx,
        verdict_files=(*ctx.verdict_files, *(v for v in verdicts if v not in ctx.verdict_files)),
    )


def run_context(paths: Iterable[str], artefacts: str | None = None) -> CheckContext:
    """The context one run over `paths` gives each of its checks (KINDS.md §5.3): the
    `--artefacts DIR` folder, and as held verdicts every path among them the
    classifier calls a continuity verdict, in the order given. What `run` judges with,
    and what a fleet gives the ledgers it found beside stored verdicts."""
    return _joined((_kinds.identify(p) for p in paths), CheckContext(artefacts=artefacts))


def run(paths: Sequence[str], ctx: CheckContext | None = None) -> list[KindCheck]:
    """Check every path in order (KINDS.md §12: one result per path), each with its
    profile (KINDS-3.md §15), two-file profiles paired within these paths."""
    from sealscope.core.profiles import stage as _stage

    found = [_kinds.identify(p) for p in paths]
    ctx = _joined(found, ctx or CheckContext())
    own = [check_kind(f, ctx) for f in found]
    return _profile_bound(lambda: list(_stage.profiled(found, own, ctx)), ctx)


def exit_code(results: Sequence[KindCheck]) -> int:
    """The run's exit code: the worst over its paths (1 over 3 over 0)."""
    return _verdict.worst(r.exit_code for r in results)


def summary(results: Sequence[KindCheck]) -> dict[str, Any]:
    """Counts by verdict word, for a footer."""
    out: dict[str, int] = {}
    for r in results:
        out[r.verdict] = out.get(r.verdict, 0) + 1
    return out
