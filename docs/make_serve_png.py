"""Write docs/serve.png: `sealscope serve sample_ledgers/tampered.jsonl` in headless
Chromium, cursor on the first break (line 4), as the browser test drives it.

    python docs/make_serve_png.py

One command: it runs `tests/serve/test_serve_browser.py` with `SEALSCOPE_SERVE_PNG`
set, so the picture is taken by the test that checks the page (Debian's chromium,
`.[dev]` installed). The PNG carries the terminal's text and size at the moment of
the shot (an `iTXt` chunk, `KEY`); each run of that test compares the screen it sees
with the committed picture's text and fails when they differ, so a screen change
cannot leave the README's picture stale. Pixels are not compared: fonts and the
browser's rendering differ between machines, the text does not (at the same size)."""

from __future__ import annotations

import json
import os
import struct
import subprocess
import sys
import zlib
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
PICTURE = ROOT / "docs" / "serve.png"
KEY = b"sealscope:screen"
SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _chunks(png: bytes) -> list[tuple[bytes, bytes]]:
    if not png.startswith(SIGNATURE):
        raise ValueError("not a PNG")
    out, i = [], len(SIGNATURE)
    while i + 8 <= len(png):
        n, kind = struct.unpack(">I4s", png[i : i + 8])
        out.append((kind, png[i + 8 : i + 8 + n]))
        i += 12 + n
    return out


def with_screen(png: bytes, size: tuple[int, int], lines: list[str]) -> bytes:
    """`png` with the screen's text and size in an `iTXt` chunk before `IEND` (any
    earlier one of ours dropped)."""
    body = json.dumps({"size": list(size), "lines": lines}, ensure_ascii=False).encode("utf-8")
    data = KEY + b"\x00\x00\x00\x00\x00" + body  # keyword, uncompressed, no language
    chunk = struct.pack(">I", len(data)) + b"iTXt" + data
    chunk += struct.pack(">I", zlib.crc32(b"iTXt" + data) & 0xFFFFFFFF)
    out = SIGNATURE
    for kind, payload in _chunks(png):
        if kind == b"iTXt" and payload.startswith(KEY + b"\x00"):
            continue
        piece = struct.pack(">I", len(payload)) + kind + payload
        piece += struct.pack(">I", zlib.crc32(kind + payload) & 0xFFFFFFFF)
        out += (chunk if kind == b"IEND" else b"") + piece
    return out


def screen_of(png: bytes) -> dict[str, Any] | None:
    """The screen `with_screen` stored in `png` (`size`, `lines`), or None."""
    for kind, payload in _chunks(png):
        if kind == b"iTXt" and payload.startswith(KEY + b"\x00"):
            return json.loads(payload[len(KEY) + 5 :].decode("utf-8"))
    return None


def main() -> int:
    env = dict(os.environ, SEALSCOPE_SERVE_PNG="docs/serve.png")
    test = "tests/serve/test_serve_browser.py::test_the_viewer_in_headless_chromium"
    cmd = [sys.executable, "-m", "pytest", "-q", test]
    done = subprocess.run(cmd, cwd=ROOT, env=env, check=False)
    if done.returncode == 0:
        print(f"wrote {PICTURE}")
    return done.returncode


if __name__ == "__main__":
    sys.exit(main())
