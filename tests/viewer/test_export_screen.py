"""`x` on a big file (issue 18): the report is built in a worker with a progress bar,
the screen acts on keys while it runs, Escape or Cancel stops it and a cancelled export
leaves no file; a folder that does not exist is created only when asked twice.

The export is held mid-way by a gate on the receipt scan's progress (after its first
window is reported), so "while it runs" is a state, not a timing."""

from __future__ import annotations

import json
import threading

import pytest
from sealscope.core import export, lookup
from sealscope.viewer.export_action import ExportScreen, write_report
from textual.widgets import Button, Input, ProgressBar

from tests.viewer.test_big_files import big_ledger
from tests.viewer.viewer_helpers import SAMPLES, opened, start_export, sync

ROWS = 40000  # ~16 MB: two windows of the receipt scan


class _HeldExport:
    """Holds the export's receipt scan after its first progress report, until
    `release()`; `reached` is set once it holds."""

    def __init__(self, monkeypatch):
        self.gate, self.reached = threading.Event(), threading.Event()
        real = lookup.iter_receipt_rows

        def rows(path, on_progress=None, **kw):
            def progress(done, total):
                on_progress(done, total)
                if done < total:
                    self.reached.set()
                    self.gate.wait(60)

            return real(path, progress if on_progress is not None else None, **kw)

        monkeypatch.setattr(lookup, "iter_receipt_rows", rows)

    async def wait(self, pilot) -> None:
        for _ in range(3000):
            if self.reached.is_set():
                await pilot.pause()
                return
            await pilot.pause(0.01)
        raise AssertionError("the export never reached its gate")

    def release(self) -> None:
        self.gate.set()


def status(scr) -> str:
    return str(scr.query_one("#export-status").render())


async def until_closed(app, pilot, scr) -> None:
    for _ in range(3000):
        if app.screen is not scr and not any(w.is_running for w in app.workers):
            return
        await pilot.pause(0.01)
    raise AssertionError("the export screen never closed")


def outputs(base) -> list:
    return [
        p
        for p in (base.with_name(base.name + ".md"), base.with_name(base.name + ".json"))
        if p.exists()
    ]


@sync
async def test_escape_while_a_big_export_runs_cancels_it_and_writes_nothing(tmp_path, monkeypatch):
    ledger = big_ledger(tmp_path, rows=ROWS)
    out = tmp_path / "out"
    out.mkdir()
    base = out / "big-audit"
    async with opened([ledger]) as (app, pilot):
        held = _HeldExport(monkeypatch)
        scr = await start_export(app, pilot, base)
        await held.wait(pilot)
        # the worker is busy: the bar shows the part read, the input is locked
        pct = scr.query_one("#export-progress", ProgressBar).percentage
        assert pct is not None and 0 < pct < 1
        assert scr.query_one(Input).disabled and scr.running
        await pilot.press("escape")  # acted on while the worker runs
        await pilot.pause()
        assert app.screen is scr and scr.cancel_event.is_set()
        assert status(scr) == "cancelling… nothing will be written"
        held.release()
        await until_closed(app, pilot, scr)
        assert scr.written is None
        assert any(
            "export cancelled: nothing written" in str(n.message) for n in app._notifications
        )
        await pilot.press("x")  # the app goes on answering
        await pilot.pause()
        assert isinstance(app.screen, ExportScreen) and app.screen is not scr
    assert outputs(base) == [] and list(out.iterdir()) == []


@sync
async def test_the_cancel_button_stops_the_export(tmp_path, monkeypatch):
    ledger = big_ledger(tmp_path, rows=ROWS)
    base = tmp_path / "report" / "big-audit"
    async with opened([ledger]) as (app, pilot):
        held = _HeldExport(monkeypatch)
        scr = await start_export(app, pilot, base)
        assert "does not exist: enter again creates it" in status(scr)
        await pilot.press("enter")  # asked twice: the folder is made
        await held.wait(pilot)
        cancel = scr.query_one("#export-cancel", Button)
        assert app.focused is cancel and not cancel.disabled
        await pilot.press("enter")  # presses Cancel
        await pilot.pause()
        assert cancel.disabled and scr.cancel_event.is_set()
        held.release()
        await until_closed(app, pilot, scr)
        assert scr.written is None
    # nothing stays: neither file, nor the folder made for them
    assert not (tmp_path / "report").exists()


@sync
async def test_a_big_export_runs_to_the_end_with_its_progress(tmp_path, monkeypatch):
    ledger = big_ledger(tmp_path, rows=ROWS, tamper=30000)
    out = tmp_path / "out"
    out.mkdir()
    seen: list[float] = []
    real = ExportScreen.on_export_progress

    def spy(scr, m):
        seen.append(m.pct)
        real(scr, m)

    monkeypatch.setattr(ExportScreen, "on_export_progress", spy)
    async with opened([ledger]) as (app, pilot):
        held = _HeldExport(monkeypatch)
        scr = await start_export(app, pilot, out / "big-audit")
        await held.wait(pilot)
        held.release()
        await until_closed(app, pilot, scr)
        assert scr.written == [str(out / "big-audit.md"), str(out / "big-audit.json")]
    assert seen == sorted(seen) and seen[-1] == 100.0 and any(0 < p < 100 for p in seen)
    doc = json.loads((out / "big-audit.json").read_text())
    assert (doc["verdict"], doc["exit_code"]) == ("BROKEN", 1)
    assert doc["ledger"]["first_break"] == "line 30000: chain mismatch"


@sync
async def test_a_missing_folder_is_never_created_silently(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        scr = await start_export(app, pilot, tmp_path / "a" / "b" / "session-audit")
        assert status(scr) == (
            f"the folder {tmp_path / 'a' / 'b'} does not exist: enter "
            "again creates it and writes there, or change the path"
        )
        assert app.screen is scr and not (tmp_path / "a").exists()
        # another path: asked again for that one, not created on the first Enter
        scr.query_one(Input).value = str(tmp_path / "c" / "session-audit")
        await pilot.press("enter")
        await pilot.pause()
        assert "does not exist" in status(scr) and not (tmp_path / "c").exists()
        # under a file: no folder can be made there
        (tmp_path / "plain").write_text("x")
        scr.query_one(Input).value = str(tmp_path / "plain" / "session-audit")
        await pilot.press("enter")
        await pilot.pause()
        assert status(scr) == f"{tmp_path / 'plain'} is not a folder: choose another path"
        await pilot.press("enter")
        await pilot.pause()
        assert app.screen is scr and scr.written is None
        # asked twice for the same folder: made, and the report written there
        scr.query_one(Input).value = str(tmp_path / "c" / "session-audit")
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("enter")
        await until_closed(app, pilot, scr)
    assert scr.written == [
        str(tmp_path / "c" / "session-audit.md"),
        str(tmp_path / "c" / "session-audit.json"),
    ]
    assert not (tmp_path / "a").exists()


def test_a_write_cancelled_between_its_files_removes_what_it_wrote(tmp_path):
    report = export.build_report(SAMPLES / "session.jsonl")
    base = tmp_path / "new" / "deeper" / "session-audit"
    asked: list[str] = []

    def cancelled() -> bool:  # no before the Markdown, yes before the JSON
        asked.append(sorted(p.name for p in base.parent.iterdir()))
        return len(asked) > 1

    with pytest.raises(export.Cancelled):
        write_report(report, base, create=True, cancelled=cancelled)
    assert asked == [[], ["session-audit.md"]]  # the Markdown was written...
    assert list(tmp_path.iterdir()) == []  # ...and removed, with its folders
    with pytest.raises(FileNotFoundError):  # never a folder unless asked
        write_report(report, base)
    assert list(tmp_path.iterdir()) == []
