"""KindTab: one whole-document evidence file that is not a ledger — a compaction receipt
file, a distill drop receipt, a portable receipt or a stored continuity verdict
(KINDS.md §2-§5), read-only.

Top: the kind's own verdict (`check_list.KindBanner`: core's `KindCheck`, the bound
beside VERIFIED, each of the kind's checks with its word, and every check run in the
tab). Left: the kind's panel — a receipt's `receipt_panel` (v1/v2 badge, each
self-consistency check, byte bars), a distill receipt's drops, a portable receipt's
body digest, ledger and witness blocks, a verdict's divergences as the seal tab draws
them (`verdict_view.render_verdict`, only for a verdict core loaded). Right: every
field of the document, literally.

Keys: `h` held content for a receipt file (`held_screen.HeldContentScreen`, as on a
ledger's receipt row: the recomputation becomes the tab's state until cleared, and a
path dropped on the tab is taken as its pre content), `L` opens the ledger core's check
found for a portable receipt in its own tab, `x` writes the kind's report
(`check_list.export_screen_of`: what `sealscope export FILE` writes; held content is
not part of it, and the export screen says so).

The banner runs the check in a thread worker; the document is read once, through
`lines.open_regular`, never written. Every value goes through `style.shown`.
"""

from __future__ import annotations

import os
from pathlib import Path
from types import SimpleNamespace
from typing import Any, cast

from rich.console import RenderableType
from rich.text import Text
from sealscope.core import lines as _lines
from sealscope.core.checks.result import KindCheck
from sealscope.core.jsonio import loads
from sealscope.viewer import lazy
from sealscope.viewer.check_list import (
    KindBanner,
    check_of,
    export_screen_of,
    outcome_of,
    show_checks,
)
from sealscope.viewer.commands import PaletteBinding
from sealscope.viewer.evidence_tab import CLEAR_CHECKS, EvidenceTab, tab_title
from sealscope.viewer.kind_view import (
    CONTINUITY,
    DISTILL,
    KIND_TITLE,
    PORTABLE,
    RECEIPT,
)
from sealscope.viewer.messages import OpenAtFirstBreak
from sealscope.viewer.profile_view import DOCUMENT_PROFILES, profile_panel
from sealscope.viewer.receipt_panel import check_receipt, render_receipt
from sealscope.viewer.style import shown
from sealscope.viewer.verdict_view import render_verdict
from textual.app import ComposeResult
from textual.containers import Horizontal, VerticalScroll
from textual.widgets import Static

__all__ = ["KindTab", "read_document", "fields_text", "kind_panel", "MAX_DOCUMENT"]

MAX_DOCUMENT = 64 << 20
"""A document over this many bytes is not read for display (its check still runs)."""

FIELD_WIDTH = 400  # characters of one field's value shown before it is cut


def read_document(path: str) -> tuple[Any, str | None]:
    """(the parsed document, None) or (None, why it cannot be shown); never raises."""
    try:
        with _lines.open_regular(path) as fh:
            data = fh.read(MAX_DOCUMENT + 1)
    except OSError as e:
        return None, f"cannot read: {e.strerror or e}"
    if len(data) > MAX_DOCUMENT:
        return None, f"over {MAX_DOCUMENT >> 20} MiB: not shown"
    try:
        return loads(data.decode("utf-8")), None
    except (ValueError, MemoryError) as e:
        return None, f"not one JSON document: {type(e).__name__}"


def _cut(text: str, width: int = FIELD_WIDTH) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


def fields_text(doc: Any, error: str | None = None) -> Text:
    """Every top-level field of the document, literally (sanitized), one per line."""
    t = Text(end="")
    t.append(" fields \n", "bold reverse")
    if error is not None:
        t.append(" " + shown(error) + "\n", "italic yellow")
        return t
    if not isinstance(doc, dict):
        t.append(" " + _cut(shown(doc)) + "\n")
        return t
    for key, value in doc.items():
        t.append(f" {shown(key)}: ", "bold")
        t.append(_cut(shown(value)) + "\n")
    return t


def _blocks(title: str, d: Any, keys: tuple[str, ...] | None = None) -> Text:
    t = Text(end="")
    t.append(f"\n {title}\n", "bold underline")
    if not isinstance(d, dict):
        t.append("  " + shown(d) + "\n", "dim")
        return t
    for k in keys or tuple(d):
        if k in d:
            t.append(f"  {shown(k)}: ", "bold")
            t.append(_cut(shown(d[k]), 120) + "\n")
    return t


def _distill_panel(doc: Any) -> Text:
    rec = (
        doc.get("receipt")
        if isinstance(doc, dict) and isinstance(doc.get("receipt"), dict)
        else doc
    )
    t = Text(end="")
    t.append(" distill receipt ", "bold reverse")
    if not isinstance(rec, dict):
        t.append("\n  not an object\n", "bold red")
        return t
    t.append(
        f"  strategy {shown(rec.get('strategy'))} · budget "
        f"{shown(rec.get('budget_tokens'))} tokens · truncated "
        f"{shown(rec.get('truncated'))}\n"
    )
    for side in ("full", "distilled"):
        d = rec.get(side)
        t.append(f"  {side:<10}", "bold")
        if isinstance(d, dict):
            t.append(f"{shown(d.get('bytes'))} B  {shown(d.get('digest'))}\n")
        else:
            t.append("missing\n", "red")
    drops = rec.get("drops")
    n = len(drops) if isinstance(drops, list) else 0
    t.append(f"\n drops: {n}\n", "bold underline")
    for i, dr in enumerate(drops if isinstance(drops, list) else []):
        t.append(f"  [{i}] ", "bold")
        if isinstance(dr, dict):
            t.append(
                f"{shown(dr.get('kind'))} at {shown(dr.get('path'))} · "
                f"{shown(dr.get('dropped_bytes'))} B · {shown(dr.get('dropped_count'))}"
                f" item(s) · {shown(dr.get('digest'))}\n"
            )
        else:
            t.append(shown(dr) + "\n", "red")
    if drops is not None and not isinstance(drops, list):
        t.append("  " + shown(drops) + "\n", "red")
    return t


def _portable_panel(doc: Any) -> Text:
    t = Text(end="")
    t.append(" portable receipt ", "bold reverse")
    if not isinstance(doc, dict):
        t.append("\n  not an object\n", "bold red")
        return t
    t.append(
        f"  {shown(doc.get('receipt_version'))} · {shown(doc.get('kind'))} · issued "
        f"{shown(doc.get('issued_at'))}\n"
    )
    t.append("  body digest: ", "bold")
    t.append(shown(doc.get("body_digest")) + "\n")
    t.append_text(_blocks("subject", doc.get("subject")))
    checks = doc.get("checks")
    t.append(
        f"\n checks: {len(checks) if isinstance(checks, list) else shown(checks)}\n",
        "bold underline",
    )
    for c in checks if isinstance(checks, list) else []:
        t.append("  • " + _cut(shown(c), 160) + "\n")
    scope = doc.get("scope")
    if isinstance(scope, dict):
        for part in ("proves", "does_not_prove"):
            items = scope.get(part)
            t.append(f"\n {part.replace('_', ' ')}\n", "bold underline")
            for it in items if isinstance(items, list) else [items]:
                t.append("  • " + _cut(shown(it), 160) + "\n")
    t.append_text(_blocks("ledger", doc.get("ledger")))
    t.append_text(_blocks("witness", doc.get("witness")))
    if "attestation_signature" in doc:
        t.append_text(_blocks("attestation signature", doc.get("attestation_signature")))
    return t


def _continuity_panel(doc: Any, kc: KindCheck | None) -> RenderableType:
    """The divergences as the seal tab draws them, from the fields core loaded (the
    file's own claims are not drawn as a verdict when core refused it)."""
    d = kc.detail if kc is not None and isinstance(kc.detail, dict) else {}
    if not isinstance(doc, dict) or not d.get("loaded"):
        t = Text(end="")
        t.append(" continuity verdict ", "bold reverse")
        why = d.get("error") if d else None
        t.append(
            "\n  not loaded"
            + (f": {shown(why)}" if why else "")
            + " — its fields are shown as written, not as a verdict\n",
            "bold yellow",
        )
        return t
    divs = doc.get("divergences")
    v = SimpleNamespace(
        policy=doc.get("policy") if isinstance(doc.get("policy"), dict) else {},
        comparison=d.get("comparison"),
        faithful=d.get("faithful"),
        valid=d.get("valid"),
        divergences=[x for x in divs if isinstance(x, dict)] if isinstance(divs, list) else [],
        claimed_property=doc.get("claimed_property"),
        notes=[n for n in doc.get("notes", []) if isinstance(n, str)]
        if isinstance(doc.get("notes"), list)
        else [],
        verdict_digest=d.get("verdict_digest"),
    )
    return render_verdict(v)


def kind_panel(
    kind: str | None, doc: Any, kc: KindCheck | None, held: Any = None
) -> RenderableType:
    """The left panel of a kind's tab (`held`: a receipt recomputed with held content)."""
    if kind == RECEIPT:
        if held is not None:
            return render_receipt(doc, held, title="recomputed with held content")
        check, err = check_receipt(doc)
        return render_receipt(doc, check, err, title="compaction receipt file")
    if kind == DISTILL:
        return _distill_panel(doc)
    if kind == PORTABLE:
        return _portable_panel(doc)
    if kind == CONTINUITY:
        return _continuity_panel(doc, kc)
    if kind in DOCUMENT_PROFILES:
        return profile_panel(kind, doc, kc)
    return Text("")


class _Row:
    """The document as a held-content screen reads a receipt row (`.obj`)."""

    def __init__(self, obj: Any) -> None:
        self.obj = obj
        self.kind = "compaction_receipt"


class _DocumentSource:
    """What `HeldContentScreen` reads of a tab's source: its name and row 1."""

    def __init__(self, path: str, doc: Any) -> None:
        self.name = os.path.basename(path)
        self.doc = doc

    def row(self, line: int) -> _Row:
        return _Row(self.doc)


class KindTab(EvidenceTab):
    """The tab of one whole-document kind (`kind`: receipt, distill-receipt,
    portable-receipt, continuity-verdict)."""

    DEFAULT_CSS = """
    KindTab { layout: vertical; padding: 0; }
    KindTab #kind-body { height: 1fr; }
    KindTab #kind-left {
        width: 3fr;
        height: 1fr;
        padding: 0 1;
        border-right: vkey $primary 50%;
        scrollbar-size-vertical: 1;
    }
    KindTab #kind-right { width: 2fr; height: 1fr; padding: 0 1; scrollbar-size-vertical: 1; }
    KindTab #kind-panel, KindTab #kind-fields { height: auto; }
    """

    has_report = True
    export_screen = export_screen_of

    BINDINGS = [
        PaletteBinding(
            "h",
            "held",
            "Held content",
            title="Held content for this receipt",
            help="Recompute this receipt file against its pre/post content",
        ),
        PaletteBinding(
            "L",
            "open_ledger",
            "Open its ledger",
            title="Open the ledger this receipt names",
            help="The ledger its check found (named by its ledger block)",
        ),
        CLEAR_CHECKS,
    ]

    def __init__(
        self,
        path: str | os.PathLike[str],
        kind: str,
        *,
        id: str | None = None,
        check: KindCheck | None = None,
    ) -> None:
        """`check`: core's result when the caller already has it (else it is run)."""
        self.path = os.fspath(path)
        self.kind = kind
        self.kind_name = KIND_TITLE.get(kind, kind)
        stem, ext = os.path.splitext(os.path.basename(self.path))
        self.tab_name = stem if ext.lower() == ".json" and stem else os.path.basename(self.path)
        super().__init__(tab_title(self.tab_name, None), id=id)
        # a deal pack is a folder: its fields are its verdict.json's (KINDS-3.md §18)
        shown_file = (
            os.path.join(self.path, "verdict.json") if os.path.isdir(self.path) else self.path
        )
        self.doc, self.doc_error = read_document(shown_file)
        self.source = _DocumentSource(self.path, self.doc)
        self.held: Any = None  # the ReceiptCheck recomputed with held content
        self._given = check

    def compose(self) -> ComposeResult:
        yield KindBanner(
            os.path.basename(self.path), self.path, self.kind, check=self._given, id="kind-banner"
        )
        with Horizontal(id="kind-body"):
            with VerticalScroll(id="kind-left"):
                yield Static(Text(""), id="kind-panel")
            with VerticalScroll(id="kind-right"):
                yield Static(fields_text(self.doc, self.doc_error), id="kind-fields")

    def on_mount(self) -> None:
        self._draw_panel()

    def main_widget(self) -> VerticalScroll:
        return self.query_one("#kind-left", VerticalScroll)

    check = property(check_of, doc="Core's check of the file (the banner's; None while it runs).")

    # ------------------------------------------------------------------ verdict
    def on_kind_banner_checked(self, m: KindBanner.Checked) -> None:
        m.stop()
        self.judge()

    own_outcome = outcome_of

    def checks_changed(self) -> None:
        """The banner and panel show the check, the tab's verdict and its checks."""
        show_checks(self)
        self._draw_panel()

    def clear_check_state(self) -> None:
        self.held = None

    def _draw_panel(self) -> None:
        if self.doc_error is not None:
            panel: RenderableType = Text(" " + shown(self.doc_error), style="italic yellow")
        else:
            panel = kind_panel(self.kind, self.doc, self.check, self.held)
        self.query_one("#kind-panel", Static).update(panel)

    # ------------------------------------------------------------------ held content
    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "held":
            return self.kind == RECEIPT and isinstance(self.doc, dict)
        if action == "open_ledger":
            return self.ledger_beside() is not None
        return super().check_action(action, parameters)

    def action_held(self, pre: Path | None = None) -> None:
        if self.kind != RECEIPT or not isinstance(self.doc, dict):
            return
        # the screen reads a ledger tab's source and reports back through held_content
        self.app.push_screen(lazy.HeldContentScreen(cast(Any, self), 1, pre=pre))

    def held_content(
        self, line: int, pre: Path | None, post: Path | None, check: Any, record: Any
    ) -> None:
        """Held content recomputed this receipt: the tab's state until cleared."""
        self.held = check
        self.add_session(record, key=("recompute", line))

    def dropped(self, path: Path) -> bool:
        """A file dropped on a receipt file's tab is its held pre content."""
        if self.kind != RECEIPT or not isinstance(self.doc, dict):
            return False
        self.action_held(pre=path)
        return True

    # ------------------------------------------------------------------ its ledger
    def ledger_beside(self) -> str | None:
        """A portable receipt's ledger, as core's check found it (`detail.ledger.path`:
        the file named by the receipt's ledger block beside it, or in the artefacts
        folder, KINDS.md §4.2), when it is a file."""
        if self.kind != PORTABLE or self.check is None:
            return None
        d = self.check.detail if isinstance(self.check.detail, dict) else {}
        block = d.get("ledger")
        p = block.get("path") if isinstance(block, dict) else None
        return p if isinstance(p, str) and os.path.isfile(p) else None

    def action_open_ledger(self) -> None:
        p = self.ledger_beside()
        if p is not None:
            self.post_message(OpenAtFirstBreak(p))
