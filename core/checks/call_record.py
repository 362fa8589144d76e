"""Call records (`call-record`, KINDS.md §7): the MCP servers' `*.calls.jsonl`, one
hash-chained row per `tools/call`, and the `call-args` check of every call row.

The file check is the reference's call-record verifier (quirk 48: not the ledger's
walk): the file read as text — UTF-8 with `surrogatepass`, universal newlines, so LF,
CRLF and a lone CR all end a line — walking the ledger chain from `genesis`, blank
lines skipped; a line that does not parse stops it (`unparseable line`), a row that is
not an object or whose `chain` is not the link from the previous one stops it (`chain
mismatch`, so an unchained first row breaks too). Bytes that are not UTF-8 make the
reference raise `UnicodeDecodeError`: COULD NOT LOOK, `detail.error` naming it. A chain
that held over no row at all has nothing to vouch for (COULD NOT LOOK).

A call row's `args_digest` is the sha256 hex of `json.dumps(args, sort_keys=True,
separators=(",", ":"), default=str)` — ASCII-escaped, not json-c14n (quirk 49) — and
`args_bytes` that dump's length in characters. With `args` inline both must reproduce
(`match` VERIFIED, else `mismatch` BROKEN); `args` null or absent (the writer leaves
out a dump over 4096 characters) is `not_inline`, COULD NOT LOOK.

**One verdict everywhere** (`own_check`, `opened_outcome`): a frontend that opens a
call record as a ledger (the viewer's tab, its report) shows the ledger view — rows,
breaks, row checks — but judges the file by this check, never by the ledger walk,
which can answer otherwise (quirk 48: an unchained first row is prechain there, a
byte that is not UTF-8 an unparseable line). So `check`, `export`, `fleet` and the
tab say one word, and the tab names the rule that judged it (`JUDGED_BY`).
"""

from __future__ import annotations

import hashlib
import io
import json
from typing import Any

from sealscope.core import bound_reads as _bound
from sealscope.core import lines as _lines
from sealscope.core import verdict as _verdict
from sealscope.core.checks.result import CheckContext, KindCheck
from sealscope.core.ledger import GENESIS, link

__all__ = [
    "verify_call_record",
    "args_digest",
    "is_call_row",
    "row_entry",
    "check",
    "own_check",
    "opened_outcome",
    "JUDGED_BY",
]

KIND = "call-record"
#: what a frontend says beside a call record's verdict: the rule that judged it
JUDGED_BY = "judged as a call record (KINDS.md §7.2), not by the ledger walk"


def verify_call_record(path: str) -> dict[str, Any]:
    """`{"ok", "rows", "first_break", "note"}` of a call-record file (rules in the
    module docstring). Raises UnicodeDecodeError on bytes that are not UTF-8, OSError
    when the file cannot be read."""
    raw = _lines.open_regular(path)
    src = _bound.HashingReader(raw) if _bound.active() else raw
    with io.TextIOWrapper(src, encoding="utf-8", errors="surrogatepass") as fh:
        res = _chained(fh)
        if isinstance(src, _bound.HashingReader):
            _bound.note(path, src.finish())
    return res


def _chained(fh: Any) -> dict[str, Any]:
    """The call-record chain of the text lines of `fh` (the module docstring's rule)."""
    prev: Any = GENESIS
    rows = 0
    for n, line in enumerate(fh, 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except ValueError:  # RecursionError propagates: the reference raises it too
            return {"ok": False, "rows": rows, "first_break": n, "note": "unparseable line"}
        if not isinstance(row, dict) or row.get("chain") != link(prev, row):
            return {"ok": False, "rows": rows, "first_break": n, "note": "chain mismatch"}
        prev = row["chain"]
        rows += 1
    return {"ok": True, "rows": rows, "first_break": None, "note": None}


def args_digest(args: Any) -> tuple[str, int]:
    """(sha256 hex, character count) of the writer's args dump."""
    dump = json.dumps(args, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(dump.encode("utf-8", "surrogatepass")).hexdigest(), len(dump)


def is_call_row(row: Any) -> bool:
    """An object row with `op` `tool_call` and a key `args_digest`."""
    return isinstance(row, dict) and row.get("op") == "tool_call" and "args_digest" in row


def row_entry(line: int, row: dict[str, Any]) -> dict[str, Any]:
    """The `call-args` entry of one call row (KINDS.md §7.3)."""
    args = row.get("args")
    base = {"line": line, "check": "call-args", "tool": row.get("tool")}
    if args is None:
        return {**base, "ok": None, "verdict": _verdict.COULD_NOT_LOOK, "args": "not_inline"}
    try:
        digest, size = args_digest(args)
    except (ValueError, TypeError, RecursionError):
        digest, size = None, None
    ok = (
        digest is not None
        and digest == row.get("args_digest")
        and type(row.get("args_bytes")) is int
        and size == row.get("args_bytes")
    )
    return {
        **base,
        "ok": ok,
        "verdict": _verdict.VERIFIED if ok else _verdict.BROKEN,
        "args": "match" if ok else "mismatch",
    }


def check(path: str, ctx: CheckContext) -> KindCheck:
    """Check a call record (KINDS.md §7.4)."""
    from sealscope.core.checks.ledger_rows import OWN_VERDICT, rows_checked

    try:
        rec = verify_call_record(path)
    except UnicodeDecodeError:
        return KindCheck(
            path,
            KIND,
            None,
            {"error": "UnicodeDecodeError"},
            reason="not UTF-8 (the reference's call-record verifier raises UnicodeDecodeError)",
        )
    except OSError as e:
        return KindCheck(
            path,
            None,
            None,
            {"reason_word": "unreadable"},
            reason=f"cannot read {path}: {e.strerror or e}",
        )
    entries = rows_checked(path, ctx, calls_only=True)
    if rec["ok"] is False:
        chain_word = _verdict.BROKEN
    elif rec["ok"] and rec["rows"]:
        chain_word = _verdict.VERIFIED
    else:
        chain_word = _verdict.COULD_NOT_LOOK
    word = _verdict.worst_word([chain_word, *(e["verdict"] for e in entries)])
    if rec["ok"] is False:
        reason = f"line {rec['first_break']}: {rec['note']}"
    elif not rec["rows"]:
        reason = "no call rows"
    else:
        reason = _entries_reason(entries) or f"{rec['rows']} call row(s) chained"
    return KindCheck(
        path,
        KIND,
        rec["ok"],
        {"call_record": rec, "rows_checked": entries, OWN_VERDICT: chain_word},
        word=word,
        reason=reason,
    )


def _entries_reason(entries: list[dict[str, Any]]) -> str:
    bad = [e for e in entries if e["verdict"] != _verdict.VERIFIED]
    if not bad:
        return ""
    e = bad[0]
    return f"line {e['line']}: args {e['args']}" + (
        f" (+{len(bad) - 1} more)" if len(bad) > 1 else ""
    )


def own_check(path: str, ctx: CheckContext | None = None) -> KindCheck | None:
    """`check`'s result for `path` when the classifier calls it a call record
    (`kinds.identify`), else None: the file's own verdict for a frontend that opens it
    as a ledger (module docstring). Never raises."""
    from sealscope.core import kinds
    from sealscope.core.checks import check_path

    found = kinds.identify(path)
    if found.kind != KIND:
        return None
    return check_path(found, ctx or CheckContext())


def opened_outcome(
    call_record: bool, own: KindCheck | None, ledger: _verdict.Outcome | None
) -> _verdict.Outcome | None:
    """The own verdict of a file opened as a ledger: a call record's is its
    call-record check's (`own`; None until it is in), any other file's the ledger
    walk's (`ledger`, from `verdict.ledger`; None until verified)."""
    if call_record:
        return None if own is None or ledger is None else own.outcome()
    return ledger
