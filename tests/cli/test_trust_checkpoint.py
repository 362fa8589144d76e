"""Issue 32: a checkpoint never lands on evidence, and loading one can neither hang,
blow up memory nor crash (H3 and the checkpoint-loading finding)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from sealscope.core import checkpoint as C
from sealscope.core import ledger as L


def run(*argv: str, cache: Path, timeout: float = 120) -> subprocess.CompletedProcess:
    env = dict(os.environ, XDG_CACHE_HOME=str(cache), NO_COLOR="1")
    return subprocess.run(
        [sys.executable, "-m", "sealscope", *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        stdin=subprocess.DEVNULL,
        env=env,
        check=False,
    )


def _ledger(p: Path, n: int = 5) -> Path:
    for i in range(n):
        L.append(p, {"i": i, "ts": "t"})
    return p


def _digest(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


@pytest.mark.parametrize("how", ["same", "symlink", "hardlink", "relative"])
def test_a_checkpoint_path_that_is_the_evidence_is_refused(tmp_path, how):
    led = _ledger(tmp_path / "ledger.jsonl")
    before = _digest(led)
    target = {
        "same": led,
        "symlink": tmp_path / "cp-link.json",
        "hardlink": tmp_path / "cp-hard.json",
        "relative": Path(os.path.relpath(led)),
    }[how]
    if how == "symlink":
        target.symlink_to(led)
    elif how == "hardlink":
        os.link(led, target)
    r = run("verify", str(led), "--incremental", "--checkpoint", str(target), cache=tmp_path)
    assert r.returncode == 2, r.stderr
    assert "refusing --checkpoint" in r.stderr and "Traceback" not in r.stderr
    assert _digest(led) == before and os.stat(led).st_size > 0
    assert L.verify(led).verdict == "VERIFIED"


def test_a_file_that_is_not_a_checkpoint_is_never_replaced(tmp_path):
    led = _ledger(tmp_path / "ledger.jsonl")
    other = tmp_path / "notes.json"
    other.write_bytes(b'{"mine": "keep me"}\n')
    r = run("verify", str(led), "--incremental", "--checkpoint", str(other), cache=tmp_path)
    assert r.returncode == 0, r.stderr
    assert other.read_bytes() == b'{"mine": "keep me"}\n'
    assert "is kept: it is not a sealscope checkpoint" in r.stdout
    # a sealscope checkpoint there is replaced as before
    good = tmp_path / "cp.json"
    run("verify", str(led), "--incremental", "--checkpoint", str(good), cache=tmp_path)
    assert json.loads(good.read_bytes())["format"] == C.FORMAT


def test_core_never_writes_a_checkpoint_over_the_ledger(tmp_path):
    led = _ledger(tmp_path / "ledger.jsonl")
    before = led.read_bytes()
    inc = C.verify_incremental(led, checkpoint=led)
    assert inc.result.verdict == "VERIFIED" and not inc.saved
    assert led.read_bytes() == before
    link = tmp_path / "l.json"
    link.symlink_to(led)
    assert not C.verify_incremental(led, checkpoint=link).saved
    assert led.read_bytes() == before


def _returns(fn, timeout: float = 30.0):
    """(came back, value) for fn() run on a thread; a hang is (False, None)."""
    box: dict = {}
    t = threading.Thread(target=lambda: box.setdefault("v", fn()), daemon=True)
    t.start()
    t.join(timeout)  # a bound on a hang, not a wait for something to happen
    return not t.is_alive(), box.get("v")


def test_a_fifo_checkpoint_does_not_hang(tmp_path):
    led = _ledger(tmp_path / "ledger.jsonl")
    fifo = tmp_path / "cp.fifo"
    os.mkfifo(fifo)
    came_back, inc = _returns(lambda: C.verify_incremental(led, checkpoint=fifo))
    if not came_back:  # unblock the reader so the test process can end
        with open(fifo, "wb"):
            pass
    assert came_back, "loading a FIFO checkpoint hung"
    assert inc.result.verdict == "VERIFIED" and not inc.saved
    assert any("not a regular file" in n for n in inc.notes)
    assert fifo.exists() and not fifo.is_file()


def test_a_symlink_to_dev_zero_is_refused_at_once(tmp_path):
    led = _ledger(tmp_path / "ledger.jsonl")
    cp = tmp_path / "cp.json"
    cp.symlink_to("/dev/zero")
    came_back, inc = _returns(lambda: C.verify_incremental(led, checkpoint=cp))
    assert came_back
    assert inc.result.verdict == "VERIFIED"
    assert any("not a regular file" in n for n in inc.notes), inc.notes
    assert os.path.islink(cp) and os.readlink(cp) == "/dev/zero"  # not replaced


def test_a_huge_checkpoint_is_not_read_whole(tmp_path):
    led = _ledger(tmp_path / "ledger.jsonl")
    cp = tmp_path / "cp.json"
    with open(cp, "wb") as fh:
        fh.truncate(C.MAX_BYTES + 10)  # sparse: costs no disk
    inc = C.verify_incremental(led, checkpoint=cp)
    assert inc.result.verdict == "VERIFIED"
    assert any(f"larger than {C.MAX_BYTES >> 20} MiB" in n for n in inc.notes), inc.notes


def test_a_deeply_nested_checkpoint_is_a_note_not_a_traceback(tmp_path):
    led = _ledger(tmp_path / "ledger.jsonl")
    cp = tmp_path / "cp.json"
    cp.write_bytes(b"[" * 200_000 + b"]" * 200_000)
    r = run("verify", str(led), "--incremental", "--checkpoint", str(cp), cache=tmp_path)
    assert r.returncode == 0 and "Traceback" not in r.stderr, r.stderr
    assert "ignored: unreadable (not JSON" in r.stdout


@pytest.mark.parametrize(
    "field,value,words",
    [
        ("breaks", 7, "break counts and findings disagree"),
        ("rows", 10_000, "more rows or lines than bytes"),
        ("chained", 99, "row counts disagree"),
        (
            "findings",
            [[9999, "break", "line 9999: chain mismatch"]],
            "break counts and findings disagree",
        ),
    ],
)
def test_an_inconsistent_walk_state_is_ignored(tmp_path, field, value, words):
    led = _ledger(tmp_path / "ledger.jsonl")
    cp = tmp_path / "cp.json"
    C.verify_incremental(led, checkpoint=cp)
    doc = json.loads(cp.read_bytes())
    doc["state"][field] = value
    cp.write_text(json.dumps(doc))
    inc = C.verify_incremental(led, checkpoint=cp)
    assert inc.resumed is None and inc.result == L.verify(led)
    assert any(words in n for n in inc.notes), inc.notes


def test_a_checkpoint_owned_by_another_user_is_ignored(tmp_path, monkeypatch):
    led = _ledger(tmp_path / "ledger.jsonl")
    cp = tmp_path / "cp.json"
    C.verify_incremental(led, checkpoint=cp)
    me = os.geteuid()
    monkeypatch.setattr(os, "geteuid", lambda: me + 1)  # as if another user ran it
    inc = C.verify_incremental(led, checkpoint=cp)
    assert inc.resumed is None
    assert any("owned by another user" in n for n in inc.notes), inc.notes


def test_a_checkpoint_in_a_world_writable_folder_of_another_user_is_ignored(tmp_path):
    led = _ledger(tmp_path / "ledger.jsonl")
    if os.geteuid() == 0:  # make one: a folder for everyone, owned by `nobody`
        shared = tmp_path / "shared"
        shared.mkdir()
        os.chmod(shared, 0o1777)
        os.chown(shared, 65534, -1)
    else:
        shared = Path("/tmp")  # world-writable, owned by root
        st = os.stat(shared)
        if not (st.st_mode & 0o002) or st.st_uid == os.geteuid():
            pytest.skip("no world-writable folder owned by another user here")
    cp = shared / f"sealscope-trust-{os.getpid()}.json"
    try:
        C.verify_incremental(led, checkpoint=cp)
        assert cp.exists()
        inc = C.verify_incremental(led, checkpoint=cp)
        assert inc.resumed is None
        assert any("world-writable and owned by another user" in n for n in inc.notes)
    finally:
        cp.unlink(missing_ok=True)
