"""Audit-export bundles (`audit-bundle`, KINDS.md §9): the bundle's chain, and only
that.

`arcaeon audit verify DIR` resolves the folder to `DIR/records.jsonl` and verifies
that ledger's chain (non-strict); no reference code reads a bare bundle's
`manifest.json`, `integrity.json` or `ARTICLE_12_SUMMARY.md` back (quirk 46: they
can be edited or deleted, and the tail of the records cut, and the bundle still
verifies). So the verdict is the chain's (the records verified in place, streamed,
as `verify` reads a ledger of any size): `ok` true VERIFIED, false BROKEN, null
(bounded, empty) COULD NOT LOOK; a records file that cannot be read COULD NOT LOOK
(as `verify` says); no `records.jsonl` (or one that is not a file of the folder: a
link out of it is never followed) COULD NOT LOOK `missing`.

`detail` carries the chain's nine fields, and says plainly what is not covered:
`not_covered` lists the bundle's other files, and `not_checked_by_reference` shows
integrity.json's `finding` and whether its `records_sha256` matches the file —
labelled, never entering the verdict.
"""

from __future__ import annotations

import json
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core import verdict as _verdict
from sealscope.core.checks import zipread as Z
from sealscope.core.checks.result import CheckContext, KindCheck

__all__ = ["KIND", "NOT_COVERED", "check", "unit_subjects"]

KIND = "audit-bundle"
RECORDS = "records.jsonl"
#: The bundle's files the chain check does not cover.
NOT_COVERED = ("manifest.json", "integrity.json", "ARTICLE_12_SUMMARY.md")
BOUND = "chain of records.jsonl only; manifest, integrity file and summary not covered"


def _side_facts(m: Z.FolderMembers, records: str) -> dict[str, Any]:
    facts: dict[str, Any] = {}
    if m.is_file("integrity.json"):
        try:
            integrity = json.loads(m.read("integrity.json").decode("utf-8"))
        except (OSError, ValueError, RecursionError, Z.TooBig):
            integrity = None
        if isinstance(integrity, dict):
            facts["integrity_finding"] = integrity.get("finding")
            try:
                matches: bool | None = integrity.get("records_sha256") == Z.file_sha256(records)
            except OSError:
                matches = None
            facts["records_sha256_matches"] = matches
    return facts


def check(path: str, ctx: CheckContext) -> KindCheck:
    """`sealscope check` of an audit bundle folder (the module docstring's rule). The
    records are verified in place, as `verify` reads a ledger (streamed, any size)."""
    del ctx
    m = Z.FolderMembers(path)
    not_covered = [n for n in NOT_COVERED if m.is_file(n)]
    records = m.inside(RECORDS) if m.is_file(RECORDS) else None
    if records is None:
        return KindCheck(
            path=path,
            kind=KIND,
            ok=None,
            detail={"reason_word": "missing", "not_covered": not_covered},
            reason=f"{path} is a directory with no records.jsonl",
        )
    vr = _ledger.verify(records)
    detail: dict[str, Any] = vr.to_dict()
    detail["not_covered"] = not_covered
    side = _side_facts(m, records)
    if side:
        detail["not_checked_by_reference"] = side
    word = _verdict.COULD_NOT_LOOK if vr.unreadable else None
    return KindCheck(
        path=path,
        kind=KIND,
        ok=vr.ok,
        detail=detail,
        word=word,
        bound=BOUND if vr.ok else "",
        reason=vr.reason(),
    )


def unit_subjects(path: str) -> list[tuple[str, str]]:
    """The VSA subjects of a bundle folder: each of its files (subfolders included,
    links out of the folder left out), `(name, sha256)` in name order. Raises OSError
    when the folder cannot be read."""
    m = Z.FolderMembers(path)
    out = []
    for name in m.names():
        real = m.inside(name)
        if real is not None:
            out.append((name, Z.file_sha256(real)))
    return out
