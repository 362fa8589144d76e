"""The app with core's checkers: every other kind opens by the classifier in its own
tab with the reference's word (files made here and the bundled samples), a file
dropped on a receipt file is its held content, key help and palette work on each new
tab, hostile strings in drops, members and rows show literally, and a zip or AAT export
first on the command line gets no ledger first paint.
"""

from __future__ import annotations

import json
from pathlib import Path

from sealscope.core import verdict
from sealscope.viewer.aat_tab import AatTab
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.held_screen import HeldContentScreen
from sealscope.viewer.key_help import legends
from sealscope.viewer.kind_tab import KindTab
from sealscope.viewer.kind_view import TAB_KINDS
from sealscope.viewer.unit_tab import UnitTab, members_table
from textual import events

from tests.viewer.kind_helpers import (
    HOSTILE,
    HOSTILE_SHOWN,
    aat_export,
    banner_of,
    bundle,
    distill_file,
    oracle_aat,
    oracle_bundle_word,
    oracle_distill,
    oracle_pack,
    oracle_portable,
    oracle_receipt,
    oracle_verdict,
    pack,
    portable_file,
    receipt_file,
    render_plain,
    rows_of,
    run,
    static_text,
    tree_digest,
    verdict_file,
)
from tests.viewer.viewer_helpers import HELD, SAMPLES, until


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
    return [
        (receipt, KindTab, oracle_receipt(receipt).verdict),
        (drop, KindTab, oracle_distill(drop).verdict),
        (cite, KindTab, oracle_portable(cite, ledger).verdict),
        (exact, KindTab, oracle_verdict(exact).verdict),
        (div, KindTab, oracle_verdict(div).verdict),
        (folder, UnitTab, oracle_pack(folder).verdict),
        (zipped, UnitTab, oracle_pack(zipped).verdict),
        (bun, UnitTab, oracle_bundle_word(bun)),
        (aat, AatTab, verdict.kind_check(oracle_aat(aat)["ok"]).verdict),
    ]


def test_the_app_opens_each_kind_by_the_classifier_in_its_tab_with_the_reference_word(tmp_path):
    cases = _cases(tmp_path)
    words = {str(p): w for p, _t, w in cases}
    assert words[str(tmp_path / "divergence.json")] == verdict.BROKEN
    before = tree_digest(tmp_path)

    async def go():
        app = SealscopeApp([p for p, _t, _w in cases])
        async with app.run_test(size=(120, 36)) as pilot:
            await until(
                pilot,
                lambda: (
                    len(app.panes()) == len(cases)
                    and all(t.tab_verdict is not None for t in app.panes())
                    and not any(w.is_running for w in app.workers)
                ),
                "the tabs never judged",
            )
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
            await until(
                pilot,
                lambda: isinstance(app.screen, HeldContentScreen),
                "the drop never opened held content",
            )
            scr = app.screen
            assert scr.pre_path == HELD / "session-pre.jsonl"
            await until(pilot, lambda: scr.pre_items is not None, "pre never loaded")
            assert len(app.panes()) == 1  # taken as content, not opened as a tab

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
            await until(pilot, lambda: app.current_tab() is app.panes()[1], "not in front")

    run(go())


def test_key_help_and_palette_entries_of_the_new_tabs(tmp_path):
    receipt = receipt_file(tmp_path)
    folder = pack(tmp_path)
    aat = aat_export(tmp_path)

    async def go():
        app = SealscopeApp([receipt, folder, aat])
        async with app.run_test(size=(120, 36)) as pilot:
            await until(
                pilot,
                lambda: (
                    len(app.panes()) == 3 and all(t.tab_verdict is not None for t in app.panes())
                ),
            )
            titles = {tab.path: {c.title for c in tab.commands()} for tab in app.panes()}
            assert "Held content for this receipt" in titles[str(receipt)]
            assert "Open records.jsonl as a ledger" in titles[str(folder)]
            assert "Held content for this receipt" not in titles[str(folder)]
            marks = {
                tab.path: {m for _t, rows in legends(tab) for m, _s, _w in rows}
                for tab in app.panes()
            }
            assert {"▶", "✗"} <= marks[str(folder)] and "✗" in marks[str(aat)]
            for tab in app.panes():
                app.show_tab(tab)
                await pilot.pause()
                assert app.check_action("export", ())  # `x`: the kind's report
                await pilot.press("question_mark")
                await until(pilot, lambda: app.screen is not app.screen_stack[0])
                await pilot.press("escape")
                await until(pilot, lambda: app.screen is app.screen_stack[0])

    run(go())


def test_hostile_strings_in_drops_members_and_rows_show_literally(tmp_path):
    drop = distill_file(tmp_path)
    doc = json.loads(drop.read_text())
    doc["drops"][0]["path"] = HOSTILE  # not checked: still verifies
    doc["drops"][0]["kind"] = HOSTILE
    drop.write_text(json.dumps(doc))
    folder = pack(tmp_path)
    name = HOSTILE.replace("/", "_") + ".txt"  # a file name holds no slash
    (folder / name).write_text("planted")
    records = folder / "records.jsonl"
    records.write_bytes(records.read_bytes() + json.dumps({"kind": HOSTILE}).encode() + b"\n")

    async def go():
        app = SealscopeApp([drop, folder])
        async with app.run_test(size=(120, 36)) as pilot:
            await until(
                pilot,
                lambda: (
                    len(app.panes()) == 2
                    and all(t.tab_verdict is not None for t in app.panes())
                    and app.panes()[1].view is not None
                    and not any(w.is_running for w in app.workers)
                ),
            )
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
            assert not rows[-1].startswith("▶")  # not a window row

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
            await until(
                pilot,
                lambda: (
                    len(app.panes()) == len(found)
                    and all(t.tab_verdict is not None for t in app.panes())
                    and not any(w.is_running for w in app.workers)
                ),
                "the sample tabs never judged",
            )
            for (p, kind), tab in zip(found, app.panes(), strict=True):
                cls = {"evidence-pack": UnitTab, "audit-bundle": UnitTab, "aat-export": AatTab}.get(
                    kind, KindTab
                )
                assert type(tab) is cls, p
                assert tab.tab_verdict.verdict == want[str(p)], p
                assert banner_of(tab).startswith(f" {want[str(p)]} "), p

    run(go())
    assert tree_digest(SAMPLES) == before


def test_a_zip_pack_or_aat_export_first_on_the_command_line_is_not_drawn_as_a_ledger(tmp_path):
    """`sealscope pack.zip`: the first paint draws only a ledger's first screen; a zip
    or an AAT export (not named .json, so a ledger to the frontends) opens its own tab."""
    assert SealscopeApp([SAMPLES / "session.jsonl"], first_paint=True).first_paint is not None
    for p in (pack(tmp_path, zipped=True), aat_export(tmp_path)):
        assert SealscopeApp([p], first_paint=True).first_paint is None, p
