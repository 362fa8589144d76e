"""The script of `sealscope demo` and its checks, apart from the app that plays it
(`demo.DemoApp`).

The script is data: `STEPS`, each a caption, the beats that act (each beat names the
keys a user would press, shown on the caption bar as they are "pressed", and does
what those keys do — the app's own actions and handlers, never a private shortcut),
and the check the step must satisfy on screen, returning (holds, what it saw). The
app polls a check until it holds on a settled screen and fails the run naming the
step when it never does. The evidence is written by the real core
(`demo_story.Workspace`).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from sealscope.core import verdict
from sealscope.core.digest import item_digest
from sealscope.viewer import demo_story as story
from sealscope.viewer.export_action import ExportScreen
from sealscope.viewer.held_screen import HeldContentScreen, match_report
from sealscope.viewer.ledger_tab import LedgerTab
from sealscope.viewer.seal_diff import SealDiffScreen
from sealscope.viewer.seal_tab import SealTab
from textual import events
from textual.widgets import Input, Static

if TYPE_CHECKING:
    from sealscope.viewer.demo import DemoApp

__all__ = [
    "Beat",
    "Step",
    "STEPS",
    "DemoFailed",
    "total_pause",
    "ledger_tab",
    "seal_tab",
    "STEP_TIMEOUT",
    "KEY_GAP",
    "ROW_GAP",
    "DEMO_KEYS",
]

STEP_TIMEOUT = 60.0  # seconds a step's check may take to hold (real work: verification)
KEY_GAP = 0.35  # seconds between two keys shown, at speed 1
ROW_GAP = 0.12  # seconds between two rows the agent writes, at speed 1
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


def _front_is(app: DemoApp, tab: Any) -> bool:
    return tab is not None and app.current_tab() is tab


def _on_screen(app: DemoApp, cls: type, part: str) -> bool:
    """`cls` is the screen in front and its `part` is composed."""
    return isinstance(app.screen, cls) and bool(app.screen.query(part))


def _typed(token: str) -> str:
    return token[1:-1] if len(token) >= 2 and token[0] == token[-1] == '"' else ""


# --------------------------------------------------------------------------- beats


async def open_ledger(app: DemoApp) -> None:
    await app.open_paths([story.LEDGER])
    tab = ledger_tab(app)
    if tab is not None:
        tab.follow_poll = app.follow_poll
    await app.until(
        lambda: getattr(ledger_tab(app), "following", False), "the ledger tab follows its file"
    )


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
    return (
        tab is not None
        and tab.result is not None
        and tab.result.rows >= n
        and tab.rows.line_count >= n
    )


async def compact(app: DemoApp) -> None:
    await asyncio.to_thread(app.ws.compact)
    await app.until(lambda: _shows_rows(app, story.RECEIPT_LINE), "the receipt row arrives")


async def seal_day1(app: DemoApp) -> None:
    await asyncio.to_thread(app.ws.seal, 1)
    await app.until(lambda: _shows_rows(app, story.SEAL1_LINE), "the seal's row arrives")


async def open_seal_day1(app: DemoApp) -> None:
    await app.open_paths([story.SEAL_DAY1])
    await app.until(
        lambda: bool(getattr(seal_tab(app, story.SEAL_DAY1), "ledger_links", ())),
        "the seal links to its ledger row",
    )


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
        # the reopened tab is checked against the head seen before (a pin, run in a
        # worker): its line in the banner is part of the verdict the step shows
        tab = ledger_tab(app)
        return (
            tab is not None
            and tab.result is not None
            and not tab.follow_alarm
            and any(r.kind == "pin" for r in tab.session)
        )

    await app.until(fresh, "the file is verified afresh and checked against the head seen")


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
    await app.until(
        lambda: (
            _on_screen(app, HeldContentScreen, "#post")
            and getattr(app.screen, "pre_items", None) is not None
        ),
        "the held transcript is loaded",
    )


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
    await app.until(
        lambda: matches.size.width > 0 and _drop_line(scr, matches.size.width) is not None,
        "the matches pane shows the undeclared drop",
    )
    at = _drop_line(scr, matches.size.width) or 0
    target = max(0, at - 1)
    await app.until(
        lambda: (
            right.max_scroll_y
            >= min(target, matches.size.height - right.scrollable_content_region.height)
        ),
        "the matches pane is drawn",
    )
    right.scroll_to(y=min(target, right.max_scroll_y), animate=False, immediate=True, force=True)


async def escape(app: DemoApp) -> None:
    if len(app.screen_stack) > 1:
        app.pop_screen()
    await app.until(lambda: len(app.screen_stack) == 1, "back on the main screen")


async def seal_day2(app: DemoApp) -> None:
    await asyncio.to_thread(app.ws.seal, 2)

    def marked() -> bool:  # the row is shown and the overview strip marks it
        tab = ledger_tab(app)
        return (
            _shows_rows(app, story.SEAL1_LINE + 1)
            and tab is not None
            and story.SEAL1_LINE + 1 in getattr(tab.strip.model, "seals", ())
        )

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
    await app.until(
        lambda: _on_screen(app, ExportScreen, "#export-input"), "the export dialog opens"
    )
    scr = app.screen
    assert isinstance(scr, ExportScreen)
    field = scr.query_one("#export-input", Input)
    field.value = story.REPORT
    await app.pause_for(0.8)
    scr.export_to(story.REPORT)
    await app.until(
        lambda: scr.written is not None and len(app._notifications) > 0, "the report is written"
    )
    app.clear_notifications()  # its toast names the absolute temporary path


# --------------------------------------------------------------------------- checks


def check_live(app: DemoApp) -> tuple[bool, str]:
    tab = ledger_tab(app)
    if tab is None or tab.result is None:
        return False, "no verified ledger tab"
    ok = (
        tab.following
        and tab.banner.combined_verdict == verdict.VERIFIED
        and tab.result.rows == story.LIVE_ROWS
        and tab.pinned
        and tab.rows.has_focus
    )
    return ok, (
        f"{tab.banner.combined_verdict} · {tab.result.rows} rows · "
        f"{'following' if tab.following else 'not following'}"
        f"{', pinned to the end' if tab.pinned else ''}"
    )


def check_receipt(app: DemoApp) -> tuple[bool, str]:
    tab = ledger_tab(app)
    if tab is None or tab.result is None:
        return False, "no verified ledger tab"
    kind = (
        tab.source.row(story.RECEIPT_LINE).kind if tab.rows.line_count >= story.RECEIPT_LINE else ""
    )
    ok = (
        kind == "compaction_receipt"
        and tab.banner.combined_verdict == verdict.VERIFIED
        and tab.rows.current_line == story.RECEIPT_LINE
        and tab.rows.has_focus
    )
    return ok, (
        f"line {story.RECEIPT_LINE} is a {kind or '?'} · "
        f"{tab.banner.combined_verdict} · {tab.result.rows} rows"
    )


def check_seal(app: DemoApp) -> tuple[bool, str]:
    seal, tab = seal_tab(app, story.SEAL_DAY1), ledger_tab(app)
    if seal is None or tab is None:
        return False, "the seal or the ledger is not open"
    links = [r.line for r in seal.ledger_links]
    ok = (
        seal.seal.status == "ok"
        and links == [story.SEAL1_LINE]
        and _front_is(app, tab)
        and tab.rows.current_line == story.SEAL1_LINE
        and tab.rows.has_focus
    )
    return ok, (
        f"seal {verdict.VALID if seal.seal.status == 'ok' else seal.seal.status} · "
        f"its row: line {links[0] if links else '?'} · cursor on line "
        f"{tab.rows.current_line}"
    )


def check_attack(app: DemoApp) -> tuple[bool, str]:
    tab = ledger_tab(app)
    if tab is None:
        return False, "no ledger tab"
    ok = (
        tab.banner.state == "alarm"
        and tab.follow_alarm.startswith("REWRITTEN")
        and tab.banner.combined_verdict == verdict.BROKEN
        and not tab.following
    )
    return ok, f"banner: {tab.follow_alarm or tab.banner.combined_verdict}"


def check_break(app: DemoApp) -> tuple[bool, str]:
    tab = ledger_tab(app)
    if tab is None or tab.result is None:
        return False, "no verified ledger tab"
    want = f"line {story.ATTACK_LINE}: chain mismatch"
    ok = (
        tab.banner.combined_verdict == verdict.BROKEN
        and tab.result.first_break == want
        and tab.rows.current_line == story.ATTACK_LINE
        and tab.rows.status(story.ATTACK_LINE) == "break"
        and tab.rows.has_focus
        and [(r.kind, r.verdict) for r in tab.session] == [("pin", verdict.BROKEN)]
    )
    return ok, (
        f"{tab.banner.combined_verdict} · first break: {tab.result.first_break} · "
        f"cursor on line {tab.rows.current_line}"
    )


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
    ok = (
        found == [planted]
        and not scr.check.ok
        and scr.query_one("#held-right").has_focus
        and drop_in_view(app)
    )
    return ok, (
        f'{len(found)} undeclared drop: "{story.INSTRUCTION["text"]}"'
        if ok
        else f"undeclared drops: {found}"
    )


def check_diff(app: DemoApp) -> tuple[bool, str]:
    scr = app.screen
    if not isinstance(scr, SealDiffScreen):
        return False, "no seal diff on screen"
    d = scr.doc
    got = {k: [e["id"] for e in d[k]] for k in ("changed", "added", "removed")}
    ok = got == {
        "changed": ["open_commitments:0"],
        "added": ["live_threads:chargebacks"],
        "removed": ["open_commitments:1"],
    }
    return ok, (
        f"changed {', '.join(got['changed']) or '-'} · added "
        f"{', '.join(got['added']) or '-'} · removed {', '.join(got['removed']) or '-'}"
    )


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
    ok = (
        doc.get("verdict") == verdict.BROKEN
        and "recompute" in kinds
        and len(app.screen_stack) == 1
        and tab is not None
        and tab.rows.has_focus
    )
    return ok, f"{md} + .json · verdict {doc.get('verdict')} · session {', '.join(map(str, kinds))}"


def check_end(app: DemoApp) -> tuple[bool, str]:
    ok, _ = check_export(app)
    return ok, "every step checked · q quits"


# --------------------------------------------------------------------------- the script

STEPS: tuple[Step, ...] = (
    Step(
        "live",
        "The agent wren works a refund queue. sealscope follows its ledger live, "
        "verifying every row as it lands.",
        (
            Beat(("o", f'"{story.LEDGER}"', "⏎"), open_ledger, 0.5),
            Beat(("End",), pin_end, 0.3),
            Beat((), write_live, 0.5),
        ),
        check_live,
        3.0,
    ),
    Step(
        "receipt",
        "It compacts its context and seals a v2 compaction receipt into the ledger. "
        "On its own, the receipt checks out.",
        (Beat((), compact, 0.8),),
        check_receipt,
        4.0,
    ),
    Step(
        "seal",
        "It seals its memory: a continuity snapshot, and its row in the ledger. "
        "The seal tab links to that row.",
        (
            Beat((), seal_day1, 0.5),
            Beat(("o", f'"{story.SEAL_DAY1}"', "⏎"), open_seal_day1, 2.5),
            Beat(("j",), jump_to_ledger, 0.5),
        ),
        check_seal,
        3.0,
    ),
    Step(
        "attack",
        f"An attacker edits row {story.ATTACK_LINE} in place — same length, chain "
        "untouched — to send a refund elsewhere. Watch the banner.",
        (Beat((), lambda app: app.pause_for(2.0), 0.0), Beat((), attack, 0.0)),
        check_attack,
        4.0,
    ),
    Step(
        "break",
        f"The auditor opens the file again. A fresh verification names the break: "
        f"row {story.ATTACK_LINE}, chain mismatch.",
        (Beat(("o", f'"{story.LEDGER}"', "⏎"), reopen_ledger, 1.0), Beat(("b",), first_break, 0.5)),
        check_break,
        4.0,
    ),
    Step(
        "held",
        "The auditor drops the agent's held transcript onto the receipt. Recomputed, "
        "it shows a drop the receipt never declared.",
        (
            Beat(("g", f'"{story.RECEIPT_LINE}"', "⏎"), goto_receipt, 0.8),
            Beat((f"⇩ {story.HELD_PRE}",), drop_held_pre, 0.8),
            Beat(("⇥", f'"{story.HELD_POST}"', "⏎"), type_held_post, 0.8),
            Beat(("PgDn",), scroll_to_drop, 0.5),
        ),
        check_held,
        5.0,
    ),
    Step(
        "diff",
        "A day later wren seals its memory again. Side by side with day 1: a commitment "
        "changed, and the lost instruction is gone.",
        (
            Beat(("Esc",), escape, 0.3),
            Beat((), seal_day2, 0.3),
            Beat(("o", f'"{story.SEAL_DAY1}"', "⏎"), show_seal_day1, 0.8),
            Beat(("d", f'"{story.SEAL_DAY2}"', "⏎"), diff_day2, 0.5),
        ),
        check_diff,
        5.0,
    ),
    Step(
        "export",
        "The audit report, in Markdown and JSON: the verdict, the break and the "
        "recomputed receipt, for the ticket.",
        (
            Beat(("Esc",), escape, 0.3),
            Beat(("o", f'"{story.LEDGER}"', "⏎"), show_ledger, 0.5),
            Beat(("x", f'"{story.REPORT}"', "⏎"), export_report, 0.5),
        ),
        check_export,
        4.0,
    ),
    Step(
        "end",
        "That's the audit: a rewritten row, a hidden drop and a lost commitment, "
        "each caught by a check anyone can rerun.",
        (),
        check_end,
        5.0,
    ),
)


def total_pause(steps: Sequence[Step] = STEPS) -> float:
    """The scripted pauses of one run at speed 1, in seconds (rows written live
    included); the real work (verifications) comes on top."""
    rows = (story.LIVE_ROWS - 1) * ROW_GAP
    keys = sum(len(b.keys) * KEY_GAP for s in steps for b in s.beats)
    return rows + keys + sum(s.hold + sum(b.pause for b in s.beats) for s in steps) + 2.0
