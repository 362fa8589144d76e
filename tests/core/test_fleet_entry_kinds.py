"""Issues 29/30 in the fleet core: the classifier decides what each found path is (a
ledger, another evidence kind as one unit, or not evidence), and a ledger entry's
verdict and receipt rows come from the one file `audit_file` opened, whatever its name
names after the open (the swap is made from `fleet.after_open`: deterministic)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from sealscope.core import fleet

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"

# exactly what a walk of the samples finds, relative to the samples folder: every
# file (the classifier, not the name, decides what each is), and the bundle folder
# as one path (its members not walked); Python's own caches aside
SAMPLE_WALK = [
    "README.md",
    "__init__.py",
    "make_kinds.py",
    "make_kinds3.py",
    "kinds/long-tail/DEAL-d-sample01/timeline.md",
    "make_kinds_packs.py",
    "make_samples.py",
    "truncated.pin",
    "harn/make_harn_samples.py",
    "kinds/artefact-report.md",
    "seals/README.md",
    "seals/make_seal_samples.py",
    "declared-break.jsonl",
    "hostile.jsonl",
    "liar.jsonl",
    "session.jsonl",
    "tampered.jsonl",
    "truncated.jsonl",
    "harn/run-record.json",
    "harn/session-transcript.json",
    "held/liar-post.json",
    "held/liar-pre.json",
    "held/session-post.jsonl",
    "held/session-pre.jsonl",
    "held/v1-post.json",
    "held/v1-pre.json",
    "kinds/artefact-decision.json",
    "kinds/artefacts.jsonl",
    "kinds/continuity-verdict.json",
    "kinds/continuity.calls.jsonl",
    "kinds/continuity.jsonl",
    "kinds/distill-receipt.json",
    "kinds/portable-receipt.json",
    "kinds/portable.ledger.jsonl",
    "kinds/portable.ledger.jsonl.witness.jsonl",
    "kinds/receipt.json",
    "kinds/long-tail/DEAL-d-sample01/buyer.deal.jsonl",
    "kinds/long-tail/DEAL-d-sample01/seller.deal.jsonl",
    "kinds/long-tail/DEAL-d-sample01/verdict.json",
    "kinds/long-tail/agent.tape.jsonl",
    "kinds/long-tail/deal.buyer.jsonl",
    "kinds/long-tail/deal.seller.jsonl",
    "kinds/long-tail/handshake.a.jsonl",
    "kinds/long-tail/handshake.b.jsonl",
    "kinds/long-tail/mandate-sealed-edited.json",
    "kinds/long-tail/mandate-sealed.json",
    "kinds/long-tail/mandate.json",
    "kinds/long-tail/once-receipt.json",
    "kinds/long-tail/once.log.jsonl",
    "kinds/long-tail/readings.a.jsonl",
    "kinds/long-tail/readings.b.jsonl",
    "kinds/long-tail/tool.tape.jsonl",
    "packs/session-aat.jsonl",
    "packs/session-aat_gaps.json",
    "packs/session-bundle",
    "packs/session-pack.zip",
    "seals/manifest-day2.json",
    "seals/restated-divergent.json",
    "seals/restated-faithful.json",
    "seals/seal-day1-tampered.json",
    "seals/seal-day1.json",
    "seals/seal-day2.json",
    "seals/seals-ledger.jsonl",
    "seals/tiers.json",
    "witness/store.jsonl",
]
# path → (kind, verdict) of every judged entry: every `.jsonl` file is a ledger, a
# witness store and held content too (KINDS.md §1, as `check` reads them)
SAMPLE_KINDS = {
    "declared-break.jsonl": ("ledger", "COULD NOT LOOK"),
    "hostile.jsonl": ("ledger", "VERIFIED"),
    "liar.jsonl": ("ledger", "VERIFIED"),
    "session.jsonl": ("ledger", "VERIFIED"),
    "tampered.jsonl": ("ledger", "BROKEN"),
    "truncated.jsonl": ("ledger", "VERIFIED"),
    "harn/run-record.json": ("harn", "BROKEN"),
    "harn/session-transcript.json": ("harn", "VERIFIED"),
    "kinds/artefacts.jsonl": ("ledger", "VERIFIED"),
    "kinds/continuity-verdict.json": ("continuity-verdict", "BROKEN"),
    "kinds/continuity.calls.jsonl": ("call-record", "VERIFIED"),
    "kinds/continuity.jsonl": ("ledger", "VERIFIED"),  # its row joins the verdict beside it
    "kinds/distill-receipt.json": ("distill-receipt", "VERIFIED"),
    "kinds/portable-receipt.json": ("portable-receipt", "VERIFIED"),
    "kinds/portable.ledger.jsonl": ("ledger", "VERIFIED"),
    "kinds/receipt.json": ("receipt", "VERIFIED"),
    # the long tail (KINDS-3.md): pairs are paired by `sealscope fleet`, not here
    "kinds/long-tail/DEAL-d-sample01/buyer.deal.jsonl": ("ledger", "VERIFIED"),
    "kinds/long-tail/DEAL-d-sample01/seller.deal.jsonl": ("ledger", "VERIFIED"),
    "kinds/long-tail/agent.tape.jsonl": ("ledger", "VERIFIED"),
    "kinds/long-tail/deal.buyer.jsonl": ("ledger", "VERIFIED"),
    "kinds/long-tail/deal.seller.jsonl": ("ledger", "VERIFIED"),
    "kinds/long-tail/handshake.a.jsonl": ("ledger", "VERIFIED"),
    "kinds/long-tail/handshake.b.jsonl": ("ledger", "VERIFIED"),
    "kinds/long-tail/mandate-sealed-edited.json": ("mandate", "BROKEN"),
    "kinds/long-tail/mandate-sealed.json": ("mandate", "VERIFIED"),
    "kinds/long-tail/mandate.json": ("mandate", "VERIFIED"),
    "kinds/long-tail/once-receipt.json": ("once-receipt", "VERIFIED"),
    "kinds/long-tail/once.log.jsonl": ("ledger", "VERIFIED"),
    "kinds/long-tail/readings.a.jsonl": ("ledger", "VERIFIED"),
    "kinds/long-tail/readings.b.jsonl": ("ledger", "VERIFIED"),
    "kinds/long-tail/tool.tape.jsonl": ("ledger", "VERIFIED"),
    "packs/session-aat.jsonl": ("aat-export", "VERIFIED"),
    "packs/session-bundle": ("audit-bundle", "VERIFIED"),
    "packs/session-pack.zip": ("evidence-pack", "VERIFIED"),
    "seals/seal-day1-tampered.json": ("snapshot", "BROKEN"),
    "seals/seal-day1.json": ("snapshot", "VERIFIED"),
    "seals/seal-day2.json": ("snapshot", "VERIFIED"),
    "seals/seals-ledger.jsonl": ("ledger", "VERIFIED"),
    "held/session-post.jsonl": ("ledger", "BROKEN"),
    "held/session-pre.jsonl": ("ledger", "BROKEN"),
    "kinds/portable.ledger.jsonl.witness.jsonl": ("ledger", "BROKEN"),
    "witness/store.jsonl": ("ledger", "BROKEN"),
    # a script with a line that parses as JSON: a ledger to `check` (KINDS.md §1 row 11)
    "harn/make_harn_samples.py": ("ledger", "BROKEN"),
}
NOT_EVIDENCE = sorted(set(SAMPLE_WALK) - set(SAMPLE_KINDS))


def _rel(p: str) -> str:
    return os.path.relpath(p, SAMPLES)


def _samples_walk() -> list[tuple[str, int | None]]:
    """The walk of the samples without Python's caches (present once they are imported)."""
    return [(p, n) for p, n in fleet.walk([str(SAMPLES)]) if "__pycache__" not in p]


def test_the_walk_of_the_samples_finds_exactly_these_paths():
    found = [(_rel(p), n) for p, n in _samples_walk()]
    assert sorted(p for p, _n in found) == sorted(SAMPLE_WALK)
    sizes = dict(found)
    assert sizes["packs/session-bundle"] is None  # a unit folder: one path
    assert sizes["session.jsonl"] == (SAMPLES / "session.jsonl").stat().st_size
    # the default pattern alone, without kinds, is yesterday's walk: *.jsonl only
    plain = sorted(_rel(p) for p, _n in fleet.walk([str(SAMPLES)], kinds=False))
    assert "packs/session-bundle/records.jsonl" in plain
    assert all(p.endswith(".jsonl") for p in plain)


def test_the_samples_audit_each_kind_once_and_list_what_is_not_evidence():
    entries = fleet.run_local(_samples_walk(), workers=1)
    judged = {_rel(e.path): (e.kind, e.verdict) for e in fleet.worst_first(entries)}
    assert judged == SAMPLE_KINDS
    left = {
        _rel(e.path): e.check.reason for e in fleet.not_evidence(entries) if e.check is not None
    }
    assert sorted(left) == NOT_EVIDENCE
    s = fleet.summarize(entries, 0.0)
    assert (s.ledgers, s.units, s.not_evidence) == (26, 17, len(NOT_EVIDENCE))
    assert s.kinds["evidence-pack"] == s.kinds["audit-bundle"] == 1
    assert s.verdicts == {"VERIFIED": 32, "BROKEN": 10, "COULD NOT LOOK": 1}
    assert s.exit_code == 1
    # worst first over every kind: the BROKEN ones (ledger and units alike) lead
    order = [e.verdict for e in fleet.worst_first(entries)]
    assert order == sorted(order, key=["BROKEN", "COULD NOT LOOK", "VERIFIED"].index)


def _packs(tmp_path: Path) -> Path:
    root = tmp_path / "fleet"
    root.mkdir()
    shutil.copytree(SAMPLES / "packs" / "session-bundle", root / "bundle")
    shutil.copy(SAMPLES / "packs" / "session-pack.zip", root / "pack.zip")
    shutil.copy(SAMPLES / "session.jsonl", root / "session.jsonl")
    return root


def test_a_bundle_folder_is_one_entry_and_a_broken_one_is_broken(tmp_path):
    root = _packs(tmp_path)
    entries = fleet.run_local(list(fleet.walk([str(root)])), workers=1)
    got = {os.path.relpath(e.path, root): (e.kind, e.verdict) for e in entries}
    assert got == {
        "bundle": ("audit-bundle", "VERIFIED"),
        "pack.zip": ("evidence-pack", "VERIFIED"),
        "session.jsonl": ("ledger", "VERIFIED"),
    }
    records = root / "bundle" / "records.jsonl"
    records.write_text(records.read_text().replace("intranet", "extranet", 1))
    entries = fleet.run_local(list(fleet.walk([str(root)])), workers=1)
    first = fleet.worst_first(entries)[0]
    assert (os.path.relpath(first.path, root), first.verdict, first.exit_code) == (
        "bundle",
        "BROKEN",
        1,
    )
    assert fleet.summarize(entries, 0.0).exit_code == 1
    # a unit named as the source itself is that one unit
    assert list(fleet.walk([str(root / "bundle")])) == [(str(root / "bundle"), None)]


def test_a_folder_of_receipts_is_a_fleet(tmp_path):
    for name in ("receipt.json", "distill-receipt.json", "portable-receipt.json"):
        shutil.copy(SAMPLES / "kinds" / name, tmp_path / name)
    entries = fleet.run_local(list(fleet.walk([str(tmp_path)])), workers=1)
    assert sorted((e.kind, e.verdict) for e in entries) == [
        ("distill-receipt", "VERIFIED"),
        ("portable-receipt", "VERIFIED"),
        ("receipt", "VERIFIED"),
    ]
    receipt = next(e for e in entries if e.kind == "receipt")
    assert receipt.check is not None and receipt.check.bound  # VERIFIED within a bound


def test_a_kind_entry_crosses_the_wire_unchanged():
    for name in ("packs/session-pack.zip", "packs/session-bundle", "held/v1-pre.json"):
        e = fleet.audit_path(str(SAMPLES / name))
        back = fleet.FleetEntry.from_dict(e.to_wire())
        assert back == e and back.verdict == e.verdict and back.evidence == e.evidence
    e = fleet.audit_path(str(SAMPLES / "held/v1-pre.json"))
    d = e.to_dict()
    assert (d["verdict"], d["exit_code"], d["not_evidence"], d["kind"]) == (None, None, True, None)


def test_a_missing_path_is_still_could_not_look(tmp_path):
    e = fleet.audit_path(str(tmp_path / "gone.jsonl"))
    assert (e.kind, e.verdict, e.result.unreadable) == ("ledger", "COULD NOT LOOK", True)


# ----------------------------------------------------------------------- one open file


@pytest.fixture
def swap_after_open(monkeypatch):
    """Replace the name `target` by `other` right after `audit_file` opened it."""

    def install(target: Path, other: Path) -> list[int]:
        done: list[int] = []

        def hook(path: str, fd: int) -> None:
            if not done and os.path.abspath(path) == os.path.abspath(target):
                done.append(fd)
                os.replace(other, target)

        monkeypatch.setattr(fleet, "after_open", hook)
        return done

    return install


@pytest.mark.parametrize("incremental", [False, True])
def test_the_receipt_rows_are_the_opened_files_not_the_swapped_ones(
    tmp_path, swap_after_open, monkeypatch, incremental
):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    original = fleet.audit_file(SAMPLES / "session.jsonl")
    other = fleet.audit_file(SAMPLES / "liar.jsonl")
    assert [r.line for r in original.receipts.rows] != [r.line for r in other.receipts.rows]
    assert original.result.rows != other.result.rows
    led = tmp_path / "L.jsonl"
    shutil.copy(SAMPLES / "session.jsonl", led)
    swapped = tmp_path / "swap.jsonl"
    shutil.copy(SAMPLES / "liar.jsonl", swapped)
    done = swap_after_open(led, swapped)
    e = fleet.audit_file(led, incremental=incremental)
    assert done, "the hook did not run"
    assert led.read_bytes() == (SAMPLES / "liar.jsonl").read_bytes()  # the swap happened
    # the receipts and the walk are the opened (original) file's, never the swapped one's
    assert e.receipts == original.receipts
    assert e.result.rows == original.result.rows
    # and the verdict does not stand for the name, which now holds other bytes
    assert (e.verdict, e.result.unreadable, e.result.sha256) == ("COULD NOT LOOK", True, None)
    assert "replaced while it was verified" in (e.result.first_break or "")


def test_without_a_swap_the_entry_holds_and_carries_the_digest(tmp_path):
    led = tmp_path / "L.jsonl"
    shutil.copy(SAMPLES / "session.jsonl", led)
    e = fleet.audit_file(led)
    import hashlib

    assert (e.verdict, e.receipts.count) == ("VERIFIED", 2)
    assert e.result.sha256 == hashlib.sha256(led.read_bytes()).hexdigest()


def test_a_ledger_row_dressed_as_a_pin_record_is_still_a_ledger(tmp_path):
    """Only a real pin record (its `self` its own digest) makes a witness store: a
    tampered ledger given `namespace`/`prev`/`self` keys stays a BROKEN ledger."""
    import json

    lines = (SAMPLES / "session.jsonl").read_text().splitlines()
    first = json.loads(lines[0])
    first.update(namespace="x", prev="witness-genesis", self="0" * 32)
    led = tmp_path / "dressed.jsonl"
    led.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    e = fleet.audit_path(str(led))
    assert (e.evidence, e.kind, e.verdict, e.exit_code) == (True, "ledger", "BROKEN", 1)


def test_a_ledger_stripped_of_its_chains_is_judged_as_check_judges_it(tmp_path):
    """Rows with every `chain` removed are a `.jsonl` ledger (KINDS.md §1): the fleet
    judges it, with the word and code `check` gives it, never sets it aside."""
    from sealscope.core import checks

    root = tmp_path / "fleet"
    root.mkdir()
    (root / "honest.jsonl").write_bytes((SAMPLES / "session.jsonl").read_bytes())
    stripped = []
    for line in (SAMPLES / "tampered.jsonl").read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        row.pop("chain", None)
        stripped.append(json.dumps(row))
    (root / "stripped.jsonl").write_text("\n".join(stripped) + "\n", encoding="utf-8")
    entries = fleet.run_local(list(fleet.walk([str(root)])), workers=1)
    assert fleet.not_evidence(entries) == []
    by = {os.path.basename(e.path): e for e in entries}
    want = checks.run([str(root / "stripped.jsonl")])[0]
    got = by["stripped.jsonl"]
    assert (got.kind, got.verdict, got.exit_code) == ("ledger", want.verdict, want.exit_code)
    assert fleet.summarize(entries, 0.0).exit_code == want.exit_code == 3
