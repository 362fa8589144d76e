"""`sealscope demo` as an end-to-end test: the whole script under `App.run_test()` at
120×36 and 80×24 with this file's own assertions after every step, a snapshot per
step (a changed screen names its step), the demo's keys, and the workspace removed at
the end, on `q` and on a failure."""

from __future__ import annotations

import asyncio
import dataclasses
import functools
import json
import os
import shutil
import tempfile
import threading
import traceback
from pathlib import Path

import pytest
from pytest_textual_snapshot import SVGImageExtension
from sealscope.core.digest import item_digest
from sealscope.viewer import demo, demo_script
from sealscope.viewer import demo_story as story
from sealscope.viewer.demo import DemoApp
from sealscope.viewer.held_screen import HeldContentScreen
from sealscope.viewer.seal_diff import SealDiffScreen
from textual.widgets import DataTable

from tests.viewer.viewer_helpers import quiescent, sync, until

SIZES = {"120x36": (120, 36), "80x24": (80, 24)}
FAST = 1000.0  # every scripted pause divided by this: no real sleeping
ROUNDS = 6000  # a safety net against a hang, not a timing assertion
NAMES = [s.name for s in demo.STEPS]


def text_of(widget) -> str:
    return str(widget.render())


def caption(app: DemoApp) -> str:
    return app.screen.query_one(demo.CaptionBar).caption_text


wait_for = functools.partial(until, what="the demo never got there", rounds=ROUNDS)


# --------------------------------------------------------------------------- per step


def _ledger(app):
    tab = demo_script.ledger_tab(app)
    assert tab is not None
    return tab


def after_live(app):
    tab = _ledger(app)
    assert tab.result.rows == story.LIVE_ROWS == 43
    assert tab.banner.combined_verdict == "VERIFIED"
    assert text_of(tab.banner).startswith(" VERIFIED   wren.jsonl")
    assert "FOLLOWING" in text_of(tab.query_one("#list-status"))
    assert [tab.rows.status(n) for n in range(1, 44)] == ["ok"] * 43


def after_receipt(app):
    tab = _ledger(app)
    assert tab.rows.current_line == story.RECEIPT_LINE == 44
    assert tab.source.row(44).obj["schema"].endswith("v2")
    assert "rows 44" in text_of(tab.banner) and tab.banner.combined_verdict == "VERIFIED"


def after_seal(app):
    seal = demo_script.seal_tab(app, story.SEAL_DAY1)
    assert seal is not None and text_of(seal.query_one("#seal-banner")).startswith(" VALID ")
    tab = _ledger(app)
    assert app.current_tab() is tab and tab.rows.current_line == 45
    assert tab.source.row(45).kind == "continuity_snapshot"


def after_attack(app):
    tab = _ledger(app)
    words = text_of(tab.banner)
    assert words.startswith(" REWRITTEN while open: prefix changed in bytes 0–")
    assert "-broken" in tab.banner.classes
    assert "NOT FOLLOWING" in text_of(tab.query_one("#list-status"))
    assert b'"to": "acct-6666"' in Path(story.LEDGER).read_bytes()


def after_break(app):
    tab = _ledger(app)
    words = text_of(tab.banner)
    assert words.startswith(" BROKEN   wren.jsonl")
    assert "first break: line 33: chain mismatch" in words
    assert tab.rows.current_line == story.ATTACK_LINE == 33
    assert tab.rows.status(33) == "break"
    assert [n for n in range(1, 46) if tab.rows.status(n) != "ok"] == [33]
    assert tab.source.row(33).obj["to"] == "acct-6666"
    # checked against the head seen before the rewrite: the pin's line is drawn
    assert [(r.kind, r.verdict) for r in tab.session] == [("pin", "BROKEN")]
    assert "pin rows=None: local_broken:  BROKEN " in words


def after_held(app):
    scr = app.screen
    assert isinstance(scr, HeldContentScreen) and scr.line == 44
    matches = text_of(scr.query_one("#held-matches"))
    assert "⚠ 1 drop(s) the manifest does not declare (the receipt hides them)" in matches
    assert '"page Maya before any refund over' in matches
    drops = scr.check.recomputed.drops.items
    assert item_digest(story.INSTRUCTION).digest in drops
    assert not scr.check.ok


def after_diff(app):
    scr = app.screen
    assert isinstance(scr, SealDiffScreen)
    assert [(k, e.get("id")) for k, e in scr.rows] == [
        ("changed", "open_commitments:0"),
        ("added", "live_threads:chargebacks"),
        ("removed", "open_commitments:1"),
        ("more", None),
    ]
    table = scr.query_one(DataTable)
    first = [str(c) for c in table.get_row_at(0)]
    assert first[1] == "open_commitments:0"
    assert scr.doc["changed"][0]["declared"] == "refund only to the account on file"
    assert scr.doc["removed"][0]["declared"] == story.LOST_COMMITMENT


def after_export(app):
    md = Path(story.REPORT + ".md").read_text(encoding="utf-8")
    doc = json.loads(Path(story.REPORT + ".json").read_text(encoding="utf-8"))
    assert doc["verdict"] == "BROKEN" and doc["breaks"][0]["line"] == 33
    # the reopened file is checked against the head seen before the rewrite (a pin),
    # and the held-content check sticks: one record, both files
    assert [r["kind"] for r in doc["session"]] == ["pin", "recompute"]
    check = doc["session"][1]
    assert check["kind"] == "recompute" and check["verdict"] == "BROKEN"
    assert check["checked"] == "held content: does not match"
    assert check["inputs"] == {"line": 44, "pre": story.HELD_PRE, "post": story.HELD_POST}
    assert [u["held"] for u in check["result"]["undeclared"]] == ["context.json#2"]
    assert "BROKEN" in md and "line 33" in md and "recompute **BROKEN**" in md
    assert len(app.screen_stack) == 1
    assert [n.message for n in app._notifications] == []


def after_end(app):
    assert caption(app).startswith(" 9/9  — That's the audit")


AFTER = {
    "live": after_live,
    "receipt": after_receipt,
    "seal": after_seal,
    "attack": after_attack,
    "break": after_break,
    "held": after_held,
    "diff": after_diff,
    "export": after_export,
    "end": after_end,
}


def test_the_script_names_every_step_once():
    assert list(AFTER) == NAMES
    assert all(s.caption and s.check for s in demo.STEPS)


@dataclasses.dataclass
class Run:
    """One whole run of the demo at one size: per step the screen (SVG) and what this
    file's assertions said."""

    shots: dict[int, str] = dataclasses.field(default_factory=dict)
    errors: dict[int, str] = dataclasses.field(default_factory=dict)
    seen: list[str] = dataclasses.field(default_factory=list)
    failure: str | None = None
    return_code: int | None = None
    cwd_after: str = ""
    left_over: list[str] = dataclasses.field(default_factory=list)


async def _run(size: tuple[int, int], parent: Path) -> Run:
    run = Run()
    at: list[int] = []
    go = asyncio.Event()

    async def on_step(app, k):
        step = demo.STEPS[k - 1]
        try:
            cap = caption(app)
            assert cap.startswith(f" {k}/9  — {step.caption[:20]}")
            assert "✓ " in cap  # the check that held is on the caption bar
            for key in (b.keys[-1] for b in step.beats if b.keys):
                assert key.strip('"').removeprefix("⇩ ") in cap
            AFTER[step.name](app)
        except AssertionError:
            run.errors[k] = traceback.format_exc(limit=-1)
        run.seen.append(step.name)
        go.clear()
        at.append(k)
        await go.wait()  # the test takes its picture of this step

    app = DemoApp(speed=FAST, on_step=on_step, workspace_parent=str(parent))
    async with app.run_test(size=size) as pilot:
        for k in range(1, len(NAMES) + 1):
            await wait_for(pilot, lambda k=k: k in at or app.return_code is not None)
            if k not in at:
                break
            run.shots[k] = await _picture(pilot, app)
            go.set()
        await wait_for(pilot, lambda: app.return_code is not None)
    run.failure, run.return_code = app.failure, app.return_code
    run.cwd_after = os.getcwd()
    run.left_over = [x.name for x in parent.iterdir()]
    return run


async def _picture(pilot, app) -> str:
    """The screen of a step whose check held: what the step set going (a followed
    file's new rows, their marks) is drawn on a quiescent screen (no worker but the
    demo's own script pending or running, nothing left to lay out or draw)."""
    await quiescent(app, pilot, except_group="demo", rounds=ROUNDS)
    return app.export_screenshot(simplify=True)


@functools.cache
def demo_run(size: tuple[int, int]) -> Run:
    """The demo runs once per size; every step's test reads that run."""
    parent = Path(tempfile.mkdtemp(prefix="demo-test-"))
    try:
        return asyncio.run(_run(size, parent))
    finally:
        shutil.rmtree(parent, ignore_errors=True)


@pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))
@pytest.mark.parametrize(
    "k", range(1, len(NAMES) + 1), ids=[f"{i}-{n}" for i, n in enumerate(NAMES, 1)]
)
def test_step(snapshot, k, size):
    """Step k held (the demo's own check and this file's assertions) and its screen
    matches the snapshot; the test id names the step."""
    run = demo_run(size)
    assert NAMES[k - 1] in run.seen, run.failure
    assert run.errors.get(k) is None
    assert run.shots[k] == snapshot.use_extension(SVGImageExtension)


def test_the_break_step_waits_for_the_pin_check_of_the_reopened_file(monkeypatch, tmp_path):
    """The reopened file is checked against the head seen before (a pin, in a worker)
    and that check's line is part of what step 5 shows: with the pin check held back
    the step does not come while the file's own verification is in, and once the check
    is let through the step shows it, as in the ordinary run."""
    from sealscope.core import pins

    real, gate = pins.check_pin, threading.Event()

    def held_back(path, pin):
        gate.wait()
        return real(path, pin)

    monkeypatch.setattr(pins, "check_pin", held_back)
    at: list[int] = []
    errors: dict[int, str] = {}
    go = asyncio.Event()

    async def on_step(app, k):
        if demo.STEPS[k - 1].name == "break":
            try:
                after_break(app)
            except AssertionError:
                errors[k] = traceback.format_exc(limit=-1)
        go.clear()
        at.append(k)
        await go.wait()

    k = NAMES.index("break") + 1

    async def run() -> tuple[DemoApp, str]:
        app = DemoApp(speed=FAST, on_step=on_step, workspace_parent=str(tmp_path))
        try:
            async with app.run_test(size=SIZES["120x36"]) as pilot:
                for j in range(1, k):
                    await wait_for(pilot, lambda j=j: j in at or app.return_code is not None)
                    assert j in at, app.failure
                    go.set()

                def verified_afresh() -> bool:
                    tab = demo_script.ledger_tab(app)
                    return tab is not None and tab.result is not None and not tab.follow_alarm

                await wait_for(pilot, verified_afresh)
                for _ in range(30):  # the beats after the reopen (b, the check) get their turns
                    await pilot.pause()
                assert k not in at and app.return_code is None
                gate.set()
                await wait_for(pilot, lambda: k in at or app.return_code is not None)
                assert k in at, app.failure
                assert errors.get(k) is None, errors.get(k)
                shot = await _picture(pilot, app)
                await pilot.press("q")
                go.set()
                await wait_for(pilot, lambda: app.return_code is not None)
        finally:
            gate.set()
        return app, shot

    app, shot = asyncio.run(run())
    assert app.return_code == 0 and list(tmp_path.iterdir()) == []
    assert shot == demo_run(SIZES["120x36"]).shots[k]


@pytest.mark.parametrize("size", list(SIZES.values()), ids=list(SIZES))
def test_the_run_ends_clean(size):
    home = os.getcwd()
    run = demo_run(size)
    assert run.failure is None and run.return_code == 0
    assert run.seen == NAMES
    assert run.cwd_after == home
    assert run.left_over == []  # the workspace is gone


@sync
async def test_keys_step_mode_pause_next_and_quit(tmp_path):
    home = os.getcwd()
    app = DemoApp(speed=FAST, step_mode=True, workspace_parent=str(tmp_path))
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.done_steps == 1)
        for _ in range(20):  # --step: it waits for →
            await pilot.pause()
        assert app.done_steps == 1 and "→ for the next step" in caption(app)
        await pilot.press("x", "o", "b")  # not the demo's keys: ignored
        await pilot.pause()
        assert len(app.screen_stack) == 1 and app.done_steps == 1
        await pilot.press("right")
        await wait_for(pilot, lambda: app.done_steps == 2)
        await pilot.press("space")
        await pilot.pause()
        assert app.paused and "⏸ paused — Space resumes" in caption(app)
        await pilot.press("space")
        await pilot.pause()
        assert not app.paused and "paused" not in caption(app)
        (ws,) = app.workspaces
        assert Path(os.getcwd()) == ws.root and ws.root.parent == tmp_path
        await pilot.press("q")
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 0 and app.done_steps == 2
    assert os.getcwd() == home and list(tmp_path.iterdir()) == []


@sync
async def test_a_failing_step_is_named_and_the_workspace_removed(tmp_path):
    home = os.getcwd()
    steps = list(demo.STEPS[:3])
    steps[2] = dataclasses.replace(steps[2], check=lambda app: (False, "nothing to see"))
    app = DemoApp(speed=FAST, steps=steps, workspace_parent=str(tmp_path), step_timeout=5.0)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.return_code == 1 and app.done_steps == 2
    assert app.failure == (
        "step 3/3 (seal) failed: timed out waiting until it holds on a "
        "settled screen (saw: nothing to see)"
    )
    assert os.getcwd() == home and list(tmp_path.iterdir()) == []


@sync
async def test_an_error_in_a_beat_is_named_and_the_workspace_removed(tmp_path):
    async def boom(app):
        raise RuntimeError("the disk is gone")

    steps = [
        demo.STEPS[0],
        demo.Step("boom", "it breaks", (demo.Beat(("z",), boom),), demo_script.check_end),
    ]
    app = DemoApp(speed=FAST, steps=steps, workspace_parent=str(tmp_path))
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.return_code is not None)
    assert app.failure == "step 2/2 failed: RuntimeError: the disk is gone"
    assert app.return_code == 1 and list(tmp_path.iterdir()) == []


@sync
async def test_loop_starts_over_in_a_new_workspace(tmp_path):
    runs: list[Path] = []

    async def on_step(app, k):
        if k == 2:
            runs.append(app.ws.root)
            if len(runs) == 2:
                app.exit(0)

    steps = demo.STEPS[:2]
    app = DemoApp(
        speed=FAST, loop=True, steps=steps, on_step=on_step, workspace_parent=str(tmp_path)
    )
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.return_code is not None)
    assert len(runs) == 2 and runs[0] != runs[1]
    assert app.failure is None and list(tmp_path.iterdir()) == []


def test_the_pauses_of_one_run_at_speed_1():
    """The closing note's figure: the scripted pauses of a run at speed 1."""
    assert 60 <= demo.total_pause() <= 120
