"""The tabs of the other evidence kinds (issues 29 and 30), each opened in the viewer on
files made by the reference's own writers (`kind_helpers`): a receipt file (its panel,
held content), an evidence pack (folder and zip: checks, members, window rows), an AAT
export (its own chain, never BROKEN when honest).

The rendering tests give a tab the reference's answer as a `KindCheck` (the typed
result core's checker returns); the others let the tab run core's checker and hold it
to the reference's verifier. Opening never writes a byte (hashes before and after);
every hostile string in a new field shows literally.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import zipfile
from pathlib import Path

import pytest
from rich.console import Console
from sealscope.core import verdict
from sealscope.core.checks.result import KindCheck
from sealscope.viewer import app as app_module
from sealscope.viewer.aat_tab import AatTab
from sealscope.viewer.check_list import KindBanner
from sealscope.viewer.held_screen import HeldContentScreen
from sealscope.viewer.kind_tab import KindTab
from sealscope.viewer.kind_view import TAB_KINDS, run_check
from sealscope.viewer.unit_tab import UnitTab, members_table
from textual.widgets import Static, TabbedContent

from tests.viewer.kind_helpers import (
    HOSTILE,
    HOSTILE_SHOWN,
    aat_export,
    banner_of,
    bundle,
    empty_app,
    oracle_aat,
    oracle_pack,
    oracle_receipt,
    pack,
    receipt_file,
    render_plain,
    rows_of,
    run,
    session_rows,
    settled,
    showing,
    static_text,
    tree_digest,
)
from tests.viewer.viewer_helpers import HELD, until

# ------------------------------------------------------------------ the app's table


def test_every_kind_a_tab_opens_is_in_the_apps_table():
    assert set(TAB_KINDS) <= set(app_module.KIND_TABS)
    assert set(app_module.KIND_TABS) - set(TAB_KINDS) == {"call-record"}


def test_a_checker_that_is_not_there_or_raises_is_could_not_look_not_a_traceback(tmp_path):
    p = tmp_path / "x.json"
    p.write_text("{}")
    got = run_check(p, "no-such-kind")
    assert got.verdict == verdict.COULD_NOT_LOOK and got.ok is None
    assert got.detail.get("error") or got.detail.get("reason_word") == "unreadable"
    gone = run_check(tmp_path / "gone.json", "receipt")
    assert gone.verdict == verdict.COULD_NOT_LOOK and gone.ok is None


# ------------------------------------------------------------------ receipt file


def test_receipt_file_tab_banner_word_bound_checks_and_panel(tmp_path):
    p = receipt_file(tmp_path)
    kc = oracle_receipt(p)
    assert kc.ok is True

    async def go():
        tab = KindTab(p, "receipt", id="kind-1", check=kc)
        async with showing(tab) as (_app, _pilot):
            b = banner_of(tab)
            assert b.startswith(f" {verdict.VERIFIED}  · self-consistent, content not checked")
            assert "compaction receipt" in b and "receipt.json" in b
            for name in (
                "self-consistent:",
                "content:",
                "schema:",
                "understatement check:",
                "verified scope:",
            ):
                assert name in b
            assert "bounded_no_content" in b
            panel = static_text(tab, "#kind-panel")
            assert " v2 " in panel and "receipt_digest reproduces" in panel
            assert "✗" not in panel
            fields = static_text(tab, "#kind-fields")
            assert "compactor: agent-7/compactor" in fields
            assert tab.tab_verdict == verdict.Outcome(verdict.VERIFIED, verdict.HELD)
            assert tab.query_one(KindBanner).has_class("-verified")

    run(go())


def test_tampered_receipt_file_is_broken_and_names_the_failed_check(tmp_path):
    p = receipt_file(tmp_path, compactor="someone-else")
    kc = oracle_receipt(p)
    assert kc.ok is False

    async def go():
        tab = KindTab(p, "receipt", id="kind-1", check=kc)
        async with showing(tab):
            assert banner_of(tab).startswith(f" {verdict.BROKEN} ")
            assert "self-consistent: no" in banner_of(tab)
            assert "✗ receipt_digest reproduces" in static_text(tab, "#kind-panel")
            assert tab.query_one(KindBanner).has_class("-broken")

    run(go())


def test_receipt_file_held_content_h_recomputes_in_full_and_sticks(tmp_path):
    p = receipt_file(tmp_path)

    async def go():
        tab = KindTab(p, "receipt", id="kind-1", check=oracle_receipt(p))
        async with showing(tab) as (app, pilot):
            await pilot.press("h")
            await pilot.pause()
            scr = app.screen
            assert isinstance(scr, HeldContentScreen)
            scr.query_one("#pre").value = str(HELD / "session-pre.jsonl")
            scr.query_one("#post").value = str(HELD / "session-post.jsonl")
            await pilot.press("ctrl+r")
            await until(pilot, lambda: tab.held is not None, "held content never recomputed")
            assert tab.held.content == "match" and tab.held.verified_scope == "full"
            await pilot.press("escape")
            await pilot.pause()
            b = banner_of(tab)
            assert b.startswith(f" {verdict.VERIFIED} ")
            # the content was checked and matched: the bound says so, not "not checked"
            assert "content not checked" not in b
            assert b.startswith(f" {verdict.VERIFIED}  · 1 receipt verified in full "), b
            assert len(tab.session) == 1 and tab.session[0].kind == "recompute"
            assert "recomputed with held content" in static_text(tab, "#kind-panel")
            await pilot.press("delete")
            await pilot.pause()
            assert tab.held is None and not tab.session

    run(go())


def test_receipt_file_held_content_that_does_not_match_turns_the_tab_broken(tmp_path):
    p = receipt_file(tmp_path)

    async def go():
        tab = KindTab(p, "receipt", id="kind-1", check=oracle_receipt(p))
        async with showing(tab) as (app, pilot):
            await pilot.press("h")
            await pilot.pause()
            scr = app.screen
            scr.query_one("#pre").value = str(HELD / "liar-pre.json")
            scr.query_one("#post").value = str(HELD / "liar-post.json")
            await pilot.press("ctrl+r")
            await until(pilot, lambda: tab.session, "held content never recorded")
            await pilot.press("escape")
            await pilot.pause()
            word = tab.tab_verdict.verdict  # core's word for the tab with its check
            assert tab.tab_verdict.exit_code == verdict.WRONG and verdict.tone(word) == "fail"
            assert banner_of(tab).startswith(f" {word} ")
            assert tab.query_one(KindBanner).has_class("-broken")
            assert f"own check {verdict.VERIFIED}" in banner_of(tab)

    run(go())


def test_hostile_strings_in_a_receipt_file_show_literally(tmp_path):
    p = receipt_file(tmp_path, compactor=HOSTILE, method={"x": HOSTILE}, **{HOSTILE: 1})
    kc = oracle_receipt(p)
    kc = KindCheck(
        kc.path,
        kc.kind,
        kc.ok,
        {**kc.detail, "verified_scope": HOSTILE},
        bound=HOSTILE,
        reason=HOSTILE,
    )

    async def go():
        tab = KindTab(p, "receipt", id="kind-1", check=kc)
        async with showing(tab):
            for text in (
                banner_of(tab),
                static_text(tab, "#kind-panel"),
                static_text(tab, "#kind-fields"),
            ):
                assert "\x1b" not in text and "\u202e" not in text and "\x07" not in text
                assert HOSTILE_SHOWN in text

    run(go())


# ------------------------------------------------------------------ evidence pack


@pytest.mark.parametrize("zipped", [False, True], ids=["folder", "zip"])
def test_pack_tab_banner_checks_members_and_window_rows(tmp_path, zipped):
    p = pack(tmp_path, zipped=zipped)
    kc = oracle_pack(p)
    assert kc.verdict == verdict.VERIFIED

    async def go():
        tab = UnitTab(p, "evidence-pack", id="unit-1", check=kc)
        async with showing(tab) as (app, pilot):
            await until(pilot, lambda: tab.view is not None)
            await pilot.pause()
            b = banner_of(tab)
            assert b.startswith(f" {verdict.VERIFIED} ") and "evidence pack" in b
            for c in kc.detail["checks"]:
                assert f"{c['check']}:  {c['verdict']} " in b
            names = {m.name for m in tab.view.members}
            assert {"records.jsonl", "window.jsonl", "README.md", "integrity.json"} <= names
            for m in tab.view.members:
                assert m.listed is not None and m.listed == m.actual, m
            rows = rows_of(tab, "#unit-rows")
            assert len(rows) == len(session_rows())
            assert all(r.startswith("▶") for r in rows)  # every row is in the window
            assert "compaction_receipt" in rows[6]
            await pilot.press("down")
            await pilot.pause()
            detail = tab.query_one("#unit-row", Static).content.plain
            assert detail.startswith("line 2  ") and '"tool": "search"' in detail
            assert tab.tab_verdict.verdict == verdict.VERIFIED
            if not zipped:
                assert app.check_action("open_ledger", ()) is not False
                await pilot.press("L")
                await until(pilot, lambda: app.ledger_tabs(), "records.jsonl never opened")
                assert Path(app.ledger_tabs()[0].path).name == "records.jsonl"

    run(go())


def test_tampered_pack_member_shows_both_digests_and_the_broken_word(tmp_path):
    p = pack(tmp_path)
    readme = p / "README.md"
    readme.write_bytes(readme.read_bytes().replace(b"a", b"b", 1))
    kc = oracle_pack(p)
    assert kc.verdict == verdict.BROKEN

    async def go():
        tab = UnitTab(p, "evidence-pack", id="unit-1", check=kc)
        async with showing(tab) as (_app, pilot):
            await until(pilot, lambda: tab.view is not None)
            assert banner_of(tab).startswith(f" {verdict.BROKEN} ")
            assert f"file hashes:  {verdict.BROKEN} " in banner_of(tab)
            m = next(m for m in tab.view.members if m.name == "README.md")
            assert m.listed != m.actual
            assert m.actual == hashlib.sha256(readme.read_bytes()).hexdigest()
            assert tab.query_one(KindBanner).has_class("-broken")

    run(go())


def test_a_hostile_zip_lists_its_members_unread_and_literally(tmp_path):
    z = tmp_path / "evil.zip"
    with zipfile.ZipFile(z, "w") as zf:
        zf.writestr("../evil.txt", "x")
        zf.writestr(HOSTILE + ".txt", "y")
        zf.writestr("manifest.json", json.dumps({"pack_schema": 1, "files": {HOSTILE: "0"}}))
    before = tree_digest(tmp_path)
    kc = KindCheck(
        str(z),
        "evidence-pack",
        None,
        {
            "verdict": verdict.BROKEN,
            "exit": 1,
            "checks": [{"check": "pack zip", "verdict": verdict.BROKEN, "finding": HOSTILE}],
        },
        word=verdict.BROKEN,
    )

    async def go():
        tab = UnitTab(z, "evidence-pack", id="unit-1", check=kc)
        async with showing(tab) as (_app, pilot):
            await until(pilot, lambda: tab.view is not None)
            await pilot.pause()
            b = banner_of(tab)
            assert b.startswith(f" {verdict.BROKEN} ") and HOSTILE_SHOWN in b
            assert "\x1b" not in b
            # core's reader refuses the zip: its entries are listed by name, none read
            assert {m.name for m in tab.view.members} == {
                "../evil.txt",
                HOSTILE + ".txt",
                "manifest.json",
            }
            assert all(m.actual is None and "not read" in m.note for m in tab.view.members)
            assert tab.view.errors and tab.view.errors[0].startswith(verdict.BROKEN)
            console = Console(record=True, width=200, file=io.StringIO())
            console.print(members_table(tab.view.members))
            rendered = console.export_text()
            assert "\x1b" not in rendered and HOSTILE_SHOWN in rendered

    run(go())
    assert tree_digest(tmp_path) == before  # nothing extracted, nothing written


@pytest.mark.parametrize("zipped", [False, True], ids=["folder", "zip"])
def test_pack_tab_runs_core_and_says_what_the_reference_says(tmp_path, zipped):
    p = pack(tmp_path, zipped=zipped)
    want = oracle_pack(p)

    async def go():
        tab = UnitTab(p, "evidence-pack", id="unit-1")
        async with showing(tab) as (_app, pilot):
            assert tab.check is not None and tab.check.verdict == want.verdict
            assert [c["check"] for c in tab.check.detail["checks"]] == [
                c["check"] for c in want.detail["checks"]
            ]
            await until(pilot, lambda: tab.view is not None)
            if "members" in tab.check.detail:  # core's own listing, with its matches
                assert len(tab.view.members) == len(tab.check.detail["members"])
            listed = [m for m in tab.view.members if m.listed is not None]
            assert {m.name for m in listed} >= {"records.jsonl", "window.jsonl"}
            assert all(m.listed == m.actual for m in listed)
            # the banner cuts a long note to a line; the left pane has it whole
            long = next(c for c in tab.check.detail["checks"] if len(c.get("note") or "") > 80)
            assert long["note"][:60] in banner_of(tab) and long["note"] not in banner_of(tab)
            left = render_plain(tab.query_one("#unit-members", Static).content, width=300)
            assert " ".join(long["note"].split()) in " ".join(left.split())

    run(go())


def test_a_changed_member_of_a_zip_pack_read_by_core_is_marked(tmp_path):
    """A re-zipped pack with README.md changed (its CRC valid): core's file hashes
    check is BROKEN and its member list marks that member."""
    folder = pack(tmp_path)
    readme = folder / "README.md"
    readme.write_bytes(readme.read_bytes() + b"planted\n")
    z = tmp_path / "repacked.zip"
    with zipfile.ZipFile(z, "w") as zf:
        for f in sorted(folder.iterdir()):
            zf.write(f, f.name)
    want = oracle_pack(z)
    assert want.verdict == verdict.BROKEN

    async def go():
        tab = UnitTab(z, "evidence-pack", id="unit-1")
        async with showing(tab) as (_app, pilot):
            await until(pilot, lambda: tab.view is not None)
            assert tab.check.verdict == verdict.BROKEN
            assert f"file hashes:  {verdict.BROKEN} " in banner_of(tab)
            m = next(m for m in tab.view.members if m.name == "README.md")
            assert m.listed != m.actual
            rendered = render_plain(members_table(tab.view.members))
            assert "differs" in rendered

    run(go())


# ------------------------------------------------------------------ AAT export


def test_honest_aat_export_is_never_broken_and_shows_its_head(tmp_path):
    p = aat_export(tmp_path)
    ref = oracle_aat(p)
    assert ref["ok"] is True

    async def go():
        tab = AatTab(p, id="aat-1")
        async with showing(tab) as (_app, pilot):
            await until(pilot, lambda: tab.rows is not None)
            await pilot.pause()
            b = banner_of(tab)
            assert b.startswith(f" {verdict.VERIFIED} ")
            assert verdict.BROKEN not in b
            assert (
                f"{ref['records']} records" in b
                and f"head (the last line's hash): {ref['head']}" in b
            )
            rows = rows_of(tab, "#aat-rows")
            assert len(rows) == ref["records"]
            assert not any(r.startswith("✗") for r in rows)
            assert "prev — (first)" in rows[0]

    run(go())


def test_tampered_aat_export_is_broken_at_the_line_the_reference_names(tmp_path):
    p = aat_export(tmp_path)
    lines = p.read_bytes().split(b"\n")
    lines[3] = lines[3].replace(b"fetch", b"fetck", 1)
    p.write_bytes(b"\n".join(lines))
    ref = oracle_aat(p)
    assert ref["ok"] is False

    async def go():
        tab = AatTab(p, id="aat-1")
        async with showing(tab) as (_app, pilot):
            await until(pilot, lambda: tab.rows is not None)
            await pilot.pause()
            assert banner_of(tab).startswith(f" {verdict.BROKEN} ")
            assert tab.break_line == ref["line"]
            rows = rows_of(tab, "#aat-rows")
            assert rows[ref["line"] - 1].startswith("✗")
            assert sum(r.startswith("✗") for r in rows) == 1
            # the break is the row in front, its record shown whole below the list
            detail = tab.query_one("#aat-row", Static).content.plain
            assert detail.startswith(f"line {ref['line']}  ")
            assert json.loads(lines[ref["line"] - 1])["prev_hash"] in detail
            await pilot.press("up")
            await pilot.pause()
            assert tab.query_one("#aat-row", Static).content.plain.startswith(
                f"line {ref['line'] - 1}  "
            )

    run(go())


def test_hostile_strings_in_an_aat_export_show_literally(tmp_path):
    p = tmp_path / "aat.jsonl"
    p.write_text(
        json.dumps(
            {
                "action_detail": {"tool_name": HOSTILE},
                "outcome": HOSTILE,
                "prev_hash": None,
                "timestamp": HOSTILE,
            }
        )
        + "\n"
    )

    async def go():
        tab = AatTab(p, id="aat-1")
        async with showing(tab) as (_app, pilot):
            await until(pilot, lambda: tab.rows is not None)
            rows = rows_of(tab, "#aat-rows")
            assert "\x1b" not in rows[0] and "\\x1b[31m" in rows[0]

    run(go())


# ------------------------------------------------------------------ no byte written


def test_opening_every_new_tab_writes_no_byte(tmp_path):
    receipt = receipt_file(tmp_path)
    folder = pack(tmp_path)
    (tmp_path / "z").mkdir()
    zipped = pack(tmp_path / "z", zipped=True)
    aat = aat_export(tmp_path)
    before = tree_digest(tmp_path)
    stats = {p: os.stat(tmp_path / p).st_mtime_ns for p in before}

    async def go():
        app = empty_app()
        async with app.run_test(size=(120, 36)) as pilot:
            tabs = [
                KindTab(receipt, "receipt", id="kind-1"),
                UnitTab(folder, "evidence-pack", id="unit-1"),
                UnitTab(zipped, "evidence-pack", id="unit-2"),
                AatTab(aat, id="aat-1"),
            ]
            for tab in tabs:
                await app.query_one(TabbedContent).add_pane(tab)
                app.show_tab(tab)
                await settled(app, pilot, tab)

    run(go())
    assert tree_digest(tmp_path) == before
    assert {p: os.stat(tmp_path / p).st_mtime_ns for p in before} == stats


@pytest.mark.parametrize("unit", ["pack", "bundle"])
def test_a_records_row_edited_in_a_unit_is_flagged_where_core_says_it_breaks(tmp_path, unit):
    """A value edited on line 4 of `records.jsonl`: core's chain breaks there, and the
    unit's row list flags that row and opens on it."""
    folder = pack(tmp_path) if unit == "pack" else bundle(tmp_path)
    records = folder / "records.jsonl"
    lines = records.read_text().split("\n")
    lines[3] = lines[3].replace("reports/2", "reports/X")
    records.write_text("\n".join(lines))

    async def go():
        tab = UnitTab(folder, "evidence-pack" if unit == "pack" else "audit-bundle", id="u")
        async with showing(tab) as (_app, pilot):
            await until(pilot, lambda: tab.view is not None)
            await pilot.pause()
            assert tab.check.verdict == verdict.BROKEN
            assert banner_of(tab).startswith(f" {verdict.BROKEN} ")
            assert tab.flagged_lines() == {4}
            rows = rows_of(tab, "#unit-rows")
            assert rows[3].startswith("✗") and sum(r.startswith("✗") for r in rows) == 1
            detail = tab.query_one("#unit-row", Static).content.plain
            assert detail.startswith("line 4  ") and "reports/X" in detail

    run(go())
