"""The CI formats of a checked pair (KINDS-3.md §15.3): each path's suite carries its
chain case and a case for the pair, judged by the pair's word; a mandate's case is
named by its profile."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

from tests.cli.test_fleet_kinds import run
from tests.core import profiles_cases as cases
from tests.core.test_profiles_documents import TOOL
from tests.core.test_profiles_pairs import _tape_pair


def test_junit_has_a_case_for_the_pair(tmp_path):
    a, t = _tape_pair(tmp_path)
    t = cases.rechain_edit("resp", "sha256:json-c14n:v1:" + "2" * 64, 3)(
        t, tmp_path / "x.tape.jsonl"
    )
    m = tmp_path / "m.json"
    m.write_text(json.dumps(TOOL))
    out = tmp_path / "j.xml"
    p = run("check", str(a), str(t), str(m), "--junit", str(out))
    assert p.returncode == 1, p.stderr
    suites = ET.parse(out).getroot().findall("testsuite")
    names = [[c.get("name") for c in s.findall("testcase")] for s in suites]
    assert names == [["chain", f"pair with {t}"], ["chain", f"pair with {a}"], ["mandate"]]
    pair = suites[0].findall("testcase")[1]
    assert pair.find("failure") is not None and "ALTERED at 3" in pair.find("failure").get(
        "message"
    )
    assert suites[0].findall("testcase")[0].find("failure") is None  # the chain holds
