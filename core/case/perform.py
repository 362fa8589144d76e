"""Running one recorded check: the same function records it and replays it.

A check is named by what was run (`CHECKS`):
- `kind`: the evidence kind's own check (`core.checks`), with an optional artefacts
  folder of held things (an input of role `artefacts`);
- `pin`: a ledger's chain judged against a head pin (`core.pins`), the pin given as its
  text (kept in `args`) or a file (an input of role `pin`);
- `witness`: a ledger judged against a witness store (an input of role `witness`) in
  the namespace `args.namespace`;
- `receipts`: a ledger's compaction receipts recomputed from held content (inputs of
  role `pre` / `post`), optionally only the row on `args.line`.

Every input is read once (`evidence.read_evidence`) before the check and confirmed
unchanged after it (`evidence.changed_since`); an input that cannot be read, or that
changed under the check, makes the check COULD NOT LOOK saying so. The result is the
check's full result JSON and its digest (`result_digest`: SHA-256 of the chain body
serialisation, sorted keys), the word, the exit code, the bound and the reason.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.case.evidence import Evidence, Unreadable, changed_since, read_evidence

__all__ = ["CHECKS", "Input", "Performed", "perform", "result_digest"]

CHECKS = ("kind", "pin", "witness", "receipts")


@dataclass(frozen=True)
class Input:
    """One input of a check: its `role` and path as given."""

    role: str
    path: str


@dataclass(frozen=True)
class Performed:
    """A check as performed: what, its inputs as read, the word and the full result."""

    check: str
    inputs: tuple[Evidence | Unreadable, ...]
    roles: tuple[str, ...]
    args: dict[str, Any]
    verdict: str
    exit_code: int
    bound: str
    reason: str
    result: dict[str, Any] = field(default_factory=dict)

    @property
    def result_sha256(self) -> str:
        return result_digest(self.result)

    def input_fields(self) -> list[dict[str, Any]]:
        """The `inputs` of a `check` entry."""
        out = []
        for role, ev in zip(self.roles, self.inputs, strict=True):
            out.append(
                {
                    "role": role,
                    "path": ev.path,
                    "resolved": ev.resolved,
                    "sha256": ev.sha256 if isinstance(ev, Evidence) else None,
                }
            )
        return out


def result_digest(result: dict[str, Any]) -> str:
    """SHA-256 (hex) of the result as the chain body serialises a row: sorted keys,
    default separators, raw non-ASCII; a value JSON cannot hold is written as `str`."""
    text = json.dumps(result, ensure_ascii=False, sort_keys=True, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def _kind(paths: dict[str, str], args: dict[str, Any]) -> tuple[str, int, str, str, dict[str, Any]]:
    from sealscope.core import checks
    from sealscope.core.checks.result import CheckContext

    res = checks.run([paths["evidence"]], CheckContext(artefacts=paths.get("artefacts")))[0]
    return res.verdict, res.exit_code, res.bound, res.reason, res.to_dict()


def _pin(paths: dict[str, str], args: dict[str, Any]) -> tuple[str, int, str, str, dict[str, Any]]:
    from sealscope.core import ledger, pins

    path = paths["evidence"]
    try:
        pin = pins.pin_from(paths.get("pin") or str(args.get("pin") or ""))
    except ValueError as e:
        return _verdict.COULD_NOT_LOOK, _verdict.COULD_NOT, "", str(e), {"error": str(e)}
    res = ledger.verify(path)
    v = pins.check_pin(path, pin, local=res)
    out = _verdict.combined(res, v)
    reason = res.reason() if res.ok is False else str(getattr(v, "verdict", ""))
    return out.verdict, out.exit_code, "", reason, {"chain": res.to_dict(), "pin": v.to_dict()}


def _witness(
    paths: dict[str, str], args: dict[str, Any]
) -> tuple[str, int, str, str, dict[str, Any]]:
    from sealscope.core import ledger, witness

    path = paths["evidence"]
    res = ledger.verify(path)
    v = witness.verify_against_witness(paths["witness"], str(args.get("namespace") or ""), path)
    out = _verdict.combined(res, v)
    reason = res.reason() if res.ok is False else str(getattr(v, "verdict", ""))
    return out.verdict, out.exit_code, "", reason, {"chain": res.to_dict(), "witness": v.to_dict()}


def _receipts(
    paths: dict[str, str], args: dict[str, Any]
) -> tuple[str, int, str, str, dict[str, Any]]:
    """Receipt rows recomputed from held content; with several rows and no line, the
    content goes to the rows whose claimed digest it matches (as `receipts` does)."""
    from sealscope.core import held, lookup, receipt

    contents: dict[str, Any] = {}
    for side in ("pre", "post"):
        if side in paths:
            try:
                contents[side] = receipt.content_of(held.load_held(paths[side]))
            except held.HeldContentError as e:
                why = f"--{side}: {e}"
                return _verdict.COULD_NOT_LOOK, _verdict.COULD_NOT, "", why, {"error": why}
        else:
            contents[side] = None
    line = args.get("line")
    rows = [
        (n, row)
        for n, row in lookup.iter_receipt_rows(paths["evidence"], None)
        if line is None or n == line
    ]
    if not rows:
        why = "no receipt row" + (f" on line {line}" if line is not None else "")
        return _verdict.COULD_NOT_LOOK, _verdict.COULD_NOT, "", why, {"rows": []}
    given = {side: c.digest for side, c in contents.items() if c is not None}
    matched = {n for n, row in rows if any(_claimed(row, side) == d for side, d in given.items())}
    if given and len(rows) > 1 and not matched:
        why = "the held content matches no receipt row's claimed digest; choose the row (--line N)"
        return _verdict.COULD_NOT_LOOK, _verdict.COULD_NOT, "", why, {"error": why}
    checked = []
    for n, row in rows:
        use = len(rows) == 1 or n in matched
        pre, post = (contents["pre"], contents["post"]) if use else (None, None)
        checked.append((n, receipt.verify_receipt(row, pre, post)))
    out = _verdict.receipts(c for _n, c in checked)
    bad = [n for n, c in checked if c.exit_code == _verdict.WRONG]
    reason = (
        f"receipt row on line {bad[0]} is not ok"
        if bad
        else _verdict.scope_note(c for _n, c in checked)
    )
    result = {"rows": [{"line": n, **c.to_dict()} for n, c in checked]}
    return out.verdict, out.exit_code, "", reason, result


def _claimed(row: Any, side: str) -> Any:
    part = row.get(side) if isinstance(row, dict) else None
    return part.get("digest") if isinstance(part, dict) else None


_RUN: dict[
    str, Callable[[dict[str, str], dict[str, Any]], tuple[str, int, str, str, dict[str, Any]]]
]
_RUN = {"kind": _kind, "pin": _pin, "witness": _witness, "receipts": _receipts}


def perform(check: str, inputs: list[Input], args: dict[str, Any] | None = None) -> Performed:
    """Run `check` over `inputs` (the first of role `evidence`). Never raises."""
    args = dict(args or {})
    read = tuple(read_evidence(i.path) for i in inputs)
    roles = tuple(i.role for i in inputs)
    if check not in _RUN:
        why = f"not a check this sealscope performs: {check!r}"
        return Performed(
            check, read, roles, args, _verdict.COULD_NOT_LOOK, _verdict.COULD_NOT, "", why
        )
    for ev in read:
        if isinstance(ev, Unreadable):
            why = f"{ev.path}: {ev.why}"
            return Performed(
                check,
                read,
                roles,
                args,
                _verdict.COULD_NOT_LOOK,
                _verdict.COULD_NOT,
                "",
                why,
                {"error": why},
            )
    paths = {i.role: i.path for i in inputs}
    try:
        word, code, bound, reason, result = _RUN[check](paths, args)
    except (OSError, ValueError) as e:  # what a check could not read
        why = f"the check could not finish: {type(e).__name__}"
        return Performed(
            check,
            read,
            roles,
            args,
            _verdict.COULD_NOT_LOOK,
            _verdict.COULD_NOT,
            "",
            why,
            {"error": type(e).__name__},
        )
    for ev in read:
        assert isinstance(ev, Evidence)
        changed = changed_since(ev)
        if changed is not None:
            word, code, bound, reason = (
                _verdict.COULD_NOT_LOOK,
                _verdict.COULD_NOT,
                "",
                f"{ev.path}: {changed}",
            )
            break
    return Performed(check, read, roles, args, word, code, bound, reason, result)
