"""Audit-export bundles (`audit-bundle`, KINDS.md §9.2): the bundle's chain, then the
bundle's own record of itself.

`arcaeon audit verify DIR` resolves the folder to `DIR/records.jsonl` and verifies
that ledger's chain (non-strict): `ok` true VERIFIED, false BROKEN, null (bounded,
empty) COULD NOT LOOK; a records file that cannot be read COULD NOT LOOK (as `verify`
says); no `records.jsonl` (or one that is not a file of the folder: a link out of it is
never followed) COULD NOT LOOK `missing`.

The bundle's `integrity.json`, when it is a regular file holding a JSON object, can
make that word worse and never better: a `records_sha256` that is not the SHA-256 of
the records the chain walk read (hashed from the same reads) is BROKEN; its own
`verdict` BROKEN is BROKEN, COULD NOT LOOK is at best COULD NOT LOOK; anything else adds
nothing. The path's word is the worst of the three, and `ok` follows that word (false,
null, true) while `detail.ok` stays the chain's own. Absent or unreadable, it adds only
the bound: the bundle's own record was not checked. `manifest.json` and the summary are
never read here.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core import verdict as _verdict
from sealscope.core.checks import zipread as Z
from sealscope.core.checks.result import CheckContext, KindCheck

__all__ = ["KIND", "NOT_COVERED", "check", "integrity_record", "unit_subjects"]

KIND = "audit-bundle"
RECORDS = "records.jsonl"
INTEGRITY = "integrity.json"
#: The bundle's files no check reads.
NOT_COVERED = ("manifest.json", "ARTICLE_12_SUMMARY.md")
BOUND = "chain of records.jsonl and integrity.json; manifest and summary not covered"
BOUND_NO_INTEGRITY = "integrity.json absent, the bundle's own record not checked"
SHA_DIFFERS = "records.jsonl is not the file integrity.json recorded (records_sha256 differs)"

_WORD_OK: dict[str, bool | None] = {
    _verdict.VERIFIED: True,
    _verdict.BROKEN: False,
    _verdict.COULD_NOT_LOOK: None,
}


def _integrity_object(m: Z.FolderMembers) -> tuple[dict[str, Any] | None, str | None]:
    """integrity.json as a JSON object (Python parse), or None when it is absent, not a
    regular file of the folder, unreadable or not an object; and the SHA-256 of the
    bytes read (None: not read)."""
    if not m.is_file(INTEGRITY):
        return None, None
    try:
        data = m.read(INTEGRITY)
    except (OSError, Z.TooBig):
        return None, None
    sha = hashlib.sha256(data).hexdigest()
    try:
        value = json.loads(data.decode("utf-8"))
    except (ValueError, RecursionError):
        return None, sha
    return (value if isinstance(value, dict) else None), sha


def integrity_record(
    integrity: dict[str, Any] | None, records_sha256: str | None
) -> tuple[dict[str, Any], list[tuple[str, str]]]:
    """The compared `detail.integrity` fields and the (word, reason) each finding of the
    bundle's own record adds (KINDS.md §9.2). `records_sha256` is the digest of the
    records the chain walk read (None: not read)."""
    if integrity is None:
        return {"verdict": None, "finding": None, "records_sha256_matches": None}, []
    said = integrity.get("verdict")
    finding = integrity.get("finding")
    recorded = integrity.get("records_sha256", _ABSENT)
    matches: bool | None = None
    if recorded is not _ABSENT and records_sha256 is not None:
        matches = recorded == records_sha256
    fields = {
        "verdict": said if isinstance(said, str) else None,
        "finding": finding if isinstance(finding, str) else None,
        "records_sha256_matches": matches,
    }
    found: list[tuple[str, str]] = []
    if matches is False:
        found.append((_verdict.BROKEN, SHA_DIFFERS))
    if said in (_verdict.BROKEN, _verdict.COULD_NOT_LOOK):
        named = finding if isinstance(finding, str) else said
        found.append((said, f"integrity.json records {named}"))
    return fields, found


_ABSENT: Any = object()


def check(path: str, ctx: CheckContext) -> KindCheck:
    """`sealscope check` of an audit bundle folder (the module docstring's rule). The
    records are verified in place, as `verify` reads a ledger (streamed, any size),
    and hashed from the same reads."""
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
    vr = _ledger.verify(records, digest=True)
    integrity, integrity_sha = _integrity_object(m)
    fields, found = integrity_record(integrity, vr.sha256)
    detail: dict[str, Any] = vr.to_dict()
    detail["integrity"] = fields
    detail["not_covered"] = not_covered
    chain_word = _verdict.COULD_NOT_LOOK if vr.unreadable else vr.outcome().verdict
    word = _verdict.worst_word([chain_word, *(w for w, _ in found)])
    reasons = [why for _w, why in found]
    chain_reason = vr.reason()
    if chain_word != _verdict.VERIFIED and chain_reason:
        reasons.insert(0, chain_reason)
    bound = ""
    if word == _verdict.VERIFIED:
        bound = BOUND if integrity is not None else BOUND_NO_INTEGRITY
    return KindCheck(
        path=path,
        kind=KIND,
        ok=_WORD_OK[word],
        detail=detail,
        word=word,
        bound=bound,
        reason="; ".join(reasons),
        subjects=_read_subjects(path, vr.sha256, integrity_sha),
    )


def _read_subjects(
    path: str, records_sha: str | None, integrity_sha: str | None
) -> tuple[tuple[str, str], ...]:
    """The VSA subjects of a bundle's check: the files it read, each by the digest of
    the bytes it read (`path/member`): records.jsonl as its walk hashed it, and
    integrity.json when read; () when the records could not be bound (changed or
    replaced while walked)."""
    if records_sha is None:
        return ()
    out = [(f"{path}/{RECORDS}", records_sha)]
    if integrity_sha is not None:
        out.append((f"{path}/{INTEGRITY}", integrity_sha))
    return tuple(out)


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
