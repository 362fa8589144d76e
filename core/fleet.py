"""Fleet audits: many ledgers, each verified and its receipts checked, one entry each.

A fleet entry is the `verify` verdict of one ledger plus a summary of its compaction
receipts (how many, how many fail, how many hold only within a bound); its word and
exit code come from `verdict.ledger`, as `export` and a viewer tab judge the ledger (a
chain that holds with a receipt that fails is BROKEN 1).

Many ledgers run through `fleet_run`, the one planner and runner (small files in
batches, a large file alone, split across processes by `ledger.verify`, the serial
fallback): `run_local` on the local process pool. `audit_batch` is a pure function of
paths, so any executor runs it: the local pool, or a Dask cluster (the CLI's adapter)
whose workers fetch remote files themselves.
"""
from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import partial
from typing import Any
from collections.abc import Callable, Iterable, Iterator, Sequence

from sealscope.core import fleet_run
from sealscope.core import verdict as _verdict
from sealscope.core.fleet_run import BATCH_BYTES, BATCH_FILES, LARGE_BYTES, plan_batches
from sealscope.core.ledger import Finding, VerifyResult
from sealscope.core.ledger import verify as _verify
from sealscope.core.lookup import iter_receipt_rows
from sealscope.core.receipt import verify_receipt

__all__ = ["ReceiptRow", "ReceiptSummary", "FleetEntry", "FleetSummary", "audit_file",
           "audit_batch", "unreadable_entry", "plan_batches", "walk", "worst_first",
           "worst_first_key", "summarize", "run_local", "iter_local",
           "LARGE_BYTES", "BATCH_BYTES", "BATCH_FILES"]

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
        return [self.line, self.ok, self.schema, self.content, self.verified_scope,
                list(self.notes)]

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
        return {"count": self.count, "failed": self.failed, "bounded": self.bounded,
                "first_failed_line": self.first_failed_line}

    def checks(self) -> tuple[Any, ...]:
        """The receipt checks `verdict.ledger` judges: each row's, or (a summary read
        back without its rows, `to_dict`) one failing check per failed row."""
        return self.rows or ({"ok": False},) * self.failed

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ReceiptSummary:
        return cls(int(d["count"]), int(d["failed"]), int(d["bounded"]),
                   d.get("first_failed_line"),
                   tuple(ReceiptRow.from_wire(w) for w in d.get("rows", ())))


@dataclass(frozen=True)
class FleetEntry(_verdict.Judged):
    """One ledger of a fleet: where it is, its size, its chain verdict and receipts."""
    path: str
    result: VerifyResult
    receipts: ReceiptSummary = field(default_factory=ReceiptSummary)
    size: int | None = None

    def outcome(self) -> _verdict.Outcome:
        return _verdict.ledger(self.result, self.receipts.checks())

    def to_dict(self) -> dict[str, Any]:
        """`path`, the `verify --json` fields, `receipts`, `bytes`, `exit_code`."""
        return {"path": self.path, **self.result.to_dict(), "verdict": self.verdict,
                "receipts": self.receipts.to_dict(), "bytes": self.size,
                "exit_code": self.exit_code}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> FleetEntry:
        res = VerifyResult(ok=d["ok"], rows=d["rows"], chained=d["chained"],
                           prechain=d["prechain"], first_break=d["first_break"],
                           breaks=d["breaks"], verified_scope=d["verified_scope"],
                           declared_breaks=d["declared_breaks"],
                           declared=tuple(d["declared"]),
                           findings=tuple(Finding(int(n), str(k), str(t))
                                          for n, k, t in d.get("findings", ())),
                           unreadable=bool(d.get("unreadable", False)),
                           sha256=d.get("sha256"))
        return cls(d["path"], res, ReceiptSummary.from_dict(d["receipts"]), d.get("bytes"))

    def to_wire(self) -> dict[str, Any]:
        """`to_dict` plus what `from_dict` needs to rebuild the entry exactly: every
        break and declared break, and each receipt row's check."""
        return {**self.to_dict(), "unreadable": self.result.unreadable,
                "sha256": self.result.sha256,
                "findings": [[f.line, f.kind, f.text] for f in self.result.findings],
                "receipts": {**self.receipts.to_dict(),
                             "rows": [r.to_wire() for r in self.receipts.rows]}}


def unreadable_entry(path: str, error: str, size: int | None = None) -> FleetEntry:
    """A ledger that could not be looked at, judged as `verify` judges an unreadable
    file (ok false, one break `unreadable: ...`: could not look)."""
    res = VerifyResult(ok=False, breaks=1, first_break=f"unreadable: {error}",
                       unreadable=True)
    return FleetEntry(path, res, ReceiptSummary(), size)


def _receipt_summary(path: str | os.PathLike[str]) -> ReceiptSummary:
    """Each receipt row checked as `receipts` checks it; failed and bounded counted by
    `verdict.receipt` and `verdict.bounded`, the rules every verb reads."""
    rows = []
    for line, row in iter_receipt_rows(path):
        check = verify_receipt(row)
        rows.append(ReceiptRow(line, check.ok, check.schema, check.content,
                               check.verified_scope, tuple(check.notes)))
    failing = [r.line for r in rows if _verdict.receipt(r).exit_code == _verdict.WRONG]
    return ReceiptSummary(len(rows), len(failing), sum(map(_verdict.bounded, rows)),
                          failing[0] if failing else None, tuple(rows))


def audit_file(path: str | os.PathLike[str], *, strict: bool = False,
               display: str | None = None, workers: int | None = 1,
               incremental: bool = False) -> FleetEntry:
    """Verify one local ledger and summarise its receipts. Never raises for any file
    content; an unreadable file is a could-not-look entry. `display` is the path the
    entry reports (a URL for a fetched remote object). `incremental` resumes from and
    updates the ledger's checkpoint in the user's cache (`checkpoint`), so a re-audit
    walks only what was appended."""
    name = display if display is not None else os.fspath(path)
    try:
        size: int | None = os.stat(path).st_size
    except OSError:
        size = None
    if incremental:
        from sealscope.core.checkpoint import verify_incremental

        res = verify_incremental(path, strict=strict, workers=workers, digest=True).result
    else:  # the digest of the bytes walked, for a VSA subject (no second read by name)
        res = _verify(path, strict=strict, workers=workers, digest=True)
    if res.unreadable:
        return FleetEntry(name, res, ReceiptSummary(), size)
    try:
        receipts = _receipt_summary(path)
    except OSError as e:  # vanished between the walk and the scan
        return unreadable_entry(name, str(e), size)
    return FleetEntry(name, res, receipts, size)


def audit_batch(paths: Sequence[str], strict: bool = False, incremental: bool = False
                ) -> list[dict[str, Any]]:
    """Audit local files one after another in this process; wire dicts, for pools."""
    return [audit_file(p, strict=strict, incremental=incremental).to_wire() for p in paths]


def walk(sources: Sequence[str], pattern: str = "*.jsonl", *, follow_links: bool = False,
         skipped: list[tuple[str, str]] | None = None
         ) -> Iterator[tuple[str, int | None]]:
    """(path, size) for each local source: a directory is walked recursively for
    files whose name matches `pattern` (sorted, symlinked directories not followed);
    anything else is taken as a file, as given (a missing one is reported later).

    A symlink found in a directory that points out of it (`ledgers/x.jsonl ->
    /etc/shadow`) is not read unless `follow_links`: it is added to `skipped` as
    (path, why) for the caller to report, so nothing outside the tree named is read
    or digested without being asked."""
    from fnmatch import fnmatchcase

    for src in sources:
        if os.path.isdir(src):
            top = os.path.realpath(src)
            for root, dirs, files in os.walk(src):
                dirs.sort()
                for name in sorted(files):
                    if fnmatchcase(name, pattern):
                        p = os.path.join(root, name)
                        if not follow_links and os.path.islink(p):
                            real = os.path.realpath(p)
                            if os.path.commonpath([top, real]) != top:
                                why = (f"a symlink out of {src} (to {real}): not "
                                       "followed (--follow-links follows it)")
                                if skipped is not None:
                                    skipped.append((p, why))
                                continue
                        try:
                            yield p, os.stat(p).st_size
                        except OSError:
                            yield p, None
        else:
            try:
                yield src, os.stat(src).st_size
            except OSError:
                yield src, None


def worst_first_key(e: FleetEntry) -> tuple[int, int, int, str]:
    """The sort key of the one worst-first order of fleet entries (`sealscope fleet`,
    its step summary, the viewer's fleet tab): by exit code (`verdict.severity`: 1,
    then 3, then 0; an entry's word agrees with its code), then more breaks, then more
    failed receipts first, then by path."""
    return (-_verdict.severity(e.exit_code), -e.result.breaks, -e.receipts.failed, e.path)


def worst_first(entries: Iterable[FleetEntry]) -> list[FleetEntry]:
    """Entries worst first (`worst_first_key`)."""
    return sorted(entries, key=worst_first_key)


@dataclass(frozen=True)
class FleetSummary:
    """Counts per verdict, receipts, bytes and time of a whole fleet run."""
    ledgers: int
    verdicts: dict[str, int]
    receipts: int
    receipts_failed: int
    receipts_bounded: int
    bytes: int
    seconds: float
    exit_code: int

    def to_dict(self) -> dict[str, Any]:
        return {"ledgers": self.ledgers, "verdicts": dict(self.verdicts),
                "receipts": self.receipts, "receipts_failed": self.receipts_failed,
                "receipts_bounded": self.receipts_bounded, "bytes": self.bytes,
                "seconds": round(self.seconds, 3), "exit_code": self.exit_code}


def summarize(entries: Sequence[FleetEntry], seconds: float) -> FleetSummary:
    verdicts = {w: 0 for w in (_verdict.VERIFIED, _verdict.BROKEN, _verdict.COULD_NOT_LOOK)}
    for e in entries:
        verdicts[e.verdict] = verdicts.get(e.verdict, 0) + 1
    return FleetSummary(
        ledgers=len(entries), verdicts=verdicts,
        receipts=sum(e.receipts.count for e in entries),
        receipts_failed=sum(e.receipts.failed for e in entries),
        receipts_bounded=sum(e.receipts.bounded for e in entries),
        bytes=sum(e.size or 0 for e in entries), seconds=seconds,
        exit_code=_verdict.worst(e.exit_code for e in entries))


def run_local(sized: Sequence[tuple[str, int | None]], *, strict: bool = False,
              incremental: bool = False, workers: int | None = None,
              on_entry: Callable[[FleetEntry], None] | None = None) -> list[FleetEntry]:
    """Audit local files through `fleet_run` on a process pool sized to the cores:
    small files in batches, large ones here, each split across the cores by `verify`.
    Entries are passed to `on_entry` as they arrive and returned in arrival order; an
    exception `on_entry` raises ends the run (batches not yet started are dropped) and
    propagates."""
    out: list[FleetEntry] = []
    for entry in iter_local(sized, strict=strict, incremental=incremental, workers=workers):
        out.append(entry)
        if on_entry is not None:
            on_entry(entry)
    return out


def iter_local(sized: Iterable[tuple[str, int | None]], *, strict: bool = False,
               incremental: bool = False, workers: int | None = None,
               executor: fleet_run.Executor | None = None) -> Iterator[FleetEntry]:
    """`run_local`'s entries as they arrive (on `executor`, default the local pool)."""
    def large(path: str) -> dict[str, Any]:
        return audit_file(path, strict=strict, workers=None, incremental=incremental).to_wire()

    task = partial(audit_batch, strict=strict, incremental=incremental)
    for _path, wire in fleet_run.run(fleet_run.plan_batches(sized), task,
                                     executor or fleet_run.LocalPool(workers),
                                     large_task=large):
        yield FleetEntry.from_dict(wire)
