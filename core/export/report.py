"""The audit report of one file as a value (`AuditReport`), and `build_report`.

A report's verdict and exit code (`AuditReport.verdict`, `.exit_code`) are
`judged(own, session)`: the file's own outcome combined by `verdict.audit` with every
session record's (a pin, held content, a restatement...), so they are those of the
viewer tab that holds the same checks. The file's own outcome (`file_verdict`):
ledger → `verdict.ledger` (the chain's, BROKEN when a receipt row fails on its own; a
receipt checked without held content is counted, not judged), with the worst of its
other row checks as `sealscope check` judges them (`rows_checked`: a continuity_verify
row with no stored verdict held COULD NOT LOOK, an artefact binding...); snapshot → the
`snapshot` verb's; harn → the `harn` verb's.

Building a ledger's report reads the file (the walk when no verdict is given, then the
receipt scan): `on_progress(done, total)` gets the bytes read as one run, and
`cancelled()`, asked at every step, stops it with `Cancelled` (nothing is returned).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from typing import Any

from sealscope.core import bound_reads as _bound
from sealscope.core import harn as _harn
from sealscope.core import kinds
from sealscope.core import ledger as _ledger
from sealscope.core import lookup as _lookup
from sealscope.core import receipt as _receipt
from sealscope.core import verdict as _verdict
from sealscope.core.checks.result import CheckContext
from sealscope.core.clock import utc_stamp
from sealscope.core.compaction_series import checked, harn_event_point, receipt_point, series_dicts
from sealscope.core.export.binding import bind
from sealscope.core.export.records import SessionRecord
from sealscope.core.jsonio import dumps_output
from sealscope.core.sealfile import SealFile, load_seal

__all__ = ["EXPORT_SCHEMA", "AuditReport", "Cancelled", "build_report", "judged"]

EXPORT_SCHEMA = "sealscope-export:v1"


class Cancelled(Exception):
    """`build_report` stopped because its `cancelled()` said so."""


@dataclass(frozen=True)
class AuditReport:
    """The audit report of one file (see the package docstring)."""

    kind: str  # "ledger" | "snapshot" | "harn"
    path: str
    verdict: str  # the file's with its checks (`judged`)
    exit_code: int  # its code: worst of the file's and every record's
    ledger: dict[str, Any] | None = None  # verify to_dict + "verdict"
    breaks: tuple[dict[str, Any], ...] = ()  # {"line", "kind", "text"}
    receipts: tuple[dict[str, Any], ...] = ()  # {"line", **verify_receipt fields}
    receipts_verdict: str | None = None
    snapshot: dict[str, Any] | None = None  # the snapshot verb's object
    harn: tuple[dict[str, Any], ...] = ()  # the harn verb's objects, one per compaction
    session: tuple[SessionRecord, ...] = ()
    compaction_series: tuple[dict[str, Any], ...] = ()  # the chart's points, one per compaction
    rows_checked: tuple[dict[str, Any], ...] = ()  # a ledger's row checks besides receipts
    file_verdict: str = ""  # the file's own word, before any check
    # the file's own check's word where it is not one of the three (a harn file's
    # FINDINGS / REVIEW / OK, a snapshot's VALID / INVALID): a labelled field beside
    # the verdict, never in its place; "" when the verdict says it
    own_result: str = ""
    why: str = ""  # a ledger's `VerifyResult.reason()`: why not verified, in words
    evidence: dict[str, Any] | None = None  # `binding.bind`: sha256, bytes, head
    generated_at: str = ""  # when the report was built (UTC second stamp)
    version: str = ""  # the sealscope that built it

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "schema": EXPORT_SCHEMA,
            "kind": self.kind,
            "path": self.path,
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "file_verdict": self.file_verdict,
            "own_result": self.own_result or None,
            "evidence": self.evidence,
            "generated_at": self.generated_at,
            "sealscope_version": self.version,
        }
        if self.kind == kinds.LEDGER:
            out["ledger"] = self.ledger
            out["why"] = self.why
            out["breaks"] = list(self.breaks)
            out["receipts"] = list(self.receipts)
            out["receipts_verdict"] = self.receipts_verdict
            out["rows_checked"] = list(self.rows_checked)
        elif self.kind == kinds.HARN:
            out["harn"] = list(self.harn)
        else:
            out["snapshot"] = self.snapshot
        if self.kind in (kinds.LEDGER, kinds.HARN):
            out["compaction_series"] = list(self.compaction_series)
        out["session"] = [r.to_dict() for r in self.session]
        return out

    def to_json(self) -> str:
        """The report as strict JSON (`jsonio.dumps_output`, the sanitizer's JSON rule)."""
        return dumps_output(self.to_dict(), indent=2)

    def to_markdown(self) -> str:
        from sealscope.core.export.markdown import render

        return render(self)


def build_report(
    path: str | os.PathLike[str],
    *,
    kind: str | None = None,
    session: Iterable[SessionRecord] = (),
    verify_result: Any = None,
    seal: SealFile | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    cancelled: Callable[[], bool] | None = None,
    now: str | None = None,
    artefacts: str | None = None,
    ctx: CheckContext | None = None,
) -> AuditReport:
    """Build the report of `path` (kind from `kinds.classify` unless given: ledger,
    snapshot or harn). A ledger tab that already holds its VerifyResult passes it as
    `verify_result`; a seal tab its loaded `SealFile` as `seal`. ValueError with the
    classifier's reason when the file is none of the three; `Cancelled` when
    `cancelled()` says so (see the module docstring); otherwise never raises for any
    file content. The report is bound to the file's bytes as read once it is judged
    (`binding.bind`: sha256, bytes, the head) and stamped `now` (default: this second,
    UTC) with sealscope's version. `artefacts`: a folder of held artefacts the
    ledger's artefact bindings are checked against (`check --artefacts`); `ctx`, when
    given, all a run holds instead (a folder's: the stored verdicts found in it too,
    `fleet.fleet_context`), so a section says what the run's entry says."""
    step = _Steps(on_progress, cancelled)
    step.check()
    p = os.fspath(path)
    if kind is None:
        found = kinds.classify(p)
        if not found.opens:
            raise ValueError(found.reason)
        kind = found.kind
    records = tuple(session)
    if kind == kinds.HARN:
        report = _harn_report(p, records)
    elif kind == kinds.SNAPSHOT:
        got = seal if seal is not None else load_seal(p)
        report = _report(kinds.SNAPSHOT, p, got.outcome(), records, snapshot=got.summary())
    elif kind == kinds.LEDGER:
        step.runs = 1 if verify_result is not None else 2
        res = (
            verify_result
            if verify_result is not None
            else _ledger.verify(p, on_progress=step.progress(), digest=_bound.active())
        )
        if verify_result is None and _bound.active():  # the walk's bytes, for a VSA
            _bound.note(p, res.sha256)
        report = _ledger_report(p, res, records, step, ctx or CheckContext(artefacts=artefacts))
    else:
        raise ValueError(f"unknown report kind {kind!r} (ledger, snapshot or harn)")
    step.check()
    from sealscope.core.version import __version__

    rows = report.ledger.get("rows") if report.ledger else None
    return step.done(
        replace(
            report,
            evidence=bind(p, kind, rows=rows),
            generated_at=now or utc_stamp(),
            version=__version__,
        )
    )


class _Steps:
    """The progress of one report as one run over `runs` reads of the file, and the
    cancellation check at each step."""

    def __init__(
        self, on_progress: Callable[[int, int], None] | None, cancelled: Callable[[], bool] | None
    ) -> None:
        self.on_progress, self.cancelled = on_progress, cancelled
        self.runs, self.run, self.total, self.last = 1, 0, 0, (0, 0)

    def check(self) -> None:
        if self.cancelled is not None and self.cancelled():
            raise Cancelled

    def progress(self) -> Callable[[int, int], None] | None:
        """The callback of the next read of the file (done, total bytes); None when
        there is nothing to report and nothing to ask."""
        run = self.run
        self.run += 1
        if self.on_progress is None and self.cancelled is None:
            return None

        def report(done: int, total: int) -> None:
            self.check()
            self.total = total
            self.tell(run * total + min(done, total), self.runs * total)

        return report

    def tell(self, done: int, whole: int) -> None:
        if self.on_progress is not None and (done, whole) != self.last:
            self.last = (done, whole)
            self.on_progress(done, whole)

    def done(self, report: AuditReport) -> AuditReport:
        self.check()
        whole = self.runs * self.total or 1
        self.tell(whole, whole)
        return report


def judged(own: _verdict.Outcome, records: Iterable[SessionRecord]) -> _verdict.Outcome:
    """A file's own outcome with the checks run on it (`verdict.audit` over each
    record's outcome): a report's verdict and exit code, and a viewer tab's."""
    return _verdict.judged(own, records)


def _report(
    kind: str, p: str, own: _verdict.Outcome, records: tuple[SessionRecord, ...], **parts: Any
) -> AuditReport:
    out = judged(own, records)
    return AuditReport(
        kind,
        p,
        _verdict.worst_word([out.verdict]),
        out.exit_code,
        session=records,
        file_verdict=_verdict.worst_word([own.verdict]),
        own_result="" if own.verdict == _verdict.worst_word([own.verdict]) else own.verdict,
        **parts,
    )


def _ledger_report(
    p: str,
    res: _ledger.VerifyResult,
    records: tuple[SessionRecord, ...],
    step: _Steps | None = None,
    ctx: CheckContext | None = None,
) -> AuditReport:
    """The chain verdict, every finding, every receipt row checked on its own, and
    the ledger's other row checks (`ledger_rows.row_checks`), judged together by
    `verdict.ledger`."""
    step = step or _Steps(None, None)
    doc = res.to_dict()
    doc["verdict"] = res.verdict
    explained = {} if res.unreadable else _ledger.explain_mismatches(p, res)
    step.check()
    breaks = tuple(
        {
            "line": f.line,
            "kind": f.kind,
            "text": f.text,
            **(
                {"explained": explained[f.line].to_dict()}
                if f.kind == "break" and f.line in explained
                else {}
            ),
        }
        for f in res.findings
    )
    receipts: list[dict[str, Any]] = []
    points = []
    if not res.unreadable:
        try:
            for line, row in _lookup.iter_receipt_rows(p, step.progress()):
                step.check()
                check = _receipt.verify_receipt(row)
                receipts.append({"line": line, **check.to_dict()})
                points.append(receipt_point(line, row, check))
        except OSError:
            pass
    rows = () if res.unreadable else _row_checks(p, ctx or CheckContext())
    own = _verdict.ledger(res, receipts, rows)
    return _report(
        kinds.LEDGER,
        p,
        own,
        records,
        ledger=doc,
        rows_checked=rows,
        breaks=breaks,
        receipts=tuple(receipts),
        receipts_verdict=_verdict.receipts(receipts).verdict,
        compaction_series=tuple(series_dicts(checked(points, records))),
        why=res.reason(),
    )


def _row_checks(p: str, ctx: CheckContext) -> tuple[dict[str, Any], ...]:
    """The ledger's own row checks beyond its receipts (`sealscope check`'s
    `rows_checked`: continuity_verify rows, artefact bindings, distill rows, call rows),
    as `check` reports them with what `ctx` holds; the receipts are judged above."""
    from sealscope.core.checks import ledger_rows

    return ledger_rows.row_checks(p, ctx)


def _harn_report(path: str, records: tuple[SessionRecord, ...]) -> AuditReport:
    """A harn transcript: every compaction event with its findings, judged as
    `sealscope harn` judges it."""
    try:
        doc = _harn.load(path)
    except _harn.HarnError as e:
        return _report(
            kinds.HARN,
            path,
            _verdict.harn(None, readable=False),
            records,
            harn=({"error": e.message},),
        )
    checks = _harn.check_document(doc)
    points = [harn_event_point(i, c.event) for i, c in enumerate(checks, 1)]
    return _report(
        kinds.HARN,
        path,
        _harn.outcome_of(checks),
        records,
        harn=tuple(c.to_dict() for c in checks),
        compaction_series=tuple(series_dicts(points)),
    )
