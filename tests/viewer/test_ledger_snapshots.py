"""Snapshot SVGs (120x36) of every ledger-viewer screen and panel."""

from __future__ import annotations

import pytest
from sealscope.viewer.app import SealscopeApp

from tests.viewer.viewer_helpers import HELD, SAMPLES, activate, check_pin, goto, load_held, settle

SIZE = (120, 36)
PIN = (SAMPLES / "truncated.pin").read_text().strip()


def app_on_samples() -> SealscopeApp:
    return SealscopeApp([SAMPLES])


async def on_tab(pilot, name: str):
    """Settled, the tab of the ledger called `name` in front and focused: that tab."""
    await settle(pilot.app, pilot)
    return await activate(pilot.app, pilot, name)


# the ledger screen with one row selected: its detail pane for each kind of row
ROWS = [
    pytest.param("session.jsonl", 7, id="verified_session_receipt_v2"),
    pytest.param("session.jsonl", 5, id="receipt_v1"),
    pytest.param("hostile.jsonl", 3, id="hostile_content"),
    pytest.param("hostile.jsonl", 2, id="hostile_approval"),
    pytest.param("declared-break.jsonl", 5, id="declared_break"),
    pytest.param("session.jsonl", 8, id="continuity_row"),
]


@pytest.mark.parametrize(("ledger", "line"), ROWS)
def test_snapshot_row(snap_compare, ledger, line):
    async def run(pilot):
        await on_tab(pilot, ledger)
        await goto(pilot, line)

    assert snap_compare(app_on_samples(), terminal_size=SIZE, run_before=run)


def test_snapshot_broken_banner_first_break(snap_compare):
    async def run(pilot):
        await on_tab(pilot, "tampered.jsonl")
        await pilot.press("b")
        await pilot.pause()

    assert snap_compare(app_on_samples(), terminal_size=SIZE, run_before=run)


def test_snapshot_filter_receipts(snap_compare):
    async def run(pilot):
        tab = await on_tab(pilot, "session.jsonl")
        tab.apply_filter("kind:compaction_receipt")
        await settle(pilot.app, pilot)

    assert snap_compare(app_on_samples(), terminal_size=SIZE, run_before=run)


def test_snapshot_held_content_liar(snap_compare, monkeypatch):
    # paths typed relative to the project, so the picture does not depend on where
    # the checkout lives
    monkeypatch.chdir(SAMPLES.parent)

    async def run(pilot):
        await on_tab(pilot, "liar.jsonl")
        await goto(pilot, 3)
        rel = HELD.relative_to(SAMPLES.parent)
        scr = await load_held(pilot.app, pilot, rel / "liar-pre.json", rel / "liar-post.json")
        scr.query_one("#pre").blur()
        await pilot.pause()

    assert snap_compare(app_on_samples(), terminal_size=SIZE, run_before=run)


def test_snapshot_lookup(snap_compare):
    async def run(pilot):
        await on_tab(pilot, "session.jsonl")
        await pilot.press("l")
        await pilot.pause()
        scr = pilot.app.screen
        await settle(pilot.app, pilot)
        scr._load_file(str(HELD / "session-pre.jsonl"))
        await pilot.pause()
        scr.query_one("#lookup-hits").focus()
        await pilot.pause()

    assert snap_compare(app_on_samples(), terminal_size=SIZE, run_before=run)


def test_snapshot_pin_screen(snap_compare):
    async def run(pilot):
        await on_tab(pilot, "truncated.jsonl")
        await pilot.press("c")
        await pilot.pause()
        pilot.app.screen.query_one("#pin").value = PIN
        await pilot.pause()

    assert snap_compare(app_on_samples(), terminal_size=SIZE, run_before=run)


def test_snapshot_pin_truncated_banner(snap_compare):
    async def run(pilot):
        await on_tab(pilot, "truncated.jsonl")
        await check_pin(pilot.app, pilot, PIN)

    assert snap_compare(app_on_samples(), terminal_size=SIZE, run_before=run)
