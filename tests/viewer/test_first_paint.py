"""The first paint: `sealscope FILE` draws a ledger's first screen with one widget, builds
the real tabs behind it, swaps them in, and keeps every key typed meanwhile."""

from __future__ import annotations

from pathlib import Path

from sealscope.cmd_view import viewer_app
from sealscope.core.sanitize import clean
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.first_paint import FirstPaint, tab_labels
from sealscope.viewer.row_list import RowList
from textual.widgets import TabbedContent

from tests.viewer.viewer_helpers import SAMPLES, settle, sync, until

SIZE = (120, 36)
SESSION = SAMPLES / "session.jsonl"


class Held(SealscopeApp):
    """The app stopped at its first paint: the build runs only when the test says."""

    def __init__(self, paths) -> None:
        super().__init__(paths, first_paint=True)
        self.build_asked = False

    async def _build_behind_first_paint(self) -> None:
        self.build_asked = True

    def build_now(self) -> None:
        self.call_later(SealscopeApp._build_behind_first_paint, self)


def screen_lines(app) -> list[str]:
    return [strip.text for strip in app.screen._compositor.render_strips()]


def test_the_cli_app_paints_first_only_for_a_ledger_in_front(tmp_path):
    assert viewer_app([str(SESSION)]).first_paint is not None
    assert viewer_app([]).first_paint is not None  # the samples: session.jsonl first
    seal = SAMPLES / "seals" / "seal-day1.json"
    assert viewer_app([str(seal), str(SESSION)]).first_paint is None
    assert viewer_app([str(SAMPLES)]).first_paint is not None
    assert viewer_app([str(tmp_path), str(SESSION)]).first_paint is None  # a fleet first
    assert SealscopeApp([SESSION]).first_paint is None  # only when asked


def test_tab_labels_are_the_names_the_tabs_take():
    assert tab_labels(
        [
            Path("a/session.jsonl"),
            Path("b/seal-day1.json"),
            Path("c/x.log"),
            Path("d/notes.txt"),
            Path("e/\x1b[31mred.jsonl"),
        ]
    ) == [
        ("…", "session"),
        ("…", "seal-day1"),
        ("…", "x"),
        ("…", "notes.txt"),
        ("…", clean("\x1b[31mred")),
    ]
    assert clean("\x1b[31mred") != "\x1b[31mred"  # made visible


@sync
async def test_the_first_paint_draws_the_rows_the_list_then_shows():
    app = Held([SESSION, SAMPLES / "tampered.jsonl"])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.build_asked)
        await pilot.pause()
        first = app.first_paint
        assert isinstance(first, FirstPaint) and first.rows_drawn > 0
        assert not app.query(TabbedContent)  # no real tab yet
        before = screen_lines(app)
        assert before[0].split() == ["⭘", "sealscope", "—", "audit", "viewer"]
        assert before[1].split() == ["…session", "…tampered"]
        assert "indexing…" in before[3] and "session.jsonl" in before[3]
        assert before[5].split()[:4] == ["line", "ts", "kind", "summary"]
        assert before[6].startswith("…    1 2026-03-01T09:00:00Z session_start")
        assert before[16].startswith("…   11 ")  # the last of 11 rows
        assert before[17][:70].strip() == ""  # no row under them; the
        assert before[17][70:].strip() == "░▏"  # strip bins line 12 (after the
        # last line break) as the real strip does
        assert before[34].startswith(" line 1 · 11 lines")
        app.build_now()
        await settle(app, pilot)
        assert app.first_paint is None and not app.query(FirstPaint)
        after = screen_lines(app)
        # the same rows, cell for cell (the marks now say verified; verified, the
        # progress bar has gone, and the banner takes a second line for the scope
        # beside its VERIFIED, so the list starts under the column heading wherever)
        top = next(i for i, line in enumerate(after) if line.split()[:2] == ["line", "ts"]) + 1
        assert [line[1:71] for line in after[top : top + 11]] == [
            line[1:71] for line in before[6:17]
        ]
        assert {line[71] for line in before[6:17]} == {"░"}  # the strip: not verified yet
        assert {line[0] for line in after[top : top + 11]} == {"✓"}
        assert {line[0] for line in before[6:17]} == {"…"}
        assert after[1].split() == ["✓session", "✗tampered"]
        assert isinstance(app.focused, RowList)


@sync
async def test_keys_typed_on_the_first_paint_act_once_the_tabs_are_up():
    app = Held([SESSION, SAMPLES / "tampered.jsonl"])
    async with app.run_test(size=SIZE) as pilot:
        await until(pilot, lambda: app.build_asked)
        await pilot.press("down", "down", "right_square_bracket", "b")
        assert app.first_paint is not None  # held, nothing acted
        assert not app.query(TabbedContent)
        app.build_now()
        await settle(app, pilot)
        tab = app.current_tab()
        # ] brought tampered.jsonl forward, b jumped to its first break (line 4) ...
        assert tab is not None and tab.path == str(SAMPLES / "tampered.jsonl")
        assert tab.result.first_break.startswith("line 4: ")
        assert tab.rows.current_line == 4
        # ... after down down moved session.jsonl's cursor to line 3
        session = app.ledger_tabs()[0]
        assert session.path == str(SESSION) and session.rows.current_line == 3


@sync
async def test_sealscope_file_swaps_by_itself_and_the_screen_is_the_usual_one():
    app = viewer_app([str(SESSION)])
    assert app is not None
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        swapped = screen_lines(app)
    plain = SealscopeApp([SESSION])
    async with plain.run_test(size=SIZE) as pilot:
        await settle(plain, pilot)
        assert screen_lines(plain) == swapped


def test_snapshot_first_paint(snap_compare):
    async def run(pilot):
        await until(pilot, lambda: pilot.app.build_asked)
        await pilot.pause()

    assert snap_compare(Held([SAMPLES]), terminal_size=SIZE, run_before=run)
