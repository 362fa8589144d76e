"""The kind tabs of a distill receipt (its drops), a portable receipt (body digest,
ledger and witness blocks, its ledger opened beside it) and a stored continuity verdict
(its divergences as the seal tab draws them; a refused one never drawn as a verdict),
on files the reference's writers make, with the reference's answers.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sealscope.core import verdict
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.kind_tab import KindTab
from textual.widgets import Static

from tests.viewer.kind_helpers import (
    HOSTILE,
    HOSTILE_SHOWN,
    banner_of,
    distill_file,
    oracle_distill,
    oracle_portable,
    oracle_verdict,
    portable_file,
    render_plain,
    run,
    showing,
    static_text,
    verdict_file,
)
from tests.viewer.viewer_helpers import until


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
        tab = KindTab(p, "portable-receipt", id="kind-1")  # core's check finds the ledger
        async with showing(tab) as (app, pilot):
            assert tab.check.verdict == kc.verdict
            b = banner_of(tab)
            assert b.startswith(f" {verdict.VERIFIED} ") and "portable receipt" in b
            assert "body digest: ok" in b and "ledger: consistent" in b
            panel = static_text(tab, "#kind-panel")
            doc = json.loads(p.read_text())
            assert doc["body_digest"] in panel
            for block in ("subject", "ledger", "witness", "proves", "does not prove"):
                assert f"\n {block}\n" in panel
            assert "\x1b" not in panel and HOSTILE_SHOWN in panel
            assert Path(tab.ledger_beside() or "") == ledger
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


NESTED_SHOWN = "\\u001b[31mred[/] [bold]x\\u202e"  # inside a JSON value: JSON's escapes


def test_hostile_strings_in_a_verdict_and_a_portable_receipt_show_literally(tmp_path):
    v = verdict_file(tmp_path, False)
    doc = json.loads(v.read_text())
    # outside the envelope; first, so the field's shown text (cut at its width) holds it
    doc["receipt"] = {"against_file": HOSTILE, **doc["receipt"]}
    doc["receipt"]["against_file"] = HOSTILE
    v.write_text(json.dumps(doc))
    want = oracle_verdict(v)
    assert want.detail["loaded"] is True
    p, _ledger = portable_file(tmp_path)
    rec = json.loads(p.read_text())
    rec["witness"] = {"status": HOSTILE, "kind": HOSTILE}
    p.write_text(json.dumps(rec))

    async def go():
        app = SealscopeApp([v, p])
        async with app.run_test(size=(120, 36)) as pilot:
            await until(
                pilot,
                lambda: (
                    len(app.panes()) == 2 and all(t.tab_verdict is not None for t in app.panes())
                ),
            )
            vtab, ptab = app.panes()
            assert vtab.tab_verdict.verdict == want.verdict
            for tab in (vtab, ptab):
                text = static_text(tab, "#kind-fields") + banner_of(tab)
                # a nested value is shown as its JSON, which escapes the controls
                assert "\x1b" not in text and "\u202e" not in text
                assert NESTED_SHOWN in text
            panel = static_text(ptab, "#kind-panel")
            assert "\x1b" not in panel and HOSTILE_SHOWN in panel

    run(go())
