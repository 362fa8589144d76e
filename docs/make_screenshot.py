"""Write docs/screenshot.svg: the viewer's first screen on the bundled samples at
120x36, as `sealscope` with no arguments shows it once every ledger is verified.

    python docs/make_screenshot.py [OUT.svg]

Deterministic: the samples are fixed, paths are shown relative to the repository."""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


async def shoot(out: Path) -> None:
    from sealscope.viewer.app import SealscopeApp

    app = SealscopeApp([Path("sample_ledgers")])
    async with app.run_test(size=(120, 36)) as pilot:
        for _ in range(600):  # every ledger verified, no worker left
            await pilot.pause()
            await app.workers.wait_for_complete()
            if all(t.result is not None or t.source.error for t in app.ledger_tabs()) and not any(
                w.is_running for w in app.workers
            ):
                break
            await asyncio.sleep(0.01)
        await pilot.pause()
        app.save_screenshot(filename=out.name, path=str(out.parent))


def main() -> int:
    out = Path(sys.argv[1]).resolve() if len(sys.argv) > 1 else ROOT / "docs" / "screenshot.svg"
    os.chdir(ROOT)
    asyncio.run(shoot(out))
    print(f"wrote {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
