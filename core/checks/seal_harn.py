"""Snapshots and harn files under `check` (KINDS.md §11.3): checked exactly as the
`snapshot` and `harn` verbs check them; `check` adds nothing. A snapshot's `ok` is its
`valid` and the word follows it (§0.1 rule 1): one that loads and validates is
VERIFIED (`detail.valid`, `detail.digest`), one that loads and does not BROKEN, one
that cannot be read COULD NOT LOOK (`ok` null); a harn file takes
the `harn` verb's exit rule (a high-severity finding BROKEN, else VERIFIED; a file that
cannot be read as one COULD NOT LOOK)."""

from __future__ import annotations

from sealscope.core import kinds as _kinds
from sealscope.core import verdict as _verdict
from sealscope.core.checks.result import CheckContext, KindCheck

__all__ = ["check"]

_BY_CODE = {_verdict.HELD: _verdict.VERIFIED, _verdict.WRONG: _verdict.BROKEN}


def _snapshot(path: str) -> KindCheck:
    from sealscope.core.sealfile import load_seal

    got = load_seal(path)
    doc = got.summary()
    detail = {
        "valid": doc["valid"],
        "digest": doc["digest"],
        "error": doc["error"],
        "label": doc["label"],
        "id_scheme": doc["id_scheme"],
        "probes": doc["probes"],
    }
    ok = None if got.exit_code == _verdict.COULD_NOT else bool(doc["valid"])
    return KindCheck(
        path,
        _kinds.SNAPSHOT,
        ok,
        detail,
        reason="" if doc["valid"] else (doc["error"] or "invalid"),
    )


def _harn(path: str) -> KindCheck:
    from sealscope.core import harn as _harn_mod

    try:
        doc = _harn_mod.load(path)
    except _harn_mod.HarnError as e:
        return KindCheck(
            path,
            _kinds.HARN,
            None,
            {"error": type(e).__name__},
            word=_verdict.COULD_NOT_LOOK,
            reason=str(e),
        )
    checks = _harn_mod.check_document(doc)
    out = _harn_mod.outcome_of(checks)
    word = _BY_CODE.get(out.exit_code, _verdict.COULD_NOT_LOOK)
    return KindCheck(
        path,
        _kinds.HARN,
        None,
        {"finding": out.verdict, "compactions": len(checks)},
        word=word,
        reason=out.verdict,
    )


def check(path: str, ctx: CheckContext) -> KindCheck:
    """Check a snapshot or a harn file, by its kind."""
    found = _kinds.identify(path)
    return _harn(path) if found.kind == _kinds.HARN else _snapshot(path)
