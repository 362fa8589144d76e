"""Follow mode: a ledger tab follows its file as rows are appended, pins to the last
row, and turns red at once when the file is truncated or rewritten while open."""

from __future__ import annotations

import asyncio
import contextlib
import json

import pytest
from sealscope.core import ledger as L
from sealscope.core import verdict
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.follow_mode import FollowMode

from tests.viewer.viewer_helpers import answer, settle, sync, until

SIZE = (120, 36)


@pytest.fixture(autouse=True)
def fast_polls(monkeypatch):
    monkeypatch.setattr(FollowMode, "follow_poll", 0.03)


def _ledger(p, n, start=0):
    for i in range(start, start + n):
        L.append(p, {"kind": "note", "i": i, "ts": f"2026-11-30T12:00:{i:02d}Z"})
    return p


async def start_following(app, pilot):
    """Settled, the one ledger tab following its file and focused: that tab."""
    await settle(app, pilot)
    (tab,) = app.ledger_tabs()
    await until(pilot, lambda: tab.following)
    tab.rows.focus()
    await pilot.pause()
    return tab


@contextlib.asynccontextmanager
async def following(p):
    """The viewer on the ledger `p`, its tab following the file: (pilot, tab)."""
    app = SealscopeApp([p])
    async with app.run_test(size=SIZE) as pilot:
        yield pilot, await start_following(app, pilot)


def rewrite_row_2(p) -> None:
    """Rewrite row 2 in place (same file, same size): `"i": 1` becomes `"i": 7`."""
    data = p.read_bytes().replace(b'"i": 1,', b'"i": 7,', 1)
    with p.open("r+b") as fh:
        fh.write(data)


@sync
async def test_appended_rows_are_shown_verified_and_a_break_turns_it_red(tmp_path):
    p = _ledger(tmp_path / "live.jsonl", 5)
    async with following(p) as (pilot, tab):
        assert tab.banner.combined_verdict == "VERIFIED"
        _ledger(p, 3, 5)
        await until(pilot, lambda: tab.result.rows == 8)
        assert tab.source.line_count == 9  # 8 rows and the empty line after the last break
        assert tab.banner.combined_verdict == "VERIFIED" and "-verified" in tab.banner.classes
        assert [tab.rows.status(n) for n in range(1, 9)] == ["ok"] * 8
        assert tab.source.row(8).obj["i"] == 7
        assert tab.result == L.verify(p)
        # a half-written row is not shown until its line break lands
        with p.open("a") as fh:
            fh.write('{"kind": "note", "i": 8, "ts": "x", "chain": "0')
        await asyncio.sleep(0.2)
        await pilot.pause()
        assert tab.source.line_count == 9 and tab.banner.combined_verdict == "VERIFIED"
        with p.open("a") as fh:
            fh.write('000"}\n')
        await until(pilot, lambda: tab.result.rows == 9)
        assert tab.banner.combined_verdict == "BROKEN" and "-broken" in tab.banner.classes
        assert tab.rows.status(9) == "break"
        assert tab.result.first_break == "line 9: chain mismatch"
        assert tab.following  # a break is a verdict, not a reason to stop


@sync
async def test_truncation_while_open_turns_red_and_keeps_the_rows_shown(tmp_path):
    p = _ledger(tmp_path / "live.jsonl", 6)
    async with following(p) as (pilot, tab):
        size = p.stat().st_size
        shown = tab.source.line_count
        lines = p.read_bytes().splitlines(keepends=True)
        with p.open("r+b") as fh:
            fh.truncate(len(b"".join(lines[:4])))
        await until(pilot, lambda: tab.banner.state == "alarm")
        assert tab.message == (
            f"TRUNCATED while open: 2 rows gone (file shrank from "
            f"{size:,} to {p.stat().st_size:,} bytes)"
        )
        assert "-broken" in tab.banner.classes and tab.banner.combined_verdict == "BROKEN"
        assert not tab.following and tab.source.line_count == shown
        status = str(tab.query_one("#list-status").render())
        assert "NOT FOLLOWING" in status


@sync
async def test_rewrite_of_an_earlier_row_while_open_turns_red(tmp_path):
    p = _ledger(tmp_path / "live.jsonl", 6)
    async with following(p) as (pilot, tab):
        n = p.stat().st_size
        rewrite_row_2(p)
        await until(pilot, lambda: tab.banner.state == "alarm")
        assert tab.message == f"REWRITTEN while open: prefix changed in bytes 0–{n:,}"
        assert tab.banner.combined_verdict == "BROKEN"
        assert tab.source.row(2).obj["i"] == 1  # the row already shown is not replaced


@sync
async def test_end_pins_moving_up_unpins_and_new_rows_are_counted(tmp_path):
    p = _ledger(tmp_path / "live.jsonl", 4)
    async with following(p) as (pilot, tab):
        await pilot.press("end")
        await pilot.pause()
        assert tab.pinned
        _ledger(p, 2, 4)
        await until(pilot, lambda: tab.result.rows == 6)
        await until(pilot, lambda: tab.rows.current_line == tab.source.shown_lines)
        assert tab.pinned and tab.unseen == 0
        await pilot.press("up", "up")
        await pilot.pause()
        assert not tab.pinned
        cur = tab.rows.current_line
        _ledger(p, 3, 6)
        await until(pilot, lambda: tab.unseen == 3)
        assert tab.rows.current_line == cur
        assert "+3 new rows" in str(tab.query_one("#list-status").render())
        await pilot.press("end")
        await pilot.pause()
        assert tab.pinned and tab.unseen == 0
        assert "new rows" not in str(tab.query_one("#list-status").render())


@sync
async def test_a_banner_growing_a_line_keeps_the_cursor_row_in_view(tmp_path):
    """The REWRITTEN banner takes three lines (what happened, the rows shown, how to
    re-verify): the list shrinks by two, and the pinned
    cursor's row (the last) scrolls up into view instead of dropping below it."""
    p = _ledger(tmp_path / "live.jsonl", 60)
    async with following(p) as (pilot, tab):
        await pilot.press("end")
        await pilot.pause()
        rl = tab.rows
        h0 = rl.scrollable_content_region.height
        assert rl.current_line == 60 and int(rl.scroll_offset.y) == 60 - h0
        rewrite_row_2(p)
        await until(pilot, lambda: tab.banner.state == "alarm")
        await until(pilot, lambda: rl.scrollable_content_region.height == h0 - 2)
        await pilot.pause()
        top, h = int(rl.scroll_offset.y), rl.scrollable_content_region.height
        assert rl.current_line == 60 and top == 60 - h
        assert tab.strip.viewport == (61 - h, 60)


@sync
async def test_pinned_rows_arriving_at_once_past_a_screenful_keep_the_last_row_in_view(tmp_path):
    """Rows that overflow the list in one poll (its scrollbar not shown yet) still
    scroll the pinned cursor's row into view, and the strip's ▶ bins say so."""
    whole = _ledger(tmp_path / "whole.jsonl", 60).read_bytes()
    head = b"".join(whole.splitlines(keepends=True)[:3])
    p = tmp_path / "live.jsonl"
    p.write_bytes(head)
    async with following(p) as (pilot, tab):
        await pilot.press("end")
        await pilot.pause()
        assert tab.pinned and not tab.rows.show_vertical_scrollbar
        with p.open("ab") as fh:
            fh.write(whole[len(head) :])  # 57 rows in one write: one poll sees them all
        await until(pilot, lambda: tab.result.rows == 60)
        await pilot.pause()
        rl = tab.rows
        top, h = int(rl.scroll_offset.y), rl.scrollable_content_region.height
        assert rl.current_line == 60 and top <= rl.cursor < top + h
        assert tab.strip.viewport == (61 - h, 60)


def test_snapshot_new_rows_marker_and_following_badge(snap_compare, tmp_path):
    p = _ledger(tmp_path / "live.jsonl", 6)

    async def run(pilot):
        app = pilot.app
        tab = await start_following(app, pilot)
        await pilot.press("end")
        await pilot.press("up", "up")
        await pilot.pause()
        _ledger(p, 4, 6)
        await until(pilot, lambda: tab.unseen == 4)
        await pilot.pause()

    assert snap_compare(SealscopeApp([p]), terminal_size=SIZE, run_before=run)


def test_rows_written_by_another_process_file_is_only_read(tmp_path):
    """The follower never writes: the ledger directory holds only what the writer made."""
    p = _ledger(tmp_path / "live.jsonl", 2)
    before = sorted(x.name for x in tmp_path.iterdir())

    async def body():
        async with following(p) as (pilot, tab):
            with p.open("a") as fh:
                fh.write(json.dumps({"legacy": True}) + "\n")
            await until(pilot, lambda: tab.result.rows == 3)
            assert tab.result.first_break == "line 3: unchained row after chain began"

    asyncio.run(body())
    assert sorted(x.name for x in tmp_path.iterdir()) == before


@sync
async def test_reopening_a_file_truncated_while_open_checks_it_against_the_head_seen(tmp_path):
    """`o` on a file that alarmed opens a new tab pinned to the head verified before:
    BROKEN (the pin's rows are gone), not a fresh green verdict of what is left."""
    p = _ledger(tmp_path / "live.jsonl", 6)
    async with following(p) as (pilot, tab):
        lines = p.read_bytes().splitlines(keepends=True)
        with p.open("r+b") as fh:
            fh.truncate(len(b"".join(lines[:4])))
        await until(pilot, lambda: tab.banner.state == "alarm")
        assert "re-verify: o and this file's path" in str(tab.banner.render())
        app = pilot.app
        await pilot.press("o")
        await answer(pilot, str(p))
        await until(pilot, lambda: app.ledger_tabs() and app.ledger_tabs()[0] is not tab)
        (fresh,) = app.ledger_tabs()
        await settle(app, pilot)
        await until(pilot, lambda: [r.kind for r in fresh.session] == ["pin"])
        await settle(app, pilot)
        assert fresh.result.ok is True  # what is left chains...
        assert fresh.tab_verdict.verdict == verdict.BROKEN  # ...but the head seen is gone
        assert "rows=6" in fresh.session[0].inputs["pin"]
        banner = str(fresh.banner.render())
        assert "pin rows=6: truncated" in banner
