"""Evidence packs, checks 7 and 8 (KINDS.md §8.2): `mandate rows` and `second-read
receipt`, rebuilt and rerun from what the pack holds, as the reference's verifier
does; each function's docstring states its rule.

The mandate section (`mandate_section`) is the window's mandate rows read again from
records.jsonl: for each of the manifest's `window.lines` (in its order, a number
past the records or not an integer skipped) the line decoded with replacement and
parsed; a `session_end` row adds its `mandate_inside` count (a non-negative integer)
and marks its session ended; a `mandate_loaded` row names its `mandate_file_sha256`,
a `mandate_changed` row its `to_sha256`; a `mandate_outside`, `mandate_could_not_look`
or `mandate_cap_exceeded` row whose `verdict` is `outside` or `could_not_look` is
counted and kept verbatim; each of those three kinds marks its session gated. The
records are streamed once; only the window's mandate rows are held.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from typing import Any

from sealscope.core.checks import portable as _portable
from sealscope.core.checks import zipread as Z
from sealscope.core.checks.pack import (
    BROKEN,
    CHECKS,
    CNL_FIELDS,
    COULD_NOT_LOOK,
    MANIFEST,
    RECORDS,
    VERIFIED,
    Raised,
    _broken,
    _cnl,
    _finish,
    _get,
    _missing,
    _Pack,
    _verified,
)
from sealscope.core.jsonio import loads_strict

__all__ = ["step_mandate", "step_readings", "mandate_section", "mandate_checks"]

MANDATE_ROWS, MANDATE_COPY = "mandate_rows.json", "mandate_file.json"
READINGS_RECEIPT, READINGS_LEDGER = "readings_receipt.json", "readings_receipt.ledger.jsonl"
_VERDICT_EVTS = ("mandate_outside", "mandate_could_not_look", "mandate_cap_exceeded")
_KEPT_EVTS = ("session_end", "mandate_loaded", "mandate_changed", *_VERDICT_EVTS)
_INSIDE_FROM = (
    "the mandate_inside field of the window's session_end rows (an inside call is "
    "counted, not rowed)"
)


def _is_count(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v >= 0


def _window_mandate_rows(p: _Pack, wanted: set[int]) -> dict[int, tuple[dict[str, Any], str]]:
    """(parsed row, text) of each wanted records line whose row is a mandate row (the
    module docstring's kinds), streamed; other lines are not held."""
    held: dict[int, tuple[dict[str, Any], str]] = {}
    for n, line in p.records_nonblank(lambda _first, _last: None):
        if n not in wanted:
            continue
        text = line.decode("utf-8", errors="replace")
        try:
            row = json.loads(text)
        except ValueError:
            continue
        if not isinstance(row, dict):
            continue
        if row.get("evt") in _KEPT_EVTS:  # compared by ==, as the reference does
            held[n] = (row, text)
    return held


def mandate_section(
    p: _Pack, window_lines: list[Any], mandate_name: Any, mandate_sha: str | None
) -> dict[str, Any]:
    """The mandate rows section for the window (the module docstring's rule), with
    the copied mandate's sha256 (None: no copy)."""
    wanted = {n for n in window_lines if isinstance(n, int) and n >= 1}
    rows = _window_mandate_rows(p, wanted)
    counts = {"inside": 0, "outside": 0, "could_not_look": 0}
    outside: list[dict[str, Any]] = []
    cnl: list[dict[str, Any]] = []
    loaded: list[int] = []
    changed: list[int] = []
    named: list[Any] = []
    gated: list[Any] = []
    ended: list[Any] = []
    for n in window_lines:
        if not isinstance(n, int) or n not in rows:
            continue
        row, text = rows[n]
        evt, session = row.get("evt"), row.get("session")
        if evt == "session_end":
            if _is_count(row.get("mandate_inside")):
                counts["inside"] += row["mandate_inside"]
                ended.append(session)
            continue
        if evt == "mandate_loaded":
            loaded.append(n)
            if isinstance(row.get("mandate_file_sha256"), str):
                named.append(row["mandate_file_sha256"])
        elif evt == "mandate_changed":
            changed.append(n)
            if isinstance(row.get("to_sha256"), str):
                named.append(row["to_sha256"])
        elif row.get("verdict") in ("outside", "could_not_look"):
            key = row["verdict"]
            counts[key] += 1
            (outside if key == "outside" else cnl).append({"line": n, "raw": text})
        else:
            continue
        if session not in gated:
            gated.append(session)
    uniq: list[Any] = []
    for x in named:
        if x not in uniq:
            uniq.append(x)
    return {
        "mandate_file": mandate_name,
        "copy": MANDATE_COPY if mandate_sha is not None else None,
        "mandate_file_sha256": mandate_sha,
        "window_rows": len(window_lines),
        "counts": counts,
        "inside_counted_from": _INSIDE_FROM,
        "sessions_without_end": [x for x in gated if x not in ended],
        "named_sha256": uniq,
        "loaded_lines": loaded,
        "changed_lines": changed,
        "file_is_named": (mandate_sha in uniq) if mandate_sha is not None else None,
        "outside_rows": outside,
        "could_not_look_rows": cnl,
    }


def _cnl_fields(looked_for: Any, where: Any, word: str, reason: str) -> dict[str, Any]:
    return dict(zip(CNL_FIELDS, (looked_for, where, word, reason), strict=True))


def mandate_checks(section: dict[str, Any]) -> list[dict[str, Any]]:
    """The checks a mandate section stands for: the mandate file read (else COULD NOT
    LOOK `missing`); the file the one the window's rows name (none named: `missing`;
    another named: `name_not_found`); the inside count whole (gated sessions ending
    outside the window: `bounded`)."""
    name, sha = section["mandate_file"], section["mandate_file_sha256"]
    if sha is None:
        return [
            {
                "check": "mandate file read",
                "verdict": COULD_NOT_LOOK,
                **_cnl_fields(
                    f"the mandate file {name!r}",
                    str(name),
                    "missing",
                    "the mandate file named with --mandate could not be read, so no count "
                    "can be tied to it",
                ),
            }
        ]
    tie: dict[str, Any] = {"check": "mandate file is the one the gate loaded"}
    if not section["named_sha256"]:
        tie.update(
            verdict=COULD_NOT_LOOK,
            **_cnl_fields(
                "a mandate_loaded or mandate_changed row naming a file sha256",
                "window.jsonl",
                "missing",
                "no row in the window names which mandate file the gate loaded, so the "
                "counts cannot be tied to this file",
            ),
        )
    elif not section["file_is_named"]:
        tie.update(
            verdict=COULD_NOT_LOOK,
            **_cnl_fields(
                f"the mandate file sha256 {sha}",
                "window.jsonl",
                "name_not_found",
                f"the window's rows name {section['named_sha256']}, not this file, so the "
                "counts are not counts against it",
            ),
        )
    else:
        tie["verdict"] = VERIFIED
    checks = [tie]
    if section["sessions_without_end"]:
        checks.append(
            {
                "check": "mandate inside count",
                "verdict": COULD_NOT_LOOK,
                **_cnl_fields(
                    f"session_end rows for sessions {section['sessions_without_end']}",
                    MANDATE_ROWS,
                    "bounded",
                    "an inside call is counted only on its session's session_end row, and "
                    "these gated sessions end outside the window, so the inside count is "
                    "short by an unknown number",
                ),
            }
        )
    return checks


def _block(section: dict[str, Any]) -> dict[str, Any]:
    """The manifest's `mandate` block a section stands for."""
    return {
        "file": MANDATE_ROWS,
        "copy": section["copy"],
        "mandate_file": section["mandate_file"],
        "mandate_file_sha256": section["mandate_file_sha256"],
        "counts": section["counts"],
    }


def step_mandate(p: _Pack) -> dict[str, Any]:
    """7. No `mandate` → VERIFIED; a block not naming mandate_rows.json (and, for a
    copy, mandate_file.json) BROKEN; mandate_rows.json, records.jsonl or a named
    copy missing, COULD NOT LOOK `missing`; no `window.lines` list, `unreadable`.
    Otherwise the section is rebuilt (module docstring) and BROKEN, each naming
    what differs: mandate_rows.json is not its bytes (two-space JSON, UTF-8, one
    final LF); the manifest's `mandate` block is not the one it stands for; the
    manifest's mandate checks are not the ones it stands for."""
    check = CHECKS[6]
    claim = p.manifest.get("mandate")
    if claim is None:
        return _verified(check, "this pack was built without --mandate")
    if (
        not isinstance(claim, dict)
        or claim.get("file") != MANDATE_ROWS
        or claim.get("copy") not in (MANDATE_COPY, None)
    ):
        return _broken(check, f"manifest incomplete: `mandate` does not name {MANDATE_ROWS}")
    gone = _missing(p, check, (MANDATE_ROWS, RECORDS), "the mandate rows could not be rebuilt")
    if gone is not None:
        return gone
    sha = None
    if claim.get("copy") is not None:
        if not p.has(MANDATE_COPY):
            return _cnl(
                check,
                MANDATE_COPY,
                p.m.where,
                "missing",
                "the pack has no mandate_file.json, so the mandate's sha256 could not be "
                "recomputed",
            )
        sha = p.m.sha256(MANDATE_COPY)
    lines = _get(p.manifest.get("window"), "lines")
    if not isinstance(lines, list):
        return _cnl(
            check,
            "the window's ledger line numbers",
            MANIFEST,
            "unreadable",
            "manifest.json has no `window.lines`, so the mandate rows could not be selected again",
        )
    section = mandate_section(p, lines, claim.get("mandate_file"), sha)
    problems = []
    try:
        rebuilt = (json.dumps(section, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    except UnicodeEncodeError:
        raise Raised("UnicodeEncodeError") from None  # a lone surrogate in a name
    if hashlib.sha256(rebuilt).hexdigest() != p.m.sha256(MANDATE_ROWS):
        problems.append(
            f"{MANDATE_ROWS} differs from the section rebuilt from records.jsonl and "
            "mandate_file.json"
        )
    if claim != _block(section):
        problems.append(
            "the manifest's `mandate` block differs from the one rebuilt from the records "
            f"(counts {section['counts']}, sha256 {section['mandate_file_sha256']})"
        )
    want = mandate_checks(section)
    names = {c["check"] for c in want} | {
        "mandate file read",
        "mandate file is the one the gate loaded",
        "mandate inside count",
    }
    listed = p.manifest.get("checks") or []
    if not isinstance(listed, (list, str, dict)):
        raise Raised("TypeError")  # not iterable: the reference raises
    got = [c for c in listed if isinstance(c, dict) and c.get("check") in names]
    if got != want:
        problems.append(
            "the manifest's mandate checks are not the ones the rebuilt section stands for"
        )
    res = {
        "check": check,
        "counts": section["counts"],
        "outside_rows": len(section["outside_rows"]),
    }
    return _finish(res, problems)


def _receipt_verify(p: _Pack, with_ledger: bool) -> tuple[dict[str, Any], dict[str, Any]]:
    """(summary, check) of `receipt verify` rerun on the pack's copy of the receipt,
    against its copied ledger when `with_ledger`: VERIFIED when ok, BROKEN naming the
    verifier's notes, COULD NOT LOOK `unreadable` when the receipt is not strict
    JSON. A zip's ledger entry is copied to a private temporary folder for the
    ledger check (removed after; never beside the pack)."""
    name = "second-read receipt verify"
    try:
        text = p.read(READINGS_RECEIPT).decode("utf-8")
        receipt = loads_strict(text)
    except (OSError, UnicodeDecodeError, ValueError) as e:
        summary: dict[str, Any] = {
            "kind": None,
            "body_digest": None,
            "ok": None,
            "ledger_status": None,
        }
        return summary, {
            "check": name,
            "verdict": COULD_NOT_LOOK,
            **_cnl_fields(
                "a second-read comparison receipt",
                READINGS_RECEIPT,
                "unreadable",
                f"the receipt could not be read as strict JSON ({e})",
            ),
        }
    if not with_ledger:
        vr = _portable.verify_portable(receipt, ledger_path=None, source_text=text)
    elif isinstance(p.m, Z.FolderMembers):
        vr = _portable.verify_portable(
            receipt, ledger_path=p.m.inside(READINGS_LEDGER), source_text=text
        )
    else:
        folder = tempfile.mkdtemp(prefix="sealscope-readings-")
        try:
            path = os.path.join(folder, READINGS_LEDGER)
            with p.m.open(READINGS_LEDGER) as src, open(path, "wb") as dst:
                shutil.copyfileobj(src, dst, 1 << 20)
            vr = _portable.verify_portable(receipt, ledger_path=path, source_text=text)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
    body = receipt if isinstance(receipt, dict) else {}
    summary = {
        "kind": body.get("kind"),
        "body_digest": body.get("body_digest"),
        "ok": bool(vr["ok"]),
        "body_digest_ok": bool(vr["body_digest_ok"]),
        "ledger_status": vr["ledger"]["status"],
    }
    got: dict[str, Any] = {"check": name, "ledger_status": summary["ledger_status"]}
    if vr["ok"]:
        got["verdict"] = VERIFIED
    else:
        why = "; ".join(vr["notes"]) or f"ledger {summary['ledger_status']}"
        got.update(verdict=BROKEN, finding=f"{READINGS_RECEIPT} fails receipt verify: {why}")
    return summary, got


def step_readings(p: _Pack) -> dict[str, Any]:
    """8. No `readings` → VERIFIED; a block not naming readings_receipt.json (and,
    for a ledger, readings_receipt.ledger.jsonl) BROKEN; a build that could not
    include the receipt (`ok` null) VERIFIED, its finding being in
    could_not_look.json; the receipt or its named ledger missing, COULD NOT LOOK
    `missing`. Otherwise `receipt verify` reruns (the portable receipt's check, on
    the pack's copies): its word when not VERIFIED; else BROKEN when the manifest's
    block does not record what it gives (kind, body digest, ok, body_digest_ok,
    ledger status)."""
    check = CHECKS[7]
    claim = p.manifest.get("readings")
    if claim is None:
        return _verified(check, "this pack was built without --readings")
    if (
        not isinstance(claim, dict)
        or claim.get("receipt") != READINGS_RECEIPT
        or claim.get("ledger") not in (READINGS_LEDGER, None)
    ):
        return _broken(check, f"manifest incomplete: `readings` does not name {READINGS_RECEIPT}")
    if claim.get("ok") is None:
        return _verified(
            check,
            "the build could not include the receipt; its could-not-look is in could_not_look.json",
        )
    with_ledger = claim.get("ledger") is not None
    names = (READINGS_RECEIPT, READINGS_LEDGER) if with_ledger else (READINGS_RECEIPT,)
    gone = _missing(p, check, names, "receipt verify could not run")
    if gone is not None:
        return gone
    summary, got = _receipt_verify(p, with_ledger)
    res: dict[str, Any] = {
        "check": check,
        "receipt_verify": got,
        "ledger_status": summary["ledger_status"],
    }
    if got["verdict"] != VERIFIED:
        extra = {"finding": got["finding"]} if "finding" in got else {k: got[k] for k in CNL_FIELDS}
        return {**res, "verdict": got["verdict"], **extra}
    recorded = {k: claim.get(k) for k in summary}
    if recorded != summary:
        return _finish(
            res,
            [f"the manifest's `readings` block records {recorded}, receipt verify gives {summary}"],
        )
    return _finish(res, [])
