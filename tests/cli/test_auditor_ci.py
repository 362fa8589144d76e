"""Issue 33: the shipped pipelines (`docs/ci/*.yml`) work as written.

sealscope is not on a package index, so the templates install it from its repository
at a pinned commit. Each template's shell lines are run, in order, against the samples:
the install line with `pipx` (and the image's `apt-get`/`pip`) replaced by a recorder,
the rest for real with this checkout's `sealscope`; the spec the install line gave is
then built into a wheel (offline: no dependencies, no build isolation), so a template
that names something pip cannot install fails here, not at a user's first step."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
CI = ROOT / "docs" / "ci"


def _commit() -> str:
    got = subprocess.run(
        ["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True, text=True, check=False
    )
    if got.returncode != 0 or shutil.which("git") is None:
        pytest.skip("not a git checkout: nothing to pin")
    return got.stdout.strip()


def _workspace(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    work = tmp_path / "repo"
    (work / "ledgers").mkdir(parents=True)
    for name in ("session.jsonl", "tampered.jsonl"):
        (work / "ledgers" / name).write_bytes((SAMPLES / name).read_bytes())
    (work / ".harn-runs").mkdir()
    (work / ".harn-runs" / "run.json").write_bytes(
        (SAMPLES / "harn" / "run-record.json").read_bytes()
    )
    stubs = tmp_path / "stubs"
    stubs.mkdir()
    for tool in ("pipx", "pip", "apt-get"):
        stub = stubs / tool
        stub.write_text(f'#!/bin/sh\necho "$*" >> "{tmp_path}/{tool}.args"\n')
        stub.chmod(0o755)
    exe = Path(sys.executable).parent
    env = dict(
        os.environ,
        PATH=f"{stubs}{os.pathsep}{exe}{os.pathsep}{os.environ['PATH']}",
        SEALSCOPE_GIT=f"file://{ROOT}",
        SEALSCOPE_COMMIT=_commit(),
        GITHUB_STEP_SUMMARY=str(tmp_path / "summary.md"),
        HOME=str(tmp_path),
    )
    return work, env


def _sh(line: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-e", "-c", line],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )


_WHEELS: dict[str, list[Path]] = {}


def _built(spec: str, tmp_path: Path) -> list[Path]:
    """The wheels pip builds from `spec` (no dependencies; the build backend as
    pyproject.toml asks for it), once per spec in this run."""
    if spec not in _WHEELS:
        out = tmp_path / "wheels"
        got = subprocess.run(
            [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), spec],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert got.returncode == 0, got.stderr
        _WHEELS[spec] = sorted(out.glob("sealscope-*.whl"))
    return _WHEELS[spec]


def test_every_github_actions_step_runs_and_its_install_line_is_installable(tmp_path):
    doc = yaml.safe_load((CI / "github-actions.yml").read_text())
    work, env = _workspace(tmp_path)
    env.update({k: v for k, v in doc["env"].items() if v} or {})
    codes = {}
    for step in doc["jobs"]["audit"]["steps"]:
        if "run" in step:
            codes[step.get("name") or step["run"]] = _sh(step["run"], work, env).returncode
    assert codes["install sealscope"] == 0
    assert codes["audit every ledger"] == 1  # tampered.jsonl: the job fails on the break
    assert codes["cross-check the harn compactions"] in (0, 1)
    (spec,) = (tmp_path / "pipx.args").read_text().split()[1:]
    assert spec == f"git+file://{ROOT}@{env['SEALSCOPE_COMMIT']}"
    assert _built(spec, tmp_path)
    assert (work / "reports" / "ledgers.xml").is_file()


def test_the_gitlab_job_runs_and_its_install_line_is_installable(tmp_path):
    doc = yaml.safe_load((CI / "gitlab-ci.yml").read_text())
    job = doc["ledger-audit"]
    work, env = _workspace(tmp_path)
    for line in job["before_script"]:
        assert _sh(line, work, env).returncode == 0, line
    (got,) = [x for x in (tmp_path / "pipx.args").read_text().splitlines()]
    spec = got.split()[1]
    assert spec == f"git+file://{ROOT}@{env['SEALSCOPE_COMMIT']}"
    assert [_sh(line, work, env).returncode for line in job["script"]] == [1]
    assert _built(spec, tmp_path)


def test_an_install_line_left_unset_says_what_to_set(tmp_path):
    doc = yaml.safe_load((CI / "github-actions.yml").read_text())
    work, env = _workspace(tmp_path)
    env["SEALSCOPE_GIT"] = ""
    step = next(s for s in doc["jobs"]["audit"]["steps"] if s.get("name") == "install sealscope")
    got = _sh(step["run"], work, env)
    assert got.returncode != 0 and "set SEALSCOPE_GIT" in got.stderr
    assert not (tmp_path / "pipx.args").exists()
