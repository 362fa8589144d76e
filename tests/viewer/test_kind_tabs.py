"""The tabs of the other evidence kinds (issues 29 and 30): a receipt file, a distill
receipt, a portable receipt, a continuity verdict, an evidence pack (folder and zip),
an audit bundle and an AAT export, each opened in the viewer on files made here by the
reference's own writers (arcaeon, the test-only oracle).

Each tab shows a `KindCheck`. Where core's checker of the kind is installed the tab
runs it and the banner must say what the reference's own verifier says; the
rendering tests give the tab the reference's answer as a `KindCheck` (the typed
result core's checker returns), so they hold whichever checkers have landed.
Opening never writes a byte (hashes before and after); every hostile string in a
new field shows literally.
"""
from __future__ import annotations

import asyncio
import contextlib
import hashlib
import importlib
import io
import json
import os
import zipfile
from pathlib import Path

import pytest
from rich.console import Console
from rich.text import Text
from textual import events
from textual.widgets import OptionList, Static, TabbedContent

from sealscope.core import verdict
from sealscope.core.checks.result import KindCheck
from sealscope.viewer import app as app_module
from sealscope.viewer.aat_tab import AatTab
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.held_screen import HeldContentScreen
from sealscope.viewer.kind_tab import KindTab
from sealscope.viewer.kind_view import TAB_KINDS, KindBanner, run_check
from sealscope.viewer.unit_tab import UnitTab, members_table

from tests.viewer.viewer_helpers import HELD, SAMPLES, until

HOSTILE = "\x1b[31mred[/] [bold]x\u202e\x07"
HOSTILE_SHOWN = "\\x1b[31mred[/] [bold]x"    # what the sanitizer leaves of it


# ------------------------------------------------------------------ evidence made here

def session_rows() -> list[dict]:
    return [json.loads(x) for x in (SAMPLES / "session.jsonl").read_text().splitlines()
            if x.strip()]


def receipt_file(folder: Path, name: str = "receipt.json", **edit) -> Path:
    """Line 7 of the sample session (a v2 receipt) as its own pretty file, no chain."""
    row = session_rows()[6]
    assert row["kind"] == "compaction_receipt"
    row.pop("chain")
    row.update(edit)
    p = folder / name
    p.write_text(json.dumps(row, indent=2))
    return p


def pack(folder: Path, *, zipped: bool = False) -> Path:
    from arcaeon.prove.evidence_pack import build_pack
    out = folder / "pack"
    build_pack(SAMPLES / "session.jsonl", out, built_at="2026-03-02T00:00:00Z",
               zip_out=zipped)
    if zipped:
        z = folder / "pack.zip"
        assert z.is_file()
        return z
    return out


def aat_export(folder: Path, name: str = "aat.jsonl") -> Path:
    from arcaeon.prove.aat_export import export_aat
    out = folder / name
    export_aat(SAMPLES / "session.jsonl", out)
    return out


# ------------------------------------------------------------------ the reference's answers

def oracle_receipt(path: Path) -> KindCheck:
    """`arcaeon compact FILE`'s answer as a KindCheck (KINDS.md §2.3)."""
    from arcaeon.prove.compact import verify_receipt
    r = verify_receipt(json.loads(path.read_text()))
    keys = ("self_consistent", "content", "schema", "understatement_check",
            "verified_scope", "notes")
    return KindCheck(str(path), "receipt", r["ok"], {k: r.get(k) for k in keys},
                     bound="self-consistent, content not checked" if r["ok"] else "")


def oracle_pack(path: Path) -> KindCheck:
    """`arcaeon evidence-pack verify`'s answer as a KindCheck (KINDS.md §8.3)."""
    from arcaeon.prove.evidence_pack_verify import verify_pack
    r = verify_pack(path)
    return KindCheck(str(path), "evidence-pack", None,
                     {"verdict": r["verdict"], "exit": r["exit"], "checks": r["checks"]},
                     word=r["verdict"])


def oracle_aat(path: Path) -> dict:
    from arcaeon.prove.aat_export import verify_aat_bytes
    return verify_aat_bytes(path.read_bytes())


def core_has(module: str) -> bool:
    try:
        importlib.import_module(f"sealscope.core.checks.{module}")
    except ImportError:
        return False
    return True


def tree_digest(folder: Path) -> dict[str, str]:
    """Every file under `folder` (not followed through links) and its sha256."""
    out = {}
    for root, _dirs, files in os.walk(folder):
        for f in files:
            p = Path(root) / f
            if not p.is_symlink():
                out[str(p.relative_to(folder))] = hashlib.sha256(p.read_bytes()).hexdigest()
    return out


# ------------------------------------------------------------------ driving the viewer

def run(coro) -> None:
    asyncio.run(coro)


def empty_app() -> SealscopeApp:
    """The viewer with no file open (tabs are added by the test)."""
    app = SealscopeApp([os.devnull])
    app.paths = []
    return app


async def settled(app, pilot, tab) -> None:
    await until(pilot, lambda: tab.tab_verdict is not None
                and not any(w.is_running for w in app.workers), "the tab never judged")
    await pilot.pause()


@contextlib.asynccontextmanager
async def showing(tab, size=(120, 36)):
    """The viewer with `tab` added and in front, its check in and drawn."""
    app = empty_app()
    async with app.run_test(size=size) as pilot:
        await pilot.pause()
        await app.query_one(TabbedContent).add_pane(tab)
        app.show_tab(tab)
        app.clear_notifications()
        await settled(app, pilot, tab)
        yield app, pilot


def banner_of(tab) -> str:
    content = tab.query_one(KindBanner).content
    assert isinstance(content, Text)
    return content.plain


def static_text(tab, selector: str) -> str:
    content = tab.query_one(selector, Static).content
    return content.plain if isinstance(content, Text) else str(content)


def rows_of(tab, selector: str) -> list[str]:
    ol = tab.query_one(selector, OptionList)
    out = []
    for i in range(ol.option_count):
        prompt = ol.get_option_at_index(i).prompt
        out.append(prompt.plain if isinstance(prompt, Text) else str(prompt))
    return out


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
            for name in ("self-consistent:", "content:", "schema:", "understatement check:",
                         "verified scope:"):
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
            word = tab.tab_verdict.verdict       # core's word for the tab with its check
            assert tab.tab_verdict.exit_code == verdict.WRONG and verdict.tone(word) == "fail"
            assert banner_of(tab).startswith(f" {word} ")
            assert tab.query_one(KindBanner).has_class("-broken")
            assert f"own check {verdict.VERIFIED}" in banner_of(tab)
    run(go())


def test_hostile_strings_in_a_receipt_file_show_literally(tmp_path):
    p = receipt_file(tmp_path, compactor=HOSTILE, method={"x": HOSTILE}, **{HOSTILE: 1})
    kc = oracle_receipt(p)
    kc = KindCheck(kc.path, kc.kind, kc.ok, {**kc.detail, "verified_scope": HOSTILE},
                   bound=HOSTILE, reason=HOSTILE)

    async def go():
        tab = KindTab(p, "receipt", id="kind-1", check=kc)
        async with showing(tab):
            for text in (banner_of(tab), static_text(tab, "#kind-panel"),
                         static_text(tab, "#kind-fields")):
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
            assert all(r.startswith("▶") for r in rows)      # every row is in the window
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
    kc = KindCheck(str(z), "evidence-pack", None,
                   {"verdict": verdict.BROKEN, "exit": 1,
                    "checks": [{"check": "pack zip", "verdict": verdict.BROKEN,
                                "finding": HOSTILE}]}, word=verdict.BROKEN)

    async def go():
        tab = UnitTab(z, "evidence-pack", id="unit-1", check=kc)
        async with showing(tab) as (_app, pilot):
            await until(pilot, lambda: tab.view is not None)
            await pilot.pause()
            b = banner_of(tab)
            assert b.startswith(f" {verdict.BROKEN} ") and HOSTILE_SHOWN in b
            assert "\x1b" not in b
            # core's reader refuses the zip: its entries are listed by name, none read
            assert {m.name for m in tab.view.members} == \
                {"../evil.txt", HOSTILE + ".txt", "manifest.json"}
            assert all(m.actual is None and "not read" in m.note for m in tab.view.members)
            assert tab.view.errors and tab.view.errors[0].startswith(verdict.BROKEN)
            console = Console(record=True, width=200, file=io.StringIO())
            console.print(members_table(tab.view.members))
            rendered = console.export_text()
            assert "\x1b" not in rendered and HOSTILE_SHOWN in rendered
    run(go())
    assert tree_digest(tmp_path) == before         # nothing extracted, nothing written


@pytest.mark.skipif(not core_has("pack"), reason="core's evidence-pack checker not merged yet")
@pytest.mark.parametrize("zipped", [False, True], ids=["folder", "zip"])
def test_pack_tab_runs_core_and_says_what_the_reference_says(tmp_path, zipped):
    p = pack(tmp_path, zipped=zipped)
    want = oracle_pack(p)

    async def go():
        tab = UnitTab(p, "evidence-pack", id="unit-1")
        async with showing(tab) as (_app, pilot):
            assert tab.check is not None and tab.check.verdict == want.verdict
            assert [c["check"] for c in tab.check.detail["checks"]] == \
                [c["check"] for c in want.detail["checks"]]
            await until(pilot, lambda: tab.view is not None)
            if "members" in tab.check.detail:     # core's own listing, with its matches
                assert len(tab.view.members) == len(tab.check.detail["members"])
            listed = [m for m in tab.view.members if m.listed is not None]
            assert {m.name for m in listed} >= {"records.jsonl", "window.jsonl"}
            assert all(m.listed == m.actual for m in listed)
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

@pytest.mark.skipif(not core_has("aat"), reason="core's AAT checker not merged yet")
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
            assert f"{ref['records']} records · head {ref['head']}" in b
            rows = rows_of(tab, "#aat-rows")
            assert len(rows) == ref["records"]
            assert not any(r.startswith("✗") for r in rows)
            assert "prev — (first)" in rows[0]
    run(go())


@pytest.mark.skipif(not core_has("aat"), reason="core's AAT checker not merged yet")
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
                f"line {ref['line'] - 1}  ")
    run(go())


def test_hostile_strings_in_an_aat_export_show_literally(tmp_path):
    p = tmp_path / "aat.jsonl"
    p.write_text(json.dumps({"action_detail": {"tool_name": HOSTILE}, "outcome": HOSTILE,
                             "prev_hash": None, "timestamp": HOSTILE}) + "\n")

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
            tabs = [KindTab(receipt, "receipt", id="kind-1"),
                    UnitTab(folder, "evidence-pack", id="unit-1"),
                    UnitTab(zipped, "evidence-pack", id="unit-2"),
                    AatTab(aat, id="aat-1")]
            for tab in tabs:
                await app.query_one(TabbedContent).add_pane(tab)
                app.show_tab(tab)
                await settled(app, pilot, tab)
    run(go())
    assert tree_digest(tmp_path) == before
    assert {p: os.stat(tmp_path / p).st_mtime_ns for p in before} == stats


# ------------------------------------------------------------------ distill, portable, verdict

def distill_file(folder: Path, **edit) -> Path:
    from arcaeon.save.distill import distill
    got = distill({"report": "x" * 6000, "ids": list(range(400))}, budget=120)
    rec = dict(got.receipt.to_dict() if hasattr(got.receipt, "to_dict") else got.receipt)
    rec.update(edit)
    p = folder / "drop.json"
    p.write_text(json.dumps(rec, indent=1))
    return p


def oracle_distill(path: Path) -> KindCheck:
    from arcaeon.save.distill import verify_receipt
    r = verify_receipt(json.loads(path.read_text()))
    return KindCheck(str(path), "distill-receipt", r["ok"],
                     {"verified_scope": r["verified_scope"], "source": "document",
                      "notes": r.get("notes")},
                     bound="structure only, content not carried" if r["ok"] else "")


def portable_file(folder: Path) -> tuple[Path, Path]:
    from arcaeon.record.receipt.core import build_receipt
    ledger = folder / "issuer.ledger.jsonl"
    r = build_receipt("cite", {"doc": HOSTILE}, [{"name": "cited", "score": 1}],
                      {"proves": ["the citation was checked"],
                       "does_not_prove": ["that the source is true"]},
                      ledger_path=ledger, namespace="cite", witness=False, anchor=False,
                      issued_at="2026-03-01T10:00:00Z")
    p = folder / "cite.json"
    p.write_text(json.dumps(r, indent=1, ensure_ascii=False))
    return p, ledger


def oracle_portable(path: Path, ledger: Path | None) -> KindCheck:
    from arcaeon.record.receipt.core import verify_receipt
    text = path.read_text()
    r = verify_receipt(json.loads(text), ledger_path=ledger, source_text=text)
    return KindCheck(str(path), "portable-receipt", r["ok"], r,
                     bound="" if ledger else "no ledger: body digest only")


def verdict_file(folder: Path, faithful: bool) -> Path:
    from arcaeon.prove.continuity import snapshot, verify_continuation
    snap = snapshot({"goal": "ship the fix", "facts": ["a", "b"]}, label="t")
    restated = {p["id"]: (p.get("value", "") if faithful else "wrong") for p in snap.probes}
    if faithful:
        restated = {"goal": "ship the fix", "facts:0": "a", "facts:1": "b"}
    v = verify_continuation(snap, restated=restated)
    p = folder / ("exact.json" if faithful else "divergence.json")
    p.write_text(json.dumps(v.to_dict(), indent=2))
    return p


def oracle_verdict(path: Path) -> KindCheck:
    from arcaeon.prove.continuity import verdict_from_dict
    d = json.loads(path.read_text())
    try:
        v = verdict_from_dict(d)
    except ValueError as e:
        return KindCheck(str(path), "continuity-verdict", False,
                         {"loaded": False, "error": type(e).__name__, "verdict_digest": None})
    det = {"loaded": True, "error": None, "faithful": v.faithful, "valid": v.valid,
           "comparison": v.comparison, "verdict_digest": v.verdict_digest}
    word = (verdict.VERIFIED if v.faithful else verdict.BROKEN) if v.valid else verdict.BROKEN
    return KindCheck(str(path), "continuity-verdict", True, det, word=word)


def render_plain(renderable) -> str:
    console = Console(record=True, width=100, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def test_distill_receipt_tab_shows_its_drops_and_the_structural_bound(tmp_path):
    p = distill_file(tmp_path)
    kc = oracle_distill(p)
    assert kc.ok is True and kc.detail["verified_scope"] == "structural_only"
    drops = json.loads(p.read_text())["drops"]
    assert drops

    async def go():
        tab = KindTab(p, "distill-receipt", id="kind-1", check=kc)
        async with showing(tab):
            b = banner_of(tab)
            assert b.startswith(f" {verdict.VERIFIED}  · structure only") and "distill" in b
            assert "verified scope: structural_only" in b
            panel = static_text(tab, "#kind-panel")
            assert f"drops: {len(drops)}" in panel
            assert drops[0]["digest"] in panel and str(drops[0]["path"]) in panel
    run(go())


def test_flipped_distill_receipt_is_broken(tmp_path):
    p = distill_file(tmp_path, truncated=False)
    kc = oracle_distill(p)
    assert kc.ok is False

    async def go():
        tab = KindTab(p, "distill-receipt", id="kind-1", check=kc)
        async with showing(tab):
            assert banner_of(tab).startswith(f" {verdict.BROKEN} ")
    run(go())


def test_portable_receipt_tab_blocks_and_its_ledger_opened_beside(tmp_path):
    p, ledger = portable_file(tmp_path)
    assert ledger.is_file()
    kc = oracle_portable(p, ledger)
    assert kc.ok is True

    async def go():
        tab = KindTab(p, "portable-receipt", id="kind-1", check=kc)
        async with showing(tab) as (app, pilot):
            b = banner_of(tab)
            assert b.startswith(f" {verdict.VERIFIED} ") and "portable receipt" in b
            assert "body digest: ok" in b and "ledger: consistent" in b
            panel = static_text(tab, "#kind-panel")
            doc = json.loads(p.read_text())
            assert doc["body_digest"] in panel
            for block in ("subject", "ledger", "witness", "proves", "does not prove"):
                assert f"\n {block}\n" in panel
            assert "\x1b" not in panel and HOSTILE_SHOWN in panel
            assert tab.ledger_beside() == str(ledger)
            await pilot.press("L")
            await until(pilot, lambda: app.ledger_tabs(), "the ledger never opened")
            assert Path(app.ledger_tabs()[0].path) == ledger
    run(go())


def test_portable_receipt_with_an_edited_check_is_broken(tmp_path):
    p, ledger = portable_file(tmp_path)
    doc = json.loads(p.read_text())
    doc["checks"][0]["score"] = 2
    p.write_text(json.dumps(doc, indent=1))
    kc = oracle_portable(p, ledger)
    assert kc.ok is False

    async def go():
        tab = KindTab(p, "portable-receipt", id="kind-1", check=kc)
        async with showing(tab):
            assert banner_of(tab).startswith(f" {verdict.BROKEN} ")
            assert "body digest: mismatch" in banner_of(tab)
    run(go())


@pytest.mark.parametrize("faithful", [True, False], ids=["exact", "divergence"])
def test_continuity_verdict_tab_shows_divergences_as_the_seal_tab(tmp_path, faithful):
    p = verdict_file(tmp_path, faithful)
    kc = oracle_verdict(p)
    doc = json.loads(p.read_text())

    async def go():
        tab = KindTab(p, "continuity-verdict", id="kind-1", check=kc)
        async with showing(tab):
            b = banner_of(tab)
            assert b.startswith(f" {kc.verdict} ") and "continuity verdict" in b
            assert f"faithful: {'yes' if faithful else 'no'}" in b
            panel = render_plain(tab.query_one("#kind-panel", Static).content)
            if faithful:
                assert "no divergence" in panel
            else:
                assert len(doc["divergences"]) == 3
                for d in doc["divergences"]:
                    assert d["id"] in panel
                assert "wrong" in panel
    run(go())


def test_a_refused_continuity_verdict_is_not_drawn_as_a_verdict(tmp_path):
    p = verdict_file(tmp_path, False)
    doc = json.loads(p.read_text())
    doc["faithful"] = True
    p.write_text(json.dumps(doc))
    kc = oracle_verdict(p)
    assert kc.detail["loaded"] is False

    async def go():
        tab = KindTab(p, "continuity-verdict", id="kind-1", check=kc)
        async with showing(tab):
            assert banner_of(tab).startswith(f" {verdict.BROKEN} ")
            panel = static_text(tab, "#kind-panel")
            assert "not loaded" in panel and verdict.FAITHFUL not in panel
    run(go())


# ------------------------------------------------------------------ the app, with core's checkers

def bundle(folder: Path) -> Path:
    from arcaeon.prove.audit import export_bundle
    out = folder / "bundle"
    export_bundle(SAMPLES / "session.jsonl", out, generated_at="2026-03-02T00:00:00Z")
    return out


def oracle_bundle_word(path: Path) -> str:
    from arcaeon.record.ledger import verify_file
    ok = verify_file(path / "records.jsonl").ok
    return verdict.kind_check(ok).verdict


def _cases(tmp: Path) -> list[tuple[Path, type, str]]:
    receipt = receipt_file(tmp)
    drop = distill_file(tmp)
    cite, ledger = portable_file(tmp)
    exact = verdict_file(tmp, True)
    div = verdict_file(tmp, False)
    folder = pack(tmp)
    (tmp / "z").mkdir()
    zipped = pack(tmp / "z", zipped=True)
    bun = bundle(tmp)
    aat = aat_export(tmp)
    return [(receipt, KindTab, oracle_receipt(receipt).verdict),
            (drop, KindTab, oracle_distill(drop).verdict),
            (cite, KindTab, oracle_portable(cite, ledger).verdict),
            (exact, KindTab, oracle_verdict(exact).verdict),
            (div, KindTab, oracle_verdict(div).verdict),
            (folder, UnitTab, oracle_pack(folder).verdict),
            (zipped, UnitTab, oracle_pack(zipped).verdict),
            (bun, UnitTab, oracle_bundle_word(bun)),
            (aat, AatTab, verdict.kind_check(oracle_aat(aat)["ok"]).verdict)]


def test_the_app_opens_each_kind_by_the_classifier_in_its_tab_with_the_reference_word(
        tmp_path):
    cases = _cases(tmp_path)
    words = {str(p): w for p, _t, w in cases}
    assert words[str(tmp_path / "divergence.json")] == verdict.BROKEN
    before = tree_digest(tmp_path)

    async def go():
        app = SealscopeApp([p for p, _t, _w in cases])
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: len(app.panes()) == len(cases)
                        and all(t.tab_verdict is not None for t in app.panes())
                        and not any(w.is_running for w in app.workers),
                        "the tabs never judged")
            for (p, cls, word), tab in zip(cases, app.panes(), strict=True):
                assert type(tab) is cls and tab.path == str(p)
                assert tab.tab_verdict.verdict == word, p
                assert banner_of(tab).startswith(f" {word} "), p
                assert not app.ledger_tabs()
    run(go())
    assert tree_digest(tmp_path) == before


# ------------------------------------------------------------------ drop, keys, hostile fields

def test_a_file_dropped_on_a_receipt_file_tab_is_its_held_pre_content(tmp_path):
    p = receipt_file(tmp_path)

    async def go():
        app = SealscopeApp([p])
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.panes() and app.panes()[0].tab_verdict is not None)
            app.post_message(events.Paste(f"'{HELD / 'session-pre.jsonl'}'"))
            await until(pilot, lambda: isinstance(app.screen, HeldContentScreen),
                        "the drop never opened held content")
            scr = app.screen
            assert scr.pre_path == HELD / "session-pre.jsonl"
            await until(pilot, lambda: scr.pre_items is not None, "pre never loaded")
            assert len(app.panes()) == 1            # taken as content, not opened as a tab
    run(go())


def test_a_file_dropped_on_another_kind_tab_opens_in_its_own_tab(tmp_path):
    p = aat_export(tmp_path)
    other = receipt_file(tmp_path)

    async def go():
        app = SealscopeApp([p])
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: app.panes() and app.panes()[0].tab_verdict is not None)
            app.post_message(events.Paste(str(other)))
            await until(pilot, lambda: len(app.panes()) == 2, "the drop never opened")
            assert isinstance(app.panes()[1], KindTab)
    run(go())


def test_key_help_and_palette_entries_of_the_new_tabs(tmp_path):
    receipt = receipt_file(tmp_path)
    folder = pack(tmp_path)
    aat = aat_export(tmp_path)

    async def go():
        app = SealscopeApp([receipt, folder, aat])
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: len(app.panes()) == 3
                        and all(t.tab_verdict is not None for t in app.panes()))
            titles = {tab.path: {c.title for c in tab.commands()} for tab in app.panes()}
            assert "Held content for this receipt" in titles[str(receipt)]
            assert "Open records.jsonl as a ledger" in titles[str(folder)]
            assert "Held content for this receipt" not in titles[str(folder)]
            for tab in app.panes():
                app.show_tab(tab)
                await pilot.pause()
                assert not app.check_action("export", ())   # no report of these kinds yet
                await pilot.press("question_mark")
                await until(pilot, lambda: app.screen is not app.screen_stack[0])
                await pilot.press("escape")
                await until(pilot, lambda: app.screen is app.screen_stack[0])
    run(go())


def test_hostile_strings_in_drops_members_and_rows_show_literally(tmp_path):
    drop = distill_file(tmp_path)
    doc = json.loads(drop.read_text())
    doc["drops"][0]["path"] = HOSTILE             # not checked: still verifies
    doc["drops"][0]["kind"] = HOSTILE
    drop.write_text(json.dumps(doc))
    folder = pack(tmp_path)
    name = HOSTILE.replace("/", "_") + ".txt"     # a file name holds no slash
    (folder / name).write_text("planted")
    records = folder / "records.jsonl"
    records.write_bytes(records.read_bytes() + json.dumps({"kind": HOSTILE}).encode() + b"\n")

    async def go():
        app = SealscopeApp([drop, folder])
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: len(app.panes()) == 2
                        and all(t.tab_verdict is not None for t in app.panes())
                        and app.panes()[1].view is not None
                        and not any(w.is_running for w in app.workers))
            dtab, utab = app.panes()
            assert dtab.tab_verdict.verdict == oracle_distill(drop).verdict
            panel = static_text(dtab, "#kind-panel")
            assert "\x1b" not in panel and panel.count(HOSTILE_SHOWN) >= 2
            assert utab.tab_verdict.verdict == verdict.BROKEN == oracle_pack(folder).verdict
            planted = next(m for m in utab.view.members if m.name == name)
            assert planted.listed is None and planted.actual is not None
            rendered = render_plain(members_table(utab.view.members))
            assert "\x1b" not in rendered and "not listed" in rendered
            assert HOSTILE_SHOWN.replace("/", "_") in rendered
            rows = rows_of(utab, "#unit-rows")
            assert "\x1b" not in rows[-1] and HOSTILE_SHOWN in rows[-1]
            assert not rows[-1].startswith("▶")      # not a window row
    run(go())


# ------------------------------------------------------------------ the bundled samples

def sample_kinds() -> list[tuple[Path, str]]:
    """Every bundled sample (two levels deep) the classifier names as a kind one of
    these tabs opens, with that kind."""
    from sealscope.core import kinds
    out = []
    for p in sorted({*SAMPLES.glob("*"), *SAMPLES.glob("*/*")}):
        if p.name.startswith((".", "_")) or p.suffix == ".py":
            continue
        kind = kinds.classify(p).check_kind
        if kind in TAB_KINDS:
            out.append((p, kind))
    return out


def test_every_sample_of_a_new_kind_opens_in_its_tab_with_cores_verdict():
    from sealscope.core.checks import run as check_run
    found = sample_kinds()
    kinds_found = {k for _p, k in found}
    assert {"evidence-pack", "audit-bundle", "aat-export"} <= kinds_found, kinds_found
    want = {str(p): check_run([str(p)])[0].verdict for p, _k in found}
    before = tree_digest(SAMPLES)

    async def go():
        app = SealscopeApp([p for p, _k in found])
        async with app.run_test(size=(120, 36)) as pilot:
            await until(pilot, lambda: len(app.panes()) == len(found)
                        and all(t.tab_verdict is not None for t in app.panes())
                        and not any(w.is_running for w in app.workers),
                        "the sample tabs never judged")
            for (p, kind), tab in zip(found, app.panes(), strict=True):
                cls = {"evidence-pack": UnitTab, "audit-bundle": UnitTab,
                       "aat-export": AatTab}.get(kind, KindTab)
                assert type(tab) is cls, p
                assert tab.tab_verdict.verdict == want[str(p)], p
                assert banner_of(tab).startswith(f" {want[str(p)]} "), p
    run(go())
    assert tree_digest(SAMPLES) == before


def test_a_zip_pack_or_aat_export_first_on_the_command_line_is_not_drawn_as_a_ledger(
        tmp_path):
    """`sealscope pack.zip`: the first paint draws only a ledger's first screen; a zip
    or an AAT export (not named .json, so a ledger to the frontends) opens its own tab."""
    assert SealscopeApp([SAMPLES / "session.jsonl"], first_paint=True).first_paint is not None
    for p in (pack(tmp_path, zipped=True), aat_export(tmp_path)):
        assert SealscopeApp([p], first_paint=True).first_paint is None, p
