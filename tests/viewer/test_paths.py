"""Paths the viewer is given (issue 18): `sealscope A B` with B missing opens A and says
what could not be opened; a FIFO or a device is refused with a message, never read,
and the app goes on answering keys.

A FIFO that nobody writes blocks an `open` of it for ever. So that a regression fails
instead of hanging, a guard thread keeps opening the FIFO's writing end (which lets a
blocked reader through, with nothing to read) until the test ends: the refusal message
is then missing and the test fails."""

from __future__ import annotations

import os
import threading
from contextlib import contextmanager
from pathlib import Path

from sealscope.cmd_view import viewer_app, viewer_paths
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.ledger_tab import LedgerTab

from tests.viewer.viewer_helpers import SAMPLES, opened, settle, sync

SIZE = (120, 36)


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


@contextmanager
def unblocking(*fifos: Path):
    """Until the block ends, lets any reader blocked on `fifos` through (see above)."""
    stop = threading.Event()

    def guard():
        while not stop.wait(2):
            for fifo in fifos:
                try:
                    os.close(os.open(fifo, os.O_WRONLY | os.O_NONBLOCK))
                except OSError:  # no reader waiting: nothing to let through
                    pass

    t = threading.Thread(target=guard, daemon=True)
    t.start()
    try:
        yield
    finally:
        stop.set()
        t.join()


@sync
async def test_a_missing_path_beside_one_that_exists_opens_the_one(tmp_path, capsys):
    missing = tmp_path / "gone.jsonl"
    given = [str(SAMPLES / "session.jsonl"), str(missing)]
    assert viewer_paths(given) == [Path(p) for p in given]
    app = viewer_app(given)
    assert isinstance(app, SealscopeApp)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        assert [t.path for t in app.panes()] == [str(SAMPLES / "session.jsonl")]
        assert isinstance(app.current_tab(), LedgerTab)
        assert f"cannot open {missing}: cannot read {missing}: No such file or directory" in toasts(
            app
        )
    # nothing exists: nothing to open, one line per path, no app
    assert viewer_app([str(missing)]) is None
    assert capsys.readouterr().err == f"sealscope: no such file or folder: {missing}\n"


@sync
async def test_a_fifo_and_a_device_are_refused_and_the_app_answers(tmp_path):
    fifo, later = tmp_path / "pipe.jsonl", tmp_path / "later.jsonl"
    os.mkfifo(fifo)
    os.mkfifo(later)
    with unblocking(fifo, later):
        async with opened([fifo, Path("/dev/zero"), SAMPLES / "session.jsonl"]) as (app, pilot):
            assert f"cannot open {fifo}: cannot read {fifo}: not a regular file" in toasts(app)
            assert "cannot open /dev/zero: cannot read /dev/zero: not a regular file" in toasts(app)
            assert [t.path for t in app.panes()] == [str(SAMPLES / "session.jsonl")]
            # opened later (o, a paste): the same refusal, and the keys still act
            assert await app.open_path(later) is None
            await pilot.pause()
            assert f"cannot open {later}: cannot read {later}: not a regular file" in toasts(app)
            tab = app.current_tab()
            tab.rows.focus()
            await pilot.press("end")
            await pilot.pause()
            assert tab.rows.current_line == 11
