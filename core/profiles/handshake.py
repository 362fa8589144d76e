"""Handshake ledgers, verified two at a time (KINDS-3.md §19, `arcaeon deal handshake
verify A B`).

A proposal row (`deal.handshake.propose`) on one ledger and an acceptance row
(`deal.handshake.accept`) on the other carry the same `shared` body (handshake id,
proposer, recipient, terms); the acceptance also cites the proposal row it accepts
(`proposal_chain`, `proposal_row`) and the proposer ledger's identity (its first row's
`chain`, `proposal_ledger`). Each ledger is read as the deal lane reads it; a ledger
that cannot be read is COULD NOT LOOK, one whose chain is broken is still read so that
an edit to the terms is named. For every handshake id either ledger holds, first
match wins:

* no proposal on one side with an acceptance on the other → MISSING (never accepted,
  accepted without a proposal, or accepted on the proposer's own ledger);
* the last proposal's and the last acceptance's shared bodies differ → DIFFERENT TERMS
  (the differing keys named);
* a row's `step_digest` is not its body's digest → DIFFERENT TERMS (`step_digest`);
* the acceptance is not bound to exactly that proposal row on exactly that ledger →
  DIFFERENT TERMS (`proposer_ledger` / `proposal_hash`), or MISSING when it cites a row
  the ledger does not hold;
* the terms agree but a chain is broken → COULD NOT LOOK (quirk 70);
* else AGREED TERMS.

The pair's word: the first of DIFFERENT TERMS, MISSING, COULD NOT LOOK, AGREED TERMS
any handshake got.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.digest import digest_json
from sealscope.core.profiles import reading as _r
from sealscope.core.profiles.deal import load_side, shared_diff

__all__ = ["PROFILE", "KIND_PROPOSE", "KIND_ACCEPT", "WORDS", "verify", "word_of"]

PROFILE = "handshake"
KIND_PROPOSE = "deal.handshake.propose"
KIND_ACCEPT = "deal.handshake.accept"
AGREED, DIFFERENT, MISSING = "AGREED TERMS", "DIFFERENT TERMS", "MISSING"
COULD_NOT_LOOK = _verdict.COULD_NOT_LOOK  # the handshake's word is the same
WORDS = (AGREED, DIFFERENT, MISSING, COULD_NOT_LOOK)
_NO_DEAL = object()  # a deal id no row carries: the handshake reads every row


@dataclass
class _Read:
    name: str
    path: str
    rows: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    chains: dict[int, Any] = field(default_factory=dict)
    cnl: dict[str, Any] | None = None
    broken: str | None = None


def _read(name: str, path: str) -> _Read:
    with _r.one_file(path) as src:
        return _read_from(name, path, src)


def _read_from(name: str, path: str, src: str) -> _Read:
    r = _Read(name, path)
    side = load_side(
        f"ledger {name}", path, _NO_DEAL, None, keep=(KIND_PROPOSE, KIND_ACCEPT), src=src
    )
    if side.cnl and not side.broken:
        r.cnl = side.cnl
        return r
    if side.broken:
        assert side.cnl is not None
        r.broken = str(side.cnl["reason"])
        try:
            _reread(r, side.cnl, src)
        except OSError:
            r.cnl, r.broken = side.cnl, None
        return r
    r.chains = side.chains
    r.rows = side.shake
    return r


def _reread(r: _Read, refusal: dict[str, Any], src: str) -> None:
    """A broken ledger's rows, every non-blank line an object, else could not look."""
    n = 0
    for raw in _r.text_lines(src):
        if not raw.strip():
            continue
        try:
            row = _r.plain(raw.strip())
        except ValueError:
            row = None
        if not isinstance(row, dict):
            r.cnl, r.broken = refusal, None
            r.rows, r.chains = [], {}
            return
        n += 1
        r.chains[n] = row.get("chain")
        if row.get("kind") in (KIND_PROPOSE, KIND_ACCEPT):
            r.rows.append((n, row))


def _of(side: _Read, hid: Any, kind: str) -> list[tuple[int, dict[str, Any]]]:
    return [
        (n, row) for n, row in side.rows if _eq(row.get("deal"), hid) and row.get("kind") == kind
    ]


def _eq(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except RecursionError:
        return False


def _digest(value: Any) -> str | None:
    try:
        return digest_json(value)
    except (ValueError, RecursionError, TypeError):
        return None


def _self_ok(row: dict[str, Any]) -> bool:
    shared = row.get("shared")
    return isinstance(shared, dict) and _eq(_digest(shared), row.get("step_digest"))


def _is_row_number(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and v > 0


def _binding(
    p_side: _Read, np_: int, o_side: _Read, nq: int, q: dict[str, Any]
) -> tuple[str, str, str] | None:
    cited, at, ledger = q.get("proposal_chain"), q.get("proposal_row"), q.get("proposal_ledger")
    me = f"ledger {o_side.name} row {nq}"
    first = p_side.chains.get(1)
    if not isinstance(ledger, str) or not ledger:
        return DIFFERENT, f"{me} does not cite the proposer ledger", "proposer_ledger"
    if not _eq(ledger, first):
        return DIFFERENT, f"{me} cites another proposer ledger", "proposer_ledger"
    if not isinstance(cited, str) or not _is_row_number(at):
        return DIFFERENT, f"{me} does not cite the proposal row it accepts", "proposal_hash"
    if at not in p_side.chains:
        return (
            MISSING,
            f"{me} cites ledger {p_side.name} row {at}, which it does not hold",
            "proposal_hash",
        )
    if not _eq(p_side.chains[at], cited):
        return (
            DIFFERENT,
            f"{me} cites a proposal hash that row {at} does not carry",
            "proposal_hash",
        )
    if at != np_:
        return (
            DIFFERENT,
            f"{me} cites row {at}, not the proposal it lines up with (row {np_})",
            "proposal_hash",
        )
    return None


def _one(hid: Any, a: _Read, b: _Read) -> dict[str, Any]:
    res: dict[str, Any] = {
        "handshake": hid,
        "verdict": None,
        "reason": "",
        "proposer_ledger": None,
        "acceptor_ledger": None,
        "proposer_row": None,
        "acceptor_row": None,
        "fields": [],
        "reason_word": None,
    }
    sides = (a, b)
    props = {s.name: _of(s, hid, KIND_PROPOSE) for s in sides}
    accs = {s.name: _of(s, hid, KIND_ACCEPT) for s in sides}
    pair = next(
        ((p, o) for p in sides for o in sides if p is not o and props[p.name] and accs[o.name]),
        None,
    )
    if pair is None:
        res["verdict"] = MISSING
        if not any(props.values()):
            res["reason"] = f"{hid} is accepted and proposed on neither ledger"
        elif not any(accs.values()):
            res["reason"] = f"{hid} is proposed and never accepted on the other ledger"
        else:
            res["reason"] = f"{hid}'s acceptance is on the proposer's own ledger"
        return res
    p_side, o_side = pair
    (np_, p), (nq, q) = props[p_side.name][-1], accs[o_side.name][-1]
    res.update(
        proposer_ledger=p_side.name, acceptor_ledger=o_side.name, proposer_row=np_, acceptor_row=nq
    )
    bind = _binding(p_side, np_, o_side, nq, q)
    dp, dq = _digest(p.get("shared")), _digest(q.get("shared"))
    same = dp is not None and dq is not None and dp == dq
    broken = [s for s in (p_side, o_side) if s.broken]
    if not same:
        res["fields"] = shared_diff(p.get("shared"), q.get("shared"))
        res["verdict"] = DIFFERENT
        res["reason"] = (
            f"{hid}: the two rows differ in {', '.join(res['fields']) or 'their shared body'}"
        )
    elif not (_self_ok(p) and _self_ok(q)):
        res.update(verdict=DIFFERENT, fields=["step_digest"])
        res["reason"] = f"{hid}: a row carries a step_digest that does not match its terms"
    elif bind:
        res["verdict"], res["fields"] = bind[0], [bind[2]]
        res["reason"] = f"{hid}: {bind[1]}"
    elif broken:
        res["verdict"] = COULD_NOT_LOOK
        res["reason"] = (
            f"{hid}: the terms agree, but ledger {broken[0].name}'s chain is broken; "
            "agreement on an edited ledger is not agreement"
        )
        res["reason_word"] = _r.UNREADABLE
    else:
        res["verdict"] = AGREED
        res["reason"] = f"{hid}: the two rows carry the same terms"
    return res


def verify(a: str, b: str) -> dict[str, Any]:
    """The verification of two handshake ledgers (a = the earlier path), as a dict of
    the reference's report fields (`verdict`, `handshake`, `counts`, `results`,
    `reason_word`, `reason`). Never raises."""
    try:
        return _verify(a, b)
    except Exception as e:  # noqa: BLE001 - an answer, never a traceback
        return _report(COULD_NOT_LOOK, f"could not finish: {type(e).__name__}", _r.UNREADABLE)


def _report(verdict: str, reason: str, reason_word: str | None, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "verdict": verdict,
        "reason": reason,
        "handshake": None,
        "results": [],
        "counts": {},
        "reason_word": reason_word,
    }
    out.update(fields)
    return out


def _verify(a: str, b: str) -> dict[str, Any]:
    sa, sb = _read("a", a), _read("b", b)
    for s in (sa, sb):
        if s.cnl:
            return _report(COULD_NOT_LOOK, str(s.cnl["reason"]), s.cnl["reason_word"])
    seen: list[str] = []
    for s in (sa, sb):
        for _n, row in s.rows:
            if isinstance(row.get("deal"), str) and row["deal"] not in seen:
                seen.append(row["deal"])
    if not seen:
        return _report(COULD_NOT_LOOK, "neither ledger holds a handshake row", _r.NAME_NOT_FOUND)
    results = [_one(h, sa, sb) for h in seen]
    counts = {w: sum(1 for r in results if r["verdict"] == w) for w in WORDS}
    worst = next(w for w in (DIFFERENT, MISSING, COULD_NOT_LOOK, AGREED) if counts[w])
    first = next(r for r in results if r["verdict"] == worst)
    return _report(
        worst,
        first["reason"]
        if len(results) == 1
        else f"{counts[worst]} of {len(results)}: {first['reason']}",
        first["reason_word"] if worst == COULD_NOT_LOOK else None,
        handshake=seen[0] if len(seen) == 1 else None,
        results=results,
        counts=counts,
    )


def word_of(verdict: str) -> str:
    """The check word of a handshake verdict."""
    if verdict == AGREED:
        return _verdict.VERIFIED
    if verdict in (DIFFERENT, MISSING):
        return _verdict.BROKEN
    return _verdict.COULD_NOT_LOOK
