"""What one fleet entry is: a ledger's chain verdict with its receipts summary and row
checks, or another kind's own check, or a path that is not evidence (`FleetEntry`),
and the wire form a worker sends it in. `core.fleet` audits paths into these; every
frontend reads them (the CLI's lines and CI formats, the fleet tab, the folder report).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import kinds as _kinds
from sealscope.core import verdict as _verdict
from sealscope.core.checks.result import KindCheck
from sealscope.core.ledger import Finding, VerifyResult
from sealscope.core.receipt import verify_receipt

__all__ = [
    "ReceiptRow",
    "ReceiptSummary",
    "FleetEntry",
    "unreadable_entry",
    "not_evidence_entry",
    "receipt_summary",
]


@dataclass(frozen=True)
class ReceiptRow:
    """One receipt row's check as a fleet keeps it: its line and the `verify_receipt`
    fields a report names (judged by `verdict.receipt`, as `receipts` judges it)."""

    line: int
    ok: bool
    schema: str | None
    content: str
    verified_scope: str
    notes: tuple[str, ...] = ()

    def to_wire(self) -> list[Any]:
        return [
            self.line,
            self.ok,
            self.schema,
            self.content,
            self.verified_scope,
            list(self.notes),
        ]

    @classmethod
    def from_wire(cls, w: list[Any]) -> ReceiptRow:
        return cls(int(w[0]), bool(w[1]), w[2], str(w[3]), str(w[4]), tuple(w[5]))


@dataclass(frozen=True)
class ReceiptSummary:
    """A ledger's compaction receipts: rows found, rows whose check fails (`ok` false),
    rows that hold only within a bound (`verified_scope` not `full`); `rows` holds each
    row's check (for the CI formats: a test case per receipt, an annotation per failure)."""

    count: int = 0
    failed: int = 0
    bounded: int = 0
    first_failed_line: int | None = None
    rows: tuple[ReceiptRow, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "count": self.count,
            "failed": self.failed,
            "bounded": self.bounded,
            "first_failed_line": self.first_failed_line,
        }

    def checks(self) -> tuple[Any, ...]:
        """The receipt checks `verdict.ledger` judges: each row's, or (a summary read
        back without its rows, `to_dict`) one failing check per failed row."""
        return self.rows or ({"ok": False},) * self.failed

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ReceiptSummary:
        return cls(
            int(d["count"]),
            int(d["failed"]),
            int(d["bounded"]),
            d.get("first_failed_line"),
            tuple(ReceiptRow.from_wire(w) for w in d.get("rows", ())),
        )


@dataclass(frozen=True)
class FleetEntry(_verdict.Judged):
    """One entry of a fleet: where it is, its size, its chain verdict and receipts
    (a ledger); or, `check` set, the own check of a path of another kind (its
    `result` then an empty walk and `receipts` empty). `check.kind` None: a path that
    is not evidence (`evidence` False), listed but never judged."""

    path: str
    result: VerifyResult
    receipts: ReceiptSummary = field(default_factory=ReceiptSummary)
    size: int | None = None
    check: KindCheck | None = None
    rows_checked: tuple[dict[str, Any], ...] = ()  # row checks besides the receipts

    @property
    def kind(self) -> str | None:
        """The evidence kind: `ledger`, another kind's name, a long-tail document's
        profile (KINDS-3.md §15: it has no kind of its own), or None (not evidence)."""
        if self.check is None:
            return _kinds.LEDGER
        return self.check.kind if self.check.kind is not None else self.check.profile

    @property
    def evidence(self) -> bool:
        """False for a not-evidence entry (no verdict of its own, left out of counts)."""
        return self.check is None or self.check.kind is not None or self.check.profile is not None

    def outcome(self) -> _verdict.Outcome:
        """The entry's word and exit code, judged once (an entry is immutable; every
        frontend reads them several times per entry)."""
        got: _verdict.Outcome | None = self.__dict__.get("_outcome")
        if got is None:
            if self.check is not None:
                got = self.check.outcome()
            else:
                got = _verdict.ledger(self.result, self.receipts.checks(), self.rows_checked)
            object.__setattr__(self, "_outcome", got)
        return got

    @property
    def bound(self) -> str:
        """What a VERIFIED ledger entry held within besides its receipts' scope
        (`ledger_rows.rows_bound`: "2 artefacts not held"); "" otherwise."""
        if self.check is not None or not self.rows_checked or self.exit_code != _verdict.HELD:
            return ""  # no row check besides the receipts: no bound of theirs
        from sealscope.core.checks.ledger_rows import rows_bound

        return rows_bound(self.rows_checked)

    def to_dict(self) -> dict[str, Any]:
        """A ledger: `path`, the `verify --json` fields, `receipts`, `bytes`,
        `exit_code`. Another kind: its `check --json` object (`kind`, `verdict`,
        `exit_code`, `ok`, `bound`, `detail`) with `bytes`, `word` and `reason`; a
        not-evidence path: `kind` null and `not_evidence` true."""
        if self.check is not None:
            c = self.check
            out = {**c.to_dict(), "bytes": self.size, "word": c.word, "reason": c.reason}
            if c.kind is None and c.profile is None:  # not judged: no word, no exit code
                out.update(verdict=None, exit_code=None, not_evidence=True)
            return out
        return {
            "path": self.path,
            **self.result.to_dict(),
            "verdict": self.verdict,
            "receipts": self.receipts.to_dict(),
            "rows_checked": list(self.rows_checked),
            "bound": self.bound or None,
            "bytes": self.size,
            "exit_code": self.exit_code,
        }

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FleetEntry:
        if "detail" in d and "kind" in d:  # a kind entry (`to_dict` / `to_wire`)
            kc = KindCheck(
                d["path"],
                d["kind"],
                d.get("ok"),
                dict(d.get("detail") or {}),
                d.get("word"),
                d.get("bound") or "",
                d.get("reason") or "",
                _subjects(d.get("subjects")),
                d.get("profile"),
            )
            return cls(d["path"], VerifyResult(ok=None), ReceiptSummary(), d.get("bytes"), kc)
        res = VerifyResult(
            ok=d["ok"],
            rows=d["rows"],
            chained=d["chained"],
            prechain=d["prechain"],
            first_break=d["first_break"],
            breaks=d["breaks"],
            verified_scope=d["verified_scope"],
            declared_breaks=d["declared_breaks"],
            declared=tuple(d["declared"]),
            findings=tuple(Finding(int(n), str(k), str(t)) for n, k, t in d.get("findings", ())),
            unreadable=bool(d.get("unreadable", False)),
            sha256=d.get("sha256"),
        )
        rows = tuple(e for e in d.get("rows_checked") or () if isinstance(e, dict))
        return cls(
            d["path"], res, ReceiptSummary.from_dict(d["receipts"]), d.get("bytes"), None, rows
        )

    def to_wire(self) -> dict[str, Any]:
        """`to_dict` plus what `from_dict` needs to rebuild the entry exactly: every
        break and declared break, and each receipt row's check."""
        if self.check is not None:  # and the digests its check took (`KindCheck.subjects`)
            subjects = self.check.subjects
            return self.to_dict() | (
                {"subjects": [list(s) for s in subjects]} if subjects is not None else {}
            )
        return {
            **self.to_dict(),
            "unreadable": self.result.unreadable,
            "sha256": self.result.sha256,
            "findings": [[f.line, f.kind, f.text] for f in self.result.findings],
            "receipts": {
                **self.receipts.to_dict(),
                "rows": [r.to_wire() for r in self.receipts.rows],
            },
        }


def _subjects(value: Any) -> tuple[tuple[str, str], ...] | None:
    """`KindCheck.subjects` back from the wire ([[name, sha256], ...]); None absent."""
    if not isinstance(value, list):
        return None
    return tuple((str(n), str(h)) for n, h in value)


def unreadable_entry(path: str, error: str, size: int | None = None) -> FleetEntry:
    """A ledger that could not be looked at, judged as `verify` judges an unreadable
    file (ok false, one break `unreadable: ...`: could not look)."""
    res = VerifyResult(ok=False, breaks=1, first_break=f"unreadable: {error}", unreadable=True)
    return FleetEntry(path, res, ReceiptSummary(), size)


def not_evidence_entry(path: str, why: str, size: int | None = None) -> FleetEntry:
    """A path that is no evidence kind: listed with `why`, never judged."""
    return FleetEntry(
        path,
        VerifyResult(ok=None),
        ReceiptSummary(),
        size,
        KindCheck(path, None, None, {"reason_word": "not-evidence"}, reason=why),
    )


def receipt_summary(receipt_rows: Iterable[tuple[int, Any]]) -> ReceiptSummary:
    """Each receipt row checked as `receipts` checks it; failed and bounded counted by
    `verdict.receipt` and `verdict.bounded`, the rules every verb reads."""
    rows = []
    for line, row in receipt_rows:
        check = verify_receipt(row)
        rows.append(
            ReceiptRow(
                line,
                check.ok,
                check.schema,
                check.content,
                check.verified_scope,
                tuple(check.notes),
            )
        )
    failing = [r.line for r in rows if _verdict.receipt(r).exit_code == _verdict.WRONG]
    return ReceiptSummary(
        len(rows),
        len(failing),
        sum(map(_verdict.bounded, rows)),
        failing[0] if failing else None,
        tuple(rows),
    )
