"""Session records: the checks run on a file beyond reading it, each with its verdict.

A viewer tab or the CLI's flags add them to a report in order: a pin or witness check
(`verify --pin/--witness`'s word and code), a restatement scored (`continuity`'s), two
seals diffed (`diff`'s), items added since a seal (noted, 0), a receipt recomputed
with held content (`verdict.receipt`'s word and code, the drops its manifest hides
named), a lookup (noted, 0). Each record's word and code come from `core.verdict`;
the report and the viewer tab combine them with `verdict.audit`. A report puts one of
the three words in a record's verdict place (`SessionRecord.word`) and the check's own
result beside it, labelled (`SessionRecord.checked`: "held content: does not match").
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.held import item_label
from sealscope.core.receipt import manifest_gaps
from sealscope.core.sealfile import unusable

__all__ = [
    "SessionRecord",
    "verdict_record",
    "verdict_error_record",
    "diff_record",
    "diff_error_record",
    "added_record",
    "recompute_record",
    "lookup_record",
    "ledger_lookup",
    "check_record",
    "check_error_record",
    "artefact_record",
    "held_content",
]

PREVIEW = 120  # characters of a held item's value a report quotes


@dataclass(frozen=True)
class SessionRecord:
    """One piece of work done on the file beyond reading it: `kind` is "verdict",
    "diff", "added", "recompute" or "lookup" (others are reported as plain JSON);
    "pin", "witness" (others are reported as plain JSON); `inputs` names what was
    used (paths, mode, pin text), `result` is the core's own dict (a verdict's
    to_dict, the diff_seals object, ...), `verdict` and `code` its word and exit code."""

    kind: str
    title: str
    inputs: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    code: int = 0
    verdict: str = _verdict.NOTED

    @property
    def outcome(self) -> _verdict.Outcome:
        return _verdict.Outcome(self.verdict, self.code)

    @property
    def word(self) -> str:
        """The record's verdict as one of the three words, by its code (VERIFIED 0,
        BROKEN 1, COULD NOT LOOK 3): what a report puts in the verdict's place."""
        return _verdict.worst_word([self.verdict])

    @property
    def checked(self) -> str:
        """The check's own result, labelled, for beside the verdict ("held content:
        does not match", "restatement: DIVERGENCE"); "" when the word says it all."""
        if self.kind == "recompute" and isinstance(self.result, dict):
            return f"held content: {held_content(self.result)}"
        if self.verdict in _THREE:
            return ""
        return f"{_OWN_LABEL.get(self.kind, self.kind)}: {self.verdict}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "title": self.title,
            "inputs": dict(self.inputs),
            "result": self.result,
            "verdict": self.word,
            "exit_code": self.code,
            "checked": self.checked or None,
        }


_THREE = (_verdict.VERIFIED, _verdict.BROKEN, _verdict.COULD_NOT_LOOK)
_OWN_LABEL = {"verdict": "restatement", "diff": "seals", "added": "added", "lookup": "lookup"}


def held_content(check: Any) -> str:
    """What a receipt recomputed with held content found, in words: "matches",
    "matches within a bound" (a scope short of full), or "does not match"."""
    out = _verdict.receipt(check)
    if out.exit_code != _verdict.HELD:
        return "does not match"
    return "matches within a bound" if _verdict.bounded(check) else "matches"


def _restatement(
    restated_path: str,
    mode: str,
    tiers_path: str | None,
    result: Any,
    out: _verdict.Outcome,
    title: str,
) -> SessionRecord:
    return SessionRecord(
        "verdict",
        f"restatement {os.path.basename(restated_path)}{title}",
        {"restated": restated_path, "mode": mode, "tiers": tiers_path},
        result,
        out.exit_code,
        out.verdict,
    )


def verdict_record(
    verdict: Any, restated_path: str, *, tiers_path: str | None = None
) -> SessionRecord:
    """A restatement scored against the seal (`verify_continuation`'s verdict)."""
    strict = bool((verdict.policy or {}).get("strict", True))
    mode = "strict" if strict else "loose"
    return _restatement(
        restated_path,
        mode,
        tiers_path,
        verdict.to_dict(),
        _verdict.continuation(verdict),
        f" ({mode})",
    )


def verdict_error_record(
    error: str, restated_path: str, *, strict: bool, tiers_path: str | None = None
) -> SessionRecord:
    """A restatement that could not be scored because the sealed snapshot cannot be:
    1, as `continuity` exits."""
    return _restatement(
        restated_path,
        "strict" if strict else "loose",
        tiers_path,
        {"error": f"the sealed snapshot cannot be scored: {error}"},
        _verdict.Outcome(_verdict.INVALID_COMPARISON, _verdict.WRONG),
        "",
    )


def _diff(
    previous_path: str, current_path: str, tiers_path: str | None, result: Any, code: int
) -> SessionRecord:
    """`diff`'s word is the worse seal's (both VALID, else INVALID or COULD NOT LOOK)."""
    word = _verdict.seal({_verdict.HELD: "ok", _verdict.WRONG: "invalid"}.get(code, "")).verdict
    return SessionRecord(
        "diff",
        f"diff {os.path.basename(previous_path)} → {os.path.basename(current_path)}",
        {"previous": previous_path, "current": current_path, "tiers": tiers_path},
        result,
        code,
        word,
    )


def diff_record(
    doc: dict[str, Any], previous_path: str, current_path: str, *, tiers_path: str | None = None
) -> SessionRecord:
    """Two seals diffed (`diff_seals`' object); code 0: both seals loaded."""
    return _diff(previous_path, current_path, tiers_path, doc, _verdict.HELD)


def diff_error_record(
    previous: Any, current: Any, *, tiers_path: str | None = None
) -> SessionRecord:
    """Two seals that cannot be diffed (`SealFile`s, one not ok): the reasons and both
    summaries, with `diff`'s code (1 over 3)."""
    error, code = unusable(previous, current) or ("", _verdict.HELD)
    return _diff(
        previous.path,
        current.path,
        tiers_path,
        {"error": error, "previous": previous.summary(), "current": current.summary()},
        code,
    )


def added_record(added: dict[str, Any], manifest_path: str) -> SessionRecord:
    """`added_since_seal` against a newer manifest (findings, not failures)."""
    return SessionRecord(
        "added",
        f"added since the seal ({os.path.basename(manifest_path)})",
        {"manifest": manifest_path},
        added,
        _verdict.HELD,
    )


def _preview(value: Any) -> str:
    if isinstance(value, (bytes, bytearray)):
        text = bytes(value[:PREVIEW]).decode("utf-8", "backslashreplace")
    elif isinstance(value, str):
        text = value
    else:
        # a preview is text in a string field, the value as stored (NaN as NaN), not JSON output
        text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= PREVIEW else text[: PREVIEW - 1] + "…"


def _named(digests: Sequence[str], items: Sequence[Any]) -> list[dict[str, Any]]:
    """Each digest with the first held item that has it: file#index, bytes, preview."""
    by_digest: dict[str, Any] = {}
    for it in items:
        by_digest.setdefault(it.digest, it)
    out = []
    for d in digests:
        it = by_digest.get(d)
        out.append(
            {"digest": d}
            if it is None
            else {
                "digest": d,
                "held": item_label(it),
                "bytes": it.size,
                "preview": _preview(it.value),
            }
        )
    return out


def recompute_record(
    line: int,
    check: Any,
    *,
    pre: str | None = None,
    post: str | None = None,
    row: Any = None,
    held: Sequence[Any] = (),
) -> SessionRecord:
    """A receipt row re-verified with held content (`verify_receipt` with pre/post):
    `verdict.receipt`'s word and code (VERIFIED 0, BROKEN 1, as `receipts` says;
    what the content showed is `SessionRecord.checked`); with the row and the held
    items (`HeldItem`s, pre then post), the drops its manifest does not declare
    (`undeclared`) and the entries no drop explains (`phantom`), each named by digest
    and held item."""
    d = check.to_dict() if hasattr(check, "to_dict") else dict(check)
    result: dict[str, Any] = {"line": line, **d}
    if row is not None and hasattr(check, "recomputed"):
        undeclared, phantom = manifest_gaps(row, check)
        result["undeclared"] = _named(undeclared, held)
        result["phantom"] = _named(phantom, held)
    out = _verdict.receipt(d)
    return SessionRecord(
        "recompute",
        f"receipt on line {line} recomputed with held content",
        {"line": line, "pre": pre, "post": post},
        result,
        out.exit_code,
        out.verdict,
    )


def lookup_record(
    items: Sequence[dict[str, Any]],
    *,
    held: Sequence[str] = (),
    text: str | None = None,
    containing: Sequence[dict[str, Any]] = (),
    digest_hits: Sequence[dict[str, Any]] = (),
) -> SessionRecord:
    """Held items looked up in the drop manifests: `items` as `sealscope lookup`
    prints them (`digest`, `bytes`, `found`). A typed-text lookup keeps its `text`
    (in the inputs) and the hits the screen showed beside the exact items: the held
    items containing the text (`containing`: held, digest, bytes, preview, found) and
    the manifest entries whose digest contains it (`digest_hits`: line, position,
    digest)."""
    inputs: dict[str, Any] = {"held": list(held)}
    result: dict[str, Any] = {"items": list(items)}
    if text is not None:
        inputs["text"] = text
        result["containing"] = list(containing)
        result["digest_hits"] = list(digest_hits)
    what = (
        f'the text "{_preview(text)}"'
        if text is not None
        else f"{len(items)} held item{'' if len(items) == 1 else 's'}"
    )
    return SessionRecord("lookup", f"lookup of {what}", inputs, result, _verdict.HELD)


def ledger_lookup(
    index: Any,
    ledger: str,
    items: Sequence[Any],
    *,
    held: Sequence[str] = (),
    text: str | None = None,
    containing: Sequence[Any] = (),
    digest_hits: Sequence[Any] = (),
) -> tuple[SessionRecord, bool]:
    """A lookup as one ledger's report records it, the same from the viewer's look-up
    screen and `sealscope export --lookup/--lookup-text`: `items` (held or typed
    items: `.digest`, `.size`) with their places in `ledger` among `index`'s
    (`lookup.DropIndex`); for typed text, the held items `containing` it and the
    manifest entries `digest_hits` (`DropIndex.containing`) in this ledger. Also
    whether the ledger holds any of them."""
    from sealscope.core.lookup import places_in

    docs = [
        {"digest": it.digest, "bytes": it.size, "found": places_in(index.where(it.digest), ledger)}
        for it in items
    ]
    partial = [
        {
            "held": item_label(h),
            "digest": h.digest,
            "bytes": h.size,
            "preview": _preview(h.value),
            "found": places_in(index.where(h.digest), ledger),
        }
        for h in containing
    ]
    digests = [
        {"line": e.line, "position": e.position, "digest": e.digest}
        for e in digest_hits
        if str(e.ledger) == str(ledger)
    ]
    hit = any(d["found"] for d in (*docs, *partial)) or bool(digests)
    return lookup_record(docs, held=held, text=text, containing=partial, digest_hits=digests), hit


def check_record(kind: str, check: Any, **inputs: Any) -> SessionRecord:
    """A ledger judged against a head pin (`kind` "pin", `inputs` pin=TEXT) or a
    witness store ("witness", witness=PATH, namespace=NS): the `WitnessVerdict`'s
    dict, with `verdict.check`'s word and code (as `verify --pin/--witness`)."""
    out = _verdict.check(check)
    what = (
        f"rows={check.witness_rows}"
        if kind == "pin"
        else f"{os.path.basename(str(inputs.get('witness')))} namespace {inputs.get('namespace')}"
    )
    return SessionRecord(
        kind,
        f"{kind} {what}: {check.verdict}",
        dict(inputs),
        check.to_dict(),
        out.exit_code,
        out.verdict,
    )


def check_error_record(kind: str, error: str, **inputs: Any) -> SessionRecord:
    """A pin or witness check that could not be made: why, COULD NOT LOOK 3."""
    out = _verdict.check(None)
    return SessionRecord(
        kind, f"{kind}: could not check", dict(inputs), {"error": error}, out.exit_code, out.verdict
    )


def artefact_record(entry: dict[str, Any]) -> SessionRecord:
    """A held artefact checked against the binding on a ledger row
    (`checks.artefact.held_file_entry`): its word and code are the entry's
    (VERIFIED 0 when the file matches the bound digest, BROKEN 1 when not)."""
    word = str(entry.get("verdict"))
    path = str(entry.get("held_file") or "")
    return SessionRecord(
        "artefact",
        f"held artefact {os.path.basename(path)} (line {entry.get('line')})",
        {"artefact": path, "line": entry.get("line")},
        dict(entry),
        _verdict.code_of(word),
        word,
    )
