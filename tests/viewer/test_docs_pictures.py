"""The README's first picture shows today's screen (issue 33): `docs/screenshot.svg` is
compared, by its text, with the screen `docs/make_screenshot.py` renders now (the same
function, the same app state). A change to the first screen fails here until the
picture is regenerated: `python docs/make_screenshot.py`, from the repository root."""

from __future__ import annotations

import asyncio
import difflib
import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "docs" / "make_screenshot.py"
PICTURE = ROOT / "docs" / "screenshot.svg"
REGENERATE = "python docs/make_screenshot.py"


def _script():
    spec = importlib.util.spec_from_file_location("make_screenshot", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_screenshot_is_todays_first_screen(monkeypatch):
    shot = _script()
    monkeypatch.chdir(ROOT)  # paths show as given, relative to the repository
    now = shot.screen_text(asyncio.run(shot.render()))
    committed = shot.screen_text(PICTURE.read_text(encoding="utf-8"))
    assert len(now) == shot.SIZE[1] and any("VERIFIED" in line for line in now)
    diff = "\n".join(
        difflib.unified_diff(committed, now, "docs/screenshot.svg", "now", lineterm="")
    )
    assert committed == now, (
        f"docs/screenshot.svg shows another screen than today's; regenerate it with "
        f"`{REGENERATE}` (from the repository root), look at it, commit it:\n{diff}"
    )


def test_the_text_comparison_sees_a_changed_screen():
    """The comparison is not blind: one character changed in the picture's text is a
    different screen, and the export's generated class names are not compared."""
    shot = _script()
    svg = PICTURE.read_text(encoding="utf-8")
    lines = shot.screen_text(svg)
    assert any("session.jsonl" in line for line in lines)
    assert shot.screen_text(svg.replace("session.jsonl", "session.jsonX", 1)) != lines
    renamed = svg.replace("terminal-", "terminal-x")
    assert shot.screen_text(renamed) == lines
