"""SealDiffScreen: two seals side by side, aligned by probe id.

Rows: what changed between the previous seal and the current one (`diff_seals`),
in sections — changed, added, removed — each row `id │ severity │ previous │
current`, coloured by severity when a tiers file is given (critical red, notable
amber, advisory cyan) and by kind otherwise; then the unchanged ids as one count
row that `u` expands. The selected row's full values are shown below the table.

Keys: n / p next / previous change, u show or hide unchanged, t tiers, x export the
current seal's report (the one export key, as everywhere) (this diff included), escape back.

Push it with two loaded seals: `SealDiffScreen(prev, cur, tiers=None,
tiers_path=None)` where prev/cur are `core.export.SealFile`s (or paths), both valid.
Every string from the snapshots or the tiers file goes through `sanitize.clean` and
is shown as `rich.text.Text`.
"""

from __future__ import annotations

import os
from typing import Any

from rich.text import Text
from sealscope.core import export
from sealscope.core.continuity import ContinuitySnapshot, diff_seals
from sealscope.viewer.commands import PaletteBinding
from sealscope.viewer.export_action import ExportScreen
from sealscope.viewer.prompt import PathSuggester, PromptScreen, pasted_path
from sealscope.viewer.remeasure import remeasure
from sealscope.viewer.style import shown, tier_style
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

__all__ = ["SealDiffScreen", "KIND_STYLE"]

KIND_STYLE = {"changed": "yellow", "added": "green", "removed": "red", "unchanged": "dim"}
KIND_MARK = {"changed": "~", "added": "+", "removed": "-", "unchanged": "="}
CELL = 36


def _cell(value: Any, width: int = CELL) -> Text:
    if value is None:
        return Text("—", style="dim")
    text = shown(value)
    if text == "":
        return Text("(empty)", style="dim italic")
    return Text(text if len(text) <= width else text[: width - 1] + "…")


def snap_of(seal: export.SealFile) -> ContinuitySnapshot:
    """The snapshot of a valid seal (ValueError with its reason for any other)."""
    if seal.status != "ok" or seal.snap is None:
        raise ValueError(f"{seal.path}: {seal.error}")
    return seal.snap


class SealDiffScreen(Screen[None]):
    """Two seals aligned by probe id."""

    DEFAULT_CSS = """
    SealDiffScreen {
        layout: vertical;
    }
    SealDiffScreen #diff-header {
        height: auto;
        padding: 0 1;
        background: $boost;
    }
    SealDiffScreen #diff-table {
        height: 1fr;
        scrollbar-size-vertical: 1;
    }
    SealDiffScreen #diff-detail {
        height: auto;
        max-height: 6;
        padding: 0 1;
        border-top: hkey $primary 50%;
    }
    """

    BINDINGS = [
        Binding("escape", "app.pop_screen", "Back"),
        PaletteBinding(
            "n",
            "next_change",
            "Next change",
            title="Next change",
            help="Select the next changed, added or removed probe",
        ),
        PaletteBinding(
            "p",
            "prev_change",
            "Prev change",
            title="Previous change",
            help="Select the previous change",
        ),
        PaletteBinding(
            "u",
            "toggle_unchanged",
            "Unchanged",
            title="Show or hide unchanged probes",
            help="Expand the unchanged count",
        ),
        PaletteBinding(
            "t",
            "tiers",
            "Tiers",
            title="Load severity tiers",
            help="Colour the diff by a tiers file",
        ),
        PaletteBinding(
            "x",
            "export",
            "Export",
            title="Export the audit report",
            help="The current seal's report, this diff included",
        ),
    ]

    def __init__(
        self,
        previous: Any,
        current: Any,
        *,
        tiers: dict | None = None,
        tiers_path: str | None = None,
        doc: dict | None = None,
        owner: Any = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self.previous = (
            previous
            if isinstance(previous, export.SealFile)
            else export.load_seal(os.fspath(previous))
        )
        self.current = (
            current
            if isinstance(current, export.SealFile)
            else export.load_seal(os.fspath(current))
        )
        self.previous_snap, self.current_snap = snap_of(self.previous), snap_of(self.current)
        self.tiers, self.tiers_path = tiers, tiers_path
        self.owner = owner
        self.doc = (
            doc
            if doc is not None
            else diff_seals(self.previous_snap, self.current_snap, tiers=tiers)
        )
        self.show_unchanged = False
        self.cell = CELL  # value column width (set on mount)
        self.rows: list[tuple[str, dict]] = []  # (kind, entry) per table row

    # ------------------------------------------------------------------ layout
    def compose(self) -> ComposeResult:
        yield Static(self._header(), id="diff-header")
        yield DataTable(id="diff-table", cursor_type="row", zebra_stripes=False)
        yield Static(Text(""), id="diff-detail")
        yield Footer()

    def on_mount(self) -> None:
        # both value columns fit the terminal (CELL wide from 121 columns up)
        self.cell = max(12, min(CELL, (self.app.size.width - 47) // 2))
        table = self.query_one(DataTable)
        table.add_column("", key="mark", width=1)
        table.add_column("id", key="id", width=26)
        table.add_column("severity", key="severity", width=9)
        table.add_column(
            Text(f"previous · {shown(os.path.basename(self.previous.path))}"),
            key="previous",
            width=self.cell,
        )
        table.add_column(
            Text(f"current · {shown(os.path.basename(self.current.path))}"),
            key="current",
            width=self.cell,
        )
        self._fill()
        table.focus()
        self.action_next_change(from_top=True)

    def _header(self) -> Text:
        d = self.doc
        t = Text()
        t.append(" SEAL DIFF ", "bold white on dark_blue")
        t.append("  ")
        t.append(shown(self.previous.path))
        t.append("  →  ", "bold")
        t.append(shown(self.current.path))
        t.append("\nprevious ", "dim")
        t.append(shown(d["previous_digest"]))
        t.append("  ")
        t.append(shown(self.previous_snap.created_at), "dim")
        t.append("\ncurrent  ", "dim")
        t.append(shown(d["current_digest"]))
        t.append("  ")
        t.append(shown(self.current_snap.created_at), "dim")
        t.append("\n")
        t.append(f"{len(d['changed'])} changed", KIND_STYLE["changed"])
        t.append("  ·  ")
        t.append(f"{len(d['added'])} added", KIND_STYLE["added"])
        t.append("  ·  ")
        t.append(f"{len(d['removed'])} removed", KIND_STYLE["removed"])
        t.append("  ·  ")
        t.append(f"{d['n_unchanged']} unchanged", "dim")
        if self.tiers_path:
            t.append("   tiers ", "dim")
            t.append(shown(self.tiers_path))
        else:
            t.append("   no tiers: coloured by kind (t to load a tiers file)", "dim")
        return t

    def _unchanged(self) -> list[dict]:
        def answers(s: Any) -> dict:
            return {
                p["id"]: (p.get("scoring") or {}).get("answer")
                for p in s.snap.probes
                if (p.get("scoring") or {}).get("type") == "exact_match"
            }

        old, new = answers(self.previous), answers(self.current)
        return [
            {"id": pid, "declared": old[pid], "restated": new[pid]}
            for pid in sorted(set(old) & set(new), key=str)
            if old[pid] == new[pid]
        ]

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        self.rows = []
        for kind in ("changed", "added", "removed"):
            for e in self.doc[kind]:
                self._add(table, kind, e)
        n = self.doc["n_unchanged"]
        if self.show_unchanged:
            for e in self._unchanged():
                self._add(table, "unchanged", e)
        elif n:
            self.rows.append(("more", {}))
            table.add_row(
                Text("="),
                Text(f"{n} unchanged", style="dim"),
                Text(""),
                Text("u to show them", style="dim italic"),
                Text(""),
            )
        if not self.rows:
            self.rows.append(("none", {}))
            table.add_row(Text(""), Text("no probes", style="dim"), Text(""), Text(""), Text(""))

    def _add(self, table: DataTable, kind: str, e: dict) -> None:
        sev = e.get("severity")
        style = tier_style(sev) if sev is not None else KIND_STYLE[kind]
        self.rows.append((kind, e))
        idt = _cell(e.get("id"), 26)
        idt.stylize(style)
        table.add_row(
            Text(KIND_MARK[kind], style=style),
            idt,
            Text(shown(sev), style=style) if sev is not None else Text(""),
            _cell(e.get("declared"), self.cell) if kind != "added" else Text("—", style="dim"),
            _cell(e.get("restated"), self.cell) if kind != "removed" else Text("—", style="dim"),
        )

    # ------------------------------------------------------------------ detail
    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        self._detail(event.cursor_row)
        remeasure(self.query_one("#diff-detail", Static))

    def _detail(self, index: int) -> None:
        box = self.query_one("#diff-detail", Static)
        if not 0 <= index < len(self.rows):
            box.update(Text(""))
            return
        kind, e = self.rows[index]
        if kind in ("more", "none"):
            box.update(
                Text(
                    f"{self.doc['n_unchanged']} probe(s) declare the same value in both seals",
                    style="dim",
                )
            )
            return
        t = Text()
        t.append(f"{kind} ", KIND_STYLE.get(kind, ""))
        t.append(shown(e.get("id")), "bold")
        if e.get("severity") is not None:
            t.append("  severity ", "dim")
            t.append(shown(e["severity"]), tier_style(e["severity"]))
        if e.get("reason"):
            t.append("  " + shown(e["reason"]), "dim")
        t.append("\nprevious  ", "dim")
        t.append(shown(e["declared"]) if e.get("declared") is not None else "(not declared)")
        t.append("\ncurrent   ", "dim")
        t.append(shown(e["restated"]) if e.get("restated") is not None else "(not declared)")
        box.update(t)

    @property
    def selected(self) -> tuple[str, dict] | None:
        row = self.query_one(DataTable).cursor_row
        return self.rows[row] if 0 <= row < len(self.rows) else None

    # ------------------------------------------------------------------ actions
    def _changes(self) -> list[int]:
        return [i for i, (k, _e) in enumerate(self.rows) if k in ("changed", "added", "removed")]

    def action_next_change(self, from_top: bool = False) -> None:
        table = self.query_one(DataTable)
        here = -1 if from_top else table.cursor_row
        later = [i for i in self._changes() if i > here]
        if later:
            table.move_cursor(row=later[0])
            self._detail(later[0])
        elif not from_top:
            self.notify("no later change", markup=False)

    def action_prev_change(self) -> None:
        table = self.query_one(DataTable)
        earlier = [i for i in self._changes() if i < table.cursor_row]
        if earlier:
            table.move_cursor(row=earlier[-1])
            self._detail(earlier[-1])
        else:
            self.notify("no earlier change", markup=False)

    def action_toggle_unchanged(self) -> None:
        self.show_unchanged = not self.show_unchanged
        row = self.query_one(DataTable).cursor_row
        self._fill()
        self.query_one(DataTable).move_cursor(row=min(row, len(self.rows) - 1))

    def set_tiers(self, path: str) -> bool:
        try:
            tiers = export.load_tiers(path)
        except ValueError as e:
            self.notify("tiers not loaded: " + shown(e), markup=False, severity="error")
            return False
        self.tiers, self.tiers_path = tiers, path
        self.doc = diff_seals(self.previous_snap, self.current_snap, tiers=tiers)
        if self.owner is not None:
            self.owner.add_session(
                export.diff_record(
                    self.doc, self.previous.path, self.current.path, tiers_path=path
                ),
                key=("diff", self.previous.path, self.current.path),
            )
        self.query_one("#diff-header", Static).update(self._header())
        self._fill()
        self.action_next_change(from_top=True)
        return True

    def action_tiers(self) -> None:
        def done(value: str | None) -> None:
            if value:
                p = pasted_path(value)
                if p is None:
                    self.notify("no such file: " + shown(value), markup=False, severity="warning")
                else:
                    self.set_tiers(str(p))

        self.app.push_screen(
            PromptScreen(
                "Severity tiers",
                "path to a JSON object {tier: [field, ...]}",
                suggester=PathSuggester(),
                id="diff-tiers-prompt",
            ),
            done,
        )

    def action_export(self) -> None:
        if self.owner is not None:
            self.app.push_screen(self.owner.export_screen())
            return
        rec = export.diff_record(
            self.doc, self.previous.path, self.current.path, tiers_path=self.tiers_path
        )
        self.app.push_screen(
            ExportScreen(self.current.path, kind="snapshot", session=[rec], seal=self.current)
        )
