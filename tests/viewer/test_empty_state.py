"""`sealscope FIFO` alone (issue 33): when no path given opens, the main area says which
files could not be opened and why, after the notification has faded, every name through
the sanitizer; the message goes as soon as a tab opens."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.empty_state import EmptyState

from tests.viewer.test_paths import unblocking
from tests.viewer.viewer_helpers import SAMPLES, screen_lines, settle, sync

SIZE = (120, 36)


def shown(app) -> str:
    return "\n".join(screen_lines(app))


@sync
async def test_a_fifo_alone_says_why_on_the_screen_once_the_toast_is_gone(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the name as typed, short enough for one screen line
    fifo = Path("pipe\x1b[31m.jsonl")  # a hostile name: shown escaped, never run
    os.mkfifo(fifo)
    with unblocking(fifo):
        app = SealscopeApp([fifo, Path("/dev/zero")], first_paint=True)
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            app.clear_notifications()  # the toast has faded
            await pilot.pause()
            assert app.panes() == []
            text = shown(app)
            name = "pipe\\x1b[31m.jsonl"
            assert f"cannot open {name}: cannot read {name}: not a regular file" in text
            assert "cannot open /dev/zero: cannot read /dev/zero: not a regular file" in text
            assert "press o to open" in text
            assert "\x1b" not in text
            # a tab opened later (o, a paste) takes the main area: the message goes
            assert await app.open_path(SAMPLES / "session.jsonl") is not None
            await settle(app, pilot)
            assert list(app.query(EmptyState)) == []
            assert "cannot open" not in shown(app)
            assert "VERIFIED" in shown(app)


async def _alone(path: Path) -> str:
    """The screen of `sealscope PATH` once settled and its toasts gone."""
    app = SealscopeApp([path], first_paint=True)
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        app.clear_notifications()
        await pilot.pause()
        assert app.panes() == []
        return shown(app)


@sync
async def test_a_file_of_no_kind_alone_says_why(tmp_path):
    odd = tmp_path / "notes.json"
    odd.write_text('{"hello": "world"}\n', encoding="utf-8")
    text = await _alone(odd)
    assert f"cannot open {odd}: " in text and "Nothing could be opened." in text


@sync
async def test_an_unreadable_file_alone_says_why(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads a file whatever its mode")
    locked = tmp_path / "locked.jsonl"
    locked.write_bytes((SAMPLES / "session.jsonl").read_bytes())
    locked.chmod(0)
    try:
        text = await _alone(locked)
    finally:
        locked.chmod(0o644)
    assert f"cannot open {locked}: " in text and "Permission denied" in text
