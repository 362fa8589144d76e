"""Evidence packs, checks 4 to 6 (KINDS.md §8.2): `build-time findings`, `manifest
hash`, `aat export`; each function's docstring states its rule. The pack's shared
reading (`_Pack`) and checks 1–3 are in `pack`, checks 7 and 8 in `pack_mandate`,
9 and 10 in `pack_rederived`."""

from __future__ import annotations

import hashlib
import json
import re
from pathlib import PurePosixPath
from typing import Any

from sealscope.core.checks import pack_derive as D
from sealscope.core.checks.aat import verify_aat_file
from sealscope.core.checks.aat_rebuild import ExportRebuild
from sealscope.core.checks.pack import (
    BROKEN,
    CHECKS,
    CNL_FIELDS,
    CNL_FILE,
    COULD_NOT_LOOK,
    MANIFEST,
    MANIFEST_SHA,
    RECORDS,
    VERIFIED,
    WINDOW,
    Raised,
    _broken,
    _cnl,
    _finish,
    _missing,
    _Pack,
    _verified,
)
from sealscope.core.checks.pack_window import window_line_values

__all__ = ["step_build", "step_manifest_hash", "step_aat"]


def _rederive(p: _Pack, entries: list[dict[str, Any]]) -> list[str]:
    """The window selected again from the records must name the window's lines; an
    empty window or unplaced agent rows must be listed in could_not_look.json."""
    if not p.has(RECORDS) or not p.has(WINDOW):
        return []
    problems = []
    words = [e.get("reason_word") for e in entries]
    count, digest, whole = window_line_values(p)
    try:
        sel = p.selection()
    except ValueError:
        problems.append(
            "the manifest's window (agent, from, to) could not be read, so the "
            "window could not be selected again"
        )
    else:
        if sel.unplaced and "unreadable" not in words:
            problems.append(
                f"ledger lines {sel.unplaced} match the agent with a time that could "
                "not be read, and could_not_look.json does not say so"
            )
        if not whole or count != sel.count or digest.digest() != sel.digest.digest():
            problems.append(
                f"selecting the window again from records.jsonl gives {sel.count} ledger "
                f"lines (first {sel.first_line}, last {sel.last_line}), window.jsonl holds "
                f"{count} rows naming others"
            )
    if not count and "empty" not in words:
        problems.append("the window is empty and could_not_look.json does not say so")
    return problems


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def step_build(p: _Pack) -> dict[str, Any]:
    """4. The build's own findings still stated: `counts` and `checks` present
    (else BROKEN "manifest incomplete", tested first); could_not_look.json readable
    and equal to the COULD NOT LOOK entries of `checks`; the window re-selected;
    counts adding up; a build that recorded a BROKEN check BROKEN; any entry COULD
    NOT LOOK with the first entry's fields."""
    check = CHECKS[3]
    entries: list[Any] = []
    unread = None
    unread = _missing(p, check, [CNL_FILE], "what the build could not look at is unknown")
    if unread is None:
        try:
            entries = json.loads(p.read(CNL_FILE).decode("utf-8"))
            if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
                raise ValueError("not a JSON list of objects")
        except (OSError, ValueError) as e:
            entries = []
            unread = _cnl(
                check,
                CNL_FILE,
                p.m.where,
                "unreadable",
                f"could_not_look.json could not be read as a list of entries ({e})",
            )
    counts, checks = p.manifest.get("counts"), p.manifest.get("checks")
    incomplete = []
    if not isinstance(counts, dict) or not all(
        _is_count(counts.get(k)) for k in ("verified", "broken", "could_not_look")
    ):
        incomplete.append("`counts` (verified, broken, could_not_look)")
    if not isinstance(checks, list) or not all(isinstance(c, dict) for c in checks):
        incomplete.append("`checks`")
    if incomplete:
        return {
            "check": check,
            "entries": entries,
            "verdict": BROKEN,
            "finding": f"manifest incomplete: it has no readable {' or '.join(incomplete)}",
        }
    assert isinstance(counts, dict) and isinstance(checks, list)
    if unread is not None:
        return unread
    res: dict[str, Any] = {"check": check, "entries": entries, "manifest_counts": counts}
    keys = ("check", *CNL_FIELDS)
    listed = [{k: c.get(k) for k in keys} for c in checks if c.get("verdict") == COULD_NOT_LOOK]
    problems = []
    if listed != [{k: e.get(k) for k in keys} for e in entries]:
        problems.append(
            f"could_not_look.json does not hold the {COULD_NOT_LOOK} entries of the "
            "manifest's `checks`"
        )
    problems += _rederive(p, entries)
    if len(entries) != counts["could_not_look"]:
        problems.append(
            f"counts mismatch: could_not_look.json holds {len(entries)} entries, "
            f"the manifest's counts.could_not_look is {counts['could_not_look']}"
        )
    by_word = {
        w: sum(c.get("verdict") == w for c in checks) for w in (VERIFIED, BROKEN, COULD_NOT_LOOK)
    }
    if by_word != {
        VERIFIED: counts.get("verified"),
        BROKEN: counts.get("broken"),
        COULD_NOT_LOOK: counts.get("could_not_look"),
    }:
        problems.append(
            "counts mismatch: the manifest's `checks` list does not add up to its `counts`"
        )
    if problems:
        return _finish(res, problems)
    if (counts.get("broken") or 0) > 0 or p.manifest.get("verdict") == BROKEN:
        return _finish(
            res,
            [
                (
                    f"the build recorded {counts.get('broken') or 0} {BROKEN} "
                    "check(s); integrity.json names the break"
                )
            ],
        )
    if entries:
        first = entries[0]
        rw = first.get("reason_word")
        return {
            **res,
            **_cnl(
                check,
                first.get("looked_for"),
                first.get("where"),
                rw if rw in D.REASON_WORDS else "unreadable",
                f"the build could not look at {len(entries)} thing(s); first: "
                f"{first.get('reason')}",
            ),
        }
    return _finish(res, [])


def step_manifest_hash(p: _Pack) -> dict[str, Any]:
    """5. `manifest.sha256` is ASCII `<64 lowercase hex>  manifest.json` (else
    COULD NOT LOOK `missing` or `unreadable`) naming the manifest's own sha256."""
    check = CHECKS[4]
    gone = _missing(p, check, [MANIFEST_SHA], "the manifest's own bytes could not be checked")
    if gone is not None:
        return gone
    try:
        text = p.read(MANIFEST_SHA).decode("ascii")
        text = text.replace("\r\n", "\n").replace("\r", "\n").strip()
        want, _, name = text.partition("  ")
        if name != MANIFEST or not re.fullmatch(r"[0-9a-f]{64}", want):
            raise ValueError("not '<64 hex>  manifest.json'")
    except (OSError, ValueError) as e:
        return _cnl(
            check, MANIFEST_SHA, p.m.where, "unreadable", f"manifest.sha256 could not be read ({e})"
        )
    got = p.m.sha256(MANIFEST)
    res = {"check": check, "manifest_sha256": got, "recorded": want}
    return _finish(
        res,
        []
        if got == want
        else [
            (
                "manifest.json's sha256 differs from manifest.sha256: the manifest was changed "
                "after it was written"
            )
        ],
    )


# --------------------------------------------------------------------------- 6–8


def step_aat(p: _Pack) -> dict[str, Any]:
    """6. No `aat` in the manifest → VERIFIED. Else it names two plain file names,
    both present with the records (else COULD NOT LOOK `missing`). BROKEN, each
    naming its file: the export's own chain fails; the export differs from the one
    rebuilt from records.jsonl (the first differing line named); the manifest's
    `head` is not the rebuilt head; the gaps file differs from the one rebuilt from
    the records and their chain (`aat_rebuild`). Streamed: the records, the export
    and the gaps file are each read once, line by line or hashed."""
    check = CHECKS[5]
    claim = p.manifest.get("aat")
    if claim is None:
        return _verified(check, "this pack was built without --format aat")
    if not isinstance(claim, dict) or not all(
        isinstance(claim.get(k), str) for k in ("file", "gaps_file")
    ):
        return _broken(check, "manifest incomplete: `aat` names no file and gaps_file")
    if any(PurePosixPath(claim[k]).name != claim[k] for k in ("file", "gaps_file")):
        return _broken(check, "the manifest's `aat` names a file outside the pack folder")
    export, gaps = claim["file"], claim["gaps_file"]
    gone = _missing(p, check, (export, gaps, RECORDS), "the AAT export could not be recomputed")
    if gone is not None:
        return gone
    problems = []
    with p.m.open(export) as fh:
        run = verify_aat_file(fh)
    if not run["ok"]:
        problems.append(f"{export}: {run['finding']}")
    rebuilt = ExportRebuild()
    digest = hashlib.sha256()
    held = p.m.lines(export)
    differ_at = None
    try:
        for n, line in p.records_nonblank(rebuilt.skip_blank):
            out = rebuilt.feed(n, line)
            if out is None:
                continue
            digest.update(out + b"\n")
            if differ_at is None and next(held, None) != out:
                differ_at = rebuilt.records
    except TypeError:
        raise Raised("TypeError") from None  # an unhashable `evt`: the reference raises
    if digest.hexdigest() != p.m.sha256(export):
        if differ_at is None:  # every rebuilt line is the export's: it holds more
            differ_at = rebuilt.records + 1
        problems.append(
            f"{export} differs from the export recomputed from records.jsonl, first at line "
            f"{differ_at}"
        )
    held.close()
    head = rebuilt.head
    if claim.get("head") != head:
        problems.append(
            f"{export}: the manifest's aat head {claim.get('head')} is not the recomputed "
            f"head {head}"
        )
    vr = p.vr
    side = hashlib.sha256()
    for piece in rebuilt.gaps_pieces(
        export, {"ok": vr.ok, "rows": vr.rows, "first_break": vr.first_break}
    ):
        side.update(piece)
    if side.hexdigest() != p.m.sha256(gaps):
        problems.append(f"{gaps} differs from the gaps list recomputed from records.jsonl")
    return _finish({"check": check, "records": rebuilt.records, "head": head}, problems)
