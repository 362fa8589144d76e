"""core.checks.pack: the ten evidence-pack checks, against the reference's
`verify_pack` on packs (folders and zips) it builds from random ledgers, with random
tampering of each member; a pack is never written to; the VSA subjects of a unit."""

from __future__ import annotations

import hashlib
import json
import random
import tempfile
import zipfile
from pathlib import Path

import pytest
from arcaeon.prove.evidence_pack import build_pack
from arcaeon.prove.evidence_pack_verify import verify_pack as ref_verify_pack
from arcaeon.record.ledger import Ledger
from arcaeon.record.ledger.witness import WitnessStore
from sealscope.core.checks import pack
from sealscope.core.checks.result import CheckContext

from tests.core.checks_cases import cases, run_case


@pytest.mark.parametrize("case", cases("check/evidence-pack/"), ids=lambda c: c["id"])
def test_conformance_case(case):
    run_case(case, pack.check)


def ref_words(path: Path) -> tuple:
    """The reference's words, or ("raises", its class) where verify_pack raises."""
    try:
        return words(ref_verify_pack(path))
    except Exception as e:  # noqa: BLE001  # the reference's own failure is the answer
        return ("raises", type(e).__name__)


def words(res: dict) -> tuple:
    if "checks" not in res:
        return ("raises", res.get("error"))
    return (
        res["verdict"],
        res["exit"],
        [(c["check"], c["verdict"]) for c in res["checks"]],
        res.get("reason_word"),
        (res.get("zip") or {}).get("entries"),
    )


def _ledger(rng: random.Random, path: Path) -> None:
    L = Ledger(path)
    for i in range(rng.randint(1, 8)):
        L.append(
            {
                "event": rng.choice(["tool_call", "decision", "output", "odd"]),
                "agent": rng.choice(["wren", "kite"]),
                "n": i,
                "t": rng.choice(["a", "ü"]),
                "ts": f"2026-10-06T08:2{i}:00Z",
            }
        )
    if rng.random() < 0.15:
        with path.open("ab") as fh:
            fh.write(b'{"unchained": 1}\n')


def _build(rng: random.Random, tmp: Path, i: int) -> Path:
    led, out = tmp / f"l{i}.jsonl", tmp / f"p{i}"
    _ledger(rng, led)
    kw: dict = {}
    if rng.random() < 0.3:
        kw["agent"] = rng.choice(["wren", "nobody"])
    if rng.random() < 0.2:
        kw["since"] = "2026-10-06T08:22:00Z"
    if rng.random() < 0.3:
        kw["formats"] = ("aat",)
    if rng.random() < 0.2:  # a mandate section: its rows rebuilt from the records
        mfile = tmp / f"mandate{i}.json"
        mfile.write_bytes(b'{"allow": ["t1"]}\n')
        kw["mandate"] = str(mfile)
    if rng.random() < 0.2:  # a second-read receipt: receipt verify rerun on the copies
        from arcaeon.record.receipt import core as rcore

        issuer = tmp / f"issuer{i}.jsonl"
        receipt = rcore.build_receipt(
            "cite",
            {"doc": "d"},
            [{"name": "c"}],
            {"proves": ["x"], "does_not_prove": ["y"]},
            ledger_path=issuer,
            namespace="ns",
            witness=False,
            anchor=False,
            issued_at="2026-12-01T00:00:00Z",
        )
        kw["readings"] = str(rcore.save_receipt(receipt, tmp / f"receipt{i}.json"))
        if rng.random() < 0.5:
            kw["readings_ledger"] = str(issuer)
    if rng.random() < 0.25:  # a local witness: its pin is listed, checked against nothing
        store = tmp / f"pins{i}.jsonl"
        WitnessStore(store).record("ns", Ledger(led).head())
        kw.update(witness=str(store), witness_namespace=rng.choice(["ns", "other"]))
    build_pack(
        led, out, system_id="s", provider="p", zip_out=True, built_at="2026-10-07T00:00:00Z", **kw
    )
    return out


def _tamper_folder(rng: random.Random, out: Path) -> str:
    files = sorted(p for p in out.iterdir() if p.is_file())
    f = rng.choice(files)
    op = rng.choice(
        [
            "byte",
            "line",
            "add",
            "sub",
            "remove",
            "rename",
            "none",
            "cnl",
            "sha-zeros",
            "manifest-key",
            "window-row",
        ]
    )
    if op == "byte" and f.stat().st_size:
        b = bytearray(f.read_bytes())
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        f.write_bytes(bytes(b))
    elif op == "line":
        lines = f.read_bytes().split(b"\n")
        del lines[rng.randrange(len(lines))]
        f.write_bytes(b"\n".join(lines))
    elif op == "add":
        (out / "notes.txt").write_text("x")
    elif op == "sub":
        (out / "sub").mkdir()
        (out / "sub" / "x.txt").write_text("x")
    elif op == "remove":
        f.unlink()
    elif op == "rename":
        f.rename(out / (f.name + ".bak"))
    elif op == "cnl":
        (out / "could_not_look.json").write_text(
            json.dumps(
                [
                    {
                        "check": "x",
                        "looked_for": "a",
                        "where": "b",
                        "reason_word": "missing",
                        "reason": "r",
                    }
                ]
            )
        )
    elif op == "sha-zeros":
        (out / "manifest.sha256").write_text("0" * 64 + "  manifest.json\n")
    elif op == "manifest-key":
        m = json.loads((out / "manifest.json").read_text())
        m[rng.choice(sorted(m))] = rng.choice([None, 1, "x", [], {}, True])
        (out / "manifest.json").write_text(json.dumps(m, indent=2))
        if rng.random() < 0.5:  # the rewriter fixes the manifest's hash too
            digest = hashlib.sha256((out / "manifest.json").read_bytes()).hexdigest()
            (out / "manifest.sha256").write_text(f"{digest}  manifest.json\n")
    elif op == "window-row":
        w = out / "window.jsonl"
        if w.exists():
            w.write_bytes(
                rng.choice([b'{"line": 1}', b"[1]", b'{"line": true, "raw": ""}', b"xx"])
                + b"\n"
                + w.read_bytes()
            )
    return op


def _tamper_zip(rng: random.Random, z: Path) -> str:
    op = rng.choice(
        [
            "flip",
            "cut",
            "junk-tail",
            "repack-byte",
            "repack-add",
            "repack-drop",
            "repack-rename",
            "dup",
            "traversal",
            "deflated",
        ]
    )
    data = bytearray(z.read_bytes())
    if op == "flip":
        data[rng.randrange(len(data))] ^= 1 << rng.randrange(8)
        z.write_bytes(bytes(data))
        return op
    if op == "cut":
        z.write_bytes(bytes(data[: rng.randrange(len(data))]))
        return op
    if op == "junk-tail":
        z.write_bytes(bytes(data) + b"junk")
        return op
    with zipfile.ZipFile(z) as zf:
        ents = [(i.filename, zf.read(i)) for i in zf.infolist()]
    k = rng.randrange(len(ents))
    if op == "repack-byte" and ents[k][1]:
        b = bytearray(ents[k][1])
        b[rng.randrange(len(b))] ^= 4
        ents[k] = (ents[k][0], bytes(b))
    elif op == "repack-add":
        ents.append(("notes.txt", b"x"))
    elif op == "repack-drop":
        ents.pop(k)
    elif op == "repack-rename":
        ents[k] = (ents[k][0] + ".bak", ents[k][1])
    elif op == "dup":
        ents.append(ents[k])
    elif op == "traversal":
        ents.append((rng.choice(["../evil.txt", "/etc/evil", "sub/x.txt"]), b"x"))
    method = zipfile.ZIP_DEFLATED if op == "deflated" else zipfile.ZIP_STORED
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the duplicate name is the point
        with zipfile.ZipFile(z, "w", method) as zf:
            for name, b in ents:
                zf.writestr(name, b)
    return op


@pytest.fixture
def quiet_tmp(tmp_path, monkeypatch):
    t = tmp_path / "tmp"
    t.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(t))
    return t


def _ours(path: Path, quiet: Path) -> dict:
    """Our check, asserting it wrote nothing: not in the pack, not in temp."""
    snap = (
        {p: p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
        if path.is_dir()
        else {path: path.read_bytes()}
    )
    got = pack.check(str(path), CheckContext()).to_dict()
    after = (
        {p: p.read_bytes() for p in sorted(path.rglob("*")) if p.is_file()}
        if path.is_dir()
        else {path: path.read_bytes()}
    )
    assert after == snap
    assert list(quiet.iterdir()) == []
    return got


def test_differential_folders(tmp_path, quiet_tmp):
    """40 reference packs, each folder tampered at random: the same pack word, exit,
    checks (name and word, in order) and reason word as verify_pack, no difference
    tolerated (the pages are rendered again, as the reference renders them)."""
    rng = random.Random(8)
    seen = set()
    for i in range(40):
        out = _build(rng, tmp_path, i)
        op = _tamper_folder(rng, out)
        got = _ours(out, quiet_tmp)
        want = ref_words(out)
        assert words(got["detail"]) == want, (i, op)
        if want[0] != "raises":
            assert got["verdict"] == want[0] and got["exit_code"] == want[1]
        else:
            assert got["verdict"] == "COULD NOT LOOK" and got["exit_code"] == 3
        seen.add(want[0])
    assert {"VERIFIED", "BROKEN", "COULD NOT LOOK"} <= seen


def test_differential_zips(tmp_path, quiet_tmp):
    """40 reference pack zips, damaged at random (a byte flipped, cut, re-packed with a
    member changed, added, dropped, renamed, named twice or out of the folder): the
    same words as verify_pack, nothing extracted."""
    rng = random.Random(45)
    seen = set()
    for i in range(40):
        out = _build(rng, tmp_path, i)
        z = out.with_suffix(".zip")
        op = _tamper_zip(rng, z)
        got = _ours(z, quiet_tmp)
        want = ref_words(z)
        assert list(quiet_tmp.iterdir()) == []  # the reference cleans its extraction
        assert words(got["detail"]) == want, (i, op)
        seen.add(want[0])
    assert seen == {"VERIFIED", "BROKEN", "COULD NOT LOOK"}


def test_an_honest_pack_and_its_zip(tmp_path, quiet_tmp):
    out = _build(random.Random(1), tmp_path, 0)
    for p in (out, out.with_suffix(".zip")):
        got = _ours(p, quiet_tmp)
        assert words(got["detail"]) == ref_words(p)
    z = _ours(out.with_suffix(".zip"), quiet_tmp)["detail"]["zip"]
    assert z["sha256"] == hashlib.sha256(out.with_suffix(".zip").read_bytes()).hexdigest()
    assert z["entries"] == len(list(out.iterdir()))


def test_where_the_reference_raises_we_could_not_look(tmp_path, quiet_tmp):
    out = _build(random.Random(2), tmp_path, 0)
    m = json.loads((out / "manifest.json").read_text())
    m["chain_head"] = "not a dict"
    (out / "manifest.json").write_text(json.dumps(m))
    with pytest.raises(AttributeError):
        ref_verify_pack(out)
    got = _ours(out, quiet_tmp)
    assert got["verdict"] == "COULD NOT LOOK" and got["detail"] == {"error": "AttributeError"}


def test_an_unhashable_integrity_verdict_could_not_look_as_the_reference_raises(
    tmp_path, quiet_tmp
):
    out = _build(random.Random(4), tmp_path, 0)
    integrity = json.loads((out / "integrity.json").read_text())
    integrity["verdict"] = {"a": 1}
    (out / "integrity.json").write_text(json.dumps(integrity))
    with pytest.raises(TypeError):
        ref_verify_pack(out)
    got = _ours(out, quiet_tmp)
    assert got["verdict"] == "COULD NOT LOOK" and got["detail"] == {"error": "TypeError"}


def test_unit_subjects(tmp_path):
    out = _build(random.Random(3), tmp_path, 0)
    listed = json.loads((out / "manifest.json").read_text())["files"]
    subjects = pack.unit_subjects(str(out))
    assert [n for n, _ in subjects] == sorted(listed)
    assert all(listed[n] == d for n, d in subjects)
    (out / "README.md").write_text("changed")
    assert dict(pack.unit_subjects(str(out)))["README.md"] == hashlib.sha256(b"changed").hexdigest()
    z = out.with_suffix(".zip")
    assert pack.unit_subjects(str(z)) == [(z.name, hashlib.sha256(z.read_bytes()).hexdigest())]


def test_members_list_each_file_with_its_listed_and_actual_digest(tmp_path):
    out = _build(random.Random(5), tmp_path, 0)
    listed = json.loads((out / "manifest.json").read_text())["files"]
    (out / "README.md").write_text("changed")
    (out / "notes.txt").write_text("planted")
    got = pack.check(str(out), CheckContext()).detail["members"]
    by = {m["name"]: m for m in got}
    assert [m["name"] for m in got] == sorted(by)
    assert by["README.md"] == {
        "name": "README.md",
        "listed": listed["README.md"],
        "actual": hashlib.sha256(b"changed").hexdigest(),
        "matches": False,
    }
    assert by["notes.txt"]["listed"] is None and by["notes.txt"]["actual"]
    assert by["records.jsonl"]["matches"] and by["manifest.json"]["listed"] is None
    z = out.with_suffix(".zip")
    zm = pack.check(str(z), CheckContext()).detail["members"]
    assert all(m["matches"] for m in zm if m["name"] not in ("manifest.json", "manifest.sha256"))


@pytest.mark.parametrize(
    "member",
    ["records.jsonl", "window.jsonl", "manifest.json", "could_not_look.json", "manifest.sha256"],
)
def test_a_fifo_member_is_not_a_file_of_the_pack_never_waited_on(tmp_path, member):
    import os

    from tests.core.fifo_helpers import returns

    out = _build(random.Random(9), tmp_path, 0)
    (out / member).unlink()
    os.mkfifo(out / member)
    came_back, got = returns(lambda: pack.check(str(out), CheckContext()).to_dict(), out / member)
    assert came_back
    # (the reference's reader would wait on it: it is not asked)
    if member == "manifest.json":
        assert got["detail"]["checks"] == [
            {**got["detail"]["checks"][0], "check": "manifest", "verdict": "COULD NOT LOOK"}
        ]
        assert got["detail"]["reason_word"] == "missing"
        return
    hashes = got["detail"]["checks"][0]
    assert got["verdict"] in ("BROKEN", "COULD NOT LOOK")
    if member != "manifest.sha256":  # listed: a FIFO in its place is missing from the pack
        assert hashes["missing"] == [member] and got["verdict"] == "BROKEN"


def test_a_member_past_sealscopes_bound_is_bounded_not_read(tmp_path, monkeypatch):
    """A folder member larger than the bound on what is held in memory: COULD NOT
    LOOK `bounded` (the bound lowered here so a small pack is past it)."""
    from sealscope.core.checks import zipread

    out = _build(random.Random(10), tmp_path, 0)
    monkeypatch.setattr(zipread, "ENTRY_MAX_BYTES", 100)
    assert (out / "manifest.json").stat().st_size > 100
    got = pack.check(str(out), CheckContext()).to_dict()
    assert (got["verdict"], got["exit_code"]) == ("COULD NOT LOOK", 3)
    assert got["detail"] == {"reason_word": "bounded"}


def test_a_manifest_that_is_a_folder_is_unreadable_as_the_reference_says(tmp_path, quiet_tmp):
    """`manifest.json` a folder inside the pack: the reference cannot read it as text
    and says COULD NOT LOOK `unreadable` (check `manifest`), not `missing`."""
    out = _build(random.Random(11), tmp_path, 0)
    (out / "manifest.json").unlink()
    (out / "manifest.json").mkdir()
    got = _ours(out, quiet_tmp)
    want = ref_words(out)
    assert want[0] == "COULD NOT LOOK" and want[3] == "unreadable"
    assert words(got["detail"]) == want
    assert [c["check"] for c in got["detail"]["checks"]] == ["manifest"]
