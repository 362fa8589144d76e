"""Issue 42: `sealscope verify` (text or `--json`) holds nothing per break: it prints
the reference's fields only, so it builds no CI suite and its walk keeps only the first
break; `--format github` (an annotation per break) still names every one."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from sealscope import cmd_verify

from tests.core.test_breaks_memory import _ledger, _peak

ROWS = 40_000


def test_verify_without_ci_output_holds_nothing_per_break(tmp_path):
    honest, broken = tmp_path / "honest.jsonl", tmp_path / "broken.jsonl"
    _ledger(honest, ROWS, broken=False)
    _ledger(broken, ROWS, broken=True)
    doc, code, suite, _res = cmd_verify.judge(str(broken), ci=False)
    assert (code, doc["breaks"], doc["first_break"], suite) == (
        1,
        ROWS,
        "line 1: chain mismatch",
        None,
    )
    base = _peak(lambda: cmd_verify.judge(str(honest), ci=False))
    lean = _peak(lambda: cmd_verify.judge(str(broken), ci=False))
    full = _peak(lambda: cmd_verify.judge(str(broken)))  # a suite: a mark per break
    assert full - base > 100 * ROWS
    assert lean - base < 64 << 10, (base, lean)


def test_json_is_the_reference_fields_and_github_still_marks_every_break(tmp_path):
    p = tmp_path / "broken.jsonl"
    _ledger(p, 50, broken=True)
    out = subprocess.run(
        [sys.executable, "-m", "sealscope", "verify", "--json", str(p)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    doc = json.loads(out.stdout)
    assert out.returncode == 1 and doc["breaks"] == 50
    assert set(doc) == {
        "ok",
        "rows",
        "chained",
        "prechain",
        "first_break",
        "breaks",
        "verified_scope",
        "declared_breaks",
        "declared",
        "verdict",
    }
    gh = subprocess.run(
        [sys.executable, "-m", "sealscope", "verify", "--format", "github", str(p)],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "GITHUB_STEP_SUMMARY": ""},
    )
    marked = [ln for ln in gh.stdout.splitlines() if ln.startswith("::error ")]
    assert gh.returncode == 1 and len(marked) == 50
    assert "line=50," in marked[-1]
