"""Issue 28, the viewer's side: the same evidence gets the same answer in the viewer as
in every verb. Each test here failed before the viewer read the core's one decision."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from sealscope.core import fleet, ledger, verdict
from sealscope.core.export import build_report
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.fleet_tab import FleetTab
from sealscope.viewer.lookup_screen import LookupScreen
from textual.widgets import TabbedContent

from tests.viewer.viewer_helpers import (
    HELD,
    SAMPLES,
    activate,
    goto,
    load_held,
    opened,
    settle,
    sync,
    until,
)

SCOPE = "VERIFIED · 2 receipts self-consistent, content not checked"


def failing_receipt_ledger(path: Path) -> Path:
    """A chain that holds, with on line 2 a v2 receipt that contradicts itself
    (manifest of 3 items, dropped.count 99): it fails without any held content."""
    row = json.loads((SAMPLES / "session.jsonl").read_text().splitlines()[6])
    row["dropped"] = dict(row["dropped"], count=99)
    ledger.append(path, {"op": "start"})
    ledger.append(path, row)
    return path


EXE = Path(sys.executable).with_name("sealscope")


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    cmd = [str(EXE)] if EXE.is_file() else [sys.executable, "-m", "sealscope"]
    return subprocess.run(
        [*cmd, *args],
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=False,
    )


def _banner_text(tab) -> str:
    return str(tab.banner.render())


@sync
async def test_the_banner_agrees_with_export_receipts_and_fleet(tmp_path):
    bad = failing_receipt_ledger(tmp_path / "bad-receipt.jsonl")
    names = [
        "session.jsonl",
        "liar.jsonl",
        "tampered.jsonl",
        "declared-break.jsonl",
        "truncated.jsonl",
        "hostile.jsonl",
    ]
    paths = [SAMPLES / n for n in names] + [bad]
    async with opened(paths) as (app, _pilot):
        tabs = {t.source.name: t for t in app.ledger_tabs()}
        for p in paths:
            tab = tabs[p.name]
            report = build_report(p, verify_result=tab.result)
            entry = fleet.audit_file(p)
            assert tab.tab_verdict == (report.verdict, report.exit_code), p.name
            assert tab.tab_verdict.exit_code == entry.exit_code, p.name
            assert f" {tab.tab_verdict.verdict} " in _banner_text(tab)
            if tab.result.ok:  # the chain holds: the receipts' answer is the file's
                got = _cli("receipts", str(p))
                if got.returncode != verdict.COULD_NOT:  # a file with no receipt row
                    assert tab.tab_verdict.exit_code == got.returncode, p.name
        # a bounded receipt is VERIFIED, its scope beside the word
        assert tabs["session.jsonl"].tab_verdict == ("VERIFIED", 0)
        assert SCOPE in _banner_text(tabs["session.jsonl"])
        # a failing receipt: BROKEN 1, no scope claimed
        assert tabs["bad-receipt.jsonl"].tab_verdict == ("BROKEN", 1)
        assert "self-consistent" not in _banner_text(tabs["bad-receipt.jsonl"])
        assert tabs["tampered.jsonl"].tab_verdict == ("BROKEN", 1)
        assert tabs["declared-break.jsonl"].tab_verdict == ("COULD NOT LOOK", 3)


@sync
async def test_a_held_content_fail_shows_in_the_chart_strip_and_export_series():
    async with opened([SAMPLES / "liar.jsonl"]) as (app, pilot):
        tab = app.ledger_tabs()[0]
        tab.rows.focus()
        await goto(pilot, 3)
        await load_held(app, pilot, HELD / "liar-pre.json", HELD / "liar-post.json")
        await pilot.press("escape")
        await until(
            pilot,
            lambda: tab.tab_verdict is not None and tab.tab_verdict.verdict == "BROKEN",
            "the held content's BROKEN never judged",
        )
        # the strip: line 3's bin is a failing receipt
        assert tab.strip.model.receipts[3] is False
        assert "receipt_fail" in tab.strip.model.classes(tab.source.line_count)
        # the chart: line 3 marked failing
        points = {p.where: p for p in tab.checked_series()}
        assert points[3].ok is False
        tab.rows.focus()
        await pilot.press("C")
        await until(pilot, lambda: app.screen.id == "compaction-chart", "no chart")
        chart = app.screen
        text = "\n".join(str(o.prompt) for o in chart.query_one("OptionList")._options)
        line3 = next(
            s for s in text.splitlines() if s.lstrip().startswith(("3", "line 3")) or " 3 " in s[:8]
        )
        assert "✗" in line3 and "~" not in line3
        await pilot.press("escape")
        # the export's series: the session's held FAIL, not "ok": true
        report = build_report(tab.path, verify_result=tab.result, session=tab.session)
        series = {d["line"]: d for d in report.compaction_series}
        assert series[3]["ok"] is False
        assert (report.verdict, report.exit_code) == ("BROKEN", 1)  # as `receipts` says


@sync
async def test_the_fleet_tab_orders_worst_first_as_sealscope_fleet(tmp_path):
    d = tmp_path / "ledgers"
    d.mkdir()
    for name in ("session.jsonl", "tampered.jsonl", "declared-break.jsonl"):
        (d / name).write_bytes((SAMPLES / name).read_bytes())
    failing_receipt_ledger(d / "bad-receipt.jsonl")
    got = _cli("fleet", str(d))
    assert got.returncode == 1, got.stderr
    cli_order = [
        Path(line.split("  ")[1]).name
        for line in got.stdout.splitlines()
        if not line.startswith(" ") and " rows=" in line
    ]
    assert len(cli_order) == 4, got.stdout
    app = SealscopeApp([d])
    async with app.run_test(size=(120, 36)) as pilot:
        tab = app.current_tab()
        assert isinstance(tab, FleetTab)
        await until(pilot, lambda: tab.done, "the fleet audit did not finish")
        await pilot.pause()
        # worst first with no key pressed, and the label's verdict is the CLI's exit
        assert [Path(e.path).name for e in tab.shown] == cli_order
        assert tab.tab_verdict.exit_code == got.returncode
    # the one that disagreed: a VERIFIED chain whose receipt fails before COULD NOT LOOK
    assert cli_order.index("bad-receipt.jsonl") < cli_order.index("declared-break.jsonl")


@sync
async def test_a_duplicate_key_row_shows_as_the_verifier_reads_it(tmp_path):
    p = tmp_path / "dup.jsonl"
    ledger.append(p, {"op": "start"})
    ledger.append(p, {"kind": "note", "text": "hello"})
    lines = p.read_text().splitlines()
    row = json.loads(lines[1])
    body = json.dumps(row)[:-1] + ', "kind": "receipt_like"}'
    p.write_text(lines[0] + "\n" + body + "\n")
    res = ledger.verify(p)
    assert res.verdict == "BROKEN" and "duplicate key 'kind'" in res.first_break
    async with opened([p]) as (app, _pilot):
        tab = app.ledger_tabs()[0]
        info = tab.source.row(2)
        assert info.kind != "receipt_like"
        assert info.duplicate == "duplicate key 'kind'"
        assert "duplicate key 'kind'" in info.summary
        assert tab.rows.status(2) == "break"
        assert tab.source.kind_lines("receipt_like").tolist() == []


@sync
async def test_a_lookup_stays_on_the_tab_it_was_run_in():
    async with opened([SAMPLES / "session.jsonl", SAMPLES / "tampered.jsonl"]) as (app, pilot):
        session = await activate(app, pilot, "session.jsonl")
        await pilot.press("l")
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, LookupScreen)
        await settle(app, pilot)
        scr._load_file(str(HELD / "session-pre.jsonl"))
        await pilot.pause()
        assert scr.hits  # found in both ledgers' manifests
        await pilot.press("escape")
        await pilot.pause()
        tampered = next(t for t in app.ledger_tabs() if t.source.name == "tampered.jsonl")
        app.query_one(TabbedContent).active = tampered.id
        await pilot.pause()
        assert [r.kind for r in session.session] == ["lookup"]
        assert tampered.session == []
        assert "lookup" not in _banner_text(tampered)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(pytest.main([__file__]))
