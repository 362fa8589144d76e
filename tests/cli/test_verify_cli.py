"""The verify verb: conformance corpus, exit codes, multi-file runs, and no traceback
for any hostile input."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from arcaeon.record import ledger as ref_ledger
from sealscope.core import ledger as L
from sealscope.core import pins

from tests.conftest import assert_conformance

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


def run(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sealscope", *argv],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=120,
        stdin=subprocess.DEVNULL,
        check=False,
    )


@pytest.mark.parametrize("family", ["verify/", "verify/pin", "verify/witness"])
def test_conformance(corpus, family):
    assert_conformance(family)


def _honest(p: Path, n: int = 3) -> Path:
    for i in range(n):
        L.append(p, {"i": i, "ts": "2026-01-01T00:00:00Z"})
    return p


HOSTILE = {
    "deep.jsonl": b"[" * 100_000 + b"]" * 100_000 + b"\n",
    "big-row.jsonl": b'{"x": "' + b"y" * 5_000_000 + b'"}\n',
    "bad-utf8.jsonl": b'{"a": "\xff"}\n\xc3\x28\n',
    "nan.jsonl": b'{"a": NaN, "b": -Infinity}\n',
    "surrogate.jsonl": b'{"a": "\\udc00"}\n',
    "garbage.bin": bytes(range(256)) * 100,
}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_gives_a_verdict_not_a_traceback(tmp_path, name):
    p = tmp_path / name
    p.write_bytes(HOSTILE[name])
    res = run("verify", str(p), "--json")
    assert "Traceback" not in res.stderr
    doc = json.loads(res.stdout)
    ref = ref_ledger.verify_file(p)
    verdict, code = {False: ("BROKEN", 1), None: ("COULD NOT LOOK", 3), True: ("VERIFIED", 0)}[
        ref.ok
    ]
    assert (doc["verdict"], res.returncode) == (verdict, code)
    assert doc["first_break"] == ref.first_break and doc["breaks"] == ref.breaks
    human = run("verify", str(p))
    assert "Traceback" not in human.stderr and human.returncode == code
    assert verdict in human.stdout


def test_directory_and_missing_file_could_not_look(tmp_path):
    for target in (tmp_path, tmp_path / "nope.jsonl"):
        res = run("verify", str(target), "--json")
        doc = json.loads(res.stdout)
        assert res.returncode == 3 and doc["verdict"] == "COULD NOT LOOK"
        assert doc["first_break"].startswith("unreadable: [Errno ")
        assert "Traceback" not in res.stderr


def test_unreadable_file(tmp_path, monkeypatch, capsys):
    p = _honest(tmp_path / "locked.jsonl")
    if os.geteuid() != 0:
        p.chmod(0)
        res = run("verify", str(p), "--json")
        assert res.returncode == 3 and "Permission denied" in json.loads(res.stdout)["first_break"]
        return
    # root reads anything: make the open fail the way a permission error does
    from sealscope.core import lines

    real_fd = lines.regular_fd

    def deny(path):
        if str(path) == str(p):
            raise PermissionError(13, "Permission denied", str(p))
        return real_fd(path)

    monkeypatch.setattr(lines, "regular_fd", deny)
    from sealscope.main import main

    assert main(["verify", str(p), "--json"]) == 3
    doc = json.loads(capsys.readouterr().out)
    assert doc["first_break"] == f"unreadable: [Errno 13] Permission denied: '{p}'"
    assert doc["verdict"] == "COULD NOT LOOK"


def test_several_files_exit_with_the_worst(tmp_path):
    good = _honest(tmp_path / "good.jsonl")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    bad = _honest(tmp_path / "bad.jsonl")
    bad.write_bytes(bad.read_bytes().replace(b'"i": 1', b'"i": 9'))
    res = run("verify", str(good), str(empty), "--json")
    assert res.returncode == 3
    docs = json.loads(res.stdout)
    assert [d["verdict"] for d in docs] == ["VERIFIED", "COULD NOT LOOK"]
    assert [d["path"] for d in docs] == [str(good), str(empty)]
    res = run("verify", str(good), str(empty), str(bad))
    assert res.returncode == 1
    assert "3 ledgers: 1 verified, 1 broken, 1 could not look" in res.stdout
    assert "line 2: chain mismatch" in res.stdout


def test_pin_round_trip_and_truncation(tmp_path):
    p = _honest(tmp_path / "l.jsonl", 5)
    pin = pins.head(p).as_pin()
    assert run("verify", str(p), "--pin", pin).returncode == 0
    p.write_bytes(b"".join(p.read_bytes().splitlines(keepends=True)[:3]))
    res = run("verify", str(p), "--pin", pin, "--json")
    assert res.returncode == 1
    doc = json.loads(res.stdout)
    assert doc["pin"]["verdict"] == "truncated" and doc["verdict"] == "BROKEN"
    assert doc["pin"]["detail"] == (
        "log has 3 rows but the witness recorded 5: 2 witnessed row(s) are missing (truncation)"
    )


def test_usage_errors_exit_2(tmp_path):
    p = _honest(tmp_path / "l.jsonl")
    assert run("verify", str(p), "--pin", "not a pin").returncode == 2
    assert run("verify", str(p), "--witness", "store.jsonl").returncode == 2
    assert run("verify").returncode == 2
    assert run("verify", str(p), "--bogus").returncode == 2


def test_hostile_row_text_is_escaped_in_the_human_report(tmp_path):
    p = tmp_path / "evil\x1b[31m.jsonl"
    p.write_bytes(b"{oops\n")
    res = run("verify", str(p))
    assert "\x1b[31m" not in res.stdout and "\\x1b[31m" in res.stdout


def test_many_ledgers_side_by_side_equal_one_at_a_time(tmp_path, monkeypatch):
    """Several small ledgers verified in worker processes give the same documents, in
    the given order, as verifying them one at a time."""
    from sealscope import cmd_verify

    paths = []
    for i in range(5):
        p = _honest(tmp_path / f"l{i}.jsonl", 3 + i)
        paths.append(str(p))
    bad = Path(paths[2])
    bad.write_bytes(bad.read_bytes().replace(b'"i": 1', b'"i": 7'))
    paths.append(str(tmp_path / "missing.jsonl"))
    one_by_one = [cmd_verify.judge(p) for p in paths]
    monkeypatch.setattr(cmd_verify, "MANY_MIN_BYTES", 0)
    import concurrent.futures

    submitted = []

    class Counting(concurrent.futures.ProcessPoolExecutor):
        def submit(self, fn, *args, **kw):
            future = super().submit(fn, *args, **kw)
            submitted.extend((item.split("\0", 1)[1], future) for item in args[0])
            return future

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Counting)
    side_by_side = cmd_verify.judge_all(paths, False, None, None, None, False)
    assert sorted(p for p, _f in submitted) == sorted(paths)  # one file a task
    assert all(f.exception() is None for _p, f in submitted)  # results came from workers
    assert side_by_side == one_by_one
    assert [r[1] for r in side_by_side] == [0, 0, 1, 0, 0, 3]


def test_a_fifo_or_a_device_is_refused_in_one_line_without_waiting(tmp_path):
    """No writer ever comes to the FIFO and /dev/zero never ends: both are refused
    before they are read (a blocking open or read would run into the timeout)."""
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    for target in (str(fifo), "/dev/zero"):
        res = run("verify", target)
        assert (res.returncode, res.stderr) == (3, "")
        assert res.stdout == (
            f"COULD NOT LOOK  {target}  unreadable: not a regular file: '{target}'\n"
        )
        doc = json.loads(run("verify", target, "--json").stdout)
        assert (doc["verdict"], doc["first_break"]) == (
            "COULD NOT LOOK",
            f"unreadable: not a regular file: '{target}'",
        )
    held = str(SAMPLES / "held" / "session-pre.jsonl")
    for argv in (["receipts", str(fifo)], ["lookup", str(fifo), held]):
        res = run(*argv)
        assert (res.returncode, res.stdout) == (3, "")
        assert res.stderr == f"sealscope: {argv[0]}: cannot read {fifo}: not a regular file\n"
    res = run("lookup", str(SAMPLES / "session.jsonl"), str(fifo))  # held content too
    assert (res.returncode, res.stdout) == (3, "")
    assert res.stderr == f"sealscope: lookup: cannot read {fifo}: not a regular file\n"


def test_could_not_look_says_why_in_its_line(tmp_path):
    """The reason is `VerifyResult.reason()`, the words the viewer's banner shows."""
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    prechain = tmp_path / "prechain.jsonl"
    prechain.write_text('{"a": 1}\n{"a": 2}\n')
    declared = SAMPLES / "declared-break.jsonl"
    res = run("verify", str(declared), str(empty), str(prechain), str(tmp_path / "none"))
    assert res.returncode == 3
    assert res.stdout.splitlines() == [
        (
            f"COULD NOT LOOK  {declared}  declared break at line 3 · rows=6 chained=5 "
            "prechain=0 breaks=0 scope=bounded_declared_break declared=1"
        ),
        (f"COULD NOT LOOK  {empty}  empty file · rows=0 chained=0 prechain=0 breaks=0 scope=empty"),
        (
            f"COULD NOT LOOK  {prechain}  no chained rows (2 rows without a chain) · rows=2 "
            "chained=0 prechain=2 breaks=0 scope=bounded_prechain_skipped"
        ),
        (
            f"COULD NOT LOOK  {tmp_path / 'none'}  unreadable: [Errno 2] No such file or "
            f"directory: '{tmp_path / 'none'}'"
        ),
        "4 ledgers: 0 verified, 0 broken, 4 could not look",
    ]
    assert [L.verify(p).reason() for p in (declared, empty, prechain)] == [
        "declared break at line 3",
        "empty file",
        "no chained rows (2 rows without a chain)",
    ]
