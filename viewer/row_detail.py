"""The detail pane: one row's status, its kind panel, the panel of its own checks (a
`continuity_verify` row, an artefact binding, a call row: `row_check_panel`), the line
as stored, and the row pretty-printed. Strings are shown literally: every one passes
through `sanitize.clean` and reaches the screen as a `Text`, so markup, escape
sequences and bidi overrides in the evidence are displayed, never obeyed."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from typing import Any

from rich.text import Text
from sealscope.core.ledger import Mismatch
from sealscope.core.sanitize import clean
from sealscope.viewer.receipt_panel import ReceiptPanel, check_receipt
from sealscope.viewer.remeasure import remeasure
from sealscope.viewer.row_check_panel import RowCheckPanel
from sealscope.viewer.row_list import STATUS_LOOK
from sealscope.viewer.source import RowInfo
from sealscope.viewer.style import shown
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

MAX_PRETTY = 200_000  # characters of pretty JSON drawn; the rest is cut with a note
MAX_RAW = 20_000

_KEY = re.compile(r'^\s*"(?:[^"\\]|\\.)*"(?=: )', re.M)

STATUS_WORDS = {
    "ok": "chain ok",
    "break": "BREAK",
    "declared": "declared break (excused)",
    "prechain": "prechain (before the chain began; not verified)",
    "unparseable": "unparseable",
    "blank": "blank line",
    "pending": "not verified yet",
}


def pretty(obj: Any) -> Text:
    try:
        # on screen as stored (NaN as NaN): display text, not a JSON document
        s = json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError, RecursionError) as e:
        return Text(f"(cannot pretty-print: {clean(str(e))})", "italic")
    cut = len(s) > MAX_PRETTY
    s = s[:MAX_PRETTY]
    t = Text(end="")
    for i, line in enumerate(s.split("\n")):
        if i:
            t.append("\n")
        t.append(clean(line))
    if cut:
        t.append(f"\n… cut at {MAX_PRETTY:,} characters", "italic dim")
    t.highlight_regex(_KEY, "bold cyan")
    return t


def declared_panel(obj: dict, honored: bool | None) -> Text:
    t = Text(end="")
    t.append(" declared chain break ", "bold black on yellow")
    t.append("\n")
    for key in ("orphan_line", "orphan_sha256", "why", "resume_prev"):
        if key in obj:
            t.append(f"  {key}: ", "bold")
            t.append(shown(obj[key]) + "\n")
    if honored is True:
        t.append(
            "  the verifier honoured it: the orphan line is excused; the verdict is "
            "bounded (scope bounded_declared_break), never green\n",
            "yellow",
        )
    elif honored is False:
        t.append(
            "  the verifier did not use it (the orphan line is not a break, or its "
            "bytes no longer match orphan_sha256)\n",
            "dim",
        )
    return t


def snapshot_panel(obj: dict) -> Text:
    t = Text(end="")
    t.append(" continuity snapshot ", "bold black on cyan")
    t.append("\n")
    for key in ("label", "manifest_digest", "probe_set_digest", "aggregate_mean"):
        t.append(f"  {key}: ", "bold")
        t.append(shown(obj.get(key)) + "\n")
    t.append(
        "  j jumps to its seal when the snapshot file is open (o opens it); there a "
        "restatement can be scored\n",
        "dim",
    )
    return t


def mismatch_text(m: Mismatch) -> Text:
    """What the chain shows at a mismatch: the stored chain, the chain recomputed from
    the previous row, and which cause fits (`ledger.Mismatch`)."""
    t = Text(end="")
    t.append("\nstored     ", "dim")
    t.append(clean(m.stored))
    t.append("\nrecomputed ", "dim")
    t.append(m.recomputed)
    if m.prev_line:
        t.append(f"\n  after line {m.prev_line}, chain ", "dim")
        t.append(clean(m.prev_chain), "dim")
    else:
        t.append("\n  after genesis (the chain's start)", "dim")
    t.append("\nfits: ", "bold")
    t.append(m.cause, "bold")
    t.append(f" — {m.evidence}", "dim")
    return t


class RowDetail(VerticalScroll, can_focus=True):
    """Shows one row; `show(info, status, finding_text, honored)`."""

    DEFAULT_CSS = """
    RowDetail {
        width: 2fr;
        height: 1fr;
        border-left: vkey $primary 50%;
        padding: 0 1;
        scrollbar-size-vertical: 1;
    }
    RowDetail:focus { border-left: vkey $accent; }
    RowDetail Static { margin-bottom: 1; }
    """

    def compose(self) -> ComposeResult:
        yield Static(id="detail-head")
        yield ReceiptPanel(id="receipt-panel")
        yield Static(id="kind-panel")
        yield RowCheckPanel(id="row-check-panel")
        yield Static(id="detail-raw")
        yield Static(id="detail-pretty")

    def on_mount(self) -> None:
        self.query_one("#receipt-panel").display = False
        self.query_one("#kind-panel").display = False
        self.query_one("#row-check-panel").display = False

    def show(
        self,
        info: RowInfo,
        status: str,
        finding: str | None,
        honored: bool | None = None,
        recomputed: Any = None,
        explained: Mismatch | None = None,
        row_checks: Sequence[dict[str, Any]] = (),
    ) -> None:
        """Draw one row; `recomputed` is its receipt's check with held content, when
        the auditor ran one (the panel shows it instead of self-consistency only);
        `explained` what the chain shows when the row is a chain mismatch;
        `row_checks` the row's own checks as core made them (its `rows_checked`
        entries, a held artefact's in place of its binding's)."""
        head = Text(end="")
        mark, mstyle, _ = STATUS_LOOK.get(status, ("?", "", ""))
        head.append(f"line {info.line}  ", "bold")
        head.append(f"{mark} {STATUS_WORDS.get(status, status)}", mstyle)
        if info.kind:
            head.append("   kind ", "dim")
            head.append(clean(info.kind), "bold")
        if finding:
            head.append("\n")
            head.append(clean(finding), mstyle)
        if explained is not None:
            head.append_text(mismatch_text(explained))
        if info.marks:
            head.append("\n⚠ hidden characters in this row: ", "bold magenta")
            head.append(", ".join(info.marks), "magenta")
            head.append(" — shown escaped below", "dim")
        self.query_one("#detail-head", Static).update(head)

        rp = self.query_one("#receipt-panel", ReceiptPanel)
        kp = self.query_one("#kind-panel", Static)
        rp.display = kp.display = False
        if info.state == "object" and info.kind == "compaction_receipt":
            if recomputed is not None:
                rp.show(info.obj, recomputed, None, title="recomputed with held content")
            else:
                check, err = check_receipt(info.obj)
                rp.show(info.obj, check, err)
            rp.display = True
        elif info.state == "object" and info.kind == "chain_break_declared":
            kp.update(declared_panel(info.obj, honored))
            kp.display = True
        elif info.state == "object" and info.kind == "continuity_snapshot":
            kp.update(snapshot_panel(info.obj))
            kp.display = True
        cp = self.query_one("#row-check-panel", RowCheckPanel)
        own = [e for e in row_checks if e.get("check") != "compaction-receipt"]
        cp.display = bool(own) and info.state == "object"
        if cp.display:
            cp.show(info.obj, own)

        raw = Text(end="")
        raw.append("as stored\n", "bold underline")
        text = info.raw if len(info.raw) <= MAX_RAW else info.raw[:MAX_RAW]
        raw.append(clean(text) if text else "(blank)")
        if len(info.raw) > MAX_RAW:
            raw.append(f" … ({len(info.raw):,} characters)", "italic dim")
        self.query_one("#detail-raw", Static).update(raw)

        pv = self.query_one("#detail-pretty", Static)
        if info.state in ("object", "nonobject"):
            body = Text(end="")
            body.append("pretty\n", "bold underline")
            body.append_text(pretty(info.obj))
            pv.update(body)
            pv.display = True
        else:
            pv.display = False
        remeasure(self)
        self.scroll_home(animate=False)
