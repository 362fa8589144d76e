"""Shared helpers for the ledger viewer tests (imported by test modules)."""

from __future__ import annotations

import asyncio
import contextlib
from pathlib import Path

from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.export_action import ExportScreen
from sealscope.viewer.held_screen import HeldContentScreen
from textual import events
from textual.widgets import Input, TabbedContent

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
HELD = SAMPLES / "held"


async def settle(app, pilot, rounds: int = 400) -> None:
    """Wait until every open ledger is indexed and verified and no worker runs."""
    for _ in range(rounds):
        await pilot.pause()
        await app.workers.wait_for_complete()
        await pilot.pause()
        tabs = app.ledger_tabs()
        if (
            app.first_paint is None
            and all(t.result is not None or t.source.error for t in tabs)
            and not any(w.is_running for w in app.workers)
        ):
            await pilot.pause()
            return
        await asyncio.sleep(0.01)
    raise AssertionError("viewer did not settle")


@contextlib.asynccontextmanager
async def opened(paths=(), size: tuple[int, int] = (120, 36)):
    """The viewer on `paths` (none: the bundled samples), run headless at `size` and
    settled: `async with opened([...]) as (app, pilot)`."""
    app = SealscopeApp(paths)
    async with app.run_test(size=size) as pilot:
        await settle(app, pilot)
        yield app, pilot


async def activate(app, pilot, name: str):
    tab = next(t for t in app.ledger_tabs() if t.source.name == name)
    app.query_one(TabbedContent).active = tab.id
    await pilot.pause()
    tab.rows.focus()
    await pilot.pause()
    return tab


async def goto(pilot, line: int) -> None:
    await pilot.press("g")
    await pilot.pause()
    for ch in str(line):
        await pilot.press(ch)
    await pilot.press("enter")
    await pilot.pause()


async def until(pilot, pred, what: str = "the viewer never got there", rounds: int = 3000) -> None:
    """Pause until `pred()` holds; AssertionError(`what`) after `rounds` pauses (a safety
    net against a hang, not a timing assertion)."""
    for _ in range(rounds):
        await pilot.pause()
        if pred():
            return
        await asyncio.sleep(0.01)
    raise AssertionError(what)


async def answer(pilot, value: str) -> None:
    """Type `value` into the prompt in front (its one Input) and press Enter."""
    await pilot.pause()
    pilot.app.screen.query_one(Input).value = value
    await pilot.press("enter")
    await pilot.pause()
    await pilot.pause()


async def check_pin(app, pilot, pin: str, *, paste: bool = False):
    """On the main screen: `c`, the head pin `pin` typed into #pin (or, with `paste`,
    pasted as a terminal pastes it), Enter, settle. Returns the pin screen that was
    opened (still in front when the pin was refused)."""
    await pilot.press("c")
    await pilot.pause()
    scr = app.screen
    field = scr.query_one("#pin")
    if paste:
        field.post_message(events.Paste(pin))
        await pilot.pause()
    else:
        field.value = pin
    await pilot.press("enter")
    await settle(app, pilot)
    return scr


async def load_held(app, pilot, pre, post) -> HeldContentScreen:
    """On the focused ledger row: `h`, the held `pre` and `post` files given, Ctrl+R
    (recompute), settle. Returns the held-content screen, still in front."""
    await pilot.press("h")
    await pilot.pause()
    scr = app.screen
    assert isinstance(scr, HeldContentScreen)
    scr.query_one("#pre").value = str(pre)
    scr.query_one("#post").value = str(post)
    await pilot.press("ctrl+r")
    await settle(app, pilot)
    return scr


async def start_export(app, pilot, base) -> ExportScreen:
    """On the main screen: `x`, the report's path `base` given, Enter. Returns the
    export screen (the report may still be being written, or a question asked)."""
    await pilot.press("x")
    await pilot.pause()
    scr = app.screen
    assert isinstance(scr, ExportScreen)
    scr.query_one(Input).value = str(base)
    await pilot.press("enter")
    await pilot.pause()
    return scr


def sync(fn):
    """Run an async test body with asyncio.run (no async pytest plugin is installed)."""
    import functools
    import inspect

    @functools.wraps(fn)
    def wrapper(*a, **kw):
        return asyncio.run(fn(*a, **kw))

    wrapper.__signature__ = inspect.signature(fn)
    return wrapper


def screen_lines(app) -> list[str]:
    """The screen in front as plain text, one string per terminal line, as drawn now."""
    update = app.screen._compositor.render_full_update(simplify=True)
    return ["".join(seg.text for strip in line for seg in strip) for line in update.strips]
