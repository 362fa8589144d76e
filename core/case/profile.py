"""What `sealscope check` says of a case: a profile of a ledger (KINDS-3.md style).

A ledger whose first row opens a `sealscope-case/1` case is a case. Its check stays the
ledger's own check (the chain decides the word); `profiled` adds what it is: the reason
"a sealscope case: N entries, K open findings" beside a VERIFIED, and `detail.profile`
(`{"name", "entries", "open_findings"}`). The entries are counted from one read of the
case whose chain must also verify, else the profile says nothing.
"""

from __future__ import annotations

import dataclasses

from sealscope.core import lines as _lines
from sealscope.core import verdict as _verdict
from sealscope.core.case.rows import CASE_FORMAT, open_count
from sealscope.core.checks.result import KindCheck
from sealscope.core.rows import first_object

__all__ = ["is_case", "profiled"]


def is_case(path: str) -> bool:
    """Whether the file's first row opens a case (False when unreadable)."""
    try:
        with _lines.open_regular(path) as fh:
            first = first_object(_lines.FileSource(fh))
    except OSError:
        return False
    return bool(first and first.get("case") == CASE_FORMAT and first.get("entry") == "opened")


def profiled(res: KindCheck) -> KindCheck:
    """`res` (a ledger's check) with the case profile when the ledger is a case."""
    if not is_case(res.path):
        return res
    from sealscope.core.case.store import CaseError, read_case

    try:
        read = read_case(res.path)
    except CaseError:
        return res
    if read.verdict != _verdict.VERIFIED or res.verdict != _verdict.VERIFIED:
        return res
    entries = list(read.entries)
    k = open_count(entries)
    profile = {"name": CASE_FORMAT, "entries": len(entries), "open_findings": k}
    reason = (
        f"a sealscope case: {_verdict.plural(len(entries), 'entry', 'entries')}, "
        f"{_verdict.plural(k, 'open finding')}"
    )
    return dataclasses.replace(res, detail={**res.detail, "profile": profile}, reason=reason)
