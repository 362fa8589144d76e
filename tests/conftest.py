"""Shared fixtures. Tests that need `../shared` (spec corpus) skip cleanly without it."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("SEALSCOPE_SHARED", ROOT.parent / "shared"))
CORPUS = SHARED / "conformance" / "corpus"
CHECK = SHARED / "conformance" / "check.py"


def sealscope_cmd() -> str:
    """The command check.py should drive: the script beside this interpreter, else on PATH,
    else the module."""
    here = Path(sys.executable).parent / "sealscope"
    exe = str(here) if here.is_file() else shutil.which("sealscope")
    return exe if exe else f"{sys.executable} -m sealscope"


@pytest.fixture
def corpus() -> Path:
    if not CHECK.is_file() or not CORPUS.is_dir():
        pytest.skip("../shared/conformance is not present")
    return CORPUS


def run_conformance(only: str) -> subprocess.CompletedProcess:
    """Run check.py for one family; the caller asserts on its closing line."""
    return subprocess.run(
        [sys.executable, str(CHECK), "--cmd", sealscope_cmd(), "--only", only, str(CORPUS)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )


def assert_conformance(only: str) -> None:
    p = run_conformance(only)
    last = p.stdout.strip().splitlines()[-1] if p.stdout.strip() else ""
    assert p.returncode == 0 and last.endswith(" 0 failed"), p.stdout + p.stderr
