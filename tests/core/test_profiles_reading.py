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
