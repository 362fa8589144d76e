"""Issue 29, the ledger tab: rows with a check of their own (a `continuity_verify` row, an
artefact binding, a call row) get a badge in the row list and a panel in the detail
pane, both showing core's check and its word; a file dropped on an artefact binding row
is its held artefact, checked by core, and the banner, the badge and the report follow.
Snapshots (120x36) of each new panel."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.core import ledger
from sealscope.core.export import build_report
from sealscope.viewer.app import SealscopeApp
from textual import events
from textual.widgets import Static

from tests.viewer.viewer_helpers import SAMPLES, goto, opened, settle, sync, until

KINDS = SAMPLES / "kinds"
SIZE = (120, 36)
EXE = Path(sys.executable).with_name("sealscope")


def _check(*args: str) -> dict:
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    p = subprocess.run(
        [*cmd, "check", *args, "--json"],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )
    (res,) = json.loads(p.stdout)
    return res


def _panel_text(tab) -> str:
    panel = tab.query_one("#row-check-panel", Static)
    assert panel.display, "the row check panel is hidden"
    return str(panel.render())


async def _rows_in(app, pilot):
    (tab,) = app.ledger_tabs()
    await until(pilot, lambda: tab.checks.rows is not None, "row checks never came in")
    tab.rows.focus()
    await pilot.pause()
    return tab


async def _drop(app, pilot, tab, path: Path) -> None:
    before = len(tab.session)
    app.post_message(events.Paste(f"'{path}'"))
    await until(pilot, lambda: len(tab.session) > before, "the held artefact was never checked")
    await settle(app, pilot)


@sync
async def test_badges_and_panels_show_cores_check_and_word():
    async with opened([KINDS / "artefacts.jsonl"]) as (app, pilot):
        tab = await _rows_in(app, pilot)
        assert tab.rows.own_checks == {
            1: ("VERIFIED", "artefact: not held"),
            2: ("VERIFIED", "artefact: not held"),
        }
        await goto(pilot, 1)
        text = _panel_text(tab)
        assert "artefact binding" in text and " VERIFIED " in text
        assert "artefact not held" in text and "artefact-report.md" in text
        assert "digest_consistent" in text and "drop or paste" in text
    async with opened([KINDS / "continuity.jsonl"]) as (app, pilot):
        tab = await _rows_in(app, pilot)
        assert tab.rows.own_checks == {1: ("COULD NOT LOOK", "continuity: unmatched")}
        await goto(pilot, 1)
        text = _panel_text(tab)
        assert "continuity verdict row" in text and " COULD NOT LOOK " in text
        assert "unmatched" in text and "divergence" in text
    async with opened([KINDS / "continuity.calls.jsonl"]) as (app, pilot):
        tab = await _rows_in(app, pilot)
        assert set(tab.rows.own_checks) == {1, 2, 3}
        assert tab.rows.own_checks[1] == ("VERIFIED", "call args: match")
        await goto(pilot, 1)
        text = _panel_text(tab)
        assert "call row" in text and " VERIFIED " in text and "match" in text


@sync
async def test_a_row_with_no_check_of_its_own_has_no_panel():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        tab = await _rows_in(app, pilot)
        assert tab.rows.own_checks == {}
        await goto(pilot, 1)
        assert not tab.query_one("#row-check-panel", Static).display


@sync
async def test_a_held_artefact_dropped_on_its_binding_matches_as_check_says(tmp_path):
    path = KINDS / "artefacts.jsonl"
    held = tmp_path / "held"
    held.mkdir()
    shutil.copy(KINDS / "artefact-report.md", held / "artefact-report.md")
    want = _check(str(path), "--artefacts", str(held))
    async with opened([path]) as (app, pilot):
        tab = await _rows_in(app, pilot)
        await goto(pilot, 1)
        await _drop(app, pilot, tab, held / "artefact-report.md")
        assert tab.tab_verdict == (want["verdict"], want["exit_code"]) == ("VERIFIED", 0)
        assert tab.rows.own_checks[1] == ("VERIFIED", "artefact: match")
        assert tab.rows.own_checks[2] == ("VERIFIED", "artefact: not held")
        banner = str(tab.banner.render())
        assert "1 artefact not held" in banner and "held artefact artefact-report.md" in banner
        assert "held file" in _panel_text(tab)
        # no new tab opened for the dropped file
        assert len(app.ledger_tabs()) == 1 and len(app.panes()) == 1


@sync
async def test_a_different_file_dropped_on_a_binding_is_broken_in_banner_badge_and_report(
    tmp_path,
):
    path = KINDS / "artefacts.jsonl"
    held = tmp_path / "held"
    held.mkdir()
    (held / "artefact-report.md").write_text("not the report that was bound\n")
    want = _check(str(path), "--artefacts", str(held))
    assert want["verdict"] == "BROKEN"
    async with opened([path]) as (app, pilot):
        tab = await _rows_in(app, pilot)
        await goto(pilot, 1)
        await _drop(app, pilot, tab, held / "artefact-report.md")
        assert tab.tab_verdict == (want["verdict"], want["exit_code"]) == ("BROKEN", 1)
        assert tab.rows.own_checks[1] == ("BROKEN", "artefact: mismatch")
        assert " BROKEN " in str(tab.banner.render())
        assert "mismatch" in _panel_text(tab)
        report = build_report(path, session=tab.session, verify_result=tab.result)
        assert (report.verdict, report.exit_code) == ("BROKEN", 1)
        # Delete clears the held artefact: back to the binding's own check
        await pilot.press("delete")
        await settle(app, pilot)
        assert tab.tab_verdict == ("VERIFIED", 0)
        assert tab.rows.own_checks[1] == ("VERIFIED", "artefact: not held")


HOSTILE = "[bold red]x\x1b[31m\u202eevil"
HOSTILE_SHOWN = "[bold red]x\\x1b[31m\\u202eevil"


def _hostile_ledger(path: Path) -> Path:
    """Line 1 an artefact binding, line 2 a continuity_verify row, line 3 a call row,
    each with markup, an escape sequence and a bidi override in its strings."""
    name = HOSTILE + ".md"
    ledger.append(
        path,
        {
            "evt": "artefact",
            "artefact": {
                "subject": {"name": name, "digest": {"sha256": "a" * 64}},
                "digest": "sha256:raw-bytes:v1:" + "b" * 64,
            },
            "ts": "2026-03-02T10:00:00Z",
        },
    )
    row = json.loads((KINDS / "continuity.jsonl").read_text())
    row.pop("chain")
    ledger.append(path, dict(row, label=HOSTILE, comparison=HOSTILE))
    ledger.append(
        path,
        {
            "op": "tool_call",
            "tool": HOSTILE,
            "ts": "2026-03-02T10:00:01.000000+00:00",
            "args_digest": HOSTILE,
            "args": None,
            "args_bytes": 0,
            "ok": True,
        },
    )
    return path


@sync
async def test_hostile_strings_in_a_binding_are_shown_literally(tmp_path):
    path = _hostile_ledger(tmp_path / "hostile-artefact.jsonl")
    async with opened([path]) as (app, pilot):
        tab = await _rows_in(app, pilot)
        assert tab.rows.own_checks == {
            1: ("BROKEN", "artefact: subject_digest_mismatch"),
            2: ("COULD NOT LOOK", "continuity: unmatched"),
            3: ("COULD NOT LOOK", "call args: not inline"),
        }
        for line in (1, 2, 3):
            await goto(pilot, line)
            text = _panel_text(tab)
            assert HOSTILE_SHOWN in text, (line, text)
            assert "\x1b" not in text and "\u202e" not in text
        assert tab.tab_verdict == ("BROKEN", 1)


# ------------------------------------------------------------------ snapshots


def _snap_app(path: Path) -> SealscopeApp:
    return SealscopeApp([path])


async def _on_row(pilot, line: int) -> None:
    await settle(pilot.app, pilot)
    await _rows_in(pilot.app, pilot)
    await goto(pilot, line)
    await settle(pilot.app, pilot)


PANELS = [
    pytest.param(KINDS / "continuity.jsonl", 1, id="continuity_verify_row"),
    pytest.param(KINDS / "artefacts.jsonl", 1, id="artefact_binding_not_held"),
    pytest.param(KINDS / "continuity.calls.jsonl", 2, id="call_row"),
]


@pytest.mark.parametrize(("path", "line"), PANELS)
def test_snapshot_row_check_panel(snap_compare, path, line):
    async def run(pilot):
        await _on_row(pilot, line)

    assert snap_compare(_snap_app(path), terminal_size=SIZE, run_before=run)


def test_snapshot_artefact_held_mismatch(snap_compare, tmp_path, monkeypatch):
    held = tmp_path / "held"
    held.mkdir()
    (held / "artefact-report.md").write_text("not the report that was bound\n")
    monkeypatch.chdir(tmp_path)  # the held file's path as typed: relative, stable

    async def run(pilot):
        await _on_row(pilot, 1)
        (tab,) = pilot.app.ledger_tabs()
        await _drop(pilot.app, pilot, tab, Path("held") / "artefact-report.md")

    assert snap_compare(_snap_app(KINDS / "artefacts.jsonl"), terminal_size=SIZE, run_before=run)
