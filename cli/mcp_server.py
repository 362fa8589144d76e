"""An MCP tool server over stdio (FORMATS §7): JSON-RPC 2.0, one message per line.

Methods: `initialize`, `tools/list`, `tools/call`. A message without an id (or with
a null id) is a notification and gets no reply. Parse failure → -32700, a
non-object → -32600, an unknown method → -32601, bad `tools/call` params → -32602.
A tool that fails answers a tool error (`isError: true`); the server keeps going.

Tools: `continuity_snapshot` (as the reference), and `verify_continuation`,
`diff_seals`, `drop_receipt`, `verify_ledger`, `check` (every kind's own check,
`core.checks.run`), each answering the core's `to_dict()` as JSON text.

Every `tools/call` that reaches dispatch appends one hash-chained row (the ledger
link rule) to the call record: `$SEALSCOPE_CALL_RECORD`, else
`$ARCAEON_CALL_RECORD`, else `continuity.calls.jsonl` in the working directory.
A call whose record cannot be written is answered as a tool error.

Every path a tool opens or writes follows the rules for evidence: a regular file only
(a FIFO, a device, a socket is refused at once, never waited on), and nothing under
`/proc` or `/dev` (`/proc/self/fd/N` would be the server's own streams). A message
longer than `MAX_MESSAGE` bytes is not read into memory: it is skipped to its end and
answered with a -32600 error.

`serve(stdin, stdout)` is the loop; it only reads and writes the given streams.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Callable, Iterable
from datetime import datetime, timezone
from typing import Any

from sealscope.core import verdict
from sealscope.core.jsonio import dumps_output
from sealscope.core.registry import kinds_sentence as _kinds_sentence

__all__ = [
    "PROTOCOL_VERSION",
    "SERVER_NAME",
    "TOOLS",
    "call_record_path",
    "handle",
    "handle_line",
    "serve",
]

PROTOCOL_VERSION = "2025-06-18"
SERVER_NAME = "sealscope"
ARGS_INLINE_MAX = 4096
ERROR_TEXT_MAX = 200
ERROR_RECORD_MAX = 2000
DEFAULT_CALL_RECORD = "continuity.calls.jsonl"
MAX_MESSAGE = 16 << 20  # bytes in one message (one line)

_SNAPSHOT_OBJECT = {
    "type": "object",
    "description": "A continuity snapshot object, as "
    "`continuity_snapshot` returns it or a snapshot file holds it.",
}
_TIERS = {
    "type": "object",
    "description": "Optional {tier: [field, ...]}: each divergence "
    "gets the first tier listing its field as `severity` (else `notable`).",
}

TOOLS: list[dict] = [
    {
        "name": "continuity_snapshot",
        "description": (
            "Seal a declared manifest (any JSON object: identity anchors, open "
            "commitments, canon pointers, live threads...) as a continuity "
            "snapshot: one exact-match probe per declared item, registered as a "
            "baseline and digested, optionally chained into a ledger. Returns the "
            "snapshot with its `digest`. It binds the declared content only; it "
            "says nothing about who later restates it."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "manifest": {"type": "object", "description": "The declared state to seal."},
                "label": {
                    "type": "string",
                    "default": "continuity",
                    "description": "A label for the snapshot and its registration.",
                },
                "ledger_path": {
                    "type": "string",
                    "description": "Optional ledger (JSONL) file "
                    "to append a continuity_snapshot row to.",
                },
            },
            "required": ["manifest"],
        },
    },
    {
        "name": "verify_continuation",
        "description": (
            "Score a restatement {probe_id: text} against a sealed snapshot. "
            "Returns the verdict: `comparison` (exact_match / containment_only / "
            "divergence, null when the comparison is invalid), `faithful`, the "
            "divergences and `verdict_digest`."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "snapshot": _SNAPSHOT_OBJECT,
                "restated": {"type": "object", "description": "{probe_id: answer text}."},
                "strict": {
                    "type": "boolean",
                    "default": True,
                    "description": "Exact (trimmed) "
                    "restatement; false scores containment and leaves `faithful` null.",
                },
                "tiers": _TIERS,
            },
            "required": ["snapshot", "restated"],
        },
    },
    {
        "name": "diff_seals",
        "description": (
            "What changed between two sealed snapshots: declared items changed, "
            "added and removed, by probe id."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "previous": _SNAPSHOT_OBJECT,
                "current": _SNAPSHOT_OBJECT,
                "tiers": _TIERS,
            },
            "required": ["previous", "current"],
        },
    },
    {
        "name": "drop_receipt",
        "description": (
            "Seal a compaction receipt for what a compaction cut: `before` is the "
            "full content, `after` what was kept; the receipt row (digests only) "
            "is appended to `ledger_path` and returned."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "before": {"type": "array", "description": "Content items before compaction."},
                "after": {"type": "array", "description": "Content items kept."},
                "ledger_path": {"type": "string", "description": "Ledger file to append to."},
                "compactor": {"type": "string", "default": "arcaeon-continuity"},
                "method": {"type": "string", "default": "manifest-diff"},
            },
            "required": ["before", "after", "ledger_path"],
        },
    },
    {
        "name": "verify_ledger",
        "description": (
            "Walk and verify a hash-chained ledger file. Returns ok "
            "(true / false / null when bounded or empty), row counts, the first "
            "break and the verified scope."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "path": {"type": "string", "description": "The ledger file."},
                "strict": {
                    "type": "boolean",
                    "default": False,
                    "description": "Unchained rows are breaks and declarations are not honoured.",
                },
            },
            "required": ["path"],
        },
    },
    {
        "name": "check",
        "description": (
            "Run each evidence file's own check, whatever its kind ("
            + _kinds_sentence()
            + "): one result per path with its kind, verdict, exit code, the reference "
            "verifier's `ok` and its fields, and the bound a green verdict held within."
        ),
        "inputSchema": {
            "type": "object",
            "properties": {
                "paths": {
                    "type": "array",
                    "items": {"type": "string"},
                    "description": "The evidence files or folders.",
                },
                "artefacts": {
                    "type": "string",
                    "description": "Optional folder of held things: "
                    "artefacts, a portable receipt's ledger, stored verdicts.",
                },
            },
            "required": ["paths"],
        },
    },
]


class ToolError(Exception):
    """A refusal answered as a tool error with this text."""


# --------------------------------------------------------------------------- replies


def _result(mid: Any, payload: dict) -> dict:
    return {"jsonrpc": "2.0", "id": mid, "result": payload}


def _error(mid: Any, code: int, message: str, data: dict | None = None) -> dict:
    err: dict[str, Any] = {"code": code, "message": message}
    if data is not None:
        err["data"] = data
    return {"jsonrpc": "2.0", "id": mid, "error": err}


def _text(obj: Any) -> dict:
    return {"content": [{"type": "text", "text": dumps_output(obj, ensure_ascii=True)}]}


def _tool_error(mid: Any, message: str) -> dict:
    return _result(mid, {**_text({"error": message}), "isError": True})


def _clip(detail: str) -> tuple[str, dict | None]:
    """Cut error text to ERROR_TEXT_MAX and say so (with the true length)."""
    if len(detail) <= ERROR_TEXT_MAX:
        return detail, None
    return (
        (
            f"{detail[:ERROR_TEXT_MAX]}... [truncated: {len(detail)} chars total, "
            f"{ERROR_TEXT_MAX} shown]"
        ),
        {"error_truncated": True, "error_len": len(detail), "error_shown": ERROR_TEXT_MAX},
    )


# --------------------------------------------------------------------------- tools


def _need(args: dict, key: str, kind: type | tuple, what: str) -> Any:
    if key not in args:
        raise ToolError(f"{key} is required")
    v = args[key]
    if not isinstance(v, kind) or (kind is dict and isinstance(v, bool)):
        raise ToolError(f"{key} must be {what}")
    return v


def _flag(args: dict, key: str, default: bool) -> bool:
    v = args.get(key, default)
    if not isinstance(v, bool):
        raise ToolError(f"{key} must be a boolean")
    return v


def _tiers(args: dict) -> dict | None:
    t = args.get("tiers")
    if t is None:
        return None
    if not isinstance(t, dict) or not all(isinstance(v, list) for v in t.values()):
        raise ToolError("tiers must be an object {tier: [field, ...]}")
    return t


def _snap(value: Any, key: str):
    from sealscope.core.continuity import ContinuitySnapshot

    try:
        return ContinuitySnapshot.from_dict(value)
    except ValueError as e:
        raise ToolError(f"{key}: {e}") from None


_SPECIAL = ("/proc/", "/dev/", "/sys/")


def _safe_path(path: str, key: str) -> str:
    """`path` when it may be opened or written as evidence: not under /proc, /dev or
    /sys (as given or resolved), and, when it exists, a regular file."""
    import stat

    for name in (os.path.abspath(path), os.path.realpath(path)):
        if name.startswith(_SPECIAL) or name in ("/proc", "/dev", "/sys"):
            raise ToolError(
                f"{key}: refusing {name!r}: not a file of evidence (/proc, /dev and /sys are not)"
            )
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return path
    except OSError as e:
        raise ToolError(f"{key}: cannot examine {path!r}: {e.strerror or e}") from None
    if not stat.S_ISREG(mode):
        raise ToolError(f"{key}: refusing {path!r}: not a regular file")
    return path


def _tool_continuity_snapshot(args: dict) -> dict:
    from sealscope.core.continuity import snapshot

    if "manifest" not in args:
        raise ToolError("manifest is required")
    kw: dict[str, Any] = {}
    if args.get("label"):
        kw["label"] = args["label"]
    if args.get("ledger_path"):
        lp = args["ledger_path"]
        if not isinstance(lp, str):
            raise ToolError("ledger_path must be a path string")
        kw["ledger_path"] = _safe_path(lp, "ledger_path")
    return snapshot(args["manifest"], **kw).to_dict()


def _tool_verify_continuation(args: dict) -> dict:
    from sealscope.core.continuity import verify_continuation

    snap = _snap(_need(args, "snapshot", dict, "a snapshot object"), "snapshot")
    restated = _need(args, "restated", dict, "an object {probe_id: answer}")
    return verify_continuation(
        snap, restated=restated, strict=_flag(args, "strict", True), tiers=_tiers(args)
    ).to_dict()


def _tool_diff_seals(args: dict) -> dict:
    from sealscope.core.continuity import diff_seals

    prev = _snap(_need(args, "previous", dict, "a snapshot object"), "previous")
    cur = _snap(_need(args, "current", dict, "a snapshot object"), "current")
    return diff_seals(prev, cur, tiers=_tiers(args))


def _tool_drop_receipt(args: dict) -> dict:
    from sealscope.core.continuity import drop_receipt

    before = _need(args, "before", list, "an array of content items")
    after = _need(args, "after", list, "an array of content items")
    path = _need(args, "ledger_path", str, "a path string")
    if not path:
        raise ToolError("ledger_path must be a non-empty path string")
    _safe_path(path, "ledger_path")
    kw = {k: args[k] for k in ("compactor", "method") if k in args}
    return drop_receipt(before, after, ledger_path=path, **kw).to_dict()


def _tool_verify_ledger(args: dict) -> dict:
    from sealscope.core import ledger

    path = _need(args, "path", str, "a path string")
    if not path:
        raise ToolError("path must be a non-empty path string")
    _safe_path(path, "path")
    res = ledger.verify(path, strict=_flag(args, "strict", False), workers=1)
    return {**res.to_dict(), "verdict": res.verdict}


def _tool_check(args: dict) -> dict:
    from sealscope.core import checks
    from sealscope.core.checks.result import CheckContext

    paths = _need(args, "paths", list, "a list of path strings")
    if not paths or not all(isinstance(p, str) and p for p in paths):
        raise ToolError("paths must be a non-empty list of path strings")
    folder = args.get("artefacts")
    if folder is not None and (not isinstance(folder, str) or not os.path.isdir(folder)):
        raise ToolError("artefacts must name a folder")
    results = checks.run(paths, CheckContext(artefacts=folder))
    return {"results": [r.to_dict() for r in results], "exit_code": checks.exit_code(results)}


_DISPATCH: dict[str, Callable[[dict], dict]] = {
    "continuity_snapshot": _tool_continuity_snapshot,
    "verify_continuation": _tool_verify_continuation,
    "diff_seals": _tool_diff_seals,
    "drop_receipt": _tool_drop_receipt,
    "verify_ledger": _tool_verify_ledger,
    "check": _tool_check,
}


def _dispatch(mid: Any, name: Any, args: dict) -> dict:
    fn = _DISPATCH.get(name) if isinstance(name, str) else None
    if fn is None:
        return _tool_error(mid, f"unknown tool {name}")
    try:
        return _result(mid, _text(fn(args)))
    except Exception as e:  # noqa: BLE001 - one bad call never stops the server
        return _tool_error(mid, str(e))


# --------------------------------------------------------------------------- call record


def call_record_path() -> str:
    """`$SEALSCOPE_CALL_RECORD`, else `$ARCAEON_CALL_RECORD`, else the default name."""
    return (
        os.environ.get("SEALSCOPE_CALL_RECORD")
        or os.environ.get("ARCAEON_CALL_RECORD")
        or DEFAULT_CALL_RECORD
    )


def _record(tool: Any, args: dict, reply: dict) -> str:
    """Append the call's row: op, tool, ts, args_digest (sha256 of the sorted compact
    ASCII dump), args (null when that dump is over 4096 chars), args_bytes, ok,
    and the error text (at most 2000 chars) on failure."""
    from sealscope.core import ledger

    ok = not reply["result"].get("isError")
    # a digest, not output: the args dump the call-record rule hashes (core/checks/call_record)
    raw = json.dumps(args, sort_keys=True, separators=(",", ":"), default=str)
    row: dict[str, Any] = {
        "op": "tool_call",
        "tool": tool,
        "ts": datetime.now(timezone.utc).isoformat(),
        "args_digest": hashlib.sha256(raw.encode("utf-8")).hexdigest(),
        "args": args if len(raw) <= ARGS_INLINE_MAX else None,
        "args_bytes": len(raw),
        "ok": bool(ok),
    }
    if not ok:
        try:
            err = json.loads(reply["result"]["content"][0]["text"]).get("error")
        except (ValueError, KeyError, IndexError, AttributeError, TypeError):
            err = "error"
        row["error"] = str(err)[:ERROR_RECORD_MAX]
    try:
        where = _safe_path(call_record_path(), "call record")
    except ToolError as e:
        raise OSError(str(e)) from None
    return ledger.append(where, row)


# --------------------------------------------------------------------------- protocol


def handle(msg: Any) -> dict | None:
    """The reply to one parsed message, or None for a notification."""
    if not isinstance(msg, dict):
        return _error(None, -32600, "invalid request: not a JSON-RPC object")
    mid, method = msg.get("id"), msg.get("method")
    if mid is None:
        return None
    if method == "initialize":
        from sealscope.core.version import __version__

        return _result(
            mid,
            {
                "protocolVersion": PROTOCOL_VERSION,
                "capabilities": {"tools": {}},
                "serverInfo": {"name": SERVER_NAME, "version": __version__},
            },
        )
    if method == "tools/list":
        return _result(mid, {"tools": TOOLS})
    if method == "tools/call":
        params = msg.get("params") or {}
        if not isinstance(params, dict):
            return _error(mid, -32602, "invalid params: must be an object")
        name = params.get("name")
        args = params.get("arguments") or {}
        if not isinstance(args, dict):
            return _error(mid, -32602, "invalid params: arguments must be an object")
        reply = _dispatch(mid, name, args)
        try:
            _record(name, args, reply)
        except Exception as e:  # noqa: BLE001 - an unrecorded call is not answered as done
            return _tool_error(mid, f"tool ran but its call record could not be written: {e}")
        return reply
    return _error(mid, -32601, f"method not found: {method}")


def handle_line(line: str) -> str | None:
    """The reply line (without newline) for one input line, or None."""
    line = line.strip()
    if not line:
        return None
    try:
        msg = json.loads(line)
    except (ValueError, RecursionError) as e:
        detail, data = _clip(str(e))
        return dumps_output(_error(None, -32700, f"parse error: {detail}", data), ensure_ascii=True)
    reply = handle(msg)
    return None if reply is None else dumps_output(reply, ensure_ascii=True)


_LINE_ENDS = re.compile(r"\r\n|\r|\n")


class _TooLarge(str):
    """Stands in for a message over MAX_MESSAGE bytes (skipped, never held)."""


def _chunks(source: Any) -> Iterable[Any]:
    """The stream's lines, each at most MAX_MESSAGE (+1) long; a longer line is read
    to its end in bounded pieces and stands as one `_TooLarge`."""
    readline = getattr(source, "readline", None)
    if readline is None:
        yield from source
        return
    while True:
        chunk = readline(MAX_MESSAGE + 1)
        if not chunk:
            return
        nl = b"\n" if isinstance(chunk, (bytes, bytearray)) else "\n"
        if len(chunk) > MAX_MESSAGE and not chunk.endswith(nl):
            while True:
                more = readline(1 << 20)
                if not more or more.endswith(nl):
                    break
            yield _TooLarge()
            continue
        yield chunk


def _lines(stdin: Any) -> Iterable[str]:
    """Input lines: UTF-8 with bad bytes replaced, split on LF, CR and CRLF; a line
    over MAX_MESSAGE bytes is one `_TooLarge`."""
    source = getattr(stdin, "buffer", stdin)
    for chunk in _chunks(source):
        if isinstance(chunk, _TooLarge):
            yield chunk
            continue
        if isinstance(chunk, (bytes, bytearray)):
            chunk = bytes(chunk).decode("utf-8", "replace")
        yield from _LINE_ENDS.split(chunk)


def serve(stdin: Any, stdout: Any) -> int:
    """Answer messages from `stdin` on `stdout`, one line each, until end of input."""
    for line in _lines(stdin):
        if isinstance(line, _TooLarge):
            out: str | None = dumps_output(
                _error(
                    None,
                    -32600,
                    f"invalid request: message larger than {MAX_MESSAGE >> 20} MiB, not read",
                ),
                ensure_ascii=True,
            )
        else:
            out = handle_line(line)
        if out is None:
            continue
        text = out + "\n"
        try:
            stdout.write(text)
        except TypeError:  # a binary stream
            stdout.write(text.encode("ascii"))
        stdout.flush()
    return verdict.HELD
