"""The audit report of a folder: one report per evidence file in it, each bound to its
own bytes (`binding.bind`), with a table of them all.

The files are the folder's regular files (symlinks to them included), sorted by name,
subfolders not entered. Each is classified (`kinds.classify`): a ledger named `.jsonl`
(the files `sealscope fleet` audits), a snapshot or a harn transcript gets its own
report (`build_report`, exactly the one `export FILE` writes); any other file (held
content, a pin, a README, one that cannot be read) is listed as left out, with its kind
and why, never judged as broken evidence. The folder's exit code is the worst of its
reports' (1 over 3 over 0) and its word that of the first report with that code; a
folder with no report is COULD NOT LOOK (nothing was audited).
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from sealscope.core import kinds
from sealscope.core import verdict as _verdict
from sealscope.core.clock import utc_stamp
from sealscope.core.export.report import AuditReport, build_report

__all__ = ["FOLDER_SCHEMA", "FolderReport", "build_folder_report"]

FOLDER_SCHEMA = "sealscope-export-folder:v1"


@dataclass(frozen=True)
class FolderReport:
    """The reports of a folder's evidence files, and what was left out."""

    path: str
    verdict: str
    exit_code: int
    reports: tuple[AuditReport, ...] = ()
    left_out: tuple[dict[str, Any], ...] = ()
    generated_at: str = ""
    version: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "schema": FOLDER_SCHEMA,
            "path": self.path,
            "verdict": self.verdict,
            "exit_code": self.exit_code,
            "generated_at": self.generated_at,
            "sealscope_version": self.version,
            "files": [
                {
                    "path": r.path,
                    "kind": r.kind,
                    "verdict": r.verdict,
                    "exit_code": r.exit_code,
                    "evidence": r.evidence,
                }
                for r in self.reports
            ],
            "left_out": list(self.left_out),
            "reports": [r.to_dict() for r in self.reports],
        }

    def to_json(self) -> str:
        return json.dumps(self.to_dict(), ensure_ascii=False, indent=2, default=str)

    def to_markdown(self) -> str:
        from sealscope.core.export.markdown import md_code, md_text

        out = [
            f"# sealscope audit report: folder {md_code(self.path)}",
            "",
            f"- generated: {self.generated_at} by sealscope {self.version}",
            f"- verdict: **{self.verdict}**",
            (
                f"- exit code: {self.exit_code} (the worst of its files': 0 held in "
                "full, 1 evidence wrong, 3 could not look or bounded)"
            ),
            "",
            "| file | kind | verdict | sha256 | bytes | head (rows, last chain) |",
            "|---|---|---|---|---:|---|",
        ]
        for r in self.reports:
            ev = r.evidence or {}
            head = ev.get("head")
            shown = (
                f"{head.get('rows')}, {md_code(head.get('chain'), in_table=True)}"
                if isinstance(head, dict)
                else "—"
            )
            out.append(
                f"| {md_code(os.path.basename(r.path), in_table=True)} | {r.kind} | "
                f"**{r.verdict}** | {md_code(ev.get('sha256'), in_table=True)} | "
                f"{ev.get('bytes', '—')} | {shown} |"
            )
        out.append("")
        if self.left_out:
            out += ["Left out (not a ledger, snapshot or harn transcript):", ""]
            out += [
                f"- {md_code(os.path.basename(x['path']))}: {x['kind']} — {md_text(x['reason'])}"
                for x in self.left_out
            ]
            out.append("")
        body = "\n".join(out)
        for r in self.reports:
            body += "\n---\n\n#" + r.to_markdown()  # each file's title one level down
        return body.rstrip("\n") + "\n"


def build_folder_report(
    path: str | os.PathLike[str],
    *,
    now: str | None = None,
    on_file: Callable[[str], None] | None = None,
) -> FolderReport:
    """The folder's report (see the module docstring); `on_file(path)` is told of each
    file before it is read. OSError when the folder cannot be listed."""
    from sealscope.core.version import __version__

    p = os.fspath(path)
    stamp = now or utc_stamp()
    with os.scandir(p) as it:
        names = sorted(e.name for e in it if not e.is_dir())
    reports: list[AuditReport] = []
    left: list[dict[str, Any]] = []
    for name in names:
        f = os.path.join(p, name)
        if on_file is not None:
            on_file(f)
        found = kinds.classify(f)
        if not found.opens:
            left.append({"path": f, "kind": found.kind, "reason": found.reason})
            continue
        if found.kind == kinds.LEDGER and not name.endswith(".jsonl"):
            left.append(
                {
                    "path": f,
                    "kind": "other",
                    "reason": "not named .jsonl: a "
                    "folder's ledgers are its .jsonl files, as sealscope fleet "
                    "audits them (export FILE reads any file as a ledger)",
                }
            )
            continue
        try:
            reports.append(build_report(f, kind=found.kind, now=stamp))
        except ValueError as e:
            left.append({"path": f, "kind": found.kind, "reason": str(e)})
    if not reports:
        out = _verdict.Outcome(_verdict.COULD_NOT_LOOK, _verdict.COULD_NOT)
    else:
        code = _verdict.worst(r.exit_code for r in reports)
        out = _verdict.Outcome(next(r.verdict for r in reports if r.exit_code == code), code)
    return FolderReport(
        p, out.verdict, out.exit_code, tuple(reports), tuple(left), stamp, __version__
    )
