"""`sealscope serve` in a real browser: Debian's headless Chromium driven by Playwright
(never `playwright install`). The screen is read from the page's own WebSocket frames
through pyte; the page must make no request to any host but the server.

Refresh the README's picture with `python docs/make_serve_png.py` (this test, with
`SEALSCOPE_SERVE_PNG=docs/serve.png`); otherwise the screen at the shot is compared
with the text the committed picture carries.
"""

from __future__ import annotations

import difflib
import importlib.util
import io
import json
import os
import shutil
import time
import warnings
import zipfile
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pyte
import pytest

from tests.serve.serve_helpers import ROOT, SAMPLES, WAIT, served

_spec = importlib.util.spec_from_file_location(
    "make_serve_png", ROOT / "docs" / "make_serve_png.py"
)
assert _spec is not None and _spec.loader is not None
pictures = importlib.util.module_from_spec(_spec)  # the picture's script: its PNG text chunk
_spec.loader.exec_module(pictures)

CHROMIUM = Path(os.environ.get("SEALSCOPE_CHROMIUM", "/usr/bin/chromium"))
# the machine has no network: nothing in the background, software GL for xterm's WebGL
CHROMIUM_ARGS = [
    "--no-sandbox",  # as root (CI) Chromium refuses to start without it
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
    "--disable-quic",
    "--disable-dev-shm-usage",
    "--use-angle=swiftshader",
    "--enable-unsafe-swiftshader",
]


def chromium() -> str:
    """The browser's path. Missing: a failure in CI or as root (`.ci/run` installs it),
    a skip for a developer without it."""
    if CHROMIUM.is_file():
        return str(CHROMIUM)
    why = f"{CHROMIUM} is missing (apt-get install -y chromium)"
    if os.environ.get("CI") or os.geteuid() == 0:
        pytest.fail(why)
    pytest.skip(why)


class Tab:
    """The page's terminal as the page receives it: its WebSocket frames into pyte."""

    def __init__(self, page) -> None:
        self.page = page
        self.screen: pyte.Screen | None = None
        self.stream: pyte.ByteStream | None = None
        self.sockets: list[str] = []
        page.on("websocket", self._socket)

    def _socket(self, ws) -> None:
        self.sockets.append(ws.url)
        q = parse_qs(urlsplit(ws.url).query)
        self.screen = pyte.Screen(int(q["width"][0]), int(q["height"][0]))
        self.stream = pyte.ByteStream(self.screen)
        ws.on("framereceived", self._received)
        ws.on("framesent", self._sent)

    def _received(self, payload) -> None:
        if isinstance(payload, bytes) and self.stream is not None:
            self.stream.feed(payload)

    def _sent(self, payload) -> None:
        msg = json.loads(payload) if isinstance(payload, str) else None
        if msg and msg[0] == "resize" and self.screen is not None:
            self.screen.resize(msg[1]["height"], msg[1]["width"])

    def text(self) -> str:
        return "\n".join(self.screen.display) if self.screen else ""

    def until(self, *needles: str) -> str:
        deadline = time.monotonic() + WAIT
        while not all(n in self.text() for n in needles):
            if time.monotonic() > deadline:
                raise AssertionError(f"{needles} never shown; screen:\n{self.text()}")
            self.page.wait_for_timeout(100)  # lets Playwright deliver the frames
        self.page.wait_for_timeout(300)
        return self.text()


def test_the_viewer_in_headless_chromium(tmp_path):
    exe = chromium()
    from playwright.sync_api import sync_playwright

    evidence = tmp_path / "evidence"
    evidence.mkdir()
    shutil.copy(SAMPLES / "tampered.jsonl", evidence / "tampered.jsonl")
    work = tmp_path / "work"
    work.mkdir()
    requests: list[str] = []
    with (
        served(evidence / "tampered.jsonl", cwd=work, log=tmp_path / "log") as s,
        sync_playwright() as pw,
    ):
        ctx = pw.chromium.launch_persistent_context(
            str(tmp_path / "profile"),
            executable_path=exe,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1280, "height": 800},
            accept_downloads=True,
        )
        try:
            ctx.on("request", lambda r: requests.append(r.url))
            page = ctx.pages[0] if ctx.pages else ctx.new_page()
            tab = Tab(page)
            page.goto(s.url)
            text = tab.until("BROKEN", "first break: line 4: chain mismatch")
            assert "tampered.jsonl" in text and "line 1 · 11 rows" in text
            page.locator(".xterm-helper-textarea").focus()
            for _ in range(3):
                page.keyboard.press("ArrowDown")
            # the status line and the row's badge arrive in separate frames: wait for both
            tab.until("line 4 · 11 rows", "line 4  ✗")
            shot = tmp_path / "serve.png"
            page.screenshot(path=str(shot))
            assert tab.screen is not None
            seen = (tab.screen.columns, tab.screen.lines), [x.rstrip() for x in tab.screen.display]
            page.keyboard.press("x")
            tab.until("Export the audit report", "downloads <name>.zip")
            # the page opens the download in a new tab; Playwright reports it on the page
            downloads: list = []
            page.on("download", lambda d: downloads.append(d))
            page.keyboard.press("Enter")
            tab.until("sent tampered-audit.zip (BROKEN, exit 1)")
            deadline = time.monotonic() + WAIT
            while not downloads and time.monotonic() < deadline:
                page.wait_for_timeout(100)
            assert [d.suggested_filename for d in downloads] == ["tampered-audit.zip"]
            saved = tmp_path / "download.zip"
            downloads[0].save_as(saved)
        finally:
            ctx.close()
    origin = f"127.0.0.1:{s.port}"
    assert [urlsplit(u)[:3] for u in tab.sockets] == [("ws", origin, "/ws")]
    others = [
        u
        for u in requests + tab.sockets
        if urlsplit(u).scheme not in ("data", "blob") and urlsplit(u).netloc != origin
    ]
    assert others == [], others
    assert any(u.endswith("/static/js/textual.js") for u in requests)
    z = zipfile.ZipFile(io.BytesIO(saved.read_bytes()))
    assert json.loads(z.read("tampered-audit.json"))["verdict"] == "BROKEN"
    assert list(work.iterdir()) == []
    png = shot.read_bytes()
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("SEALSCOPE_SERVE_PNG"):
        (ROOT / os.environ["SEALSCOPE_SERVE_PNG"]).write_bytes(pictures.with_screen(png, *seen))
        return
    committed = pictures.screen_of(pictures.PICTURE.read_bytes())
    stale = (
        "docs/serve.png is not today's screen: regenerate it with `python docs/make_serve_png.py`"
    )
    assert committed is not None, stale + " (it carries no screen text)"
    if tuple(committed["size"]) != seen[0]:  # another browser or fonts: cannot compare
        warnings.warn(
            f"{stale}? taken at {committed['size']}, this browser {seen[0]}", stacklevel=1
        )
    else:
        diff = difflib.unified_diff(
            committed["lines"], seen[1], "docs/serve.png", "now", lineterm=""
        )
        assert committed["lines"] == seen[1], stale + ":\n" + "\n".join(diff)
