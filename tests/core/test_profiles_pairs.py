"""Two-file profiles against the reference (KINDS-3.md §17, §19–§21): over generated
deal tapes, handshake ledgers, adapter tapes and readings ledgers (written by the
reference's own writers), honest and tampered, `check A B`'s `detail.pair` equals the
reference pair check's fields, and each path's word is the worst of its chain's and
the pair's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from sealscope.core import checks
from sealscope.core import verdict as _verdict

from tests.core import profiles_cases as cases

# --------------------------------------------------------------------------- writers


def _deal_pair(tmp: Path, tag: str = "d", pay: str = "19.00") -> tuple[Path, Path]:
    cases.arcaeon()
    from arcaeon.record.deal import Deal

    b_path, s_path = tmp / f"{tag}.buyer.jsonl", tmp / f"{tag}.seller.jsonl"
    deal_id = f"{tag}-0001"
    buyer, seller = Deal(b_path, "buyer", deal_id), Deal(s_path, "seller", deal_id)
    m = buyer.mandate(merchant="acme", cap="60.00", currency="USD", ts=cases.TS)
    items = [{"sku": "pens", "qty": 2, "unit_price": "9.50"}]
    for side in (buyer, seller):
        side.commit(
            items=items,
            total="19.00",
            currency="USD",
            seller="acme",
            mandate_digest=m["shared"]["mandate_digest"],
            ts=cases.TS,
        )
    buyer.pay(rail="card", reference="ch_1", amount="19.00", currency="USD", ts=cases.TS)
    seller.pay(rail="card", reference="ch_1", amount=pay, currency="USD", ts=cases.TS)
    seller.ship(carrier="ups", tracking="1Z", at=cases.TS, ts=cases.TS)
    return b_path, s_path


def _tape_pair(tmp: Path, tag: str = "t", n: int = 6) -> tuple[Path, Path]:
    cases.arcaeon()
    from arcaeon.record.adapter.tape import TapeWriter

    a_path, t_path = tmp / f"{tag}.agent.tape.jsonl", tmp / f"{tag}.tool.tape.jsonl"
    agent, tool = TapeWriter(a_path, side="agent"), TapeWriter(t_path, side="tool")
    for k in range(n):
        params = {"name": "search", "arguments": {"q": f"item {k}"}}
        msg = {"jsonrpc": "2.0", "id": k, "result": {"hits": k}}
        for w in (agent, tool):
            w.close_call(w.open_call(params, rpc_id=k), msg)
    agent.flush()
    tool.flush()
    return a_path, t_path


def _readings_pair(tmp: Path, tag: str = "r") -> tuple[Path, Path]:
    cases.arcaeon()
    from arcaeon.prove.readings import build_reading, freeze_criterion, write_reading

    out = []
    words = {"a": ["yes", "no", "yes", "undetermined"], "b": ["yes", "yes", "yes", "undetermined"]}
    for side, provider in (("a", "openai"), ("b", "anthropic")):
        path = tmp / f"{tag}.{side}.jsonl"
        crit = freeze_criterion(path, "The answer cites a source.")
        for k, word in enumerate(words[side], 1):
            row = build_reading(
                claim_id=f"claim-{k}",
                criterion_sha256=crit["criterion_sha256"],
                reader={"id": f"reader-{side}", "provider": provider, "model": "m1"},
                reading=word,
                claim_text=f"claim number {k}",
                ts=cases.TS,
            )
            write_reading(path, row)
        out.append(path)
    return out[0], out[1]


def _handshake_pair(tmp: Path, tag: str = "h") -> tuple[Path, Path]:
    cases.arcaeon()
    from arcaeon.record import handshake as H

    a_path, b_path = tmp / f"{tag}.a.jsonl", tmp / f"{tag}.b.jsonl"
    offer = H.propose(a_path, {"task": "summarize", "fee": "4.00"}, agent="agent-a", to="agent-b")
    H.accept(b_path, offer, agent="agent-b")
    return a_path, b_path


# --------------------------------------------------------------------------- oracles


def _ref_deal(b: Path, s: Path) -> dict[str, Any]:
    from arcaeon.record.deal import dispute

    deal = cases.first_object(b)["deal"]
    r = dispute(deal, b, s).to_dict()
    return {
        **{k: r[k] for k in ("deal", "verdict", "at", "side", "matched", "counts", "reason_word")},
        "findings": [{k: f[k] for k in ("verdict", "at", "side")} for f in r["findings"]],
    }


def _ref_tape(a: Path, b: Path) -> dict[str, Any]:
    from arcaeon.prove.reconcile import reconcile

    r = reconcile(a, b).to_dict()
    return {
        **{k: r[k] for k in ("verdict", "at", "side", "matched", "counts", "reason_word")},
        "findings": [
            {k: f[k] for k in ("verdict", "at", "side", "index_side")} for f in r["findings"]
        ],
    }


def _ref_readings(a: Path, b: Path) -> dict[str, Any]:
    from arcaeon.prove.readings_compare import compare

    r = compare(a, b)
    summary = r.get("summary") or {}
    return {
        **{k: r.get(k) for k in ("verdict", "exit", "ledger", "reason_word", "independence")},
        "summary": {
            k: summary.get(k) for k in ("disagreed", "read", "agreed", "missing", "could_not_look")
        },
        "claims": [{"claim_id": c["claim_id"], "status": c["status"]} for c in r["claims"]],
    }


def _ref_handshake(a: Path, b: Path) -> dict[str, Any]:
    from arcaeon.record.handshake import verify

    r = verify(a, b).to_dict()
    keys = ("handshake", "verdict", "proposer_ledger", "acceptor_ledger", "fields")
    return {
        **{k: r[k] for k in ("verdict", "handshake", "counts", "reason_word")},
        "results": [{k: x[k] for k in keys} for x in r["results"]],
    }


_WORD = {
    "MATCHED": "VERIFIED",
    "COMPARED": "VERIFIED",
    "AGREED TERMS": "VERIFIED",
    "MISSING": "BROKEN",
    "ALTERED": "BROKEN",
    "BROKEN": "BROKEN",
    "DIFFERENT TERMS": "BROKEN",
}


def _agree(a: Path, b: Path, profile: str, expected: dict[str, Any], order: tuple[Path, Path]):
    results = checks.run([str(order[0]), str(order[1])])
    if any(r.profile != profile for r in results):
        # a tampering that moved the first row: that path is chain only, and the
        # other has no partner
        assert all(r.detail.get("pair") is None for r in results)
        return
    for me, other in ((0, 1), (1, 0)):
        res = results[me]
        pair = res.detail["pair"]
        assert pair is not None, res.reason
        assert pair["partner"] == str(order[other])
        got = {k: v for k, v in pair.items() if k not in ("partner", "party", "word")}
        assert got == expected
        assert pair["word"] == _WORD.get(expected["verdict"], "COULD NOT LOOK")
        alone = checks.run([str(order[me])])[0]
        assert alone.detail.get("pair", None) is None
        want = _WORD.get(expected["verdict"], "COULD NOT LOOK")
        assert res.verdict == _verdict.worst_word([alone.verdict, want])
        assert res.ok is alone.ok


# --------------------------------------------------------------------------- cases

DEAL_TAMPERINGS = {
    **cases.TAMPERINGS,
    "pay-rechained": cases.rechain_shared("deal.pay", "amount", "99.00"),
    "commit-rechained": cases.rechain_shared("deal.commit", "total", "1.00"),
    "mandate-rechained": cases.rechain_shared("deal.mandate", "mandate_digest", "sha256:x"),
}


@pytest.mark.parametrize("name", sorted(DEAL_TAMPERINGS))
@pytest.mark.parametrize("tampered", ["buyer", "seller"])
def test_deal_dispute_agrees(tmp_path, name, tampered):
    b, s = _deal_pair(tmp_path)
    if tampered == "buyer":
        b = DEAL_TAMPERINGS[name](b, tmp_path / "x.buyer.jsonl")
    else:
        s = DEAL_TAMPERINGS[name](s, tmp_path / "x.seller.jsonl")
    first_b, first_s = cases.first_object(b), cases.first_object(s)
    if (
        not (isinstance(first_b, dict) and isinstance(first_s, dict))
        or first_b.get("party") != "buyer"
    ):
        return
    _agree(b, s, "deal-tape", _ref_deal(b, s), (s, b))


def test_deal_amount_differs_is_altered(tmp_path):
    b, s = _deal_pair(tmp_path, pay="20.00")
    res = checks.run([str(b), str(s)])
    assert [r.verdict for r in res] == ["BROKEN", "BROKEN"]
    assert res[0].detail["pair"]["at"] == "pay#1"
    assert res[0].detail["pair"] == {**res[1].detail["pair"], "party": "buyer", "partner": str(s)}


TAPE_TAMPERINGS = {
    **cases.TAMPERINGS,
    "resp-rechained": cases.rechain_edit("resp", "sha256:json-c14n:v1:" + "2" * 64, 3),
    "idx-gap": cases.rechain_edit("idx", 9, 6),
    "idx-twice": cases.rechain_edit("idx", 2, 3),
    "lost-request": lambda src, dst: cases.rechain(
        dst,
        [dict(r, idx=i) for i, r in enumerate(cases.rows_of(src)[:2] + cases.rows_of(src)[3:], 1)],
    ),
    "moved": lambda src, dst: cases.rechain(
        dst,
        [
            dict(r, idx=i)
            for i, r in enumerate([cases.rows_of(src)[k] for k in (1, 0, 2, 3, 4, 5)], 1)
        ],
    ),
    "foreign-row": lambda src, dst: cases.rechain(dst, cases.rows_of(src) + [{"note": "x"}]),
}


@pytest.mark.parametrize("name", sorted(TAPE_TAMPERINGS))
@pytest.mark.parametrize("tool_first", [False, True])
def test_reconcile_agrees(tmp_path, name, tool_first):
    a, t = _tape_pair(tmp_path)
    t = TAPE_TAMPERINGS[name](t, tmp_path / "x.tool.tape.jsonl")
    order = (t, a) if tool_first else (a, t)
    _agree(a, t, "tape", _ref_tape(*order), order)


def test_two_agent_tapes_do_not_pair(tmp_path):
    a, _t = _tape_pair(tmp_path)
    b, _u = _tape_pair(tmp_path, tag="u")
    res = checks.run([str(a), str(b)])
    assert [r.detail["pair"] for r in res] == [None, None]
    assert all("not paired" in r.reason for r in res)


READINGS_TAMPERINGS = {
    **cases.TAMPERINGS,
    "word-rechained": cases.rechain_edit("reading", "maybe", 3),
    "same-reader": lambda src, dst: cases.rechain(
        dst,
        [
            dict(r, reader={**r["reader"], "id": "Reader-A"}) if "reader" in r else r
            for r in cases.rows_of(src)
        ],
    ),
    "claim-text-differs": cases.rechain_edit("claim_sha256", "3" * 64, 2),
    "same-provider": lambda src, dst: cases.rechain(
        dst,
        [
            dict(r, reader={**r["reader"], "provider": "OpenAI "}) if "reader" in r else r
            for r in cases.rows_of(src)
        ],
    ),
    "criteria-only": lambda src, dst: cases.rechain(dst, cases.rows_of(src)[:1]),
}


@pytest.mark.parametrize("name", sorted(READINGS_TAMPERINGS))
def test_readings_compare_agrees(tmp_path, name):
    a, b = _readings_pair(tmp_path)
    b = READINGS_TAMPERINGS[name](b, tmp_path / "x.b.jsonl")
    _agree(a, b, "readings", _ref_readings(a, b), (a, b))


def _accept_elsewhere(src: Path, dst: Path) -> Path:
    rows = cases.rows_of(src)
    return cases.rechain(dst, [dict(r, proposal_row=7) for r in rows])


HANDSHAKE_TAMPERINGS = {
    **cases.TAMPERINGS,
    "terms-rechained": cases.rechain_shared("deal.handshake.accept", "fee", "9.00"),
    "bound-elsewhere": _accept_elsewhere,
}


@pytest.mark.parametrize("name", sorted(HANDSHAKE_TAMPERINGS))
@pytest.mark.parametrize("acceptor_first", [False, True])
def test_handshake_verify_agrees(tmp_path, name, acceptor_first):
    a, b = _handshake_pair(tmp_path)
    rows = cases.rows_of(b) + [{"note": "after"}]  # a second row to tamper with
    b = cases.rechain(tmp_path / "b3.jsonl", rows)
    b = HANDSHAKE_TAMPERINGS[name](b, tmp_path / "x.b.jsonl")
    order = (b, a) if acceptor_first else (a, b)
    _agree(a, b, "handshake", _ref_handshake(*order), order)


def test_pair_of_one_missing_side_and_the_same_file_twice(tmp_path):
    a, _t = _tape_pair(tmp_path)
    res = checks.run([str(a), str(a)])
    assert [r.detail["pair"] for r in res] == [None, None]
    gone = checks.run([str(a), str(tmp_path / "gone.tool.tape.jsonl")])
    assert gone[0].detail["pair"] is None and gone[1].verdict == "COULD NOT LOOK"
    assert json.dumps([r.to_dict() for r in gone])


def _write_tape(path: Path, side: str, reqs: list[int]) -> Path:
    from sealscope.core.chain import GENESIS, link

    prev: Any = GENESIS
    with path.open("w", encoding="utf-8") as fh:
        for idx, k in enumerate(reqs, 1):
            row = {
                "evt": "tape_call",
                "tape": "arcaeon-tape/1",
                "side": side,
                "ns": None,
                "idx": idx,
                "tool": "t",
                "rpc_id": str(idx),
                "req": f"sha256:json-c14n:v1:{k:064x}",
                "resp": f"sha256:json-c14n:v1:{k + 1:064x}",
                "status": "ok",
                "ts": cases.TS,
            }
            row["chain"] = prev = link(prev, row)
            fh.write(json.dumps(row) + "\n")
    return path


def test_a_100k_row_tape_pair_with_one_lost_request(tmp_path):
    """The alignment looks ahead through an index, not by rescanning: a long pair
    with one request lost halfway reads as one MISSING, as the reference says."""
    n = 100_000
    agent = _write_tape(tmp_path / "a.tape.jsonl", "agent", list(range(n)))
    tool = _write_tape(tmp_path / "t.tape.jsonl", "tool", [k for k in range(n) if k != n // 2])
    res = checks.run([str(agent), str(tool)])
    pair = res[0].detail["pair"]
    assert (pair["verdict"], pair["at"], pair["side"], pair["matched"]) == (
        "MISSING",
        n // 2 + 1,
        "tool",
        n - 1,
    )
    assert pair == {**res[1].detail["pair"], "partner": str(tool)}
    ref = _ref_tape(agent, tool)
    assert {k: v for k, v in pair.items() if k not in ("partner", "word")} == ref
