"""How a profile changes a path's result (KINDS-3.md §15.3–§15.4, §24).

* `profile` is set on every result (None when none) and copied into
  `detail.profile`.
* A path §1 calls none whose profile is non-null (a deal pack, a stored once receipt,
  a vet grade, a mandate) takes that profile's check in place of its `unreadable`
  answer; `kind` stays None.
* A `ledger` keeps every field of its chain answer. A once ledger gains `detail.once`
  (no word: an indeterminate key is named beside the word). A ledger of a two-file
  profile gains `detail.pair`: null when no other path of the run is its partner
  (nothing else changes; the line names the bound), else the pair check's result,
  and its word becomes the worst of its own and the pair's (`detail.pair.word`, the
pair's own word, is sealscope's, beside the reference's fields); `ok` stays the chain's.

Pairing (`pair_results`), within the paths of one run, in argv order: a path's
partner is the first other path (another string) of the same profile that can pair
with it — a deal tape of the same deal and the other party, a tape of the other side,
any handshake or readings ledger. Pairing need not be symmetric. The pair check runs
with the earlier path first (a deal dispute: buyer, seller, whatever the order), once
per pair; both paths carry its result, each naming the other as `partner`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.checks.result import CheckContext, KindCheck
from sealscope.core.kinds import Identified
from sealscope.core.profiles import deal as _deal
from sealscope.core.profiles import handshake as _handshake
from sealscope.core.profiles import mandate as _mandate
from sealscope.core.profiles import once as _once
from sealscope.core.profiles import readings as _readings
from sealscope.core.profiles import tape as _tape
from sealscope.core.profiles import vet as _vet
from sealscope.core.profiles.detect import Detected, detect

__all__ = ["UNPAIRED", "apply", "pair_results", "profiled"]

UNPAIRED = "not paired: give the other tape to compare"


def _join(*parts: str) -> str:
    return "; ".join(p for p in parts if p)


def _with_profile(res: KindCheck, name: str | None, **extra: Any) -> KindCheck:
    detail = {**res.detail, "profile": name, **extra}
    return dataclasses.replace(res, detail=detail, profile=name)


def _document_check(found: Identified, got: Detected, ctx: CheckContext) -> KindCheck:
    assert got.profile is not None
    name = got.profile.name
    if name == _deal.PROFILE_PACK:
        return _deal.check_pack(found.path)
    if name == _once.PROFILE_RECEIPT:
        return _once.check_receipt(found.path, ctx, got.document)
    if name == _vet.PROFILE:
        return _vet.check(found.path, got.document, ctx)
    return _mandate.check(found.path, got.document)


def apply(found: Identified, res: KindCheck, ctx: CheckContext) -> tuple[KindCheck, Detected]:
    """One path's result with its profile applied, unpaired (`detail.pair` null for
    a two-file profile), and what it was recognised by. Never raises."""
    got = detect(found)
    prof = got.profile
    if prof is None:
        own = res.detail.get("profile")
        if isinstance(own, dict) and isinstance(own.get("name"), str):
            # a profile the kind's own check already named (a sealscope case file)
            return dataclasses.replace(res, profile=own["name"]), got
        return _with_profile(res, None), got
    if found.kind is None:
        try:
            checked = _document_check(found, got, ctx)
        except Exception as e:  # noqa: BLE001 - a check that raises could not look (§0.1)
            checked = KindCheck(
                found.path,
                None,
                None,
                {"error": type(e).__name__},
                word=_verdict.COULD_NOT_LOOK,
                reason=f"the check could not finish: {type(e).__name__}",
            )
        return _with_profile(checked, prof.name), got
    if prof.name == _once.PROFILE_LEDGER:
        once, note = _once.ledger_detail(found.path, res.ok)
        out = _with_profile(res, prof.name, once=once)
        return dataclasses.replace(out, reason=_join(res.reason, note)), got
    out = _with_profile(res, prof.name, pair=None)
    return dataclasses.replace(out, reason=_join(res.reason, UNPAIRED)), got


# --------------------------------------------------------------------------- pairing


def _can_pair(name: str, p: dict[str, Any], q: dict[str, Any]) -> bool:
    if name == _deal.PROFILE_TAPE:
        try:
            same_deal = bool(p.get("deal") == q.get("deal"))
        except RecursionError:
            return False
        return same_deal and p.get("party") != q.get("party")
    if name == _tape.PROFILE:
        return bool(p.get("side") != q.get("side"))
    return True


def _partner(i: int, paths: Sequence[str], got: Sequence[Detected]) -> int | None:
    me = got[i]
    assert me.profile is not None and me.first_row is not None
    for j, other in enumerate(got):
        if paths[j] == paths[i] or other.profile is not me.profile or other.first_row is None:
            continue
        if _can_pair(me.profile.name, me.first_row, other.first_row):
            return j
    return None


def _run_pair(name: str, i: int, j: int, paths: Sequence[str], got: Sequence[Detected]) -> Any:
    first, second = (i, j) if i < j else (j, i)
    if name == _deal.PROFILE_TAPE:
        row = got[i].first_row or {}
        buyer, seller = (i, j) if row.get("party") == "buyer" else (j, i)
        return ("deal", row.get("deal"), paths[buyer], paths[seller])
    return (name, paths[first], paths[second])


def _computed(key: Any) -> dict[str, Any]:
    if key[0] == "deal":
        return _deal.dispute(key[1], key[2], key[3])
    if key[0] == _handshake.PROFILE:
        return _handshake.verify(key[1], key[2])
    if key[0] == _tape.PROFILE:
        return _tape.reconcile(key[1], key[2])
    return _readings.compare(key[1], key[2])


def _pair_detail(name: str, r: dict[str, Any], row: dict[str, Any], partner: str) -> dict[str, Any]:
    if name == _deal.PROFILE_TAPE:
        return {
            "deal": r["deal"],
            "party": row.get("party"),
            "partner": partner,
            **{k: r[k] for k in ("verdict", "at", "side", "matched", "counts", "reason_word")},
            "findings": [{k: f[k] for k in ("verdict", "at", "side")} for f in r["findings"]],
        }
    if name == _handshake.PROFILE:
        keys = ("handshake", "verdict", "proposer_ledger", "acceptor_ledger", "fields")
        return {
            "partner": partner,
            **{k: r[k] for k in ("verdict", "handshake", "counts", "reason_word")},
            "results": [{k: x[k] for k in keys} for x in r["results"]],
        }
    if name == _tape.PROFILE:
        tape_keys = ("verdict", "at", "side", "index_side")
        return {
            "partner": partner,
            **{k: r[k] for k in ("verdict", "at", "side", "matched", "counts", "reason_word")},
            "findings": [{k: f[k] for k in tape_keys} for f in r["findings"]],
        }
    return {
        "partner": partner,
        **{
            k: r[k] for k in ("verdict", "exit", "ledger", "reason_word", "independence", "summary")
        },
        "claims": [{"claim_id": c["claim_id"], "status": c["status"]} for c in r["claims"]],
    }


_WORD_OF = {
    _deal.PROFILE_TAPE: _deal.word_of,
    _handshake.PROFILE: _handshake.word_of,
    _tape.PROFILE: lambda v: {
        _tape.MATCHED: _verdict.VERIFIED,
        _tape.MISSING: _verdict.BROKEN,
        _tape.ALTERED: _verdict.BROKEN,
    }.get(v, _verdict.COULD_NOT_LOOK),
    _readings.PROFILE: _readings.word_of,
}


def _paired(res: KindCheck, name: str, r: dict[str, Any], detail: dict[str, Any]) -> KindCheck:
    pair_word = _WORD_OF[name](str(r["verdict"]))
    word = _verdict.worst_word((res.verdict, pair_word))
    where = f" at {r['at']}" if r.get("at") is not None else ""
    said = f"{r['verdict']}{where} against {detail['partner']}"
    own = "; ".join(p for p in res.reason.split("; ") if p and p != UNPAIRED)
    return dataclasses.replace(
        res,
        detail={**res.detail, "pair": {**detail, "word": pair_word}},
        word=word,
        bound=res.bound if word == _verdict.VERIFIED else "",
        reason=_join(own, said),
    )


def pair_results(
    paths: Sequence[str], got: Sequence[Detected], results: Sequence[KindCheck]
) -> list[KindCheck]:
    """Every result with its pair check, paths paired within the run (module
    docstring); a path with no partner is left as it is."""
    out = list(results)
    cache: dict[Any, dict[str, Any]] = {}
    for i, me in enumerate(got):
        if me.profile is None or not me.profile.pairs or me.first_row is None:
            continue
        j = _partner(i, paths, got)
        if j is None:
            continue
        key = _run_pair(me.profile.name, i, j, paths, got)
        if key not in cache:
            cache[key] = _computed(key)
        detail = _pair_detail(me.profile.name, cache[key], me.first_row, paths[j])
        out[i] = _paired(out[i], me.profile.name, cache[key], detail)
    return out


def profiled(
    found: Sequence[Identified], results: Sequence[KindCheck], ctx: CheckContext
) -> list[KindCheck]:
    """The profile stage of one run: every result with its profile applied, then the
    pairs of the run's paths checked."""
    applied = [apply(f, r, ctx) for f, r in zip(found, results, strict=True)]
    return pair_results([f.path for f in found], [g for _r, g in applied], [r for r, _g in applied])
