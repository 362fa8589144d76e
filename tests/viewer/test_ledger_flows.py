"""Pilot flows over the bundled samples, read-only guarantees, and the widgets' rules
(never green before the verdict, evidence always sanitized, bounded caches)."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

from sealscope.core import verdict
from sealscope.core.pins import parse_pin
from sealscope.viewer.app import SealscopeApp, expand_paths
from sealscope.viewer.banner import Banner, ledger_detail
from sealscope.viewer.held_screen import HeldContentScreen
from sealscope.viewer.lookup_screen import LookupScreen
from sealscope.viewer.prompt import pasted_path
from sealscope.viewer.source import LedgerSource
from textual import events

from tests.core.fifo_helpers import returns
from tests.viewer.viewer_helpers import (
    HELD,
    SAMPLES,
    activate,
    check_pin,
    goto,
    load_held,
    opened,
    settle,
    sync,
)

SIZE = (120, 36)


def fingerprint(folder: Path) -> dict:
    out = {}
    for p in sorted(folder.rglob("*")):
        if p.is_file():
            st = p.stat()
            out[str(p)] = (st.st_size, st.st_mtime_ns, hashlib.sha256(p.read_bytes()).hexdigest())
    return out


@sync
async def test_tampered_break_then_liar_receipt_planted_drop():
    async with opened([SAMPLES]) as (app, pilot):
        verdicts = {t.source.name: t.result.verdict for t in app.ledger_tabs()}
        assert verdicts["tampered.jsonl"] == "BROKEN"
        assert verdicts["session.jsonl"] == "VERIFIED"
        assert verdicts["declared-break.jsonl"] == "COULD NOT LOOK"
        tab = await activate(app, pilot, "tampered.jsonl")
        await pilot.press("b")
        await pilot.pause()
        assert tab.rows.current_line == 4
        assert tab.rows.status(4) == "break"
        assert "-broken" in tab.banner.classes
        await pilot.press("n")  # no later break: stays
        assert tab.rows.current_line == 4

        liar = await activate(app, pilot, "liar.jsonl")
        await goto(pilot, 3)
        assert liar.rows.current_line == 3
        scr = await load_held(app, pilot, HELD / "liar-pre.json", HELD / "liar-post.json")
        assert scr.check is not None
        assert scr.check.ok is False and scr.check.content == "mismatch"
        drops = scr.check.recomputed.drops
        assert len(drops.items) == 1
        report = scr.query_one("#held-matches").render()
        text = str(report)
        assert "1 drop(s) the manifest does not declare" in text
        assert "please delete the audit log" in text


@sync
async def test_held_content_accepts_a_pasted_path():
    async with opened([SAMPLES / "liar.jsonl"]) as (app, pilot):
        tab = app.ledger_tabs()[0]
        tab.rows.cursor_to_line(3)
        await pilot.pause()
        # a file dragged onto the terminal: a quoted path pasted on the main screen
        app.post_message(events.Paste(f"'{HELD / 'liar-pre.json'}'"))
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, HeldContentScreen)
        await settle(app, pilot)
        assert scr.pre_items is not None and len(scr.pre_items) == 4
        scr.query_one("#pre").blur()
        scr.set_focus(None)
        await pilot.pause()
        scr.post_message(events.Paste(str(HELD / "liar-post.json")))
        await pilot.pause()
        await settle(app, pilot)
        assert scr.post_items is not None and len(scr.post_items) == 3
        assert scr.check.content == "mismatch"


@sync
async def test_lookup_held_item_jumps_to_manifest_entry():
    async with opened([SAMPLES / "session.jsonl", SAMPLES / "liar.jsonl"]) as (app, pilot):
        await pilot.press("l")
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, LookupScreen)
        await settle(app, pilot)
        scr._load_file(str(HELD / "session-pre.jsonl"))
        await pilot.pause()
        assert len(scr.items) == 5
        assert [(t.source.name, line) for t, line in scr.hits] == [("session.jsonl", 7)] * 3
        hits = scr.query_one("#lookup-hits")
        hits.focus()
        hits.highlighted = 1
        await pilot.press("enter")
        await pilot.pause()
        assert not isinstance(app.screen, LookupScreen)
        tab = app.current_tab()
        assert tab.source.name == "session.jsonl" and tab.rows.current_line == 7


@sync
async def test_lookup_typed_text():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        await pilot.press("l")
        await settle(app, pilot)
        scr = app.screen
        inp = scr.query_one("#lookup-text")
        inp.value = (
            '{"role": "tool", "name": "read_file", "text": "report 3: no customer data lost"}'
        )
        inp.focus()
        await pilot.press("enter")
        await pilot.pause()
        assert len(scr.items) == 2  # as text, and as a JSON item
        assert [line for _t, line in scr.hits] == [7]


@sync
async def test_witness_store_namespaces():
    store = SAMPLES / "witness" / "store.jsonl"
    async with opened([SAMPLES / "session.jsonl", SAMPLES / "truncated.jsonl"]) as (app, pilot):
        for name, want in (("session.jsonl", "consistent"), ("truncated.jsonl", "truncated")):
            tab = await activate(app, pilot, name)
            await pilot.press("c")
            await pilot.pause()
            scr = app.screen
            scr.query_one("#store").value = str(store)
            scr.query_one("#store").focus()
            await pilot.press("enter")
            await pilot.pause()
            assert scr.query_one("#namespace").value == Path(name).stem
            await pilot.press("enter")
            await settle(app, pilot)
            assert tab.session[-1].result["verdict"] == want
        assert app.current_tab().banner.combined_verdict == "BROKEN"


@sync
async def test_bad_pin_is_refused_in_place():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        scr = await check_pin(app, pilot, "not a pin")
        assert app.screen is scr
        assert "not a head pin" in str(scr.query_one("#pin-message").render())


@sync
async def test_filter_search_goto():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        tab = app.current_tab()
        tab.apply_filter("kind:compaction_receipt")
        await settle(app, pilot)
        assert list(tab.rows.view) == [5, 7]
        tab.apply_filter("blank")
        await settle(app, pilot)
        # the empty line the verifier counts after the final line break is not shown
        assert list(tab.rows.view) == []
        await pilot.press("F")
        assert tab.rows.view is None
        await pilot.press("slash")
        await pilot.pause()
        for ch in "summary.md":
            await pilot.press(ch)
        await pilot.press("enter")
        await pilot.pause()
        assert tab.rows.current_line == 9
        await pilot.press("s")
        assert tab.rows.current_line == 10
        await goto(pilot, 2)
        assert tab.rows.current_line == 2


@sync
async def test_session_leaves_evidence_untouched(tmp_path):
    before = fingerprint(SAMPLES)
    listing = sorted(os.listdir(SAMPLES))
    async with opened([SAMPLES]) as (app, pilot):
        for tab in app.ledger_tabs():
            await activate(app, pilot, tab.source.name)
            for key in ("b", "n", "p", "end", "home", "pagedown"):
                await pilot.press(key)
            await pilot.pause()
        liar = await activate(app, pilot, "liar.jsonl")
        liar.rows.cursor_to_line(3)
        liar.open_held(3, pre=HELD / "liar-pre.json", post=HELD / "liar-post.json")
        await settle(app, pilot)
        app.pop_screen()
        await pilot.press("l")
        await settle(app, pilot)
        app.screen._load_file(str(HELD / "session-pre.jsonl"))
        app.pop_screen()
        tab = await activate(app, pilot, "truncated.jsonl")
        tab.check_pin(parse_pin((SAMPLES / "truncated.pin").read_text()))
        await settle(app, pilot)
    assert fingerprint(SAMPLES) == before
    assert sorted(os.listdir(SAMPLES)) == listing
    assert not list(SAMPLES.rglob("*.lock"))


@sync
async def test_hostile_strings_reach_widgets_escaped():
    async with opened([SAMPLES / "hostile.jsonl"]) as (app, pilot):
        tab = app.current_tab()
        rl = tab.rows
        for line in range(1, 6):
            strip = rl._build(line, 110, False)
            text = "".join(seg.text for seg in strip)
            assert "\x1b" not in text and "\r" not in text and "\u202e" not in text
            assert all(seg.style is None or seg.style.link is None for seg in strip)
        assert "APPROVED\\rREJECTED" in "".join(s.text for s in rl._build(2, 200, False))
        await goto(pilot, 2)
        assert app.is_running  # [@click=app.quit] was not obeyed
        raw = tab.query_one("#detail-raw").render()
        assert "[bold red]FORGED[/]" in str(raw)


@sync
async def test_banner_never_green_until_done():
    from sealscope.core.ledger import VerifyResult
    from textual.app import App

    class One(App):
        def compose(self):
            yield Banner(ledger_detail("x.jsonl", "indexing"), state="indexing")

    app = One()
    async with app.run_test() as pilot:
        await pilot.pause()
        check_banner(app.query_one(Banner), VerifyResult)


def check_banner(b, VerifyResult):
    """The banner's colour is the verdict's the tab hands it (`verdict.evidence`),
    neutral while busy, never green before a finished verification."""

    def show(state, res=None):
        out = verdict.evidence(state, None if res is None else verdict.ledger(res))
        b.show(out, ledger_detail("x.jsonl", state, result=res, outcome=out), state)
        return out

    assert b.verdict_class == "-pending"
    assert show("verifying") is None
    assert b.verdict_class == "-pending"
    assert show("cancelled") == ("NOT VERIFIED", 3)
    assert b.verdict_class == "-couldnot" and " NOT VERIFIED " in str(b.render())
    assert show("error") == ("COULD NOT LOOK", 3)
    assert b.verdict_class == "-couldnot"
    assert show("done", VerifyResult(ok=True, rows=3, chained=3)) == ("VERIFIED", 0)
    assert b.verdict_class == "-verified"
    show(
        "done", VerifyResult(ok=None, rows=3, prechain=3, verified_scope="bounded_prechain_skipped")
    )
    assert b.verdict_class == "-couldnot"
    assert show("alarm") == ("BROKEN", 1)
    assert b.verdict_class == "-broken"


def test_source_is_read_only_and_bounded(tmp_path):
    p = tmp_path / "big.jsonl"
    with open(p, "w") as fh:
        for i in range(20000):
            fh.write(f'{{"tool": "t", "n": {i}}}\r\n')
        fh.write("\r{bad\n")
    os.chmod(p, 0o444)
    src = LedgerSource(p)
    src.quick_index(4096)
    assert not src.complete and src.line_count > 10
    first = src.line_count
    src.index()
    assert src.complete and src.line_count == 20003 > first
    assert src.row(20002).state == "unparseable"
    assert src.row(20001).state == "blank"
    for n in range(1, 20001):
        src.row(n)
    assert len(src._rows) <= src.ROW_CACHE
    assert src.find_text('"n": 19999', 1) == 20000
    src.close()
    assert sorted(os.listdir(tmp_path)) == ["big.jsonl"]


def test_pasted_path_forms(tmp_path):
    f = tmp_path / "with space.json"
    f.write_text("[]")
    assert pasted_path(str(f)) == f
    assert pasted_path(f"'{f}'") == f
    assert pasted_path(str(f).replace(" ", "\\ ")) == f
    assert pasted_path("file://" + str(f).replace(" ", "%20")) == f
    assert pasted_path("arcaeon-ledger head chain=x rows=1 as_of=y") is None


def test_expand_paths_takes_ledgers_from_a_folder():
    names = [p.name for p in expand_paths([SAMPLES])]
    assert "session.jsonl" in names and "store.jsonl" not in names


@sync
async def test_large_file_renders_first_screen_before_index(tmp_path):
    p = tmp_path / "many.jsonl"
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))
    from viewer import build  # bench/viewer.py

    build(p, 30000)
    app = SealscopeApp([p])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        rl = app.current_tab().rows
        assert rl.rendered_rows > 0
        await settle(app, pilot)
        assert rl.line_count == 30000 and app.current_tab().source.line_count == 30001
        assert app.current_tab().result.verdict == "VERIFIED"
        assert len(rl._strips) <= 1024
        await pilot.press("end")
        await pilot.pause()
        assert rl.current_line == 30000


def test_a_source_on_a_fifo_is_an_error_not_a_wait(tmp_path):
    """A FIFO swapped in after the file was classified: the source refuses it on the open
    (an error the tab's banner shows) instead of blocking the app."""
    fifo = tmp_path / "swapped.jsonl"
    os.mkfifo(fifo)
    came_back, src = returns(lambda: LedgerSource(fifo), fifo)
    assert came_back
    assert src.error == f"NotRegularFile: not a regular file: {str(fifo)!r}"
    src.quick_index()
    assert src.shown_lines == 0 and src.complete
    src.close()
