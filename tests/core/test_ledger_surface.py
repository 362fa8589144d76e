"""`sealscope.core.ledger` is the surface of every ledger name, whichever module holds it:
each name callers use reads as the very object its home module defines, the deferred
ones agree with the imports the type checker reads, and importing the verifier loads
neither the explainer nor the reader nor the writer."""

from __future__ import annotations

import pickle
import subprocess
import sys
from pathlib import Path

from sealscope.core import chain, explain, ledger, ledger_read, ledger_write, walk

from tests.core.test_lazy import table_agrees

ROOT = Path(__file__).resolve().parents[2]

# name -> the module that defines it; every public name and the private ones other
# modules and tests read through `sealscope.core.ledger`
HOMES = {
    chain: (
        "GENESIS",
        "CHAIN_LEN",
        "DECLARE_OP",
        "Finding",
        "Findings",
        "VerifyResult",
        "link",
        "ProgressFn",
        "TEXT_TABLE_MAX",
    ),
    walk: ("WalkState", "_Walk", "_scan_declarations"),
    explain: (
        "Mismatch",
        "explain_mismatch",
        "explain_mismatches",
        "CONTENT_CHANGED",
        "EARLIER_OR_ORDER",
        "UNDETERMINED",
    ),
    ledger_read: ("iter_rows", "chain_at", "tail_chain"),
    ledger_write: ("append", "authority", "declare_break", "LedgerWriteError"),
}


def test_every_name_reads_as_its_home_modules_object():
    for home, names in HOMES.items():
        for name in names:
            assert getattr(ledger, name) is getattr(home, name), name
    for name in ledger.__all__:
        getattr(ledger, name)
    assert set(ledger.__all__) <= set(dir(ledger))


def test_the_deferred_names_agree_with_the_type_checking_imports():
    table_agrees(ledger, ROOT / "core" / "ledger.py")
    assert set(ledger._LAZY) == set(HOMES[explain] + HOMES[ledger_read] + HOMES[ledger_write])


def test_importing_the_verifier_loads_neither_explaining_reading_nor_writing():
    code = (
        "import sys, sealscope.core.ledger\n"
        "print(' '.join(sorted(m for m in sys.modules if m.startswith('sealscope.core.'))))"
    )
    loaded = set(
        subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60
        ).stdout.split()
    )
    assert {"sealscope.core.ledger", "sealscope.core.chain", "sealscope.core.walk"} <= loaded
    assert {
        "sealscope.core.explain",
        "sealscope.core.ledger_read",
        "sealscope.core.ledger_write",
    } & loaded == set()


def test_a_result_written_by_one_process_loads_in_another(tmp_path):
    """What the verify child and the pools send: a pickle made in a fresh interpreter
    loads here as the same class, equal to our own verdict on the same file."""
    p = tmp_path / "l.jsonl"
    ledger.append(p, {"op": "a"})
    ledger.append(p, {"op": "b"})
    code = (
        "import pickle, sys\nfrom sealscope.core import ledger\n"
        "sys.stdout.buffer.write(pickle.dumps(ledger.verify(sys.argv[1])))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code, str(p)], capture_output=True, check=True, timeout=60
    ).stdout
    got = pickle.loads(out)
    assert type(got) is ledger.VerifyResult
    assert got == ledger.verify(p) and got.ok and got.rows == 2
