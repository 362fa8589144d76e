"""Moving around the open files: tab labels carry the verdict, `]`/`[`/`1`-`9` switch
tabs from anywhere on the main screen, and keys typed right behind a switch act in
the tab that came to the front (sent as one burst, as a terminal delivers them)."""

from __future__ import annotations

from pathlib import Path

from sealscope.core import verdict
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.evidence_tab import tab_title
from sealscope.viewer.ledger_tab import LedgerTab
from sealscope.viewer.prompt import ChoiceScreen
from sealscope.viewer.row_list import RowList
from sealscope.viewer.seal_diff import SealDiffScreen
from sealscope.viewer.seal_tab import SealTab
from sealscope.viewer.source import LedgerSource
from textual import events
from textual.widgets import TabbedContent

from tests.viewer.viewer_helpers import SAMPLES, opened, screen_lines, settle, sync

SIZE = (120, 36)

# the samples' tabs once every verdict is in (SAMPLE_TABS order)
SAMPLE_LABELS = [
    "✓session",
    "✗tampered",
    "✓truncated",
    "✓liar",
    "◐declared-break",
    "✓hostile",
    "✓seals-ledger",
    "✓seal-day1",
    "✓seal-day2",
    "✓session-transcript",
]


def burst(app, *keys: str) -> None:
    """Send `keys` to the app at one instant, with no pause between them (Pilot's
    `press` waits for the app to be idle after each key, which hides a lost key)."""
    for key in keys:
        event = events.Key(key, key if len(key) == 1 else None)
        event.set_sender(app)
        app._driver.send_message(event)


async def after_burst(pilot) -> None:
    for _ in range(10):
        await pilot.pause()


def labels(app) -> list[str]:
    tabs = app.query_one(TabbedContent)
    return [tabs.get_tab(p).label.plain for p in app.panes()]


# --------------------------------------------------------------------------- labels


def test_tab_title_is_the_glyph_then_the_sanitized_name():
    assert tab_title("session", "VERIFIED").plain == "✓session"
    assert tab_title("x", "BROKEN").plain == "✗x"
    assert tab_title("x", "COULD NOT LOOK").plain == "◐x"
    assert tab_title("x", None).plain == "…x"
    assert tab_title("a\x1b[31mb", "VALID").plain == "✓a\\x1b[31mb"
    # the glyph is coloured by the word's tone; the name keeps the tab's own colour
    title = tab_title("x", "BROKEN")
    assert [(s.start, s.end, str(s.style)) for s in title.spans] == [(0, 1, "bold red")]


@sync
async def test_sample_tabs_show_their_verdict_glyphs():
    async with opened([SAMPLES]) as (app, _pilot):
        assert labels(app) == SAMPLE_LABELS
        # each glyph is the glyph of the tab's verdict (what its banner and report say)
        for pane, label in zip(app.panes(), SAMPLE_LABELS, strict=True):
            assert pane.tab_verdict is not None
            assert label[0] == verdict.glyph(pane.tab_verdict.verdict)


@sync
async def test_a_label_is_pending_until_the_verdict_and_follows_a_pin_check():
    pin = (SAMPLES / "truncated.pin").read_text().strip()
    app = SealscopeApp([SAMPLES / "truncated.jsonl"])
    async with app.run_test(size=SIZE) as pilot:
        tab = app.current_tab()
        assert isinstance(tab, LedgerTab)
        title = app.query_one(TabbedContent).get_tab(tab)
        if tab.result is None:  # caught before the verdict: pending
            assert title.label.plain == "…truncated"
        await settle(app, pilot)
        assert title.label.plain == "✓truncated"
        await pilot.press("c")
        await pilot.pause()
        app.screen.query_one("#pin").value = pin
        await pilot.press("enter")
        await settle(app, pilot)
        assert tab.banner.combined_verdict == "BROKEN"
        assert tab.tab_verdict == verdict.Outcome(verdict.BROKEN, verdict.WRONG)
        assert title.label.plain == "✗truncated"
        await pilot.press("delete")  # the check cleared: ✓ again
        await settle(app, pilot)
        assert tab.tab_verdict == verdict.Outcome(verdict.VERIFIED, verdict.HELD)
        assert title.label.plain == "✓truncated"


# --------------------------------------------------------------------------- tab keys


@sync
async def test_two_then_b_in_one_burst_lands_on_the_tampered_first_break():
    async with opened([SAMPLES]) as (app, pilot):
        assert app.current_tab().tab_name == "session"
        burst(app, "2", "b")
        await after_burst(pilot)
        tab = app.current_tab()
        assert tab.tab_name == "tampered"
        assert app.focused is tab.rows
        assert tab.rows.current_line == 4 == tab.result.findings[0].line


@sync
async def test_tab_bar_then_right_then_b_in_one_burst_acts_in_the_new_tab():
    async with opened([SAMPLES]) as (app, pilot):
        burst(app, "shift+tab", "right", "b")
        await after_burst(pilot)
        tab = app.current_tab()
        assert tab.tab_name == "tampered" and app.focused is tab.rows
        assert tab.rows.current_line == 4


@sync
async def test_brackets_step_and_wrap_and_digits_jump():
    async with opened([SAMPLES]) as (app, pilot):
        names = [p.tab_name for p in app.panes()]
        await pilot.press("left_square_bracket")  # from the first: wraps to the last
        assert app.current_tab().tab_name == names[-1] == "session-transcript"
        assert app.focused is app.current_tab().main_widget()
        await pilot.press("right_square_bracket")  # and back round to the first
        assert app.current_tab().tab_name == names[0]
        await pilot.press("right_square_bracket", "right_square_bracket")
        assert app.current_tab().tab_name == names[2]
        await pilot.press("9")  # a seal: its manifest tree
        tab = app.current_tab()
        assert tab.tab_name == "seal-day2" and app.focused is tab.main_widget()
        await pilot.press("1")
        assert app.current_tab().tab_name == "session"
        assert isinstance(app.focused, RowList)


@sync
async def test_a_burst_of_switches_from_a_seal_tab_ends_on_the_last_and_stays():
    """Late focus events of a tab already left do not bring it back: the front moves
    7 then 2 and no further (before, the two tabs pulled it back and forth)."""
    async with opened([SAMPLES]) as (app, pilot):
        await pilot.press("8")
        assert app.current_tab().tab_name == "seal-day1"
        tabs = app.query_one(TabbedContent)
        fronts: list[str] = []
        app.watch(tabs, "active", lambda pane_id: fronts.append(pane_id), init=False)
        burst(app, "7", "2", "b")
        await after_burst(pilot)
        names = {p.id: p.tab_name for p in app.panes()}
        assert [names[f] for f in fronts] == ["seals-ledger", "tampered"]
        tab = app.current_tab()
        assert app.focused is tab.rows and tab.rows.current_line == 4


@sync
async def test_at_80x24_the_tab_keys_work_from_the_strip_and_the_detail():
    async with opened([SAMPLES], size=(80, 24)) as (app, pilot):
        assert labels(app) == SAMPLE_LABELS
        burst(app, "2", "b")  # the acceptance burst, small
        await after_burst(pilot)
        tab = app.current_tab()
        assert tab.tab_name == "tampered" and tab.rows.current_line == 4
        await pilot.press("m")  # the strip has the keyboard
        assert type(app.focused).__name__ == "OverviewStrip"
        burst(app, "right_square_bracket", "b")
        await after_burst(pilot)
        tab = app.current_tab()
        assert tab.tab_name == "truncated" and app.focused is tab.rows
        tab.query_one("#detail").focus()
        await pilot.pause()
        burst(app, "9")  # off the bar's right end at 80
        await after_burst(pilot)
        tab = app.current_tab()
        assert tab.tab_name == "seal-day2" and app.focused is tab.main_widget()
        bar = app.query_one(TabbedContent).query_one("ContentTabs")
        shown = app.query_one(TabbedContent).get_tab(tab)
        assert bar.region.contains_region(shown.region)  # scrolled into view


@sync
async def test_a_digit_past_the_last_tab_says_so_and_an_input_keeps_its_digits():
    async with opened([SAMPLES / "session.jsonl", SAMPLES / "tampered.jsonl"]) as (app, pilot):
        notes: list[str] = []
        app.notify = lambda message, **kw: notes.append(message)  # type: ignore[method-assign]
        await pilot.press("5")
        assert notes == ["no tab 5 (2 open)"] and app.current_tab().tab_name == "session"
        # typing a line number: the digits and brackets are text, no tab switch
        await pilot.press("g", "2", "right_square_bracket")
        await pilot.pause()
        assert app.screen.query_one("#prompt-input").value == "2"  # ] refused by restrict
        await pilot.press("escape")
        await pilot.press("slash", "1", "left_square_bracket")
        await pilot.pause()
        assert app.screen.query_one("#prompt-input").value == "1["
        await pilot.press("escape")
        await pilot.pause()
        assert app.current_tab().tab_name == "session"


# --------------------------------------------------------------------------- search


def status_text(tab) -> str:
    return str(tab.query_one("#list-status").render())


@sync
async def test_search_says_match_k_of_n_and_when_it_wraps():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        tab = app.current_tab()
        notes: list[str] = []
        app.notify = lambda message, **kw: notes.append(message)  # type: ignore[method-assign]
        await pilot.press("slash", *"fetch", "enter")
        await pilot.pause()
        assert tab.rows.current_line == 3
        assert "search fetch: match 1 of 2 " in status_text(tab)
        await pilot.press("s")
        assert tab.rows.current_line == 4
        assert "match 2 of 2 " in status_text(tab) and not notes
        await pilot.press("s")  # past the last: wraps
        assert tab.rows.current_line == 3
        assert "match 1 of 2 (wrapped to the top)" in status_text(tab)
        assert notes == ["search wrapped to the top: match 1 of 2"]
        await pilot.press("S")  # before the first: wraps
        assert tab.rows.current_line == 4
        assert "match 2 of 2 (wrapped to the bottom)" in status_text(tab)
        await pilot.press("S")
        assert tab.rows.current_line == 3 and "wrapped" not in status_text(tab)
        # a text matched by one row only: searching again finds itself, said as a wrap
        await pilot.press("slash")
        app.screen.query_one("#prompt-input").value = "session_end"
        await pilot.press("enter")
        await pilot.pause()
        assert tab.rows.current_line == 11 and "match 1 of 1 " in status_text(tab)
        await pilot.press("s")
        assert tab.rows.current_line == 11 and notes[-1].endswith("match 1 of 1")


@sync
async def test_at_80x24_the_search_status_takes_a_second_line_rather_than_lose_its_end():
    async with opened([SAMPLES / "session.jsonl"], size=(80, 24)) as (app, pilot):
        tab = app.current_tab()
        st = tab.query_one("#list-status")
        assert st.size.height == 1  # " line 1 · 11 rows  FOLLOWING"
        await pilot.press("slash", *"agent", "enter")
        await pilot.press(*"s" * 6)  # 7 matches: the 7th s wraps
        await pilot.pause()
        assert tab.rows.current_line == 1
        assert status_text(tab) == (
            " line 1 · search agent: match 1 of 7 (wrapped to the top) · 11 rows   FOLLOWING "
        )
        assert st.size.width < len(status_text(tab)) and st.size.height == 2
        await pilot.press("escape", "F")  # shorter again: one line
        await pilot.press("g", "5", "enter")
        await pilot.pause()
        assert "match" not in status_text(tab) and st.size.height == 1


def test_match_lines_are_the_lines_find_text_stops_on():
    src = LedgerSource(SAMPLES / "hostile.jsonl")
    src.index()
    try:
        for needle in ("tool", "\x1b", "FORGED", "\u202e", "nothing-here"):
            stops, line = set(), 0
            for _ in range(src.line_count + 1):
                n = src.find_text(needle, line)
                if n is None or n in stops:
                    break
                stops.add(n)
                line = n
            assert list(src.match_lines(needle)) == sorted(stops), needle
    finally:
        src.close()


# --------------------------------------------------------------------------- seal diff


@sync
async def test_d_on_a_seal_offers_the_other_open_seals():
    async with opened([SAMPLES, SAMPLES / "seals" / "seal-day1-tampered.json"]) as (app, pilot):
        await pilot.press("8")
        day1 = app.current_tab()
        assert isinstance(day1, SealTab) and day1.tab_name == "seal-day1"
        await pilot.press("d")
        await pilot.pause()
        choice = app.screen
        assert isinstance(choice, ChoiceScreen)
        # the other open seals, valid first, each with its mark, label and date
        shown = [label.plain for label, _p in choice.choices]
        assert shown[0].startswith("✓ seal-day2  label ") and "sealed 2026-" in shown[0]
        assert shown[1] == "✗ seal-day1-tampered  INVALID"
        assert [Path(p).name for _l, p in choice.choices] == [
            "seal-day2.json",
            "seal-day1-tampered.json",
        ]
        await pilot.press("enter")  # the first: seal-day2
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, SealDiffScreen)
        assert Path(scr.current.path).name == "seal-day2.json"
        assert [r.kind for r in day1.session] == ["diff"]


@sync
async def test_d_still_takes_a_typed_path(tmp_path):
    app = SealscopeApp([SAMPLES / "seals" / "seal-day1.json", SAMPLES / "seals" / "seal-day2.json"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        await pilot.press("d")
        await pilot.pause()
        assert isinstance(app.screen, ChoiceScreen)
        path = str(SAMPLES / "seals" / "seal-day2.json")
        await pilot.press(*path)  # typing on the list types the path
        assert app.screen.query_one("#choice-input").value == path
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, SealDiffScreen)


def _ledger_broken_at(path: Path, rows: int, broken: int) -> Path:
    from tests.viewer.glance_ledgers import _ts, _write

    return _write(path, [{"kind": "tool", "n": i, "ts": _ts(i)} for i in range(rows)], (broken,))


@sync
async def test_a_jump_ends_where_the_final_size_puts_it_whichever_came_first(tmp_path):
    """`b` centres the first break; a size change after the jump (a banner growing, a
    terminal resized) makes the jump again at the new size, so the rows end where a
    jump made at that size puts them, not one row off when the size changed first."""
    path = _ledger_broken_at(tmp_path / "long.jsonl", 200, 120)
    shown = {}
    for order in ("jump, then smaller", "smaller, then jump"):
        async with opened([path], size=SIZE) as (app, pilot):
            tab = app.current_ledger()
            keys = ["b"]  # the first break
            if order == "jump, then smaller":
                await pilot.press(*keys)
                await settle(app, pilot)
            await pilot.resize_terminal(SIZE[0], SIZE[1] - 3)
            await settle(app, pilot)
            if order == "smaller, then jump":
                await pilot.press(*keys)
                await settle(app, pilot)
            assert tab.rows.current_line == 120
            h = tab.rows.scrollable_content_region.height
            shown[order] = (int(tab.rows.scroll_offset.y), screen_lines(app))
    assert shown["smaller, then jump"][0] == 119 - h // 2  # centred
    assert shown["jump, then smaller"] == shown["smaller, then jump"]
