"""Readings ledgers, compared two at a time (KINDS-3.md §21, `arcaeon second-read
compare A B`).

Each reader's ledger freezes criteria (`arcaeon-criterion/1` rows) and reads claims
against them (`arcaeon-reading/1` rows). The comparison, first match wins:

* either chain does not verify → BROKEN (counts not computed); a ledger missing,
  unreadable, empty or verified only within a bound → COULD NOT LOOK;
* a reading row that is not well formed (format, reading word yes/no/undetermined,
  claim id, two sha256 digests, a reader with a non-empty id and provider) →
  COULD NOT LOOK `unreadable`, even on a re-chained ledger (quirk 67); a reading citing
  a criterion not frozen earlier in its own ledger → `name_not_found`;
* neither ledger holds a reading → COULD NOT LOOK `empty`;
* per claim id (a's order, then b's), the last reading of each side: read on one side
  only → MISSING; different claim text or criterion → COULD NOT LOOK `bounded`; one
  reader on both sides (ids NFKC + strip + casefold, quirk 68) → COULD NOT LOOK; else
  AGREED or DISAGREED;
* any claim with one reader → COULD NOT LOOK `bounded`; then MISSING; then COULD NOT
  LOOK; else COMPARED (a disagreement is filed, not failed).

`independence` is the weakest class among lined-up claims: `same_reader`,
`same_provider` (providers strip + casefold), `distinct_provider_self_asserted`.
"""

from __future__ import annotations

import os
import re
import unicodedata
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core import verdict as _verdict
from sealscope.core.profiles import reading as _r

__all__ = ["PROFILE", "READING_FORMAT", "CRITERION_FORMAT", "compare", "word_of", "canonical_id"]

PROFILE = "readings"
READING_FORMAT = "arcaeon-reading/1"
CRITERION_FORMAT = "arcaeon-criterion/1"
READING_WORDS = ("yes", "no", "undetermined")
READER_FIELDS = ("id", "provider", "model", "endpoint_host")
COMPARED, AGREED, DISAGREED = "COMPARED", "AGREED", "DISAGREED"
MISSING = "MISSING"
COULD_NOT_LOOK, BROKEN = _verdict.COULD_NOT_LOOK, _verdict.BROKEN  # the compare's words
SAME_READER, SAME_PROVIDER = "same_reader", "same_provider"
DISTINCT_PROVIDER = "distinct_provider_self_asserted"
CLASSES = (SAME_READER, SAME_PROVIDER, DISTINCT_PROVIDER)
EXIT = {COMPARED: 0, MISSING: 1, BROKEN: 1, COULD_NOT_LOOK: 3}
_HEX64 = re.compile(r"\A[0-9a-f]{64}\Z")
_LINE = re.compile(r"\bline (\d+)\b")


def canonical_id(value: str) -> str:
    """A reader id's canonical form: NFKC, stripped, casefolded."""
    return unicodedata.normalize("NFKC", value).strip().casefold()


def _chain_check(name: str, path: str, src: str) -> dict[str, Any] | None:
    if not os.path.exists(path):
        return {
            "verdict": COULD_NOT_LOOK,
            "ledger": name,
            "reason_word": _r.MISSING,
            "reason": f"ledger {name} ({path}) does not exist",
        }
    res = _ledger.verify(src)
    if res.ok is True:
        return None
    fb = res.first_break or ""
    if res.ok is False and (res.unreadable or fb.startswith("unreadable")):
        return {
            "verdict": COULD_NOT_LOOK,
            "ledger": name,
            "reason_word": _r.UNREADABLE,
            "reason": f"ledger {name} ({path}) [{fb}]",
        }
    if res.ok is False:
        return {"verdict": BROKEN, "ledger": name, "reason": f"ledger {name} chain is broken: {fb}"}
    if res.verified_scope == "empty":
        return {
            "verdict": COULD_NOT_LOOK,
            "ledger": name,
            "reason_word": _r.EMPTY,
            "reason": f"ledger {name} ({path}) has no rows",
        }
    return {
        "verdict": COULD_NOT_LOOK,
        "ledger": name,
        "reason_word": _r.BOUNDED,
        "reason": f"ledger {name} verifies only within scope {res.verified_scope}",
    }


def _row_problem(obj: dict[str, Any]) -> str | None:
    """Why a reading row is not well formed, or None."""
    if obj.get("format") != READING_FORMAT:
        return "format"
    if obj.get("reading") not in READING_WORDS:
        return "unknown reading word"
    if not isinstance(obj.get("claim_id"), str) or not obj["claim_id"]:
        return "claim_id missing"
    for key in ("claim_sha256", "criterion_sha256"):
        v = obj.get(key)
        if not isinstance(v, str) or not _HEX64.match(v):
            return f"{key} must be a sha256"
    reader = obj.get("reader")
    if not isinstance(reader, dict) or set(reader) - set(READER_FIELDS):
        return "reader"
    for key in READER_FIELDS:
        val = reader.get(key)
        if key in ("id", "provider"):
            if not isinstance(val, str) or not val.strip():
                return f"reader.{key}"
        elif val is not None and not isinstance(val, str):
            return f"reader.{key}"
    nm = obj.get("near_match_id")
    if nm is not None and (not isinstance(nm, str) or not nm):
        return "near_match_id"
    return None


def _load(path: str, src: str) -> tuple[dict[str, dict[str, Any]] | None, dict[str, Any] | None]:
    """(claim id → its last reading's view, None) or (None, the refusal)."""
    criteria: set[str] = set()
    latest: dict[str, dict[str, Any]] = {}
    try:
        lines = _r.text_lines(src)
        for i, raw in enumerate(lines, 1):
            raw = raw.strip()
            if not raw:
                continue
            try:
                obj = _r.plain(raw)
            except ValueError:
                continue
            if not isinstance(obj, dict):
                continue
            evt = obj.get("evt")
            if evt == "criterion":
                sha = obj.get("criterion_sha256")
                if isinstance(sha, str) and _HEX64.match(sha):
                    criteria.add(sha)
                continue
            if evt != "reading":
                continue
            bad = _row_problem(obj)
            if bad is not None:
                return None, {
                    "reason_word": _r.UNREADABLE,
                    "line": i,
                    "reason": f"{path} line {i} is not a readable reading row [{bad}]",
                }
            if obj["criterion_sha256"] not in criteria:
                return None, {
                    "reason_word": _r.NAME_NOT_FOUND,
                    "line": i,
                    "reason": f"{path} line {i} cites a criterion not frozen earlier",
                }
            latest[obj["claim_id"]] = _view(obj, i)
    except FileNotFoundError:
        return None, {"reason_word": _r.MISSING, "line": None, "reason": f"{path} does not exist"}
    except OSError as e:
        return None, {"reason_word": _r.UNREADABLE, "line": None, "reason": f"{path}: {e}"}
    return latest, None


def _view(row: dict[str, Any], line: int) -> dict[str, Any]:
    reader = row.get("reader") or {}
    return {
        "reading": row.get("reading"),
        "reader_id": reader.get("id"),
        "provider": reader.get("provider"),
        "near_match_id": row.get("near_match_id"),
        "claim_sha256": row.get("claim_sha256"),
        "criterion_sha256": row.get("criterion_sha256"),
        "line": line,
    }


def _independence(va: dict[str, Any], vb: dict[str, Any]) -> str:
    def canon(v: Any) -> str:
        return canonical_id(v) if isinstance(v, str) else ""

    if canon(va["reader_id"]) == canon(vb["reader_id"]):
        return SAME_READER
    pa = (va["provider"] or "").strip().casefold()
    pb = (vb["provider"] or "").strip().casefold()
    return SAME_PROVIDER if pa == pb else DISTINCT_PROVIDER


def _pair(claim_id: str, va: dict[str, Any] | None, vb: dict[str, Any] | None) -> dict[str, Any]:
    entry: dict[str, Any] = {"claim_id": claim_id}
    if va is None or vb is None:
        entry.update(status=MISSING, side="a" if va is None else "b")
        return entry
    if va["claim_sha256"] != vb["claim_sha256"] or va["criterion_sha256"] != vb["criterion_sha256"]:
        entry.update(status=COULD_NOT_LOOK, reason_word=_r.BOUNDED)
        return entry
    entry["independence"] = _independence(va, vb)
    if entry["independence"] == SAME_READER:
        entry.update(status=COULD_NOT_LOOK, reason_word=_r.BOUNDED)
        return entry
    entry["status"] = AGREED if va["reading"] == vb["reading"] else DISAGREED
    return entry


_NOT_COMPUTED = {
    "disagreed": None,
    "read": None,
    "agreed": None,
    "missing": None,
    "could_not_look": None,
}


def _summary(claims: list[dict[str, Any]]) -> dict[str, Any]:
    agreed = sum(1 for c in claims if c["status"] == AGREED)
    disagreed = sum(1 for c in claims if c["status"] == DISAGREED)
    return {
        "disagreed": disagreed,
        "read": agreed + disagreed,
        "agreed": agreed,
        "missing": sum(1 for c in claims if c["status"] == MISSING),
        "could_not_look": sum(1 for c in claims if c["status"] == COULD_NOT_LOOK),
    }


def _result(verdict: str, reason: str, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "verdict": verdict,
        "exit": EXIT[verdict],
        "ledger": None,
        "reason_word": None,
        "reason": reason,
        "independence": None,
        "summary": dict(_NOT_COMPUTED),
        "claims": [],
    }
    out.update(fields)
    return out


def compare(path_a: str, path_b: str) -> dict[str, Any]:
    """The comparison of two readings ledgers (a = the earlier path), as a dict of the
    reference's result fields. Never raises."""
    try:
        return _compare(path_a, path_b)
    except Exception as e:  # noqa: BLE001 - an answer, never a traceback
        return _result(
            COULD_NOT_LOOK, f"could not finish: {type(e).__name__}", reason_word=_r.UNREADABLE
        )


def _compare(path_a: str, path_b: str) -> dict[str, Any]:
    with _r.one_file(path_a) as src_a, _r.one_file(path_b) as src_b:
        return _compare_from(path_a, path_b, {"a": src_a, "b": src_b})


def _compare_from(path_a: str, path_b: str, src: dict[str, str]) -> dict[str, Any]:
    """`compare`'s reads, each side's through one open file (`src`)."""
    checks = {"a": _chain_check("a", path_a, src["a"]), "b": _chain_check("b", path_b, src["b"])}
    for name in ("a", "b"):
        c = checks[name]
        if c and c["verdict"] == BROKEN:
            return _result(BROKEN, c["reason"])
    for name in ("a", "b"):
        c = checks[name]
        if c:
            return _result(COULD_NOT_LOOK, c["reason"], ledger=name, reason_word=c["reason_word"])
    loaded: dict[str, dict[str, dict[str, Any]]] = {}
    for name, path in (("a", path_a), ("b", path_b)):
        got, refused = _load(path, src[name])
        if got is None:
            assert refused is not None
            return _result(
                COULD_NOT_LOOK, refused["reason"], ledger=name, reason_word=refused["reason_word"]
            )
        loaded[name] = got
    la, lb = loaded["a"], loaded["b"]
    if not la and not lb:
        return _result(COULD_NOT_LOOK, "neither ledger holds a reading", reason_word=_r.EMPTY)
    ids = list(la) + [cid for cid in lb if cid not in la]
    claims = [_pair(cid, la.get(cid), lb.get(cid)) for cid in ids]
    summary = _summary(claims)
    counts = {k: sum(1 for c in claims if c.get("independence") == k) for k in CLASSES}
    weakest = next((k for k in CLASSES if counts[k]), None)
    if counts[SAME_READER]:
        return _result(
            COULD_NOT_LOOK,
            "the same reader on both sides",
            reason_word=_r.BOUNDED,
            independence=weakest,
            summary=summary,
            claims=claims,
        )
    rw: str | None = None
    if summary["missing"]:
        word, why = MISSING, f"{summary['missing']} claim(s) read on one side only"
    elif summary["could_not_look"]:
        word, why = COULD_NOT_LOOK, f"{summary['could_not_look']} claim(s) could not be lined up"
        rw = _r.BOUNDED
    else:
        word, why = COMPARED, f"{summary['read']} claims read on both sides"
    return _result(word, why, reason_word=rw, independence=weakest, summary=summary, claims=claims)


def word_of(verdict: str) -> str:
    """The check word of a comparison verdict (a filed disagreement is not a failure)."""
    if verdict == COMPARED:
        return _verdict.VERIFIED
    if verdict in (MISSING, BROKEN):
        return _verdict.BROKEN
    return _verdict.COULD_NOT_LOOK
