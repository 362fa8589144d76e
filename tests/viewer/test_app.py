"""The whole app on the bundled samples: ledger, seal and harn tabs side by side, the
links between a seal and its ledger row, the diff of two seals, export from a ledger
tab, and the first screen a user sees."""

from __future__ import annotations

import json
from pathlib import Path

from sealscope.viewer.app import SAMPLE_TABS, SealscopeApp, expand_paths
from sealscope.viewer.harn_tab import HarnPane
from sealscope.viewer.ledger_tab import LedgerTab
from sealscope.viewer.row_detail import RowDetail
from sealscope.viewer.seal_diff import SealDiffScreen
from sealscope.viewer.seal_tab import SealTab
from textual.widgets import TabbedContent

from tests.viewer.viewer_helpers import (
    HELD,
    ROOT,
    SAMPLES,
    activate,
    answer,
    goto,
    opened,
    settle,
    start_export,
    sync,
    until,
)

SIZE = (120, 36)
SEALS = SAMPLES / "seals"


def pane(app, name: str):
    """The open pane of the file called `name`."""
    for p in app.panes():
        path = p.source.path if isinstance(p, LedgerTab) else p.path
        if Path(path).name == name:
            return p
    raise AssertionError(f"no tab for {name}")


# --------------------------------------------------------------------------- opening


def test_samples_folder_lists_the_curated_tabs():
    names = [str(p.relative_to(SAMPLES)) for p in expand_paths([SAMPLES])]
    assert names == list(SAMPLE_TABS)
    assert "seals/restated-faithful.json" not in names and "seals/tiers.json" not in names
    assert [p.name for p in SealscopeApp().paths] == [Path(n).name for n in SAMPLE_TABS]


def test_a_plain_folder_stays_one_path_for_its_fleet_tab():
    # a plain folder opens as one fleet tab (tests/viewer/test_fleet_tab.py); only the
    # bundled samples folder expands into its curated tabs
    assert expand_paths([SEALS, SEALS / "seal-day1.json"]) == [SEALS, SEALS / "seal-day1.json"]


@sync
async def test_samples_open_ledger_seal_and_harn_tabs():
    async with opened([SAMPLES]) as (app, pilot):
        kinds = [type(p).__name__ for p in app.panes()]
        assert kinds == ["LedgerTab"] * 7 + ["SealTab"] * 2 + ["HarnPane"]
        assert app.current_tab() is pane(app, "session.jsonl")
        assert isinstance(app.focused, type(app.current_tab().rows))
        day1, day2 = pane(app, "seal-day1.json"), pane(app, "seal-day2.json")
        assert day1.seal.status == day2.seal.status == "ok"
        # each seal found its continuity_snapshot row in the seals ledger
        assert [(Path(r.path).name, r.line) for r in day1.ledger_links] == [
            ("seals-ledger.jsonl", 2)
        ]
        assert [(Path(r.path).name, r.line) for r in day2.ledger_links] == [
            ("seals-ledger.jsonl", 4)
        ]
        harn = pane(app, "session-transcript.json")
        assert harn.harn.error is None and harn.harn.checks
        # activating a tab gives its widget the keyboard
        app.query_one(TabbedContent).active = harn.id
        await pilot.pause()
        assert app.focused is harn.harn.query_one("#harn-events")
        app.query_one(TabbedContent).active = day1.id
        await pilot.pause()
        assert app.focused is day1.query_one("#seal-manifest")


@sync
async def test_open_prompt_takes_a_seal_a_harn_file_and_reports_a_bad_one(tmp_path):
    bad = tmp_path / "broken.json"
    bad.write_text('{"run": ')
    async with opened([SEALS / "seals-ledger.jsonl"]) as (app, pilot):
        await pilot.press("o")
        await answer(pilot, str(SEALS / "seal-day1.json"))
        await settle(app, pilot)
        seal = app.current_tab()
        assert isinstance(seal, SealTab) and [r.line for r in seal.ledger_links] == [2]
        await pilot.press("o")
        await answer(pilot, str(SAMPLES / "harn" / "run-record.json"))
        await settle(app, pilot)
        assert isinstance(app.current_tab(), HarnPane)
        n = len(app.panes())
        await pilot.press("o")
        await answer(pilot, str(bad))  # not JSON: opened as a ledger, judged BROKEN
        await settle(app, pilot)
        assert len(app.panes()) == n + 1
        assert app.current_tab().result.first_break == "line 1: unparseable"
        # the same file again shows its tab, no second one
        await app.open_paths([SEALS / "seal-day1.json"])
        assert app.current_tab() is seal and len(app.panes()) == n + 1
        # a .json that is no ledger, seal or harn file, and a missing one: no tab, a notice
        notes: list[str] = []
        app.notify = lambda message, **kw: notes.append(message)  # type: ignore[method-assign]
        await app.open_paths([SEALS / "tiers.json", tmp_path / "missing.jsonl"])
        await settle(app, pilot)
        assert len(app.panes()) == n + 1
        assert any(
            "tiers.json: not a ledger / seal / harn file: it reads as a tiers file" in m
            for m in notes
        )
        assert any("missing.jsonl: cannot read" in m for m in notes)


# --------------------------------------------------------------------------- seals


@sync
async def test_two_seals_diff_lists_changed_added_removed(monkeypatch):
    monkeypatch.chdir(ROOT)
    async with opened([Path("sample_ledgers")]) as (app, pilot):
        day1 = pane(app, "seal-day1.json")
        app.show_tab(day1)
        await pilot.pause()
        await pilot.press("d")
        await answer(pilot, "sample_ledgers/seals/seal-day2.json")
        scr = app.screen
        assert isinstance(scr, SealDiffScreen)
        kinds = [(k, e.get("id")) for k, e in scr.rows if k != "more"]
        assert kinds == [
            ("changed", "open_commitments:0"),
            ("added", "live_threads:seal-diff"),
            ("removed", "live_threads:ledger-verify"),
        ]
        assert scr.doc["n_unchanged"] == 5
        assert [r.kind for r in day1.session] == ["diff"]
        titles = [c.title for c in app.get_system_commands(scr)]
        assert "Next change" in titles
        await pilot.press("escape")
        await pilot.pause()
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Score a restatement" in titles and "Jump to first break" not in titles


@sync
async def test_continuity_row_jumps_to_its_seal_and_back():
    async with opened([SAMPLES]) as (app, pilot):
        ledger = await activate(app, pilot, "seals-ledger.jsonl")
        for line, seal_name in ((2, "seal-day1.json"), (4, "seal-day2.json")):
            app.show_tab(ledger)
            await pilot.pause()
            await goto(pilot, line)
            await pilot.press("j")
            await pilot.pause()
            seal = app.current_tab()
            assert isinstance(seal, SealTab) and Path(seal.path).name == seal_name
            assert app.focused is seal.query_one("#seal-manifest")
            await pilot.press("j")  # and back to the row that sealed it
            await pilot.pause()
            await pilot.pause()
            assert app.current_tab() is ledger
            assert ledger.rows.current_line == line and ledger.detail_line == line
        # a row that is not a snapshot row says so and stays
        await goto(pilot, 3)
        await pilot.press("j")
        await pilot.pause()
        assert app.current_tab() is ledger
        # session.jsonl's snapshot row seals no open snapshot
        session = await activate(app, pilot, "session.jsonl")
        await goto(pilot, 8)
        await pilot.press("j")
        await pilot.pause()
        assert app.current_tab() is session
        notes = [str(m.message) for m in app._notifications]
        print(notes)
        assert any("no open seal matches" in m for m in notes)


# --------------------------------------------------------------------------- export


@sync
async def test_export_from_a_ledger_tab_writes_markdown_and_json(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with opened([SAMPLES]) as (app, pilot):
        tab = await activate(app, pilot, "session.jsonl")
        # held content recomputed for line 7, then looked up: both go in the report
        await goto(pilot, 7)
        tab.open_held(7, pre=HELD / "session-pre.jsonl", post=HELD / "session-post.jsonl")
        await settle(app, pilot)
        await pilot.press("escape")
        await pilot.press("l")
        await settle(app, pilot)
        app.screen._load_file(str(HELD / "session-pre.jsonl"))
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert [r.kind for r in tab.session] == ["recompute", "lookup"]
        (tmp_path / "out").mkdir()  # export makes no folder unasked
        scr = await start_export(app, pilot, tmp_path / "out" / "session-audit")
        assert scr.kind == "ledger"
        await until(pilot, lambda: bool(scr.written), "the report was never written")
        assert scr.written and app.screen is not scr
    doc = json.loads((tmp_path / "out" / "session-audit.json").read_text())
    assert doc["kind"] == "ledger" and doc["verdict"] == "VERIFIED"
    kinds = [r["kind"] for r in doc["session"]]
    assert kinds == ["recompute", "lookup"]
    rec = doc["session"][0]
    assert rec["inputs"]["line"] == 7 and rec["result"]["content"] == "match"
    found = doc["session"][1]["result"]["items"]
    places = sorted((f["line"], f["position"]) for it in found for f in it["found"])
    assert places == [(7, 0), (7, 1), (7, 2)] and len(found) == 5
    md = (tmp_path / "out" / "session-audit.md").read_text()
    assert "VERIFIED" in md and "recomputed" in md


@sync
async def test_export_from_a_harn_tab(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    app = SealscopeApp([SAMPLES / "harn" / "run-record.json"])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        assert app.check_action("export", ()) is True
        (tmp_path / "out").mkdir()  # export makes no folder unasked
        scr = await start_export(app, pilot, tmp_path / "out" / "run-audit")
        assert scr.kind == "harn"
        await until(pilot, lambda: bool(scr.written), "the report was never written")
        assert scr.written
    doc = json.loads((tmp_path / "out" / "run-audit.json").read_text())
    # the verdict is one of the three words; the harn check's own word beside it
    assert doc["kind"] == "harn" and doc["verdict"] == "BROKEN" and doc["exit_code"] == 1
    assert doc["own_result"] == "FINDINGS"
    codes = [f["code"] for c in doc["harn"] for f in c["findings"]]
    assert "archived_understated" in codes
    assert "## harn compaction events" in (tmp_path / "out" / "run-audit.md").read_text()


# --------------------------------------------------------------------------- responsiveness


@sync
async def test_a_run_of_keys_draws_the_detail_once_it_stops():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        tab = app.current_tab()
        shown = []
        real = tab.show_detail
        tab.show_detail = lambda line: (shown.append(line), real(line))
        # the keys arrive at one instant however loaded the machine is
        tab.clock = lambda: 1000.0
        tab._last_nav = 0.0
        await pilot.press("down")  # a single key: drawn at once
        assert shown == [2] and tab.detail_line == 2
        await pilot.press(*["down"] * 6)  # a run: drawn once, for where it stops
        for _ in range(500):
            await pilot.pause(0.02)
            if tab.detail_line == 8:
                break
        assert tab.rows.current_line == 8 and tab.detail_line == 8
        assert shown == [2, 8]
        # jumps are never deferred
        await goto(pilot, 5)
        assert tab.detail_line == 5
        head = str(tab.query_one(RowDetail).query_one("#detail-head").render())
        assert "line 5" in head


# --------------------------------------------------------------------------- first screen


def test_snapshot_first_screen_on_the_samples(snap_compare, monkeypatch):
    monkeypatch.chdir(ROOT)  # seal and harn banners show paths as given

    async def run(pilot):
        await settle(pilot.app, pilot)

    assert snap_compare(SealscopeApp([Path("sample_ledgers")]), terminal_size=SIZE, run_before=run)
