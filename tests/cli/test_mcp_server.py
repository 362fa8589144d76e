"""The MCP server: `sealscope mcp` driven as a client would drive it, plus the
transport rules of FORMATS §7 through `handle_line` and `serve`."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys

import pytest
from sealscope import mcp_server as mcp
from sealscope.core import ledger
from sealscope.core.continuity import restate, snapshot

SEED = {
    "identity_anchors": ["I am a continuity, carried forward"],
    "open_commitments": ["ship v0.1.0"],
    "canon_pointers": ["memory/CORE.md"],
    "live_threads": ["thread-1"],
}
SEED_DIGEST = "sha256:json-c14n:v1:a1896305484600632e377cdb8a683e372ec291e8a40bad99aca34c2df27e1316"


class Client:
    """A line-at-a-time JSON-RPC client over a `sealscope mcp` subprocess."""

    def __init__(self, env: dict, cwd: str):
        self.p = subprocess.Popen(
            [sys.executable, "-m", "sealscope", "mcp"],
            env=env,
            cwd=cwd,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.next_id = 0

    def send(self, obj) -> None:
        data = obj if isinstance(obj, bytes) else json.dumps(obj).encode()
        self.p.stdin.write(data + b"\n")
        self.p.stdin.flush()

    def read(self) -> dict:
        line = self.p.stdout.readline()
        if not line.endswith(b"\n"):
            err = self.p.stderr.read() if self.p.poll() is not None else ""
            raise AssertionError(f"no reply line: {line!r} {err!r}")
        line.decode("ascii")  # replies are ASCII-escaped
        return json.loads(line)

    def request(self, method: str, params=None) -> dict:
        self.next_id += 1
        msg = {"jsonrpc": "2.0", "id": self.next_id, "method": method}
        if params is not None:
            msg["params"] = params
        self.send(msg)
        reply = self.read()
        assert reply["id"] == self.next_id and reply["jsonrpc"] == "2.0"
        return reply

    def call(self, name: str, arguments) -> tuple[bool, dict]:
        result = self.request("tools/call", {"name": name, "arguments": arguments})["result"]
        assert [c["type"] for c in result["content"]] == ["text"]
        return bool(result.get("isError")), json.loads(result["content"][0]["text"])

    def close(self) -> int:
        self.p.stdin.close()
        rc = self.p.wait(timeout=30)
        self.p.stdout.close()
        self.p.stderr.close()
        return rc


@pytest.fixture
def client(tmp_path):
    env = dict(os.environ, SEALSCOPE_CALL_RECORD=str(tmp_path / "calls.jsonl"))
    env.pop("ARCAEON_CALL_RECORD", None)
    c = Client(env, str(tmp_path))
    yield c
    if c.p.poll() is None:
        c.close()


def test_mcp_session(client, tmp_path):
    init = client.request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})
    assert init["result"]["protocolVersion"] == "2025-06-18"
    assert init["result"]["capabilities"] == {"tools": {}}
    assert init["result"]["serverInfo"]["name"] == "sealscope"
    client.send({"jsonrpc": "2.0", "method": "notifications/initialized"})  # no reply

    tools = client.request("tools/list")["result"]["tools"]
    names = [t["name"] for t in tools]
    assert names == [
        "continuity_snapshot",
        "verify_continuation",
        "diff_seals",
        "drop_receipt",
        "verify_ledger",
        "check",
    ]
    snap_tool = tools[0]
    assert snap_tool["inputSchema"]["required"] == ["manifest"]
    assert set(snap_tool["inputSchema"]["properties"]) == {"manifest", "label", "ledger_path"}

    led = tmp_path / "continuity.jsonl"
    err, snap = client.call(
        "continuity_snapshot", {"manifest": SEED, "label": "seed", "ledger_path": str(led)}
    )
    assert not err and snap["digest"] == SEED_DIGEST and snap["label"] == "seed"
    assert snap["ledger_path"] == str(led) and snap["ledger_chain"]

    restated = restate(SEED)
    restated["live_threads:0"] = "thread-2"
    err, verdict = client.call(
        "verify_continuation",
        {
            "snapshot": snap,
            "restated": restated,
            "tiers": {"critical": ["identity_anchors"], "advisory": ["live_threads"]},
        },
    )
    assert not err and verdict["comparison"] == "divergence" and verdict["faithful"] is False
    assert [(d["id"], d["severity"]) for d in verdict["divergences"]] == [
        ("live_threads:0", "advisory")
    ]
    err, loose = client.call(
        "verify_continuation", {"snapshot": snap, "strict": False, "restated": restate(SEED)}
    )
    assert not err and loose["comparison"] == "containment_only" and loose["faithful"] is None
    assert (
        loose["verdict_digest"]
        == "sha256:json-c14n:v1:a87324eaa24afea942f38c8b8af8c451646eb2ed60243dbd0a84f20375424588"
    )

    nxt = snapshot({**SEED, "live_threads": ["thread-2"]}).to_dict()
    err, diff = client.call("diff_seals", {"previous": snap, "current": nxt})
    assert not err and diff["previous_digest"] == SEED_DIGEST
    assert [d["id"] for d in diff["changed"]] == ["live_threads:0"] and diff["n_unchanged"] == 3

    drops = tmp_path / "drops.jsonl"
    err, row = client.call(
        "drop_receipt", {"before": ["a", "b", {"k": 1}], "after": ["a"], "ledger_path": str(drops)}
    )
    assert not err and row["kind"] == "compaction_receipt" and row["dropped"]["count"] == 2

    err, res = client.call("verify_ledger", {"path": str(led)})
    assert not err and res["ok"] is True and res["rows"] == 1 and res["verdict"] == "VERIFIED"

    # bad arguments: tool errors, and the server keeps answering
    for name, args, text in [
        ("continuity_snapshot", {}, "manifest is required"),
        ("continuity_snapshot", {"manifest": [1]}, "manifest must be a dict"),
        (
            "continuity_snapshot",
            {"manifest": {}},
            "manifest declared zero items — nothing to snapshot",
        ),
        (
            "continuity_snapshot",
            {"manifest": {"a": ["x"], "a:0": "y"}},
            "duplicate probe id 'a:0' — refusing to seal a snapshot that could never be verified",
        ),
        ("verify_continuation", {"snapshot": snap}, "restated is required"),
        (
            "verify_continuation",
            {"snapshot": {"schema": "x"}, "restated": {}},
            "snapshot: not an arcaeon-continuity snapshot (schema='x')",
        ),
        (
            "verify_continuation",
            {"snapshot": snap, "restated": {"a": 1}},
            "restated['a'] must be a str, got int — a restatement is text",
        ),
        (
            "verify_continuation",
            {"snapshot": snap, "restated": {}, "strict": "yes"},
            "strict must be a boolean",
        ),
        ("diff_seals", {"previous": snap}, "current is required"),
        (
            "drop_receipt",
            {"before": "ab", "after": [], "ledger_path": str(drops)},
            "before must be an array of content items",
        ),
        ("verify_ledger", {"path": 5}, "path must be a path string"),
        ("no_such_tool", {}, "unknown tool no_such_tool"),
    ]:
        err, body = client.call(name, args)
        assert err and body == {"error": text}, (name, body)

    bad = client.request("tools/call", {"name": "verify_ledger", "arguments": [1]})
    assert bad["error"] == {
        "code": -32602,
        "message": "invalid params: arguments must be an object",
    }
    bad = client.request("tools/call", [1])
    assert bad["error"] == {"code": -32602, "message": "invalid params: must be an object"}
    assert client.request("ping")["error"] == {"code": -32601, "message": "method not found: ping"}
    client.send(b"{not json")
    assert client.read()["error"]["code"] == -32700
    client.send(b"[1, 2]")
    assert client.read() == {
        "jsonrpc": "2.0",
        "id": None,
        "error": {"code": -32600, "message": "invalid request: not a JSON-RPC object"},
    }
    client.send(b"\xff\xfe garbage")
    assert client.read()["error"]["code"] == -32700
    # still alive
    assert client.request("tools/list")["result"]["tools"][0]["name"] == "continuity_snapshot"
    assert client.close() == 0

    # one chained row per tools/call that reached dispatch
    calls = tmp_path / "calls.jsonl"
    rows = [json.loads(x) for x in calls.read_text(encoding="utf-8").splitlines()]
    assert len(rows) == 6 + 12
    assert list(rows[0]) == ["op", "tool", "ts", "args_digest", "args", "args_bytes", "ok", "chain"]
    assert rows[0]["ok"] is True and rows[6]["ok"] is False
    assert rows[6]["error"] == "manifest is required"
    assert ledger.verify(calls).ok is True
    assert not (tmp_path / "continuity.calls.jsonl").exists()


def test_call_record_verifies_under_reference(tmp_path, monkeypatch):
    from arcaeon.record import call_record as ref

    path = tmp_path / "calls.jsonl"
    monkeypatch.setenv("SEALSCOPE_CALL_RECORD", str(path))
    calls = [{"manifest": {"é": ["ü", 1.5]}}, {}, {"manifest": {"a": "x" * 5000}}]
    for i, args in enumerate(calls):
        mcp.handle(
            {
                "jsonrpc": "2.0",
                "id": i,
                "method": "tools/call",
                "params": {"name": "continuity_snapshot", "arguments": args},
            }
        )
    assert ref.verify_call_record(path) == {"ok": True, "rows": 3, "first_break": None}
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]
    raw = json.dumps({"manifest": {"é": ["ü", 1.5]}}, sort_keys=True, separators=(",", ":"))
    import hashlib

    assert rows[0]["args_digest"] == hashlib.sha256(raw.encode()).hexdigest()
    assert rows[2]["args"] is None and rows[2]["args_bytes"] > 4096


def test_arcaeon_env_fallback(tmp_path, monkeypatch):
    monkeypatch.delenv("SEALSCOPE_CALL_RECORD", raising=False)
    monkeypatch.setenv("ARCAEON_CALL_RECORD", str(tmp_path / "a.jsonl"))
    assert mcp.call_record_path() == str(tmp_path / "a.jsonl")
    monkeypatch.delenv("ARCAEON_CALL_RECORD")
    assert mcp.call_record_path() == "continuity.calls.jsonl"


def test_unwritable_call_record_is_a_tool_error(tmp_path, monkeypatch):
    monkeypatch.setenv("SEALSCOPE_CALL_RECORD", str(tmp_path))  # a folder
    reply = mcp.handle(
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "tools/call",
            "params": {"name": "continuity_snapshot", "arguments": {"manifest": {"a": 1}}},
        }
    )
    assert reply["result"]["isError"] is True
    assert json.loads(reply["result"]["content"][0]["text"])["error"].startswith(
        "tool ran but its call record could not be written: "
    )


def test_transport_rules(tmp_path, monkeypatch):
    monkeypatch.setenv("SEALSCOPE_CALL_RECORD", str(tmp_path / "c.jsonl"))
    assert mcp.handle_line("   ") is None
    assert mcp.handle_line('{"jsonrpc":"2.0","id":null,"method":"initialize"}') is None
    assert mcp.handle_line('{"jsonrpc":"2.0","method":"nope"}') is None
    assert mcp.handle_line('{"id":3}') == json.dumps(
        {"jsonrpc": "2.0", "id": 3, "error": {"code": -32601, "message": "method not found: None"}}
    )
    r = json.loads(mcp.handle_line("{"))
    assert r["id"] is None and r["error"]["message"].startswith("parse error: ")
    assert "data" not in r["error"]
    text, data = mcp._clip("x" * 250)
    assert text == "x" * 200 + "... [truncated: 250 chars total, 200 shown]"
    assert data == {"error_truncated": True, "error_len": 250, "error_shown": 200}
    # falsy non-object arguments read as {}
    r = json.loads(
        mcp.handle_line(
            '{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"continuity_snapshot","arguments":[]}}'
        )
    )
    assert json.loads(r["result"]["content"][0]["text"]) == {"error": "manifest is required"}


def test_serve_streams(tmp_path, monkeypatch):
    monkeypatch.setenv("SEALSCOPE_CALL_RECORD", str(tmp_path / "c.jsonl"))
    src = io.BytesIO(
        b'{"jsonrpc":"2.0","id":1,"method":"tools/list"}\r'
        b'{"jsonrpc":"2.0","id":2,"method":"ping"}\n\n\xff\n'
    )
    out = io.StringIO()
    assert mcp.serve(src, out) == 0
    replies = [json.loads(x) for x in out.getvalue().splitlines()]
    assert [r["id"] for r in replies] == [1, 2, None]
    assert replies[2]["error"]["code"] == -32700
    text_in = io.StringIO('{"jsonrpc":"2.0","id":"a","method":"initialize"}\n')
    out_b = io.BytesIO()
    mcp.serve(text_in, out_b)
    assert json.loads(out_b.getvalue())["id"] == "a"
