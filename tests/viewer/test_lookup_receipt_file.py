"""`l` on a receipt file's tab (KINDS.md §2): the look-up searches that receipt's own
drop manifest (before, only the open ledgers' were indexed, and a receipt file's items
were "not in any open ledger's drop manifest"), records the lookup on the receipt
file's tab, and finds the same items from a ledger tab too."""

from __future__ import annotations

import json

from sealscope.core import digest
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.kind_tab import KindTab
from sealscope.viewer.lookup_screen import LookupScreen
from textual.widgets import Input, TabbedContent

from tests.viewer.viewer_helpers import SAMPLES, settle, sync, until

RECEIPT = SAMPLES / "kinds" / "receipt.json"
DROPPED = "assistant: done"  # a str item the receipt's compactor dropped


def test_the_sample_receipt_drops_the_item():
    """The fixture holds what the tests below look for, at manifest position 1."""
    items = json.loads(RECEIPT.read_text())["dropped"]["items"]
    assert items.index(digest.item_digest(DROPPED).digest) == 1


async def _look_up(app, pilot, text: str) -> LookupScreen:
    await pilot.press("l")
    await until(pilot, lambda: isinstance(app.screen, LookupScreen), "no look-up screen")
    scr = app.screen
    await until(pilot, lambda: scr.index is not None, "the index was never built")
    scr.query_one("#lookup-text", Input).value = text
    scr.look_up_text(text)
    await pilot.pause()
    return scr


@sync
async def test_l_on_a_receipt_file_finds_held_items_in_its_own_manifest():
    app = SealscopeApp([RECEIPT])
    async with app.run_test(size=(120, 36)) as pilot:
        await until(pilot, lambda: any(isinstance(t, KindTab) for t in app.panes()))
        (tab,) = app.panes()
        await until(pilot, lambda: tab.check is not None, "the receipt was never checked")
        await settle(app, pilot)
        scr = await _look_up(app, pilot, DROPPED)
        assert scr.exact_places == 1
        assert [(t, line) for t, line in scr.hits] == [(tab, 1)]
        assert "found in 1 place(s)" in str(scr.query_one("#lookup-summary").render())
        # the lookup is a check of the receipt file's tab, as `sealscope lookup` reports it
        (rec,) = [r for r in tab.session if r.kind == "lookup"]
        (item,) = rec.result["items"]
        assert item["digest"] == digest.item_digest(DROPPED).digest
        assert item["found"] == [{"line": 1, "position": 1}]
        # an item it did not drop is found nowhere
        scr.look_up_text("never dropped")
        await pilot.pause()
        assert scr.exact_places == 0


@sync
async def test_a_lookup_from_a_ledger_lists_the_receipt_files_place_and_enter_shows_it():
    app = SealscopeApp([SAMPLES / "session.jsonl", RECEIPT])
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(app, pilot)
        ledger = app.ledger_tabs()[0]
        receipt_tab = next(t for t in app.panes() if isinstance(t, KindTab))
        app.query_one(TabbedContent).active = ledger.id
        await pilot.pause()
        ledger.rows.focus()
        await pilot.pause()
        scr = await _look_up(app, pilot, DROPPED)
        assert (receipt_tab, 1) in scr.hits
        # recorded on the ledger it began from only: absent there
        (rec,) = [r for r in ledger.session if r.kind == "lookup"]
        assert rec.result["items"][0]["found"] == []
        assert not [r for r in receipt_tab.session if r.kind == "lookup"]
        scr.query_one("#lookup-text", Input).focus()
        await pilot.press("enter")  # jumps to the first hit: the receipt file's tab
        await until(pilot, lambda: app.current_tab() is receipt_tab, "the receipt never came up")
