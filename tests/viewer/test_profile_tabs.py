"""The long tail's documents in the viewer (KINDS-3.md §15.4): a mandate, a stored once
receipt, a deal pack and a vet grade each open as a kind tab whose banner is core's
profile check (the word `sealscope check` gives), its panel laying out that check.
Snapshots at 120x36 and 80x24."""

from __future__ import annotations

from pathlib import Path

import pytest
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.kind_tab import KindTab

from tests.core.test_profiles_documents import _grade
from tests.viewer.test_kind_snapshots import _judged
from tests.viewer.viewer_helpers import sync

TAIL = Path(__file__).resolve().parents[2] / "sample_ledgers" / "kinds" / "long-tail"

CASES = {
    "mandate_sealed_edited": (TAIL / "mandate-sealed-edited.json", "mandate", "BROKEN"),
    "once_receipt": (TAIL / "once-receipt.json", "once-receipt", "VERIFIED"),
    "deal_pack": (TAIL / "DEAL-d-sample01", "deal-pack", "VERIFIED"),
}


@pytest.mark.parametrize("name", sorted(CASES))
@sync
async def test_a_document_profile_opens_as_a_kind_tab(name):
    path, profile, word = CASES[name]
    app = SealscopeApp([path])
    async with app.run_test(size=(120, 36)) as pilot:
        await _judged(pilot)
        [tab] = app.panes()
        assert isinstance(tab, KindTab) and tab.kind == profile
        assert tab.check is not None and tab.check.profile == profile
        assert tab.tab_verdict.verdict == word


@sync
async def test_a_vet_grade_tab_never_says_verified(tmp_path):
    app = SealscopeApp([_grade(tmp_path)])
    async with app.run_test(size=(120, 36)) as pilot:
        await _judged(pilot)
        [tab] = app.panes()
        assert (tab.kind, tab.tab_verdict.verdict) == ("vet-grade", "COULD NOT LOOK")


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
@pytest.mark.parametrize("name", sorted(CASES))
def test_snapshot_profile_tab(snap_compare, name, size):
    assert snap_compare(SealscopeApp([CASES[name][0]]), terminal_size=size, run_before=_judged)


ONCE = TAIL / "once.log.jsonl"


async def _rows_checked(pilot) -> None:
    from tests.viewer.viewer_helpers import settle, until

    app = pilot.app
    await settle(app, pilot)
    await until(pilot, lambda: app.panes()[0].checks.rows is not None, "rows never checked")
    await pilot.pause()


@sync
async def test_a_once_ledger_badges_each_row_with_its_keys_state():
    """Each once row's badge is its key's state (core's `once.row_states`); the badge
    adds no word: the tab stays its chain's VERIFIED with a key left at intent."""
    app = SealscopeApp([ONCE])
    async with app.run_test(size=(120, 36)) as pilot:
        await _rows_checked(pilot)
        [tab] = app.panes()
        assert tab.rows.own_checks == {
            1: ("VERIFIED", "once: executed"),
            2: ("VERIFIED", "once: executed"),
            3: ("VERIFIED", "once: executed"),
            4: ("VERIFIED", "once: executed"),
            5: ("COULD NOT LOOK", "once: intent"),
        }
        assert tab.tab_verdict.verdict == "VERIFIED"


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
def test_snapshot_once_ledger_badges(snap_compare, size):
    assert snap_compare(SealscopeApp([ONCE]), terminal_size=size, run_before=_rows_checked)
