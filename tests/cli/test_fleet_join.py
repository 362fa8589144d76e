"""A fleet joins what `check` joins (KINDS.md §5.3): a stored continuity verdict found in
the same run is held for the `continuity_verify` rows of the run's ledgers, and
`fleet --artefacts DIR` holds what `check --artefacts DIR` holds. Before, a folder
holding a ledger and its stored verdict said COULD NOT LOOK under `fleet` (the row
unmatched) where `check` on the same two files said VERIFIED."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path

import pytest
from sealscope.core import fleet, verdict
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.fleet_tab import FleetTab

from tests.viewer.kind_helpers import cli
from tests.viewer.viewer_helpers import SAMPLES, until

KINDS = SAMPLES / "kinds"
LEDGER = KINDS / "continuity.jsonl"
VERDICT = KINDS / "continuity-verdict.json"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    if not (LEDGER.exists() and VERDICT.exists()):
        pytest.skip("the continuity samples are not generated")
    d = tmp_path / "run"
    d.mkdir()
    shutil.copy(LEDGER, d / LEDGER.name)
    shutil.copy(VERDICT, d / VERDICT.name)
    return d


def _check(*args: str) -> tuple[dict[str, tuple[str, int]], int]:
    got = cli("check", *args, "--json")
    assert got.returncode != verdict.USAGE, got.stderr
    return {Path(d["path"]).name: (d["verdict"], d["exit_code"]) for d in json.loads(got.stdout)}, (
        got.returncode
    )


def _fleet(*args: str) -> tuple[dict[str, tuple[str, int]], int, list[dict]]:
    got = cli("fleet", *args, "--json")
    assert got.returncode != verdict.USAGE, got.stderr
    docs = [json.loads(x) for x in got.stdout.splitlines()]
    entries = [d for d in docs if "path" in d]
    return (
        {Path(d["path"]).name: (d["verdict"], d["exit_code"]) for d in entries},
        got.returncode,
        entries,
    )


def _row_match(entries: list[dict], name: str) -> list[str]:
    [e] = [d for d in entries if Path(d["path"]).name == name]
    return [r.get("match") for r in e["rows_checked"] if r["check"] == "continuity-verify"]


def test_a_fleet_holds_the_verdicts_it_finds_as_check_holds_verdict_paths(folder):
    ledger, stored = folder / LEDGER.name, folder / VERDICT.name
    alone, _ = _check(str(ledger))
    assert alone[ledger.name][0] == verdict.COULD_NOT_LOOK  # the row needs its verdict
    want, want_code = _check(str(ledger), str(stored))
    assert want[ledger.name] == (verdict.VERIFIED, verdict.HELD)
    got, code, entries = _fleet(str(folder))
    assert got == want and code == want_code
    assert _row_match(entries, ledger.name) == ["matched"]
    # core's entry, the same join (what the viewer's fleet tab runs)
    ran = fleet.run_local(list(fleet.walk([str(folder)])), workers=1)
    assert {Path(e.path).name: e.outcome() for e in ran} == want


def test_export_of_the_folder_holds_what_the_fleet_holds(folder, tmp_path):
    """`export DIR` is the fleet's report: its row and the ledger's own section both
    say what `fleet` says once the stored verdict in the folder is joined."""
    want, want_code, _ = _fleet(str(folder))
    out = tmp_path / "report.json"
    got = cli("export", str(folder), "--format", "json", "-o", str(out))
    assert got.returncode == want_code, got.stderr
    doc = json.loads(out.read_text(encoding="utf-8"))
    rows = {Path(r["path"]).name: (r["verdict"], r["exit_code"]) for r in doc["files"]}
    assert rows == want and doc["exit_code"] == want_code
    sections = {Path(s["path"]).name: s for s in doc["reports"]}
    assert (sections[LEDGER.name]["verdict"], sections[LEDGER.name]["exit_code"]) == want[
        LEDGER.name
    ]


def test_fleet_artefacts_holds_what_check_artefacts_holds(folder, tmp_path):
    held = tmp_path / "held"
    held.mkdir()
    (folder / VERDICT.name).rename(held / VERDICT.name)
    want, want_code = _check(str(folder / LEDGER.name), "--artefacts", str(held))
    assert want[LEDGER.name] == (verdict.VERIFIED, verdict.HELD)
    got, code, entries = _fleet(str(folder), "--artefacts", str(held))
    assert got == want and code == want_code
    assert _row_match(entries, LEDGER.name) == ["matched"]
    # without it nothing is held: COULD NOT LOOK, as check says
    bare, bare_code, _ = _fleet(str(folder))
    assert bare[LEDGER.name] == _check(str(folder / LEDGER.name))[0][LEDGER.name]
    assert bare_code == verdict.COULD_NOT


def test_fleet_artefacts_must_be_a_folder(folder, tmp_path):
    got = cli("fleet", str(folder), "--artefacts", str(tmp_path / "nowhere"))
    assert got.returncode == verdict.USAGE
    assert "--artefacts" in got.stderr and "Traceback" not in got.stderr
    view = cli("fleet", str(folder), "--view", "--artefacts", str(folder))
    assert view.returncode == verdict.USAGE and "--artefacts" in view.stderr


def test_the_viewer_fleet_tab_agrees(folder):
    want, want_code = _check(str(folder / LEDGER.name), str(folder / VERDICT.name))

    async def go():
        app = SealscopeApp([folder])
        async with app.run_test(size=(120, 36)) as pilot:
            tab = app.current_tab()
            assert isinstance(tab, FleetTab)
            await until(pilot, lambda: tab.done, "the fleet audit did not finish")
            await pilot.pause()
            return {Path(e.path).name: e.outcome() for e in tab.entries}, tab.tab_verdict

    shown, outcome = asyncio.run(go())
    assert shown == want
    assert outcome.exit_code == want_code


def test_the_held_verdicts_the_audit_finds_give_fleet_contexts_entries(folder):
    """`fleet.iter_held` (every executor's join): the run is audited holding nothing,
    and the entries that read held verdicts are audited again with the verdicts its
    workers classified, giving what auditing with `fleet_context` up front gives."""
    for extra in range(3):  # ledgers without a continuity row pass through once
        shutil.copy(SAMPLES / "session.jsonl", folder / f"plain-{extra}.jsonl")
    sized = list(fleet.walk([str(folder)]))
    ctx = fleet.fleet_context(sized)
    assert ctx.verdict_files  # the run holds the stored verdict
    want = {p: fleet.audit_path(p, ctx=ctx).to_wire() for p, _n in sized}
    holding: list[tuple[str, ...]] = []
    audited: list[str] = []

    def audit(items, c):  # type: ignore[no-untyped-def]
        holding.append(c.verdict_files)
        for p, _n in items:
            audited.append(p)
            yield fleet.audit_path(p, ctx=c)

    got = {e.path: e.to_wire() for e in fleet.iter_held(sized, audit)}
    assert got == want
    assert holding == [(), ctx.verdict_files]
    # only the ledger with the row and the verdict itself were audited twice
    twice = sorted(Path(p).name for p in set(audited) if audited.count(p) == 2)
    assert twice == sorted([LEDGER.name, VERDICT.name])
