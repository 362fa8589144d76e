"""The long-tail samples (`sample_ledgers/kinds/long-tail/`, made by
`sample_ledgers/make_kinds3.py` through our own core): `check` gives each its profile
and word, the reference's own checks agree on every one, and the generator rebuilds
them byte for byte."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

from arcaeon.prove.readings_compare import compare
from arcaeon.prove.reconcile import reconcile
from arcaeon.record import handshake, mandate_cli
from arcaeon.record.deal import dispute
from arcaeon.record.once import receipt
from arcaeon.record.row import digest_json
from sealscope.core import checks

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"
TAIL = SAMPLES / "kinds" / "long-tail"

# argv (paths under long-tail/) -> (profile, word) per path
EXPECTED = {
    ("once.log.jsonl",): [("once-ledger", "VERIFIED")],
    ("once-receipt.json",): [("once-receipt", "VERIFIED")],
    ("deal.buyer.jsonl", "deal.seller.jsonl"): [("deal-tape", "VERIFIED")] * 2,
    ("DEAL-d-sample01",): [("deal-pack", "VERIFIED")],
    ("handshake.a.jsonl", "handshake.b.jsonl"): [("handshake", "VERIFIED")] * 2,
    ("agent.tape.jsonl", "tool.tape.jsonl"): [("tape", "VERIFIED")] * 2,
    ("readings.a.jsonl", "readings.b.jsonl"): [("readings", "VERIFIED")] * 2,
    ("mandate.json",): [("mandate", "VERIFIED")],
    ("mandate-sealed.json",): [("mandate", "VERIFIED")],
    ("mandate-sealed-edited.json",): [("mandate", "BROKEN")],
}


def test_each_sample_gets_its_profile_and_word():
    for argv, want in EXPECTED.items():
        got = checks.run([str(TAIL / p) for p in argv])
        assert [(r.profile, r.verdict) for r in got] == want, argv


def test_the_reference_agrees_on_every_sample():
    log = TAIL / "once.log.jsonl"
    assert [receipt(k, ledger_path=log).state for k in ("refund:4471", "email:weekly")] == [
        "executed",
        "intent",
    ]
    stored = json.loads((TAIL / "once-receipt.json").read_text())
    fresh = receipt(stored["key"], ledger_path=log).to_dict()
    assert {k: fresh[k] for k in stored if k != "ledger_path"} == {
        k: v for k, v in stored.items() if k != "ledger_path"
    }
    r = dispute("d-sample01", TAIL / "deal.buyer.jsonl", TAIL / "deal.seller.jsonl")
    assert (r.verdict, r.matched) == ("MATCHED", 2)
    pack = TAIL / "DEAL-d-sample01"
    assert (
        dispute("d-sample01", pack / "buyer.deal.jsonl", pack / "seller.deal.jsonl").verdict
        == (json.loads((pack / "verdict.json").read_text())["verdict"])
    )
    assert handshake.verify(TAIL / "handshake.a.jsonl", TAIL / "handshake.b.jsonl").verdict == (
        "AGREED TERMS"
    )
    t = reconcile(TAIL / "agent.tape.jsonl", TAIL / "tool.tape.jsonl")
    assert (t.verdict, t.matched) == ("MATCHED", 4)
    c = compare(TAIL / "readings.a.jsonl", TAIL / "readings.b.jsonl")
    assert (c["verdict"], c["summary"]["disagreed"]) == ("COMPARED", 1)
    for name in ("mandate.json", "mandate-sealed.json", "mandate-sealed-edited.json"):
        doc = json.loads((TAIL / name).read_text())
        assert mandate_cli.lint(doc)["valid"], name  # quirk 64: lint passes the edited one
    edited = json.loads((TAIL / "mandate-sealed-edited.json").read_text())
    assert digest_json(edited["mandate"]) != edited["mandate_digest"]


def test_the_generator_rebuilds_the_samples_byte_for_byte(tmp_path: Path) -> None:
    spec = importlib.util.spec_from_file_location("make_kinds3", SAMPLES / "make_kinds3.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.OUT = tmp_path / "long-tail"
    mod.main()

    def files(root: Path) -> dict[str, bytes]:
        return {
            p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file()
        }

    assert files(mod.OUT) == files(TAIL)
