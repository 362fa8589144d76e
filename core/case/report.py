"""The working papers: a case as one report (JSON or Markdown), bound to its head.

`build(read)` is the report as a value: the case (path, title, who opened it, its own
verdict), its head (`rows`, last `chain`, the SHA-256 of the bytes read, and the head
as an `arcaeon-ledger head` pin line, `as_of` the last row's `ts`, so the report can be
pinned), the findings (open first, then resolved, each in case order), every evidence
file with its hash, every check with its inputs and word, every note and sign-off.
`markdown(doc)` renders it; every string from the case goes through `md_text` /
`md_code` (sanitized, Markdown-escaped). `dumps_output` is the one strict JSON writer
of the case's outputs (no NaN; every string made safe by `sanitize.safe_json`).
"""

from __future__ import annotations

from typing import Any

from sealscope.core.case.rows import OPEN, CaseEntry, findings_of, is_resolution
from sealscope.core.case.store import CaseRead
from sealscope.core.export.markdown import md_code, md_text
from sealscope.core.jsonio import dumps_output

__all__ = ["build", "markdown", "dumps_output", "REPORT_FORMAT"]

REPORT_FORMAT = "sealscope-case-report/1"


def _anchor(on: Any) -> dict[str, Any] | None:
    return on if isinstance(on, dict) else None


def _finding(f: Any) -> dict[str, Any]:
    e: CaseEntry = f.entry
    return {
        "id": f.id,
        "line": e.line,
        "severity": f.severity,
        "status": f.status,
        "text": e.text,
        "on": _anchor(e.get("on")),
        "by": e.get("by"),
        "ts": e.get("ts"),
        "resolutions": [
            {"line": r.line, "text": r.text, "by": r.get("by"), "ts": r.get("ts")}
            for r in f.resolutions
        ],
    }


def _pin_line(read: CaseRead) -> str | None:
    if read.head_chain is None or not read.entries:
        return None
    as_of = read.entries[-1].get("ts")
    return f"arcaeon-ledger head chain={read.head_chain} rows={read.head_rows} as_of={as_of}"


def build(read: CaseRead) -> dict[str, Any]:
    """The report of `read` (see the module docstring)."""
    entries = list(read.entries)
    opened = next((e for e in entries if e.entry == "opened"), None)
    findings = findings_of(entries)
    ordered = [f for f in findings if f.status == OPEN] + [f for f in findings if f.status != OPEN]
    return {
        "format": REPORT_FORMAT,
        "case": {
            "path": read.path,
            "title": opened.get("title") if opened else None,
            "opened_by": opened.get("by") if opened else None,
            "opened": opened.get("ts") if opened else None,
            "verdict": read.verdict,
            "reason": read.reason(),
            "entries": len(entries),
            "open_findings": sum(1 for f in findings if f.status == OPEN),
        },
        "head": {
            "rows": read.head_rows,
            "chain": read.head_chain,
            "sha256": read.sha256,
            "pin": _pin_line(read),
        },
        "findings": [_finding(f) for f in ordered],
        "evidence": [
            {k: e.get(k) for k in ("path", "resolved", "sha256", "bytes", "kind", "head", "ts")}
            | {"line": e.line}
            for e in entries
            if e.entry == "evidence"
        ],
        "checks": [
            {
                "line": e.line,
                **{
                    k: e.get(k)
                    for k in (
                        "check",
                        "inputs",
                        "args",
                        "verdict",
                        "exit_code",
                        "bound",
                        "reason",
                        "sealscope",
                        "result_sha256",
                        "ts",
                    )
                },
            }
            for e in entries
            if e.entry == "check"
        ],
        "notes": [
            {
                "line": e.line,
                "text": e.text,
                "on": _anchor(e.get("on")),
                "by": e.get("by"),
                "ts": e.get("ts"),
            }
            for e in entries
            if e.entry == "note"
        ],
        "signoffs": [
            {"line": e.line, "by": e.get("by"), "statement": e.text, "ts": e.get("ts")}
            for e in entries
            if e.entry == "signoff"
        ],
        "unresolvable": [
            e.line
            for e in entries
            if is_resolution(e) and not any(e in f.resolutions for f in findings)
        ],
    }


def _on(on: dict[str, Any] | None) -> str:
    if not on:
        return ""
    where = md_code(on.get("path"))
    for key in ("line", "item", "member"):
        if on.get(key) is not None:
            where += f" {key} {md_code(on.get(key))}"
    return f" (on {where}, sha256 {md_code(str(on.get('sha256'))[:16])}…)"


def _cell(value: Any) -> str:
    return md_code(value, in_table=True)


def markdown(doc: dict[str, Any]) -> str:
    """The report as Markdown (every case string sanitized and escaped)."""
    case, head = doc["case"], doc["head"]
    out = [
        f"# Working papers: {md_text(case['title'] or case['path'])}",
        "",
        f"- case: {md_code(case['path'])} — **{case['verdict']}**"
        + (f" ({md_text(case['reason'])})" if case["reason"] else ""),
        f"- opened {md_code(case['opened'])} by {md_code(case['opened_by'])}",
        (
            f"- bound to the case's head: rows {head['rows']}, chain {md_code(head['chain'])}, "
            f"sha256 {md_code(head['sha256'])}"
        ),
        f"- pin: {md_code(head['pin'])}",
        f"- {case['entries']} entries, {case['open_findings']} open findings",
        "",
        "## Findings",
        "",
    ]
    for f in doc["findings"]:
        out.append(
            f"- **{md_text(f['id'])}** {md_text(f['severity'])} · {md_text(f['status'])} "
            f"(line {f['line']}): {md_text(f['text'])}{_on(f['on'])}"
        )
        for r in f["resolutions"]:
            out.append(
                f"  - resolved (line {r['line']}) by {md_code(r['by'])}: {md_text(r['text'])}"
            )
    if not doc["findings"]:
        out.append("*(none)*")
    out += [
        "",
        "## Evidence",
        "",
        "| line | path | sha256 | bytes | kind | head |",
        "|---|---|---|---|---|---|",
    ]
    for e in doc["evidence"]:
        h = e["head"] if isinstance(e["head"], dict) else None
        shown = f"rows {_cell(h.get('rows'))} chain {_cell(h.get('chain'))}" if h else ""
        out.append(
            f"| {e['line']} | {_cell(e['path'])} | {_cell(e['sha256'])} "
            f"| {_cell(e['bytes'])} | {_cell(e['kind'])} | {shown} |"
        )
    out += [
        "",
        "## Checks",
        "",
        "| line | check | inputs | word | bound | reason |",
        "|---|---|---|---|---|---|",
    ]
    for c in doc["checks"]:
        inputs = c["inputs"] if isinstance(c["inputs"], list) else []
        shown = "<br>".join(
            f"{md_text(i.get('role'))} {md_code(i.get('path'), in_table=True)} "
            f"{md_code(str(i.get('sha256'))[:16], in_table=True)}…"
            for i in inputs
            if isinstance(i, dict)
        )
        out.append(
            f"| {c['line']} | {md_code(c['check'], in_table=True)} | {shown} "
            f"| {md_code(c['verdict'], in_table=True)} | {md_code(c['bound'], in_table=True)} "
            f"| {md_code(c['reason'], in_table=True)} |"
        )
    out += ["", "## Notes", ""]
    for n in doc["notes"]:
        out.append(f"- line {n['line']}: {md_text(n['text'])}{_on(n['on'])}")
    if not doc["notes"]:
        out.append("*(none)*")
    out += ["", "## Sign-offs", ""]
    for s in doc["signoffs"]:
        out.append(f"- {md_code(s['by'])} ({md_code(s['ts'])}): {md_text(s['statement'])}")
    if not doc["signoffs"]:
        out.append("*(none)*")
    return "\n".join(out) + "\n"
