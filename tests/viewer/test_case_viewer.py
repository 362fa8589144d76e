"""The viewer on a case (issue 44, acceptance 2 and 5): checks run in a case session are
recorded and come back on reopening, `N` writes a note, a changed evidence file opens
alarmed, the case tab lists open findings first and shows hostile text literally."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sealscope.core.case import perform, record, rows, store
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.case_tab import CaseTab
from textual.widgets import OptionList, TabbedContent

from tests.viewer.viewer_helpers import activate, check_pin, goto, load_held, settle, sync

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"
HOSTILE = "esc \x1b[31mred bidi \u202eevil [bold]loud[/bold] ::error::boom *md*"


@pytest.fixture
def copies(tmp_path: Path) -> Path:
    for name in ("session.jsonl", "truncated.jsonl", "truncated.pin"):
        shutil.copy(SAMPLES / name, tmp_path / name)
    shutil.copytree(SAMPLES / "held", tmp_path / "held")
    return tmp_path


async def _quiet(app, pilot) -> None:
    """Settled, and every case append (a thread worker) done."""
    await settle(app, pilot)
    for _ in range(5):
        await app.workers.wait_for_complete()
        await pilot.pause()


def _options(app) -> list[str]:
    listed = app.query_one(CaseTab).query_one(OptionList)
    return [str(listed.get_option_at_index(i).prompt) for i in range(listed.option_count)]


@sync
async def test_checks_and_a_note_come_back_when_the_case_is_reopened(copies: Path) -> None:
    case = str(copies / "case.jsonl")
    record.new_case(case, title="pilot")
    record.add(case, str(copies / "session.jsonl"))
    app = SealscopeApp([str(copies / "truncated.jsonl")], case=case)
    async with app.run_test(size=(120, 36)) as pilot:
        await _quiet(app, pilot)
        await activate(app, pilot, "truncated.jsonl")
        await check_pin(app, pilot, str(copies / "truncated.pin"))
        await activate(app, pilot, "session.jsonl")
        await goto(pilot, 7)
        held = copies / "held"
        await load_held(app, pilot, held / "session-pre.jsonl", held / "session-post.jsonl")
        await pilot.press("escape")
        await _quiet(app, pilot)
        await pilot.press("N")
        await pilot.pause()
        app.screen.query_one("Input").value = "row 7 recomputed"
        await pilot.press("enter")
        await _quiet(app, pilot)
    entries = store.read_case(case).entries
    assert [e.get("check") for e in entries if e.entry == "check"] == [
        "kind",
        "kind",
        "pin",
        "receipts",
    ]
    [note] = [e for e in entries if e.entry == "note"]
    assert note.text == "row 7 recomputed"
    assert note.get("on")["line"] == 7 and note.get("on")["path"].endswith("session.jsonl")
    assert store.read_case(case).verdict == "VERIFIED"

    app = SealscopeApp([], case=case)
    async with app.run_test(size=(120, 36)) as pilot:
        await _quiet(app, pilot)
        sessions = {Path(t.path).name: [r.kind for r in t.session] for t in app.panes()}
        assert sessions == {"session.jsonl": ["recompute"], "truncated.jsonl": ["pin"]}
        truncated = next(t for t in app.panes() if t.path.endswith("truncated.jsonl"))
        assert truncated.banner.combined_verdict == "BROKEN"
        assert any("row 7 recomputed" in o for o in _options(app))
    # restoring records nothing new
    assert len(store.read_case(case).entries) == len(entries)


@sync
async def test_evidence_changed_since_the_case_opens_alarmed(copies: Path) -> None:
    case = str(copies / "case.jsonl")
    record.new_case(case)
    record.add(case, str(copies / "session.jsonl"))
    with open(copies / "session.jsonl", "ab") as fh:
        fh.write(b"\n")
    app = SealscopeApp([], case=case)
    async with app.run_test(size=(120, 36)) as pilot:
        await _quiet(app, pilot)
        [tab] = app.panes()
        assert [(r.kind, r.verdict) for r in tab.session] == [("case", "BROKEN")]
        assert "sha256 differs" in tab.session[0].title
        assert tab.banner.combined_verdict == "BROKEN"


def _snapshot_case(folder: Path) -> str:
    """A case with fixed stamps and no evidence (the same picture wherever it runs)."""
    case = "case.jsonl"
    store.create(
        str(folder / case),
        rows.new_row("opened", {"title": "Q4", "by": "ann", "ts": "2026-03-01T09:00:00Z"}),
    )
    on = {"path": "session.jsonl", "sha256": "0" * 64, "line": 7}
    for i, (entry, fields) in enumerate(
        [
            ("note", {"text": "first look: the chain holds", "on": None, "by": "ann"}),
            (
                "finding",
                {
                    "text": "receipt v1 is bounded",
                    "on": on,
                    "by": "ann",
                    "severity": "medium",
                    "status": "open",
                },
            ),
            ("note", {"text": HOSTILE, "on": on, "by": "ann"}),
            ("signoff", {"by": "bob", "statement": "reviewed"}),
        ]
    ):
        fields["ts"] = f"2026-03-01T09:0{i + 1}:00Z"
        store.append(str(folder / case), rows.new_row(entry, fields))
    return case


@pytest.mark.parametrize("size", [(120, 36), (80, 24)], ids=["120x36", "80x24"])
def test_snapshot_case_tab(snap_compare, tmp_path: Path, monkeypatch, size) -> None:
    monkeypatch.chdir(tmp_path)
    case = _snapshot_case(tmp_path)

    async def run(pilot) -> None:
        await _quiet(pilot.app, pilot)
        pilot.app.query_one(TabbedContent).active = "case-tab"
        await pilot.pause()

    assert snap_compare(SealscopeApp([], case=case), terminal_size=size, run_before=run)


@sync
async def test_the_case_tab_lists_open_findings_first_and_hostile_text_literally(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.chdir(tmp_path)
    case = _snapshot_case(tmp_path)
    app = SealscopeApp([], case=case)
    async with app.run_test(size=(120, 36)) as pilot:
        await _quiet(app, pilot)
        shown = _options(app)
        assert "F1 medium open: receipt v1 is bounded" in shown[0]
        assert "signoff" in shown[1]  # then newest first
        hostile = next(o for o in shown if "bidi" in o)
        assert "\x1b" not in hostile and "\u202e" not in hostile
        assert "\\x1b[31mred" in hostile and "\\u202eevil" in hostile
        assert "[bold]loud[/bold]" in hostile
        tabs = app.query_one(TabbedContent)
        assert str(tabs.get_tab("case-tab").label) == "case · 1 open"


@sync
async def test_held_content_changed_since_is_named_and_enter_jumps_to_the_anchor(
    copies: Path,
) -> None:
    case = str(copies / "case.jsonl")
    record.new_case(case)
    held = copies / "held"
    record.add(
        case,
        str(copies / "session.jsonl"),
        pre=str(held / "session-pre.jsonl"),
        post=str(held / "session-post.jsonl"),
    )
    # the receipts check of a viewer session names its line; the CLI's checks every row
    done = perform.perform(
        "receipts",
        [
            perform.Input("evidence", str(copies / "session.jsonl")),
            perform.Input("pre", str(held / "session-pre.jsonl")),
        ],
        {"line": 7},
    )
    record.record_check(case, done)
    record.note(case, "see here", on=record.anchor(str(copies / "session.jsonl"), line=5))
    with open(held / "session-pre.jsonl", "ab") as fh:
        fh.write(b"\n")
    app = SealscopeApp([], case=case)
    async with app.run_test(size=(120, 36)) as pilot:
        await _quiet(app, pilot)
        [tab] = app.panes()
        # both recorded checks that held session-pre.jsonl say so; neither is run again
        assert len(tab.session) == 2
        for alarm in tab.session:
            assert alarm.kind == "case" and alarm.verdict == "BROKEN"
            assert "held input" in alarm.title
            assert "session-pre.jsonl: sha256 differs" in alarm.title
        assert tab.banner.combined_verdict == "BROKEN"

        tabs = app.query_one(TabbedContent)
        tabs.active = "case-tab"
        await pilot.pause()
        listed = app.query_one(CaseTab).query_one(OptionList)
        listed.focus()
        listed.highlighted = next(i for i, o in enumerate(_options(app)) if "see here" in o)
        await pilot.press("enter")
        await _quiet(app, pilot)
        assert tabs.active == tab.id and tab.rows.current_line == 5


@sync
async def test_case_open_opens_the_case_as_the_case_flag_does(copies: Path, monkeypatch) -> None:
    from sealscope.main import main

    case = str(copies / "case.jsonl")
    record.new_case(case, title="open")
    record.add(case, str(copies / "truncated.jsonl"), pin=str(copies / "truncated.pin"))
    record.note(case, "look at the pin")
    started: list[SealscopeApp] = []
    monkeypatch.setattr(SealscopeApp, "run", lambda self, *a, **k: started.append(self))
    assert main(["case", "open", case]) == 0
    assert main(["--case", case]) == 0
    assert main(["case", "open", str(copies / "no-such-case.jsonl")]) == 3
    seen = []
    for app in started:
        async with app.run_test(size=(120, 36)) as pilot:
            await _quiet(app, pilot)
            tabs = [
                (Path(t.path).name, [r.kind for r in t.session], t.banner.combined_verdict)
                for t in app.panes()
            ]
            seen.append((app.case_link.path, tabs, _options(app)))
    [by_verb, by_flag] = seen
    assert by_verb == by_flag
    assert by_verb[1] == [("truncated.jsonl", ["pin"], "BROKEN")]
    assert any("look at the pin" in o for o in by_verb[2])
    assert len(store.read_case(case).entries) == 5  # opening recorded nothing


@sync
async def test_a_lookup_run_in_a_case_session_is_recorded_once_and_replays(copies: Path) -> None:
    from sealscope.core.case import replay
    from textual.widgets import Input

    case = str(copies / "case.jsonl")
    record.new_case(case)
    record.add(case, str(copies / "session.jsonl"))
    held = str(copies / "held" / "session-pre.jsonl")
    app = SealscopeApp([], case=case)
    async with app.run_test(size=(120, 36)) as pilot:
        await _quiet(app, pilot)
        await activate(app, pilot, "session.jsonl")
        await pilot.press("l")
        await _quiet(app, pilot)
        field = app.screen.query_one("#lookup-file", Input)
        field.value = held
        field.focus()
        for _ in range(2):  # the same look-up shown again is not a second check
            await pilot.press("enter")
            await _quiet(app, pilot)
        typed = app.screen.query_one("#lookup-text", Input)
        typed.focus()
        typed.value = "no such item"
        await pilot.press("enter")
        await _quiet(app, pilot)
    lookups = [e for e in store.read_case(case).entries if e.get("check") == "lookup"]
    assert [[i["role"] for i in e.get("inputs")] for e in lookups] == [
        ["evidence", "held"],
        ["evidence"],
    ]
    assert lookups[0].get("inputs")[1]["resolved"] == held
    assert lookups[1].get("args") == {"text": "no such item"}
    direct = perform.perform(
        "lookup",
        [
            perform.Input("evidence", str(copies / "session.jsonl")),
            perform.Input("held", held),
        ],
    )
    assert lookups[0].get("result_sha256") == direct.result_sha256
    assert [i.status for i in replay.replay(case).items] == ["holds"] * 3
