"""The audit report of one file as a value (`AuditReport`), and `build_report`.

Exit code of a report (`AuditReport.exit_code`), worst first (1 over 3 over 0):
ledger → the `verify` verb's code, combined with the `receipts` verb's code when the
ledger holds at least one receipt row (a ledger with no receipt row claims nothing
to check); snapshot → the `snapshot` verb's code; harn → the `harn` verb's; then every
session record's own code.
"""
from __future__ import annotations

import json
import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from sealscope.core import harn as _harn
from sealscope.core import kinds
from sealscope.core import ledger as _ledger
from sealscope.core import lookup as _lookup
from sealscope.core import receipt as _receipt
from sealscope.core import verdict as _verdict
from sealscope.core.compaction_series import harn_event_point, receipt_point, series_dicts
from sealscope.core.export.records import SessionRecord
from sealscope.core.sealfile import SealFile, load_seal

__all__ = ["EXPORT_SCHEMA", "AuditReport", "build_report"]

EXPORT_SCHEMA = "sealscope-export:v1"


@dataclass(frozen=True)
class AuditReport:
    """The audit report of one file (see the package docstring)."""
    kind: str                         # "ledger" | "snapshot" | "harn"
    path: str
    verdict: str                      # the file's own verdict word
    exit_code: int                    # worst of the file's and every session record's
    ledger: dict[str, Any] | None = None   # verify to_dict + "verdict"
    breaks: tuple[dict[str, Any], ...] = ()     # {"line", "kind", "text"}
    receipts: tuple[dict[str, Any], ...] = ()   # {"line", **verify_receipt fields}
    receipts_verdict: str | None = None
    snapshot: dict[str, Any] | None = None      # the snapshot verb's object
    harn: tuple[dict[str, Any], ...] = ()       # the harn verb's objects, one per compaction
    session: tuple[SessionRecord, ...] = ()
    compaction_series: tuple[dict[str, Any], ...] = ()   # the chart's points, one per compaction

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"schema": EXPORT_SCHEMA, "kind": self.kind, "path": self.path,
                               "verdict": self.verdict, "exit_code": self.exit_code}
        if self.kind == kinds.LEDGER:
            out["ledger"] = self.ledger
            out["breaks"] = list(self.breaks)
            out["receipts"] = list(self.receipts)
            out["receipts_verdict"] = self.receipts_verdict
        elif self.kind == kinds.HARN:
            out["harn"] = list(self.harn)
        else:
            out["snapshot"] = self.snapshot
        if self.kind in (kinds.LEDGER, kinds.HARN):
            out["compaction_series"] = list(self.compaction_series)
        out["session"] = [r.to_dict() for r in self.session]
        return out

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2, default=str)

    def to_markdown(self) -> str:
        from sealscope.core.export.markdown import render
        return render(self)


def build_report(path: str | os.PathLike[str], *, kind: str | None = None,
                 session: Iterable[SessionRecord] = (), verify_result: Any = None,
                 seal: SealFile | None = None,
                 on_progress: Callable[[int, int], None] | None = None) -> AuditReport:
    """Build the report of `path` (kind from `kinds.classify` unless given: ledger,
    snapshot or harn). A ledger tab that already holds its VerifyResult passes it as
    `verify_result`; a seal tab its loaded `SealFile` as `seal`. ValueError with the
    classifier's reason when the file is none of the three; otherwise never raises
    for any file content."""
    p = os.fspath(path)
    if kind is None:
        found = kinds.classify(p)
        if not found.opens:
            raise ValueError(found.reason)
        kind = found.kind
    records = tuple(session)
    if kind == kinds.HARN:
        return _harn_report(p, records)
    if kind == kinds.SNAPSHOT:
        got = seal if seal is not None else load_seal(p)
        return AuditReport(kinds.SNAPSHOT, p, got.verdict, _code(got.exit_code, records),
                           snapshot=got.summary(), session=records)
    if kind != kinds.LEDGER:
        raise ValueError(f"unknown report kind {kind!r} (ledger, snapshot or harn)")
    res = verify_result if verify_result is not None else \
        _ledger.verify(p, on_progress=on_progress)
    return _ledger_report(p, res, records)


def _code(own: int, records: tuple[SessionRecord, ...], *more: int) -> int:
    return _verdict.worst([own, *more, *(r.code for r in records)])


def _ledger_report(p: str, res: _ledger.VerifyResult,
                   records: tuple[SessionRecord, ...]) -> AuditReport:
    """The chain verdict, every finding, and every receipt row checked on its own."""
    doc = res.to_dict()
    doc["verdict"] = res.verdict
    breaks = tuple({"line": f.line, "kind": f.kind, "text": f.text} for f in res.findings)
    receipts: list[dict[str, Any]] = []
    points = []
    if not res.unreadable:
        try:
            for line, row in _lookup.iter_receipt_rows(p):
                check = _receipt.verify_receipt(row)
                receipts.append({"line": line, **check.to_dict()})
                points.append(receipt_point(line, row, check))
        except OSError:
            pass
    rec = _verdict.receipts(receipts)
    code = _code(res.exit_code, records, *([rec.exit_code] if receipts else []))
    return AuditReport(kinds.LEDGER, p, res.verdict, code, ledger=doc, breaks=breaks,
                       receipts=tuple(receipts), receipts_verdict=rec.verdict,
                       session=records, compaction_series=tuple(series_dicts(points)))


def _harn_report(path: str, records: tuple[SessionRecord, ...]) -> AuditReport:
    """A harn transcript: every compaction event with its findings, judged as
    `sealscope harn` judges it."""
    try:
        doc = _harn.load(path)
    except _harn.HarnError as e:
        out = _verdict.harn(None, readable=False)
        return AuditReport(kinds.HARN, path, out.verdict, _code(out.exit_code, records),
                           harn=({"error": e.message},), session=records)
    checks = _harn.check_document(doc)
    out = _harn.outcome_of(checks)
    points = [harn_event_point(i, c.event) for i, c in enumerate(checks, 1)]
    return AuditReport(kinds.HARN, path, out.verdict, _code(out.exit_code, records),
                       harn=tuple(c.to_dict() for c in checks), session=records,
                       compaction_series=tuple(series_dicts(points)))
