"""Deal tapes, disputed two at a time, and the deal packs built from them (KINDS-3.md
§17, §18; `arcaeon deal dispute DEAL --buyer B --seller S`).

Each side's ledger holds one `deal.<step>` row per step of a deal, with the `shared`
body both sides must agree on and its `step_digest`. The dispute of one deal:

* each tape is read: missing or a folder → could not look; a line nested too deep or
  with an unparseable duplicate key → `unreadable`; a chain that does not verify →
  `unreadable` (an edited tape is no deal record, quirk 60); a chain verified only
  within a declared bound → `bounded`; a row of this deal with an unknown step
  (`name_not_found`), written as the other party (`unreadable`) or with no `chain`
  (`name_not_found`) → could not look;
* a row whose `step_digest` is not the digest of its `shared` body is ALTERED there
  and left out of the pairing;
* when both tapes were read: commit and pay rows pair i-th with i-th (one side short →
  MISSING naming it; digests differ → ALTERED naming the differing keys); ship,
  deliver and cancel are compared only when both sides hold them; a seller commit
  citing a `mandate_digest` no buyer mandate row holds is ALTERED; no row of the deal
  on either tape → `name_not_found`; nothing both sides record → `missing`.

Verdict: the first finding (step order, ALTERED before MISSING), else COULD NOT LOOK
when anything could not be read, else MATCHED. A commit outside the mandate is still
MATCHED (quirk 61).

A deal pack (`deal pack`'s folder) is checked by disputing its own
`buyer.deal.jsonl` and `seller.deal.jsonl` for the deal its `verdict.json` (or the
first row of either file) names, and comparing the verdict the pack states with that
answer (`agrees`): a pack whose stated verdict its rows do not give is BROKEN. Nothing
else in the pack is read (quirk 63).
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Any

from sealscope.core import ledger as _ledger
from sealscope.core import lines as _lines
from sealscope.core import verdict as _verdict
from sealscope.core.checks.result import KindCheck
from sealscope.core.digest import digest_json
from sealscope.core.profiles import reading as _r

__all__ = [
    "PROFILE_TAPE",
    "PROFILE_PACK",
    "STEPS",
    "PARTIES",
    "Side",
    "load_side",
    "dispute",
    "word_of",
    "check_pack",
    "pack_files",
    "shared_diff",
]

PROFILE_TAPE = "deal-tape"
PROFILE_PACK = "deal-pack"
STEPS = ("mandate", "commit", "pay", "ship", "deliver", "cancel", "dispute")
PARTIES = ("buyer", "seller")
BOTH_SIDES = ("commit", "pay")
MIRRORED = ("ship", "deliver", "cancel")
_ORDER = {s: i for i, s in enumerate(STEPS)}
MATCHED, MISSING, ALTERED = "MATCHED", "MISSING", "ALTERED"
COULD_NOT_LOOK = _verdict.COULD_NOT_LOOK  # the deal lane's word is the same
BUYER_FILE, SELLER_FILE, VERDICT_FILE = "buyer.deal.jsonl", "seller.deal.jsonl", "verdict.json"
_VERDICT_LIMIT = 16 << 20


@dataclass
class Side:
    """One ledger as the deal lane reads it: `rows` the number of object rows,
    `mine` (row number, row) of this deal's rows, `chains` every object row's `chain`
    by row number (kept only when asked), `cnl` the refusal, `broken` whether the
    chain did not verify."""

    label: str
    path: str
    rows: int = 0
    mine: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    chains: dict[int, Any] = field(default_factory=dict)
    shake: list[tuple[int, dict[str, Any]]] = field(default_factory=list)
    cnl: dict[str, Any] | None = None
    broken: bool = False


def load_side(
    label: str,
    path: str,
    deal_id: Any,
    party: str | None,
    *,
    keep: tuple[str, ...] = (),
    src: str | None = None,
) -> Side:
    """Read one ledger as the deal lane does (rules in the module docstring). With
    `keep`, the chain of every row and the rows whose `kind` is in `keep` are kept
    too (the handshake's reading). Every read goes through one open file (`src`, a
    name from `reading.one_file`, when the caller holds one). Never raises."""
    s = Side(label, path)
    s.cnl = _r.stat_refusal(label, path, "a ledger")
    if s.cnl is not None:
        return s
    if src is not None:
        _load_from(s, src, deal_id, party, keep)
        return s
    with _r.one_file(path) as held:
        _load_from(s, held, deal_id, party, keep)
    return s


def _load_from(s: Side, src: str, deal_id: Any, party: str | None, keep: tuple[str, ...]) -> None:
    """`load_side`'s reads, every one through `src` (one open file)."""
    label, path = s.label, s.path
    try:
        bad = _r.cannot_read(label, src)
    except OSError as e:
        s.cnl = _r.refusal(label, path, _r.UNREADABLE, f"{label} unreadable: {e}")
        return
    if bad is not None:
        s.cnl = _r.refusal(f"{label} line {bad[0]}", path, _r.UNREADABLE, bad[1])
        return
    res = _ledger.verify(src)
    if res.ok is False:
        s.broken = True
        s.cnl = _r.refusal(
            "an intact chain",
            path,
            _r.UNREADABLE,
            f"{label} does not verify ({res.first_break or 'chain broken'}); a tape edited "
            "after it was written cannot be read as a deal record",
        )
        return
    if res.ok is None and res.verified_scope not in ("empty", "bounded_prechain_skipped"):
        s.cnl = _r.refusal(
            "an intact chain",
            path,
            _r.BOUNDED,
            f"{label} verifies only within scope ({res.verified_scope})",
        )
        return
    try:
        _read_rows(s, src, deal_id, party, keep)
    except OSError as e:
        s.cnl = _r.refusal(label, path, _r.UNREADABLE, f"{label} unreadable: {e}")


def _read_rows(s: Side, src: str, deal_id: Any, party: str | None, keep: tuple[str, ...]) -> None:
    for n, row in _r.object_rows(src):
        s.rows = n
        if keep:
            s.chains[n] = row.get("chain")
            if row.get("kind") in keep:
                s.shake.append((n, row))
        kind = row.get("kind", "")
        if not (isinstance(kind, str) and kind.startswith("deal.")) or not _same_id(
            row.get("deal"), deal_id
        ):
            continue
        step = kind[5:]
        at = f"{s.path} row {n}"
        if step not in STEPS:
            s.cnl = _r.refusal(
                f"a deal step named {step!r}",
                at,
                _r.NAME_NOT_FOUND,
                f"{s.label} row {n} is a deal row of unknown step {step!r}",
            )
            s.mine = []
            return
        if row.get("party") != party:
            s.cnl = _r.refusal(
                f"a {party} row",
                at,
                _r.UNREADABLE,
                f"{s.label} row {n} is written as another party",
            )
            s.mine = []
            return
        if "chain" not in row:
            s.cnl = _r.refusal(
                "chain", at, _r.NAME_NOT_FOUND, f"{s.label} row {n} is a deal row with no chain"
            )
            s.mine = []
            return
        s.mine.append((n, row))


def _same_id(a: Any, b: Any) -> bool:
    """Python equality, as the deal lane compares ids, digests and bodies."""
    try:
        return bool(a == b)
    except RecursionError:
        return False


def _digest_or_none(value: Any) -> str | None:
    try:
        return digest_json(value)
    except (ValueError, RecursionError, TypeError):
        return None


def _self_consistent(party: str, step: str, k: int, n: int, row: dict[str, Any]) -> bool:
    shared = row.get("shared")
    return isinstance(shared, dict) and _digest_or_none(shared) == row.get("step_digest")


def shared_diff(a: Any, b: Any, prefix: str = "") -> list[str]:
    """The dotted keys in which two shared bodies differ ("(body)" for the whole)."""
    if isinstance(a, dict) and isinstance(b, dict):
        out: list[str] = []
        for key in sorted(set(a) | set(b)):
            p = f"{prefix}{key}"
            if key not in a or key not in b:
                out.append(p)
            elif not _same_id(a[key], b[key]):
                out.extend(shared_diff(a[key], b[key], p + "."))
        return out
    return [prefix.rstrip(".") or "(body)"] if not _same_id(a, b) else []


def _finding(verdict: str, at: str, side: str | None, reason: str) -> dict[str, Any]:
    return {"verdict": verdict, "at": at, "side": side, "reason": reason}


def _compare(step: str, b: list[Any], s: list[Any], findings: list[dict[str, Any]]) -> int:
    matched = 0
    for k in range(max(len(b), len(s))):
        at = f"{step}#{k + 1}"
        if k >= len(b) or k >= len(s):
            short = "buyer" if k >= len(b) else "seller"
            findings.append(
                _finding(MISSING, at, short, f"{step} #{k + 1} is not on the {short} tape")
            )
            continue
        (nb, rb), (ns, rs) = b[k], s[k]
        if _same_id(rb.get("step_digest"), rs.get("step_digest")):
            matched += 1
            continue
        keys = shared_diff(rb.get("shared"), rs.get("shared"))
        lead = "mandate_digest mismatch; " if "mandate_digest" in keys else ""
        findings.append(
            _finding(
                ALTERED,
                at,
                None,
                f"{lead}{step} #{k + 1} differs between the tapes in "
                f"{', '.join(keys) or 'its shared body'} (buyer row {nb}, seller row {ns})",
            )
        )
    return matched


def dispute(deal_id: Any, buyer: str, seller: str) -> dict[str, Any]:
    """The dispute of one deal over the buyer's and the seller's tapes, as a dict of
    the reference's report fields (`verdict`, `deal`, `at`, `side`, `matched`,
    `counts`, `findings`, `reason_word`, `reason`). Never raises."""
    try:
        return _dispute(deal_id, buyer, seller)
    except Exception as e:  # noqa: BLE001 - an answer, never a traceback
        why = f"deal dispute could not finish: {type(e).__name__} [internal_error]"
        return _report(COULD_NOT_LOOK, str(deal_id), reason=why, reason_word=_r.UNREADABLE)


def _report(verdict: str, deal: str, **fields: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "verdict": verdict,
        "deal": deal,
        "at": None,
        "side": None,
        "reason": "",
        "matched": 0,
        "counts": {},
        "findings": [],
        "could_not_look": [],
        "reason_word": None,
    }
    out.update(fields)
    return out


def _dispute(deal_id: Any, buyer: str, seller: str) -> dict[str, Any]:
    findings: list[dict[str, Any]] = []
    cnl: list[dict[str, Any]] = []
    sides: dict[str, Side] = {}
    for party, path in (("buyer", buyer), ("seller", seller)):
        sides[party] = load_side(f"{party} tape", path, deal_id, party)
        if sides[party].cnl:
            cnl.append(sides[party].cnl)  # type: ignore[arg-type]
    by: dict[str, dict[str, list[tuple[int, dict[str, Any]]]]] = {
        p: {s: [] for s in STEPS} for p in PARTIES
    }
    for p in PARTIES:
        for n, row in sides[p].mine:
            step = row["kind"][5:]
            k = len(by[p][step]) + 1
            if _self_consistent(p, step, k, n, row):
                by[p][step].append((n, row))
            else:
                findings.append(
                    _finding(
                        ALTERED,
                        f"{step}#{k}",
                        p,
                        f"{p} tape row {n}: the step_digest does not match its shared body",
                    )
                )
    matched = compared = 0
    if all(not sides[p].cnl for p in PARTIES):
        for step in BOTH_SIDES:
            compared += max(len(by["buyer"][step]), len(by["seller"][step]))
            matched += _compare(step, by["buyer"][step], by["seller"][step], findings)
        for step in MIRRORED:
            if by["buyer"][step] and by["seller"][step]:
                compared += max(len(by["buyer"][step]), len(by["seller"][step]))
                matched += _compare(step, by["buyer"][step], by["seller"][step], findings)
        _mandate_rule(by, findings)
        both = f"{buyer}, {seller}"
        if not sides["buyer"].mine and not sides["seller"].mine:
            cnl.append(
                _r.refusal(
                    f"deal {deal_id}",
                    both,
                    _r.NAME_NOT_FOUND,
                    f"neither tape holds a row for deal {deal_id}",
                )
            )
        elif not compared:
            cnl.append(
                _r.refusal(
                    f"a step both sides record for deal {deal_id}",
                    both,
                    _r.MISSING,
                    f"no step both sides record is on either tape for deal {deal_id}",
                )
            )
    findings.sort(key=_finding_order)
    out = _report(
        MATCHED,
        str(deal_id),
        matched=matched,
        counts={p: len(sides[p].mine) for p in PARTIES},
        findings=findings,
        could_not_look=[c["reason"] for c in cnl],
    )
    if findings:
        h = findings[0]
        out.update(verdict=h["verdict"], at=h["at"], side=h["side"], reason=h["reason"])
    elif cnl:
        out.update(
            verdict=COULD_NOT_LOOK, reason=cnl[0]["reason"], reason_word=cnl[0]["reason_word"]
        )
    else:
        out["reason"] = f"{matched} compared steps on each tape, same digests"
    return out


def _mandate_rule(
    by: dict[str, dict[str, list[tuple[int, dict[str, Any]]]]], findings: list[dict[str, Any]]
) -> None:
    mandates = [r.get("mandate_digest") for _, r in by["buyer"]["mandate"]]
    for k, (n, r) in enumerate(by["seller"]["commit"], start=1):
        md = r["shared"].get("mandate_digest")
        if mandates and not any(_same_id(md, m) for m in mandates):
            findings.append(
                _finding(
                    ALTERED,
                    f"commit#{k}",
                    "seller",
                    f"mandate_digest mismatch: the seller's commit (row {n}) cites a digest "
                    "no mandate row on the buyer tape holds",
                )
            )


def _finding_order(f: dict[str, Any]) -> tuple[int, int, int]:
    step, _, k = str(f["at"]).partition("#")
    return (
        _ORDER.get(step, len(STEPS)),
        int(k) if k.isdigit() else 0,
        0 if f["verdict"] == ALTERED else 1,
    )


def word_of(verdict: str) -> str:
    """The check word of a dispute verdict."""
    if verdict == MATCHED:
        return _verdict.VERIFIED
    if verdict in (MISSING, ALTERED):
        return _verdict.BROKEN
    return _verdict.COULD_NOT_LOOK


# --------------------------------------------------------------------------- packs


def pack_files(folder: str) -> bool:
    """KINDS-3.md P1: a folder holding a buyer or seller deal file, or a `verdict.json`
    object with a string `deal` and a list `timeline`."""
    if any(os.path.isfile(os.path.join(folder, n)) for n in (BUYER_FILE, SELLER_FILE)):
        return True
    doc = _verdict_doc(folder)
    return (
        isinstance(doc, dict)
        and isinstance(doc.get("deal"), str)
        and isinstance(doc.get("timeline"), list)
    )


def _verdict_doc(folder: str) -> Any:
    try:
        with _lines.open_regular(os.path.join(folder, VERDICT_FILE)) as fh:
            data = fh.read(_VERDICT_LIMIT + 1)
        if len(data) > _VERDICT_LIMIT:
            return None
        return _r.plain(data.decode("utf-8"))
    except (OSError, ValueError):
        return None


def _first_deal(path: str) -> Any:
    try:
        for _n, row in _r.object_rows(path):
            return row.get("deal")
    except OSError:
        pass
    return None


def check_pack(folder: str) -> KindCheck:
    """The check of a deal pack (§18.2). Never raises."""
    doc = _verdict_doc(folder)
    stored = doc.get("verdict") if isinstance(doc, dict) else None
    deal = doc.get("deal") if isinstance(doc, dict) and isinstance(doc.get("deal"), str) else None
    buyer, seller = os.path.join(folder, BUYER_FILE), os.path.join(folder, SELLER_FILE)
    if deal is None:
        deal = _first_deal(buyer)
    if deal is None:
        deal = _first_deal(seller)
    if deal is None:
        return KindCheck(
            folder,
            None,
            None,
            {"deal": None, "stored_verdict": stored, "reason_word": _r.MISSING},
            word=_verdict.COULD_NOT_LOOK,
            reason="the pack names no deal (no verdict.json deal, no deal row)",
        )
    r = dispute(deal, buyer, seller)
    agrees = None if not isinstance(stored, str) else stored == r["verdict"]
    word = word_of(r["verdict"])
    if word != _verdict.COULD_NOT_LOOK and agrees is False:
        word = _verdict.BROKEN
    detail = {
        "deal": r["deal"],
        "stored_verdict": stored,
        "agrees": agrees,
        **{k: r[k] for k in ("verdict", "at", "side", "matched", "counts", "reason_word")},
        "findings": [{k: f[k] for k in ("verdict", "at", "side")} for f in r["findings"]],
    }
    why = r["reason"]
    if agrees is False:
        why = f"the pack says {stored}, its rows say {r['verdict']}: {why}"
    return KindCheck(folder, None, None, detail, word=word, reason=why)
