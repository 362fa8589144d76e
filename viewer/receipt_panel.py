"""The compaction-receipt panel: schema badge, understatement check, each
self-consistency check, counts and bytes drawn as a bar, verified scope, notes.

The verdict is `sealscope.core.receipt.verify_receipt`'s; this module only lays it out.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from sealscope.core import verdict as _verdict
from sealscope.core.sanitize import clean
from sealscope.viewer import lazy
from sealscope.viewer.style import shown
from textual.widgets import Static

if TYPE_CHECKING:  # the receipt checker loads with the first receipt shown
    from sealscope.core.receipt import ReceiptCheck


def check_receipt(
    row: Any, pre: Any = None, post: Any = None
) -> tuple[ReceiptCheck | None, str | None]:
    """(ReceiptCheck, None) or (None, why it could not be checked)."""
    try:
        return lazy.verify_receipt(row, pre, post), None
    except Exception as e:  # noqa: BLE001 - the reference raises on a NaN core (FORMATS §8 #26)
        return None, f"could not verify this receipt: {type(e).__name__}: {e}"


def check_states(check: ReceiptCheck) -> list[tuple[str, bool]]:
    """[(check name, passed)]: the self-consistency checks `verify_receipt` ran."""
    return [(c.name, c.ok) for c in check.checks]


def _num(d: Any, k: str) -> int | None:
    v = d.get(k) if isinstance(d, dict) else None
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def byte_bars(row: dict, width: int = 24) -> Text:
    """pre = kept + dropped, post = kept + introduced, drawn to one scale."""
    pre, post = row.get("pre"), row.get("post")
    dropped, intro = row.get("dropped"), row.get("introduced")
    pb, qb, db = _num(pre, "bytes"), _num(post, "bytes"), _num(dropped, "bytes")
    ib = _num(intro, "bytes")
    t = Text(end="")
    if pb is None or qb is None or db is None:
        t.append("  (byte counts missing or malformed)\n", "italic")
        return t
    scale = max(pb, qb, 1)
    kept = max(0, pb - db)
    cells = lambda n: 0 if n <= 0 else max(1, round(n * width / scale))  # noqa: E731
    t.append("  pre  ", "bold")
    t.append("█" * cells(kept), "green")
    t.append("█" * cells(min(db, pb)), "red")
    t.append(f" {pb:,} B\n")
    t.append("  post ", "bold")
    t.append("█" * cells(kept), "green")
    extra = ib if ib is not None else max(0, qb - kept)
    t.append("█" * cells(extra), "blue")
    t.append(f" {qb:,} B\n")
    t.append("       ")
    t.append("■ kept ", "green")
    t.append("■ dropped ", "red")
    t.append("■ introduced", "blue")
    if ib is None:
        t.append("\n       (v1: introduced bytes not recorded; drawn as post − kept)", "italic")
    t.append("\n")
    return t


def render_receipt(
    row: Any,
    check: ReceiptCheck | None,
    error: str | None = None,
    title: str = "compaction receipt",
    compact: bool = False,
    bar_width: int = 24,
) -> Text:
    t = Text(end="")
    schema = row.get("schema") if isinstance(row, dict) else None
    ver = check.schema if check is not None else None
    if ver is None and isinstance(schema, str) and schema.startswith("arcaeon-compact:receipt:"):
        ver = schema.rsplit(":", 1)[-1]
    t.append(f" {title} ", "bold reverse")
    t.append("  ")
    if ver:
        badge = "bold black on cyan" if ver == "v2" else "bold black on yellow"
        t.append(f" {shown(ver)} ", badge)
    else:
        t.append(" unknown schema ", "bold white on red")
    if check is not None:
        uc = check.understatement_check
        t.append("  understatement check: ", "bold")
        t.append(shown(uc), "green" if uc == "full" else "yellow")
        t.append("\n")
        ok = check.ok
        t.append("  ok ", "bold")
        t.append(
            f" {_verdict.recompute(check).verdict} ",
            "bold black on green" if ok else "bold white on red",
        )
        t.append("   self-consistent ", "bold")
        sc = check.self_consistent
        t.append("yes" if sc else "NO", "green" if sc else "bold red")
        t.append("   content ", "bold")
        content = shown(check.content)
        t.append(content, {"match": "green", "mismatch": "bold red"}.get(content, "yellow"))
        t.append("   verified scope ", "bold")
        scope = shown(check.verified_scope)
        t.append(scope, "green" if scope == "full" else "yellow")
        t.append("\n")
        states = check_states(check)
        if compact and all(passed for _n, passed in states):
            t.append(f"   ✓ all {len(states)} self-consistency checks pass\n", "green")
            states = []
        elif compact:
            states = [x for x in states if not x[1]]
        for name, passed in states:
            mark, style = ("✓", "green") if passed else ("✗", "bold red")
            t.append(f"   {mark} ", style)
            t.append(f"{name}", "" if passed else style)
            t.append("\n")
    else:
        t.append("\n")
        t.append(f"  {clean(error or 'not checked')}\n", "bold yellow")
    if isinstance(row, dict):
        t.append("\n")
        for key in ("pre", "post", "dropped", "introduced"):
            d = row.get(key)
            if isinstance(d, dict):
                c, b = d.get("count"), d.get("bytes")
                t.append(f"  {key:<11}", "bold")
                t.append(f"{shown(c):>6} items  ")
                t.append(f"{shown(b) if 'bytes' in d else '—':>10} B")
                if key == "dropped" and isinstance(d.get("items"), list):
                    t.append(f"  ({len(d['items'])} in manifest)", "dim")
                t.append("\n")
            else:
                t.append(f"  {key:<11}", "bold")
                t.append("missing\n", "red")
        t.append_text(byte_bars(row, bar_width))
        for key in ("compactor", "method", "opened_at", "receipt_digest"):
            if key in row:
                t.append(f"  {key}: ", "bold")
                t.append(shown(row.get(key)) + "\n")
    notes = list(check.notes) if check is not None else []
    if notes:
        t.append("\n  notes\n", "bold")
        for n in notes:
            t.append("  • ", "yellow")
            t.append(shown(n) + "\n")
    return t


class ReceiptPanel(Static):
    """A receipt row's verdict, laid out."""

    def show(
        self,
        row: Any,
        check: ReceiptCheck | None = None,
        error: str | None = None,
        title: str = "compaction receipt",
    ) -> None:
        self.update(render_receipt(row, check, error, title=title))
