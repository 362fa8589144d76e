"""Issue 32: the MCP server opens and writes paths by the rules for evidence (a FIFO,
a device, /proc/self/fd/N refused at once; the server keeps answering and exits on
EOF) and caps a message at 16 MiB with a JSON-RPC error."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from sealscope import mcp_server as mcp


def _session(tmp_path, messages: list[bytes], timeout: float = 60) -> list[dict]:
    """Every reply of a `sealscope mcp` run fed `messages` then EOF; the process must
    end by itself (a hang fails on the bound)."""
    env = dict(os.environ, SEALSCOPE_CALL_RECORD=str(tmp_path / "calls.jsonl"))
    p = subprocess.Popen(
        [sys.executable, "-m", "sealscope", "mcp"],
        env=env,
        cwd=tmp_path,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        out, err = p.communicate(b"".join(m + b"\n" for m in messages), timeout=timeout)
    except subprocess.TimeoutExpired:
        p.kill()
        p.communicate()
        raise AssertionError("the MCP server hung") from None
    assert p.returncode == 0 and b"Traceback" not in err, err
    return [json.loads(line) for line in out.splitlines()]


def _call(i: int, tool: str, args: dict) -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": i,
            "method": "tools/call",
            "params": {"name": tool, "arguments": args},
        }
    ).encode()


def _error_text(reply: dict) -> str:
    assert reply["result"]["isError"] is True, reply
    return json.loads(reply["result"]["content"][0]["text"])["error"]


@pytest.mark.parametrize(
    "tool,extra",
    [
        ("drop_receipt", {"before": ["a", "b"], "after": ["a"]}),
        ("continuity_snapshot", {"manifest": {"identity_anchors": ["x"]}}),
        ("verify_ledger", {}),
    ],
)
def test_a_fifo_path_is_refused_and_the_server_goes_on(tmp_path, tool, extra):
    fifo = tmp_path / "led.fifo"
    os.mkfifo(fifo)
    key = "path" if tool == "verify_ledger" else "ledger_path"
    replies = _session(
        tmp_path,
        [
            _call(1, tool, {**extra, key: str(fifo)}),
            _call(2, "verify_ledger", {"path": str(tmp_path / "none")}),
        ],
    )
    assert [r["id"] for r in replies] == [1, 2]
    assert "not a regular file" in _error_text(replies[0])


@pytest.mark.parametrize("path", ["/proc/self/fd/1", "/dev/stdout", "/dev/zero"])
def test_proc_and_device_paths_are_refused(tmp_path, path):
    replies = _session(
        tmp_path,
        [
            _call(1, "drop_receipt", {"before": ["a"], "after": [], "ledger_path": path}),
            _call(2, "verify_ledger", {"path": path}),
        ],
    )
    assert [r["id"] for r in replies] == [1, 2]
    for r in replies:
        assert "refusing" in _error_text(r)


def test_a_message_over_the_cap_is_an_error_and_the_next_is_answered(tmp_path):
    big = (
        b'{"jsonrpc": "2.0", "id": 1, "method": "tools/list", "pad": "'
        + b"x" * (mcp.MAX_MESSAGE + 10)
        + b'"}'
    )
    replies = _session(
        tmp_path, [big, json.dumps({"jsonrpc": "2.0", "id": 2, "method": "tools/list"}).encode()]
    )
    assert replies[0]["error"]["code"] == -32600
    assert "larger than 16 MiB" in replies[0]["error"]["message"]
    assert replies[1]["id"] == 2 and "tools" in replies[1]["result"]


def test_a_fifo_call_record_is_refused_not_waited_on(tmp_path):
    rec = tmp_path / "calls.fifo"
    os.mkfifo(rec)
    env = dict(os.environ, SEALSCOPE_CALL_RECORD=str(rec))
    p = subprocess.run(
        [sys.executable, "-m", "sealscope", "mcp"],
        env=env,
        cwd=tmp_path,
        input=_call(1, "verify_ledger", {"path": "nope"}) + b"\n",
        capture_output=True,
        timeout=60,
        check=False,
    )
    (reply,) = [json.loads(line) for line in p.stdout.splitlines()]
    assert "call record could not be written" in _error_text(reply)
