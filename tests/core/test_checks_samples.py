"""The unit samples (`sample_ledgers/packs/`): what `check` says of each, through the
kinds' own checkers, and that their generator rebuilds them byte for byte."""
from __future__ import annotations

from pathlib import Path

from sealscope.core import ledger
from sealscope.core.checks import aat, bundle, pack
from sealscope.core.checks.result import CheckContext

ROOT = Path(__file__).resolve().parents[2]
PACKS = ROOT / "sample_ledgers" / "packs"


def _files(folder: Path) -> dict[str, bytes]:
    return {p.relative_to(folder).as_posix(): p.read_bytes()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def test_the_pack_zip_is_verified_all_ten_checks():
    got = pack.check(str(PACKS / "session-pack.zip"), CheckContext()).to_dict()
    assert (got["kind"], got["verdict"], got["exit_code"], got["ok"]) == \
        ("evidence-pack", "VERIFIED", 0, None)
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
        "make_kinds_packs", ROOT / "sample_ledgers" / "make_kinds_packs.py")
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    mod.main(tmp_path / "packs")
    assert _files(tmp_path / "packs") == _files(PACKS)
