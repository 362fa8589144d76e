"""What the 10M-row file needs of the keys, on a smaller file held "being indexed"
(no timing: the index waits on an event): a search, `n` and the overview strip pressed
before the index is complete are acted on once it is (or once verified), and land where
they would have on the indexed file; the banner's progress only rises and ends at the
verdict. `End`, `g`, `b` and filters while indexing are test_big_files.py's."""

from __future__ import annotations

import pytest
from sealscope.viewer import ledger_find
from sealscope.viewer.app import SealscopeApp

from tests.viewer.test_big_files import _HeldIndex, big_ledger
from tests.viewer.viewer_helpers import answer, settle, sync, until

SIZE = (120, 36)


def two_breaks(tmp_path):
    """20,000 rows, rows 6,000 and 15,000 edited after chaining (two chain mismatches)."""
    p = big_ledger(tmp_path, tamper=15000)
    lines = p.read_bytes().split(b"\n")
    lines[5999] = lines[5999].replace(b"question number", b"question NUMBER")
    p.write_bytes(b"\n".join(lines))
    return p


@pytest.mark.parametrize("big", [False, True])
@sync
async def test_a_search_typed_while_indexing_lands_and_counts_once_indexed(
    tmp_path, monkeypatch, big
):
    if big:  # searched and counted in workers, as a file past COUNT_AT_ONCE is
        monkeypatch.setattr(ledger_find, "COUNT_AT_ONCE", 1 << 10)
    held = _HeldIndex(monkeypatch)
    app = SealscopeApp([big_ledger(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tab = app.current_tab()
        assert not tab.source.complete and tab.source.line_count < 19000
        tab.rows.focus()
        await pilot.press("slash")
        await answer(pilot, 'question number 19000"')  # on line 19,001 only
        await pilot.pause()
        assert tab.finder.search_at is None
        assert any("search: done once the file is indexed" in n.message for n in app._notifications)
        held.release()
        await settle(app, pilot)
        await until(pilot, lambda: tab.finder.search_count is not None)
        assert tab.rows.current_line == 19001 == tab.finder.search_at
        assert tab.finder._match_words() == "match 1 of 1"
        await pilot.press("S")  # backwards from the only match: wraps to it
        await until(pilot, lambda: tab.finder.search_wrapped == "wrapped to the bottom")
        assert tab.rows.current_line == 19001
        tab.finder.last_search = "no such text anywhere"
        await pilot.press("s")
        await until(
            pilot, lambda: any("not found: no such text" in n.message for n in app._notifications)
        )


@sync
async def test_n_pressed_while_indexing_goes_to_the_first_break_after_the_cursor(
    tmp_path, monkeypatch
):
    held = _HeldIndex(monkeypatch)
    app = SealscopeApp([two_breaks(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tab = app.current_tab()
        tab.rows.focus()
        await pilot.press("n")
        await pilot.pause()
        assert not tab.source.complete and tab.rows.current_line == 1
        held.release()
        await settle(app, pilot)
        assert sorted(tab.rows.findings) == [6000, 15000]
        assert tab.rows.current_line == 6000
        await pilot.press("n")
        await pilot.pause()
        assert tab.rows.current_line == 15000
        await pilot.press("p")
        await pilot.pause()
        assert tab.rows.current_line == 6000


@sync
async def test_the_strip_while_indexing_maps_the_indexed_lines_then_the_whole_file(
    tmp_path, monkeypatch
):
    held = _HeldIndex(monkeypatch)
    app = SealscopeApp([two_breaks(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tab = app.current_tab()
        tab.rows.focus()
        known = tab.source.line_count
        assert not tab.source.complete and 0 < known < 20000
        await pilot.press("m")
        await pilot.press("9")  # nine tenths of what is indexed so far
        await pilot.pause()
        assert known * 0.85 <= tab.rows.current_line <= known
        assert tab.strip.model.lines == known
        assert set(tab.strip.bin_classes()) == {"pending"}
        held.release()
        await settle(app, pilot)
        assert tab.strip.model.lines == tab.source.line_count
        await pilot.press("m")  # the strip has the keyboard: m hides it
        await pilot.press("m")  # ... and m again shows and focuses it
        await pilot.press("5")
        await pilot.pause()
        assert 9500 <= tab.rows.current_line <= 10500
        classes = tab.strip.bin_classes()
        assert classes.count("break") == 2 and "pending" not in classes


@sync
async def test_the_banner_progress_only_rises_and_ends_at_the_verdict(tmp_path, monkeypatch):
    held = _HeldIndex(monkeypatch)
    app = SealscopeApp([big_ledger(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tab = app.current_tab()
        seen: list[tuple[str, float]] = []
        reading = tab.set_reading

        def record(state: str, pct: float | None = None, message: str | None = None) -> None:
            reading(state, pct, message)
            if pct is not None:  # the percent the banner is handed with its state
                seen.append((state, pct))

        tab.set_reading = record
        assert tab.banner.state == tab.reading_state == "indexing"
        held.release()
        await settle(app, pilot)
        assert tab.banner.state == "done" and tab.result.ok
        for state in ("indexing", "verifying"):
            pcts = [p for s, p in seen if s == state]
            assert pcts == sorted(pcts), state
            assert all(0 <= p <= 100 for p in pcts)
        assert [p for s, p in seen if s == "indexing"][-1:] == [100.0]
        # never "100 %" before the verdict: the verifying bar stops at 99 until it is in
        assert all(p <= 99 for s, p in seen if s == "verifying")
