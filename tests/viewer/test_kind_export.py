"""`x` on the tabs of the other evidence kinds (a receipt file, a distill receipt, a
portable receipt, a continuity verdict, an evidence pack zip, an audit bundle folder,
an AAT export): the export screen writes the kind's report, the very bytes
`sealscope export PATH` (and `--format json`) writes, but for the moment each was made
(`generated_at`), and never a byte onto the evidence: the default folder is outside a
folder that is the evidence, and a target inside it is refused."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path

import pytest
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.export_action import ExportScreen, check_target, default_base

from tests.viewer.kind_helpers import cli, front_judged, receipt_file, run, tree_digest
from tests.viewer.viewer_helpers import HELD, SAMPLES, start_export, until

KINDS = SAMPLES / "kinds"
PACKS = SAMPLES / "packs"

CASES = [
    pytest.param(KINDS / "receipt.json", "KindTab", "receipt", id="receipt_file"),
    pytest.param(KINDS / "distill-receipt.json", "KindTab", "distill-receipt", id="distill"),
    pytest.param(KINDS / "portable-receipt.json", "KindTab", "portable-receipt", id="portable"),
    pytest.param(
        KINDS / "continuity-verdict.json", "KindTab", "continuity-verdict", id="continuity"
    ),
    pytest.param(PACKS / "session-pack.zip", "UnitTab", "evidence-pack", id="pack_zip"),
    pytest.param(PACKS / "session-bundle", "UnitTab", "audit-bundle", id="bundle_folder"),
    pytest.param(PACKS / "session-aat.jsonl", "AatTab", "aat-export", id="aat_export"),
]

_STAMP_JSON = re.compile(r'^  "generated_at": "[^"]*",?$', re.M)
_STAMP_MD = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ")


def _unstamped_json(text: str) -> str:
    assert len(_STAMP_JSON.findall(text)) == 1, "one generated_at in the report"
    return _STAMP_JSON.sub('  "generated_at": "",', text)


def _unstamped_md(text: str) -> str:
    return _STAMP_MD.sub("T", text)


async def _exported(app, pilot, base: Path) -> tuple[str, str]:
    """`x` on the tab in front, the report written at `base`: (Markdown, JSON)."""
    scr = await start_export(app, pilot, base)
    md, js = base.with_name(base.name + ".md"), base.with_name(base.name + ".json")
    await until(
        pilot,
        lambda: app.screen is not scr and not any(w.is_running for w in app.workers),
        "the export never finished",
    )
    assert scr.written == [str(md), str(js)], scr.query_one("#export-status").render()
    return md.read_text(encoding="utf-8"), js.read_text(encoding="utf-8")


@pytest.mark.parametrize(("path", "tab_class", "kind"), CASES)
def test_x_on_a_kind_tab_writes_the_report_sealscope_export_writes(
    tmp_path, monkeypatch, path, tab_class, kind
):
    if not path.exists():
        pytest.skip(f"sample {path.name} not generated")
    monkeypatch.chdir(tmp_path)
    before = tree_digest(SAMPLES)
    out = tmp_path / "out"
    out.mkdir()

    async def go():
        app = SealscopeApp([path])
        async with app.run_test(size=(120, 36)) as pilot:
            await front_judged(app, pilot)
            tab = app.current_tab()
            assert type(tab).__name__ == tab_class and tab.has_report
            assert app.check_action("export", ()) is True
            return tab.tab_verdict, await _exported(app, pilot, out / "report")

    outcome, (md, js) = asyncio.run(go())
    as_json = cli("export", str(path), "--format", "json")
    as_md = cli("export", str(path))
    doc = json.loads(js)
    assert doc["kind"] == kind and doc["schema"] == "sealscope-export-kind:v1"
    assert as_json.returncode == as_md.returncode == doc["exit_code"] == outcome.exit_code
    assert doc["verdict"] == outcome.verdict
    # the very bytes of the CLI's report, but for the moment each was made
    assert _unstamped_json(js) == _unstamped_json(as_json.stdout)
    assert _unstamped_md(md) == _unstamped_md(as_md.stdout)
    # bound to the evidence: a file's digest, a folder's members
    if path.is_file():
        assert doc["evidence"]["sha256"] and doc["evidence"]["bytes"] == path.stat().st_size
    else:
        assert doc["evidence"]["members"]
    assert tree_digest(SAMPLES) == before  # nothing written onto the evidence


def test_a_held_content_check_not_in_the_kinds_report_is_said_on_the_export_screen(
    tmp_path, monkeypatch
):
    """A receipt file recomputed with held content (`h`): its report is the kind's
    (what `sealscope export FILE` writes, which takes no held content), and the export
    screen says the check run in the tab is not in it."""
    monkeypatch.chdir(tmp_path)
    p = receipt_file(tmp_path)

    async def go():
        app = SealscopeApp([p])
        async with app.run_test(size=(120, 36)) as pilot:
            await front_judged(app, pilot)
            tab = app.current_tab()
            await pilot.press("h")
            await until(pilot, lambda: type(app.screen).__name__ == "HeldContentScreen")
            scr = app.screen
            scr.query_one("#pre").value = str(HELD / "session-pre.jsonl")
            scr.query_one("#post").value = str(HELD / "session-post.jsonl")
            await pilot.press("ctrl+r")
            await until(pilot, lambda: bool(tab.session), "held content never recomputed")
            await pilot.press("escape")
            await until(pilot, lambda: app.screen is app.screen_stack[0])
            await pilot.press("x")
            await until(pilot, lambda: isinstance(app.screen, ExportScreen))
            what = str(app.screen.query_one("#export-what").render())
            assert "1 check run in this tab is not in this report" in what
            await pilot.press("escape")

    run(go())


def test_the_default_folder_and_every_target_stay_off_a_folder_that_is_evidence(tmp_path):
    unit = tmp_path / "bundle"
    (unit / "inner").mkdir(parents=True)
    # the working directory inside the unit: the default is beside it, not in it
    for cwd in (unit, unit / "inner"):
        base = default_base(unit, cwd)
        assert base == tmp_path / "sealscope-audit" / "bundle-audit"
        assert check_target(base, [unit]) is None
    # from its parent: in sealscope-audit/, as a ledger's folder
    assert default_base(unit, tmp_path) == tmp_path / "sealscope-audit" / "bundle-audit"
    for inside in (unit / "r", unit / "inner" / "r"):
        why = check_target(inside, [unit])
        assert why is not None and "inside the evidence folder bundle" in why
    assert check_target(tmp_path / "elsewhere" / "r", [unit]) is None
