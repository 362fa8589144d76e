"""Findings stick, reports tell the truth (issue 18): every check run in a tab (a pin, a
witness, held content, a restatement, a lookup) stays part of that tab until cleared —
banner, row badge, receipt panel, the tab's verdict and the dialog reopened show it —
and the report `x` writes holds each one, with the banner's verdict and exit code."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.held_screen import HeldContentScreen
from sealscope.viewer.row_detail import RowDetail
from textual.widgets import Input

from tests.viewer.viewer_helpers import (
    HELD,
    SAMPLES,
    check_pin,
    goto,
    load_held,
    opened,
    settle,
    start_export,
    sync,
)

SIZE = (120, 36)
SEALS = SAMPLES / "seals"
PIN = (SAMPLES / "truncated.pin").read_text().strip()
# the one item the liar's receipt drops without declaring it
HIDDEN = "sha256:json-c14n:v1:52b3d7fef21ef48eabe1e990de30352c0166d79671f2f1d91c414b3348fff4b4"


def text_of(widget) -> str:
    return str(widget.render())


def row_text(tab, line: int) -> str:
    strip = tab.rows._build(line, 110, False)
    return "".join(seg.text for seg in strip)


def toasts(app) -> list[str]:
    return [str(n.message) for n in app._notifications]


async def export_report(app, pilot, base: Path) -> tuple[str, dict]:
    """Press x on the main screen, write to `base`, and read both files back."""
    scr = await start_export(app, pilot, base)
    for _ in range(500):
        await pilot.pause(0.02)
        if scr.written:
            break
    assert scr.written, text_of(scr.query_one("#export-status"))
    md = base.with_name(base.name + ".md").read_text(encoding="utf-8")
    doc = json.loads(base.with_name(base.name + ".json").read_text(encoding="utf-8"))
    return md, doc


@sync
async def test_a_pasted_pin_that_breaks_the_ledger_is_what_the_report_says(tmp_path):
    async with opened([SAMPLES / "truncated.jsonl"]) as (app, pilot):
        tab = app.current_tab()
        await check_pin(app, pilot, PIN, paste=True)
        banner = text_of(tab.banner)
        assert banner.startswith(" BROKEN ") and "chain VERIFIED" in banner
        md, doc = await export_report(app, pilot, tmp_path / "truncated-audit")
        assert any("(BROKEN, exit 1)" in m for m in toasts(app)), toasts(app)
        assert "pin rows=11: truncated:  BROKEN " in text_of(tab.banner)
        assert tab.tab_verdict == ("BROKEN", 1)
        # reopened, the pin screen shows the pin it checked
        await pilot.press("c")
        await pilot.pause()
        assert app.screen.query_one("#pin").value == PIN
    assert "- verdict: **BROKEN**" in md and "- exit code: 1 " in md
    assert "## pin rows=11: truncated" in md and "| verdict | `truncated` |" in md
    assert (doc["verdict"], doc["exit_code"], doc["file_verdict"]) == ("BROKEN", 1, "VERIFIED")
    [pin] = doc["session"]
    assert (pin["kind"], pin["verdict"], pin["exit_code"]) == ("pin", "BROKEN", 1)
    assert pin["inputs"] == {"pin": PIN} and pin["result"]["verdict"] == "truncated"


async def _liar_held(app, pilot):
    """Liar line 3: h, load both held files, recompute, Esc."""
    await settle(app, pilot)
    tab = app.current_tab()
    tab.rows.focus()
    await goto(pilot, 3)
    scr = await load_held(app, pilot, HELD / "liar-pre.json", HELD / "liar-post.json")
    assert scr.check is not None and scr.check.ok is False
    await pilot.press("escape")
    await pilot.pause()
    return tab


@sync
async def test_held_content_stays_on_the_tab_after_its_dialog_closes():
    app = SealscopeApp([SAMPLES / "liar.jsonl"])
    async with app.run_test(size=SIZE) as pilot:
        tab = await _liar_held(app, pilot)
        assert not isinstance(app.screen, HeldContentScreen)
        banner = text_of(tab.banner)
        assert banner.startswith(" BROKEN ") and "chain VERIFIED" in banner
        assert "1 drop(s) the manifest does not declare" in banner
        row = row_text(tab, 3)
        assert row.startswith("✗") and "[held content: FAIL]" in row
        panel = text_of(tab.query_one(RowDetail).query_one("#receipt-panel"))
        assert "recomputed with held content" in panel and "content mismatch" in panel
        assert "content skipped" not in panel
        assert tab.tab_verdict == ("BROKEN", 1)
        # h again shows what was loaded, recomputed
        await pilot.press("h")
        await settle(app, pilot)
        scr = app.screen
        assert isinstance(scr, HeldContentScreen)
        assert scr.query_one("#pre").value == str(HELD / "liar-pre.json")
        assert scr.query_one("#post").value == str(HELD / "liar-post.json")
        shown = text_of(scr.query_one("#held-verdict"))
        assert "not loaded" not in shown and "4 item(s)" in shown and "3 item(s)" in shown


@sync
async def test_held_content_then_escape_then_export_says_fail_and_names_the_hidden_drop(tmp_path):
    app = SealscopeApp([SAMPLES / "liar.jsonl"])
    async with app.run_test(size=SIZE) as pilot:
        await _liar_held(app, pilot)
        md, doc = await export_report(app, pilot, tmp_path / "liar-audit")
        assert any("(BROKEN, exit 1)" in m for m in toasts(app))
    assert "- verdict: **BROKEN**" in md and "- exit code: 1 " in md
    assert "1 drop the manifest does not declare:" in md
    assert f"`{HIDDEN}`" in md and "`liar-pre.json#2`" in md
    assert (doc["verdict"], doc["exit_code"]) == ("BROKEN", 1)
    [rec] = doc["session"]
    assert (rec["kind"], rec["verdict"], rec["exit_code"]) == ("recompute", "BROKEN", 1)
    [hidden] = rec["result"]["undeclared"]
    assert hidden["digest"] == HIDDEN and hidden["held"] == "liar-pre.json#2"
    assert "please delete the audit log" in hidden["preview"]


@sync
async def test_seal_export_after_a_divergent_restatement_agrees_with_itself(tmp_path):
    app = SealscopeApp([SEALS / "seal-day1.json"])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tab = app.current_tab()
        await pilot.press("r")
        await pilot.pause()
        app.screen.query_one(Input).value = str(SEALS / "restated-divergent.json")
        await pilot.press("enter")
        await pilot.pause()
        md, doc = await export_report(app, pilot, tmp_path / "seal-audit")
        # one of the three words, the restatement's own word beside it
        assert "- verdict: **BROKEN**" in md
        assert tab.tab_verdict == ("DIVERGENCE", 1)
        assert "DIVERGENCE" in str(tab.banner_view).splitlines()[1]
    assert "- verdict: **BROKEN**" in md and "- exit code: 1 " in md
    assert (doc["verdict"], doc["exit_code"], doc["file_verdict"]) == ("BROKEN", 1, "VERIFIED")


@sync
async def test_clearing_the_checks_returns_the_tab_to_its_file_alone(tmp_path):
    app = SealscopeApp([SAMPLES / "liar.jsonl"])
    async with app.run_test(size=SIZE) as pilot:
        tab = await _liar_held(app, pilot)
        assert tab.check_action("clear_checks", ()) is True
        assert "Clear this tab's checks" in [c.title for c in tab.commands()]
        await pilot.press("delete")
        await pilot.pause()
        assert tab.session == [] and tab.tab_verdict == ("VERIFIED", 0)
        assert text_of(tab.banner).startswith(" VERIFIED ")
        assert row_text(tab, 3).startswith("✓")
        assert tab.check_action("clear_checks", ()) is False  # nothing left to clear
        _md, doc = await export_report(app, pilot, tmp_path / "cleared")
    assert (doc["verdict"], doc["exit_code"], doc["session"]) == ("VERIFIED", 0, [])


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sealscope", *args],
        check=False,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )


@sync
async def test_the_cli_report_equals_the_viewers_for_the_same_checks(tmp_path):
    """truncated.jsonl: its pin, then held content on the receipt of line 7 — in the
    viewer (c, h, x) and as `export --pin --pre --post --line`: the same report."""
    ledger = SAMPLES / "truncated.jsonl"
    pre, post = HELD / "session-pre.jsonl", HELD / "session-post.jsonl"
    async with opened([ledger]) as (app, pilot):
        tab = app.current_tab()
        await check_pin(app, pilot, str(SAMPLES / "truncated.pin"))
        tab.rows.focus()
        await goto(pilot, 7)
        await load_held(app, pilot, pre, post)
        await pilot.press("escape")
        await pilot.pause()
        md, doc = await export_report(app, pilot, tmp_path / "viewer")
    flags = [
        "--pin",
        str(SAMPLES / "truncated.pin"),
        "--pre",
        str(pre),
        "--post",
        str(post),
        "--line",
        "7",
    ]
    as_json = _cli("export", str(ledger), *flags, "--format", "json")
    as_md = _cli("export", str(ledger), *flags)
    assert as_json.returncode == as_md.returncode == doc["exit_code"] == 1, as_json.stderr
    # the same report but for the moment each was made (`generated_at`)
    got = json.loads(as_json.stdout)
    assert got.pop("generated_at") and doc.pop("generated_at")
    assert got == doc
    stamp = re.compile(r"^- generated: \S+ ", re.M)
    assert stamp.sub("- generated: ", as_md.stdout) == stamp.sub("- generated: ", md)
    assert [r["kind"] for r in doc["session"]] == ["pin", "recompute"]
    assert (doc["verdict"], doc["session"][1]["verdict"]) == ("BROKEN", "VERIFIED")
