"""The key help (`?`, F1) lists the keys of the tab in front from its Binding lists and
what its marks mean; escape closes it and the palette's keys panel; no footer or hint
is cut off at 80 columns."""
from __future__ import annotations

from pathlib import Path

import pytest
from textual.widgets import HelpPanel
from textual.widgets._footer import FooterKey

from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.commands import declared_bindings
from sealscope.viewer.footer import FitFooter
from sealscope.viewer.key_help import KeyHelpScreen
from sealscope.viewer.ledger_tab import LedgerTab
from sealscope.viewer.seal_tab import SealTab

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
        for b in declared_bindings(app.current_tab()):   # every key of the tab, by title
            assert (getattr(b, "title", "") or b.description) in text
        for line in ("1–9        Bring tab n to the front", "]          Next tab",
                     "[          Previous tab", "? f1       Key help",
                     "R          Samples README", "↑          Up",
                     "✗          the chain breaks here",
                     "◐          could not look in full: COULD NOT LOOK",
                     "…          not verified yet", " overview strip (m)",
                     "!          receipt that fails", "░          not yet verified"):
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

def footer_keys(app) -> tuple[list[FooterKey], FooterKey]:
    footer = app.screen.query_one(FitFooter)
    keys = list(footer.query(FooterKey))
    palette = [k for k in keys if k.has_class("-command-palette")]
    assert len(palette) == 1
    return [k for k in keys if k not in palette], palette[0]


@pytest.mark.parametrize("key", ["1", "8", "left_square_bracket"], ids=["ledger", "seal",
                                                                          "harn"])
@sync
async def test_no_footer_key_is_cut_off_at_80_columns(key):
    app = SealscopeApp([SAMPLES])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        await pilot.press(key)
        await pilot.pause()
        await pilot.pause()
        keys, palette = footer_keys(app)
        assert all(k.region.right <= palette.region.x for k in keys)
        bottom = screen_lines(app)[-1]
        for k in keys:                                    # each key shown whole
            assert f"{k.key_display} {k.description}" in bottom
        assert bottom.rstrip().endswith("^p palette")
        assert keys[0].description == "Keys"            # the key help always shows


@sync
async def test_the_filter_hint_is_whole_at_80_columns():
    app = SealscopeApp([SAMPLES / "session.jsonl"])
    async with app.run_test(size=SMALL) as pilot:
        await settle(app, pilot)
        await pilot.press("f")
        await pilot.pause()
        shown = " ".join(" ".join(screen_lines(app)).split())
        for part in ("ok, break, declared, prechain, unparseable, blank",
                     "kind:NAME", "empty clears"):
            assert part in shown, part


# --------------------------------------------------------------------------- 80x24 pictures

def samples_from_root(monkeypatch) -> SealscopeApp:
    monkeypatch.chdir(ROOT)   # banners show paths as given
    return SealscopeApp([Path("sample_ledgers")])


@pytest.mark.parametrize("keys", [("8",), ("1", "f"), ("2", "question_mark")],
                         ids=["seal_tab", "filter_prompt", "key_help"])
def test_snapshot_80x24(snap_compare, monkeypatch, keys):
    async def run(pilot):
        await settle(pilot.app, pilot)
        await pilot.press(*keys)
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(samples_from_root(monkeypatch), terminal_size=SMALL, run_before=run)
