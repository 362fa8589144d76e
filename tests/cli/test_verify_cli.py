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


def run(*argv: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "sealscope", *argv], capture_output=True,
                          text=True, cwd=cwd, timeout=120, stdin=subprocess.DEVNULL, check=False)


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
    verdict, code = {False: ("BROKEN", 1), None: ("COULD NOT LOOK", 3),
                     True: ("VERIFIED", 0)}[ref.ok]
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
    real_open = open

    def deny(path, *a, **k):
        if str(path) == str(p):
            raise PermissionError(13, "Permission denied", str(p))
        return real_open(path, *a, **k)

    monkeypatch.setattr(L, "open", deny, raising=False)
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
    assert doc["pin"]["detail"] == ("log has 3 rows but the witness recorded 5: 2 witnessed "
                                    "row(s) are missing (truncation)")


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
            submitted.append((args[0], future))
            return future

    monkeypatch.setattr(concurrent.futures, "ProcessPoolExecutor", Counting)
    side_by_side = cmd_verify.judge_all(paths, False, None, None, None, False)
    assert sorted(p for p, _f in submitted) == sorted(paths[:5])  # the missing one: here
    assert all(f.exception() is None for _p, f in submitted)     # results came from workers
    assert side_by_side == one_by_one
    assert [r[1] for r in side_by_side] == [0, 0, 1, 0, 0, 3]
