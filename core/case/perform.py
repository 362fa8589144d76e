"""Running one recorded check: the same function records it and replays it.

A check is named by what was run (`CHECKS`):
- `kind`: the evidence kind's own check (`core.checks`), with an optional artefacts
  folder of held things (an input of role `artefacts`);
- `pin`: a ledger's chain judged against a head pin (`core.pins`), the pin given as its
  text (kept in `args`) or a file (an input of role `pin`);
- `witness`: a ledger judged against a witness store (an input of role `witness`) in
  the namespace `args.namespace`;
- `receipts`: a ledger's compaction receipts recomputed from held content (inputs of
  role `pre` / `post`), optionally only the row on `args.line`;
- `lookup`: held items (inputs of role `held`, or the typed text `args.text`) found in
  the ledger's drop manifests, as `sealscope lookup` finds them: NOTED whenever the
  files could be read, found or not (where they were found is the result);
- `diff`: the evidence (a sealed snapshot) diffed against a later one (role `new`), as
  `sealscope diff`: VALID when both load and validate (the changes are the result);
- `restatement`: a restatement (role `restated`) scored against the evidence (a sealed
  snapshot), as `sealscope continuity`, strict unless `args.loose` (its result without
  the `compared_at` stamps).
`diff` and `restatement` take an optional tiers file (role `tiers`).

Every input is read once (`evidence.read_evidence`) before the check and confirmed
unchanged after it (`evidence.changed_since`); an input that cannot be read, or that
changed under the check, makes the check COULD NOT LOOK saying so. The result is the
check's full result JSON and its digest (`result_digest`: SHA-256 of the chain body
serialisation, sorted keys), the word, the exit code, the bound and the reason.
For the checks in `FINDING_IN_RESULT` the word does not say what was found (a lookup
is NOTED found or not), so a replay compares their result digest too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.case.evidence import Evidence, Unreadable, changed_since, read_evidence

__all__ = ["CHECKS", "FINDING_IN_RESULT", "Input", "Performed", "perform", "result_digest"]

CHECKS = ("kind", "pin", "witness", "receipts", "lookup", "diff", "restatement")
FINDING_IN_RESULT = ("lookup", "diff", "restatement")


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


def _said(e: Exception) -> str:
    """An exception as a reason: an OSError by its error text, a ValueError (a file a
    check cannot use) by its message."""
    if isinstance(e, OSError):
        return e.strerror or type(e).__name__
    return str(e) or type(e).__name__


def _claimed(row: Any, side: str) -> Any:
    part = row.get(side) if isinstance(row, dict) else None
    return part.get("digest") if isinstance(part, dict) else None


def _lookup(
    paths: dict[str, str], args: dict[str, Any], held_paths: list[str]
) -> tuple[str, int, str, str, dict[str, Any]]:
    """`sealscope lookup LEDGER HELD...` over the evidence (one ledger)."""
    from sealscope.core import held, lookup

    items: list[Any]
    if "text" in args:
        items = list(lookup.typed_items(str(args["text"])))
    else:
        try:
            items = held.load_many(held_paths)
        except held.HeldContentError as e:
            return _verdict.COULD_NOT_LOOK, _verdict.COULD_NOT, "", str(e), {"error": str(e)}
    if not items:
        why = "nothing to look up: no held item"
        return _verdict.COULD_NOT_LOOK, _verdict.COULD_NOT, "", why, {"error": why}
    index = lookup.DropIndex.build([paths["evidence"]])
    places_of = [
        [{"line": loc.line, "position": loc.position} for loc in index.where(it.digest)]
        for it in items
    ]
    docs: list[dict[str, Any]] = [
        {"digest": it.digest, "bytes": it.size, "found": found}
        for it, found in zip(items, places_of, strict=True)
    ]
    result = {
        "items": docs,
        "receipt_rows": index.rows,
        "manifest_entries": index.entries,
        "unexplained_entries": len(index.unexplained(it.digest for it in items)),
    }
    hits = sum(1 for found in places_of if found)
    places = sum(len(found) for found in places_of)
    reason = (
        f"{hits} of {_verdict.plural(len(docs), 'held item')} found in the drop "
        f"manifests ({_verdict.plural(places, 'place')})"
    )
    return _verdict.NOTED, _verdict.HELD, "", reason, result


def _tiers(paths: dict[str, str]) -> dict[str, Any] | None:
    from sealscope.core.sealfile import load_tiers

    return load_tiers(paths["tiers"]) if "tiers" in paths else None


def _diff(
    paths: dict[str, str], args: dict[str, Any], _listed: list[str]
) -> tuple[str, int, str, str, dict[str, Any]]:
    """`sealscope diff OLD NEW` with the evidence as OLD."""
    from sealscope.core.continuity import diff_seals
    from sealscope.core.sealfile import load_seal, unusable

    old, new = load_seal(paths["evidence"]), load_seal(paths["new"])
    why = unusable(old, new)
    if why is not None:
        message, code = why
        word = _verdict.INVALID if code == _verdict.WRONG else _verdict.COULD_NOT_LOOK
        return word, code, "", message, {"error": message}
    tiers = _tiers(paths)
    assert old.snap is not None and new.snap is not None  # both ok: checked above
    doc = diff_seals(old.snap, new.snap, tiers=tiers)
    reason = (
        f"{len(doc['changed'])} changed, {len(doc['added'])} added, "
        f"{len(doc['removed'])} removed, {doc['n_unchanged']} unchanged"
    )
    return _verdict.VALID, _verdict.HELD, "", reason, doc


def _restatement(
    paths: dict[str, str], args: dict[str, Any], _listed: list[str]
) -> tuple[str, int, str, str, dict[str, Any]]:
    """`sealscope continuity SNAPSHOT --restated R [--loose] [--tiers F]`."""
    from sealscope.core.continuity import verify_continuation
    from sealscope.core.sealfile import load_restated, load_seal

    got = load_seal(paths["evidence"])
    if got.status != "ok" or got.snap is None:
        why = f"{got.path}: {got.error}"
        return got.verdict, got.exit_code, "", why, {"error": got.error}
    restated = load_restated(paths["restated"])  # ValueError: could not look (perform)
    tiers = _tiers(paths)
    try:
        v = verify_continuation(
            got.snap, restated=restated, strict=not args.get("loose"), tiers=tiers
        )
    except (ValueError, TypeError) as e:
        why = f"the sealed snapshot cannot be scored: {e}"
        return _verdict.BROKEN, _verdict.WRONG, "", why, {"error": why}
    out = _verdict.continuation(v)
    reason = f"{len(v.divergences)} divergence" + ("" if len(v.divergences) == 1 else "s")
    return out.verdict, out.exit_code, "", reason, _untimed(v.to_dict())


def _untimed(doc: dict[str, Any]) -> dict[str, Any]:
    """A continuation verdict without its `compared_at` stamps (at any depth): when it
    was scored is the case row's `ts`, not part of what was found, and a replay of the
    same bytes must give the same result digest."""
    return {
        k: _untimed(v) if isinstance(v, dict) else v for k, v in doc.items() if k != "compared_at"
    }


_Runner = Callable[
    [dict[str, str], dict[str, Any], list[str]], tuple[str, int, str, str, dict[str, Any]]
]
_RUN: dict[str, _Runner] = {
    "kind": lambda paths, args, _held: _kind(paths, args),
    "pin": lambda paths, args, _held: _pin(paths, args),
    "witness": lambda paths, args, _held: _witness(paths, args),
    "receipts": lambda paths, args, _held: _receipts(paths, args),
    "lookup": _lookup,
    "diff": _diff,
    "restatement": _restatement,
}


def perform(check: str, inputs: list[Input], args: dict[str, Any] | None = None) -> Performed:
    """Run `check` over `inputs` (the first of role `evidence`). Never raises."""
    args = dict(args or {})
    read = tuple(read_evidence(i.path) for i in inputs)
    roles = tuple(i.role for i in inputs)

    def could_not(why: str, result: dict[str, Any] | None = None) -> Performed:
        return Performed(
            check,
            read,
            roles,
            args,
            _verdict.COULD_NOT_LOOK,
            _verdict.COULD_NOT,
            "",
            why,
            result or {},
        )

    if check not in _RUN:
        return could_not(f"not a check this sealscope performs: {check!r}")
    for ev in read:
        if isinstance(ev, Unreadable):
            why = f"{ev.path}: {ev.why}"
            return could_not(why, {"error": why})
    paths: dict[str, str] = {}
    for i in inputs:
        paths.setdefault(i.role, i.path)
    held_paths = [i.path for i in inputs if i.role == "held"]
    try:
        word, code, bound, reason, result = _RUN[check](paths, args, held_paths)
    except (OSError, ValueError) as e:  # what a check could not read
        return could_not(f"the check could not finish: {_said(e)}", {"error": type(e).__name__})
    for ev in read:
        assert isinstance(ev, Evidence)
        changed = changed_since(ev)
        if changed is not None:  # the evidence moved under the check: its result kept
            return could_not(f"{ev.path}: {changed}", result)
    return Performed(check, read, roles, args, word, code, bound, reason, result)
