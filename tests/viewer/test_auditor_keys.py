"""The keys an auditor reaches for (issue 33): copy, jump to the line a row names, step
between receipts, filter by time or by a kind's word, and the palette offering what the
footer does. Each test drives the real viewer on the bundled samples."""

from __future__ import annotations

import orjson
from sealscope.core import verdict
from sealscope.viewer.export_action import ExportScreen
from sealscope.viewer.held_screen import HeldContentScreen
from sealscope.viewer.key_help import KeyHelpScreen
from sealscope.viewer.row_jumps import CopyScreen
from sealscope.viewer.seal_diff import SealDiffScreen
from textual import events
from textual.command import CommandPalette
from textual.widgets import Input

from tests.viewer.viewer_helpers import (
    HELD,
    SAMPLES,
    activate,
    answer,
    check_pin,
    goto,
    opened,
    sync,
    until,
)


def _notes(app) -> list[str]:
    return [n.message for n in app._notifications]


# --------------------------------------------------------------------------- copy
@sync
async def test_y_copies_the_chain_row_or_a_digest_of_the_selected_row():
    path = SAMPLES / "session.jsonl"
    rows = path.read_text(encoding="utf-8").splitlines()
    async with opened([path]) as (app, pilot):
        await activate(app, pilot, "session.jsonl")
        await goto(pilot, 5)  # a compaction receipt: pre/post digests
        await pilot.press("y")
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, CopyScreen)
        whats = [w for w, _t in scr.choices]
        assert whats[:2] == ["chain", "row"]
        assert "digest pre.digest" in whats and "digest post.digest" in whats
        await pilot.press("enter")  # the chain, first
        await pilot.pause()
        assert app.clipboard == orjson.loads(rows[4])["chain"]
        await pilot.press("y", "down", "enter")  # the row as stored
        await pilot.pause()
        assert app.clipboard == rows[4]
        await pilot.press("y", "down", "down", "enter")
        await pilot.pause()
        assert app.clipboard == orjson.loads(rows[4])["pre"]["digest"]
        assert any("copied digest pre.digest of line 5" in n for n in _notes(app))


# --------------------------------------------------------------------------- jump
@sync
async def test_j_on_a_declared_break_goes_to_the_line_it_declares():
    async with opened([SAMPLES / "declared-break.jsonl"]) as (app, pilot):
        tab = await activate(app, pilot, "declared-break.jsonl")
        await goto(pilot, 5)  # {"op": "chain_break_declared", "orphan_line": 3, …}
        assert tab.source.row(5).kind == "chain_break_declared"
        await pilot.press("j")
        await pilot.pause()
        assert tab.rows.current_line == 3


@sync
async def test_j_on_a_break_goes_to_the_row_its_explanation_names():
    async with opened([SAMPLES / "tampered.jsonl"]) as (app, pilot):
        tab = await activate(app, pilot, "tampered.jsonl")
        await pilot.press("b")  # line 4: "line 5 still links to this row's stored chain"
        await pilot.pause()
        assert tab.rows.current_line == 4
        await pilot.press("j")
        await pilot.pause()
        assert tab.rows.current_line == 5


# --------------------------------------------------------------------------- receipts
@sync
async def test_greater_and_less_than_step_between_receipts():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        tab = await activate(app, pilot, "session.jsonl")
        await goto(pilot, 1)
        await pilot.press("greater_than_sign")
        await pilot.pause()
        assert tab.rows.current_line == 5
        await pilot.press("greater_than_sign")
        await pilot.pause()
        assert tab.rows.current_line == 7
        await pilot.press("greater_than_sign")
        await pilot.pause()
        assert tab.rows.current_line == 7
        assert "no later receipt" in _notes(app)
        await pilot.press("less_than_sign")
        await pilot.pause()
        assert tab.rows.current_line == 5


# --------------------------------------------------------------------------- filters
async def _filter(app, pilot, tab, spec: str) -> None:
    await pilot.press("f")
    await pilot.pause()
    await answer(pilot, spec)
    await until(pilot, lambda: tab.filtering is None and not any(w.is_running for w in app.workers))


@sync
async def test_a_time_range_filter_keeps_the_rows_of_the_span_both_ends_included():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        tab = await activate(app, pilot, "session.jsonl")
        # ts 09:00:00, :05, :10, :15, :25, :30, :40, :45, :50, :55, 09:01:00; line 12 blank
        await _filter(app, pilot, tab, "ts:2026-03-01T09:00:10..09:00:30")
        assert list(tab.rows.view) == [3, 4, 5, 6]
        await _filter(app, pilot, tab, "ts:2026-03-01T09:00..09:01")
        assert list(tab.rows.view) == list(range(1, 12))
        await _filter(app, pilot, tab, "ts:2026-03-01T09:00:50..")
        assert list(tab.rows.view) == [9, 10, 11]
        assert tab.filter_label == "ts:2026-03-01T09:00:50.."


@sync
async def test_a_bare_kind_word_filters_and_an_unknown_one_names_the_kinds_present():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        tab = await activate(app, pilot, "session.jsonl")
        await _filter(app, pilot, tab, "receipt")
        assert list(tab.rows.view) == [5, 7]
        await _filter(app, pilot, tab, "nosuchkind")
        note = _notes(app)[-1]
        assert "unknown filter: nosuchkind" in note
        assert "kinds in this file: compaction_receipt, continuity_snapshot, message" in note


@sync
async def test_the_filter_prompt_lists_the_kinds_in_the_file():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        await activate(app, pilot, "session.jsonl")
        await pilot.press("f")
        await pilot.pause()
        hint = str(app.screen.query_one("#prompt-hint").render())
        assert "kinds in this file: compaction_receipt, continuity_snapshot, message" in hint
        assert "ts:2026-03-01T09:00..09:01" in hint
        assert isinstance(app.focused, Input)


# --------------------------------------------------------------------------- palette
@sync
async def test_the_palette_offers_what_the_footer_does_and_runs_it():
    async with opened([SAMPLES / "session.jsonl", SAMPLES / "tampered.jsonl"]) as (app, pilot):
        await activate(app, pilot, "session.jsonl")
        main = app.screen
        await pilot.press("ctrl+p")
        await pilot.pause()
        assert isinstance(app.screen, CommandPalette)
        titles = [c.title for c in app.get_system_commands(main)]
        for title in ("Export this tab's audit report", "Next tab", "Previous tab", "Key help"):
            assert title in titles, title
        await pilot.press(*"Next tab", "enter")
        await until(pilot, lambda: app.screen is main and app.current_tab().tab_name == "tampered")
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Export this tab", "enter")
        await until(pilot, lambda: isinstance(app.screen, ExportScreen))
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"Key help", "enter")
        await until(pilot, lambda: isinstance(app.screen, KeyHelpScreen))


# --------------------------------------------------------------------------- one export key
@sync
async def test_x_exports_from_the_seal_diff_screen_as_from_every_tab():
    async with opened([SAMPLES / "seals" / "seal-day1.json"]) as (app, pilot):
        await pilot.press("d")
        await answer(pilot, str(SAMPLES / "seals" / "seal-day2.json"))
        assert isinstance(app.screen, SealDiffScreen)
        await pilot.press("x")
        await until(pilot, lambda: isinstance(app.screen, ExportScreen))
        await pilot.press("escape")
        await until(pilot, lambda: isinstance(app.screen, SealDiffScreen))
        await pilot.press("e")  # no second export key
        await pilot.pause()
        assert isinstance(app.screen, SealDiffScreen)


# --------------------------------------------------------------------------- held dialog
def _held_lines(scr) -> str:
    return str(scr.query_one("#held-verdict").render())


@sync
async def test_a_typed_held_path_says_not_loaded_enter_and_loads_when_the_field_is_left():
    async with opened([SAMPLES / "liar.jsonl"]) as (app, pilot):
        await activate(app, pilot, "liar.jsonl")
        await goto(pilot, 3)
        await pilot.press("h")
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, HeldContentScreen)
        assert app.focused is scr.query_one("#pre")
        await pilot.press(*"held/liar-pre.json")  # relative: beside the ledger
        await pilot.pause()
        assert "pre: not loaded — Enter" in _held_lines(scr)
        await pilot.press("tab")  # leave the field: it loads
        await until(pilot, lambda: "item(s)" in _held_lines(scr).split("post:")[0])
        assert "not loaded" not in _held_lines(scr).split("post:")[0]


@sync
async def test_a_path_pasted_into_a_held_field_loads_at_once():
    async with opened([SAMPLES / "liar.jsonl"]) as (app, pilot):
        await activate(app, pilot, "liar.jsonl")
        await goto(pilot, 3)
        await pilot.press("h")
        await pilot.pause()
        scr = app.screen
        field = scr.query_one("#post")
        field.focus()
        await pilot.pause()
        field.post_message(events.Paste(str(HELD / "liar-post.json")))
        await until(
            pilot,
            lambda: (
                "post: " in _held_lines(scr) and "item(s)" in _held_lines(scr).split("post:")[1]
            ),
        )
        assert scr.post_path == HELD / "liar-post.json"
        assert "not loaded" not in _held_lines(scr)


# --------------------------------------------------------------------------- file prompts
@sync
async def test_a_relative_path_in_o_is_beside_the_front_tabs_file_first(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # the samples are not under the current directory
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        await activate(app, pilot, "session.jsonl")
        await pilot.press("o")
        await pilot.pause()
        inp = app.screen.query_one(Input)
        await pilot.press(*"seals/seal-day1.")
        await until(pilot, lambda: inp._suggestion == "seals/seal-day1.json")
        await pilot.press("right", "enter")  # take the completion, open it
        await until(pilot, lambda: app.current_tab().tab_name == "seal-day1")
        assert app.current_tab().path == str(SAMPLES / "seals" / "seal-day1.json")


@sync
async def test_a_relative_path_is_still_found_in_the_current_directory(tmp_path, monkeypatch):
    (tmp_path / "mine.jsonl").write_bytes((SAMPLES / "truncated.jsonl").read_bytes())
    monkeypatch.chdir(tmp_path)
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        await activate(app, pilot, "session.jsonl")
        await pilot.press("o")
        await answer(pilot, "mine.jsonl")
        await until(pilot, lambda: app.current_tab().tab_name == "mine")


@sync
async def test_R_names_the_samples_absolute_folder():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        await pilot.press("R")
        await pilot.pause()
        shown = str(app.screen.query_one("#samples-folder").render())
        assert str(SAMPLES.resolve()) in shown


@sync
async def test_a_pin_file_named_relative_to_the_ledger_is_found(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    async with opened([SAMPLES / "truncated.jsonl"]) as (app, pilot):
        tab = await activate(app, pilot, "truncated.jsonl")
        await check_pin(app, pilot, "truncated.pin")  # sample_ledgers/truncated.pin
        await until(pilot, lambda: [r.kind for r in tab.session] == ["pin"])
        assert tab.tab_verdict.verdict == verdict.BROKEN  # the pin names rows now gone


def test_named_line_skips_the_findings_own_line_and_takes_the_one_it_names():
    """A finding opens with its own `line N:`; `j` goes to the other line it names."""
    from sealscope.viewer.row_jumps import copy_choices, named_line
    from sealscope.viewer.source import RowInfo

    info = RowInfo(7, "{}", "object", {"kind": "tool"}, kind="tool")
    assert named_line(info, "line 7: chain mismatch; line 5 still links to it", None) == 5
    assert named_line(info, "line 7: chain mismatch", None) is None
    hostile = RowInfo(3, "{}", "object", {"kind": "x", "\x1b[31mdigest": "sha256:ab"}, kind="x")
    [(what, text)] = [c for c in copy_choices(hostile) if c[0].startswith("digest")]
    assert "\x1b" not in what and text == "sha256:ab"
