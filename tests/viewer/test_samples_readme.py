"""The samples' README is reachable from the app: `R`, `R` in the key help (`?`) and the
palette's "Samples README" show the README of the installed samples; escape goes back."""
from __future__ import annotations

from textual.widgets import Markdown

from sealscope.sample_ledgers import FOLDER, README
from sealscope.viewer.readme_screen import SamplesReadmeScreen

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


@sync
async def test_R_shows_the_samples_readme_and_escape_returns():
    async with opened() as (app, pilot):
        main = app.screen
        md = (await open_readme(pilot)).query_one(Markdown)
        await pilot.pause()
        assert md.source == README.read_text(encoding="utf-8")
        assert "Sample ledgers" in md.source and "tampered.jsonl" in md.source
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is main


@sync
async def test_the_key_help_opens_the_samples_readme_and_escape_goes_back_to_it():
    async with opened() as (app, pilot):
        await pilot.press("question_mark")
        await pilot.pause()
        help_screen = app.screen
        await open_readme(pilot)
        await pilot.press("escape")
        await pilot.pause()
        assert app.screen is help_screen


@sync
async def test_palette_lists_the_samples_readme():
    async with opened() as (app, _pilot):
        titles = [c.title for c in app.get_system_commands(app.screen)]
        assert "Samples README" in titles
