"""`sealscope serve` without a browser: a real server on 127.0.0.1, driven over its
WebSocket as the page drives it, the screen read through pyte."""

from __future__ import annotations

import asyncio
import io
import json
import re
import shutil
import subprocess
import sys
import zipfile
from html.parser import HTMLParser
from pathlib import Path

import aiohttp
import pytest

from tests.serve.serve_helpers import DOWN, ENTER, SAMPLES, open_screen, served


def run(coro):
    return asyncio.run(coro)


def cli(*args: str, cwd: Path, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "sealscope", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
        **kw,
    )


def test_tampered_banner_cursor_dialog_and_download(tmp_path):
    """The tampered sample's BROKEN banner; down moves the cursor to line 2; x opens the
    export dialog; enter downloads the report (the same JSON `sealscope export` prints)
    and writes nothing on the server's disk."""
    evidence = tmp_path / "evidence"
    evidence.mkdir()
    shutil.copy(SAMPLES / "tampered.jsonl", evidence / "tampered.jsonl")
    work = tmp_path / "work"
    work.mkdir()

    async def go(s):
        async with aiohttp.ClientSession() as http:
            scr = await open_screen(http, s)
            text = await scr.until("BROKEN", "first break: line 4: chain mismatch")
            assert "tampered.jsonl" in text
            assert re.search(r"line 1 · 11 rows", text)
            await scr.keys(DOWN)
            text = await scr.until("line 2 · 11 rows")
            assert "line 1 · 11 rows" not in text
            await scr.keys("x")
            text = await scr.until("Export the audit report", "tampered-audit")
            assert "downloads <name>.zip" in text
            await scr.keys(ENTER)
            _, key = await scr.until_text_frame("deliver_file_start")
            async with http.get(f"{s.url}download/{key}") as r:
                assert r.status == 200
                assert r.headers["Content-Disposition"] == "attachment; filename=tampered-audit.zip"
                body = await r.read()
            await scr.until("sent tampered-audit.zip (BROKEN, exit 1)")
            await scr.ws.close()
            return body

    with served(evidence / "tampered.jsonl", cwd=work, log=tmp_path / "log") as s:
        body = run(go(s))
    z = zipfile.ZipFile(io.BytesIO(body))
    assert sorted(z.namelist()) == ["tampered-audit.json", "tampered-audit.md"]
    got = json.loads(z.read("tampered-audit.json"))
    want = json.loads(
        cli("export", "--format", "json", str(evidence / "tampered.jsonl"), cwd=work).stdout
    )
    got.pop("generated_at"), want.pop("generated_at")  # the time of each audit aside
    assert got == want
    assert got["verdict"] == "BROKEN"
    assert b"verdict: **BROKEN**" in z.read("tampered-audit.md")
    assert list(work.iterdir()) == []  # nothing written on the server
    assert sorted(p.name for p in evidence.iterdir()) == ["tampered.jsonl"]


HOSTILE_NAMES = [
    "a; touch PWNED; echo .jsonl",
    "b'; touch PWNED2; echo '.jsonl",
    'c"; touch PWNED3; echo ".jsonl',
    "d$(touch PWNED4)`touch PWNED5`.jsonl",
]


def test_file_names_never_reach_a_shell(tmp_path):
    """Paths with shell syntax open as files; nothing they spell is run."""
    work = tmp_path / "work"
    work.mkdir()
    for n in HOSTILE_NAMES:
        shutil.copy(SAMPLES / "session.jsonl", work / n)

    async def go(s):
        async with aiohttp.ClientSession() as http:
            scr = await open_screen(http, s, width=160, height=40)
            text = await scr.until("VERIFIED")
            await scr.ws.close()
            return text

    with served(*HOSTILE_NAMES, cwd=work, log=tmp_path / "log") as s:
        text = run(go(s))
    assert "VERIFIED" in text and "a; touch PWNED; echo .jsonl" in text  # the first, opened
    for tab in (
        "b'; touch PWNED2; echo '",
        'c"; touch PWNED3; echo "',
        "d$(touch PWNED4)`touch PWNED5`",
    ):
        assert tab in text  # every file has its tab
    assert sorted(p.name for p in work.iterdir()) == sorted(HOSTILE_NAMES)
    assert not list(tmp_path.rglob("PWNED*"))


def test_default_bind_is_loopback_and_a_remote_bind_needs_the_flag(tmp_path):
    p = cli("serve", "--host", "0.0.0.0", "--port", "9", cwd=tmp_path)
    assert p.returncode == 2
    assert "--allow-remote" in p.stderr and "no authentication" in p.stderr
    assert cli("serve", "--help", cwd=tmp_path).stdout.count("127.0.0.1") >= 1
    # with the flag: the warning, then (192.0.2.1 is a documentation address this machine
    # does not hold) one clean line when the address cannot be bound; no traffic is sent
    p = cli(
        "serve",
        "--host",
        "192.0.2.1",
        "--allow-remote",
        "--port",
        "8000",
        str(SAMPLES / "session.jsonl"),
        cwd=tmp_path,
    )
    assert p.returncode == 3, p.stderr
    assert "NO authentication: anyone who reaches this port reads the evidence" in p.stderr
    assert "cannot listen on 192.0.2.1:8000" in p.stderr
    assert "Traceback" not in p.stderr + p.stdout


def test_missing_paths_and_bad_arguments(tmp_path):
    p = cli("serve", str(tmp_path / "nope.jsonl"), cwd=tmp_path)
    want = f"sealscope: no such file or folder: {tmp_path / 'nope.jsonl'}"
    assert (p.returncode, p.stderr.strip()) == (3, want)
    assert cli("serve", "--port", "0", cwd=tmp_path).returncode == 2
    assert cli("serve", "--public-url", "javascript:x", cwd=tmp_path).returncode == 2


def test_without_the_extra_it_says_what_to_install(tmp_path):
    code = (
        "import sys\n"
        "class Block:\n"
        "    def find_spec(self, name, path=None, target=None):\n"
        "        if name.split('.')[0] == 'textual_serve':\n"
        "            raise ModuleNotFoundError(f'No module named {name!r}', name=name)\n"
        "sys.meta_path.insert(0, Block())\n"
        "from sealscope.main import main\n"
        "sys.exit(main(['serve', '--port', '9']))\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert p.returncode == 3
    assert p.stderr.strip().endswith('pip install "sealscope[serve]"')
    assert len(p.stderr.strip().splitlines()) == 1


class _Refs(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag, attrs):
        for k, v in attrs:
            if k in ("src", "href") and v:
                self.urls.append(v)

    def local(self) -> list[str]:
        """The references that are fetched (a `data:` URL is inline, not fetched)."""
        return [u for u in self.urls if not u.startswith("data:")]


def test_the_page_names_no_other_host_and_other_origins_are_refused(tmp_path):
    async def go(s):
        async with aiohttp.ClientSession() as http:
            async with http.get(s.url) as r:
                assert r.status == 200
                page = await r.text()
            refs.feed(page)
            async with http.get(s.url, headers={"Host": "evil.example"}) as r:
                assert r.status == 403  # DNS rebinding
            with pytest.raises(aiohttp.WSServerHandshakeError) as e:
                await http.ws_connect(f"{s.url}ws", headers={"Origin": "http://evil.example"})
            assert e.value.status == 403  # another site's page
            scr = await open_screen(http, s, headers={"Origin": s.url.rstrip("/")})
            await scr.until("VERIFIED")  # the page's own origin works
            await scr.ws.close()
            for u in refs.local() + re.findall(r'url\("([^"]+)"\)', page):
                async with http.get(s.url + u) as r:
                    assert r.status == 200, u
            return page

    refs = _Refs()
    with served(SAMPLES / "session.jsonl", cwd=tmp_path, log=tmp_path / "log") as s:
        page = run(go(s))
    assert len(refs.local()) == 3 and refs.local() != refs.urls
    assert all(not re.match(r"^[a-z]+:|^//", u) for u in refs.local()), refs.urls
    assert not re.search(r"https?://", page.replace("http://www.w3.org", ""))
    assert "Content-Security-Policy" in page and "default-src 'self'" in page
