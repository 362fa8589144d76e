"""The viewer opens and draws on every terminal a user may have: NO_COLOR set (to 1, or
empty: no-color.org says present is enough; Textual then draws through its monochrome
filter), TERM=dumb, COLORTERM unset, 16 colours. Each runs the real app on the samples,
as `sealscope` does (its first paint included), in process with Pilot and as the real
command in a pseudo-terminal: the verdict banner is drawn, and nothing is raised or
printed as a traceback."""

from __future__ import annotations

import pytest
from sealscope.viewer.app import SealscopeApp
from terminal_run import TERMINALS, Terminal, base_env, no_traceback
from viewer_helpers import quiescent, screen_lines, sync

CASES = sorted(TERMINALS)


def _banner_drawn(lines: list[str]) -> bool:
    """The first tab's verdict banner: the samples open on session.jsonl, VERIFIED."""
    return any("VERIFIED" in line and "session.jsonl" in line for line in lines)


@pytest.mark.parametrize("terminal", CASES)
@sync
async def test_the_app_draws_every_tab_on_the_terminal(terminal, monkeypatch):
    env = base_env(**TERMINALS[terminal])
    for name in ("NO_COLOR", "TERM", "COLORTERM", "TEXTUAL_COLOR_SYSTEM", "FORCE_COLOR"):
        if name in env:
            monkeypatch.setenv(name, env[name])
        else:
            monkeypatch.delenv(name, raising=False)
    app = SealscopeApp([], first_paint=True)
    async with app.run_test(size=(100, 30)) as pilot:
        await quiescent(app, pilot)
        assert _banner_drawn(screen_lines(app)), screen_lines(app)
        for tab in app.panes():  # every sample's tab draws too
            app.show_tab(tab)
            await quiescent(app, pilot)
            word = tab.tab_verdict.verdict if tab.tab_verdict is not None else "…"
            assert any(word in line for line in screen_lines(app)[:8]), (tab, screen_lines(app))
    assert app.return_code in (None, 0)


@pytest.mark.parametrize("terminal", CASES)
def test_the_command_draws_and_quits_on_the_terminal(terminal):
    with Terminal([], base_env(**TERMINALS[terminal])) as term:
        term.until(lambda t: _banner_drawn(t.screen.display), "drew the verdict banner")
        term.press(b"q")
        code = term.wait()
        raw = term.raw
    assert code == 0
    assert no_traceback(raw), raw[-2000:]
    assert raw.rfind(b"\x1b[?1049l") > raw.find(b"\x1b[?1049h")  # the terminal is given back
