"""The ledger tab's keys: `LedgerTab.BINDINGS`, and what the first paint's footer shows
before the tab exists (`viewer.first_paint`), so both list the same keys."""

from __future__ import annotations

from sealscope.viewer.commands import PaletteBinding
from sealscope.viewer.evidence_tab import CLEAR_CHECKS
from textual.binding import Binding, BindingType

__all__ = ["LEDGER_KEYS"]

LEDGER_KEYS: list[BindingType] = [
    PaletteBinding(
        "b",
        "first_break",
        "Break",
        title="Jump to first break",
        help="Select the first break in this ledger",
    ),
    PaletteBinding(
        "n",
        "next_break",
        "Next",
        title="Jump to next break",
        help="Select the next break after the cursor",
    ),
    PaletteBinding(
        "p",
        "prev_break",
        "Prev break",
        show=False,
        title="Jump to previous break",
        help="Select the previous break",
    ),
    PaletteBinding("g", "goto", "Go to", title="Go to line", help="Select a line by number"),
    PaletteBinding(
        "f",
        "filter",
        "Filter",
        title="Filter rows",
        help="a status, a kind (receipt, kind:NAME) or ts:FROM..TO, ISO prefixes with both "
        "ends included (ts:2026-03-01T09:00..09:01; a TO with no date takes FROM's)",
    ),
    PaletteBinding(
        "F",
        "clear_filter",
        "Clear filter",
        show=False,
        title="Clear filter",
        help="Show every row again",
    ),
    PaletteBinding(
        "slash", "search", "Search", title="Search text", help="Find text in the ledger"
    ),
    Binding("s", "search_next", "Next match", show=False),
    Binding("S", "search_prev", "Prev match", show=False),
    PaletteBinding(
        "h",
        "held",
        "Held",
        title="Held content for this receipt",
        help="Load pre/post content and recompute",
    ),
    Binding("enter", "held", "Held content", show=False),
    PaletteBinding(
        "j",
        "jump_seal",
        "Jump",
        show=False,
        title="Jump to what this row names",
        help="a chain_break_declared row to the line it declares, a break to the row its "
        "explanation names, a continuity_snapshot row to its open seal tab",
    ),
    PaletteBinding(
        "greater_than_sign",
        "next_receipt",
        "Next receipt",
        show=False,
        title="Jump to next receipt",
        help="Select the next compaction receipt row after the cursor",
    ),
    PaletteBinding(
        "less_than_sign",
        "prev_receipt",
        "Previous receipt",
        show=False,
        title="Jump to previous receipt",
        help="Select the previous compaction receipt row",
    ),
    PaletteBinding(
        "y",
        "copy",
        "Copy",
        show=False,
        title="Copy the chain, row or a digest",
        help="of the selected row, to the clipboard over OSC 52 (not in macOS Terminal.app, "
        "nor tmux without set-clipboard on; the notice shows what was copied)",
    ),
    PaletteBinding(
        "m",
        "strip",
        "Strip",
        title="Overview strip",
        help="The strip takes the keyboard (0-9, arrows, Enter, ? legend); m again hides it",
    ),
    PaletteBinding(
        "C",
        "chart",
        "Chart",
        title="Compaction chart",
        help="pre, post and dropped sizes of every receipt; Enter jumps",
    ),
    CLEAR_CHECKS,
]
