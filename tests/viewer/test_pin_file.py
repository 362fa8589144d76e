"""A head pin is accepted in the viewer as its text or as a file holding it."""

from __future__ import annotations

import shlex

import pytest

from tests.viewer.viewer_helpers import SAMPLES, check_pin, opened, sync


@pytest.mark.parametrize(
    "typed",
    [
        (SAMPLES / "truncated.pin").read_text().strip(),
        str(SAMPLES / "truncated.pin"),
        shlex.quote(str(SAMPLES / "truncated.pin")),
        "file://" + str(SAMPLES / "truncated.pin"),
    ],
    ids=["text", "path", "quoted-path", "file-url"],
)
@sync
async def test_a_pin_is_accepted_as_its_text_or_a_file_holding_it(typed):
    """truncated.jsonl is a cut copy: its pin (however given) says truncated, and the
    tab turns BROKEN."""
    async with opened([SAMPLES / "truncated.jsonl"]) as (app, pilot):
        tab = app.current_tab()
        await check_pin(app, pilot, typed)
        [check] = tab.session
        assert check.kind == "pin" and check.result["verdict"] == "truncated"
        assert tab.banner.combined_verdict == "BROKEN"
        assert "-broken" in tab.banner.classes
