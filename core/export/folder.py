"""The audit report of a folder: what `sealscope fleet DIR` audits, one section per
evidence entry, each bound to its own bytes, with a table of them all.

The rule is the fleet's, asked, never restated: the folder is walked by `fleet.walk`
(recursively; every file, the classifier deciding what each is, and each
evidence-pack or audit-bundle folder as ONE path whose members are not walked again;
a symlink out of the folder is not read unless `follow_links`, its entry COULD NOT LOOK
saying so), and
every path found is judged by the fleet's planner and runner (`fleet.iter_local`, each
path through `fleet.audit_path`, the classifier deciding what it is). So the report
has exactly the entries of `sealscope fleet DIR`, with their words and exit codes.

* `files`: one row per evidence entry, in the fleet's order (`fleet.worst_first`:
  worst first, then by path): its path, kind, the fleet entry's word and exit code,
  why it is not VERIFIED (`fleet.why_not`) or the bound a VERIFIED held within, and
  its binding (`sha256`, `bytes`, a ledger's head; a unit folder's members).
* `reports`: one section per row, in the same order. A ledger gets the report
  `export FILE` writes (`build_report`); any other kind (a pack, a bundle, an AAT
  export, a receipt, a snapshot, a harn file...) its kind report (`build_kind_report`,
  laid out from the fleet entry's own check, never judged again: its word is the
  fleet's). A ledger that could not be read (a FIFO, a dangling link, a link out of
  the folder not followed) gets a ledger report that says why, built without a byte
  read: its binding is null, with the reason.
* `not_evidence`: the paths the fleet lists but never judges (a `.json` of no
  evidence kind, a file not named `*.jsonl` whose bytes are no other kind), each
  with why.
* `verdict`, `exit_code`: the fleet's (`fleet.outcome`: `fleet.summarize`'s exit code;
  a folder with no evidence entry is COULD NOT LOOK: nothing was audited); `summary`
  its counts (no timing: the same folder gives the same report, the stamp aside).
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sealscope.core import fleet, kinds
from sealscope.core import verdict as _verdict
from sealscope.core.checks.result import CheckContext
from sealscope.core.clock import utc_stamp
from sealscope.core.export.kind_report import KindReport, build_kind_report
from sealscope.core.export.report import AuditReport, build_report
from sealscope.core.jsonio import dumps_output

__all__ = ["FOLDER_SCHEMA", "FolderReport", "build_folder_report"]

FOLDER_SCHEMA = "sealscope-export-folder:v1"

Section = AuditReport | KindReport


@dataclass(frozen=True)
class FolderReport:
    """A folder's fleet entries, a report section per evidence entry, and the paths
    listed but not judged (see the module docstring)."""

    path: str
    verdict: str
    exit_code: int
    files: tuple[dict[str, Any], ...] = ()
    reports: tuple[Section, ...] = ()
    not_evidence: tuple[dict[str, Any], ...] = ()
    summary: dict[str, Any] | None = None
    counted: str = ""  # `fleet.count_words`: "2 ledgers, 1 evidence-pack"
    follow_links: bool = False
    generated_at: str = ""
    version: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": FOLDER_SCHEMA,
            "path": self.path,
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "generated_at": self.generated_at,
            "sealscope_version": self.version,
            "follow_links": self.follow_links,
            "summary": self.summary,
            "files": list(self.files),
            "not_evidence": list(self.not_evidence),
            "reports": [r.to_dict() for r in self.reports],
        }

    def to_json(self) -> str:
        """The report as strict JSON (`jsonio.dumps_output`, the sanitizer's JSON rule)."""
        return dumps_output(self.to_dict(), indent=2)

    def to_markdown(self) -> str:
        from sealscope.core.export.folder_markdown import render

        return render(self)


def build_folder_report(
    path: str | os.PathLike[str],
    *,
    now: str | None = None,
    on_file: Callable[[str], None] | None = None,
    follow_links: bool = False,
) -> FolderReport:
    """The folder's report (see the module docstring). `on_file(path)` is told of
    each entry as the audit reaches it and again before its section is built (an
    exception it raises stops the build). OSError when the folder cannot be listed."""
    from sealscope.core.version import __version__

    p = os.fspath(path)
    os.listdir(p)  # a folder that cannot be listed is an error, not an empty report
    stamp = now or utc_stamp()
    skipped: list[tuple[str, str]] = []
    sized = list(fleet.walk([p], follow_links=follow_links, skipped=skipped))
    entries = [fleet.unreadable_entry(s, why) for s, why in skipped]  # as `fleet` lists them
    ctx = fleet.fleet_context(sized)  # what the fleet holds: the stored verdicts found
    for entry in fleet.iter_local(sized, ctx=ctx):
        if on_file is not None:
            on_file(entry.path)
        entries.append(entry)
    from sealscope.core.profiles.fleet_pairs import pair_entries

    entries, _paired = pair_entries(entries, ctx)  # KINDS-3.md §15.3, as `fleet` pairs
    judged = fleet.worst_first(entries)
    files: list[dict[str, Any]] = []
    reports: list[Section] = []
    for e in judged:
        if on_file is not None:
            on_file(e.path)
        section = _section(e, stamp, __version__, ctx)
        reports.append(section)
        files.append(_row(p, e, section))
    left = tuple(
        {
            "path": e.path,
            "relative": _relative(p, e.path),
            "reason": _why_left(e),
            "bytes": e.size,
        }
        for e in fleet.not_evidence(entries)
    )
    out = fleet.outcome(entries)
    summary = fleet.summarize(entries, 0.0)
    counts = {k: v for k, v in summary.to_dict().items() if k != "seconds"}
    return FolderReport(
        p,
        out.verdict,
        out.exit_code,
        tuple(files),
        tuple(reports),
        left,
        counts,
        fleet.count_words(summary),
        follow_links,
        stamp,
        __version__,
    )


def _section(e: fleet.FleetEntry, stamp: str, version: str, ctx: CheckContext) -> Section:
    """The report of one evidence entry (module docstring: `reports`), holding what
    the fleet held (`ctx`)."""
    if e.check is None:
        if e.result.unreadable:
            return _unread_ledger(e, stamp, version)
        # the walk the fleet just made is the section's verdict: the file is not walked again
        return build_report(e.path, kind=kinds.LEDGER, now=stamp, ctx=ctx, verify_result=e.result)
    return build_kind_report(e.path, e.check, now=stamp)


def _unread_ledger(e: fleet.FleetEntry, stamp: str, version: str) -> AuditReport:
    """The ledger report of an entry that could not be read, from the entry alone:
    nothing is opened again (a link out of the folder is never read)."""
    res = e.result
    why = fleet.why_not(e)
    return AuditReport(
        kinds.LEDGER,
        e.path,
        e.verdict,
        e.exit_code,
        ledger={**res.to_dict(), "verdict": res.verdict},
        breaks=tuple({"line": f.line, "kind": f.kind, "text": f.text} for f in res.findings),
        receipts_verdict=_verdict.receipts([]).verdict,
        file_verdict=e.verdict,
        why=why,
        evidence={"sha256": None, "bytes": None, "head": None, "error": why},
        generated_at=stamp,
        version=version,
    )


def _relative(root: str, path: str) -> str:
    rel = os.path.relpath(path, root)
    return path if rel.startswith("..") else rel


def _row(root: str, e: fleet.FleetEntry, section: Section) -> dict[str, Any]:
    """The table row of one evidence entry: the fleet's word and code, the section's
    binding."""
    bound = e.bound if e.check is None else (e.check.bound if e.exit_code == _verdict.HELD else "")
    return {
        "path": e.path,
        "relative": _relative(root, e.path),
        "kind": e.kind,
        "verdict": e.verdict,
        "exit_code": e.exit_code,
        "why": fleet.why_not(e) or None,
        "bound": bound or None,
        "evidence": section.evidence,
    }


def _why_left(e: fleet.FleetEntry) -> str:
    """Why a path is not evidence, without its path said again."""
    text = e.check.reason if e.check is not None else ""
    return text[len(e.path) + 1 :] if text.startswith(e.path + " ") else text
