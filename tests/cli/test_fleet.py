"""`sealscope fleet`: a generated tree of ledgers audited locally, on a Dask
LocalCluster, and from a real S3-compatible server (moto) on 127.0.0.1."""

from __future__ import annotations

import functools
import json
import os
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
from sealscope.core import ledger
from sealscope.core.fleet import FleetEntry, plan_batches, worst_first

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
EXE = Path(sys.executable).parent / "sealscope"


def run(*argv: str, env: dict | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    return subprocess.run(
        [*cmd, *argv],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _receipt_row() -> dict:
    for line in (SAMPLES / "session.jsonl").read_text().splitlines():
        row = json.loads(line)
        if row.get("kind") == "compaction_receipt" and row.get("schema_version") != 1:
            row.pop("chain", None)
            return row
    raise AssertionError("the session sample has a receipt row")


def make_tree(root: Path) -> dict[str, str]:
    """The fleet: name → expected verdict. Every file's chain is written by our core."""
    (root / "team-a" / "deep").mkdir(parents=True)
    (root / "team-b").mkdir()
    honest = root / "team-a" / "honest.jsonl"
    for i in range(5):
        ledger.append(honest, {"op": "step", "i": i, "ts": f"2026-03-01T09:00:0{i}Z"})
    tampered = root / "team-a" / "deep" / "tampered.jsonl"
    shutil.copy(honest, tampered)
    lines = tampered.read_bytes().split(b"\n")
    lines[2] = lines[2].replace(b'"i": 2', b'"i": 7')
    tampered.write_bytes(b"\n".join(lines))
    cut = root / "team-b" / "cut.jsonl"
    data = honest.read_bytes()
    cut.write_bytes(data[: len(data) - 20])  # the last row cut mid-line
    shutil.copy(SAMPLES / "declared-break.jsonl", root / "team-b" / "bounded.jsonl")
    liar = root / "team-b" / "liar-receipt.jsonl"
    ledger.append(liar, {"op": "start", "ts": "2026-03-01T09:00:00Z"})
    bad = _receipt_row()
    bad["receipt_digest"] = "json-c14n-v1:sha256:" + "0" * 64
    ledger.append(liar, bad)
    shutil.copy(SAMPLES / "session.jsonl", root / "team-b" / "session.jsonl")
    os.symlink(root / "gone.jsonl", root / "team-b" / "dangling.jsonl")
    (root / "team-b" / "notes.txt").write_text("not a ledger\n")
    return {
        "team-a/honest.jsonl": "VERIFIED",
        "team-a/deep/tampered.jsonl": "BROKEN",
        "team-b/cut.jsonl": "BROKEN",
        "team-b/bounded.jsonl": "COULD NOT LOOK",
        "team-b/liar-receipt.jsonl": "BROKEN",
        "team-b/session.jsonl": "VERIFIED",
        "team-b/dangling.jsonl": "COULD NOT LOOK",
    }


@pytest.fixture
def tree(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    root = tmp_path / "fleet"
    root.mkdir()
    return root, make_tree(root)


def _lines(p: subprocess.CompletedProcess) -> tuple[dict[str, dict], dict]:
    docs = [json.loads(line) for line in p.stdout.splitlines()]
    assert "summary" in docs[-1] and all("summary" not in d for d in docs[:-1]), p.stdout
    return {d["path"]: d for d in docs[:-1]}, docs[-1]["summary"]


def _by_name(entries: dict[str, dict], prefix: str) -> dict[str, dict]:
    return {path[len(prefix) :].lstrip("/"): d for path, d in entries.items()}


def check_tree(entries: dict[str, dict], expected: dict[str, str], root: Path) -> None:
    assert set(entries) == set(expected)
    for name, word in expected.items():
        assert entries[name]["verdict"] == word, (name, entries[name])
    t = entries["team-a/deep/tampered.jsonl"]
    assert (t["first_break"], t["breaks"], t["rows"]) == ("line 3: chain mismatch", 1, 5)
    assert entries["team-b/cut.jsonl"]["first_break"] == "line 5: unparseable"
    assert entries["team-b/bounded.jsonl"]["verified_scope"] == "bounded_declared_break"
    liar = entries["team-b/liar-receipt.jsonl"]
    assert liar["receipts"] == {"count": 1, "failed": 1, "bounded": 0, "first_failed_line": 2}
    assert liar["exit_code"] == 1
    assert entries["team-b/session.jsonl"]["receipts"]["count"] == 2
    assert entries["team-b/session.jsonl"]["receipts"]["failed"] == 0
    gone = entries["team-b/dangling.jsonl"]
    assert gone["first_break"].startswith("unreadable: ") and gone["exit_code"] == 3


def test_local_fleet_lines_and_worst_exit(tree):
    root, expected = tree
    p = run("fleet", str(root), "--json")
    assert p.returncode == 1, p.stderr
    entries, summary = _lines(p)
    entries = _by_name(entries, str(root))
    # the lock files beside the ledgers and a note are listed, with why, not judged
    left = sorted(k for k, e in entries.items() if e.get("not_evidence"))
    assert left == [
        "team-a/honest.jsonl.lock",
        "team-b/liar-receipt.jsonl.lock",
        "team-b/notes.txt",
    ]
    assert all(entries[k]["reason"] for k in left)
    check_tree({k: e for k, e in entries.items() if k not in left}, expected, root)
    assert summary["ledgers"] == 7 and summary["not_evidence"] == 3
    assert summary["verdicts"] == {"VERIFIED": 2, "BROKEN": 3, "COULD NOT LOOK": 2}
    assert summary["exit_code"] == 1 and summary["receipts_failed"] == 1
    # every entry carries exactly `verify --json`'s verdict fields for its file
    for name in ("team-a/deep/tampered.jsonl", "team-b/bounded.jsonl", "team-b/session.jsonl"):
        v = json.loads(run("verify", str(root / name), "--json").stdout)
        assert {k: entries[name][k] for k in v} == v


def test_human_report_is_sorted_worst_first(tree):
    root, _ = tree
    p = run("fleet", str(root))
    assert p.returncode == 1
    judged = p.stdout.split("\nnot evidence (")[0]  # the listed paths follow the judged ones
    heads = [ln.split()[:2] for ln in judged.splitlines() if not ln.startswith(" ")]
    # exit code 1 first (two broken chains, a chain that holds but a receipt that fails:
    # BROKEN, as `export` judges that ledger), then could not look, then verified
    assert [h[0] for h in heads] == [
        "BROKEN",
        "BROKEN",
        "BROKEN",
        "COULD",
        "COULD",
        "VERIFIED",
        "VERIFIED",
    ], p.stdout
    assert heads[2][1].endswith("liar-receipt.jsonl")
    assert "  first failed receipt: line 2" in p.stdout
    # a VERIFIED within a bound states its scope beside the word (issue 28)
    assert "  receipts: 2 receipts self-consistent, content not checked" in p.stdout
    assert p.stdout.splitlines()[-1].startswith("7 ledgers: 2 verified, 3 broken, 2 could not")


def test_glob_and_file_sources(tree):
    root, _ = tree
    p = run(
        "fleet", str(root / "team-a" / "honest.jsonl"), str(root), "--glob", "t*.jsonl", "--json"
    )
    entries, summary = _lines(p)
    assert sorted(Path(k).name for k in entries) == ["honest.jsonl", "tampered.jsonl"]
    assert summary["exit_code"] == p.returncode == 1


# an install without the fleet extra: importing any of them fails, as it would there
WITHOUT_EXTRAS = (
    "import sys\n"
    "for m in ('dask', 'distributed', 'dask.distributed', 'fsspec', 's3fs'):\n"
    "    sys.modules[m] = None\n"
    "from sealscope.main import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


def run_without_extras(*argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-c", WITHOUT_EXTRAS, *argv],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def test_fleet_on_the_samples_without_extras():
    p = run_without_extras("fleet", str(SAMPLES), "--json")
    entries, summary = _lines(p)
    tampered = entries[str(SAMPLES / "tampered.jsonl")]
    assert tampered["verdict"] == "BROKEN" and tampered["first_break"] == "line 4: chain mismatch"
    assert p.returncode == 1 and summary["ledgers"] == 26
    assert len(entries) == summary["ledgers"] + summary["units"] + summary["not_evidence"]
    assert _lines(run("fleet", str(SAMPLES), "--json"))[0] == entries  # as with the extras
    p = run_without_extras("fleet", str(SAMPLES), "--scheduler", "local:2")
    assert (p.returncode, p.stdout, p.stderr) == (
        2,
        "",
        ('sealscope: fleet: --scheduler needs dask.distributed: pip install "sealscope[fleet]"\n'),
    )
    p = run_without_extras("fleet", "s3://bucket/prefix/")
    assert (p.returncode, p.stderr) == (
        2,
        'sealscope: fleet: reading URLs needs fsspec: pip install "sealscope[fleet]"\n',
    )


def test_hostile_text_cannot_break_a_json_line(tmp_path):
    name = tmp_path / "evil\u2028\r\x1b[31m.jsonl"
    name.write_bytes(b'{"x": 1}\n')
    p = run("fleet", str(tmp_path), "--json")
    assert len(p.stdout.split("\n")) == 3 and p.stdout.isascii()
    entries, _ = _lines(p)
    assert list(entries) == [str(name)]


def test_batches_keep_small_files_together_and_large_alone():
    sized = [(f"f{i}", 1000) for i in range(130)] + [("big", 100 << 20), ("unknown", None)]
    plan = plan_batches(sized, batch_files=64)
    assert plan.large == ["big"]
    assert [len(b) for b in plan.batches] == [64, 64, 3]
    assert plan.small_bytes == 130_000 and plan.sizes["unknown"] is None


def test_worst_first_orders_by_code_then_breaks():
    def entry(path: str, ok: bool | None, breaks: int) -> FleetEntry:
        return FleetEntry.from_dict(
            {
                "path": path,
                "ok": ok,
                "rows": 1,
                "chained": 1,
                "prechain": 0,
                "first_break": None,
                "breaks": breaks,
                "verified_scope": "full",
                "declared_breaks": 0,
                "declared": [],
                "receipts": {"count": 0, "failed": 0, "bounded": 0},
            }
        )

    got = worst_first(
        [entry("a", True, 0), entry("b", None, 0), entry("c", False, 1), entry("d", False, 4)]
    )
    assert [e.path for e in got] == ["d", "c", "b", "a"]


# --------------------------------------------------------------------------- Dask


def test_dask_local_cluster_equals_local(tree):
    root, _expected = tree
    local, _ = _lines(run("fleet", str(root), "--json"))
    p = run("fleet", str(root), "--scheduler", "local:2", "--json")
    assert p.returncode == 1, p.stderr
    dask_entries, summary = _lines(p)
    assert dask_entries == local
    assert summary["ledgers"] == 7


def test_a_batch_crosses_the_cluster_as_one_blob_and_comes_back_whole(tmp_path):
    """A Dask task returns its batch's entries as one bytes frame (`packed`) from a
    worker process on 127.0.0.1; what the executor yields is the task's own list, a
    file name that is not UTF-8 (a lone surrogate in Python) included, equal to the
    entries audited here."""
    import distributed
    from sealscope import fleet_engine

    root = tmp_path / "fleet"
    root.mkdir()
    make_tree(root)
    odd = os.fsencode(str(root)) + b"/bad-\xff-name.jsonl"
    with open(odd, "wb") as f:
        f.write((root / "team-a" / "honest.jsonl").read_bytes())
    items = sorted(str(p) for p in root.rglob("*.jsonl")) + [os.fsdecode(odd)]
    batches = [items[:3], items[3:]]
    task = functools.partial(fleet_engine.audit_items, options={})
    assert isinstance(fleet_engine.packed(task, batches[0]), bytes)
    with (
        distributed.LocalCluster(
            n_workers=1,
            threads_per_worker=1,
            processes=True,
            host="127.0.0.1",
            dashboard_address=None,
        ) as cluster,
        distributed.Client(cluster) as client,
    ):
        got = dict(fleet_engine.DaskExecutor(client).map_batches(task, batches))
    assert [got[0], got[1]] == [task(b) for b in batches]
    assert got[1][-1]["path"] == os.fsdecode(odd) and got[1][-1]["verdict"] == "VERIFIED"


def test_an_unreachable_scheduler_is_one_line_and_exit_3():
    with socket.socket() as s:  # a port nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "2s"}
    p = run("fleet", str(SAMPLES), "--scheduler", f"tcp://127.0.0.1:{port}", env=env)
    assert p.returncode == 3, p.stderr
    assert "Traceback" not in p.stderr
    assert p.stderr.startswith(
        f"sealscope: fleet: --scheduler tcp://127.0.0.1:{port}: the cluster could not be reached: "
    )
    assert len(p.stderr.strip().splitlines()) == 1


def test_the_cluster_started_while_the_sources_are_listed_is_the_one_the_run_takes():
    from sealscope import fleet_engine as engine

    engine.prepare_dask("local:1")
    (started,) = engine._prepared
    got: list[FleetEntry] = []
    sized, _failed = engine.gather([str(SAMPLES)], "*.jsonl", {})
    engine.run_dask(sized, {}, False, got.append, "local:1")
    assert engine._prepared == [] and started.client is not None
    assert started.client.status == "closed" and started.cluster.status.name == "closed"
    local: list[FleetEntry] = []
    engine.run_pool(sized, {}, False, local.append)

    def wire(entries: list[FleetEntry]) -> list[str]:
        return sorted(json.dumps(e.to_dict(), sort_keys=True) for e in entries)

    assert len(got) == len(sized) and wire(got) == wire(local)


PREPARE = (
    "import json, sys, psutil\n"
    "from sealscope import fleet_engine\n"
    "fleet_engine.prepare_dask(sys.argv[1])\n"  # returns once the server has exec'd
    "print(json.dumps([' '.join(c.cmdline()) for c in psutil.Process().children()]))\n"
)


def test_prepare_dask_starts_the_fork_server_loading_the_audit_code():
    from sealscope.fleet_engine import local_cluster_config

    if local_cluster_config()["distributed.worker.multiprocessing-method"] != "forkserver":
        pytest.skip("workers start without a fork server on this platform")

    def children(scheduler: str) -> list[str]:
        p = subprocess.run(
            [sys.executable, "-c", PREPARE, scheduler],
            capture_output=True,
            text=True,
            timeout=120,
            check=True,
        )
        return json.loads(p.stdout)

    servers = [c for c in children("local:2") if "multiprocessing.forkserver" in c]
    assert len(servers) == 1
    assert "'distributed', 'sealscope.fleet_engine'" in servers[0]
    assert children("tcp://127.0.0.1:8786") == []  # a cluster's workers are not ours


WORKER_ENV = (
    "import json, os, dask, dask.distributed as dd\n"
    "from sealscope.fleet_engine import local_cluster_config\n"
    "if __name__ == '__main__':\n"
    "    got = []\n"
    "    for cfg in (local_cluster_config(), {}):  # ours first: Dask's leaks into os.environ\n"
    "        with dask.config.set(cfg):\n"
    "            with dd.LocalCluster(n_workers=1, threads_per_worker=1, processes=True,\n"
    "                                 host='127.0.0.1', dashboard_address=None) as c:\n"
    "                with dd.Client(c) as client:\n"
    "                    env = client.run(lambda: dict(os.environ))\n"
    "                    got.append(next(iter(env.values())))\n"
    "    print(json.dumps([{k: e.get(k) for k in ('MALLOC_TRIM_THRESHOLD_', 'OMP_NUM_THREADS')}\n"
    "                      for e in got]))\n"
)


def test_local_workers_get_dasks_environment_but_the_malloc_trim_threshold(tmp_path):
    """The workers `local:N` starts: Dask's own would fix glibc's mmap threshold (every
    file read whole mapped afresh); ours keep the rest of Dask's environment."""
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_TRIM_THRESHOLD_"}
    p = subprocess.run(
        [sys.executable, "-c", WORKER_ENV],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
        env=env,
    )
    assert p.returncode == 0, p.stderr
    ours, dasks = json.loads(p.stdout.strip().splitlines()[-1])
    assert dasks == {"MALLOC_TRIM_THRESHOLD_": "65536", "OMP_NUM_THREADS": "1"}
    assert ours == {"MALLOC_TRIM_THRESHOLD_": None, "OMP_NUM_THREADS": "1"}


def test_scheduler_address_is_used(tree):
    import dask.distributed as distributed

    root, _ = tree
    cluster = distributed.LocalCluster(
        n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    )
    try:
        p = run("fleet", str(root / "team-a"), "--scheduler", cluster.scheduler_address, "--json")
        _entries, summary = _lines(p)
        assert summary["verdicts"] == {"VERIFIED": 1, "BROKEN": 1, "COULD NOT LOOK": 0}
    finally:
        cluster.close()


# --------------------------------------------------------------------------- S3


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture
def s3(tree, tmp_path):
    """A moto S3 server on 127.0.0.1 that enforces IAM: an auditor whose policy denies
    reading `fleet/secret/*`; the tree uploaded under `fleet/run1/`."""
    import boto3

    root, expected = tree
    port = _free_port()
    env = dict(
        os.environ,
        INITIAL_NO_AUTH_ACTION_COUNT="3",
        AWS_ACCESS_KEY_ID="setup",
        AWS_SECRET_ACCESS_KEY="setup",
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(200):
            try:
                socket.create_connection(("127.0.0.1", port), 0.2).close()
                break
            except OSError:
                time.sleep(0.05)
        kw = {"endpoint_url": url, "region_name": "us-east-1"}
        iam = boto3.client("iam", aws_access_key_id="setup", aws_secret_access_key="setup", **kw)
        iam.create_user(UserName="auditor")
        key = iam.create_access_key(UserName="auditor")["AccessKey"]
        policy = {
            "Version": "2012-10-17",
            "Statement": [
                {"Effect": "Allow", "Action": "s3:*", "Resource": "*"},
                {
                    "Effect": "Deny",
                    "Action": "s3:GetObject",
                    "Resource": "arn:aws:s3:::fleet/run1/secret/*",
                },
            ],
        }
        iam.put_user_policy(
            UserName="auditor", PolicyName="audit", PolicyDocument=json.dumps(policy)
        )
        creds = {
            "AWS_ACCESS_KEY_ID": key["AccessKeyId"],
            "AWS_SECRET_ACCESS_KEY": key["SecretAccessKey"],
            "AWS_DEFAULT_REGION": "us-east-1",
        }
        client = boto3.client(
            "s3",
            aws_access_key_id=creds["AWS_ACCESS_KEY_ID"],
            aws_secret_access_key=creds["AWS_SECRET_ACCESS_KEY"],
            **kw,
        )
        client.create_bucket(Bucket="fleet")
        for name in expected:
            p = root / name
            if p.exists():
                client.upload_file(str(p), "fleet", f"run1/{name}")
        client.put_object(
            Bucket="fleet",
            Key="run1/secret/hidden.jsonl",
            Body=(root / "team-a" / "honest.jsonl").read_bytes(),
        )
        yield url, dict(os.environ, **creds), expected
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.parametrize("scheduler", [None, "local:2"])
def test_s3_fleet_locally_and_on_dask(s3, scheduler):
    url, env, _expected = s3
    argv = [
        "fleet",
        "s3://fleet/run1/",
        "s3://fleet/run1/missing.jsonl",
        "--storage-option",
        f"endpoint_url={url}",
        "--json",
    ]
    if scheduler:
        argv += ["--scheduler", scheduler]
    p = run(*argv, env=env)
    entries, summary = _lines(p)
    got = {k.removeprefix("s3://fleet/run1/"): d for k, d in entries.items()}
    assert got["team-a/deep/tampered.jsonl"]["first_break"] == "line 3: chain mismatch"
    assert got["team-b/liar-receipt.jsonl"]["receipts"]["failed"] == 1
    assert got["team-a/honest.jsonl"]["verdict"] == "VERIFIED"
    assert got["team-b/bounded.jsonl"]["verdict"] == "COULD NOT LOOK"
    denied = got["secret/hidden.jsonl"]
    assert denied["verdict"] == "COULD NOT LOOK"
    assert denied["first_break"].startswith("unreadable: PermissionError")
    missing = got["missing.jsonl"]
    assert missing["verdict"] == "COULD NOT LOOK"
    assert missing["first_break"].startswith("unreadable: ")
    assert "dangling.jsonl" not in got  # a broken link is not uploaded
    assert summary["exit_code"] == p.returncode == 1


def test_incremental_fleet_resumes_and_catches_a_rewrite(tree, tmp_path):
    root, _ = tree
    env = dict(os.environ, XDG_CACHE_HOME=str(tmp_path / "cache"))
    first, _ = _lines(run("fleet", str(root), "--incremental", "--json", env=env))
    honest = root / "team-a" / "honest.jsonl"
    ledger.append(honest, {"op": "later", "ts": "2026-03-02T00:00:00Z"})
    again, _ = _lines(run("fleet", str(root), "--incremental", "--json", env=env))
    entry = again[str(honest)]
    assert (entry["verdict"], entry["rows"]) == ("VERIFIED", 6)
    # the same verdict fields as a plain verify of the grown file
    plain = json.loads(run("verify", str(honest), "--json").stdout)
    assert {k: entry[k] for k in plain} == plain
    # a rewrite of the checkpointed prefix that re-chains cleanly is still caught
    rows = [json.loads(x) for x in honest.read_text().splitlines()]
    honest.unlink()
    for r in rows:
        r.pop("chain")
        r["rewritten"] = True
        ledger.append(honest, r)
    assert json.loads(run("verify", str(honest), "--json").stdout)["ok"] is True
    caught, _ = _lines(run("fleet", str(root), "--incremental", "--json", env=env))
    assert caught[str(honest)]["verdict"] == "BROKEN"
    assert caught[str(honest)]["first_break"].startswith("checkpoint: ")
    assert not any(p.name.endswith(".json") for p in root.rglob("*"))  # nothing beside
    assert list((tmp_path / "cache" / "sealscope" / "checkpoints").iterdir())
    assert first[str(honest)]["rows"] == 5


def test_view_takes_only_local_sources_and_no_audit_options(tmp_path):
    r = run("fleet", "s3://bucket/prefix/", "--view")
    assert r.returncode == 2
    assert r.stderr.strip() == (
        "sealscope: fleet --view: only local sources open in the viewer, not s3://bucket/prefix/"
    )
    r = run(
        "fleet",
        str(tmp_path),
        "--view",
        "--json",
        "--glob",
        "*.log",
        "--junit",
        str(tmp_path / "out.xml"),
    )
    assert r.returncode == 2
    assert r.stderr.strip() == (
        "sealscope: fleet --view: the viewer's fleet tab does not take --glob, --json, --junit"
    )
    assert not (tmp_path / "out.xml").exists()
    r = run("fleet", str(tmp_path / "missing"), "--view")
    assert (r.returncode, r.stderr.strip()) == (
        3,
        f"sealscope: no such file or folder: {tmp_path / 'missing'}",
    )
