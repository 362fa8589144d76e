"""`sealscope demo`: a self-running, narrated audit that is also an end-to-end test.

This module is the app that plays the script; the script and its checks are data in
`demo_script` (`STEPS`: each step a caption, the beats that act, each naming the keys
a user would press and doing what those keys do, and the check the step must satisfy
on screen). A check is polled until it holds
(the viewer's work runs in workers) on a settled screen (`unsettled`: the strip and
the detail pane have caught up with the rows, and the screen has been laid out and
painted since), so a step's screen is the same on every run; one that never holds
fails the run naming its step. The evidence is written by the real core into a fresh
temporary workspace (`demo_story.Workspace`) that is the demo's current directory
while it runs (so the screens show short relative paths) and is removed at the end,
on `q`/Ctrl-C, on a failure and when the app is torn down.

The demo owns the keyboard: `Space` pauses and resumes, `→` rushes through the rest of
the step, `q` quits; every other key, paste or click is ignored so a presenter cannot
knock the story off its rails. `speed` divides every pause; `step_mode` waits for `→`
after every step; `loop` starts over with a new workspace.
"""

from __future__ import annotations

import asyncio
import os
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from rich.text import Text
from sealscope.viewer import demo_story as story
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.demo_script import (
    DEMO_KEYS,
    KEY_GAP,
    STEP_TIMEOUT,
    STEPS,
    Beat,
    DemoFailed,
    Step,
    _typed,
    total_pause,
)
from sealscope.viewer.ledger_tab import LedgerTab
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static, TabbedContent

__all__ = [
    "Beat",
    "Step",
    "STEPS",
    "DemoApp",
    "DemoFailed",
    "CaptionBar",
    "total_pause",
    "unsettled",
]


# --------------------------------------------------------------------------- settling


def unsettled(app: DemoApp) -> str:
    """What on screen still lags the app's state ("" once the screen has settled):
    the caption bar is mounted on the screen in front, and a ledger tab in front
    shows in its overview strip the rows its list shows (the strip's ▶ bins follow
    the list by a message) and in its detail pane the cursor's row (a run of cursor
    moves reaches the pane after a timer). A step's check waits for this too, so
    its screen is the same on every run."""
    if not any(b.is_mounted for b in app.screen.query(CaptionBar)):
        return "the caption bar is not on the screen yet"
    tab = app.current_tab()
    if isinstance(tab, LedgerTab) and tab.is_mounted:
        if tab.strip.viewport != tab.viewport_lines():
            return (
                f"the strip marks lines {tab.strip.viewport}, the rows show {tab.viewport_lines()}"
            )
        if tab.detail_line != tab.rows.current_line:
            return (
                f"the detail pane shows line {tab.detail_line}, the cursor is on "
                f"line {tab.rows.current_line}"
            )
    return ""


# --------------------------------------------------------------------------- caption bar


class CaptionBar(Horizontal):
    """The narration: "k/N — caption", the keys pressed so far in this step, and the
    check once it holds; on the right the demo's own keys."""

    DEFAULT_CSS = """
    CaptionBar {
        dock: bottom;
        margin-bottom: 1;   /* the footer's row stays visible */
        height: auto;
        background: $primary-darken-2;
        color: $text;
    }
    CaptionBar #caption { width: 1fr; height: auto; padding: 0 1; }
    CaptionBar #controls { width: 11; height: 3; color: $text-muted; }
    """

    def on_mount(self) -> None:
        repaint = getattr(self.app, "_repaint", None)
        if repaint is not None:
            self.call_after_refresh(repaint)

    def compose(self) -> ComposeResult:
        yield Static(id="caption")
        yield Static(Text("␣  pause\n→  next\nq  quit", no_wrap=True), id="controls")

    def show(
        self,
        index: int,
        total: int,
        caption: str,
        keys: Sequence[str],
        result: str = "",
        state: str = "",
    ) -> None:
        t = Text(end="")
        t.append(f" {index}/{total} ", "bold reverse")
        t.append(" — " + caption, "bold")
        t.append("\n")
        t.append("keys ", "dim")
        if not keys:
            t.append("—", "dim")
        for k in keys:
            typed = _typed(k)
            if typed:
                t.append(typed, "underline")
            elif k.startswith("⇩ "):
                t.append(" ⇩ drop ", "bold black on yellow")
                t.append(" " + k[2:], "underline")
            else:
                t.append(f" {k} ", "bold black on white")
            t.append(" ")
        t.append("\n")
        if state:
            t.append(state, "bold yellow")
            t.append("  ")
        if result:
            t.append("✓ ", "bold green")
            t.append(result)
        self.caption_text = t.plain
        for part in self.query("#caption"):
            if isinstance(part, Static):
                part.update(t)

    caption_text = ""


# --------------------------------------------------------------------------- the app


class DemoApp(SealscopeApp):
    """The viewer, driven by `STEPS` in a fresh workspace."""

    SUB_TITLE = "demo"
    BINDINGS = [
        Binding("space", "demo_pause", "Pause", show=False, priority=True),
        Binding("right", "demo_next", "Next", show=False, priority=True),
        Binding("q", "demo_quit", "Quit", show=False, priority=True),
        Binding("ctrl+c", "demo_quit", "Quit", show=False, priority=True),
    ]

    def __init__(
        self,
        *,
        speed: float = 1.0,
        step_mode: bool = False,
        loop: bool = False,
        steps: Sequence[Step] = STEPS,
        stop_at: int | None = None,
        on_step: Callable[[DemoApp, int], Awaitable[None]] | None = None,
        workspace_parent: str | None = None,
        step_timeout: float = STEP_TIMEOUT,
        **kw: Any,
    ) -> None:
        super().__init__((), **kw)
        self.paths = []
        self.speed = max(float(speed), 1e-3)
        self.step_mode, self.loop = step_mode, loop
        self.steps = tuple(steps)
        self.stop_at, self.on_step = stop_at, on_step
        self.workspace_parent = workspace_parent
        self.step_timeout = step_timeout
        self.follow_poll = min(0.5, max(0.05, 0.5 / self.speed))
        self.paused = False
        self.rush = False  # → pressed: the rest of this step without pauses
        self.next_pressed = False
        self._wake = asyncio.Event()
        self.ws: story.Workspace = None  # type: ignore[assignment]  # set by each run
        self.workspaces: list[story.Workspace] = []
        self.home = os.getcwd()
        self.failure: str | None = None
        self.done_steps = 0  # steps whose check held, in this run
        self.runs = 0
        self.stopped = False  # held at `stop_at`
        self.step_index = 0
        self.keys_shown: list[str] = []
        self.result = ""

    @on(events.Mount)
    async def _demo_mount(self, event: events.Mount) -> None:
        event.prevent_default()  # not the viewer's mount: no samples, no "no files" toast
        self.screen_change_signal.subscribe(self, self._caption_on)
        self._caption_on(self.screen)
        self.run_worker(self._main(), name="demo", group="demo", exit_on_error=False)

    def _caption_on(self, screen: Any) -> None:
        """Every screen shown (held content, the seal diff, the export dialog) carries
        the caption bar too."""
        if not screen.query(CaptionBar):
            screen.mount(CaptionBar())

    def on_unmount(self) -> None:
        self.cleanup()

    # ------------------------------------------------------------------ keyboard
    async def on_event(self, event: events.Event) -> None:
        """The demo owns the keyboard: only its own keys get through; pastes and
        clicks are dropped."""
        if isinstance(event, events.Key) and event.key not in DEMO_KEYS:
            return
        if isinstance(
            event,
            (
                events.Paste,
                events.MouseDown,
                events.MouseUp,
                events.Click,
                events.MouseScrollDown,
                events.MouseScrollUp,
            ),
        ):
            return
        await super().on_event(event)

    async def on_paste(self, event: events.Paste) -> None:
        """The demo's own drops (called by its beats) go to the viewer's handler."""
        await SealscopeApp.on_paste(self, event)

    def action_demo_pause(self) -> None:
        self.paused = not self.paused
        self._wake.set()
        self._repaint()

    def action_demo_next(self) -> None:
        self.rush = self.next_pressed = True
        self._wake.set()

    def action_demo_quit(self) -> None:
        self.exit()

    # ------------------------------------------------------------------ timing
    async def pause_for(self, seconds: float) -> None:
        """Wait `seconds / speed` of unpaused time; → ends it at once."""
        left = seconds / self.speed
        while True:
            if self.rush:
                return
            if not self.paused and left <= 0:
                return
            self._wake.clear()
            t0 = asyncio.get_running_loop().time()
            try:
                await asyncio.wait_for(self._wake.wait(), timeout=None if self.paused else left)
            except asyncio.TimeoutError:
                pass
            if not self.paused:
                left -= asyncio.get_running_loop().time() - t0

    async def until(self, pred: Callable[[], Any], what: str) -> None:
        """Wait (real time, any speed) until `pred()` holds and still holds once the
        screen has laid out and painted what it saw (a resize or a scroll that state
        causes is then in: the next beat acts, as a user would, on the screen as
        drawn); DemoFailed after `step_timeout` seconds."""
        loop = asyncio.get_running_loop()
        end = loop.time() + self.step_timeout
        while True:
            while not pred():
                if loop.time() > end:
                    raise DemoFailed(f"timed out waiting until {what}")
                await asyncio.sleep(0.02)
            try:
                await asyncio.wait_for(self.screen.wait_for_refresh(), max(0.01, end - loop.time()))
            except asyncio.TimeoutError:
                raise DemoFailed(f"timed out waiting until {what}") from None
            if pred():
                return

    async def _wait_next(self) -> None:
        while not self.next_pressed:
            self._wake.clear()
            await self._wake.wait()

    # ------------------------------------------------------------------ the run
    def _repaint(self) -> None:
        if not self.step_index:
            return
        step = self.steps[self.step_index - 1]
        state = (
            "⏸ paused — Space resumes"
            if self.paused
            else ("→ for the next step" if self.step_mode and self.result else "")
        )
        for screen in self.screen_stack:
            for bar in screen.query(CaptionBar):
                if bar.is_mounted:
                    bar.show(
                        self.step_index,
                        len(self.steps),
                        step.caption,
                        self.keys_shown,
                        self.result,
                        state,
                    )

    async def _main(self) -> None:
        ended = False
        try:
            while True:
                await self._one_run()
                if self.stopped or not self.loop:
                    break
                await self._reset()
                self._leave(self.ws)
            if not self.stopped:
                ended = True
                # once the last frame is drawn (a recording ends on it); the workspace
                # goes when the app is torn down
                self.call_after_refresh(self.exit)
        except DemoFailed as e:
            self._fail(str(e))
        except Exception as e:  # noqa: BLE001 - a demo that breaks says where, then ends
            self._fail(f"step {self.step_index}/{len(self.steps)} failed: {type(e).__name__}: {e}")
        finally:
            if not (ended or self.stopped):  # failed or cancelled (q, Ctrl-C)
                self.cleanup()

    def _fail(self, why: str) -> None:
        self.failure = why
        self._repaint()
        self.exit(return_code=1, message=f"sealscope demo: {why}")

    async def _reset(self) -> None:
        while len(self.screen_stack) > 1:
            self.pop_screen()
        await self.query_one(TabbedContent).clear_panes()

    async def _one_run(self) -> None:
        self.runs += 1
        self.done_steps = 0
        self.ws = story.Workspace(self.workspace_parent)
        self.workspaces.append(self.ws)
        os.chdir(self.ws.root)
        self.ws.begin()
        for k, step in enumerate(self.steps, 1):
            await self._play(k, step)
            if self.stop_at == k:
                self.stopped = True
                return

    async def _play(self, k: int, step: Step) -> None:
        self.step_index, self.keys_shown, self.result = k, [], ""
        self.rush = self.next_pressed = False
        self._repaint()
        try:
            for beat in step.beats:
                for key in beat.keys:
                    await self.pause_for(KEY_GAP)
                    self.keys_shown.append(key)
                    self._repaint()
                await beat.do(self)
                await self.pause_for(beat.pause)
            holds: list[tuple[bool, str]] = []

            def ok() -> bool:
                holds[:] = [step.check(self)]
                return holds[0][0] and not unsettled(self)

            await self.until(ok, "it holds on a settled screen")
        except DemoFailed as e:
            seen = step.check(self)[1]
            if step.check(self)[0]:
                seen = f"{seen}; but {unsettled(self)}"
            raise DemoFailed(
                f"step {k}/{len(self.steps)} ({step.name}) failed: {e} (saw: {seen})"
            ) from None
        self.result = holds[0][1]
        self.done_steps = k
        self._repaint()
        if self.on_step is not None:
            await self.on_step(self, k)
        if self.stop_at == k:
            return
        await self.pause_for(step.hold)
        if self.step_mode:
            self.next_pressed = False
            self._repaint()
            await self._wait_next()

    # ------------------------------------------------------------------ cleanup
    def _leave(self, ws: story.Workspace) -> None:
        if os.getcwd() == str(ws.root) or not os.path.exists(os.getcwd()):
            os.chdir(self.home)
        ws.remove()

    def cleanup(self) -> None:
        """Leave and remove every workspace this app made (idempotent)."""
        try:
            here = os.getcwd()
        except OSError:
            here = ""
        if any(here == str(ws.root) for ws in self.workspaces) or not here:
            os.chdir(self.home)
        for ws in self.workspaces:
            ws.remove()
