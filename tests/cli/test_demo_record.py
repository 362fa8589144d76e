"""`sealscope demo --record`: a valid asciicast v2 file whose replay through a terminal
emulator (pyte) ends on the final caption; and the demo's workspace is removed when
the run is interrupted (q, SIGTERM) in a real pseudo-terminal."""

from __future__ import annotations

import json
import os
import runpy
import select
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pyte
import pytest
from sealscope.demo_record import spawn

ROOT = Path(__file__).resolve().parents[2]
DEADLINE = 120.0  # a safety net against a hang, not a timing assertion


def _env(tmp_path):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    return dict(os.environ, TMPDIR=str(tmp)), tmp


def test_record_writes_an_asciicast_v2_that_replays_to_the_final_caption(tmp_path):
    env, tmp = _env(tmp_path)
    cast = tmp_path / "demo.cast"
    p = subprocess.run(
        [
            sys.executable,
            "-m",
            "sealscope",
            "demo",
            "--speed",
            "1000",
            "--record",
            str(cast),
            "--size",
            "80x24",
        ],
        check=False,
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert f"demo: wrote {cast} (an asciicast v2 recording".encode() in p.stderr  # says so
    lines = cast.read_text(encoding="utf-8").splitlines()
    head = json.loads(lines[0])
    assert head["version"] == 2 and (head["width"], head["height"]) == (80, 24)
    assert isinstance(head["timestamp"], int) and head["timestamp"] > 1_600_000_000
    assert head["title"] == "sealscope demo" and head["env"]["TERM"] == "xterm-256color"
    events = [json.loads(x) for x in lines[1:]]
    assert len(events) > 20
    assert all(len(e) == 3 and e[1] == "o" and isinstance(e[2], str) for e in events)
    times = [e[0] for e in events]
    assert times == sorted(times) and times[0] >= 0 and times[-1] > times[0]

    screen = pyte.Screen(80, 24)
    stream = pyte.Stream(screen)
    for e in events:
        stream.feed(e[2])
    shown = "\n".join(screen.display)
    assert " 9/9  — That's the audit: a rewritten row, a hidden drop and a lost" in shown
    assert "✓ every step checked · q quits" in shown
    assert list(tmp.iterdir()) == []  # the workspace is gone

    # docs/render_cast.py makes the README's key-frame SVG from such a recording
    render = runpy.run_path(str(ROOT / "docs" / "render_cast.py"))["render"]
    svg = ET.fromstring(render(cast))
    frames = [
        g for g in svg.iter("{http://www.w3.org/2000/svg}g") if "f" in g.get("class", "").split()
    ]
    assert len(frames) == 9
    last = "".join(t.text or "" for t in frames[-1].iter("{http://www.w3.org/2000/svg}text"))
    assert "9/9" in last and "every step checked" in last
    # ... and that frame is the screen the demo drew last, not what pyte makes of the
    # terminal-restoring sequences after it (it prints the kitty keyboard pop's "u")
    drawn = pyte.Screen(80, 24)
    feed = pyte.Stream(drawn)
    for e in events[: next(i for i, e in enumerate(events) if "\x1b[?1049l" in e[2])]:
        feed.feed(e[2])
    assert "".join(last.split()) == "".join("".join(drawn.display).split())


def _until(master: int, proc, pred) -> bytes:
    """Drain the terminal until `pred(output so far)`; the output."""
    out = b""
    end = time.monotonic() + DEADLINE
    while not pred(out):
        if time.monotonic() > end or proc.poll() is not None:
            raise AssertionError(
                "the demo never got there: " + out[-500:].decode("utf-8", "replace")
            )
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                out += os.read(master, 65536)
            except OSError:
                break
    return out


def _drain_until_exit(master: int, proc) -> int:
    end = time.monotonic() + DEADLINE
    while proc.poll() is None and time.monotonic() < end:
        ready, _, _ = select.select([master], [], [], 0.2)
        if ready:
            try:
                os.read(master, 65536)
            except OSError:
                pass
    return proc.wait(timeout=30)


@pytest.mark.parametrize("how", ["q", "sigterm"])
def test_an_interrupted_demo_removes_its_workspace(tmp_path, how):
    env, tmp = _env(tmp_path)
    proc, master = spawn(["demo", "--speed", "1"], 100, 30, env=env)
    try:
        # the agent is writing its ledger live: step 1 is on screen
        _until(master, proc, lambda out: b"1/9" in out and any(tmp.iterdir()))
        (ws,) = list(tmp.iterdir())
        assert (ws / "wren.jsonl").is_file()
        if how == "q":
            os.write(master, b"q")
        else:
            proc.send_signal(signal.SIGTERM)
        code = _drain_until_exit(master, proc)
    finally:
        os.close(master)
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert code == (0 if how == "q" else 143)  # 128 + SIGTERM, as a shell reports it
    assert list(tmp.iterdir()) == []


@pytest.mark.parametrize("args", [["--speed", "0"], ["--speed", "fast"], ["--size", "40x10"]])
def test_usage_errors_exit_2(args):
    p = subprocess.run(
        [sys.executable, "-m", "sealscope", "demo", *args],
        check=False,
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert p.returncode == 2 and "error:" in p.stderr
