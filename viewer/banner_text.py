"""The verdict banner's text, as pure builders (no widget): `banner.Banner` draws what
they make, and the first paint draws the same before any widget exists.

`badge` (a verdict word, reversed on the banner's colour), `ledger_detail` (a ledger's
banner in every reading state), `check_detail` / `check_lines` (each check run on the
file, with its own word). `BUSY`: the reading states with no verdict yet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from sealscope.core import verdict
from sealscope.core.sanitize import clean
from sealscope.viewer.style import CHECK_STYLE, shown

if TYPE_CHECKING:  # annotations only: the report's records load with the first check
    from sealscope.core.export import SessionRecord

__all__ = ["BUSY", "badge", "check_detail", "check_lines", "ledger_detail"]

BUSY = ("indexing", "verifying")
"""Reading states with no verdict yet: the banner stays neutral."""


def badge(word: str) -> Text:
    """A verdict word as the banner draws it: bold, reversed on the banner's colour."""
    return Text(f" {word} ", "bold reverse", end="")


def check_detail(rec: SessionRecord) -> str:
    """One line on what a check found (words, never None)."""
    r = rec.result if isinstance(rec.result, dict) else {}
    if "error" in r:
        return str(r["error"])
    if rec.kind in ("pin", "witness"):
        return str(r.get("detail") or "")
    if rec.kind == "recompute":
        hidden = len(r.get("undeclared") or [])
        phantom = len(r.get("phantom") or [])
        parts = [f"content {r.get('content')}", f"scope {r.get('verified_scope')}"]
        if hidden:
            parts.append(f"{hidden} drop(s) the manifest does not declare")
        if phantom:
            parts.append(f"{phantom} manifest entr(ies) no drop explains")
        return " · ".join(parts)
    if rec.kind == "artefact":  # a held artefact against its binding (core's entry)
        return f"held {r.get('held')} · binding {r.get('artefact_verdict')}"
    if rec.kind == "lookup":
        items = r.get("items") or []
        found = sum(1 for it in items if it.get("found"))
        return f"{found} of {len(items)} item(s) found in this ledger's manifests"
    return ""


def check_lines(t: Text, checks: Sequence[SessionRecord]) -> None:
    """Each check on a line of its own: its title, its word, what it found."""
    for rec in checks:
        t.append("\n ")
        t.append(f"{clean(rec.title)}: ", "bold")
        t.append(f" {rec.verdict} ", CHECK_STYLE[verdict.tone(rec.verdict)] + " reverse")
        detail = check_detail(rec)
        if detail:
            t.append(" " + clean(detail))


def ledger_detail(
    name: str,
    state: str,
    *,
    pct: float = 0.0,
    result: Any = None,
    message: str = "",
    outcome: verdict.Outcome | None = None,
    scope: str = "",
    checks: Sequence[SessionRecord] = (),
    failed: Sequence[int] = (),
    explained: Any = None,
    rows: Sequence[str] = (),
    judged_by: str = "",
    judged_counts: Mapping[str, Any] | None = None,
) -> Text:
    """A ledger's banner text. `state`: "indexing" | "verifying" | "done" |
    "cancelled" | "error" | "alarm" (the file changed under a follower); `pct` the
    progress; `result` the chain's VerifyResult; `message` why it is cancelled, in
    error or alarmed; `outcome` the tab's verdict; `scope` what it holds within
    (`verdict.beside`); `checks` the checks behind it; `failed` the lines of receipts
    failing on their own; `explained` the first break's `ledger.Mismatch`; `rows` the
    row checks of the ledger's own that are not VERIFIED, each in a few words;
    `judged_by` the rule that judged a file opened as a ledger by another check (a
    call record), said on a line of its own, and `judged_counts` the numbers behind
    that rule's word (a call record's `rows` and `first_break` line), shown in place
    of the walk's: the numbers shown are the ones behind the word."""
    t = Text(no_wrap=False, end="")
    name = clean(name)
    if state in BUSY:
        t.append(f" {state}… ", "bold")
        t.append(f"{pct:3.0f}%  ", "bold")
        t.append(name)
        if state == "verifying":
            t.append("   not verified yet", "italic")
    elif state == "alarm":
        t.append(f" {clean(message)} ", "bold reverse")
        t.append(f"  {name}")
        if result is not None:
            t.append(
                f"\n rows {result.rows:,} shown as they were read · the file "
                f"no longer holds what was verified"
            )
        t.append(
            "\n re-verify: o and this file's path — it opens checked against the head seen here"
        )
    elif state in ("cancelled", "error") or result is None:
        word = outcome.verdict if outcome is not None else verdict.COULD_NOT_LOOK
        t.append_text(badge(word))
        t.append(f"  {name}  ")
        t.append(clean(message), "italic" if state == "cancelled" else "")
    else:
        r = result
        t.append_text(badge(outcome.verdict if outcome is not None else r.verdict))
        if scope:
            t.append(f"· {clean(scope)}", "bold")
        t.append(f"  {name}  ", "bold")
        if r.verdict == verdict.COULD_NOT_LOOK and judged_counts is None:
            t.append(clean(r.reason()), "bold")
            t.append(" · ")
        if judged_counts is not None:  # another rule judged the file: its numbers
            first = judged_counts.get("first_break")
            t.append(
                f"rows {shown(judged_counts.get('rows'))} · first break "
                + (f"line {shown(first)}" if first is not None else "none")
            )
        else:
            if judged_by and outcome is not None and outcome.verdict != r.verdict:
                t.append(f"ledger walk {r.verdict} · ")  # another rule judged the file
            elif checks or failed or rows:
                t.append(f"chain {r.verdict} · ")
            t.append(
                f"scope {clean(str(r.verified_scope))} · rows {r.rows:,} · chained "
                f"{r.chained:,} · prechain {r.prechain:,} · breaks {r.breaks:,} · "
                f"declared breaks {r.declared_breaks:,}"
            )
        if r.first_break and judged_counts is None:
            t.append("\n first break: ", "bold")
            t.append(clean(r.first_break))
            if explained is not None:
                t.append(f" · fits: {explained.cause}", "italic")
        if failed:
            t.append("\n receipts failing on their own: ", "bold")
            t.append(", ".join(f"line {n}" for n in failed), CHECK_STYLE["fail"])
        if rows:
            t.append("\n row checks: ", "bold")
            t.append("; ".join(clean(x) for x in rows[:3]))
            if len(rows) > 3:
                t.append(f" (+{len(rows) - 3} more)", "dim")
        if judged_by:
            t.append("\n ")
            t.append(clean(judged_by), "bold")
    check_lines(t, checks)
    return t
