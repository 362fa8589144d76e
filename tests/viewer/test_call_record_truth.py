"""A call record gets one verdict everywhere (KINDS.md §7.2, quirk 48): `check`, `export`,
`fleet`, the viewer's tab (its banner word, its label's verdict) and its `x` report.

The viewer opens a call record as a ledger tab (its rows, breaks and row checks are the
ledger view), but the file is judged by the call-record verifier, as `check` judges
it: an unchained first row is a `chain mismatch` (no prechain), bytes that are not
UTF-8 could not be looked at. The files here are written by the reference's own writer
(`arcaeon.record.call_record.CallRecord`, the dev extra's oracle), then edited the way
the two rules read differently."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import arcaeon.prove.continuity.mcp_server as cmcp
import pytest
from sealscope.core import fleet, ledger, verdict
from sealscope.core.checks import call_record
from sealscope.viewer.app import SealscopeApp
from textual.widgets import TabbedContent

from tests.viewer.kind_helpers import cli, front_judged
from tests.viewer.viewer_helpers import start_export, until

CALLS = [{"label": "wren", "n": 1}, {"label": "— em dash —"}, {"q": [1, 2, 3]}, {"z": None}]


def _honest(path: Path, monkeypatch) -> Path:
    """A call record as the continuity MCP server writes it (one row per call)."""
    path.unlink(missing_ok=True)
    monkeypatch.setenv("ARCAEON_CALL_RECORD", str(path))
    for i, args in enumerate(CALLS):
        cmcp._record_call(f"tool{i % 2}", args, {"result": {"isError": False}})
    monkeypatch.delenv("ARCAEON_CALL_RECORD")
    return path


def _unchained_first(path: Path) -> None:
    """The first row's `chain` removed, the others chained from genesis after it: the
    ledger walk calls it prechain (COULD NOT LOOK, bounded), the call-record verifier
    a chain mismatch at line 1 (BROKEN)."""
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    del rows[0]["chain"]
    prev = ledger.GENESIS
    for row in rows[1:]:
        del row["chain"]
        row["chain"] = prev = ledger.link(prev, row)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")


def _lone_cr(path: Path) -> None:
    """The first line ends LF (so the classifier reads a call row), the others a lone CR."""
    first, _, rest = path.read_bytes().partition(b"\n")
    path.write_bytes(first + b"\n" + rest.replace(b"\n", b"\r"))


def _ff_byte(path: Path) -> None:
    """A byte FF after the second row: the ledger walk reads an unparseable line
    (BROKEN), the call-record verifier raises UnicodeDecodeError (COULD NOT LOOK)."""
    lines = path.read_bytes().split(b"\n")
    lines[1] += b" \xff"
    path.write_bytes(b"\n".join(lines))


CASES = {
    "honest": (None, verdict.VERIFIED),
    "unchained": (_unchained_first, verdict.BROKEN),
    "lone_cr": (_lone_cr, verdict.VERIFIED),
    "ff_byte": (_ff_byte, verdict.COULD_NOT_LOOK),
}


def _made(tmp_path: Path, monkeypatch, name: str) -> Path:
    edit, _word = CASES[name]
    path = _honest(tmp_path / f"{name}.calls.jsonl", monkeypatch)
    if edit is not None:
        edit(path)
    return path


@pytest.mark.parametrize("name", list(CASES))
def test_check_export_fleet_and_the_tab_say_one_word(tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    path = _made(tmp_path, monkeypatch, name)
    want = CASES[name][1]
    own = call_record.own_check(str(path))
    assert own is not None and own.kind == "call-record"
    assert own.verdict == want
    code = own.exit_code
    # check
    got = cli("check", str(path), "--json")
    [doc] = json.loads(got.stdout)
    assert (doc["verdict"], doc["exit_code"], got.returncode) == (want, code, code)
    # export (the CLI)
    exp = cli("export", str(path), "--format", "json")
    assert exp.returncode == code, exp.stderr
    assert json.loads(exp.stdout)["verdict"] == want
    # fleet (the CLI and core's entry)
    fl = cli("fleet", str(tmp_path), "--json")
    entries = [json.loads(x) for x in fl.stdout.splitlines() if '"path"' in x]
    [entry] = [e for e in entries if Path(e["path"]).name == path.name]
    assert (entry["verdict"], entry["exit_code"], fl.returncode) == (want, code, code)
    assert fleet.audit_path(str(path)).outcome() == (want, code)
    out = tmp_path / "out"
    out.mkdir()

    async def go():
        app = SealscopeApp([path])
        async with app.run_test(size=(140, 40)) as pilot:
            await front_judged(app, pilot)
            tab = app.current_tab()
            assert type(tab).__name__ == "LedgerTab"
            await until(pilot, lambda: tab.checks.rows is not None, "no row checks")
            await pilot.pause()
            banner = str(tab.banner.render())
            outcome = tab.tab_verdict
            label = str(app.query_one(TabbedContent).get_tab(tab).label)
            assert label.startswith(verdict.glyph(want)), label
            scr = await start_export(app, pilot, out / "report")
            await until(
                pilot,
                lambda: app.screen is not scr and not any(w.is_running for w in app.workers),
                "the export never finished",
            )
            return banner, outcome, scr.written

    banner, outcome, written = asyncio.run(go())
    # the tab's verdict and its banner word: the call-record verifier's
    assert outcome == (want, code)
    assert f" {want} " in banner
    # the banner names the rule that judged it, and shows the numbers behind its word
    assert call_record.JUDGED_BY in banner
    counts = own.detail.get("call_record")
    if isinstance(counts, dict):
        first = counts["first_break"]
        said = f"line {first}" if first is not None else "none"
        assert f"rows {counts['rows']} · first break {said}" in banner
        assert "· chained " not in banner and "breaks" not in banner  # not the walk's
        assert "before the chain began" not in banner
    # its `x` report: the call record's, as `sealscope export` writes it
    assert written and written[-1].endswith(".json")
    report = json.loads(Path(written[-1]).read_text(encoding="utf-8"))
    assert (report["verdict"], report["exit_code"]) == (want, code)
    assert report["kind"] == "call-record"


def test_the_ledger_walk_reads_these_files_otherwise(tmp_path, monkeypatch):
    """The cases above where the two rules differ do differ (so the test above could
    fail): the ledger walk's word is not the call-record verifier's."""
    for name in ("unchained", "ff_byte"):
        path = _made(tmp_path, monkeypatch, name)
        assert ledger.verify(path).verdict != CASES[name][1], name


def test_a_plain_ledger_has_no_call_record_check(tmp_path):
    p = tmp_path / "plain.jsonl"
    ledger.append(p, {"op": "start"})
    assert call_record.own_check(str(p)) is None
