"""The samples' README is reachable from the app: `R`, `R` in the key help (`?`) and the
palette's "Samples README" show the README of the installed samples; escape goes back."""

from __future__ import annotations

import pytest
from sealscope.sample_ledgers import FOLDER, README
from sealscope.viewer.readme_screen import SamplesReadmeScreen
from textual.widgets import Markdown

from tests.viewer.viewer_helpers import SAMPLES, opened, sync


async def open_readme(pilot) -> SamplesReadmeScreen:
    """R: the samples' README in front."""
    await pilot.press("R")
    await pilot.pause()
    scr = pilot.app.screen
    assert isinstance(scr, SamplesReadmeScreen)
    return scr


def test_samples_package_is_the_top_level_folder_in_a_checkout():
    assert FOLDER.resolve() == SAMPLES.resolve()
    assert README == FOLDER / "README.md" and README.is_file()


@pytest.mark.parametrize("first", [(), ("question_mark",)], ids=["main", "key-help"])
@sync
async def test_R_shows_the_samples_readme_and_escape_returns(first):
    """R on the main screen, or in the key help (?): escape goes back to where R was."""
    async with opened() as (app, pilot):
        await pilot.press(*first)
        await pilot.pause()
        back = app.screen
        md = (await open_readme(pilot)).query_one(Markdown)
        await pilot.pause()
        assert md.source == README.read_text(encoding="utf-8")
        assert "Sample ledgers" in md.source and "tampered.jsonl" in md.source
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is back


@sync
async def test_palette_lists_the_samples_readme():
    async with opened() as (app, _pilot):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Samples README" in titles
