"""mcp-vet grades (KINDS-3.md §23): what `arcaeon vet verify GRADE SOURCE` re-derives,
as far as sealscope can re-derive it without the grader.

The source is the basename of the grade's `target`, beside the grade file, else in
`--artefacts`; none → COULD NOT LOOK (`missing`). A grade is reproduced only when the
sha256 of the source (decoded UTF-8 with replacement, re-encoded) is its
`source_sha256` and a fresh grading of that source gives the same `findings` and
`verdict`, with no hollow pass. sealscope decides every part a fresh grading cannot
change:

* the sha256 differs → not reproduced (BROKEN);
* the grade contradicts what any fresh grading gives → not reproduced (BROKEN): a
  finding names a file other than `target` (findings name the target as given,
  quirk 69), its `verdict` is not the one its findings give (a parse finding →
  unparseable, then the highest severity, informational, none), or the source is
  empty (a fresh grading of no bytes is a hollow pass);
* otherwise the findings themselves can be known only by running the grader's static
  checks, which sealscope does not carry: COULD NOT LOOK (`bounded`), never VERIFIED.
"""

from __future__ import annotations

import hashlib
import os
from typing import Any

from sealscope.core import lines as _lines
from sealscope.core import verdict as _verdict
from sealscope.core.checks.result import CheckContext, KindCheck

__all__ = ["PROFILE", "is_grade", "check"]

PROFILE = "vet-grade"
_UNPARSEABLE = "unparseable — 0 checks ran"
_EMPTY_SHA = hashlib.sha256(b"").hexdigest()
_SOURCE_LIMIT = 64 << 20


def is_grade(value: Any) -> bool:
    """KINDS-3.md P3: a vet grade's keys."""
    return (
        isinstance(value, dict)
        and value.get("tool") == "mcp_vet"
        and isinstance(value.get("source_sha256"), str)
        and isinstance(value.get("findings"), list)
    )


def _verdict_of(findings: list[Any]) -> str:
    checks = [f.get("check") if isinstance(f, dict) else None for f in findings]
    sev = [f.get("severity") if isinstance(f, dict) else None for f in findings]
    if "parse" in checks:
        return _UNPARSEABLE
    for level, word in (("high", "high"), ("medium", "medium"), ("low", "low")):
        if level in sev:
            return f"{word}-severity findings"
    return "informational findings only" if findings else "no findings in checked classes"


def _contradictions(grade: dict[str, Any], sha: str) -> list[str]:
    """The reasons a fresh grading of the source (whose sha256 is `sha`, the grade's
    own) certainly gives; [] when it might reproduce the grade. Counted as the
    reference counts them: findings differ, verdict differs, a hollow pass."""
    findings = grade["findings"]
    out = []
    target = grade.get("target", "?")
    if not all(isinstance(f, dict) and f.get("file") == target for f in findings):
        out.append("findings differ: a finding names a file other than the grade's target")
    elif grade.get("verdict") != _verdict_of(findings):
        out.append(f"verdict {grade.get('verdict')!r} is not what its findings give")
    if sha == _EMPTY_SHA:
        out.append("hollow pass: the graded source is empty")
    return out


def _source(path: str, grade: dict[str, Any], ctx: CheckContext) -> str | None:
    target = grade.get("target")
    name = os.path.basename(target.replace("\\", "/")) if isinstance(target, str) else ""
    if not name or name in (".", ".."):
        return None
    for folder in (os.path.dirname(path), ctx.artefacts):
        if folder is not None and os.path.isfile(os.path.join(folder, name)):
            return os.path.join(folder, name)
    return None


def check(path: str, grade: dict[str, Any], ctx: CheckContext) -> KindCheck:
    """The check of one parsed vet grade. Never raises."""
    src = _source(path, grade, ctx)
    if src is None:
        return KindCheck(
            path,
            None,
            None,
            {"source": None, "reason_word": "missing"},
            word=_verdict.COULD_NOT_LOOK,
            reason="the graded source is not beside the grade nor in --artefacts",
        )
    name = os.path.basename(src)
    try:
        with _lines.open_regular(src) as fh:
            data = fh.read(_SOURCE_LIMIT + 1)
    except OSError as e:
        return KindCheck(
            path,
            None,
            None,
            {"source": name, "reason_word": "unreadable", "error": type(e).__name__},
            word=_verdict.COULD_NOT_LOOK,
            reason=f"cannot read the source {name}: {e.strerror or type(e).__name__}",
        )
    if len(data) > _SOURCE_LIMIT:
        return KindCheck(
            path,
            None,
            None,
            {"source": name, "reason_word": "unreadable"},
            word=_verdict.COULD_NOT_LOOK,
            reason=f"the source {name} is larger than {_SOURCE_LIMIT >> 20} MiB",
        )
    sha = hashlib.sha256(data.decode("utf-8", "replace").encode("utf-8")).hexdigest()
    if sha != grade.get("source_sha256"):
        reasons = [f"source bytes differ: {name} is not the file graded"]
    else:
        reasons = _contradictions(grade, sha)
    if reasons:
        return KindCheck(
            path,
            None,
            False,
            {"source": name, "reproduced": False, "reasons": len(reasons)},
            reason=reasons[0],
        )
    return KindCheck(
        path,
        None,
        None,
        {"source": name, "reproduced": None, "reasons": 0, "reason_word": "bounded"},
        word=_verdict.COULD_NOT_LOOK,
        reason="same source bytes and a self-consistent grade; its findings need the "
        "grader's static checks, which sealscope does not run",
    )
