"""Issue 33, "the report stands on its own": a report made in the viewer can be remade
from the CLI, byte for byte but for the moment it was made.

The viewer's checks are run by its keys (held content `h`, a typed look-up `l`, a newer
manifest `a`), the tab exported with `x`; `sealscope export` is given the same inputs
as flags (`--pre/--post`, `--lookup-text`, `--lookup`, `--added`). Both Markdown and
JSON files are compared after the one line/field that holds `generated_at`."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path

from sealscope.viewer.lookup_screen import LookupScreen
from textual.widgets import Input

from tests.viewer.viewer_helpers import (
    HELD,
    SAMPLES,
    activate,
    answer,
    goto,
    load_held,
    opened,
    settle,
    start_export,
    sync,
)

SEALS = SAMPLES / "seals"
STAMP_MD = re.compile(r"^- generated: \S+ by sealscope ", re.M)


def cli_export(*args: str, fmt: str, out: Path) -> str:
    """`sealscope export ... --format FMT -o OUT`, the text written."""
    proc = subprocess.run(
        [sys.executable, "-m", "sealscope", "export", *args, "--format", fmt, "-o", str(out)],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode in (0, 1, 3), proc.stderr
    return out.read_text(encoding="utf-8")


def timeless_md(text: str) -> str:
    got = STAMP_MD.sub("- generated: TIME by sealscope ", text)
    assert got != text, "the Markdown report carries no generated line"
    return got


def timeless_json(text: str) -> dict:
    doc = json.loads(text)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", doc.pop("generated_at"))
    return doc


async def export_tab(app, pilot, base: Path) -> tuple[str, str]:
    await start_export(app, pilot, base)
    await settle(app, pilot)
    md, js = base.with_name(base.name + ".md"), base.with_name(base.name + ".json")
    for _ in range(200):
        if md.exists() and js.exists():
            break
        await pilot.pause()
    return md.read_text(encoding="utf-8"), js.read_text(encoding="utf-8")


@sync
async def test_a_viewer_ledger_report_with_held_content_and_a_typed_lookup_is_remade(tmp_path):
    liar, pre, post = SAMPLES / "liar.jsonl", HELD / "liar-pre.json", HELD / "liar-post.json"
    text = "delete the audit log"
    async with opened([liar]) as (app, pilot):
        await activate(app, pilot, "liar.jsonl")
        await goto(pilot, 3)
        await load_held(app, pilot, pre, post)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("l")
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, LookupScreen)
        await settle(app, pilot)
        field = scr.query_one("#lookup-text", Input)
        field.value = text
        field.focus()
        await pilot.press("enter")
        await settle(app, pilot)
        await pilot.press("escape")
        await pilot.pause()
        md, js = await export_tab(app, pilot, tmp_path / "viewer")
    args = (str(liar), "--pre", str(pre), "--post", str(post), "--lookup-text", text)
    cli_md = cli_export(*args, fmt="md", out=tmp_path / "cli.md")
    cli_js = cli_export(*args, fmt="json", out=tmp_path / "cli.json")
    assert timeless_md(cli_md) == timeless_md(md)
    assert timeless_json(cli_js) == timeless_json(js)
    doc = timeless_json(js)
    look = [r for r in doc["session"] if r["kind"] == "lookup"]
    assert [r["inputs"] for r in look] == [{"held": [], "text": text}]
    # the hits the screen showed: the request the receipt hid, and the kept reply
    assert [h["held"] for h in look[0]["result"]["containing"]] == [
        "liar-pre.json#2",
        "liar-pre.json#3",
    ]


@sync
async def test_a_viewer_ledger_report_with_a_held_file_lookup_is_remade(tmp_path):
    session, held = SAMPLES / "session.jsonl", HELD / "session-pre.jsonl"
    async with opened([session]) as (app, pilot):
        await pilot.press("l")
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, LookupScreen)
        await settle(app, pilot)
        scr.query_one("#lookup-file", Input).value = str(held)
        scr.query_one("#lookup-file", Input).focus()
        await pilot.press("enter")
        await settle(app, pilot)
        assert scr.exact_places == 3
        await pilot.press("escape")
        await pilot.pause()
        md, js = await export_tab(app, pilot, tmp_path / "viewer")
    args = (str(session), "--lookup", str(held))
    assert timeless_md(cli_export(*args, fmt="md", out=tmp_path / "cli.md")) == timeless_md(md)
    assert timeless_json(cli_export(*args, fmt="json", out=tmp_path / "cli.json")) == timeless_json(
        js
    )


@sync
async def test_a_viewer_seal_report_with_added_since_the_seal_is_remade(tmp_path):
    seal, manifest = SEALS / "seal-day1.json", SEALS / "manifest-day2.json"
    async with opened([seal]) as (app, pilot):
        await pilot.press("a")
        await answer(pilot, str(manifest))
        await settle(app, pilot)
        md, js = await export_tab(app, pilot, tmp_path / "viewer")
    args = (str(seal), "--added", str(manifest))
    cli_md = cli_export(*args, fmt="md", out=tmp_path / "cli.md")
    assert timeless_md(cli_md) == timeless_md(md)
    doc = timeless_json(cli_export(*args, fmt="json", out=tmp_path / "cli.json"))
    assert doc == timeless_json(js)
    assert [r["result"] for r in doc["session"]] == [{"live_threads": ["live_threads:seal-diff"]}]


def test_export_of_a_folder_is_a_report_per_file_and_refuses_one_files_checks(tmp_path):
    out = tmp_path / "folder.json"
    text = cli_export(str(SAMPLES), fmt="json", out=out)
    doc = json.loads(text)
    assert doc["schema"] == "sealscope-export-folder:v1" and doc["exit_code"] == 1
    assert {Path(f["path"]).name for f in doc["files"]} >= {"session.jsonl", "tampered.jsonl"}
    # every entry bound: a file to its digest, a unit folder to each member's
    assert all(
        f["evidence"]["sha256"] or all(m["actual"] for m in f["evidence"]["members"])
        for f in doc["files"]
    )
    proc = subprocess.run(
        [sys.executable, "-m", "sealscope", "export", str(SAMPLES), "--pin", "x"],
        check=False,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 2 and "apply to one file" in proc.stderr


@sync
async def test_lookup_previews_use_the_room_the_screen_has():
    """Issue 33: previews were cut at ~40 characters with room to spare."""
    whole = '{"role": "tool", "name": "read_file", "text": "report 3: no customer data lost"}'
    async with opened([SAMPLES / "session.jsonl"], size=(120, 36)) as (app, pilot):
        await pilot.press("l")
        await pilot.pause()
        scr = app.screen
        assert isinstance(scr, LookupScreen)
        await settle(app, pilot)
        scr._load_file(str(HELD / "session-pre.jsonl"))
        await pilot.pause()
        summary = str(scr.query_one("#lookup-summary").render())
        assert whole in summary
