"""The case row format, `sealscope-case/1`, and the entries read back from a case.

Every row is an object with `"case": "sealscope-case/1"` first, then `entry`, the
entry's own fields, `ts` and (added by the append) `chain` last. The entries:

- `opened`: `title`, `by` (either may be null) and `sealscope` (the version that opened it);
- `evidence`: `path` as given, `resolved` (absolute), `sha256`, `bytes`, `kind`, `head`
  (`{"rows", "chain"}` for a ledger, else null), `tree` (true for a folder, whose
  `sha256` is `evidence.tree_digest`);
- `check`: `check` (what was run: `kind`, `pin`, `receipts`), `inputs` (each
  `{"role", "path", "resolved", "sha256"}`), `args` (the check's options), `verdict`,
  `exit_code`, `bound`, `reason`, `sealscope` (version) and `result_sha256` (the digest
  of the full result JSON, `perform.result_digest`);
- `note`: `text`, `on` (an anchor or null), `by`;
- `finding`: `text`, `on`, `by`, `severity` (high, medium, low), `status` `open`; a later
  `finding` row with `status` `resolved` and `resolves` (the finding's id) and
  `resolves_chain` (its row's chain) resolves it;
- `signoff`: `by` and `statement`.

An anchor (`on`) is `{"path", "sha256"}` and optionally `line`, `item` or `member`.
A finding's id is `F<n>`, n its place among the case's open-status finding rows (1-based):
derived on reading, never stored, stable because a case only grows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sealscope.core.clock import utc_stamp

__all__ = [
    "CASE_FORMAT",
    "ENTRIES",
    "SEVERITIES",
    "CaseEntry",
    "Finding",
    "new_row",
    "entries_of",
    "findings_of",
]

CASE_FORMAT = "sealscope-case/1"
ENTRIES = ("opened", "evidence", "check", "note", "finding", "signoff")
SEVERITIES = ("high", "medium", "low")
OPEN, RESOLVED = "open", "resolved"


def new_row(entry: str, fields: dict[str, Any]) -> dict[str, Any]:
    """A case row (before its chain): the format marker, the entry, `fields` in their
    order, then `ts` (now, unless `fields` carries one)."""
    if entry not in ENTRIES:
        raise ValueError(f"not a case entry: {entry!r}")
    row: dict[str, Any] = {"case": CASE_FORMAT, "entry": entry}
    row.update(fields)
    row.setdefault("ts", utc_stamp())
    return row


@dataclass(frozen=True)
class CaseEntry:
    """One row of a case: its 1-based `line`, the `entry` word and the row itself."""

    line: int
    entry: str
    row: dict[str, Any]

    def get(self, key: str, default: Any = None) -> Any:
        return self.row.get(key, default)

    @property
    def text(self) -> str:
        """The human text of a note, finding or sign-off (`""` for others)."""
        value = self.row.get("statement" if self.entry == "signoff" else "text")
        return value if isinstance(value, str) else ""


@dataclass(frozen=True)
class Finding:
    """A finding and its resolution: `id` (`F<n>`), the finding row's entry, and the
    resolving entries (in order; any makes it resolved)."""

    id: str
    entry: CaseEntry
    resolutions: tuple[CaseEntry, ...] = field(default=())

    @property
    def status(self) -> str:
        return RESOLVED if self.resolutions else OPEN

    @property
    def severity(self) -> str:
        value = self.entry.get("severity")
        return value if isinstance(value, str) else "?"


def entries_of(rows: list[tuple[int, Any]]) -> list[CaseEntry]:
    """The case entries among (line, value) rows: objects carrying this format and a
    known entry word; anything else is not an entry (the chain still judges it)."""
    out: list[CaseEntry] = []
    for line, value in rows:
        if not isinstance(value, dict) or value.get("case") != CASE_FORMAT:
            continue
        entry = value.get("entry")
        if isinstance(entry, str) and entry in ENTRIES:
            out.append(CaseEntry(line, entry, value))
    return out


def is_resolution(e: CaseEntry) -> bool:
    return e.entry == "finding" and e.get("status") == RESOLVED


def findings_of(entries: list[CaseEntry]) -> list[Finding]:
    """Every finding in order with its resolutions. A resolution counts only when its
    `resolves` names an earlier finding and its `resolves_chain` is that row's chain."""
    found: list[Finding] = []
    by_id: dict[str, int] = {}
    for e in entries:
        if e.entry != "finding":
            continue
        if is_resolution(e):
            idx = by_id.get(str(e.get("resolves")))
            if idx is not None and e.get("resolves_chain") == found[idx].entry.get("chain"):
                f = found[idx]
                found[idx] = Finding(f.id, f.entry, (*f.resolutions, e))
            continue
        fid = f"F{len(found) + 1}"
        by_id[fid] = len(found)
        found.append(Finding(fid, e))
    return found


def open_count(entries: list[CaseEntry]) -> int:
    """How many findings are open."""
    return sum(1 for f in findings_of(entries) if f.status == OPEN)


def _anchor_text(on: Any) -> str:
    if not isinstance(on, dict):
        return ""
    where = str(on.get("path"))
    if on.get("line") is not None:
        where += f":{on.get('line')}"
    for key in ("item", "member"):
        if on.get(key) is not None:
            where += f" {key} {on.get(key)}"
    return f" [on {where}]"


def describe(e: CaseEntry, finding_ids: dict[int, str] | None = None) -> str:
    """One line saying what an entry records (raw: a frontend sanitizes it).
    `finding_ids` maps a finding row's line to its id."""
    r = e.row
    if e.entry == "opened":
        return f"opened {r.get('title') or '(untitled)'}" + (
            f" by {r.get('by')}" if r.get("by") else ""
        )
    if e.entry == "evidence":
        head = r.get("head")
        extra = (
            f", {head.get('rows')} rows, head {head.get('chain')}" if isinstance(head, dict) else ""
        )
        return (
            f"{r.get('path')}  sha256 {str(r.get('sha256'))[:16]}…  {r.get('bytes')} bytes  "
            f"{r.get('kind') or '-'}{extra}"
        )
    if e.entry == "check":
        inputs = r.get("inputs") if isinstance(r.get("inputs"), list) else []
        first = inputs[0].get("path") if inputs and isinstance(inputs[0], dict) else "-"
        bound = f" · {r.get('bound')}" if r.get("bound") else ""
        reason = f"  {r.get('reason')}" if r.get("reason") else ""
        return f"{r.get('check')} {first}: {r.get('verdict')}{bound}{reason}"
    if e.entry == "note":
        return f"{e.text}{_anchor_text(r.get('on'))}"
    if e.entry == "finding":
        if is_resolution(e):
            return f"resolves {r.get('resolves')}: {e.text}"
        fid = (finding_ids or {}).get(e.line, "F?")
        return f"{fid} {r.get('severity')} {r.get('status')}: {e.text}{_anchor_text(r.get('on'))}"
    return f"{r.get('by')}: {e.text}"


def newest_first(entries: list[CaseEntry]) -> list[CaseEntry]:
    """The order a case is listed in for working on it: open findings first (in case
    order), then every other entry newest first."""
    found = findings_of(entries)
    open_lines = [f.entry.line for f in found if f.status == OPEN]
    first = [e for e in entries if e.line in set(open_lines)]
    rest = [e for e in reversed(entries) if e.line not in set(open_lines)]
    return first + rest
