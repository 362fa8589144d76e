"""The unit samples (`sample_ledgers/packs/`): what `check` says of each, through the
kinds' own checkers, and that their generator rebuilds them byte for byte."""

from __future__ import annotations

from pathlib import Path

import pytest
from sealscope.core import ledger
from sealscope.core.checks import aat, bundle, pack
from sealscope.core.checks.result import CheckContext

ROOT = Path(__file__).resolve().parents[2]
PACKS = ROOT / "sample_ledgers" / "packs"


def _files(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes()
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }


def test_the_pack_zip_is_verified_all_ten_checks():
    got = pack.check(str(PACKS / "session-pack.zip"), CheckContext()).to_dict()
    assert (got["kind"], got["verdict"], got["exit_code"], got["ok"]) == (
        "evidence-pack",
        "VERIFIED",
        0,
        None,
    )
    assert [c["check"] for c in got["detail"]["checks"]] == list(pack.CHECKS)
    assert {c["verdict"] for c in got["detail"]["checks"]} == {"VERIFIED"}
    assert got["detail"]["zip"]["entries"] == 8


def test_the_bundle_is_verified_by_its_chain_only():
    got = bundle.check(str(PACKS / "session-bundle"), CheckContext()).to_dict()
    assert (got["kind"], got["verdict"], got["ok"]) == ("audit-bundle", "VERIFIED", True)
    assert got["detail"]["rows"] == 11
    assert got["detail"]["not_covered"] == list(bundle.NOT_COVERED)
    assert "not covered" in got["bound"]


def test_the_aat_export_is_verified_where_verify_says_broken():
    path = PACKS / "session-aat.jsonl"
    got = aat.check(str(path), CheckContext()).to_dict()
    assert (got["kind"], got["verdict"], got["ok"]) == ("aat-export", "VERIFIED", True)
    assert got["detail"]["records"] == 11
    assert got["detail"]["head"].startswith("17c234bd")
    assert ledger.verify(path).first_break == "line 1: chain mismatch"


def test_the_generator_rebuilds_them_byte_for_byte(tmp_path):
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "make_kinds_packs", ROOT / "sample_ledgers" / "make_kinds_packs.py"
    )
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(tmp_path / "packs")
    assert _files(tmp_path / "packs") == _files(PACKS)


@pytest.mark.parametrize(
    "family", ["check/evidence-pack/", "check/audit-bundle/", "check/aat-export/"]
)
def test_check_py_passes_the_family_through_the_verb(family):
    """The conformance runner itself, through `sealscope check`, on this family."""
    import subprocess
    import sys

    from tests.conftest import CHECK, sealscope_cmd
    from tests.core.checks_cases import KINDS_CORPUS

    if not CHECK.is_file() or not KINDS_CORPUS.is_dir():
        pytest.skip("../shared/conformance is not present")
    p = subprocess.run(
        [
            sys.executable,
            str(CHECK),
            "--cmd",
            sealscope_cmd(),
            "--jobs",
            "1",
            "--only",
            family,
            str(KINDS_CORPUS),
        ],
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    assert p.returncode == 0 and last.endswith(" 0 failed"), p.stdout + p.stderr
    assert int(last.split()[0]) >= 6
