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


# -------------------------------------------------------------------- mandate

MANDATE = b'{"allow": ["t1"], "cap": 3}\n'


def _mandate_pack(tmp: Path, variant: str = "named") -> Path:
    """A ledger whose gate loaded the mandate (or another file, or none), judged a call
    outside, one it could not look at, and ended one of its two sessions."""
    led, out, mfile = tmp / "m.ledger.jsonl", tmp / f"mpack-{variant}", tmp / "mandate.json"
    mfile.write_bytes(MANDATE)
    sha = hashlib.sha256(MANDATE if variant == "named" else b"other").hexdigest()
    L = Ledger(led)
    if variant != "unnamed":
        L.append({"evt": "mandate_loaded", "session": "s1", "mandate_file_sha256": sha})
    L.append({"evt": "tool_call", "session": "s1", "tool": "t1", "agent": "wren"})
    L.append({"evt": "mandate_outside", "session": "s1", "verdict": "outside", "tool": "t9"})
    L.append({"evt": "mandate_could_not_look", "session": "s2", "verdict": "could_not_look"})
    L.append({"evt": "mandate_changed", "session": "s2", "to_sha256": sha})
    L.append({"evt": "mandate_cap_exceeded", "session": "s1", "verdict": "inside"})
    L.append({"evt": "session_end", "session": "s1", "mandate_inside": 4})
    if variant == "all-ended":
        L.append({"evt": "session_end", "session": "s2", "mandate_inside": 1})
    build_pack(
        led,
        out,
        system_id="s",
        provider="p",
        built_at=BUILT_AT,
        mandate=str(mfile) if variant != "no-file" else str(tmp / "absent.json"),
    )
    return out


@pytest.mark.parametrize("variant", ["named", "all-ended", "other", "unnamed", "no-file"])
def test_an_honest_mandate_pack_reads_as_the_reference_reads_it(tmp_path, variant):
    out = _mandate_pack(tmp_path, variant)
    want = same_as_reference(out)
    assert word_of(want, "mandate rows") == "VERIFIED"


def _forge_rows(out: Path) -> None:
    rows = json.loads((out / "mandate_rows.json").read_text())
    rows["outside_rows"] = []  # an outside call dropped
    (out / "mandate_rows.json").write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    relist(out, "mandate_rows.json")


def _forge_counts(out: Path) -> None:
    rows = json.loads((out / "mandate_rows.json").read_text())
    rows["counts"]["outside"] = 0
    (out / "mandate_rows.json").write_text(json.dumps(rows, indent=2, ensure_ascii=False) + "\n")
    m = json.loads((out / "manifest.json").read_text())
    m["mandate"]["counts"]["outside"] = 0
    (out / "manifest.json").write_text(json.dumps(m, indent=2) + "\n")
    relist(out, "mandate_rows.json")


def _forge_copy(out: Path) -> None:
    (out / "mandate_file.json").write_bytes(b'{"allow": ["t1", "t9"]}\n')
    relist(out, "mandate_file.json")


def _forge_checks(out: Path) -> None:
    m = json.loads((out / "manifest.json").read_text())
    m["checks"] = [c for c in m["checks"] if c["check"] != "mandate inside count"]
    (out / "manifest.json").write_text(json.dumps(m, indent=2) + "\n")
    relist(out)


def _forge_record_row(out: Path) -> None:
    rec = out / "records.jsonl"
    assert b'"verdict": "outside"' in rec.read_bytes()
    rec.write_bytes(rec.read_bytes().replace(b'"verdict": "outside"', b'"verdict": "inside"'))
    relist(out, "records.jsonl")


@pytest.mark.parametrize(
    "forge", [_forge_rows, _forge_counts, _forge_copy, _forge_checks, _forge_record_row]
)
def test_a_forged_mandate_section_is_broken(tmp_path, forge):
    """A mandate row, a count, the mandate copy, the manifest's mandate checks or a
    records row edited, every hash re-listed: the section is rebuilt, so the
    `mandate rows` check is BROKEN, as the reference says."""
    out = _mandate_pack(tmp_path)
    forge(out)
    want = same_as_reference(out)
    assert want["verdict"] == "BROKEN" and word_of(want, "mandate rows") == "BROKEN"


# ------------------------------------------------------------------- readings


def _readings_pack(tmp: Path, *, with_ledger: bool, witness: bool = False) -> Path:
    from arcaeon.record.receipt import core as rcore

    issuer = tmp / "issuer.jsonl"
    receipt = None
    for i in range(3):
        receipt = rcore.build_receipt(
            "cite",
            {"doc": f"d{i}"},
            [{"name": "c", "score": i}],
            {"proves": ["x"], "does_not_prove": ["y"]},
            ledger_path=issuer,
            namespace="ns",
            witness=witness,
            anchor=False,
            issued_at="2026-12-01T00:00:00Z",
        )
    assert receipt is not None
    rpath = rcore.save_receipt(receipt, tmp / "second-read.json")
    led, out = tmp / "r.ledger.jsonl", tmp / f"rpack-{with_ledger}-{witness}"
    L = Ledger(led)
    for i in range(3):
        L.append({"event": "decision", "agent": "wren", "n": i})
    build_pack(
        led,
        out,
        system_id="s",
        provider="p",
        built_at=BUILT_AT,
        readings=str(rpath),
        readings_ledger=str(issuer) if with_ledger else None,
    )
    return out


@pytest.mark.parametrize("with_ledger, witness", [(True, False), (False, False), (True, True)])
def test_an_honest_readings_pack_reads_as_the_reference_reads_it(tmp_path, with_ledger, witness):
    out = _readings_pack(tmp_path, with_ledger=with_ledger, witness=witness)
    want = same_as_reference(out)
    assert word_of(want, "second-read receipt") == "VERIFIED"


def _forge_receipt_body(out: Path) -> None:
    r = json.loads((out / "readings_receipt.json").read_text())
    r["subject"] = {"doc": "forged"}
    (out / "readings_receipt.json").write_text(json.dumps(r, indent=1) + "\n")
    relist(out, "readings_receipt.json")


def _forge_readings_count(out: Path) -> None:
    m = json.loads((out / "manifest.json").read_text())
    m["readings"]["ledger_status"] = "not_checked"
    (out / "manifest.json").write_text(json.dumps(m, indent=2) + "\n")
    relist(out)


def _forge_receipt_ledger(out: Path) -> None:
    led = out / "readings_receipt.ledger.jsonl"
    lines = led.read_bytes().splitlines(keepends=True)
    led.write_bytes(b"".join(lines[:-1]))  # the receipt's own row cut
    relist(out, "readings_receipt.ledger.jsonl")


def _forge_receipt_ledger_edit(out: Path) -> None:
    led = out / "readings_receipt.ledger.jsonl"
    assert b'"checks": 1' in led.read_bytes()
    led.write_bytes(led.read_bytes().replace(b'"checks": 1', b'"checks": 2', 1))
    relist(out, "readings_receipt.ledger.jsonl")


def _forge_receipt_duplicate_key(out: Path) -> None:
    p = out / "readings_receipt.json"
    assert p.read_bytes().startswith(b"{")
    p.write_bytes(p.read_bytes().replace(b"{", b'{"kind": "x",', 1))
    relist(out, "readings_receipt.json")


@pytest.mark.parametrize(
    "forge, word",
    [
        (_forge_receipt_body, "BROKEN"),
        (_forge_readings_count, "BROKEN"),
        (_forge_receipt_ledger, "BROKEN"),
        (_forge_receipt_ledger_edit, "BROKEN"),
        (_forge_receipt_duplicate_key, "COULD NOT LOOK"),
    ],
)
def test_a_forged_second_read_receipt_reads_as_the_reference_reads_it(tmp_path, forge, word):
    """The receipt, the manifest's record of it or its ledger edited, every hash
    re-listed: `receipt verify` reruns on the pack's copies, so the check says what
    the reference says (BROKEN; COULD NOT LOOK for a receipt that is not strict
    JSON)."""
    out = _readings_pack(tmp_path, with_ledger=True)
    forge(out)
    want = same_as_reference(out)
    assert word_of(want, "second-read receipt") == word


# ------------------------------------------------- the bundle's rule inside a pack


def _plain_pack(tmp: Path) -> Path:
    led, out = tmp / "b.ledger.jsonl", tmp / "bpack"
    L = Ledger(led)
    for i in range(4):
        L.append({"event": "decision", "agent": "wren", "n": i, "ts": f"2026-10-06T08:2{i}:00Z"})
    build_pack(led, out, system_id="s", provider="p", built_at=BUILT_AT)
    return out


def _cut_last_row(out: Path) -> None:
    rec = out / "records.jsonl"
    rec.write_bytes(b"".join(rec.read_bytes().splitlines(keepends=True)[:-1]))
    relist(out, "records.jsonl")


def _cut_last_row_and_head(out: Path) -> None:
    _cut_last_row(out)
    m = json.loads((out / "manifest.json").read_text())
    last = json.loads((out / "records.jsonl").read_bytes().splitlines()[-1])
    m["chain_head"] = {
        **m["chain_head"],
        "rows": m["chain_head"]["rows"] - 1,
        "chain": last["chain"],
    }
    (out / "manifest.json").write_text(json.dumps(m, indent=2) + "\n")
    relist(out)


def _integrity(out: Path, **edits: object) -> None:
    i = json.loads((out / "integrity.json").read_text())
    i.update(edits)
    (out / "integrity.json").write_text(json.dumps(i, indent=2) + "\n")
    relist(out, "integrity.json")


@pytest.mark.parametrize(
    "forge",
    [
        _cut_last_row,
        _cut_last_row_and_head,
        lambda out: _integrity(out, verdict="BROKEN"),
        lambda out: _integrity(out, verdict="COULD NOT LOOK"),
        lambda out: _integrity(out, finding="TRUNCATION_DETECTED"),
        lambda out: _integrity(out, records_sha256="0" * 64),
        lambda out: _integrity(out, records_sha256=None),
    ],
    ids=[
        "cut",
        "cut-and-head",
        "verdict-broken",
        "verdict-cnl",
        "finding",
        "sha-zeros",
        "sha-null",
    ],
)
def test_integrity_json_inside_a_pack_is_held_to_the_records_as_the_reference_holds_it(
    tmp_path, forge
):
    """KINDS.md §9.2: inside a pack, integrity.json's records_sha256 and verdict are held
    to records.jsonl (check 9, `re-derived fields and prose`), every hash re-listed:
    BROKEN, check by check as the reference says."""
    out = _plain_pack(tmp_path)
    forge(out)
    want = same_as_reference(out)
    assert want["verdict"] == "BROKEN"
    assert word_of(want, "re-derived fields and prose") == "BROKEN"
