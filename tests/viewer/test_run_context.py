"""The tabs open in one app are one run, judged as `check` judges the same paths: a
stored continuity verdict open in another tab joins a ledger's `continuity_verify`
rows, `--artefacts DIR` holds the artefacts a binding names, and a fleet tab hands
what its run holds to the ledger it opens (Enter). The context is core's
(`checks.run_context`), the one `check` builds."""

from __future__ import annotations

import shutil
from pathlib import Path

from sealscope.core import checks
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.fleet_tab import FleetTab
from sealscope.viewer.ledger_tab import LedgerTab

from tests.viewer.viewer_helpers import SAMPLES, quiescent, settle, sync, until

KINDS = SAMPLES / "kinds"
LEDGER = KINDS / "continuity.jsonl"
STORED = KINDS / "continuity-verdict.json"
SIZE = (120, 36)


def _check_word(paths: list[Path], artefacts: str | None = None) -> str | None:
    """`sealscope check PATHS [--artefacts DIR]`'s word for the first path."""
    ctx = checks.CheckContext(artefacts=artefacts)
    return checks.run([str(p) for p in paths], ctx)[0].word


def _ledger(app, path: Path) -> LedgerTab:
    (tab,) = [t for t in app.ledger_tabs() if Path(t.path).resolve() == path.resolve()]
    return tab


@sync
async def test_a_ledger_opened_with_its_stored_verdict_is_judged_as_check_judges_them():
    assert _check_word([LEDGER, STORED]) == "VERIFIED"
    assert _check_word([LEDGER]) == "COULD NOT LOOK"  # continuity-verify unmatched
    app = SealscopeApp([LEDGER, STORED])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tab = _ledger(app, LEDGER)
        assert tab.tab_verdict.verdict == "VERIFIED"
        assert tab.checks.ctx == app.run_ctx()
        assert tab.checks.ctx.verdict_files == (str(STORED),)
    alone = SealscopeApp([LEDGER])
    async with alone.run_test(size=SIZE) as pilot:
        await settle(alone, pilot)
        assert _ledger(alone, LEDGER).tab_verdict.verdict == "COULD NOT LOOK"
        # the stored verdict opened later joins the run: the ledger is judged again
        await alone.open_paths([STORED])
        await until(pilot, lambda: _ledger(alone, LEDGER).tab_verdict.verdict == "VERIFIED")
        await quiescent(alone, pilot)


@sync
async def test_artefacts_dir_holds_what_the_bindings_name(tmp_path):
    held = tmp_path / "held"
    held.mkdir()
    shutil.copy(KINDS / "artefact-report.md", held)
    with (held / "artefact-report.md").open("a") as f:
        f.write("tampered\n")
    ledger = KINDS / "artefacts.jsonl"
    assert _check_word([ledger], str(held)) == "BROKEN"  # artefact held mismatch
    for artefacts, want in ((None, "VERIFIED"), (str(held), "BROKEN"), (str(KINDS), "VERIFIED")):
        app = SealscopeApp([ledger], artefacts=artefacts)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            assert _ledger(app, ledger).tab_verdict.verdict == want, artefacts
            assert app.run_ctx().artefacts == artefacts


@sync
async def test_enter_on_a_fleet_row_hands_the_fleets_run_to_the_ledger_tab(tmp_path):
    folder = tmp_path / "run"
    folder.mkdir()
    for p in (LEDGER, STORED):
        shutil.copy(p, folder)
    app = SealscopeApp([folder])
    async with app.run_test(size=SIZE) as pilot:
        fleet_tab = app.current_tab()
        assert isinstance(fleet_tab, FleetTab)
        await until(pilot, lambda: fleet_tab.done)
        row = [Path(e.path).name for e in fleet_tab.shown].index("continuity.jsonl")
        assert fleet_tab.shown[row].verdict == "VERIFIED"
        fleet_tab.table.move_cursor(row=row)
        fleet_tab.table.focus()
        await quiescent(app, pilot)
        await pilot.press("enter")
        await settle(app, pilot)
        tab = app.current_tab()
        assert isinstance(tab, LedgerTab) and Path(tab.path).name == "continuity.jsonl"
        assert tab.tab_verdict.verdict == "VERIFIED"  # as its fleet row says
        assert [Path(v).name for v in tab.checks.ctx.verdict_files] == ["continuity-verdict.json"]


def test_view_takes_artefacts_dir_and_refuses_what_is_not_a_folder(tmp_path):
    from sealscope.cmd_view import viewer_app
    from sealscope.main import main

    app = viewer_app([str(KINDS / "artefacts.jsonl")], artefacts=str(KINDS))
    assert app is not None and app.artefacts == str(KINDS)
    assert main(["view", "--artefacts", str(tmp_path / "nope"), str(LEDGER)]) == 2


@sync
async def test_the_strip_marks_a_row_whose_own_check_could_not_look():
    """An unmatched `continuity_verify` row (its stored verdict not in the run) is a
    could-not-look cell of the overview strip, not a verified `·`; with its verdict
    in the run it is verified."""
    for paths, want in (([LEDGER], "row_couldnot"), ([LEDGER, STORED], "verified")):
        app = SealscopeApp(paths)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            tab = _ledger(app, LEDGER)
            assert tab.strip.bin_classes()[0] == want, paths
