"""How much of a ledger the fleet reads (issue 28, work done twice).

Before: the classifier read every ledger up to 64 MB whole before the fleet audited it,
and the witness-store test read the first 8 MB window again after the walk. Now the
classifier decides a JSONL ledger from a 64 KiB prefix (`kinds.PREFIX_BYTES`) and the
witness test reads the one open file only as far as its first object row
(`rows.first_object`): the walk's read of the file is the only read of all of it
besides the receipt scan's.

Measured with the kernel's own count of bytes this process read (`rchar` in
/proc/self/io) around real audits of real files; skipped where there is no such count.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sealscope.core import fleet, kinds, verdict
from sealscope.core.chain import GENESIS, _link_of
from sealscope.core.checks.ledger_rows import row_checks
from sealscope.core.jsonio import dumps_body
from sealscope.core.ledger import verify
from sealscope.core.lookup import iter_receipt_rows

IO = Path("/proc/self/io")
pytestmark = pytest.mark.skipif(not IO.exists(), reason="no /proc/self/io on this system")


def _rchar() -> int:
    for line in IO.read_text().splitlines():
        if line.startswith("rchar:"):
            return int(line.split()[1])
    raise AssertionError("no rchar in /proc/self/io")


def _ledger(path: Path, rows: int) -> int:
    """A chained ledger of `rows` rows of ~500 bytes each; its size."""
    prev, out = GENESIS, []
    for i in range(rows):
        row = {"kind": "note", "n": i, "text": "x" * 460}
        prev = _link_of(prev, dumps_body(row))
        out.append(json.dumps({**row, "chain": prev}, separators=(",", ":")))
    path.write_text("\n".join(out) + "\n", encoding="utf-8")
    return path.stat().st_size


def _read_by(fn, *args):  # type: ignore[no-untyped-def]
    before = _rchar()
    got = fn(*args)
    return got, _rchar() - before


@pytest.fixture
def big(tmp_path: Path) -> tuple[Path, int]:
    p = tmp_path / "big.jsonl"
    size = _ledger(p, 18_000)  # over fleet.SMALL_BYTES: walked window by window
    warm = tmp_path / "warm.jsonl"
    _ledger(warm, 3)
    fleet.audit_path(str(warm))  # imports and first-call work before counting
    return p, size


def test_the_classifier_reads_a_ledger_only_to_its_prefix(big: tuple[Path, int]) -> None:
    p, size = big
    assert size > 5 << 20
    found, read = _read_by(kinds.identify, str(p))
    assert found.kind == kinds.LEDGER
    assert read <= 2 * kinds.PREFIX_BYTES, (read, size)  # was the whole file


def test_a_fleet_audit_adds_only_prefixes_to_the_walk_and_the_receipt_scan(
    big: tuple[Path, int],
) -> None:
    p, size = big
    assert size > fleet.SMALL_BYTES
    walked, by_walk = _read_by(lambda q: verify(q, workers=1, digest=True), str(p))
    receipts, by_scan = _read_by(lambda q: list(iter_receipt_rows(q)), str(p))
    rows, by_rows = _read_by(row_checks, str(p))
    entry, read = _read_by(fleet.audit_path, str(p))
    assert walked.ok is True and receipts == [] and rows == ()
    assert by_walk >= size and by_scan >= size
    assert entry.outcome().exit_code == verdict.HELD and entry.result.rows == 18_000
    # classifying the ledger and telling it from a witness store read only prefixes,
    # and the receipts come out of the row checks' one scan (before: the whole file
    # three times more, 5x its size in all with the walk)
    extra = read - by_walk - by_rows
    assert 0 <= extra < 4 * kinds.PREFIX_BYTES, (extra, size)


def test_a_small_ledger_is_read_once_for_its_whole_audit(tmp_path: Path) -> None:
    """A file of at most `fleet.SMALL_BYTES` is read once, whole: classified, walked,
    digested, told from a witness store and scanned for receipts from those bytes."""
    p = tmp_path / "small.jsonl"
    size = _ledger(p, 4_000)
    assert size <= fleet.SMALL_BYTES
    fleet.audit_path(str(p))  # warm: imports and first-call work
    entry, read = _read_by(fleet.audit_path, str(p))
    want = verify(str(p), workers=1, digest=True)
    assert entry.outcome().exit_code == verdict.HELD and entry.result.rows == 4_000
    assert entry.result.sha256 == want.sha256 and entry.result.sha256 is not None
    assert size <= read < size + kinds.PREFIX_BYTES, (read, size)  # was 2x + prefixes


def test_a_witness_store_is_a_ledger_judged_as_check_judges_it(tmp_path: Path) -> None:
    """A `.jsonl` file of pin records is a ledger to the fleet as to `check` (KINDS.md
    §1): judged, never set aside by its content, with `check`'s word."""
    from sealscope.core import checks
    from sealscope.core.witness import record_digest

    rec: dict[str, object] = {"namespace": "ns", "prev": None}
    rec["self"] = record_digest(rec)
    row = {"kind": "note"}
    chained = json.dumps({**row, "chain": _link_of(GENESIS, dumps_body(row))})
    p = tmp_path / "store.jsonl"
    p.write_text(f"\nnot json\n[1]\n{json.dumps(rec)}\n{chained}\n", encoding="utf-8")
    entry = fleet.audit_path(str(p))
    want = checks.run([str(p)])[0]
    assert entry.evidence and entry.kind == "ledger"
    assert (entry.verdict, entry.exit_code) == (want.verdict, want.exit_code)


def test_the_prefix_answers_as_the_whole_file_would(tmp_path: Path) -> None:
    """Only a prefix that shows "not one JSON object" is taken as the answer; a
    document that starts past the prefix, or spans it, is still read whole."""
    pad = "x" * (2 * kinds.PREFIX_BYTES)
    receipt = {"schema": "arcaeon-compact:receipt:v1", "pad": pad}
    cases = {
        "pretty.json": (json.dumps(receipt, indent=2), kinds.RECEIPT),
        "one-line.jsonl": (json.dumps(receipt), kinds.RECEIPT),
        "late.jsonl": (" " * (kinds.PREFIX_BYTES + 10) + json.dumps(receipt), kinds.RECEIPT),
        "rows.json": (f'{{"a":1}}\n{json.dumps(receipt)}\n', None),
    }
    for name, (text, want) in cases.items():
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        assert p.stat().st_size > kinds.PREFIX_BYTES
        found = kinds.identify(str(p))
        assert found.kind == want, (name, found)
    assert kinds.identify(str(tmp_path / "rows.json")).reason.endswith("is not one JSON object")
