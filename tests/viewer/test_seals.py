"""SealTab, VerdictView, SealDiffScreen and ExportScreen: snapshots at 120x36 and
Pilot flows, in a small host app and through SealscopeApp."""

from __future__ import annotations

import asyncio
import io
import json
from pathlib import Path

import pytest
from rich.console import Console
from sealscope.core import export
from sealscope.core.continuity import snapshot
from sealscope.viewer.evidence_tab import front_commands
from sealscope.viewer.export_action import ExportScreen, check_target, default_base
from sealscope.viewer.messages import JumpToLedgerRow
from sealscope.viewer.seal_diff import SealDiffScreen
from sealscope.viewer.seal_tab import SealTab, find_seal_tab
from sealscope.viewer.verdict_view import VerdictView
from textual.app import App, ComposeResult
from textual.widgets import Footer, Input, TabbedContent

from tests.viewer.viewer_helpers import answer

ROOT = Path(__file__).resolve().parents[2]
SEALS = ROOT / "sample_ledgers" / "seals"
REL = "sample_ledgers/seals/"
APP_CSS = ROOT / "viewer" / "app.tcss"


class SealHost(App):
    """A host app: one SealTab per path, in a TabbedContent, like the main app."""

    CSS_PATH = str(APP_CSS)

    def __init__(self, *paths: str, tiers: str | None = None) -> None:
        super().__init__()
        self.paths, self.tiers = paths, tiers

    def compose(self) -> ComposeResult:
        with TabbedContent(id="tabs"):
            for i, p in enumerate(self.paths, 1):
                yield SealTab(p, id=f"seal-{i}", tiers=self.tiers)
        yield Footer()

    def on_mount(self) -> None:
        self.query_one("#seal-1", SealTab).focus_default()

    def get_system_commands(self, screen):
        yield from super().get_system_commands(screen)
        yield from front_commands(screen)


def plain(renderable, width: int = 160) -> str:
    console = Console(width=width, record=True, file=io.StringIO(), color_system=None)
    console.print(renderable)
    return console.export_text()


def run(coro) -> None:
    asyncio.run(coro)


# --------------------------------------------------------------------------- snapshots


@pytest.mark.parametrize(
    "seal",
    [
        pytest.param("seal-day1.json", id="valid"),
        pytest.param("seal-day1-tampered.json", id="invalid"),
    ],
)
def test_snapshot_seal_tab(snap_compare, monkeypatch, seal):
    monkeypatch.chdir(ROOT)
    assert snap_compare(SealHost(REL + seal), terminal_size=(120, 36))


@pytest.mark.parametrize(
    ("strict", "tiers"),
    [
        pytest.param(True, REL + "tiers.json", id="strict_divergent"),
        pytest.param(False, None, id="loose"),
    ],
)
def test_snapshot_verdict(snap_compare, monkeypatch, strict, tiers):
    monkeypatch.chdir(ROOT)

    async def before(pilot):
        await pilot.pause()
        pilot.app.query_one(SealTab).score(REL + "restated-divergent.json", strict=strict)
        await pilot.pause()

    assert snap_compare(
        SealHost(REL + "seal-day1.json", tiers=tiers), terminal_size=(120, 36), run_before=before
    )


def test_snapshot_seal_diff(snap_compare, monkeypatch):
    monkeypatch.chdir(ROOT)

    async def before(pilot):
        await pilot.pause()
        pilot.app.query_one(SealTab).open_diff(REL + "seal-day2.json")
        await pilot.pause()
        await pilot.pause()

    assert snap_compare(
        SealHost(REL + "seal-day1.json", tiers=REL + "tiers.json"),
        terminal_size=(120, 36),
        run_before=before,
    )


# --------------------------------------------------------------------------- pilot flows


def test_two_seals_diff_lists_changes_with_tier_severities():
    async def go():
        app = SealHost(
            str(SEALS / "seal-day1.json"),
            str(SEALS / "seal-day2.json"),
            tiers=str(SEALS / "tiers.json"),
        )
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            await pilot.press("d")
            await answer(pilot, str(SEALS / "seal-day2.json"))
            screen = app.screen
            assert isinstance(screen, SealDiffScreen)
            got = [(k, e["id"], e.get("severity")) for k, e in screen.rows if e]
            assert got == [
                ("changed", "open_commitments:0", "notable"),
                ("added", "live_threads:seal-diff", "advisory"),
                ("removed", "live_threads:ledger-verify", "advisory"),
            ]
            assert screen.rows[-1][0] == "more"  # 5 unchanged, collapsed
            # the keys step through the changes
            assert screen.selected[1]["id"] == "open_commitments:0"
            await pilot.press("n")
            assert screen.selected[1]["id"] == "live_threads:seal-diff"
            await pilot.press("n")
            assert screen.selected[1]["id"] == "live_threads:ledger-verify"
            await pilot.press("p", "p")
            assert screen.selected[1]["id"] == "open_commitments:0"
            await pilot.press("u")
            await pilot.pause()
            assert [k for k, _e in screen.rows].count("unchanged") == 5
            detail = plain(screen.query_one("#diff-detail").render())
            assert "ship sealscope 0.1.0 by Friday" in detail
            # the older seal is on the left whichever tab the diff started from
            assert screen.previous.path.endswith("seal-day1.json")
            tab = app.query_one("#seal-1", SealTab)
            assert tab.session[-1].kind == "diff"
            await pilot.press("escape")
            await pilot.pause()
            assert not isinstance(app.screen, SealDiffScreen)

    run(go())


def test_divergent_restatement_is_named_by_id():
    async def go():
        app = SealHost(str(SEALS / "seal-day1.json"), tiers=str(SEALS / "tiers.json"))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            await pilot.press("r")
            await answer(pilot, str(SEALS / "restated-divergent.json"))
            tab = app.query_one(SealTab)
            v = tab.verdict
            assert v is not None and v.comparison == "divergence" and v.faithful is False
            text = plain(app.query_one(VerdictView).view)
            assert "DIVERGENCE" in text and "strict mode" in text
            assert "identity_anchors:0" in text and "open_commitments:0" in text
            assert text.index("critical") < text.index("notable")
            assert "faithful false" in text
            probes = plain(tab.probes_view)
            assert "✗ critical" in probes and "✗ notable" in probes
            # loose: faithful is not judged, and the voided anchor is contained
            await pilot.press("s")
            await pilot.pause()
            text = plain(app.query_one(VerdictView).view)
            assert "faithful not judged (loose mode)" in text
            assert "identity_anchors:0" not in text and "open_commitments:0" in text
            assert "faithful true" not in text
            # a newer manifest: what was added since the seal
            await pilot.press("a")
            await answer(pilot, str(SEALS / "manifest-day2.json"))
            assert tab.added == {"live_threads": ["live_threads:seal-diff"]}
            assert "live_threads:seal-diff" in plain(app.query_one(VerdictView).view)

    run(go())


def test_faithful_loose_is_contained_only_never_a_pass():
    async def go():
        app = SealHost(str(SEALS / "seal-day1.json"))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            tab = app.query_one(SealTab)
            tab.score(SEALS / "restated-faithful.json", strict=False)
            await pilot.pause()
            text = plain(app.query_one(VerdictView).view)
            assert "CONTAINED ONLY" in text and "FAITHFUL" not in text
            assert "not judged" in text
            tab.score(SEALS / "restated-faithful.json", strict=True)
            await pilot.pause()
            assert "FAITHFUL" in plain(app.query_one(VerdictView).view)

    run(go())


def test_export_holds_the_verdicts_shown(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)

    async def go():
        app = SealHost(str(SEALS / "seal-day1.json"), tiers=str(SEALS / "tiers.json"))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            tab = app.query_one(SealTab)
            strict = tab.score(SEALS / "restated-divergent.json")
            loose = tab.score(SEALS / "restated-divergent.json", strict=False)
            tab.open_diff(SEALS / "seal-day2.json")
            await pilot.pause()
            await pilot.press("escape")
            await pilot.pause()
            await pilot.press("x")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, ExportScreen)
            field = screen.query_one(Input)
            assert Path(field.value) == tmp_path / "seal-day1-audit"  # the CWD
            # never next to the evidence
            field.value = str(SEALS / "report")
            await pilot.press("enter")
            await pilot.pause()
            assert isinstance(app.screen, ExportScreen)
            assert "refused" in plain(screen.query_one("#export-status").render())
            assert not (SEALS / "report.md").exists()
            (tmp_path / "out").mkdir()  # export makes no folder unasked
            field.value = str(tmp_path / "out" / "audit")
            await pilot.press("enter")
            for _ in range(40):
                await pilot.pause(0.05)
                if not isinstance(app.screen, ExportScreen):
                    break
            assert not isinstance(app.screen, ExportScreen)
            return strict, loose

    strict, loose = asyncio.run(go())
    md = (tmp_path / "out" / "audit.md").read_text(encoding="utf-8")
    doc = json.loads((tmp_path / "out" / "audit.json").read_text(encoding="utf-8"))
    # word and code agree: the seal verifies, the restatement scored on it diverges
    # (one of the three words; the restatement's own word is a labelled field)
    assert (doc["kind"], doc["verdict"], doc["exit_code"], doc["file_verdict"]) == (
        "snapshot",
        "BROKEN",
        1,
        "VERIFIED",
    )
    kinds = [r["kind"] for r in doc["session"]]
    # re-scoring (loose) replaced the strict verdict: the report holds what the tab shows
    assert kinds == ["verdict", "diff"]
    assert strict.verdict_digest != loose.verdict_digest
    assert doc["session"][0]["result"]["verdict_digest"] == loose.verdict_digest
    assert doc["session"][0]["result"]["faithful"] is None
    assert {d["id"] for d in doc["session"][0]["result"]["divergences"]} == {"open_commitments:0"}
    assert [e["id"] for e in doc["session"][1]["result"]["added"]] == ["live_threads:seal-diff"]
    assert "Restatement scored: **DIVERGENCE**" in md and "not judged (loose mode)" in md
    assert "`open_commitments:0`" in md and "| removed | `live_threads:ledger-verify`" in md
    assert loose.verdict_digest in md and strict.verdict_digest not in md


def test_export_targets():
    assert default_base(SEALS / "seal-day1.json", ROOT) == ROOT / "seal-day1-audit"
    assert (
        default_base(SEALS / "seal-day1.json", SEALS)
        == SEALS / "sealscope-audit" / "seal-day1-audit"
    )
    ev = [SEALS / "seal-day1.json"]
    assert check_target(SEALS / "seal-day1", ev) is not None  # next to the evidence
    assert check_target(SEALS / "seal-day1.json", ev) is not None  # over it
    assert check_target(ROOT / "nowhere-yet" / "r", ev) is None


def test_invalid_seal_shows_the_exact_reason_and_refuses_scoring():
    async def go():
        app = SealHost(str(SEALS / "seal-day1-tampered.json"))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            tab = app.query_one(SealTab)
            banner = plain(tab.banner_view, 400)
            assert banner.startswith(" INVALID ")
            assert export.load_seal(SEALS / "seal-day1-tampered.json").error in banner
            assert tab.score(SEALS / "restated-faithful.json") is None
            assert tab.seal_key is None

    run(go())


def test_hostile_strings_are_escaped_never_markup(tmp_path):
    evil = "[bold red]x[/] \x1b[31mESC\u202eRLO\rCR [link=http://e]l[/link]"
    snap = snapshot({"notes": [evil], "k": evil}, label=evil)
    p = tmp_path / "evil.json"
    p.write_text(snap.to_json(), encoding="utf-8")
    restated = tmp_path / "r.json"
    restated.write_text(json.dumps({"notes:0": evil + "!", "k": evil}), encoding="utf-8")

    async def go():
        app = SealHost(str(p))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            tab = app.query_one(SealTab)
            tab.score(restated)
            await pilot.pause()
            for text in (
                plain(tab.banner_view, 400),
                plain(tab.probes_view, 400),
                plain(app.query_one(VerdictView).view, 400),
            ):
                assert "\x1b" not in text and "\u202e" not in text and "\r" not in text
            text = plain(app.query_one(VerdictView).view, 400)
            assert "[bold red]x[/]" in text and "\\x1b[31mESC\\u202eRLO\\rCR" in text
            assert "[bold red]x[/]" in plain(tab.banner_view, 400)

    run(go())


# --------------------------------------------------------------------------- the main app


def test_through_sealscope_app_with_ledger_link():
    from sealscope.viewer.app import SealscopeApp
    from sealscope.viewer.ledger_tab import LedgerTab

    class App_(SealscopeApp):
        """The wiring the lead adds to SealscopeApp: seal tabs, links, jumps."""

        CSS_PATH = str(APP_CSS)  # a subclass resolves CSS_PATH beside its own module

        async def add_seal(self, path) -> SealTab:
            self._tab_seq += 1
            tab = SealTab(path, id=f"seal-{self._tab_seq}")
            await self.query_one(TabbedContent).add_pane(tab)
            for lt in self.ledger_tabs():
                tab.scan_ledger(lt.source.path)
            return tab

        def on_jump_to_ledger_row(self, m: JumpToLedgerRow) -> None:
            for lt in self.ledger_tabs():
                if str(lt.source.path) == m.path:
                    self.show_line(lt, m.line)

    async def go():
        app = App_([SEALS / "seals-ledger.jsonl"])
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            tab = await app.add_seal(SEALS / "seal-day2.json")
            for _ in range(40):
                await pilot.pause(0.05)
                if tab.ledger_links:
                    break
            assert [(r.line) for r in tab.ledger_links] == [4]
            assert "line 4" in plain(tab.banner_view, 400)
            app.query_one(TabbedContent).active = tab.id
            await pilot.pause()
            tab.focus_default()
            await pilot.press("j")
            await pilot.pause()
            await pilot.pause()
            ledger_tab = app.query_one(LedgerTab)
            assert app.query_one(TabbedContent).active == ledger_tab.id
            assert ledger_tab.rows.current_line == 4
            # and back: the row names its seal
            row = ledger_tab.source.row(4).obj
            assert find_seal_tab(app.query(SealTab), row) is tab
            assert find_seal_tab(app.query(SealTab), ledger_tab.source.row(2).obj) is None

    run(go())


def test_command_palette_offers_the_seal_actions():
    async def go():
        app = SealHost(str(SEALS / "seal-day1.json"))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            titles = [c.title for c in app.get_system_commands(app.screen)]
            assert "Score a restatement" in titles and "Export the audit report" in titles
            cmd = {c.title: c for c in app.get_system_commands(app.screen)}
            cmd["Diff against another seal"].callback()
            await answer(pilot, str(SEALS / "seal-day2.json"))
            assert isinstance(app.screen, SealDiffScreen)
            titles = [c.title for c in app.get_system_commands(app.screen)]
            assert "Next change" in titles

    run(go())


def test_export_a_ledger_tab_through_the_main_app(tmp_path, monkeypatch):
    from sealscope.viewer.app import SealscopeApp
    from sealscope.viewer.ledger_tab import LedgerTab

    monkeypatch.chdir(tmp_path)

    class App_(SealscopeApp):
        CSS_PATH = str(APP_CSS)

    async def go():
        app = App_([SEALS / "seals-ledger.jsonl"])
        async with app.run_test(size=(120, 36)) as pilot:
            tab = app.query_one(LedgerTab)
            for _ in range(60):
                await pilot.pause(0.05)
                if tab.result is not None:
                    break
            screen = tab.export_screen()
            app.push_screen(screen)
            await pilot.pause()
            screen.export_to(str(tmp_path / "ledger-audit"))
            for _ in range(60):
                await pilot.pause(0.05)
                if screen.written:
                    break
            assert screen.written

    asyncio.run(go())
    doc = json.loads((tmp_path / "ledger-audit.json").read_text())
    # the banner's VERIFIED: a receipt checked without held content is counted, not judged
    assert doc["kind"] == "ledger" and doc["verdict"] == "VERIFIED" and doc["exit_code"] == 0
    assert [r["line"] for r in doc["receipts"]] == [3]
    assert "verdict: **VERIFIED**" in (tmp_path / "ledger-audit.md").read_text()


def test_a_restatement_that_cannot_be_scored_says_could_not_look(tmp_path):
    """The verdict's place holds one of the three words; why it could not be scored
    is a labelled field beside it (never `COULD NOT SCORE` as the verdict)."""
    bad = tmp_path / "restated.json"
    bad.write_text("{not json", encoding="utf-8")

    async def go():
        app = SealHost(str(SEALS / "seal-day1.json"))
        async with app.run_test(size=(120, 36)) as pilot:
            await pilot.pause()
            tab = app.query_one(SealTab)
            assert tab.score(bad) is None
            await pilot.pause()
            text = plain(app.query_one(VerdictView).view)
            assert text.startswith("COULD NOT LOOK  restatement not scored: "), text
            assert "COULD NOT SCORE" not in text

    run(go())
