"""Issue 32 (serve): the page cannot be framed, connects only to its own origin,
/static/ lists no folder, viewers are capped (each is a process), and a remote bind
still answers only its own Host names (no DNS rebinding)."""

from __future__ import annotations

import asyncio
import re

import aiohttp
import pytest

from tests.serve.serve_helpers import SAMPLES, open_screen, served


def run(coro):
    return asyncio.run(coro)


def test_headers_csp_static_listing_and_the_session_cap(tmp_path):
    async def go(s):
        async with aiohttp.ClientSession() as http:
            async with http.get(s.url) as r:
                assert r.status == 200
                assert r.headers["X-Frame-Options"] == "DENY"
                assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
                page = await r.text()
            csp = re.search(r'Content-Security-Policy"\s+content="([^"]+)"', page)[1]
            connect = re.search(r"connect-src ([^;]+);", csp)[1].split()
            assert connect == ["'self'", f"ws://127.0.0.1:{s.port}"], csp
            for listing in ("static/", "static", "static/js", "static/js/"):
                async with http.get(s.url + listing) as r:
                    assert r.status == 404, listing
            async with http.get(s.url + "static/js/textual.js") as r:
                assert r.status == 200
            first = await open_screen(http, s, headers={"Origin": s.url.rstrip("/")})
            await first.until("VERIFIED")
            with pytest.raises(aiohttp.WSServerHandshakeError) as e:
                await http.ws_connect(f"{s.url}ws", headers={"Origin": s.url.rstrip("/")})
            assert e.value.status == 503  # one viewer allowed, one running
            await first.ws.close()

    with served(
        SAMPLES / "session.jsonl", "--max-sessions", "1", cwd=tmp_path, log=tmp_path / "log"
    ) as s:
        run(go(s))


def test_a_remote_bind_keeps_a_host_allowlist(tmp_path):
    async def go(s):
        async with aiohttp.ClientSession() as http:
            for host, want in (
                ("evil.example", 403),
                (f"audit.test:{s.port}", 200),
                ("10.1.2.3", 200),
                ("attacker.example:80", 403),
            ):
                async with http.get(s.url, headers={"Host": host}) as r:
                    assert r.status == want, host

    with served(
        SAMPLES / "session.jsonl",
        "--host",
        "0.0.0.0",
        "--allow-remote",
        "--public-url",
        "http://audit.test:8000",
        cwd=tmp_path,
        log=tmp_path / "log",
    ) as s:
        run(go(s))


def test_max_sessions_must_be_positive(tmp_path):
    import subprocess
    import sys

    r = subprocess.run(
        [sys.executable, "-m", "sealscope", "serve", "--max-sessions", "0"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        cwd=tmp_path,
    )
    assert r.returncode == 2 and "--max-sessions must be at least 1" in r.stderr
