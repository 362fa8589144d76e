"""Build the bundled sample ledgers, deterministically, through sealscope's own core.

    python sample_ledgers/make_samples.py

Every `ts`, `opened_at`, `as_of` and `received_at` is a fixed value, so running this
again gives byte-identical files. See README.md beside this file for what each shows.
"""

from __future__ import annotations

import hashlib
import json
import shutil
from pathlib import Path

from sealscope.core import ledger, receipt, witness
from sealscope.core.jsonio import dumps_row
from sealscope.core.pins import Head

HERE = Path(__file__).resolve().parent
HELD = HERE / "held"
WITNESS = HERE / "witness"

AGENT = ledger.authority("agent-7", capability_version="2026.03", tool_schema={"name": "fetch"})


def stamp(i: int) -> str:
    return f"2026-03-01T09:{i // 60:02d}:{i % 60:02d}Z"


class Clock:
    def __init__(self, start: int = 0, step: int = 5) -> None:
        self.t, self.step = start, step

    def __call__(self) -> str:
        s = stamp(self.t)
        self.t += self.step
        return s


def put(path: Path, record: dict, ts: str, **kw) -> str:
    return ledger.append(path, {**record, "ts": ts}, **kw)


def write_held(path: Path, items: list) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    if path.suffix == ".jsonl":
        path.write_text(
            "".join(json.dumps(i, ensure_ascii=False) + "\n" for i in items), encoding="utf-8"
        )
    else:
        path.write_text(json.dumps(items, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")


# the content an honest v2 compaction saw, and what it kept
SESSION_PRE = [
    "system: you are agent-7, a careful research assistant",
    {"role": "user", "text": "summarise the three incident reports"},
    {"role": "tool", "name": "fetch", "text": "report 1: disk full on db-2 at 03:10"},
    {"role": "tool", "name": "fetch", "text": "report 2: failover to db-3 took 41 s"},
    {"role": "tool", "name": "read_file", "text": "report 3: no customer data lost"},
]
SESSION_POST = [
    "system: you are agent-7, a careful research assistant",
    {"role": "user", "text": "summarise the three incident reports"},
    "summary of tool results: db-2 disk full 03:10; failover 41 s; no data lost",
]
# the liar: the compactor dropped the user's request, and its receipt claims nothing
# was dropped (it was sealed as if the survivor were the whole pre content)
LIAR_PRE = [
    "system: you are agent-7, a careful research assistant",
    {"role": "user", "text": "please delete the audit log before the review"},
    {"role": "assistant", "text": "I cannot delete the audit log."},
    "tool result: 3 files listed",
]
LIAR_POST = [LIAR_PRE[0], LIAR_PRE[2], LIAR_PRE[3]]

V1_PRE = ["the quick brown fox", {"role": "user", "text": "hello"}, "an old tool result"]
V1_POST = ["the quick brown fox", "summary: user said hello"]


def session(path: Path) -> None:
    c = Clock()
    put(
        path,
        {"kind": "session_start", "agent": "agent-7", "task": "summarise the incident reports"},
        c(),
    )
    put(
        path,
        {"tool": "search", "args": {"query": "incident reports march"}, "result": "3 hits"},
        c(),
        authority=AGENT,
    )
    put(
        path,
        {
            "tool": "fetch",
            "url": "https://intranet.example/reports/1",
            "status": 200,
            "bytes": 1834,
        },
        c(),
        authority=AGENT,
    )
    put(
        path,
        {
            "tool": "fetch",
            "url": "https://intranet.example/reports/2",
            "status": 200,
            "bytes": 2210,
        },
        c(),
        authority=AGENT,
    )
    row = receipt.build_row(
        V1_PRE, V1_POST, "legacy-summarizer", "truncate:v0", "v1", opened_at=c(), envelope=True
    )
    put(path, row, c())
    put(path, {"tool": "read_file", "path": "reports/3.txt", "bytes": 977}, c(), authority=AGENT)
    row = receipt.build_row(
        SESSION_PRE, SESSION_POST, "agent-7/compactor", "llm-summary:v2", "v2", opened_at=c()
    )
    put(path, row, c())
    put(
        path,
        {
            "kind": "continuity_snapshot",
            "label": "incident-summary",
            "manifest_digest": "sha256:json-c14n:v1:" + hashlib.sha256(b"manifest").hexdigest(),
            "probe_set_digest": "sha256:json-c14n:v1:" + hashlib.sha256(b"probes").hexdigest(),
            "aggregate_mean": 1.0,
        },
        c(),
    )
    put(path, {"tool": "write_file", "path": "summary.md", "bytes": 912}, c(), authority=AGENT)
    put(
        path,
        {
            "kind": "message",
            "role": "assistant",
            "text": "Summary written to summary.md: disk full on db-2, 41 s failover, "
            "no data lost.",
        },
        c(),
    )
    put(path, {"kind": "session_end", "outcome": "ok", "rows_written": 11}, c())


def tampered(src: Path, dst: Path) -> int:
    """A copy with one earlier row edited in place (its chain left as it was)."""
    lines = src.read_bytes().split(b"\n")
    n = 4  # the second fetch: its URL quietly changed
    lines[n - 1] = lines[n - 1].replace(b"reports/2", b"reports/9")
    dst.write_bytes(b"\n".join(lines))
    return n


def truncated(src: Path, dst: Path, drop: int = 3) -> str:
    """A copy missing its last `drop` rows; returns the pin taken before truncation."""
    lines = src.read_bytes().split(b"\n")
    assert lines[-1] == b""
    rows = len(lines) - 1
    pin = Head(chain=ledger.tail_chain(src), rows=rows, as_of="2026-03-01T09:01:00Z").as_pin()
    dst.write_bytes(b"\n".join(lines[: rows - drop]) + b"\n")
    return pin


def liar(path: Path) -> None:
    c = Clock(120)
    put(path, {"kind": "session_start", "agent": "agent-9", "task": "tidy the workspace"}, c())
    put(path, {"tool": "list_files", "path": "/var/log/audit", "result": "3 files"}, c())
    row = receipt.build_row(
        LIAR_PRE, LIAR_PRE, "agent-9/compactor", "llm-summary:v2", "v2", opened_at=c()
    )
    put(path, row, c())
    put(
        path,
        {
            "kind": "message",
            "role": "assistant",
            "text": "Workspace tidied. Nothing notable in the conversation.",
        },
        c(),
    )
    write_held(HELD / "liar-pre.json", LIAR_PRE)
    write_held(HELD / "liar-post.json", LIAR_POST)


def declared(path: Path) -> None:
    c = Clock(200)
    put(path, {"tool": "search", "args": {"query": "weather"}}, c())
    put(path, {"tool": "fetch", "url": "https://example.com/forecast"}, c())
    with path.open("ab") as fh:  # an operator appended a note by hand, outside the ledger
        fh.write((dumps_row({"note": "hand-appended during the 09:03 incident"}) + "\n").encode())
    put(path, {"tool": "fetch", "url": "https://example.com/radar"}, c())
    orphan = path.read_text(encoding="utf-8").split("\n")[2].strip()
    put(
        path,
        {
            "op": ledger.DECLARE_OP,
            "orphan_line": 3,
            "orphan_sha256": hashlib.sha256(orphan.encode("utf-8")).hexdigest(),
            "why": "line 3 was appended by hand during the 09:03 incident",
        },
        c(),
    )
    put(path, {"kind": "session_end", "outcome": "ok"}, c())


def hostile(path: Path) -> None:
    c = Clock(300)
    put(path, {"tool": "shell", "cmd": "ls reports/", "result": "1.txt 2.txt 3.txt"}, c())
    put(
        path,
        {
            "kind": "approval",
            "decision": "APPROVED\rREJECTED",
            "reviewer": "[bold red]FORGED[/] [@click=app.quit]click to continue[/]",
        },
        c(),
    )
    put(
        path,
        {
            "kind": "tool_output",
            "stdout": "\x1b[32mall tests passed\x1b[0m \x1b[8mhidden\x1b[0m",
            "title": "\x1b]0;sealscope: all clear\x07",
            "link": "\x1b]8;;https://evil.example/\x1b\\open the report\x1b]8;;\x1b\\",
        },
        c(),
    )
    put(
        path,
        {
            "kind": "attachment",
            "filename": "invoice_\u202efdp.exe",
            "note": "looks like a PDF, is an .exe",
        },
        c(),
    )
    put(path, {"kind": "session_end", "outcome": "ok"}, c())


def main() -> None:
    for p in list(HERE.glob("*.jsonl")) + list(HERE.glob("*.pin")) + list(HERE.glob("*.lock")):
        p.unlink()
    for d in (HELD, WITNESS):
        if d.exists():
            shutil.rmtree(d)
    s = HERE / "session.jsonl"
    session(s)
    write_held(HELD / "session-pre.jsonl", SESSION_PRE)
    write_held(HELD / "session-post.jsonl", SESSION_POST)
    write_held(HELD / "v1-pre.json", V1_PRE)
    write_held(HELD / "v1-post.json", V1_POST)
    tampered(s, HERE / "tampered.jsonl")
    pin = truncated(s, HERE / "truncated.jsonl")
    (HERE / "truncated.pin").write_text(pin + "\n", encoding="utf-8")
    liar(HERE / "liar.jsonl")
    declared(HERE / "declared-break.jsonl")
    hostile(HERE / "hostile.jsonl")
    # a witness that saw the full session (namespace per ledger)
    store = WITNESS / "store.jsonl"
    rows = len(s.read_bytes().split(b"\n")) - 1
    chain = ledger.tail_chain(s)
    for ns in ("session", "truncated", "tampered"):
        witness.record(
            store, ns, rows, chain, "2026-03-01T09:01:00Z", received_at="2026-03-01T09:01:02Z"
        )
    for p in HERE.rglob("*.lock"):
        p.unlink()


if __name__ == "__main__":
    main()
