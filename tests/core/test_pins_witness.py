"""Head pins and witness stores against arcaeon's verdicts."""

from __future__ import annotations

import json
import os

import pytest
from arcaeon.record import ledger as ref
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sealscope.core import ledger as L
from sealscope.core import pins, witness

from tests.core.fifo_helpers import returns, swapped_after_stat


def _ledger(p, n=4):
    for i in range(n):
        L.append(p, {"i": i, "ts": "2026-01-01T00:00:00Z"})
    return p


def test_pin_string_round_trip(tmp_path):
    p = _ledger(tmp_path / "l.jsonl")
    h = pins.head(p)
    assert (h.chain, h.rows, h.ok) == (ref.Ledger(p).head().chain, 4, True)
    pin = pins.parse_pin(h.as_pin())
    assert (pin.chain, pin.rows) == (h.chain, 4)
    assert pins.check_pin(p, pin).verdict == "consistent"
    assert pins.parse_pin("  arcaeon-ledger head rows=3 as_of=x chain=abc ").rows == 3


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "arcaeon-ledger head chain=a rows=x as_of=t",
        "arcaeon-ledger head chain=a as_of=t",
        "arcaeon-ledger head chain=a rows=1 rows=2 as_of=t",
        "ledger head chain=a rows=1 as_of=t",
        "arcaeon-ledger head chain=a rows=-1 as_of=t",
    ],
)
def test_parse_pin_refuses(bad):
    with pytest.raises(ValueError, match="not a head pin"):
        pins.parse_pin(bad)


def test_no_pin_over_a_broken_ledger(tmp_path):
    p = tmp_path / "broken.jsonl"
    p.write_text("{bad\n")
    h = pins.head(p)
    assert h.ok is False and h.first_break == "line 1: unparseable"
    with pytest.raises(pins.UnverifiedLedgerError) as e:
        h.as_pin()
    with pytest.raises(ref.UnverifiedLedgerError) as r:
        ref.Ledger(p).head().as_pin()
    assert str(e.value) == str(r.value)


@pytest.mark.parametrize(
    "content", [None, b"", b"\n\n", b'{"a": 1}\n{"b": 2}\n', b'{"a":1,"chain":5}\n']
)
def test_head_special_cases_match_reference(tmp_path, content):
    p = tmp_path / "h.jsonl"
    if content is not None:
        p.write_bytes(content)
    ours, theirs = pins.head(p), ref.Ledger(p).head()
    assert (ours.chain, ours.rows, ours.ok, ours.first_break) == (
        theirs.chain,
        theirs.rows,
        theirs.ok,
        theirs.first_break,
    )


def test_cr_only_ledger_pins_consistent_where_arcaeon_reads_rewritten(tmp_path):
    """Documented difference: arcaeon's tip reader splits on LF only."""
    p = _ledger(tmp_path / "cr.jsonl", 3)
    p.write_bytes(p.read_bytes().replace(b"\n", b"\r"))
    pin = pins.parse_pin(pins.head(p).as_pin())
    assert pins.check_pin(p, pin).verdict == "consistent"
    ref_head = ref.Ledger(p).head()
    assert ref_head.chain == "genesis"  # the reference's pin would assert genesis at 3 rows


def _store(tmp_path, records):
    st_ = ref.WitnessStore(tmp_path / "store.jsonl")
    for ns, ledger_path in records:
        ref.publish_head(st_, ns, ref.Ledger(ledger_path))
    return tmp_path / "store.jsonl"


def test_witness_verdicts_match_reference(tmp_path):
    a = _ledger(tmp_path / "a.jsonl", 5)
    b = _ledger(tmp_path / "b.jsonl", 3)
    store = _store(tmp_path, [("agents/a", a), ("agents/b", b)])
    L.append(a, {"more": 1, "ts": "t"})
    cases = [("agents/a", a), ("agents/b", b), ("agents/none", a)]
    trunc = tmp_path / "b-trunc.jsonl"
    trunc.write_bytes(b"".join(b.read_bytes().splitlines(keepends=True)[:2]))
    cases.append(("agents/b", trunc))
    rewritten = tmp_path / "b-rw.jsonl"
    for i in range(3):
        L.append(rewritten, {"i": i + 100, "ts": "t"})
    cases.append(("agents/b", rewritten))
    for ns, led in cases:
        ours = witness.verify_against_witness(store, ns, led)
        theirs = ref.verify_against_witness(ref.WitnessStore(store), ns, ref.Ledger(led))
        assert ours.to_dict() == {k: getattr(theirs, k) for k in ours.to_dict()}


records = st.lists(
    st.tuples(
        st.sampled_from(["n1", "n2", "é/ns"]),
        st.integers(1, 9),
        st.sampled_from(["abc", "def", "genesis"]),
    ),
    min_size=0,
    max_size=5,
)


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    recs=records,
    op=st.sampled_from(["none", "edit", "delete", "junk", "legacy", "self"]),
    where=st.integers(0, 10),
)
def test_store_check_matches_reference(tmp_path, recs, op, where):
    path = tmp_path / "s.jsonl"
    path.unlink(missing_ok=True)
    rows = 0
    for ns, n, chain in recs:
        rows += n
        witness.record(path, ns, rows, chain, "2026-01-01T00:00:00Z")
    lines = path.read_text().splitlines() if path.exists() else []
    i = where % max(1, len(lines))
    if op == "edit" and lines:
        lines[i] = lines[i].replace('"rows": ', '"rows": 1', 1)
    elif op == "delete" and lines:
        del lines[i]
    elif op == "junk":
        lines.insert(i, "42")
    elif op == "legacy":
        lines.insert(i, json.dumps({"namespace": "n1", "rows": 1, "chain": "x"}))
    elif op == "self" and lines:
        lines[i] = lines[i].replace('"self": "', '"self": "0', 1)
    path.write_text("\n".join(lines) + ("\n" if lines else ""))
    ours = witness.verify_store(path).to_dict()
    theirs = dict(ref.WitnessStore(path).verify())
    assert ours == {k: theirs[k] for k in ours}
    for ns in ("n1", "n2", "é/ns"):
        assert witness.latest(path, ns) == ref.WitnessStore(path).latest(ns)


def test_record_refuses_going_backwards_and_future_stamps(tmp_path):
    s = tmp_path / "w.jsonl"
    witness.record(s, "n", 5, "c", "2026-01-01T00:00:00Z")
    with pytest.raises(ValueError, match="monotonic violation"):
        witness.record(s, "n", 4, "c", "2026-01-01T00:00:00Z")
    with pytest.raises(ValueError, match="AHEAD"):
        witness.record(s, "n", 6, "c", "2026-01-01T00:10:00Z", received_at="2026-01-01T00:00:00Z")
    assert witness.verify_store(s).ok is True


def test_rows_since_pin_and_staleness(tmp_path):
    p = _ledger(tmp_path / "g.jsonl", 5)
    from arcaeon.record.ledger.witness import rows_since_pin

    assert pins.rows_since_pin(p, {"rows": 2}) == rows_since_pin(p, {"rows": 2}) == 3
    for bad in ({"rows": True}, {"rows": -1}, {}, [1]):
        with pytest.raises(ValueError, match="pin rows is not a non-negative integer"):
            pins.rows_since_pin(p, bad)
    assert (pins.stale(100), pins.stale(101)) == (False, True)


NOT_A_PIN = "not a head pin: expected 'arcaeon-ledger head chain=... rows=N as_of=...'"


@pytest.mark.parametrize("when", ["at the check", "after the check", "a folder after the check"])
def test_a_pin_given_as_a_fifo_is_read_as_text_without_blocking(tmp_path, monkeypatch, when):
    """A FIFO (or folder) is not a pin file, whether the check or the open finds it."""
    path, other = tmp_path / "head.pin", tmp_path / "pipe"
    path.write_text("arcaeon-ledger head chain=abc rows=4 as_of=2026-01-01T00:00:00Z\n")
    assert pins.pin_from(str(path)).rows == 4
    if when.startswith("a folder"):
        other.mkdir()
    else:
        os.mkfifo(other)
    if when == "at the check":
        os.replace(other, path)
    else:  # isfile sees the regular file, the open finds the FIFO
        swapped_after_stat(monkeypatch, path, other)
    came_back, got = returns(lambda: pins.pin_from(str(path)), path)
    assert came_back, "pin_from blocked on a FIFO"
    assert isinstance(got, ValueError) and str(got) == NOT_A_PIN


def test_a_witness_store_that_is_a_fifo_is_unreadable_without_blocking(tmp_path):
    fifo = tmp_path / "store.jsonl"
    os.mkfifo(fifo)
    came_back, got = returns(lambda: witness.verify_store(fifo), fifo)
    assert came_back, "verify_store blocked on a FIFO"
    assert (got.ok, got.breaks, got.first_break) == (
        False,
        1,
        f"unreadable: not a regular file: '{fifo}'",
    )
    came_back, got = returns(lambda: witness.namespaces(fifo), fifo)
    assert came_back and got == []
