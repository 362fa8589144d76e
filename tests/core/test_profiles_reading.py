"""How the long-tail checks read (core/profiles/reading.py): lines as a text-mode read
gives them, and one open file behind every read of one answer."""

from __future__ import annotations

import os

from sealscope.core import ledger as _ledger
from sealscope.core.profiles import deal as _deal
from sealscope.core.profiles import once as _once
from sealscope.core.profiles import reading as _r

from tests.core import profiles_cases as cases
from tests.core.test_profiles_pairs import _deal_pair


def test_text_lines_split_as_a_text_mode_read_does(tmp_path):
    for data in (b"a\nb\n", b"a\r\nb", b"a\rb\r\n", b"", b"x\r\r\n", b"\xff\n"):
        p = tmp_path / "f"
        p.write_bytes(data)
        with open(p, encoding="utf-8", errors="replace") as fh:
            want = fh.read().split("\n")
        assert list(_r.text_lines(p)) == want, data


def test_a_side_replaced_while_it_is_read_is_still_one_file(tmp_path, monkeypatch):
    """The tape is swapped for another between the chain walk and the row read: the
    rows read are those of the file the walk verified, not the newcomer's."""
    b, _s = _deal_pair(tmp_path)
    other = tmp_path / "other.jsonl"
    cases.rechain(other, [{"kind": "deal.pay", "deal": "d-0001", "party": "buyer"}])
    real = _ledger.verify

    def swap_then_verify(path, **kw):
        res = real(path, **kw)
        os.replace(other, b)  # the path now names another file
        return res

    monkeypatch.setattr(_deal._ledger, "verify", swap_then_verify)
    side = _deal.load_side("buyer tape", str(b), "d-0001", "buyer")
    assert side.cnl is None
    assert [r["kind"] for _n, r in side.mine] == ["deal.mandate", "deal.commit", "deal.pay"]


def test_once_row_badges_follow_the_receipt_rule(tmp_path):
    """Quirk 56: a row whose key is the number 5 reads `never` (the key is looked up
    as "5")."""
    p = cases.rechain(
        tmp_path / "once.jsonl",
        [
            {"event": "once.intent", "key": "a"},
            {"event": "once.executed", "key": "a", "outcome_digest": None},
            {"event": "once.intent", "key": 5},
            {"event": "once.intent", "key": "b"},
        ],
    )
    assert _once.row_states(str(p)) == {1: "executed", 2: "executed", 3: "never", 4: "intent"}


def test_hostile_long_tail_input_gets_a_word_never_a_traceback(tmp_path):
    """Deep nesting, duplicate keys, non-UTF-8, wrong types in every field the
    profiles read, a pack whose deal file is a folder or a FIFO: one of the three
    words each, paired or not."""
    from sealscope.core import checks

    deep = "[" * 3000 + "]" * 3000
    files = {
        "deep_once.jsonl": '{"event":"once.intent","key":' + deep + ',"chain":"x"}\n',
        "dup_once.jsonl": '{"event":"once.intent","key":"a","key":"b","chain":"x"}\n',
        "ff_tape.jsonl": b'{"evt":"tape_call","tape":"arcaeon-tape/1","side":"agent","idx":1,'
        b'"req":"\xff","resp":null}\n',
        "tool_tape.jsonl": '{"evt":"tape_call","tape":"arcaeon-tape/1","side":"tool","idx":1,'
        '"req":"r","resp":null,"chain":"y"}\n' + "[" * 600 + "]" * 600 + "\n",
        "deal_b.jsonl": '{"kind":"deal.commit","deal":"d","party":"buyer","shared":' + deep + "}\n",
        "deal_s.jsonl": '{"kind":"deal.x","deal":"d","party":"seller","shared":{},"a":1,"a":2}\n',
        "hs_a.jsonl": '{"kind":"deal.handshake.propose","deal":["x"],"shared":null}\n',
        "hs_b.jsonl": '{"kind":"deal.handshake.accept","deal":{"a":1},"proposal_row":true}\n',
        "rd_a.jsonl": '{"evt":"reading","format":"arcaeon-reading/1","reader":[1]}\n',
        "rd_b.jsonl": '{"evt":"criterion","format":"arcaeon-criterion/1","criterion_sha256":5}\n',
        "receipt.json": '{"key":[1],"state":"never","intent_chain":null,"executed_chain":null,'
        '"ledger_path":"/","ledger_ok":true}',
        "grade.json": '{"tool":"mcp_vet","source_sha256":"x","findings":[1,null],"target":"."}',
        "mandate.json": '{"mandate":{"cap":"NaN"},"mandate_digest":"x","deal":5}',
        "mandate2.json": '{"allowed_acts":["\\ud800"],"mandate":[],"mandate_digest":1}',
    }
    for name, data in files.items():
        (tmp_path / name).write_bytes(data if isinstance(data, bytes) else data.encode())
    (tmp_path / "pack").mkdir()
    (tmp_path / "pack" / "buyer.deal.jsonl").mkdir()
    (tmp_path / "pack2").mkdir()
    (tmp_path / "pack2" / "verdict.json").write_text('{"deal":"z","timeline":[],"verdict":[1]}')
    os.mkfifo(tmp_path / "pack2" / "buyer.deal.jsonl")
    paths = [str(tmp_path / n) for n in (*files, "pack", "pack2")]
    results = checks.run(paths)
    assert all(r.verdict in ("VERIFIED", "BROKEN", "COULD NOT LOOK") for r in results)
    # a folder named buyer.deal.jsonl is no deal file (P1 wants a regular file)
    assert [r.profile for r in results][-2:] == [None, "deal-pack"]
    assert all(r.verdict != "VERIFIED" for r in results)
