"""A kind report (`kind_report.KindReport`) as Markdown.

Laid out as the ledger report is: a head (path, binding, kind, verdict with its bound
beside a VERIFIED, exit code), then the checks in order (a table of check and word,
then each check's fields), a unit's ledger audit and members. Every string from
evidence goes through `markdown.md_code` (values, names, digests) or `md_text`
(prose: reasons, notes, bounds); a nested value is a fenced JSON block
(`markdown._fenced_json`: literal, each line sanitized), so nothing in the evidence
can make HTML, a link or a heading.
"""

from __future__ import annotations

import os
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.export.kind_report import KindReport
from sealscope.core.export.markdown import (
    _bytes,
    _cell,
    _count,
    _fenced_json,
    md_code,
    md_text,
    session_lines,
)
from sealscope.core.registry import is_unit

__all__ = ["render"]


def render(r: KindReport) -> str:
    """The report as Markdown (rules in the module docstring)."""
    out: list[str] = [
        f"# sealscope audit report: {md_code(os.path.basename(r.path))}",
        "",
        f"- path: {md_code(r.path)}",
        *_binding(r),
        f"- kind: {md_code(r.kind) if r.kind else 'none'}",
        *([f"- profile: {md_code(r.profile)}"] if r.profile else []),
        f"- verdict: **{r.verdict}**" + _beside(r),
        (
            f"- exit code: {r.exit_code} (0 held in full, 1 evidence wrong, "
            "3 could not look or bounded)"
        ),
        "",
    ]
    if r.session:
        said = ", ".join(f"{md_text(x.kind)} **{x.word}**" for x in r.session)
        alone = f"- the file alone: **{r.file_verdict}**; with "
        out[-1:-1] = [f"{alone}{_count(len(r.session), 'check')}: {said}"]
    out += _checks(r)
    for rec in r.session:
        out += session_lines([rec])
    if is_unit(r.kind):
        out += _ledger(r.ledger)
    members = (r.evidence or {}).get("members")
    if isinstance(members, list):
        out += _members(members)
    return "\n".join(out).rstrip("\n") + "\n"


def _beside(r: KindReport) -> str:
    """The bound beside a VERIFIED; why beside any other word."""
    if r.exit_code == _verdict.HELD:
        return f" (bounded: {md_text(r.bound)})" if r.bound else ""
    return f" ({md_text(r.reason)})" if r.reason else ""


def _binding(r: KindReport) -> list[str]:
    ev = r.evidence or {}
    out = []
    if ev.get("sha256") is not None:
        what = " (the zip's bytes)" if ev.get("unit") == "zip" else ""
        out.append(f"- sha256: {md_code(ev['sha256'])}, {_bytes(ev.get('bytes'))}{what}")
    elif ev.get("unit") == "folder":
        out.append("- sha256: a folder has no one digest: each member is bound below")
    elif ev:
        out.append(f"- sha256: not read ({md_text(ev.get('error', 'unreadable'))})")
    out.append(f"- generated: {r.generated_at or 'unknown'} by sealscope {r.version or 'unknown'}")
    return out


def _checks(r: KindReport) -> list[str]:
    if not r.checks:
        return []
    out = ["## Checks", "", "| # | check | verdict |", "|---|---|---|"]
    for n, c in enumerate(r.checks, 1):
        out.append(f"| {n} | {_cell(c.get('check'))} | **{md_text(c.get('verdict'))}** |")
    out.append("")
    for n, c in enumerate(r.checks, 1):
        fields = {k: v for k, v in c.items() if k not in ("check", "verdict")}
        out += [f"### {n}. {md_code(c.get('check'))}: **{md_text(c.get('verdict'))}**", ""]
        out += _fields(fields) or ["- (no fields)"]
        out.append("")
    return out


def _fields(fields: dict[str, Any]) -> list[str]:
    out: list[str] = []
    for k, v in fields.items():
        if isinstance(v, (dict, list)) and v:
            out += [f"- {md_code(k)}:", "", *_fenced_json(v), ""]
        else:
            out.append(f"- {md_code(k)}: {md_code(v)}")
    return out


def _ledger(doc: dict[str, Any] | None) -> list[str]:
    out = ["## Ledger audit (records.jsonl)", ""]
    if doc is None:
        return [*out, "- no readable records.jsonl in the unit", ""]
    word = doc.get("verdict")
    why = f" ({md_text(doc['why'])})" if doc.get("why") and word != _verdict.VERIFIED else ""
    out.append(f"- chain: **{md_text(word)}**{why}")
    out.append(
        f"- {_count(doc.get('rows'), 'row')}, {_count(doc.get('chained'), 'chained row')}, "
        f"{_count(doc.get('breaks'), 'break')}"
    )
    findings = doc.get("findings") or []
    if findings:
        out += ["", "| line | kind | finding |", "|---|---|---|"]
        out += [
            f"| {md_text(f.get('line'))} | {_cell(f.get('kind'))} | {_cell(f.get('text'))} |"
            for f in findings
        ]
    out.append("")
    return out


def _members(members: list[Any]) -> list[str]:
    out = [
        "## Members",
        "",
        "| member | listed sha256 | actual sha256 | matches |",
        "|---|---|---|---|",
    ]
    for m in members:
        if isinstance(m, dict):
            match = m.get("matches")
            same = "yes" if match is True else "no" if match is False else "—"
            out.append(
                f"| {_cell(m.get('name'))} | {_cell(m.get('listed'))} | "
                f"{_cell(m.get('actual'))} | {same} |"
            )
    out.append("")
    return out
