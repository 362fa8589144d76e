"""Agent-audit-trail exports (`aat-export`, KINDS.md §10): the export's own chain,
over line bytes, and its head.

An AAT export is one JCS line per record, LF after each. Its chain is not the ledger
chain (the `chain` values a record carries are its source row's, computed over the
ledger row, so `verify` calls every line a mismatch); it is `prev_hash`: null on line
1, then the lowercase sha256 hex of the previous line's exact bytes. The check, in
order, per line N from 1 (one final LF dropped, the rest split on LF; an empty file
has no lines):

1. strict UTF-8 and a Python parse, else "not JSON";
2. an object, else "not a JSON object";
3. the JCS form of the parsed object equals the line's bytes exactly (a value JCS
   refuses — NaN, ±Infinity, an integer past ±2**53, a lone surrogate — names its
   path);
4. `prev_hash` present and equal to the previous line's hash.

The first failure ends the walk: `ok` false and `line` N. Otherwise `ok` true,
`records` N and `head`, the hash of the last line (null for an empty file). The last
line is protected by nothing but the head (quirk 47): with no pinned head to compare,
an edited last line verifies with a different head. The gaps file beside the export
is not read.

JCS (RFC 8785): no whitespace; object keys sorted by UTF-16 code units; strings
escape `"`, `\\` and U+0000–U+001F only (`\\b \\t \\n \\f \\r`, else `\\u00xx`
lowercase), everything else raw UTF-8; numbers in ECMAScript form.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
from collections.abc import Iterable, Iterator
from typing import IO, Any
from urllib.parse import quote

from sealscope.core import bound_reads as _bound
from sealscope.core import lines as _lines
from sealscope.core.checks.result import CheckContext, KindCheck
from sealscope.core.digest import digest_json

__all__ = [
    "KIND",
    "JcsError",
    "jcs",
    "ecma_number",
    "verify_aat_bytes",
    "record_of",
    "export_lines",
    "drop_refused",
    "check",
    "unit_subjects",
]

KIND = "aat-export"

#: The largest magnitude a JCS integer may have: beyond it a double cannot hold it.
MAX_EXACT_INT = 2**53

_ESCAPES = {
    0x08: "\\b",
    0x09: "\\t",
    0x0A: "\\n",
    0x0C: "\\f",
    0x0D: "\\r",
    0x22: '\\"',
    0x5C: "\\\\",
}


class JcsError(ValueError):
    """A value JCS cannot write exactly at `path` (`$`, `$.key`, `$.key[0]`); the
    message is `<path>: <why>`."""

    def __init__(self, path: str, why: str) -> None:
        super().__init__(f"{path}: {why}")
        self.path = path
        self.why = why


def ecma_number(x: float) -> str:
    """A finite double in ECMAScript Number::toString form: the shortest round-trip
    digits (Python's repr gives them), laid out as ECMA-262 7.1.12.1 does."""
    if not math.isfinite(x):
        raise JcsError("$", "NaN or Infinity is not JSON")
    if x == 0:
        return "0"
    if x < 0:
        return "-" + ecma_number(-x)
    mantissa, _, exp = repr(x).partition("e")
    whole, _, frac = mantissa.partition(".")
    digits = (whole + frac).lstrip("0")
    power = (int(exp) if exp else 0) - len(frac)
    trimmed = digits.rstrip("0")
    power += len(digits) - len(trimmed)
    digits = trimmed
    k = len(digits)
    n = k + power  # the value is 0.<digits> × 10**n
    if k <= n <= 21:
        return digits + "0" * (n - k)
    if 0 < n <= 21:
        return f"{digits[:n]}.{digits[n:]}"
    if -6 < n <= 0:
        return "0." + "0" * -n + digits
    lead = digits[0] + ("." + digits[1:] if k > 1 else "")
    return f"{lead}e{'+' if n > 0 else '-'}{abs(n - 1)}"


#: A string JCS writes as it is: no control character, quote, backslash or surrogate.
_PLAIN = re.compile('[^\x00-\x1f"\\\\\ud800-\udfff]*')


def _string(s: str, path: str, out: list[str]) -> None:
    if _PLAIN.fullmatch(s):  # nothing to escape, no surrogate: the text as it is
        out.append(f'"{s}"')
        return
    out.append('"')
    for ch in s:
        code = ord(ch)
        if 0xD800 <= code <= 0xDFFF:
            raise JcsError(path, f"lone surrogate U+{code:04X} in a string")
        if code in _ESCAPES:
            out.append(_ESCAPES[code])
        elif code < 0x20:
            out.append(f"\\u{code:04x}")
        else:
            out.append(ch)
    out.append('"')


def _emit(v: Any, path: str, out: list[str]) -> None:
    if v is None or v is True or v is False:
        out.append({None: "null", True: "true", False: "false"}[v])
    elif isinstance(v, int):
        if abs(v) > MAX_EXACT_INT:
            raise JcsError(
                path, f"integer {v} is outside +/-2**53 and cannot be a JCS number exactly"
            )
        out.append(str(v))
    elif isinstance(v, float):
        if not math.isfinite(v):
            raise JcsError(path, "NaN or Infinity is not JSON")
        out.append(ecma_number(v))
    elif isinstance(v, str):
        _string(v, path, out)
    elif isinstance(v, list):
        out.append("[")
        for i, item in enumerate(v):
            if i:
                out.append(",")
            _emit(item, f"{path}[{i}]", out)
        out.append("]")
    elif isinstance(v, dict):
        keys = list(v)
        for key in keys:
            if not isinstance(key, str):
                raise JcsError(path, f"object key {key!r} is not a string")
        keys.sort(key=lambda s: s.encode("utf-16-be", "surrogatepass"))
        out.append("{")
        for i, key in enumerate(keys):
            if i:
                out.append(",")
            _string(key, f"{path}.{key}", out)
            out.append(":")
            _emit(v[key], f"{path}.{key}", out)
        out.append("}")
    else:
        raise JcsError(path, f"a {type(v).__name__} is not a JSON value")


def _flat(value: Any, depth: int = 0) -> bool:
    """Whether `value` is an object whose keys are ASCII and whose values are null,
    booleans, integers JCS writes exactly, strings, or (one level down) such objects:
    for these, Python's own compact sorted JSON is the JCS form (ASCII keys sort the
    same by code point and by UTF-16 unit; the escapes are the same) once no string
    holds a surrogate."""
    if not isinstance(value, dict):
        return False
    for k, v in value.items():
        if not isinstance(k, str) or not k.isascii():
            return False
        if v is None or v.__class__ in (str, bool):
            continue
        if v.__class__ is int:
            if abs(v) > MAX_EXACT_INT:
                return False
        elif depth or not _flat(v, 1):
            return False
    return True


_SURROGATE = re.compile("[\ud800-\udfff]")


def jcs(value: Any) -> bytes:
    """The RFC 8785 canonical form of a parsed JSON value, UTF-8. Raises JcsError
    for a value it cannot write exactly. (A flat object, `_flat`, is written by the
    standard encoder; any other value by the rule in the module docstring.)"""
    if _flat(value):
        text = json.dumps(value, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
        if not _SURROGATE.search(text):
            return text.encode("utf-8")
    out: list[str] = []
    _emit(value, "$", out)
    return "".join(out).encode("utf-8")


class LineTooLong(Exception):
    """A line past `LINE_MAX_BYTES`, not read into memory (COULD NOT LOOK `bounded`)."""


#: The longest line held in memory at once.
LINE_MAX_BYTES = 1024**3


def _walk(lines: Iterable[bytes]) -> dict[str, Any]:
    prev: str | None = None
    n = 0
    for n, line in enumerate(lines, start=1):
        try:
            rec = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            return {"ok": False, "line": n, "finding": f"AAT line {n} is not JSON"}
        if not isinstance(rec, dict):
            return {"ok": False, "line": n, "finding": f"AAT line {n} is not a JSON object"}
        try:
            canonical = jcs(rec)
        except JcsError as e:
            return {"ok": False, "line": n, "finding": f"AAT line {n}: {e}"}
        if canonical != line:
            return {"ok": False, "line": n, "finding": f"AAT line {n} is not in its JCS form"}
        if "prev_hash" not in rec or rec["prev_hash"] != prev:
            return {
                "ok": False,
                "line": n,
                "finding": f"the AAT chain breaks at line {n}: prev_hash is not the "
                "hash of the line before it",
            }
        prev = hashlib.sha256(line).hexdigest()
    return {"ok": True, "records": n, "head": prev}


def verify_aat_bytes(raw: bytes) -> dict[str, Any]:
    """The AAT chain of an export's bytes (the module docstring's rule): `{"ok": True,
    "records", "head"}` or `{"ok": False, "line", "finding"}`. Nesting too deep to
    parse raises RecursionError, as the reference's parser does."""
    body = raw[:-1] if raw.endswith(b"\n") else raw
    return _walk(body.split(b"\n") if body else [])


def _file_lines(fh: IO[bytes]) -> Iterator[bytes]:
    """The lines `verify_aat_bytes` splits, read one at a time: each without its LF;
    a file that is exactly one LF has none. Raises LineTooLong past the bound."""
    n = 0
    while True:
        chunk = fh.readline(LINE_MAX_BYTES + 1)
        if not chunk:
            return
        if len(chunk) > LINE_MAX_BYTES:
            raise LineTooLong(f"a line is longer than {LINE_MAX_BYTES} bytes")
        n += 1
        if n == 1 and chunk == b"\n":
            following = fh.readline(LINE_MAX_BYTES + 1)
            if not following:
                return  # the whole file is one LF: no lines
            yield b""
            chunk = following
            if len(chunk) > LINE_MAX_BYTES:
                raise LineTooLong(f"a line is longer than {LINE_MAX_BYTES} bytes")
        yield chunk[:-1] if chunk.endswith(b"\n") else chunk


def verify_aat_file(fh: IO[bytes]) -> dict[str, Any]:
    """`verify_aat_bytes` over an open file, streamed line by line (memory bounded by
    the longest line)."""
    return _walk(_file_lines(fh))


# ------------------------------------------------------------------- the export rule

_LIFECYCLE = frozenset(
    {"session_begin", "session_end", "mcp_initialize", "tools_list", "system_start", "system_stop"}
)
_DECISION = frozenset(
    {"decision", "mandate_outside", "mandate_could_not_look", "mandate_cap_exceeded"}
)


def _action_type(row: dict[str, Any]) -> str | None:
    if row.get("record_error"):
        return "error"
    kind = row.get("evt") or row.get("event")
    if kind == "tool_call":
        return "tool_call"
    if kind in _DECISION:
        return "decision"
    if kind in _LIFECYCLE:
        return "lifecycle"
    return None


def record_of(row: dict[str, Any], line: int) -> dict[str, Any]:
    """The AAT record a ledger row exports to (KINDS.md §10.1): only what the row
    holds, nothing guessed. `timestamp` ← `ts`; `agent_id` ← `urn:arcaeon:agent:` +
    the percent-encoded non-empty `agent`, else `system_id`; `session_id` ←
    `session`; `action_type` (`error` for a `record_error` row, else by `evt`/`event`:
    tool_call, decision, lifecycle); `action_detail` {`tool_name` ← `tool`,
    `parameters_hash` ← `args_digest`}; `response_hash` ← `result_digest`;
    `input_hash`/`output_hash` the json-c14n digests of `inputs`/`outputs`;
    `outcome` (`denied` for an enforced block, else `status` ok/error as
    success/failure); `sequence_number` ← an integer `seq`; `recording_component`
    for proxy rows (`seam`, `seam_impl`); `chain` and `source_line`."""
    out: dict[str, Any] = {}
    if isinstance(row.get("ts"), str):
        out["timestamp"] = row["ts"]
    name = next(
        (row[k] for k in ("agent", "system_id") if isinstance(row.get(k), str) and row[k]), None
    )
    if name is not None:
        out["agent_id"] = "urn:arcaeon:agent:" + quote(name, safe="")
    if isinstance(row.get("session"), str):
        out["session_id"] = row["session"]
    action = _action_type(row)
    if action is not None:
        out["action_type"] = action
    detail = {}
    if isinstance(row.get("tool"), str):
        detail["tool_name"] = row["tool"]
    if isinstance(row.get("args_digest"), str):
        detail["parameters_hash"] = row["args_digest"]
    if detail:
        out["action_detail"] = detail
    if isinstance(row.get("result_digest"), str):
        out["response_hash"] = row["result_digest"]
    for ours, theirs in (("inputs", "input_hash"), ("outputs", "output_hash")):
        if ours in row:
            try:
                out[theirs] = digest_json(row[ours])
            except (ValueError, TypeError, RecursionError):
                pass
    if row.get("action") == "blocked" and row.get("mandate_mode") == "enforce":
        out["outcome"] = "denied"
    elif isinstance(row.get("status"), str) and row["status"] in ("ok", "error"):
        out["outcome"] = {"ok": "success", "error": "failure"}[row["status"]]
    if isinstance(row.get("seq"), int) and not isinstance(row.get("seq"), bool):
        out["sequence_number"] = row["seq"]
    if isinstance(row.get("seam"), str):
        impl = row.get("seam_impl")
        out["recording_component"] = f"arcaeon proxy ({row['seam']}" + (
            f", {impl})" if isinstance(impl, str) else ")"
        )
    if isinstance(row.get("chain"), str):
        out["chain"] = row["chain"]
    out["source_line"] = line
    return out


def drop_refused(rec: dict[str, Any], path: str) -> str:
    """Leave out the value JCS refused at `path` (an emptied object goes with it);
    returns the record's top-level field it was in."""
    keys = path[2:].split(".") if path.startswith("$.") else []
    top = keys[0].split("[", 1)[0] if keys else ""
    if not top or top not in rec:
        raise ValueError(f"cannot place {path!r} in the record")
    parent, key = rec, top
    for k in keys[1:]:
        nxt = parent.get(key)
        if not isinstance(nxt, dict) or "[" in k or k not in nxt:
            break
        parent, key = nxt, k
    parent.pop(key, None)
    if isinstance(rec.get(top), dict) and not rec[top]:
        rec.pop(top)
    return top


def export_lines(ledger_lines: list[bytes]) -> tuple[list[bytes], str | None]:
    """The AAT export of a ledger's lines (split on LF): one record per line that
    parses (strict UTF-8, Python parse) as an object, chained by `prev_hash`, each
    value JCS refuses left out. Returns (JCS lines, head)."""
    out: list[bytes] = []
    prev: str | None = None
    for n, line in enumerate(ledger_lines, start=1):
        try:
            row = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            continue
        if not isinstance(row, dict):
            continue
        rec = record_of(row, n)
        rec["prev_hash"] = prev
        while True:
            try:
                b = jcs(rec)
                break
            except JcsError as e:
                drop_refused(rec, e.path)
        out.append(b)
        prev = hashlib.sha256(b).hexdigest()
    return out, prev


def check(path: str, ctx: CheckContext) -> KindCheck:
    """`sealscope check` of an AAT export: `detail` holds `records` and `head` (ok) or
    `line` and `finding` (not ok); `ok` is the chain's. A file that cannot be read, or
    nesting past the parser's depth (the reference raises there), could not look."""
    del ctx
    try:
        with _lines.open_regular(path) as fh:
            src: Any = _bound.HashingReader(fh) if _bound.active() else fh
            res = verify_aat_file(src)
            if isinstance(src, _bound.HashingReader):
                _bound.note(path, src.finish())
    except OSError as e:
        return KindCheck(
            path=path,
            kind=KIND,
            ok=None,
            detail={"reason_word": "unreadable", "error": type(e).__name__},
            reason=str(e),
        )
    except LineTooLong as e:
        return KindCheck(
            path=path,
            kind=KIND,
            ok=None,
            detail={"reason_word": "bounded"},
            reason=f"{e}: past sealscope's bound, not read",
        )
    except RecursionError:
        return KindCheck(
            path=path,
            kind=KIND,
            ok=None,
            detail={"error": "RecursionError"},
            reason="a line nests deeper than the parser reads",
        )
    ok = bool(res.pop("ok"))
    bound = "" if not ok else "last line protected only by the head"
    return KindCheck(
        path=path, kind=KIND, ok=ok, detail=res, bound=bound, reason=str(res.get("finding", ""))
    )


def unit_subjects(path: str) -> list[tuple[str, str]]:
    """The VSA subject of an AAT export: the file itself, `(name, sha256)`. Raises
    OSError when it cannot be read."""
    h = hashlib.sha256()
    with _lines.open_regular(path) as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return [(os.path.basename(path), h.hexdigest())]
