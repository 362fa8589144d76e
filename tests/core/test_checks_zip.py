"""core.checks.zipread: zips read in place, never extracted; hostile zips refused
before anything is read (bomb, traversal, duplicates, a symlink member, a 4 GiB
declared size), with the reference's words; memory bounded; folders never followed
out of through a symlink."""

from __future__ import annotations

import hashlib
import json
import os
import struct
import tempfile
import tracemalloc
import zipfile
import zlib
from pathlib import Path

import pytest
from arcaeon.prove.evidence_pack_verify import verify_pack as ref_verify_pack
from sealscope.core.checks import pack, zipread
from sealscope.core.checks.result import CheckContext


def _raw_zip(entries: list[tuple[str, bytes, int, int, int]]) -> bytes:
    """A zip written by hand: (name, stored data, crc, declared size, method) each, so
    a declared size can say what the data does not."""
    local, central = bytearray(), bytearray()
    for name, data, crc, size, method in entries:
        n = name.encode()
        off = len(local)
        local += (
            struct.pack(
                "<IHHHHHIIIHH", 0x04034B50, 20, 0, method, 0, 0x21, crc, len(data), size, len(n), 0
            )
            + n
            + data
        )
        central += (
            struct.pack(
                "<IHHHHHHIIIHHHHHII",
                0x02014B50,
                20,
                20,
                0,
                method,
                0,
                0x21,
                crc,
                len(data),
                size,
                len(n),
                0,
                0,
                0,
                0,
                0,
                off,
            )
            + n
        )
    end = struct.pack(
        "<IHHHHIIH", 0x06054B50, 0, 0, len(entries), len(entries), len(central), len(local), 0
    )
    return bytes(local + central + end)


def _deflate(data: bytes) -> bytes:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    return c.compress(data) + c.flush()


@pytest.fixture
def quiet_tmp(tmp_path, monkeypatch):
    """A temporary-files folder that must stay empty: nothing is extracted."""
    t = tmp_path / "tmp"
    t.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(t))
    yield t
    assert list(t.iterdir()) == []


def _check(path: Path) -> dict:
    before = sorted(path.parent.iterdir())
    got = pack.check(str(path), CheckContext()).to_dict()
    assert sorted(path.parent.iterdir()) == before  # nothing written beside it
    return got


def test_a_bomb_is_bounded_and_nothing_is_read(tmp_path, quiet_tmp):
    """50 entries each declaring 100 MiB of zeros (5 GiB in all, 100 KiB stored):
    COULD NOT LOOK `bounded`, as the reference answers, with a small memory peak."""
    zeros = bytes(100 << 20)
    body, crc = _deflate(zeros), zlib.crc32(zeros)
    del zeros
    z = tmp_path / "bomb.zip"
    z.write_bytes(_raw_zip([(f"m{i}.bin", body, crc, 100 << 20, 8) for i in range(50)]))
    tracemalloc.start()
    got = _check(z)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert got["verdict"] == "COULD NOT LOOK" and got["exit_code"] == 3
    assert got["detail"]["reason_word"] == "bounded"
    assert [c["check"] for c in got["detail"]["checks"]] == ["pack zip"]
    assert peak < 4 << 20, peak
    assert ref_verify_pack(z)["reason_word"] == "bounded"


def test_a_member_past_sealscopes_own_bound_is_bounded(tmp_path, quiet_tmp):
    body = _deflate(b"")
    z = tmp_path / "big.zip"
    z.write_bytes(_raw_zip([("manifest.json", body, 0, zipread.ENTRY_MAX_BYTES + 1, 8)]))
    got = _check(z)
    assert got["detail"]["reason_word"] == "bounded"


def test_a_lying_declared_size_fails_its_crc_without_reading_past_it(tmp_path, quiet_tmp):
    """The data inflates to 64 MiB but declares 10 bytes: reading stops at 10 and the
    CRC fails: COULD NOT LOOK `unreadable`, memory small."""
    zeros = bytes(64 << 20)
    z = tmp_path / "liar.zip"
    z.write_bytes(_raw_zip([("manifest.json", _deflate(zeros), zlib.crc32(zeros), 10, 8)]))
    del zeros
    tracemalloc.start()
    got = _check(z)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert got["detail"]["reason_word"] == "unreadable" and peak < 4 << 20
    assert ref_verify_pack(z)["reason_word"] == "unreadable"


def test_two_sizes_declared_4_gib(tmp_path, quiet_tmp):
    z = tmp_path / "huge.zip"
    z.write_bytes(_raw_zip([("a", b"", 0, 4 * 1024**3 - 2, 0), ("b", b"", 0, 4 * 1024**3 - 2, 0)]))
    got = _check(z)
    assert got["verdict"] == "COULD NOT LOOK" and got["detail"]["reason_word"] == "bounded"
    assert ref_verify_pack(z)["reason_word"] == "bounded"


@pytest.mark.parametrize(
    "names",
    [
        ["manifest.json", "../evil.txt"],
        ["manifest.json", "/etc/evil"],
        ["sub/x.txt"],
        ["a\\b"],
        ["."],
        ["d/"],
        [""],
        ["manifest.json", "manifest.json"],
    ],
)
def test_names_that_are_not_plain_or_twice_are_broken_nothing_extracted(tmp_path, quiet_tmp, names):
    z = tmp_path / "bad.zip"
    z.write_bytes(_raw_zip([(n, b"{}", zlib.crc32(b"{}"), 2, 0) for n in names]))
    cwd = sorted(Path.cwd().iterdir())
    got = _check(z)
    assert sorted(Path.cwd().iterdir()) == cwd
    assert not Path("/etc/evil").exists() and not (tmp_path.parent / "evil.txt").exists()
    assert got["verdict"] == "BROKEN" and got["exit_code"] == 1
    assert got["detail"]["checks"] == [
        {"check": "pack zip", "verdict": "BROKEN", "finding": got["detail"]["checks"][0]["finding"]}
    ]
    ref = ref_verify_pack(z)
    assert (ref["verdict"], [c["check"] for c in ref["checks"]]) == ("BROKEN", ["pack zip"])


def test_a_symlink_member_is_its_bytes_never_a_link(tmp_path, quiet_tmp):
    z = tmp_path / "link.zip"
    with zipfile.ZipFile(z, "w") as zf:
        info = zipfile.ZipInfo("manifest.json")
        info.external_attr = 0o120777 << 16
        zf.writestr(info, "/etc/passwd")
    got = _check(z)
    # the member's bytes are the link text, not JSON: the manifest is unreadable
    assert got["detail"]["checks"][0]["check"] == "manifest"
    assert got["detail"]["reason_word"] == "unreadable"
    assert ref_verify_pack(z)["reason_word"] == "unreadable"


@pytest.mark.parametrize("damage", ["cut", "flip", "junk", "empty"])
def test_damaged_zips_could_not_look(tmp_path, quiet_tmp, damage):
    z = tmp_path / "p.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("manifest.json", "{}" * 500)
        zf.writestr("records.jsonl", "x" * 500)
    data = bytearray(z.read_bytes())
    if damage == "cut":
        data = data[: len(data) // 2]
    elif damage == "flip":
        data[60] ^= 1  # inside the first stored member
    elif damage == "junk":
        data = bytearray(b"PK\x03\x04" + b"\x00" * 40)
    else:
        data = bytearray(b"PK\x05\x06" + b"\x00" * 18)
    z.write_bytes(bytes(data))
    got = _check(z)
    ref = ref_verify_pack(z)
    assert got["verdict"] == ref["verdict"] == "COULD NOT LOOK"
    assert got["detail"]["reason_word"] == ref["reason_word"]
    assert [c["check"] for c in got["detail"]["checks"]] == [c["check"] for c in ref["checks"]]


def test_a_folder_link_out_of_the_folder_is_never_followed(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"secret")
    folder = tmp_path / "pack"
    folder.mkdir()
    (folder / "inner.txt").write_bytes(b"in")
    os.symlink(outside, folder / "leak.txt")
    os.symlink(folder / "inner.txt", folder / "alias.txt")
    m = zipread.FolderMembers(str(folder))
    assert m.names() == ["alias.txt", "inner.txt", "leak.txt"]  # all in the pack
    assert not m.is_file("leak.txt") and m.is_file("alias.txt")
    with pytest.raises(OSError):
        m.read("leak.txt")
    assert m.sha256("alias.txt") == hashlib.sha256(b"in").hexdigest()


def test_plain_names():
    assert zipread.is_plain("manifest.json")
    for bad in ("", ".", "..", "a/b", "/a", "a\\b", "d/", "../a"):
        assert not zipread.is_plain(bad), bad
    assert zipread.bad_names(["a", "b/c", "a"]) == (["b/c"], ["a"])


def _honest_pack_zip(tmp_path: Path, name: str = "p") -> Path:
    from arcaeon.prove.evidence_pack import build_pack
    from arcaeon.record.ledger import Ledger

    led = tmp_path / f"{name}.jsonl"
    L = Ledger(led)
    for i in range(3):
        L.append({"event": "decision", "agent": name, "n": i, "ts": f"2026-10-06T08:2{i}:00Z"})
    out = tmp_path / name
    build_pack(led, out, system_id="s", provider="p", zip_out=True, built_at="2026-10-07T00:00:00Z")
    return out.with_suffix(".zip")


@pytest.mark.parametrize("length", [256, 300])
def test_a_member_whose_name_cannot_be_extracted_could_not_look(tmp_path, quiet_tmp, length):
    """A listed entry with a name longer than a file name may be: the reference, which
    extracts, cannot write it and says COULD NOT LOOK `unreadable` (check `pack zip`);
    so does sealscope, which never extracts."""
    z = _honest_pack_zip(tmp_path)
    with zipfile.ZipFile(z) as zf:
        ents = [(i.filename, zf.read(i)) for i in zf.infolist()]
    long_name = "n" * (length - 4) + ".txt"
    manifest = json.loads(dict(ents)["manifest.json"])
    manifest["files"][long_name] = hashlib.sha256(b"x").hexdigest()
    m_bytes = json.dumps(manifest, indent=2).encode()
    ents = [(n, m_bytes if n == "manifest.json" else b) for n, b in ents]
    ents = [
        (n, f"{hashlib.sha256(m_bytes).hexdigest()}  manifest.json\n".encode())
        if n == "manifest.sha256"
        else (n, b)
        for n, b in ents
    ] + [(long_name, b"x")]
    with zipfile.ZipFile(z, "w") as zf:
        for n, b in ents:
            zf.writestr(n, b)
    ref = ref_verify_pack(z)
    got = _check(z)
    assert (ref["verdict"], ref["reason_word"]) == ("COULD NOT LOOK", "unreadable")
    assert (got["verdict"], got["exit_code"]) == ("COULD NOT LOOK", 3)
    assert got["detail"]["reason_word"] == ref["reason_word"]
    assert (
        got["detail"]["where"] == ref["where"] and got["detail"]["looked_for"] == ref["looked_for"]
    )
    assert [c["check"] for c in got["detail"]["checks"]] == [c["check"] for c in ref["checks"]]


def test_a_name_of_255_bytes_is_extracted_and_read(tmp_path, quiet_tmp):
    z = _honest_pack_zip(tmp_path)
    with zipfile.ZipFile(z, "a") as zf:
        zf.writestr("n" * 251 + ".txt", b"x")
    ref = ref_verify_pack(z)
    got = _check(z)
    assert got["verdict"] == ref["verdict"] == "BROKEN"  # an unlisted member, read


def test_the_zip_digest_is_of_the_bytes_checked_not_of_a_zip_renamed_over_it(
    tmp_path, quiet_tmp, monkeypatch
):
    """The zip is renamed over by another while its entries are being checked: the
    digest in `detail.zip` is of the bytes the check read, from the one open file."""
    z = _honest_pack_zip(tmp_path, "a")
    other = _honest_pack_zip(tmp_path, "b")
    want = hashlib.sha256(z.read_bytes()).hexdigest()
    assert hashlib.sha256(other.read_bytes()).hexdigest() != want
    real = pack.verify_members

    def swapped(m):
        os.replace(other, z)  # mid-run: the path now names other bytes
        return real(m)

    monkeypatch.setattr(pack, "verify_members", swapped)
    got = pack.check(str(z), CheckContext()).to_dict()
    assert got["detail"]["zip"]["sha256"] == want
