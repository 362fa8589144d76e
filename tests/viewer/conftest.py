"""Every viewer snapshot is taken of a quiescent screen: `snap_compare` here is the
plugin's, with `viewer_helpers.quiescent` awaited after the test's own `run_before`
and its key presses (pressed here, so the wait comes after them too)."""

from __future__ import annotations

import inspect

import pytest
from viewer_helpers import quiescent


@pytest.fixture
def snap_compare(snap_compare):
    def compare(app, *args, run_before=None, press=(), **kwargs):
        async def before(pilot):
            if run_before is not None:
                got = run_before(pilot)
                if inspect.isawaitable(got):
                    await got
            if press:
                await pilot.press(*press)
            await quiescent(pilot.app, pilot)

        return snap_compare(app, *args, run_before=before, **kwargs)

    return compare
