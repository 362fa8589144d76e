"""A real `sealscope serve` on 127.0.0.1 and a free port, and a client that speaks the
page's WebSocket protocol (textual-serve's: JSON text frames `["stdin", keys]`,
`["resize", {"width", "height"}]`; binary frames are the app's terminal output),
feeding the output to a terminal emulator (pyte) so tests read the screen."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import aiohttp
import pyte

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
WAIT = 45.0  # upper bound on any wait for the server or the screen (not asserted)

DOWN, ENTER, ESCAPE = "\x1b[B", "\r", "\x1b"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Served:
    def __init__(self, proc: subprocess.Popen, port: int, log: Path) -> None:
        self.proc, self.port, self.log = proc, port, log
        self.url = f"http://127.0.0.1:{port}/"

    def output(self) -> str:
        return self.log.read_text(errors="replace")


@contextmanager
def served(*args: str | os.PathLike, cwd: Path, log: Path) -> Iterator[Served]:
    """`sealscope serve ARGS --port FREE` started in `cwd`, stopped (SIGTERM, then kill)
    after; its output goes to `log`."""
    port = free_port()
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "sealscope",
                "serve",
                "--port",
                str(port),
                *map(os.fspath, args),
            ],
            cwd=cwd,
            stdout=out,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            env={**os.environ, "COLUMNS": "200"},
        )
    try:
        deadline = time.monotonic() + WAIT
        while True:
            if proc.poll() is not None:
                raise AssertionError(
                    f"serve exited {proc.returncode}: " + log.read_text(errors="replace")
                )
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError as e:
                if time.monotonic() > deadline:
                    raise AssertionError(
                        "serve did not listen: " + log.read_text(errors="replace")
                    ) from e
                time.sleep(0.1)
        yield Served(proc, port, log)
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout=15)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


class Screen:
    """One browser tab's session over /ws, its output rendered by pyte."""

    def __init__(self, ws: aiohttp.ClientWebSocketResponse, width: int, height: int) -> None:
        self.ws = ws
        self.screen = pyte.Screen(width, height)
        self.stream = pyte.ByteStream(self.screen)
        self.texts: list[list] = []  # JSON text frames from the server

    def text(self) -> str:
        return "\n".join(self.screen.display)

    async def keys(self, data: str) -> None:
        await self.ws.send_str(json.dumps(["stdin", data]))

    async def pump(self, seconds: float) -> None:
        """Read frames for a while."""
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            try:
                msg = await asyncio.wait_for(self.ws.receive(), left)
            except asyncio.TimeoutError:
                return
            self._take(msg)

    def _take(self, msg: aiohttp.WSMessage) -> None:
        if msg.type == aiohttp.WSMsgType.BINARY:
            self.stream.feed(msg.data)
        elif msg.type == aiohttp.WSMsgType.TEXT:
            self.texts.append(json.loads(msg.data))
        elif msg.type in (
            aiohttp.WSMsgType.CLOSE,
            aiohttp.WSMsgType.CLOSED,
            aiohttp.WSMsgType.ERROR,
        ):
            raise AssertionError("the session closed:\n" + self.text())

    async def until(self, *needles: str) -> str:
        """Read frames until every needle is on the screen (then a short settle);
        the screen text. Fails with the screen when WAIT passes first."""
        deadline = time.monotonic() + WAIT
        while not all(n in self.text() for n in needles):
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"{needles} never shown; screen:\n{self.text()}")
            try:
                msg = await asyncio.wait_for(self.ws.receive(), left)
            except asyncio.TimeoutError:
                continue
            self._take(msg)
        await self.pump(0.3)
        return self.text()

    async def until_text_frame(self, kind: str) -> list:
        deadline = time.monotonic() + WAIT
        while True:
            for t in self.texts:
                if t and t[0] == kind:
                    return t
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"no {kind} frame; screen:\n{self.text()}")
            try:
                msg = await asyncio.wait_for(self.ws.receive(), left)
            except asyncio.TimeoutError:
                continue
            self._take(msg)


async def open_screen(
    session: aiohttp.ClientSession, served: Served, width: int = 120, height: int = 36, **kw
) -> Screen:
    """Connect as the page does: /ws with the size in the query, then a resize."""
    ws = await session.ws_connect(f"{served.url}ws?width={width}&height={height}", **kw)
    await ws.send_str(json.dumps(["resize", {"width": width, "height": height}]))
    return Screen(ws, width, height)
