"""Replaying a case: every recorded check re-performed on the files it names.

Each `check` entry is run again (`perform.perform`, the function that recorded it) on
its inputs, found at their recorded absolute paths or, with `root`, under `root` at
their place relative to the folder holding every recorded input (`relocate`). Per
check, one status:
- `holds`: every input has its recorded SHA-256 and the check gives its recorded word
  and bound (VERIFIED);
- `evidence changed`: an input's SHA-256 differs from the recorded one (BROKEN);
- `changed`: the inputs are the recorded bytes but the word or bound differs ("was X,
  now Y": BROKEN), or, for a check whose word does not say what it found
  (`perform.FINDING_IN_RESULT`: a look-up, a seal diff, a restatement), its result
  digest differs;
- `missing` / `could not look`: an input is gone or unreadable (COULD NOT LOOK).
The replay's word is the worst of them and of the case's own chain (a case that does not
verify cannot vouch for what it records), via `verdict.worst_word`; no check is COULD NOT LOOK.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.case.evidence import Evidence, Unreadable
from sealscope.core.case.perform import FINDING_IN_RESULT, Input, perform
from sealscope.core.case.rows import CaseEntry
from sealscope.core.case.store import CaseRead, read_case

__all__ = ["Replayed", "Replay", "replay", "relocate", "read_paths"]

HOLDS, CHANGED, EVIDENCE_CHANGED, MISSING, COULD_NOT = (
    "holds",
    "changed",
    "evidence changed",
    "missing",
    "could not look",
)
_WORD = {
    HOLDS: _verdict.VERIFIED,
    CHANGED: _verdict.BROKEN,
    EVIDENCE_CHANGED: _verdict.BROKEN,
    MISSING: _verdict.COULD_NOT_LOOK,
    COULD_NOT: _verdict.COULD_NOT_LOOK,
}


@dataclass(frozen=True)
class Replayed:
    """One recorded check replayed: the case `line` it was recorded on, what was run,
    the evidence `path` (as found now), the `status`, and `detail` in words."""

    line: int
    check: str
    path: str
    status: str
    detail: str
    was: str
    now: str | None

    @property
    def verdict(self) -> str:
        return _WORD[self.status]

    def to_dict(self) -> dict[str, Any]:
        return {
            "line": self.line,
            "check": self.check,
            "path": self.path,
            "status": self.status,
            "verdict": self.verdict,
            "detail": self.detail,
            "was": self.was,
            "now": self.now,
        }


@dataclass(frozen=True)
class Replay:
    """A case replayed: the case as read and every recorded check's replay."""

    case: CaseRead
    items: tuple[Replayed, ...]

    @property
    def verdict(self) -> str:
        words = [i.verdict for i in self.items]
        case_word = self.case.verdict
        if case_word != _verdict.VERIFIED:
            words.append(case_word)
        return _verdict.worst_word(words) if words else _verdict.COULD_NOT_LOOK

    @property
    def exit_code(self) -> int:
        return _verdict.code_of(self.verdict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "case": self.case.path,
            "case_verdict": self.case.verdict,
            "case_reason": self.case.reason(),
            "head": {"rows": self.case.head_rows, "chain": self.case.head_chain},
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "checks": [i.to_dict() for i in self.items],
        }


def _inputs(e: CaseEntry) -> list[dict[str, Any]]:
    raw = e.get("inputs")
    return [i for i in raw if isinstance(i, dict)] if isinstance(raw, list) else []


def _common(entries: list[CaseEntry]) -> str | None:
    folders = [
        os.path.dirname(str(i.get("resolved")))
        for e in entries
        if e.entry == "check"
        for i in _inputs(e)
        if isinstance(i.get("resolved"), str) and os.path.isabs(str(i.get("resolved")))
    ]
    if not folders:
        return None
    try:
        return os.path.commonpath(folders)
    except ValueError:
        return None


def relocate(resolved: str, common: str | None, root: str | None) -> str:
    """Where a recorded input is looked for: its recorded path, or under `root` at its
    place relative to `common` (the folder holding every recorded input)."""
    if root is None or common is None:
        return resolved
    return os.path.join(root, os.path.relpath(resolved, common))


def read_paths(entries: list[CaseEntry], root: str | None = None) -> list[str]:
    """Every file or folder the case names (an evidence entry's, every check input's),
    where a replay with `root` looks for it: the paths nothing written may land on."""
    common = _common(entries)
    out: list[str] = []
    for e in entries:
        named = [e.get("resolved")] if e.entry == "evidence" else []
        if e.entry == "check":
            named += [i.get("resolved") for i in _inputs(e)]
        for p in named:
            if isinstance(p, str):
                out += [p, relocate(p, common, root)] if root is not None else [p]
    return list(dict.fromkeys(out))


def _one(e: CaseEntry, common: str | None, root: str | None) -> Replayed:
    check = str(e.get("check"))
    was = str(e.get("verdict"))
    recorded = _inputs(e)
    inputs = [
        Input(str(i.get("role")), relocate(str(i.get("resolved") or i.get("path")), common, root))
        for i in recorded
    ]
    shown = inputs[0].path if inputs else "-"
    if not inputs:
        return Replayed(e.line, check, shown, COULD_NOT, "the check records no input", was, None)
    args = e.get("args") if isinstance(e.get("args"), dict) else {}
    done = perform(check, inputs, args)
    for rec, ev in zip(recorded, done.inputs, strict=True):
        if isinstance(ev, Unreadable):
            status = MISSING if ev.missing else COULD_NOT
            return Replayed(e.line, check, ev.path, status, f"{ev.path}: {ev.why}", was, None)
        assert isinstance(ev, Evidence)
        if ev.sha256 != rec.get("sha256"):
            return Replayed(
                e.line,
                check,
                ev.path,
                EVIDENCE_CHANGED,
                f"evidence changed: sha256 differs ({ev.path})",
                was,
                done.verdict,
            )
    bound_was = e.get("bound") or ""
    if done.verdict == was and (done.bound or "") == bound_was:
        if check not in FINDING_IN_RESULT or done.result_sha256 == e.get("result_sha256"):
            return Replayed(e.line, check, shown, HOLDS, "holds", was, done.verdict)
        detail = (
            f"changed: was {was} ({e.get('reason')}), now {done.verdict} ({done.reason}): "
            "the result differs"
        )
        return Replayed(e.line, check, shown, CHANGED, detail, was, done.verdict)
    if done.verdict == _verdict.COULD_NOT_LOOK and was != _verdict.COULD_NOT_LOOK:
        return Replayed(e.line, check, shown, COULD_NOT, done.reason, was, done.verdict)
    now = done.verdict + (f" · {done.bound}" if done.bound else "")
    before = was + (f" · {bound_was}" if bound_was else "")
    return Replayed(
        e.line, check, shown, CHANGED, f"changed: was {before}, now {now}", was, done.verdict
    )


def replay(case: str, *, root: str | None = None) -> Replay:
    """Replay every check recorded in `case` (store.CaseError when it cannot be read)."""
    read = read_case(case)
    entries = list(read.entries)
    common = _common(entries)
    items = tuple(_one(e, common, root) for e in entries if e.entry == "check")
    return Replay(read, items)
