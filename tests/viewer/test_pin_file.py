"""A head pin is accepted in the viewer as its text or as a file holding it."""
from __future__ import annotations

import shlex

import pytest

from sealscope.viewer.app import SealscopeApp
from tests.viewer.viewer_helpers import SAMPLES, check_pin, settle, sync

SIZE = (120, 36)


@pytest.mark.parametrize("typed", [str(SAMPLES / "truncated.pin"),
                                   shlex.quote(str(SAMPLES / "truncated.pin")),
                                   "file://" + str(SAMPLES / "truncated.pin")])
@sync
async def test_pin_file_path_is_accepted(typed):
    app = SealscopeApp([SAMPLES / "truncated.jsonl"])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        tab = app.current_tab()
        await check_pin(app, pilot, typed)
        [check] = tab.banner.checks
        assert check.kind == "pin" and check.result["verdict"] == "truncated"
