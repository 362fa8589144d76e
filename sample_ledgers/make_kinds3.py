"""Build the long-tail samples (`sealscope check`, KINDS-3.md §16–§22),
deterministically, through sealscope's own core.

    python sample_ledgers/make_kinds3.py

Writes `sample_ledgers/kinds/long-tail/`, in the shapes KINDS-3.md gives: an
executed-once ledger (one key left at intent) and a stored once receipt of one of its
keys; a buyer's and a seller's deal tape and the deal pack of that deal; two
handshake ledgers (a proposal and its acceptance); an agent-side and a tool-side
adapter tape; two readers' readings ledgers (one claim read differently); a tool
mandate, a sealed deal mandate and, tampered, that sealed mandate with its body's cap
raised after sealing. Every timestamp is fixed, so running this again gives
byte-identical files. See README.md beside this file for what `sealscope check`
answers on each.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path
from typing import Any

from sealscope.core import ledger_write
from sealscope.core.digest import digest_json
from sealscope.core.profiles import deal as _deal
from sealscope.core.profiles import once as _once

HERE = Path(__file__).resolve().parent
OUT = HERE / "kinds" / "long-tail"
DEAL_ID = "d-sample01"
HANDSHAKE_ID = "h-sample01"


def stamp(i: int) -> str:
    return f"2026-03-03T09:{i // 60:02d}:{i % 60:02d}Z"


def write_json(path: Path, value: Any, indent: int = 1) -> None:
    path.write_text(json.dumps(value, indent=indent, ensure_ascii=False) + "\n", encoding="utf-8")


def append(name: str, row: dict[str, Any]) -> str:
    return ledger_write.append(OUT / name, row)


# --------------------------------------------------------------------------- once


def once() -> None:
    """once.log.jsonl: three guarded effects (a refund executed with its outcome
    stored, a deploy executed, an email left at intent); once-receipt.json: the
    receipt of the refund, as `arcaeon once receipt` prints it."""
    refund = {"refund": "9.50", "to": "cust-4471"}
    append("once.log.jsonl", {"event": "once.intent", "key": "refund:4471", "ts": stamp(1)})
    append(
        "once.log.jsonl",
        {
            "event": "once.executed",
            "key": "refund:4471",
            "outcome_digest": digest_json(refund),
            "outcome": refund,
            "ts": stamp(2),
        },
    )
    append("once.log.jsonl", {"event": "once.intent", "key": "deploy:v2", "ts": stamp(3)})
    append(
        "once.log.jsonl",
        {
            "event": "once.executed",
            "key": "deploy:v2",
            "outcome_digest": digest_json("ok"),
            "ts": stamp(4),
        },
    )
    append("once.log.jsonl", {"event": "once.intent", "key": "email:weekly", "ts": stamp(5)})
    fresh, res = _once.receipt_of("refund:4471", str(OUT / "once.log.jsonl"))
    write_json(
        OUT / "once-receipt.json",
        {
            **fresh,
            "outcome": refund,
            "ledger_path": "once.log.jsonl",
            "ledger_ok": res.ok,
            "ledger_first_break": res.first_break,
            "ledger_verified_scope": res.verified_scope,
            "ledger_breaks": res.breaks,
        },
    )


# --------------------------------------------------------------------------- deals


def _deal_row(party: str, step: str, shared: dict[str, Any], ts: str, **private: Any) -> dict:
    return {
        "kind": f"deal.{step}",
        "deal": DEAL_ID,
        "party": party,
        "step_digest": digest_json(shared),
        "shared": shared,
        **private,
        "ts": ts,
    }


def deal() -> None:
    """deal.buyer.jsonl, deal.seller.jsonl: one purchase (mandate, commit, pay; the
    seller ships); DEAL-d-sample01/: its deal pack (verdict.json, timeline.md and
    each side's rows of the deal)."""
    body = {
        "merchant": "acme-store",
        "cap": "60.00",
        "currency": "USD",
        "not_before": "2026-01-01T00:00:00Z",
        "not_after": "2099-12-31T00:00:00Z",
        "may": [],
        "may_not": [],
    }
    md = digest_json(body)
    terms = {
        "items": [{"sku": "pens-12", "qty": 2, "unit_price": "9.50"}],
        "total": "19.00",
        "currency": "USD",
        "ship_to_digest": digest_json("1 Main St"),
        "seller": "acme-store",
        "buyer_ref": None,
    }
    pay = {"rail": "card", "reference": "ch_3Q1", "amount": "19.00", "currency": "USD"}
    commit = {"terms": terms, "mandate_digest": md}
    b, s = "deal.buyer.jsonl", "deal.seller.jsonl"
    append(
        b,
        _deal_row(
            "buyer",
            "mandate",
            {"mandate_digest": md},
            stamp(10),
            mandate_digest=md,
            scope="acme-store, up to 60.00 USD",
            mandate=body,
        ),
    )
    append(
        b,
        _deal_row(
            "buyer",
            "commit",
            commit,
            stamp(11),
            inside_mandate=True,
            mandate_reason="inside the mandate",
        ),
    )
    append(s, _deal_row("seller", "commit", commit, stamp(12)))
    append(b, _deal_row("buyer", "pay", pay, stamp(13)))
    append(s, _deal_row("seller", "pay", pay, stamp(14)))
    ship = {"carrier": "ups", "tracking": "1Z999", "at": stamp(15)}
    append(s, _deal_row("seller", "ship", ship, stamp(15), after_cancel=False))
    pack = OUT / f"DEAL-{DEAL_ID}"
    pack.mkdir()
    r = _deal.dispute(DEAL_ID, str(OUT / b), str(OUT / s))
    write_json(pack / "verdict.json", {**r, "timeline": _timeline()})
    for party, name in (("buyer", b), ("seller", s)):
        shutil.copyfile(OUT / name, pack / f"{party}.deal.jsonl")  # only this deal's rows
    (pack / "timeline.md").write_text(
        f"{r['verdict']}\n\n# Deal {DEAL_ID}\n\n{r['reason']}\n\nRun `arcaeon deal dispute "
        f"{DEAL_ID} --buyer BUYER --seller SELLER` against the full ledgers.\n",
        encoding="utf-8",
    )


def _timeline() -> list[dict[str, Any]]:
    out = []
    for name, party in (("deal.buyer.jsonl", "buyer"), ("deal.seller.jsonl", "seller")):
        lines = (OUT / name).read_text(encoding="utf-8").splitlines()
        for n, line in enumerate(lines, 1):
            row = json.loads(line)
            out.append(
                {
                    "ts": row["ts"],
                    "party": party,
                    "step": row["kind"][5:],
                    "row": n,
                    "step_digest": row["step_digest"],
                }
            )
    return sorted(out, key=lambda e: (e["ts"], e["party"], e["row"]))


# --------------------------------------------------------------------------- handshake


def handshake() -> None:
    """handshake.a.jsonl (agent-a proposes), handshake.b.jsonl (agent-b accepts)."""
    shared = {
        "handshake": HANDSHAKE_ID,
        "proposer": "agent-a",
        "to": "agent-b",
        "terms": {"task": "summarize q3", "fee": "4.00"},
    }
    common = {"deal": HANDSHAKE_ID, "step_digest": digest_json(shared), "shared": shared}
    chain = append(
        "handshake.a.jsonl",
        {"kind": "deal.handshake.propose", **common, "party": "proposer", "ts": stamp(20)},
    )
    append(
        "handshake.b.jsonl",
        {
            "kind": "deal.handshake.accept",
            **common,
            "party": "acceptor",
            "agent": "agent-b",
            "proposal_chain": chain,
            "proposal_row": 1,
            "proposal_ledger": chain,
            "ts": stamp(21),
        },
    )


# --------------------------------------------------------------------------- tapes


def tapes() -> None:
    """agent.tape.jsonl and tool.tape.jsonl: four tool calls, each side's view."""
    for side in ("agent", "tool"):
        for idx in range(1, 5):
            params = {"name": "search", "arguments": {"q": f"order {idx}"}}
            result = {"result": {"content": [{"type": "text", "text": f"{idx} hits"}]}}
            append(
                f"{side}.tape.jsonl",
                {
                    "evt": "tape_call",
                    "tape": "arcaeon-tape/1",
                    "side": side,
                    "ns": None,
                    "idx": idx,
                    "tool": "search",
                    "rpc_id": str(idx),
                    "req": digest_json(params),
                    "resp": digest_json(result),
                    "status": "ok",
                    "ts": stamp(30 + idx),
                },
            )


# --------------------------------------------------------------------------- readings


def _sha(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def readings() -> None:
    """readings.a.jsonl, readings.b.jsonl: one criterion, three claims, two readers of
    two providers; claim-2 read differently (a disagreement, filed)."""
    criterion = "The answer cites a source for every number."
    words = {"a": ("yes", "no", "yes"), "b": ("yes", "yes", "yes")}
    providers = {"a": "openai", "b": "anthropic"}
    for side in ("a", "b"):
        name = f"readings.{side}.jsonl"
        append(
            name,
            {
                "evt": "criterion",
                "format": "arcaeon-criterion/1",
                "criterion_sha256": _sha(criterion),
                "text": criterion,
                "ts": stamp(40),
            },
        )
        for k, word in enumerate(words[side], 1):
            append(
                name,
                {
                    "evt": "reading",
                    "format": "arcaeon-reading/1",
                    "claim_id": f"claim-{k}",
                    "claim_sha256": _sha(f"claim number {k}"),
                    "criterion_sha256": _sha(criterion),
                    "reader": {
                        "id": f"reader-{side}",
                        "provider": providers[side],
                        "model": "m1",
                        "endpoint_host": None,
                    },
                    "reading": word,
                    "rationale_sha256": _sha(f"why {side} {k}"),
                    "ts": stamp(40 + k),
                },
            )


# --------------------------------------------------------------------------- mandates


def mandates() -> None:
    """mandate.json (tool shape), mandate-sealed.json (a sealed deal mandate) and,
    tampered, mandate-sealed-edited.json (its body's cap raised after sealing)."""
    write_json(
        OUT / "mandate.json",
        {
            "who": "ops@example.com",
            "allowed_acts": ["search", "place_order"],
            "forbidden_acts": ["delete_*"],
            "spend_cap": {"amount": "50.00", "total": "200.00", "currency": "USD"},
            "not_before": "2026-01-01T00:00:00Z",
            "not_after": "2099-12-31T00:00:00Z",
        },
        indent=2,
    )
    body: dict[str, Any] = {
        "merchant": "acme-store",
        "cap": "60.00",
        "currency": "USD",
        "not_before": None,
        "not_after": None,
        "may": [],
        "may_not": [],
    }
    sealed = {"deal": DEAL_ID, "mandate_digest": digest_json(body), "mandate": body}
    write_json(OUT / "mandate-sealed.json", sealed)
    write_json(OUT / "mandate-sealed-edited.json", {**sealed, "mandate": {**body, "cap": "600.00"}})


def main() -> None:
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    once()
    deal()
    handshake()
    tapes()
    readings()
    mandates()
    for lock in OUT.glob("*.lock"):  # the append lock files are no sample
        lock.unlink()


if __name__ == "__main__":
    main()
