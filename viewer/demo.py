"""`sealscope demo`: a self-running, narrated audit that is also an end-to-end test.

The script is data: `STEPS`, each a caption, the beats that act (each beat names the
keys a user would press, shown on the caption bar as they are "pressed", and does
what those keys do — the app's own actions and handlers, never a private shortcut),
and the check the step must satisfy on screen. A check is polled until it holds
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
import json
import os
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rich.text import Text
from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Input, Static, TabbedContent

from sealscope.core import verdict
from sealscope.core.digest import item_digest
from sealscope.viewer import demo_story as story
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.export_action import ExportScreen
from sealscope.viewer.held_screen import HeldContentScreen, match_report
from sealscope.viewer.ledger_tab import LedgerTab
from sealscope.viewer.seal_diff import SealDiffScreen
from sealscope.viewer.seal_tab import SealTab

__all__ = ["Beat", "Step", "STEPS", "DemoApp", "DemoFailed", "CaptionBar", "total_pause",
           "unsettled"]

STEP_TIMEOUT = 60.0   # seconds a step's check may take to hold (real work: verification)
KEY_GAP = 0.35        # seconds between two keys shown, at speed 1
ROW_GAP = 0.12        # seconds between two rows the agent writes, at speed 1
DEMO_KEYS = ("space", "right", "q", "ctrl+c", "ctrl+q")


class DemoFailed(Exception):
    """A step's check did not hold (the message names the step)."""


Check = Callable[["DemoApp"], "tuple[bool, str]"]


@dataclass(frozen=True)
class Beat:
    """One thing done: the keys shown (a quoted token is typed text, a token starting
    with "⇩ " a file dropped on the terminal), then `do`, then `pause` seconds."""
    keys: tuple[str, ...]
    do: Callable[[DemoApp], Awaitable[None]]
    pause: float = 1.0


@dataclass(frozen=True)
class Step:
    """One chapter of the story: `caption` narrates, `beats` act, `check` must hold
    (it returns (holds, what it saw)), then the screen stays `hold` seconds."""
    name: str
    caption: str
    beats: tuple[Beat, ...]
    check: Check
    hold: float = 4.0


# --------------------------------------------------------------------------- helpers

def ledger_tab(app: DemoApp) -> LedgerTab | None:
    """The (newest) tab of the demo's ledger."""
    tabs = [t for t in app.ledger_tabs() if Path(t.path).name == story.LEDGER]
    return tabs[-1] if tabs else None


def seal_tab(app: DemoApp, name: str) -> SealTab | None:
    return next((t for t in app.seal_tabs() if t.path == name), None)


def banner_text(tab: LedgerTab) -> str:
    return str(tab.banner.render())


def _front_is(app: DemoApp, tab: Any) -> bool:
    return tab is not None and app.current_tab() is tab


def _on_screen(app: DemoApp, cls: type, part: str) -> bool:
    """`cls` is the screen in front and its `part` is composed."""
    return isinstance(app.screen, cls) and bool(app.screen.query(part))


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
            return (f"the strip marks lines {tab.strip.viewport}, the rows show "
                    f"{tab.viewport_lines()}")
        if tab.detail_line != tab.rows.current_line:
            return (f"the detail pane shows line {tab.detail_line}, the cursor is on "
                    f"line {tab.rows.current_line}")
    return ""


def _typed(token: str) -> str:
    return token[1:-1] if len(token) >= 2 and token[0] == token[-1] == '"' else ""


# --------------------------------------------------------------------------- beats

async def open_ledger(app: DemoApp) -> None:
    await app.open_paths([story.LEDGER])
    tab = ledger_tab(app)
    if tab is not None:
        tab.follow_poll = app.follow_poll
    await app.until(lambda: getattr(ledger_tab(app), "following", False),
                    "the ledger tab follows its file")


async def pin_end(app: DemoApp) -> None:
    tab = ledger_tab(app)
    assert tab is not None
    tab.rows.focus()
    tab.rows.action_edge(1)


async def write_live(app: DemoApp) -> None:
    for row in app.ws.live_rows():
        await asyncio.to_thread(app.ws.append, row)
        await app.pause_for(ROW_GAP)


def _shows_rows(app: DemoApp, n: int) -> bool:
    tab = ledger_tab(app)
    return tab is not None and tab.result is not None and tab.result.rows >= n and \
        tab.rows.line_count >= n


async def compact(app: DemoApp) -> None:
    await asyncio.to_thread(app.ws.compact)
    await app.until(lambda: _shows_rows(app, story.RECEIPT_LINE), "the receipt row arrives")


async def seal_day1(app: DemoApp) -> None:
    await asyncio.to_thread(app.ws.seal, 1)
    await app.until(lambda: _shows_rows(app, story.SEAL1_LINE), "the seal's row arrives")


async def open_seal_day1(app: DemoApp) -> None:
    await app.open_paths([story.SEAL_DAY1])
    await app.until(lambda: bool(getattr(seal_tab(app, story.SEAL_DAY1), "ledger_links", ())),
                    "the seal links to its ledger row")


async def jump_to_ledger(app: DemoApp) -> None:
    tab = seal_tab(app, story.SEAL_DAY1)
    assert tab is not None
    tab.action_jump_ledger()
    await app.until(lambda: _front_is(app, ledger_tab(app)), "the ledger tab is in front")


async def attack(app: DemoApp) -> None:
    await asyncio.to_thread(app.ws.attack)


async def reopen_ledger(app: DemoApp) -> None:
    await app.open_paths([story.LEDGER])
    tab = ledger_tab(app)
    if tab is not None:
        tab.follow_poll = app.follow_poll
    def fresh() -> bool:
        tab = ledger_tab(app)
        return tab is not None and tab.result is not None and not tab.follow_alarm
    await app.until(fresh, "the file is verified afresh")


async def first_break(app: DemoApp) -> None:
    tab = ledger_tab(app)
    assert tab is not None
    tab.action_first_break()


async def goto_receipt(app: DemoApp) -> None:
    tab = ledger_tab(app)
    assert tab is not None
    tab._goto(story.RECEIPT_LINE)


async def drop_held_pre(app: DemoApp) -> None:
    await app.on_paste(events.Paste(story.HELD_PRE))
    await app.until(lambda: _on_screen(app, HeldContentScreen, "#post")
                    and getattr(app.screen, "pre_items", None) is not None,
                    "the held transcript is loaded")


async def type_held_post(app: DemoApp) -> None:
    scr = app.screen
    assert isinstance(scr, HeldContentScreen)
    post = scr.query_one("#post", Input)
    post.focus()
    post.value = story.HELD_POST
    scr._take("post", story.HELD_POST)
    await app.until(lambda: _undeclared(app) is not None, "the receipt is recomputed")
    scr.query_one("#held-right").focus()


def _drop_line(scr: HeldContentScreen, width: int) -> int | None:
    """The line of the matches pane (its text wrapped at `width`) where the warning
    about undeclared drops starts, if it is there."""
    text = match_report(scr.row, scr.pre_items, scr.post_items, scr.check)
    lines = text.wrap(scr.app.console, width)
    return next((i for i, ln in enumerate(lines) if "⚠ " in ln.plain), None)


def drop_in_view(app: DemoApp) -> bool:
    """The held-content screen is in front and its matches pane shows the warning
    about undeclared drops (at any terminal size)."""
    scr = app.screen
    if not isinstance(scr, HeldContentScreen) or scr.pre_items is None:
        return False
    right, matches = scr.query_one("#held-right"), scr.query_one("#held-matches", Static)
    at = _drop_line(scr, matches.size.width) if matches.size.width else None
    top = int(right.scroll_offset.y)
    return at is not None and top <= at < top + right.scrollable_content_region.height


async def scroll_to_drop(app: DemoApp) -> None:
    """Scroll the matches pane so the warning about the undeclared drop is near its
    top (found in the pane's text wrapped at its width, once the pane is laid out
    tall enough to scroll that far), so every run lands on the same line."""
    scr = app.screen
    if not isinstance(scr, HeldContentScreen):
        return
    right, matches = scr.query_one("#held-right"), scr.query_one("#held-matches", Static)
    await app.until(lambda: matches.size.width > 0 and
                    _drop_line(scr, matches.size.width) is not None,
                    "the matches pane shows the undeclared drop")
    at = _drop_line(scr, matches.size.width) or 0
    target = max(0, at - 1)
    await app.until(lambda: right.max_scroll_y >= min(target, matches.size.height -
                                                      right.scrollable_content_region.height),
                    "the matches pane is drawn")
    right.scroll_to(y=min(target, right.max_scroll_y), animate=False, immediate=True,
                    force=True)


async def escape(app: DemoApp) -> None:
    if len(app.screen_stack) > 1:
        app.pop_screen()
    await app.until(lambda: len(app.screen_stack) == 1, "back on the main screen")


async def seal_day2(app: DemoApp) -> None:
    await asyncio.to_thread(app.ws.seal, 2)
    def marked() -> bool:   # the row is shown and the overview strip marks it
        tab = ledger_tab(app)
        return _shows_rows(app, story.SEAL1_LINE + 1) and tab is not None and \
            story.SEAL1_LINE + 1 in getattr(tab.strip.model, "seals", ())
    await app.until(marked, "the day-2 seal's row arrives")


async def show_seal_day1(app: DemoApp) -> None:
    await app.open_paths([story.SEAL_DAY1])


async def diff_day2(app: DemoApp) -> None:
    tab = seal_tab(app, story.SEAL_DAY1)
    assert tab is not None
    tab.open_diff(story.SEAL_DAY2)
    await app.until(lambda: _on_screen(app, SealDiffScreen, "#diff-table"), "the diff opens")


async def show_ledger(app: DemoApp) -> None:
    await app.open_paths([story.LEDGER])
    tab = ledger_tab(app)
    assert tab is not None
    tab.rows.focus()


async def export_report(app: DemoApp) -> None:
    app.action_export()
    await app.until(lambda: _on_screen(app, ExportScreen, "#export-input"),
                    "the export dialog opens")
    scr = app.screen
    assert isinstance(scr, ExportScreen)
    field = scr.query_one("#export-input", Input)
    field.value = story.REPORT
    await app.pause_for(0.8)
    scr.export_to(story.REPORT)
    await app.until(lambda: scr.written is not None and len(app._notifications) > 0,
                    "the report is written")
    app.clear_notifications()   # its toast names the absolute temporary path


# --------------------------------------------------------------------------- checks

def check_live(app: DemoApp) -> tuple[bool, str]:
    tab = ledger_tab(app)
    if tab is None or tab.result is None:
        return False, "no verified ledger tab"
    ok = (tab.following and tab.banner.combined_verdict == verdict.VERIFIED
          and tab.result.rows == story.LIVE_ROWS and tab.pinned and tab.rows.has_focus)
    return ok, (f"{tab.banner.combined_verdict} · {tab.result.rows} rows · "
                f"{'following' if tab.following else 'not following'}"
                f"{', pinned to the end' if tab.pinned else ''}")


def check_receipt(app: DemoApp) -> tuple[bool, str]:
    tab = ledger_tab(app)
    if tab is None or tab.result is None:
        return False, "no verified ledger tab"
    kind = tab.source.row(story.RECEIPT_LINE).kind if \
        tab.rows.line_count >= story.RECEIPT_LINE else ""
    ok = (kind == "compaction_receipt" and tab.banner.combined_verdict == verdict.VERIFIED
          and tab.rows.current_line == story.RECEIPT_LINE and tab.rows.has_focus)
    return ok, (f"line {story.RECEIPT_LINE} is a {kind or '?'} · "
                f"{tab.banner.combined_verdict} · {tab.result.rows} rows")


def check_seal(app: DemoApp) -> tuple[bool, str]:
    seal, tab = seal_tab(app, story.SEAL_DAY1), ledger_tab(app)
    if seal is None or tab is None:
        return False, "the seal or the ledger is not open"
    links = [r.line for r in seal.ledger_links]
    ok = (seal.seal.status == "ok" and links == [story.SEAL1_LINE] and _front_is(app, tab)
          and tab.rows.current_line == story.SEAL1_LINE and tab.rows.has_focus)
    return ok, (f"seal {verdict.VALID if seal.seal.status == 'ok' else seal.seal.status} · "
                f"its row: line {links[0] if links else '?'} · cursor on line "
                f"{tab.rows.current_line}")


def check_attack(app: DemoApp) -> tuple[bool, str]:
    tab = ledger_tab(app)
    if tab is None:
        return False, "no ledger tab"
    ok = (tab.banner.state == "alarm" and tab.follow_alarm.startswith("REWRITTEN")
          and tab.banner.combined_verdict == verdict.BROKEN and not tab.following)
    return ok, f"banner: {tab.follow_alarm or tab.banner.combined_verdict}"


def check_break(app: DemoApp) -> tuple[bool, str]:
    tab = ledger_tab(app)
    if tab is None or tab.result is None:
        return False, "no verified ledger tab"
    want = f"line {story.ATTACK_LINE}: chain mismatch"
    ok = (tab.banner.combined_verdict == verdict.BROKEN and tab.result.first_break == want
          and tab.rows.current_line == story.ATTACK_LINE
          and tab.rows.status(story.ATTACK_LINE) == "break" and tab.rows.has_focus)
    return ok, (f"{tab.banner.combined_verdict} · first break: {tab.result.first_break} · "
                f"cursor on line {tab.rows.current_line}")


def _undeclared(app: DemoApp) -> list[str] | None:
    scr = app.screen
    if not isinstance(scr, HeldContentScreen):
        return None
    drops = getattr(getattr(scr.check, "recomputed", None), "drops", None)
    if drops is None or scr.post_items is None or scr.pre_items is None:
        return None
    manifest = scr.row.get("dropped", {}).get("items", [])
    return [d for d in drops.items if d not in manifest]


def check_held(app: DemoApp) -> tuple[bool, str]:
    found = _undeclared(app)
    if found is None:
        return False, "the receipt is not recomputed with held content"
    planted = item_digest(story.INSTRUCTION).digest
    scr = app.screen
    assert isinstance(scr, HeldContentScreen)
    ok = found == [planted] and not scr.check.ok and \
        scr.query_one("#held-right").has_focus and drop_in_view(app)
    return ok, (f"{len(found)} undeclared drop: \"{story.INSTRUCTION['text']}\"" if ok
                else f"undeclared drops: {found}")


def check_diff(app: DemoApp) -> tuple[bool, str]:
    scr = app.screen
    if not isinstance(scr, SealDiffScreen):
        return False, "no seal diff on screen"
    d = scr.doc
    got = {k: [e["id"] for e in d[k]] for k in ("changed", "added", "removed")}
    ok = got == {"changed": ["open_commitments:0"], "added": ["live_threads:chargebacks"],
                 "removed": ["open_commitments:1"]}
    return ok, (f"changed {', '.join(got['changed']) or '-'} · added "
                f"{', '.join(got['added']) or '-'} · removed {', '.join(got['removed']) or '-'}")


def check_export(app: DemoApp) -> tuple[bool, str]:
    md, js = Path(story.REPORT + ".md"), Path(story.REPORT + ".json")
    if not (md.is_file() and js.is_file()):
        return False, "no report written"
    try:
        doc = json.loads(js.read_text(encoding="utf-8"))
    except ValueError:
        return False, "the JSON report does not parse"
    kinds = [r.get("kind") for r in doc.get("session", [])]
    tab = ledger_tab(app)
    ok = doc.get("verdict") == verdict.BROKEN and "recompute" in kinds and \
        len(app.screen_stack) == 1 and tab is not None and tab.rows.has_focus
    return ok, f"{md} + .json · verdict {doc.get('verdict')} · session {', '.join(map(str, kinds))}"


def check_end(app: DemoApp) -> tuple[bool, str]:
    ok, _ = check_export(app)
    return ok, "every step checked · q quits"


# --------------------------------------------------------------------------- the script

STEPS: tuple[Step, ...] = (
    Step("live",
         "The agent wren works a refund queue. sealscope follows its ledger live, "
         "verifying every row as it lands.",
         (Beat(("o", f'"{story.LEDGER}"', "⏎"), open_ledger, 0.5),
          Beat(("End",), pin_end, 0.3),
          Beat((), write_live, 0.5)),
         check_live, 3.0),
    Step("receipt",
         "It compacts its context and seals a v2 compaction receipt into the ledger. "
         "On its own, the receipt checks out.",
         (Beat((), compact, 0.8),),
         check_receipt, 4.0),
    Step("seal",
         "It seals its memory: a continuity snapshot, and its row in the ledger. "
         "The seal tab links to that row.",
         (Beat((), seal_day1, 0.5),
          Beat(("o", f'"{story.SEAL_DAY1}"', "⏎"), open_seal_day1, 2.5),
          Beat(("j",), jump_to_ledger, 0.5)),
         check_seal, 3.0),
    Step("attack",
         f"An attacker edits row {story.ATTACK_LINE} in place — same length, chain "
         "untouched — to send a refund elsewhere. Watch the banner.",
         (Beat((), lambda app: app.pause_for(2.0), 0.0),
          Beat((), attack, 0.0)),
         check_attack, 4.0),
    Step("break",
         f"The auditor opens the file again. A fresh verification names the break: "
         f"row {story.ATTACK_LINE}, chain mismatch.",
         (Beat(("o", f'"{story.LEDGER}"', "⏎"), reopen_ledger, 1.0),
          Beat(("b",), first_break, 0.5)),
         check_break, 4.0),
    Step("held",
         "The auditor drops the agent's held transcript onto the receipt. Recomputed, "
         "it shows a drop the receipt never declared.",
         (Beat(("g", f'"{story.RECEIPT_LINE}"', "⏎"), goto_receipt, 0.8),
          Beat((f"⇩ {story.HELD_PRE}",), drop_held_pre, 0.8),
          Beat(("⇥", f'"{story.HELD_POST}"', "⏎"), type_held_post, 0.8),
          Beat(("PgDn",), scroll_to_drop, 0.5)),
         check_held, 5.0),
    Step("diff",
         "A day later wren seals its memory again. Side by side with day 1: a commitment "
         "changed, and the lost instruction is gone.",
         (Beat(("Esc",), escape, 0.3),
          Beat((), seal_day2, 0.3),
          Beat(("o", f'"{story.SEAL_DAY1}"', "⏎"), show_seal_day1, 0.8),
          Beat(("d", f'"{story.SEAL_DAY2}"', "⏎"), diff_day2, 0.5)),
         check_diff, 5.0),
    Step("export",
         "The audit report, in Markdown and JSON: the verdict, the break and the "
         "recomputed receipt, for the ticket.",
         (Beat(("Esc",), escape, 0.3),
          Beat(("o", f'"{story.LEDGER}"', "⏎"), show_ledger, 0.5),
          Beat(("x", f'"{story.REPORT}"', "⏎"), export_report, 0.5)),
         check_export, 4.0),
    Step("end",
         "That's the audit: a rewritten row, a hidden drop and a lost commitment, "
         "each caught by a check anyone can rerun.",
         (),
         check_end, 5.0),
)


def total_pause(steps: Sequence[Step] = STEPS) -> float:
    """The scripted pauses of one run at speed 1, in seconds (rows written live
    included); the real work (verifications) comes on top."""
    rows = (story.LIVE_ROWS - 1) * ROW_GAP
    keys = sum(len(b.keys) * KEY_GAP for s in steps for b in s.beats)
    return rows + keys + sum(s.hold + sum(b.pause for b in s.beats) for s in steps) + 2.0


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

    def show(self, index: int, total: int, caption: str, keys: Sequence[str],
             result: str = "", state: str = "") -> None:
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

    def __init__(self, *, speed: float = 1.0, step_mode: bool = False, loop: bool = False,
                 steps: Sequence[Step] = STEPS, stop_at: int | None = None,
                 on_step: Callable[[DemoApp, int], Awaitable[None]] | None = None,
                 workspace_parent: str | None = None, step_timeout: float = STEP_TIMEOUT,
                 **kw: Any) -> None:
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
        self.rush = False            # → pressed: the rest of this step without pauses
        self.next_pressed = False
        self._wake = asyncio.Event()
        self.ws: story.Workspace = None  # type: ignore[assignment]  # set by each run
        self.workspaces: list[story.Workspace] = []
        self.home = os.getcwd()
        self.failure: str | None = None
        self.done_steps = 0          # steps whose check held, in this run
        self.runs = 0
        self.stopped = False         # held at `stop_at`
        self.step_index = 0
        self.keys_shown: list[str] = []
        self.result = ""

    @on(events.Mount)
    async def _demo_mount(self, event: events.Mount) -> None:
        event.prevent_default()   # not the viewer's mount: no samples, no "no files" toast
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
        if isinstance(event, (events.Paste, events.MouseDown, events.MouseUp, events.Click,
                              events.MouseScrollDown, events.MouseScrollUp)):
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
                await asyncio.wait_for(self._wake.wait(),
                                       timeout=None if self.paused else left)
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
                await asyncio.wait_for(self.screen.wait_for_refresh(),
                                       max(0.01, end - loop.time()))
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
        state = "⏸ paused — Space resumes" if self.paused else \
            ("→ for the next step" if self.step_mode and self.result else "")
        for screen in self.screen_stack:
            for bar in screen.query(CaptionBar):
                if bar.is_mounted:
                    bar.show(self.step_index, len(self.steps), step.caption,
                             self.keys_shown, self.result, state)

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
            self._fail(f"step {self.step_index}/{len(self.steps)} failed: "
                       f"{type(e).__name__}: {e}")
        finally:
            if not (ended or self.stopped):   # failed or cancelled (q, Ctrl-C)
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
            raise DemoFailed(f"step {k}/{len(self.steps)} ({step.name}) failed: {e} "
                             f"(saw: {seen})") from None
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
