"""`sealscope fleet` over long-tail evidence (KINDS-3.md §15.3): two-file profiles are
paired among the files found, as `check` pairs its PATHs; a mandate is judged by its
own check; a lone tape stays a plain ledger entry."""

from __future__ import annotations

import json
import shutil

from tests.cli.test_fleet_kinds import run
from tests.core.test_profiles_documents import TOOL
from tests.core.test_profiles_pairs import _tape_pair


def test_a_folder_pairs_its_tapes_and_checks_its_mandate(tmp_path):
    root = tmp_path / "fleet"
    root.mkdir()
    a, t = _tape_pair(root)
    (root / "mandate.json").write_text(json.dumps({**TOOL, "alowed_acts": []}))
    p = run("fleet", str(root), "--json")
    lines = [json.loads(x) for x in p.stdout.splitlines()]
    last = {d["path"]: d for d in lines if "path" in d}  # a paired entry comes again, complete
    assert last[str(a)]["profile"] == "tape"
    assert last[str(a)]["detail"]["pair"]["partner"] == str(t)
    assert last[str(t)]["detail"]["pair"]["verdict"] == "MATCHED"
    mandate = last[str(root / "mandate.json")]
    assert (mandate["profile"], mandate["verdict"]) == ("mandate", "BROKEN")
    assert p.returncode == 1
    assert lines[-1]["summary"]["verdicts"] == {"VERIFIED": 2, "BROKEN": 1, "COULD NOT LOOK": 0}


def test_a_lone_tape_in_a_folder_stays_a_ledger_entry(tmp_path):
    a, _t = _tape_pair(tmp_path)
    root = tmp_path / "alone"
    root.mkdir()
    shutil.copy(a, root / a.name)
    p = run("fleet", str(root), "--json")
    entry = json.loads(p.stdout.splitlines()[0])
    assert "profile" not in entry and entry["verdict"] == "VERIFIED"
    human = run("fleet", str(tmp_path)).stdout
    assert "kind=ledger/tape" in human
