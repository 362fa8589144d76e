"""Write docs/screenshot.svg: the viewer's first screen on the bundled samples at
120x36, as `sealscope` with no arguments shows it once every ledger is verified.

    python docs/make_screenshot.py [OUT.svg]

Deterministic: the samples are fixed, paths are shown relative to the repository.
`tests/viewer/test_docs_pictures.py` renders the same screen through `render` and
fails when the committed picture's text (`screen_text`) differs from it: run this
script again after a change to the first screen, look at the picture, commit it."""

from __future__ import annotations

import asyncio
import os
import re
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SIZE = (120, 36)
CELL = 12.2  # the width of a cell in Rich's SVG export (x is in these units)


async def render() -> str:
    """The SVG of the first screen once every ledger is verified and no worker runs
    (the current directory must be the repository root: paths show as given)."""
    from sealscope.viewer.app import SealscopeApp

    app = SealscopeApp([Path("sample_ledgers")])
    async with app.run_test(size=SIZE) as pilot:
        for _ in range(600):  # every ledger verified, no worker left
            await pilot.pause()
            await app.workers.wait_for_complete()
            if all(t.result is not None or t.source.error for t in app.ledger_tabs()) and not any(
                w.is_running for w in app.workers
            ):
                break
            await asyncio.sleep(0.01)
        await pilot.pause()
        return app.export_screenshot()


def screen_text(svg: str) -> list[str]:
    """The terminal text an SVG of Rich's export shows, one string per screen line
    (trailing spaces dropped): each `<text>` placed at its cell, by its `x` and the
    line its clip path names. Colours and the export's generated class names are left
    out, so two renderings of the same screen compare equal."""
    rows: dict[int, list[tuple[int, str]]] = {}
    for el in ET.fromstring(svg).iter("{http://www.w3.org/2000/svg}text"):
        m = re.search(r"-line-(\d+)\)", el.get("clip-path", ""))
        if m:
            col = round(float(el.get("x", "0")) / CELL)
            rows.setdefault(int(m[1]), []).append((col, (el.text or "").replace("\xa0", " ")))
    out = []
    for n in range(max(rows, default=-1) + 1):
        line = ""
        for col, text in sorted(rows.get(n, [])):
            line = line[:col].ljust(col) + text
        out.append(line.rstrip())
    return out


def main() -> int:
    out = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT / "docs" / "screenshot.svg"
    os.chdir(ROOT)
    out.write_text(asyncio.run(render()), encoding="utf-8")
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
