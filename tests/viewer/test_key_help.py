"""The key help (`?`, F1) lists the keys of the tab in front from its Binding lists and
what its marks mean; escape closes it and the palette's keys panel; no footer or hint
is cut off at 80 columns."""

from __future__ import annotations

from pathlib import Path

import pytest
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.commands import declared_bindings
from sealscope.viewer.footer import FitFooter, ShownKey, key_width
from sealscope.viewer.key_help import KeyHelpScreen
from sealscope.viewer.ledger_tab import LedgerTab
from sealscope.viewer.seal_tab import SealTab
from textual.command import CommandPalette
from textual.widgets import HelpPanel

from tests.viewer.viewer_helpers import ROOT, SAMPLES, screen_lines, settle, sync

SMALL = (80, 24)


def help_plain(app) -> str:
    screen = app.screen
    assert isinstance(screen, KeyHelpScreen)
    width = screen.query_one("#key-help-body").size.width
    console = app.console
    opts = console.options.update_width(width)
    lines = console.render_lines(screen.content, opts, pad=False)
    return "\n".join("".join(seg.text for seg in line).rstrip() for line in lines)


@sync
async def test_question_mark_lists_the_ledger_tab_keys_and_marks_and_escape_closes():
    app = SealscopeApp([SAMPLES])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        main = app.screen
        await pilot.press("question_mark")
        await pilot.pause()
        assert isinstance(app.screen, KeyHelpScreen)
        text = help_plain(app)
        assert "this ledger tab: session" in text
        for b in declared_bindings(app.current_tab()):  # every key of the tab, by title
            assert (getattr(b, "title", "") or b.description) in text
        for line in (
            "1–9        Bring tab n to the front",
            "]          Next tab",
            "[          Previous tab",
            "? f1       Key help",
            "R          Samples README",
            "↑          Up",
            "✗          the chain breaks here",
            "◐          could not look in full: COULD NOT LOOK",
            "…          not verified yet",
            " overview strip (m)",
            "!          receipt that fails",
            "░          not yet verified",
        ):
            assert line in text, line
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is main


@sync
async def test_f1_on_a_seal_tab_lists_the_seal_keys_not_the_ledger_ones():
    app = SealscopeApp([SAMPLES])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        await pilot.press("8")
        assert isinstance(app.current_tab(), SealTab)
        await pilot.press("f1")
        await pilot.pause()
        text = help_plain(app)
        assert "this seal tab: seal-day1" in text
        assert "Diff against another seal" in text and "Score a restatement" in text
        assert "Jump to first break" not in text and "row marks" not in text
        await pilot.press("f1")
        await pilot.pause()
        assert not isinstance(app.screen, KeyHelpScreen)


@sync
async def test_escape_closes_the_palettes_keys_panel():
    app = SealscopeApp([SAMPLES / "session.jsonl"])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        app.action_show_help_panel()
        await pilot.pause()
        assert app.screen.query(HelpPanel)
        await pilot.press("escape")
        await pilot.pause()
        assert not app.screen.query(HelpPanel)
        assert isinstance(app.current_tab(), LedgerTab)


# --------------------------------------------------------------------------- 80 columns


def footer_keys(app) -> tuple[list[ShownKey], ShownKey, FitFooter]:
    """The footer's keys left to right and its palette key (the last)."""
    footer = app.screen.query_one(FitFooter)
    *keys, palette = footer.keys
    assert palette.action == "command_palette"
    return keys, palette, footer


def drawn_at(footer: FitFooter, shown: ShownKey) -> tuple[int, int]:
    """The columns where the footer drew `shown`: the one run of its cells that
    `key_at` maps to it."""
    xs = [x for x in range(footer.size.width) if footer.key_at(x) == shown]
    assert xs == list(range(xs[0], xs[-1] + 1))
    return xs[0], xs[-1] + 1


LEDGER = ["Keys", "Break", "Next", "Go to", "Filter", "Search", "Held"]
SEAL = ["Keys", "Score restatement", "Strict/loose", "Tiers"]
HARN = ["Keys", "Chart", "Look up", "Export", "Open", "Quit"]


@pytest.mark.parametrize(
    "key,shown",
    [("1", LEDGER), ("8", SEAL), ("left_square_bracket", HARN)],
    ids=["ledger", "seal", "harn"],
)
@sync
async def test_no_footer_key_is_cut_off_at_80_columns(key, shown):
    app = SealscopeApp([SAMPLES])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        await pilot.press(key)
        await pilot.pause()
        await pilot.pause()
        keys, palette, footer = footer_keys(app)
        assert [k.description for k in keys] == shown  # the key help first, in order
        bottom = screen_lines(app)[-1]
        x = 0
        for k in keys:  # each key shown whole, in turn
            start, end = drawn_at(footer, k)
            assert (start, end) == (x, x + key_width(k.display, k.description))
            assert bottom[start:end] == f" {k.display} {k.description} "
            x = end
        start, end = drawn_at(footer, palette)
        assert x < start and end == 80
        assert bottom[start:] == "▏^p palette "
        assert "".join(f" {k.display} {k.description} " for k in keys) == bottom[:x]


@sync
async def test_the_footer_shows_what_fits_at_120_columns_and_follows_the_tab():
    app = SealscopeApp([SAMPLES])
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        keys, _palette, _footer = footer_keys(app)
        assert [k.description for k in keys] == LEDGER + ["Strip", "Chart", "Look up", "Pin"]
        assert screen_lines(app)[-1] == (
            " ? Keys  b Break  n Next  g Go to  f Filter  / Search  h Held  m Strip "
            " C Chart  l Look up  c Pin " + " " * 10 + "▏^p palette "
        )
        await pilot.press("8")
        await pilot.pause()
        await pilot.pause()
        keys, _palette, _footer = footer_keys(app)
        assert [k.description for k in keys] == SEAL + [
            "Added since seal",
            "Diff seals",
            "Ledger row",
        ]
        await pilot.resize_terminal(80, 24)
        await pilot.pause()
        await pilot.pause()
        keys, _palette, _footer = footer_keys(app)
        assert [k.description for k in keys] == SEAL


@sync
async def test_clicking_a_footer_key_runs_its_binding():
    app = SealscopeApp([SAMPLES / "session.jsonl"])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        main = app.screen
        keys, palette, footer = footer_keys(app)
        await pilot.click(FitFooter, offset=(drawn_at(footer, palette)[1] - 3, 0))
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is main
        gap = keys[-1]
        await pilot.click(FitFooter, offset=(drawn_at(footer, gap)[1] + 1, 0))  # no key
        await pilot.pause()
        assert app.screen is main
        assert keys[0].action == "key_help"
        await pilot.click(FitFooter, offset=(drawn_at(footer, keys[0])[0] + 4, 0))
        await pilot.pause()
        assert isinstance(app.screen, KeyHelpScreen)


@sync
async def test_the_filter_hint_is_whole_at_80_columns():
    app = SealscopeApp([SAMPLES / "session.jsonl"])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        await pilot.press("f")
        await pilot.pause()
        shown = " ".join(" ".join(screen_lines(app)).split())
        for part in (
            "ok, break, declared, prechain, unparseable, blank",
            "kind:NAME",
            "empty clears",
        ):
            assert part in shown, part


# --------------------------------------------------------------------------- 80x24 pictures


def samples_from_root(monkeypatch) -> SealscopeApp:
    monkeypatch.chdir(ROOT)  # banners show paths as given
    return SealscopeApp([Path("sample_ledgers")])


@pytest.mark.parametrize(
    "keys",
    [("8",), ("1", "f"), ("2", "question_mark")],
    ids=["seal_tab", "filter_prompt", "key_help"],
)
def test_snapshot_80x24(snap_compare, monkeypatch, keys):
    async def run(pilot):
        await settle(pilot.app, pilot)
        await pilot.press(*keys)
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(samples_from_root(monkeypatch), terminal_size=SMALL, run_before=run)


@sync
async def test_the_ledger_help_names_every_row_check_badge_the_row_list_draws():
    """Each badge `row_check_panel.row_badge` can draw has its line, and so do its
    three colours (by verdict word); a seal tab, with no row list, has none."""
    from sealscope.viewer.row_check_panel import TITLES

    app = SealscopeApp([SAMPLES])
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(app, pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = help_plain(app)
        assert " row check badges" in text
        for _title, name in TITLES.values():
            assert any(line.startswith(f"{name:<10} ") for line in text.splitlines()), name
        for line in (
            "[…]        VERIFIED",
            "continuity a continuity_verify row: matched, mismatch or unmatched",
            "call args  a call row: its args match or mismatch its args_digest",
            "+N         N more checks on that row",
        ):
            assert any(x.startswith(line) for x in text.splitlines()), line
        assert "BROKEN" in text.split(" row check badges")[1]
        await pilot.press("escape")
        await pilot.press("8")
        assert isinstance(app.current_tab(), SealTab)
        await pilot.press("f1")
        await pilot.pause()
        assert "row check badges" not in help_plain(app)
