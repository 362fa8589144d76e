"""A folder report (`folder.FolderReport`) as Markdown: the folder's verdict and counts,
a table naming every evidence entry (its path relative to the folder, kind, word, why
or bound, and binding), the paths that are not evidence with why, then each entry's
own report, its title one level down. Every evidence string is escaped as
`markdown.py` escapes it (`md_code`, `md_text`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sealscope.core import verdict as _verdict
from sealscope.core.export.markdown import md_code, md_text

if TYPE_CHECKING:
    from sealscope.core.export.folder import FolderReport

__all__ = ["render"]


def render(r: FolderReport) -> str:
    """The report as Markdown (module docstring)."""
    out = [
        f"# sealscope audit report: folder {md_code(r.path)}",
        "",
        f"- generated: {r.generated_at} by sealscope {r.version}",
        f"- verdict: **{r.verdict}**",
        (
            f"- exit code: {r.exit_code} (as `sealscope fleet` on the folder: the worst "
            "of its entries', 0 held in full, 1 evidence wrong, 3 could not look or bounded)"
        ),
        f"- audited: {md_text(_counts(r.summary or {}, r.counted))}",
        (
            "- walked as `sealscope fleet` walks it: subfolders entered, `*.jsonl`, "
            "`.json` and `.zip` files, a pack or bundle folder one entry; links out of "
            "the folder " + ("followed (`--follow-links`)" if r.follow_links else "not followed")
        ),
        "",
    ]
    if r.files:
        out += [
            "| file | kind | verdict | why / bound | sha256 | bytes | head (rows, last chain) |",
            "|---|---|---|---|---|---:|---|",
        ]
        out += [_row(f) for f in r.files]
        out.append("")
    else:
        out += ["No evidence entry found: nothing was audited.", ""]
    if r.not_evidence:
        out += [f"Not evidence ({len(r.not_evidence)}, listed, not audited):", ""]
        out += [f"- {md_code(x['relative'])}: {md_text(x['reason'])}" for x in r.not_evidence]
        out.append("")
    body = "\n".join(out)
    for section in r.reports:
        body += "\n---\n\n#" + section.to_markdown()  # each entry's title one level down
    return body.rstrip("\n") + "\n"


def _counts(s: dict[str, Any], counted: str) -> str:
    """The count line, in the fleet's words (`fleet.count_words`)."""
    v = s.get("verdicts") or {}
    text = (
        f"{counted}: {v.get(_verdict.VERIFIED, 0)} verified, {v.get(_verdict.BROKEN, 0)} "
        f"broken, {v.get(_verdict.COULD_NOT_LOOK, 0)} could not look; "
        f"{_verdict.plural(int(s.get('receipts', 0)), 'receipt')} "
        f"({s.get('receipts_failed', 0)} failed, {s.get('receipts_bounded', 0)} bounded)"
    )
    if s.get("not_evidence"):
        text += f"; {s['not_evidence']} not evidence (listed, not audited)"
    return text


def _row(f: dict[str, Any]) -> str:
    ev = f.get("evidence") or {}
    head = ev.get("head")
    shown = (
        f"{head.get('rows')}, {md_code(head.get('chain'), in_table=True)}"
        if isinstance(head, dict)
        else "—"
    )
    members = ev.get("members")
    digest = (
        f"{len(members)} members (each below)"
        if ev.get("sha256") is None and isinstance(members, list)
        else md_code(ev.get("sha256"), in_table=True)
    )
    note = f.get("why") or f.get("bound") or ""
    return (
        f"| {md_code(f['relative'], in_table=True)} | {md_code(f.get('kind'), in_table=True)} | "
        f"**{f['verdict']}** | {md_text(note) if note else '—'} | {digest} | "
        f"{ev.get('bytes') if ev.get('bytes') is not None else '—'} | {shown} |"
    )
