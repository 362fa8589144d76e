"""Issue 42: `sealscope --version` and `sealscope verify LEDGER` import only what the verb
needs: not the viewer (Textual), the fleet, Dask, the CI formats nor importlib.metadata
(which a bare interpreter here may already hold: only what sealscope adds counts). Read
from `sys.modules` in a fresh interpreter after the command ran."""

from __future__ import annotations

import json
import subprocess
import sys

from sealscope.core import ledger as L

HEAVY = (
    "textual",
    "dask",
    "distributed",
    "importlib.metadata",
    "sealscope.viewer",
    "sealscope.core.fleet",
    "sealscope.core.fleet_walk",
    "sealscope.fleet_engine",
    "sealscope.cmd_fleet",
    "sealscope.cmd_view",
    "sealscope.ci_formats",
    "sealscope.ci_suites",
    "sealscope.ci_github",
    "sealscope.ci_junit",
    "sealscope.ci_vsa",
    "sealscope.core.export",
)

PROBE = r"""
import json, sys
before = set(sys.modules)
from sealscope.main import main
try:
    code = main(sys.argv[1:])
except SystemExit as e:
    code = e.code
print(json.dumps({"code": code, "added": sorted(set(sys.modules) - before)}), file=sys.stderr)
"""


def _added(*argv: str) -> tuple[int, list[str]]:
    out = subprocess.run(
        [sys.executable, "-c", PROBE, *argv],
        check=False,
        capture_output=True,
        text=True,
        timeout=120,
    )
    doc = json.loads(out.stderr.strip().splitlines()[-1])
    return doc["code"], doc["added"]


def _heavy(mods: list[str]) -> list[str]:
    return [m for m in mods if any(m == h or m.startswith(h + ".") for h in HEAVY)]


def test_version_imports_no_verb_and_no_metadata_package():
    code, mods = _added("--version")
    assert code == 0
    assert _heavy(mods) == []
    assert not [m for m in mods if m.startswith("sealscope.cmd_")]


def test_verify_imports_its_own_verb_only(tmp_path):
    p = tmp_path / "small.jsonl"
    for i in range(3):
        L.append(p, {"i": i})
    code, mods = _added("verify", str(p))
    assert code == 0
    assert _heavy(mods) == []
    assert [m for m in mods if m.startswith("sealscope.cmd_")] == ["sealscope.cmd_verify"]
    code, mods = _added("verify", "--json", str(p), str(p))  # two ledgers: planned, no fleet
    assert code == 0 and _heavy(mods) == []


def test_a_ci_output_still_loads_the_formats(tmp_path):
    p = tmp_path / "small.jsonl"
    L.append(p, {"i": 0})
    code, mods = _added("verify", "--junit", str(tmp_path / "j.xml"), str(p))
    assert code == 0 and "sealscope.ci_formats" in mods
    assert (tmp_path / "j.xml").read_text().count("<testcase") == 1
