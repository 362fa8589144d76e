"""The case file (issue 44): an audit's working papers as an arcaeon-format ledger.

A case is one JSONL file whose every row is chained as the reference's `Ledger.append`
chains a row (FORMATS.md §2.2–§2.3), so the reference verifier and `sealscope verify`
judge it as any ledger, and an edited row is BROKEN. Every row carries
`"case": "sealscope-case/1"`, an `entry` (`rows.ENTRIES`) and `ts`.

Modules, one concept each: `rows` (the row format and the entries read back), `store`
(create, append under a lock, the torn tail, repair, read), `evidence` (what a file was
when it was checked), `perform` (running a recorded check), `replay` (re-performing
every recorded check), `report` (the working papers, bound to the case's head),
`profile` (what `sealscope check` says of a case).
"""

from __future__ import annotations

from sealscope.core.case.rows import CASE_FORMAT, ENTRIES

__all__ = ["CASE_FORMAT", "ENTRIES"]
