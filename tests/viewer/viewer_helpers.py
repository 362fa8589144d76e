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
from textual.worker import WorkerState

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
HELD = SAMPLES / "held"


def _unfinished(app, except_group: str | None) -> str:
    """What the app still has to do before the screen in front is final, in words
    ("" when nothing): a worker pending or running (but those of `except_group`),
    a refresh, layout, scroll or recompose pending on the screen or on a widget of
    it, a callback waiting for the next refresh, a message not handled yet, an
    animation running or scheduled."""
    waiting = (WorkerState.PENDING, WorkerState.RUNNING)
    busy = [w.name for w in list(app.workers) if w.state in waiting and w.group != except_group]
    if busy:
        return f"workers {busy}"
    screen = app.screen
    if app._batch_count:
        return "an update batch"
    if (
        screen._layout_required
        or screen._scroll_required
        or screen._repaint_required
        or screen._recompose_required
        or screen._dirty_widgets
    ):
        return "the screen's refresh"
    if screen._callbacks:
        return "callbacks after the refresh"
    for node in (app, *screen.walk_children(with_self=True)):
        if node._message_queue.qsize() or node._next_callbacks:
            return f"messages for {node!r}"
        if node is not app and (
            node._layout_required
            or node._repaint_required
            or node._scroll_required
            or node._recompose_required
            or node._refresh_styles_required
        ):
            return f"a refresh of {node!r}"
    if app.animator._animations or app.animator._scheduled:
        return "an animation"
    return ""


def _rendered(app) -> list[tuple[tuple[str, str], ...]]:
    """The screen in front as rendered now: every line's segments, text and style."""
    update = app.screen._compositor.render_full_update(simplify=True)
    return [
        tuple((seg.text, str(seg.style)) for strip in line for seg in strip)
        for line in update.strips
    ]


async def quiescent(app, pilot, *, except_group: str | None = None, rounds: int = 3000) -> None:
    """Wait for a quiescent screen, before any snapshot or assertion on what it shows:
    nothing left to do (`_unfinished`: no worker pending or running but those of
    `except_group`, no refresh, layout or message pending, no animation) and two
    renders in a row, a pause apart, identical. AssertionError naming what was still
    unfinished after `rounds` tries (a safety net against a hang, not a timing
    assertion)."""
    why = "never looked"
    last: list | None = None
    for _ in range(rounds):
        if app._exit:  # ended (an error, or an exit the test did not ask for)
            raise AssertionError(f"the app ended: {app._exception!r}")
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()
        why = _unfinished(app, except_group)
        if why:
            last = None
            await asyncio.sleep(0.01)
            continue
        now = _rendered(app)
        if now == last:
            return
        last, why = now, "the screen changed between two renders"
    raise AssertionError(f"the screen never came to rest: {why}")


async def settle(app, pilot, rounds: int = 400) -> None:
    """Wait until every open ledger is indexed and verified and no worker runs, on a
    quiescent screen (`quiescent`)."""
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
            await quiescent(app, pilot)
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
