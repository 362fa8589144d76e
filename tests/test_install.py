"""Installed the way a user installs it, outside the checkout.

`python -m build` makes the sdist and, from that sdist, the wheel. Each is installed into
a new virtual environment in a temporary folder (the wheel with the C compiler, the sdist
with `CC=/bin/false`, so the pure-Python path of an install without a compiler is the one
exercised there), and from a folder outside the checkout:

* `sealscope --version` is the distribution's version;
* `sealscope selftest` passes;
* `sealscope verify` on the packaged `tampered.jsonl` says BROKEN, first break line 4,
  exit 1;
* `sealscope` and `sealscope view` open the bundled samples in the viewer, headless: the
  first tab is the packaged `session.jsonl`, VERIFIED; `R` shows the samples' README.

Every path the installed package uses is checked to lie inside the new environment, so no
step reads the checkout's files through the installed package. The venvs get only what the
wheel brings: dependencies come from a wheelhouse filled once by `pip download`, and the
installs run with `--no-index`.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.viewer.app import SAMPLE_TABS

ROOT = Path(__file__).resolve().parent.parent
TIMEOUT = 900

# Run by the new environment's python: the CLI's own entry (`main`) with the app's
# terminal run replaced by Textual's headless `run_test`, once bare and once as `view`.
PROBE = r"""
import asyncio, json, sys
import sealscope, sealscope.core.ledger, sealscope.sample_ledgers, sealscope.viewer.app
from sealscope.viewer import app as viewer_app

runs = []

def headless_run(self, *args, **kw):
    async def go():
        async with self.run_test(size=(120, 36)) as pilot:
            for _ in range(1500):
                await pilot.pause()
                await self.workers.wait_for_complete()
                tabs = self.ledger_tabs()
                if tabs and all(t.result is not None or t.source.error for t in tabs):
                    break
                await asyncio.sleep(0.02)
            await pilot.pause()
            panes = self.panes()
            first = panes[0]
            banner = str(first.query_one("#banner").render())
            active = self.current_tab() is first
            await pilot.press("R")
            await pilot.pause()
            readme = self.screen.query_one("Markdown").source
            runs.append({"tabs": [str(getattr(p, "path", None) or p.source.path)
                                  for p in panes],
                         "first_active": active, "banner": banner, "readme": readme})
    asyncio.run(go())

viewer_app.SealscopeApp.run = headless_run
from sealscope.main import main
codes = [main([]), main(["view"])]
print(json.dumps({"codes": codes, "runs": runs, "files": {
    "sealscope": sealscope.__file__, "ledger": sealscope.core.ledger.__file__,
    "viewer": sealscope.viewer.app.__file__,
    "samples": str(sealscope.sample_ledgers.FOLDER)}, "sys_path": sys.path}))
"""


def clean_env(**extra: str) -> dict[str, str]:
    """The environment without this venv or checkout on any path."""
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in ("PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP")
    }
    env["PATH"] = os.pathsep.join(
        p
        for p in env.get("PATH", "").split(os.pathsep)
        if not p.startswith(str(Path(sys.executable).parent))
    )
    env.update(extra)
    return env


def run(cmd: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [str(c) for c in cmd],
        cwd=cwd,
        env=clean_env(**extra),
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )


def ok(cp: subprocess.CompletedProcess) -> subprocess.CompletedProcess:
    assert cp.returncode == 0, f"{cp.args}\n{cp.stdout[-3000:]}\n{cp.stderr[-3000:]}"
    return cp


def outside(p: Path) -> bool:
    return not p.resolve().is_relative_to(ROOT)


@pytest.fixture(scope="module")
def built(tmp_path_factory) -> dict[str, Path]:
    """The sdist and the wheel `python -m build` makes, and a wheelhouse of their
    dependencies (and the build backend, for installing the sdist)."""
    base = tmp_path_factory.mktemp("install")
    assert outside(base)
    dist, house = base / "dist", base / "wheelhouse"
    ok(run([sys.executable, "-m", "build", "--outdir", dist, ROOT], cwd=base))
    sdists, wheels = sorted(dist.glob("*.tar.gz")), sorted(dist.glob("*.whl"))
    assert len(sdists) == 1 and len(wheels) == 1, sorted(dist.iterdir())
    ok(
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "--quiet",
                "--dest",
                house,
                wheels[0],
                "setuptools>=77",
            ],
            cwd=base,
        )
    )
    return {"base": base, "sdist": sdists[0], "wheel": wheels[0], "house": house}


def test_sdist_carries_what_rebuilds_the_wheel(built):
    import tarfile

    with tarfile.open(built["sdist"]) as tf:
        names = {n.split("/", 1)[1] for n in tf.getnames() if "/" in n}
    for need in (
        "pyproject.toml",
        "setup.py",
        "MANIFEST.in",
        "core/_fastrow.c",
        "viewer/app.tcss",
        "sample_ledgers/__init__.py",
        "sample_ledgers/README.md",
        "sample_ledgers/make_samples.py",
        *(f"sample_ledgers/{t}" for t in SAMPLE_TABS),
    ):
        assert need in names, need
    assert not any(n.endswith((".so", ".pyc")) for n in names)


def test_wheel_carries_the_samples_not_their_generators(built):
    import zipfile

    names = set(zipfile.ZipFile(built["wheel"]).namelist())
    for t in SAMPLE_TABS:
        assert f"sealscope/sample_ledgers/{t}" in names, t
    assert "sealscope/sample_ledgers/README.md" in names
    assert "sealscope/viewer/app.tcss" in names
    assert not any("make_" in n for n in names)
    if (ROOT / "core" / "py.typed").is_file():
        assert "sealscope/core/py.typed" in names


@pytest.mark.parametrize("kind", ["wheel", "sdist"])
def test_installed_outside_the_checkout(built, kind):
    base: Path = built["base"]
    venv, elsewhere = base / f"venv-{kind}", base / f"cwd-{kind}"
    elsewhere.mkdir()
    ok(run([sys.executable, "-m", "venv", "--without-pip", venv], cwd=elsewhere))
    py, exe = venv / "bin" / "python", venv / "bin" / "sealscope"
    # the sdist is built here with no compiler: the install must still succeed, quietly
    extra = {"CC": "/bin/false"} if kind == "sdist" else {}
    pip = ok(
        run(
            [
                sys.executable,
                "-m",
                "pip",
                "--python",
                py,
                "install",
                "--no-cache-dir",
                "--no-index",
                "--find-links",
                built["house"],
                built[kind],
            ],
            cwd=elsewhere,
            **extra,
        )
    )
    said = (pip.stdout + pip.stderr).lower().splitlines()
    assert not [line for line in said if "fastrow" in line or "error" in line or "fail" in line]

    import importlib.metadata

    want_version = importlib.metadata.version("sealscope")
    version = ok(run([exe, "--version"], cwd=elsewhere))
    assert version.stdout.strip() == f"sealscope {want_version}"

    accel = run([py, "-c", "import sealscope.core._fastrow"], cwd=elsewhere)
    if kind == "sdist":
        assert accel.returncode == 1 and "ModuleNotFoundError" in accel.stderr
    elif shutil.which("cc") or shutil.which("gcc"):
        assert accel.returncode == 0, accel.stderr

    selftest = ok(run([exe, "selftest"], cwd=elsewhere))
    assert selftest.stdout.strip().splitlines()[-1] == "all checks passed"

    probe = base / f"probe-{kind}.py"
    probe.write_text(PROBE, encoding="utf-8")
    out = json.loads(ok(run([py, probe], cwd=elsewhere)).stdout.strip().splitlines()[-1])
    samples = Path(out["files"]["samples"])
    for f in out["files"].values():
        assert Path(f).resolve().is_relative_to(venv.resolve()), f
    assert not any(Path(p).resolve().is_relative_to(ROOT) for p in out["sys_path"] if p)

    verify = run([exe, "verify", samples / "tampered.jsonl"], cwd=elsewhere)
    assert verify.returncode == 1, verify.stderr
    first, *rest = verify.stdout.splitlines()
    assert first.split()[:2] == ["BROKEN", str(samples / "tampered.jsonl")]
    assert "  first break: line 4: chain mismatch" in rest

    assert out["codes"] == [0, 0]  # `sealscope`, then `sealscope view`
    for r in out["runs"]:
        assert r["tabs"] == [str(samples / t) for t in SAMPLE_TABS]
        assert r["first_active"]
        assert r["banner"].split()[0] == "VERIFIED" and "session.jsonl" in r["banner"]
        assert r["readme"] == (samples / "README.md").read_text(encoding="utf-8")
        assert r["readme"].startswith("# Sample ledgers")
