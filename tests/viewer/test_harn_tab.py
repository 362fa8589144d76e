"""HarnTab: snapshot at 120x36 and Pilot flows."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from sealscope.viewer.harn_tab import HarnTab
from textual.app import App, ComposeResult
from textual.widgets import OptionList

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers" / "harn"


class HarnApp(App):
    def __init__(self, source) -> None:
        super().__init__()
        self.source = source

    def compose(self) -> ComposeResult:
        yield HarnTab(self.source, id="harn")


def plain(renderable) -> str:
    console = Console(width=110, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def text_of(app: App, selector: str) -> str:
    tab = app.query_one(HarnTab)
    if selector == "#harn-receipt":
        return plain(tab.receipt_view)
    if selector == "#harn-archived":
        return plain(tab.archived_view)
    assert selector == "#harn-banner"
    return plain(tab.banner_view)


@pytest.mark.parametrize(
    ("name", "press"),
    [
        pytest.param("run-record.json", ["down"], id="run_record"),
        pytest.param("session-transcript.json", [], id="session"),
    ],
)
def test_snapshot(snap_compare, monkeypatch, name, press):
    monkeypatch.chdir(ROOT)  # the banner shows the path as given
    assert snap_compare(
        HarnApp(f"sample_ledgers/harn/{name}"), terminal_size=(120, 36), press=press
    )


def test_moving_through_events_updates_the_panel():
    async def run():
        app = HarnApp(str(SAMPLES / "run-record.json"))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            first = text_of(app, "#harn-receipt")
            assert "legacy flat metadata" in first and "archived_understated" not in first
            app.query_one("#harn-events", OptionList).focus()
            await pilot.press("down")
            await pilot.pause()
            second = text_of(app, "#harn-receipt")
            assert "HIGH   archived_understated  archived_messages claims 3" in second
            assert "3 claimed · content shows 5 gone" in second
            archived = text_of(app, "#harn-archived")
            assert "archived messages (5, positions 0–4 of snapshot" in archived
            assert "Skip the backfill for archived customers" in archived

    asyncio.run(run())


def test_evidence_is_shown_literally_and_escaped(tmp_path):
    async def run():
        from tests.core.test_harn import PRE, compact, m, transcript

        pre = PRE[:2] + [m("user", "[bold red]not markup[/] \x1b[31mESC\u202eRLO\rCR")] + PRE[2:]
        t = compact(transcript(pre), keep_last=2, event_id="evt-[i]x[/i]\x07")
        p = tmp_path / "t.json"
        p.write_text(json.dumps(t))
        app = HarnApp(str(p))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            receipt = text_of(app, "#harn-receipt")
            archived = text_of(app, "#harn-archived")
            assert "evt-[i]x[/i]\\x07" in receipt
            assert "[bold red]not markup[/] \\x1b[31mESC\\u202eRLO\\rCR" in archived
            for raw in ("\x1b", "\u202e", "\r", "\x07"):
                assert raw not in receipt and raw not in archived

    asyncio.run(run())


def test_unreadable_file_shows_the_error(tmp_path):
    async def run():
        app = HarnApp(str(tmp_path / "missing.json"))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            banner = text_of(app, "#harn-banner")
            assert banner.startswith(" COULD NOT LOOK   cannot read ")
            assert "No such file" in app.query_one(HarnTab).error
            assert not app.query("#harn-events")

    asyncio.run(run())


def test_transcript_without_compactions():
    async def run():
        from sealscope.core import harn

        from tests.core.test_harn import PRE, transcript

        doc = harn.document_from_value(transcript(PRE))
        app = HarnApp(doc)
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            assert "0 compaction(s)" in text_of(app, "#harn-banner")
            assert text_of(app, "#harn-receipt").strip() == "no compaction events"

    asyncio.run(run())
