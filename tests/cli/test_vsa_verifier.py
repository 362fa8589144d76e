"""The VSA's verifier id (issue 33): never a package page that does not exist. It is
the id the user sets (`--verifier-id URI`), else the repository URL the install's
metadata carries (pyproject.toml `[project.urls]` "Repository"), else the package URL
`pkg:generic/sealscope`. Run through the real CLI on the samples."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from sealscope.ci_vsa import VERIFIER_ID, repository_url

from tests.cli.test_ci_formats import run

ROOT = Path(__file__).resolve().parents[2]
SESSION = ROOT / "sample_ledgers" / "session.jsonl"


def _statement(out: Path) -> dict:
    return json.loads(out.read_text(encoding="utf-8"))


def test_the_default_id_is_the_repository_or_a_package_url_never_a_missing_page(tmp_path):
    out = tmp_path / "vsa.json"
    p = run("verify", str(SESSION), "--vsa", str(out))
    assert p.returncode == 0, p.stderr
    st = _statement(out)
    assert st["predicate"]["verifier"]["id"] == (repository_url() or VERIFIER_ID)
    assert VERIFIER_ID == "pkg:generic/sealscope"
    assert "pypi.org" not in out.read_text(encoding="utf-8")
    # the policy is named by its digest; the policy itself travels in the statement
    policy = st["predicate"]["policy"]
    assert "uri" not in policy and len(policy["digest"]["sha256"]) == 64


def test_the_user_sets_the_id(tmp_path):
    out = tmp_path / "vsa.json"
    mine = "https://ci.example.org/audit/sealscope"
    for verb in (["verify"], ["fleet"], ["export"]):
        target = str(SESSION.parent) if verb == ["fleet"] else str(SESSION)
        p = run(*verb, target, "--vsa", str(out), "--verifier-id", mine)
        assert p.returncode in (0, 1, 3), (verb, p.stderr)
        assert _statement(out)["predicate"]["verifier"]["id"] == mine, verb
        out.unlink()


def test_an_id_that_is_not_a_uri_is_a_usage_error(tmp_path):
    out = tmp_path / "vsa.json"
    for bad in ("not a uri", "no-scheme", "https://x.org/\x1b[31m"):
        p = run("verify", str(SESSION), "--vsa", str(out), "--verifier-id", bad)
        assert p.returncode == 2, (bad, p.stderr)
        assert "--verifier-id: not a URI" in p.stderr
        assert not out.exists()


def test_the_repository_url_comes_from_the_installed_metadata(tmp_path):
    """A distribution whose metadata names a repository (as `[project.urls]` writes
    it) is found before the checkout's own: its URL becomes the verifier id."""
    dist = tmp_path / "sealscope-0.1.0.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: sealscope\nVersion: 0.1.0\n"
        "Project-URL: Documentation, https://docs.example.org/sealscope\n"
        "Project-URL: Repository, https://git.example.org/audit/sealscope\n",
        encoding="utf-8",
    )
    out = tmp_path / "vsa.json"
    env = dict(os.environ, PYTHONPATH=str(tmp_path))
    p = subprocess.run(
        [sys.executable, "-m", "sealscope", "verify", str(SESSION), "--vsa", str(out)],
        capture_output=True,
        text=True,
        timeout=300,
        env=env,
        cwd=tmp_path,  # not the checkout, whose own sealscope.egg-info would come first
        stdin=subprocess.DEVNULL,
        check=False,
    )
    assert p.returncode == 0, p.stderr
    assert (
        _statement(out)["predicate"]["verifier"]["id"] == "https://git.example.org/audit/sealscope"
    )
