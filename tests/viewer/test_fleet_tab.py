"""The viewer's fleet tab: a folder of ledgers opens as one row per ledger, filled in
as `core.fleet` audits them; sorted, filtered by verdict, and Enter opens a ledger at
its first break. The tree is `make_tree`'s (tests/cli/test_fleet.py)."""

from __future__ import annotations

import asyncio
import json
import os
import re
import shutil
from pathlib import Path

from rich.text import Text
from sealscope.core import fleet
from sealscope.core.fleet import FleetEntry, ReceiptSummary
from sealscope.core.ledger import VerifyResult
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.fleet_tab import FleetTab
from sealscope.viewer.ledger_tab import LedgerTab
from textual.widgets import Static, TabbedContent

from tests.cli.test_fleet import make_tree
from tests.viewer.kind_helpers import cli
from tests.viewer.viewer_helpers import SAMPLES, opened, settle, start_export, sync, until

SIZE = (120, 36)


def _tree(tmp_path: Path, monkeypatch) -> dict[str, str]:
    """The tree under the fixed relative name `fleet` (cwd is tmp_path)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "fleet").mkdir()
    return make_tree(tmp_path / "fleet")


async def _done(pilot, tab: FleetTab) -> None:
    for _ in range(1500):
        await pilot.pause()
        if tab.done:
            await pilot.pause()
            return
        await asyncio.sleep(0.02)
    raise AssertionError("the fleet audit did not finish")


def _shown(tab: FleetTab) -> list[tuple[str, str]]:
    return [(str(Path(e.path).relative_to("fleet")), e.verdict) for e in tab.shown]


def _label(app, tab: FleetTab) -> str:
    return app.query_one(TabbedContent).get_tab(tab).label.plain


def _cell_texts(tab: FleetTab, row: int) -> list[str]:
    return [c.plain if isinstance(c, Text) else str(c) for c in tab.table.get_row_at(row)]


@sync
async def test_a_folder_opens_a_fleet_tab_sorted_filtered_and_enter_opens_the_first_break(
    tmp_path, monkeypatch
):
    expected = _tree(tmp_path, monkeypatch)
    app = SealscopeApp([Path("fleet")])
    async with app.run_test(size=SIZE) as pilot:
        tab = app.current_tab()
        assert isinstance(tab, FleetTab)
        await _done(pilot, tab)
        assert tab.stopped is None and tab.total == len(expected)
        assert dict(_shown(tab)) == expected
        assert tab.table.row_count == len(expected)
        liar = [p for p, _v in _shown(tab)].index("team-b/liar-receipt.jsonl")
        assert _cell_texts(tab, liar) == [
            " BROKEN ",
            "2",
            "0",
            "1",
            "0",
            _cell_texts(tab, liar)[5],
            "team-b/liar-receipt.jsonl",
        ]
        # worst first from the start: `sealscope fleet`'s order
        assert tab.order == (0, False)
        assert tab.shown == fleet.worst_first(tab.entries)
        assert [v for _p, v in _shown(tab)] == ["BROKEN"] * 3 + ["COULD NOT LOOK"] * 2 + [
            "VERIFIED"
        ] * 2
        assert [p for p, _v in _shown(tab)][:2] == [
            "team-a/deep/tampered.jsonl",
            "team-b/cut.jsonl",
        ]
        # the label's mark, by the rule of every tab: BROKEN ones in it, ✗
        assert tab.tab_verdict == fleet.outcome(tab.entries) == ("BROKEN", 1)
        assert _label(app, tab) == "✗fleet/"
        # a COULD NOT LOOK row says why without Enter; an unreadable one counts nothing
        cells = {_cell_texts(tab, i)[-1].split("  — ")[0]: _cell_texts(tab, i) for i in range(7)}
        dangling = cells["team-b/dangling.jsonl"]
        assert dangling[-1].endswith("  — a dangling link: no target")
        assert dangling[1:3] == ["—", "—"]
        assert cells["team-b/bounded.jsonl"][-1].endswith("  — declared break at line 3")
        assert "  — " not in cells["team-b/cut.jsonl"][-1]  # BROKEN: Enter shows the break
        await pilot.press("s")  # by rows, most first
        rows = [e.result.rows for e in tab.shown]
        assert rows == sorted(rows, reverse=True)
        await pilot.press("S")  # ... reversed: fewest first
        assert [e.result.rows for e in tab.shown] == sorted(rows)
        tab.order = (0, True)  # verdict, reversed
        await pilot.pause()
        assert _shown(tab)[0][1] == "VERIFIED"
        await pilot.press("v")  # only BROKEN
        assert tab.verdict_filter == "BROKEN"
        assert sorted(p for p, _v in _shown(tab)) == [
            "team-a/deep/tampered.jsonl",
            "team-b/cut.jsonl",
            "team-b/liar-receipt.jsonl",
        ]
        assert tab.table.row_count == 3
        await pilot.press("S")  # broken, worst first again
        row = [p for p, _v in _shown(tab)].index("team-a/deep/tampered.jsonl")
        tab.table.move_cursor(row=row)
        tab.table.focus()
        await pilot.pause()
        assert tab.selected_entry() is tab.shown[row]
        await pilot.press("enter")
        await settle(app, pilot)
        ledger = app.current_tab()
        assert isinstance(ledger, LedgerTab)
        assert ledger.source.path.name == "tampered.jsonl"
        assert ledger.result is not None and ledger.result.ok is False
        assert min(ledger.rows.findings) == 3  # make_tree edits the third row
        assert ledger.rows.current_line == 3


@sync
async def test_the_open_prompt_takes_a_folder(tmp_path, monkeypatch):
    _tree(tmp_path, monkeypatch)
    async with opened([Path("fleet/team-a/honest.jsonl")]) as (app, pilot):
        await pilot.press("o")
        await pilot.pause()
        await pilot.press(*"fleet/team-b")
        await pilot.press("enter")
        await pilot.pause()
        tab = app.current_tab()
        assert isinstance(tab, FleetTab) and tab.path == "fleet/team-b"
        await _done(pilot, tab)
        assert sorted(p for p, _v in _shown(tab)) == [
            "team-b/bounded.jsonl",
            "team-b/cut.jsonl",
            # a link out of the folder opened: not followed, a row saying so (as the CLI)
            "team-b/dangling.jsonl",
            "team-b/liar-receipt.jsonl",
            "team-b/session.jsonl",
        ]


def _paused(tmp_path, monkeypatch) -> tuple[SealscopeApp, list[FleetEntry]]:
    """An app on the tree whose audit worker does not run; the test feeds entries."""
    _tree(tmp_path, monkeypatch)
    monkeypatch.setattr(FleetTab, "audit_worker", lambda self: None)
    # the ledgers only (`audit_file` reads each as one): the lock files and the note
    # beside them are the classifier's, not these pictures'
    entries = [fleet.audit_file(p) for p, _n in fleet.walk(["fleet"], kinds=False)]
    return SealscopeApp([Path("fleet")]), entries


def _all_audited(pilot, entries: list[FleetEntry]) -> FleetTab:
    """The paused app's fleet tab, fed every entry and finished, as a whole audit ends."""
    tab = pilot.app.current_tab()
    tab.set_total(len(entries))
    tab.add_entries(entries)
    tab.finish()
    return tab


def _entry(i: int) -> FleetEntry:
    broken = i % 7 == 0
    res = VerifyResult(
        ok=not broken,
        rows=i + 1,
        chained=i + 1,
        breaks=int(broken),
        first_break="line 1: chain mismatch" if broken else None,
    )
    return FleetEntry(
        f"fleet/many/ledger-{i:05d}.jsonl", res, ReceiptSummary(i % 3, 0, 0), size=1000 * i
    )


@sync
async def test_thousands_of_rows_arrive_in_batches_and_sort(tmp_path, monkeypatch):
    app, _entries = _paused(tmp_path, monkeypatch)
    many = [_entry(i) for i in range(5000)]
    async with app.run_test(size=SIZE) as pilot:
        tab = app.current_tab()
        assert isinstance(tab, FleetTab)
        tab.set_total(len(many))
        for start in range(0, len(many), 256):
            tab.add_entries(many[start : start + 256])
            await pilot.pause()
        tab.finish()
        assert tab.table.row_count == 5000
        # worst first as they arrive, batch after batch
        assert [e.verdict for e in tab.shown[:715]] == ["BROKEN"] * 715
        assert tab.shown[715].verdict == "VERIFIED"
        tab.table.move_cursor(row=4999)
        await pilot.pause()
        assert tab.selected_entry() is tab.shown[4999]
        # DataTable draws only what is in view: its row cache holds a screenful, not 5000
        assert len(tab.table._row_render_cache) < 100


@sync
async def test_a_fleet_of_more_than_one_batch_runs_on_the_process_pool(tmp_path, monkeypatch):
    """More ledgers than one batch holds go to a process pool started inside the app,
    where Textual's stderr has no file descriptor: every ledger is still audited."""
    from sealscope.core import ledger

    monkeypatch.chdir(tmp_path)
    n = fleet.BATCH_FILES + 6
    for i in range(n):
        for j in range(2):
            ledger.append(tmp_path / "many" / f"l{i:03d}.jsonl", {"i": i, "j": j})
    assert len(fleet.plan_batches(fleet.walk(["many"])).batches) >= 2  # locks listed too
    app = SealscopeApp([Path("many")])
    async with app.run_test(size=SIZE) as pilot:
        tab = app.current_tab()
        assert isinstance(tab, FleetTab)
        await _done(pilot, tab)
        assert tab.stopped is None
        assert [e.verdict for e in tab.shown] == ["VERIFIED"] * n


@sync
async def test_evidence_paths_are_sanitized_text(tmp_path, monkeypatch):
    _tree(tmp_path, monkeypatch)
    hostile = tmp_path / "fleet" / "team-a" / "[bold red]x\x1b[2Jy\u202e.jsonl"
    (tmp_path / "fleet" / "team-a" / "honest.jsonl").rename(hostile)
    monkeypatch.setattr(FleetTab, "audit_worker", lambda self: None)
    app = SealscopeApp([Path("fleet")])
    async with app.run_test(size=SIZE) as pilot:
        tab = app.current_tab()
        assert isinstance(tab, FleetTab)
        tab.add_entries([fleet.audit_file(hostile.relative_to(tmp_path))])
        await pilot.pause()
        cell = tab.table.get_row_at(0)[-1]
        assert isinstance(cell, Text) and not cell.spans
        assert "\x1b" not in cell.plain and "\u202e" not in cell.plain
        assert cell.plain.startswith("team-a/[bold red]x")


def test_snapshot_fleet_partly_audited(snap_compare, tmp_path, monkeypatch):
    app, entries = _paused(tmp_path, monkeypatch)

    async def run(pilot):
        tab = pilot.app.current_tab()
        tab.set_total(len(entries), sum(e.size or 0 for e in entries))
        tab.add_entries(entries[:4])
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_snapshot_fleet_sorted_worst_first(snap_compare, tmp_path, monkeypatch):
    app, entries = _paused(tmp_path, monkeypatch)

    async def run(pilot):
        tab = _all_audited(pilot, entries)  # worst first with no key pressed
        while tab.order != (0, False) or len(tab.shown) != len(entries):
            await pilot.pause()
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def test_snapshot_fleet_filtered_could_not_look(snap_compare, tmp_path, monkeypatch):
    app, entries = _paused(tmp_path, monkeypatch)

    async def run(pilot):
        _all_audited(pilot, entries)
        await pilot.press("v", "v")
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)


def _pack_fleet(tmp_path: Path, monkeypatch) -> Path:
    """`fleet/` (cwd tmp_path): the sample pack (zip), bundle (folder) and AAT export,
    the sample session, and held `.json` content (of no kind: listed, not evidence)."""
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "fleet"
    root.mkdir()
    shutil.copy(SAMPLES / "packs" / "session-pack.zip", root / "pack.zip")
    shutil.copytree(SAMPLES / "packs" / "session-bundle", root / "bundle")
    shutil.copy(SAMPLES / "packs" / "session-aat.jsonl", root / "aat.jsonl")
    shutil.copy(SAMPLES / "session.jsonl", root / "session.jsonl")
    shutil.copy(SAMPLES / "held" / "liar-pre.json", root / "held.json")
    return root


@sync
async def test_a_folder_with_a_pack_shows_each_unit_as_one_row(tmp_path, monkeypatch):
    """Issue 30: a pack (zip), a bundle folder and an AAT export are one row each with
    their own verdict and kind; held content is not a row; no crash on a kind entry."""
    _pack_fleet(tmp_path, monkeypatch)
    app = SealscopeApp([Path("fleet")])
    async with app.run_test(size=SIZE) as pilot:
        tab = app.current_tab()
        assert isinstance(tab, FleetTab)
        await _done(pilot, tab)
        assert tab.stopped is None and tab.left_out == 1
        assert sorted(_shown(tab)) == [
            ("aat.jsonl", "VERIFIED"),
            ("bundle", "VERIFIED"),
            ("pack.zip", "VERIFIED"),
            ("session.jsonl", "VERIFIED"),
        ]
        assert tab.total == len(tab.entries) == tab.table.row_count == 4
        # the status counts entries and names their kinds as `sealscope fleet`'s count
        # line does: the units are not called ledgers
        status = tab.query_one("#fleet-status", Static).content.plain
        words = "1 ledger, 1 aat-export, 1 audit-bundle, 1 evidence-pack"
        assert f" · 4/4 entries: {words} · " in status and "ledgers" not in status
        assert fleet.count_words(fleet.summarize(tab.entries, 0.0)) == words
        # every row VERIFIED, and the held `.json` listed, not judged: VERIFIED, as
        # `sealscope fleet` exits 0 on it
        assert tab.tab_verdict == ("VERIFIED", 0)
        units = [_cell_texts(tab, i) for i in range(4) if "[" in _cell_texts(tab, i)[-1]]
        assert len(units) == 3 and all(c[1:5] == ["—"] * 4 for c in units)  # no one chain
        paths = {_cell_texts(tab, i)[-1] for i in range(tab.table.row_count)}
        assert paths == {
            "aat.jsonl  [aat-export]",
            "bundle  [audit-bundle]",
            "pack.zip  [evidence-pack]",
            "session.jsonl",
        }
        await pilot.press("v")  # the verdict filter cycles over the unit rows too
        await pilot.pause()
        assert app.current_tab() is tab


@sync
async def test_a_could_not_look_row_says_why_a_fifo_an_empty_file_a_dangling_link(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)
    root = tmp_path / "fleet"
    root.mkdir()
    shutil.copy(SAMPLES / "session.jsonl", root / "session.jsonl")
    os.mkfifo(root / "pipe.jsonl")
    (root / "empty.jsonl").write_bytes(b"")
    os.symlink(tmp_path / "gone.jsonl", root / "dangling.jsonl")
    app = SealscopeApp([Path("fleet")])
    async with app.run_test(size=SIZE) as pilot:
        tab = app.current_tab()
        await _done(pilot, tab)
        rows = [_cell_texts(tab, i) for i in range(tab.table.row_count)]
        assert [r[0] for r in rows] == [" COULD NOT LOOK "] * 3 + [" VERIFIED "]
        why = {r[-1].split("  — ")[0]: (r[-1].partition("  — ")[2], r[1], r[2]) for r in rows}
        assert why == {
            "dangling.jsonl": ("a dangling link: no target", "—", "—"),
            "empty.jsonl": ("empty file", "0", "0"),
            "pipe.jsonl": ("a FIFO (named pipe): not read", "—", "—"),
            "session.jsonl": ("", "11", "0"),
        }
        # nothing broken, three not looked at: ◐, as any tab that could not look
        assert tab.tab_verdict == ("COULD NOT LOOK", 3) and _label(app, tab) == "◐fleet/"


def _unstamped(text: str) -> str:
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "T", text)


@sync
async def test_x_on_a_fleet_writes_the_report_sealscope_export_dir_writes(tmp_path, monkeypatch):
    root = _pack_fleet(tmp_path, monkeypatch)
    # what the tab shows beyond the folder's own files: a subfolder, a FIFO, a link out
    (root / "sub").mkdir()
    shutil.copy(SAMPLES / "tampered.jsonl", root / "sub" / "tampered.jsonl")
    os.mkfifo(root / "pipe.jsonl")
    os.symlink(SAMPLES / "session.jsonl", root / "sub" / "out.jsonl")
    before = {p: p.lstat().st_mtime_ns for p in root.rglob("*")}
    base = tmp_path / "out" / "fleet-report"
    base.parent.mkdir()
    app = SealscopeApp([Path("fleet")])
    async with app.run_test(size=SIZE) as pilot:
        tab = app.current_tab()
        await _done(pilot, tab)
        assert _label(app, tab) == "✗fleet/" and app.check_action("export", ())
        scr = await start_export(app, pilot, base)
        await until(
            pilot,
            lambda: app.screen is not scr and not any(w.is_running for w in app.workers),
            "the export never finished",
        )
    md = base.with_name("fleet-report.md").read_text(encoding="utf-8")
    js = base.with_name("fleet-report.json").read_text(encoding="utf-8")

    as_md, as_json = cli("export", "fleet"), cli("export", "fleet", "--format", "json")
    doc = json.loads(js)
    assert doc["schema"] == "sealscope-export-folder:v1"
    assert (
        (doc["verdict"], doc["exit_code"])
        == ("BROKEN", 1)
        == (
            json.loads(as_json.stdout)["verdict"],
            as_json.returncode,
        )
    )
    assert _unstamped(js) == _unstamped(as_json.stdout)
    assert _unstamped(md) == _unstamped(as_md.stdout)
    assert {p: p.lstat().st_mtime_ns for p in root.rglob("*")} == before  # nothing in it
    # the report covers what the tab showed: its rows worst first, each a section,
    # and what it set aside
    assert [f["path"] for f in doc["files"]] == [e.path for e in fleet.worst_first(tab.entries)]
    assert [r["path"] for r in doc["reports"]] == [f["path"] for f in doc["files"]]
    assert [(f["verdict"], f["exit_code"]) for f in doc["files"]] == [
        (e.verdict, e.exit_code) for e in fleet.worst_first(tab.entries)
    ]
    assert [x["path"] for x in doc["not_evidence"]] == [e.path for e in tab.set_aside]
    assert {f["relative"] for f in doc["files"]} >= {"sub/tampered.jsonl", "pipe.jsonl", "pack.zip"}
    assert (doc["verdict"], doc["exit_code"]) == fleet.outcome([*tab.entries, *tab.set_aside])


def test_snapshot_fleet_with_a_pack(snap_compare, tmp_path, monkeypatch):
    """Issue 30: a fleet folder holding a pack zip, a bundle folder and an AAT export
    (one row each, their kind beside the path) with a ledger and held content."""
    _pack_fleet(tmp_path, monkeypatch)
    app = SealscopeApp([Path("fleet")])

    async def run(pilot):
        await _done(pilot, pilot.app.current_tab())
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    assert snap_compare(app, terminal_size=SIZE, run_before=run)
