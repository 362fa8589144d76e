"""The audit report of one evidence path of a kind `sealscope check` knows, beyond the
ledger / snapshot / harn reports of `report.py`: a receipt file, a distill receipt, a
portable receipt, a continuity verdict, an evidence pack (folder or zip), an audit
bundle, an AAT export, a call record.

The rule: the report never judges again. Its kind, verdict word, exit code and bound
are the `KindCheck`'s (`core.checks.run`, what `sealscope check` prints), taken as
they are; the report only lays them out and binds them to the bytes judged.

* `checks`: the kind's checks in order, each `{"check", "verdict", ...its fields}`:
  a pack's ten checks as the pack result lists them; a ledger's or call record's own
  chain check then every row check (`rows_checked`, with its line); any other kind one
  check named by its kind, carrying the whole `detail`.
* `ledger` (a pack or bundle only): the unit's `records.jsonl` walked as a ledger (the
  chain verdict, its counts and every break and excused break), read in place (a zip's
  entry streamed, never extracted); null when the unit holds no readable records.
  This is context for the reader: the verdict stays the unit's own.
* `evidence` (the binding): a file's `sha256` and `bytes` (`binding.bind`); a zip is
  a file, bound to the zip's digest, with `members` its entries; a folder (a pack or
  bundle) has no one digest: `sha256`/`bytes` null and `members` each file with its
  listed digest (a pack's manifest; null where nothing lists it) and its actual one.
* `generated_at`, `sealscope_version`: as the ledger report has them.

Pure: stdlib only, nothing printed; the Markdown escapes every evidence string as
`markdown.py` does.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import kinds
from sealscope.core import registry as _registry
from sealscope.core import verdict as _verdict
from sealscope.core.checks.ledger_rows import OWN_VERDICT
from sealscope.core.checks.result import KindCheck
from sealscope.core.clock import utc_stamp
from sealscope.core.export.binding import bind
from sealscope.core.export.records import SessionRecord
from sealscope.core.jsonio import dumps_output

__all__ = [
    "KIND_SCHEMA",
    "UNIT_KINDS",
    "REPORT_KINDS",
    "KindReport",
    "build_kind_report",
    "kind_checks",
]

KIND_SCHEMA = "sealscope-export-kind:v1"
UNIT_KINDS = tuple(k for k in _registry.names() if _registry.is_unit(k))
#: the built-in kinds this module reports on (the others have `report.build_report`);
#: `registry.reported_alone` answers for any kind, one registered later too
REPORT_KINDS = tuple(k for k in _registry.names() if _registry.reported_alone(k))
_RECORDS = "records.jsonl"


@dataclass(frozen=True)
class KindReport:
    """The report of one path of a checked kind (see the module docstring)."""

    path: str
    kind: str | None
    verdict: str
    exit_code: int
    bound: str = ""
    reason: str = ""
    checks: tuple[dict[str, Any], ...] = ()
    detail: dict[str, Any] = field(default_factory=dict)
    ledger: dict[str, Any] | None = None
    evidence: dict[str, Any] | None = None
    generated_at: str = ""
    version: str = ""
    session: tuple[SessionRecord, ...] = ()  # checks run beyond reading it (held content)
    file_verdict: str = ""  # the path's own word, before any of `session`
    profile: str | None = None  # KINDS-3.md §15: a long-tail path's profile

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema": KIND_SCHEMA,
            "kind": self.kind,
            "profile": self.profile,
            "path": self.path,
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "bound": self.bound or None,
            "reason": self.reason or None,
            "checks": list(self.checks),
            "detail": self.detail,
            "evidence": self.evidence,
            "generated_at": self.generated_at,
            "sealscope_version": self.version,
            "file_verdict": self.file_verdict or self.verdict,
            "session": [r.to_dict() for r in self.session],
        }
        if _registry.is_unit(self.kind):
            out["ledger"] = self.ledger
        return out

    def to_json(self) -> str:
        """The report as strict JSON (`jsonio.dumps_output`, the sanitizer's JSON rule)."""
        return dumps_output(self.to_dict(), indent=2)

    def to_markdown(self) -> str:
        from sealscope.core.export.kind_markdown import render

        return render(self)


def kind_checks(res: KindCheck) -> list[dict[str, Any]]:
    """The checks of one result in order (the module docstring's `checks`)."""
    d = res.detail if isinstance(res.detail, dict) else {}
    if res.kind == kinds.EVIDENCE_PACK and isinstance(d.get("checks"), list):
        return [dict(c) for c in d["checks"] if isinstance(c, dict)]
    if OWN_VERDICT in d:  # a chain with row checks of its own (a ledger, a call record)
        own = {k: v for k, v in d.items() if k not in ("rows_checked", OWN_VERDICT)}
        word = str(d[OWN_VERDICT])  # the checker's own word for it
        out = [{"check": _registry.own_check_name(res.kind), "verdict": word, **own}]
        for row in res.rows_checked:
            if isinstance(row, dict):
                name = f"line {row.get('line')} {row.get('check')}"
                out.append({**row, "check": name, "verdict": row.get("verdict")})
        return out
    return [{"check": res.kind or res.profile or "read", "verdict": res.verdict, **d}]


def build_kind_report(
    path: str | os.PathLike[str],
    result: KindCheck | None = None,
    *,
    now: str | None = None,
    session: tuple[SessionRecord, ...] | list[SessionRecord] = (),
) -> KindReport:
    """The report of `path`, from its `KindCheck` (`result`, else `checks.run` is asked:
    the very check `sealscope check` runs), with the checks run on it beyond reading
    it (`session`: a receipt file recomputed with held content), judged with them as a
    ledger report is (`verdict.judged`: the worst code, one of the three words). Never
    raises for any content; a path that is none of the kinds gets the check's COULD
    NOT LOOK and its reason."""
    p = os.fspath(path)
    if result is None:
        from sealscope.core import checks

        result = checks.run([p])[0]
    from sealscope.core.version import __version__

    own = result.outcome()
    records = tuple(session)
    out = _verdict.judged(own, records)
    return KindReport(
        path=p,
        kind=result.kind,
        verdict=_verdict.worst_word([out.verdict]),
        exit_code=out.exit_code,
        bound=result.bound if out.exit_code == _verdict.HELD and not records else "",
        reason=result.reason,
        checks=tuple(kind_checks(result)),
        detail=dict(result.detail) if isinstance(result.detail, dict) else {},
        ledger=_unit_ledger(p) if _registry.is_unit(result.kind) else None,
        evidence=_binding(p, result),
        generated_at=now or utc_stamp(),
        version=__version__,
        session=records,
        file_verdict=own.verdict,
        profile=result.profile,
    )


def _binding(p: str, res: KindCheck) -> dict[str, Any]:
    """The module docstring's `evidence`."""
    if os.path.isdir(p):
        out: dict[str, Any] = {
            "sha256": None,
            "bytes": None,
            "head": None,
            "unit": "folder",
            "members": _members(p, res),
        }
        return out
    got = bind(p, "other")
    if _registry.is_unit(res.kind):
        got["unit"] = "zip"
        got["members"] = _members(p, res)
    return got


def _members(p: str, res: KindCheck) -> list[dict[str, Any]]:
    """Each member with its listed and actual digest: a pack's own `members`; a
    bundle's files (nothing lists them: `listed` null)."""
    d = res.detail if isinstance(res.detail, dict) else {}
    if isinstance(d.get("members"), list):
        return [dict(m) for m in d["members"] if isinstance(m, dict)]
    if res.kind == kinds.AUDIT_BUNDLE and os.path.isdir(p):
        from sealscope.core.checks import bundle

        try:
            subjects = bundle.unit_subjects(p)
        except OSError:
            return []
        return [{"name": n, "listed": None, "actual": h, "matches": None} for n, h in subjects]
    return []


def _unit_ledger(p: str) -> dict[str, Any] | None:
    """The unit's records.jsonl walked as a ledger: the chain verdict, its counts and
    its findings; null when there are no readable records."""
    from sealscope.core import ledger as _ledger
    from sealscope.core.checks import zipread as Z

    try:
        if os.path.isdir(p):
            m = Z.FolderMembers(p)
            real = m.inside(_RECORDS) if m.is_file(_RECORDS) else None
            if real is None:
                return None
            res = _ledger.verify(real)
        else:
            opened = Z.open_zip(p)
            if isinstance(opened, Z.ZipRefused):
                return None
            try:
                if not opened.is_file(_RECORDS):
                    return None
                data = opened.read(_RECORDS)
            finally:
                opened.close()
            if len(data) > Z.ENTRY_MAX_BYTES:
                return {
                    "verdict": _verdict.COULD_NOT_LOOK,
                    "findings": [],
                    "why": "records.jsonl past sealscope's bound, not read",
                }
            res = _ledger.verify_bytes(data)
    except (OSError, Z.TooBig):
        return None
    doc = res.to_dict()
    doc["verdict"] = res.verdict
    doc["why"] = res.reason()
    doc["findings"] = [{"line": f.line, "kind": f.kind, "text": f.text} for f in res.findings]
    return doc
