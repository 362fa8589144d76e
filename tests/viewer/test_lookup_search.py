"""Look up: Enter on the text jumps to the first hit; text that is not an exact item
searches the held content loaded (the file given in the look-up, and the held content
of the ledgers' checks) and says how many exact and partial hits there are."""

from __future__ import annotations

from sealscope.viewer.lookup_screen import LookupScreen

from tests.viewer.viewer_helpers import (
    HELD,
    SAMPLES,
    activate,
    goto,
    load_held,
    opened,
    settle,
    sync,
)

ITEM = '{"role": "tool", "name": "read_file", "text": "report 3: no customer data lost"}'


def catch_notes(app) -> list[str]:
    notes: list[str] = []
    app.notify = lambda message, **kw: notes.append(message)  # type: ignore[method-assign]
    return notes


async def open_lookup(app, pilot) -> LookupScreen:
    await pilot.press("l")
    await pilot.pause()
    scr = app.screen
    assert isinstance(scr, LookupScreen)
    await settle(app, pilot)
    return scr


async def type_text(app, pilot, scr: LookupScreen, text: str) -> None:
    inp = scr.query_one("#lookup-text")
    inp.value = text
    inp.focus()
    await pilot.pause()
    await pilot.press("enter")
    await pilot.pause()
    await pilot.pause()


@sync
async def test_enter_on_an_exact_item_jumps_to_its_first_place():
    async with opened([SAMPLES / "liar.jsonl", SAMPLES / "session.jsonl"]) as (app, pilot):
        notes = catch_notes(app)
        scr = await open_lookup(app, pilot)
        await type_text(app, pilot, scr, ITEM)
        assert not isinstance(app.screen, LookupScreen)
        tab = app.current_tab()
        assert tab.source.name == "session.jsonl" and tab.rows.current_line == 7
        assert notes == [
            (
                "1 exact hit, 0 partial hits (0 held items contain the text) — "
                "showing session.jsonl line 7"
            )
        ]


@sync
async def test_text_that_is_no_item_finds_the_held_items_containing_it():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        notes = catch_notes(app)
        scr = await open_lookup(app, pilot)
        scr._load_file(str(HELD / "session-pre.jsonl"))
        await pilot.pause()
        assert scr.exact_places == 3
        assert (
            str(scr.query_one("#lookup-summary").render()).splitlines()[1].strip() == "3 exact hits"
        )
        await type_text(app, pilot, scr, "FAILOVER to db-3")
        # not an item itself; one held item contains it, dropped at line 7 position 1
        assert [(h.index, h.value["text"]) for h in scr.partial] == [
            (3, "report 2: failover to db-3 took 41 s")
        ]
        assert (scr.exact_places, scr.partial_places) == (0, 1)
        assert not isinstance(app.screen, LookupScreen)  # Enter went to the hit
        assert app.current_tab().rows.current_line == 7
        assert notes == [
            (
                "0 exact hits, 1 partial hit (1 held item contains the text) — "
                "showing session.jsonl line 7"
            )
        ]


@sync
async def test_the_liar_checks_held_content_is_searched_and_the_undeclared_drop_shows():
    async with opened([SAMPLES / "liar.jsonl"]) as (app, pilot):
        liar = await activate(app, pilot, "liar.jsonl")
        await goto(pilot, 3)
        await load_held(app, pilot, HELD / "liar-pre.json", HELD / "liar-post.json")
        await pilot.press("escape")
        await pilot.pause()
        assert app.current_tab() is liar
        scr = await open_lookup(app, pilot)
        await type_text(app, pilot, scr, "delete the audit log")
        # found in the held content, in no manifest: the lookup stays and says so
        assert isinstance(app.screen, LookupScreen)
        # the user's request the receipt hid, and the reply kept in post (held twice)
        assert [h.value["text"] for h in scr.partial] == [
            "please delete the audit log before the review",
            "I cannot delete the audit log.",
        ]
        summary = str(scr.query_one("#lookup-summary").render())
        assert "0 exact hits, 0 partial hits (2 held items contain the text)" in summary
        assert "liar-pre.json#2" in summary and "in no open ledger's drop manifest" in summary


@sync
async def test_a_digest_seen_cut_finds_its_manifest_place_at_80x24():
    """Text that is no item and in no held content: the manifests' entries are searched
    too, so a digest copied as a receipt panel or an error shows it (cut, with …)
    jumps to the receipt that drops it."""
    async with opened([SAMPLES / "tampered.jsonl", SAMPLES / "session.jsonl"], size=(80, 24)) as (
        app,
        pilot,
    ):
        notes = catch_notes(app)
        scr = await open_lookup(app, pilot)
        await type_text(app, pilot, scr, "sha256:json-c14n:v1:09a32d6caf7737200a…")
        assert [(e.ledger, e.line, e.position) for e in scr.digest_hits] == [
            (str(SAMPLES / "tampered.jsonl"), 5, 0),
            (str(SAMPLES / "session.jsonl"), 5, 0),
        ]
        assert (scr.exact_places, scr.partial_places) == (0, 2)
        assert not isinstance(app.screen, LookupScreen)  # Enter went to the first hit
        tab = app.current_tab()
        assert tab.source.name == "tampered.jsonl" and tab.rows.current_line == 5
        assert notes == [
            (
                "0 exact hits, 2 partial hits (0 held items contain the text, "
                "2 manifest digests contain it) — showing tampered.jsonl line 5"
            )
        ]
