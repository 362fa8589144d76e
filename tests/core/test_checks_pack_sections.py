"""core.checks.pack, the sections a pack may be built with (`--format aat`,
`--mandate`, `--readings`): honest packs built by the reference's own builder, and
the same packs forged with every hash re-listed (the member's in manifest.json, the
manifest's in manifest.sha256), folder and zip, against the reference's
`verify_pack` field by field: verdict, exit, each check's name and word, and the
reason word."""

from __future__ import annotations

import hashlib
import json
import zipfile
from pathlib import Path

import pytest
from arcaeon.prove.evidence_pack import build_pack
from arcaeon.prove.evidence_pack_verify import verify_pack as ref_verify_pack
from arcaeon.record.ledger import Ledger
from sealscope.core.checks import pack
from sealscope.core.checks.result import CheckContext

BUILT_AT = "2030-01-01T00:00:00Z"


def fields(res: dict) -> tuple:
    return (
        res["verdict"],
        res["exit"],
        [(c["check"], c["verdict"]) for c in res["checks"]],
        res.get("reason_word"),
    )


def ours(path: Path) -> dict:
    got = pack.check(str(path), CheckContext()).to_dict()
    assert "checks" in got["detail"], got["detail"]
    return got["detail"]


def same_as_reference(path: Path) -> dict:
    """Our result for `path` (and for a zip of it, when a folder), asserted equal to
    the reference's, field by field; the reference's result."""
    want = ref_verify_pack(path)
    got = ours(path)
    assert fields(got) == fields(want)
    if path.is_dir():
        z = path.with_name(path.name + "-forged.zip")
        with zipfile.ZipFile(z, "w") as zf:
            for f in sorted(path.iterdir()):
                zf.write(f, f.name)
        assert fields(ours(z)) == fields(ref_verify_pack(z)) == fields(want)
    return want


def relist(out: Path, *names: str) -> None:
    """Put each member's new sha256 in manifest.json and the manifest's in
    manifest.sha256, as a forger who rewrites every hash would."""
    m = json.loads((out / "manifest.json").read_text())
    for name in names:
        m["files"][name] = hashlib.sha256((out / name).read_bytes()).hexdigest()
    (out / "manifest.json").write_text(json.dumps(m, indent=2) + "\n")
    digest = hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()
    (out / "manifest.sha256").write_text(f"{digest}  manifest.json\n")


def word_of(res: dict, check: str) -> str:
    return next(c["verdict"] for c in res["checks"] if c["check"] == check)


# ------------------------------------------------------------------------ aat


def _aat_ledger(path: Path) -> None:
    """Rows holding some AAT fields and lacking others, a value JCS refuses, blank
    and non-object lines."""
    L = Ledger(path)
    L.append(
        {
            "evt": "tool_call",
            "tool": "t1",
            "args_digest": "a" * 8,
            "session": "s1",
            "seq": 1,
            "ts": "2026-10-06T08:20:00Z",
            "agent": "wren",
            "status": "ok",
        }
    )
    L.append({"event": "decision", "inputs": {"x": 1}, "outputs": [1], "ts": "2026-10-06T08:21Z"})
    L.append({"evt": "tool_call", "seq": 2**60, "ts": "2026-10-06T08:22:00Z", "system_id": "k"})
    for i in range(5):
        L.append({"evt": "session_end", "seam": "stdio", "seam_impl": "py", "n": i})
    L.append({"event": "decision", "agent": "wren", "ts": "2026-10-06T08:23:00Z"})


def _aat_pack(tmp: Path, *, damaged_tail: bool = False) -> Path:
    led, out = tmp / "aat.ledger.jsonl", tmp / "aatpack"
    _aat_ledger(led)
    if damaged_tail:
        with led.open("ab") as f:
            f.write(b"\n   \n[1]\nxx\n")
    build_pack(led, out, system_id="s", provider="p", formats=("aat",), built_at=BUILT_AT)
    return out


@pytest.mark.parametrize("damaged_tail", [False, True])
def test_an_honest_aat_pack_reads_as_the_reference_reads_it(tmp_path, damaged_tail):
    out = _aat_pack(tmp_path, damaged_tail=damaged_tail)
    want = same_as_reference(out)
    assert word_of(want, "aat export") == "VERIFIED"


@pytest.mark.parametrize("which", [0, 12, -1])
def test_a_gap_removed_from_the_gaps_file_is_broken(tmp_path, which):
    """A declared gap taken out of aat_gaps.json, its hash re-listed: the gaps file is
    rebuilt from records.jsonl, so the `aat export` check is BROKEN."""
    out = _aat_pack(tmp_path, damaged_tail=True)
    gaps = json.loads((out / "aat_gaps.json").read_text())
    del gaps["gaps"][which]
    (out / "aat_gaps.json").write_text(json.dumps(gaps, indent=2, ensure_ascii=False) + "\n")
    relist(out, "aat_gaps.json")
    want = same_as_reference(out)
    assert want["verdict"] == "BROKEN" and word_of(want, "aat export") == "BROKEN"
    assert "aat_gaps.json differs" in next(
        c["finding"] for c in ours(out)["checks"] if c["check"] == "aat export"
    )


def test_a_line_dropped_from_a_gaps_list_is_broken(tmp_path):
    out = _aat_pack(tmp_path)
    gaps = json.loads((out / "aat_gaps.json").read_text())
    entry = next(g for g in gaps["gaps"] if len(g.get("lines", [])) > 1)
    entry["lines"].pop()
    (out / "aat_gaps.json").write_text(json.dumps(gaps, indent=2, ensure_ascii=False) + "\n")
    relist(out, "aat_gaps.json")
    assert word_of(same_as_reference(out), "aat export") == "BROKEN"


def test_a_value_edited_in_the_records_breaks_the_aat_check_too(tmp_path):
    """A value the AAT mapping does not read, edited in records.jsonl (its hash
    re-listed): the export's lines are unchanged, but the gaps file records the
    records' chain, which now breaks, so the `aat export` check is BROKEN."""
    out = _aat_pack(tmp_path)
    rec = out / "records.jsonl"
    assert b'"n": 3' in rec.read_bytes()
    rec.write_bytes(rec.read_bytes().replace(b'"n": 3', b'"n": 4', 1))
    relist(out, "records.jsonl")
    want = same_as_reference(out)
    assert word_of(want, "aat export") == "BROKEN"
