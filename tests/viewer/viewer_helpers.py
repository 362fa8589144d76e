"""Shared helpers for the ledger viewer tests (imported by test modules)."""
from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import TabbedContent

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
        if all(t.result is not None or t.source.error for t in tabs) and \
                not any(w.is_running for w in app.workers):
            await pilot.pause()
            return
        await asyncio.sleep(0.01)
    raise AssertionError("viewer did not settle")


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
