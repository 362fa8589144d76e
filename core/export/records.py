"""Session records: work done on a file beyond reading it, each with its exit code.

A viewer session or the CLI's flags add them to a report in order: a restatement
scored (`continuity`'s code), two seals diffed (`diff`'s), items added since a seal
(findings, 0), a receipt recomputed with held content (`receipts`'), a lookup (0).
"""
from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.sealfile import unusable

__all__ = ["SessionRecord", "verdict_record", "verdict_error_record", "diff_record",
           "diff_error_record", "added_record", "recompute_record", "lookup_record"]


@dataclass(frozen=True)
class SessionRecord:
    """One piece of work done on the file beyond reading it: `kind` is "verdict",
    "diff", "added", "recompute" or "lookup" (others are reported as plain JSON);
    `inputs` names what was used (paths, mode), `result` is the core's own dict
    (a verdict's to_dict, the diff_seals object, ...), `code` its exit code."""
    kind: str
    title: str
    inputs: dict[str, Any] = field(default_factory=dict)
    result: Any = None
    code: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"kind": self.kind, "title": self.title, "inputs": dict(self.inputs),
                "result": self.result, "exit_code": self.code}


def _restatement(restated_path: str, mode: str, tiers_path: str | None,
                 result: Any, code: int, title: str) -> SessionRecord:
    return SessionRecord(
        "verdict", f"restatement {os.path.basename(restated_path)}{title}",
        {"restated": restated_path, "mode": mode, "tiers": tiers_path}, result, code)


def verdict_record(verdict: Any, restated_path: str, *, tiers_path: str | None = None
                   ) -> SessionRecord:
    """A restatement scored against the seal (`verify_continuation`'s verdict)."""
    strict = bool((verdict.policy or {}).get("strict", True))
    mode = "strict" if strict else "loose"
    return _restatement(restated_path, mode, tiers_path, verdict.to_dict(),
                        _verdict.continuation(verdict).exit_code, f" ({mode})")


def verdict_error_record(error: str, restated_path: str, *, strict: bool,
                         tiers_path: str | None = None) -> SessionRecord:
    """A restatement that could not be scored because the sealed snapshot cannot be:
    1, as `continuity` exits."""
    return _restatement(restated_path, "strict" if strict else "loose", tiers_path,
                        {"error": f"the sealed snapshot cannot be scored: {error}"},
                        _verdict.WRONG, "")


def _diff(previous_path: str, current_path: str, tiers_path: str | None,
          result: Any, code: int) -> SessionRecord:
    return SessionRecord(
        "diff", f"diff {os.path.basename(previous_path)} → {os.path.basename(current_path)}",
        {"previous": previous_path, "current": current_path, "tiers": tiers_path}, result, code)


def diff_record(doc: dict[str, Any], previous_path: str, current_path: str, *,
                tiers_path: str | None = None) -> SessionRecord:
    """Two seals diffed (`diff_seals`' object); code 0: both seals loaded."""
    return _diff(previous_path, current_path, tiers_path, doc, _verdict.HELD)


def diff_error_record(previous: Any, current: Any, *,
                      tiers_path: str | None = None) -> SessionRecord:
    """Two seals that cannot be diffed (`SealFile`s, one not ok): the reasons and both
    summaries, with `diff`'s code (1 over 3)."""
    error, code = unusable(previous, current) or ("", _verdict.HELD)
    return _diff(previous.path, current.path, tiers_path,
                 {"error": error, "previous": previous.summary(), "current": current.summary()},
                 code)


def added_record(added: dict[str, Any], manifest_path: str) -> SessionRecord:
    """`added_since_seal` against a newer manifest (findings, not failures)."""
    return SessionRecord("added", f"added since the seal ({os.path.basename(manifest_path)})",
                         {"manifest": manifest_path}, added, _verdict.HELD)


def recompute_record(line: int, check: Any, *, pre: str | None = None,
                     post: str | None = None) -> SessionRecord:
    """A receipt row re-verified with held content (`verify_receipt` with pre/post)."""
    d = check.to_dict() if hasattr(check, "to_dict") else dict(check)
    return SessionRecord("recompute", f"receipt on line {line} recomputed",
                         {"line": line, "pre": pre, "post": post},
                         {"line": line, **d}, _verdict.receipt(d).exit_code)


def lookup_record(items: Sequence[dict[str, Any]], *, held: Sequence[str] = ()
                  ) -> SessionRecord:
    """Held items looked up in the drop manifests: `items` as `sealscope lookup`
    prints them (`digest`, `bytes`, `found`)."""
    return SessionRecord("lookup", f"lookup of {len(items)} held item(s)",
                         {"held": list(held)}, {"items": list(items)}, _verdict.HELD)
