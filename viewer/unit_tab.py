"""UnitTab: an evidence pack or an audit-export bundle — a folder or a zip — opened as
one unit (KINDS.md §8, §9), read-only.

Top: the unit's own verdict (`check_list.KindBanner`): the reference's word for a pack
with each of its checks (`file hashes`, `records chain and head`, ...) and its word;
a bundle's chain, stated with what it does not cover (manifest, integrity file and
summary are not checked by the reference). Left: the members, each with the digest
its manifest lists and the digest of its bytes now (`unit_read`); right: the rows of
its ledger `records.jsonl`, a pack's window rows marked ▶ (a simple row list: the
full ledger tab of a folder's `records.jsonl` is one key away, `L`, with every ledger
feature; a zip's ledger is never extracted to open one).

`x` writes the unit's report (`check_list.export_screen_of`: its checks, its ledger
audit, its members, bound to the zip's digest or each member's: what `sealscope export
PATH` writes). The banner runs the check, then the listing runs in a thread worker;
nothing is written or extracted.
"""

from __future__ import annotations

import os
from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from sealscope.core.checks.result import KindCheck
from sealscope.core.rows import row_kind
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
    BUNDLE,
    KIND_TITLE,
    PACK,
    RowJson,
    check_lines,
    line_of,
)
from sealscope.viewer.messages import OpenAtFirstBreak
from sealscope.viewer.style import shown
from sealscope.viewer.unit_read import Member, UnitView, read_unit
from textual import work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.reactive import reactive
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

__all__ = ["UnitTab", "UnitRows", "row_prompt", "members_table", "ROW_TEXT"]

ROW_TEXT = 160  # characters of a row's JSON in the row list


def _short_hex(h: str | None, n: int = 8) -> str:
    if h is None:
        return "—"
    s = shown(h)
    return s if len(s) <= n else s[:n] + "…"


def row_prompt(line: int, obj: Any, mark: bool = False, bad: bool = False) -> Text:
    """One row as the unit's row list draws it: its line, ▶ when marked (a pack's
    window row), its kind, its JSON (sanitized, cut); ✗ and red when `bad`."""
    t = Text(no_wrap=True, overflow="ellipsis", end="")
    t.append("✗ " if bad else ("▶ " if mark else "  "), "bold red" if bad else "bold cyan")
    t.append(f"{line:>5} ", "bold red" if bad else "dim")
    kind = row_kind(obj) if isinstance(obj, dict) else ""
    t.append(f"{shown(kind)[:22]:<22} ", "bold" if kind else "dim")
    text = shown(obj)
    t.append(text if len(text) <= ROW_TEXT else text[: ROW_TEXT - 1] + "…")
    return t


def members_table(members: list[Member], listed: bool = True) -> Table:
    """Member · listed digest · actual digest · note (a digest that differs from the one
    listed is drawn red; the word on it is the `file hashes` check's). `listed` False:
    a unit whose manifest lists no digests (an audit bundle), the actual digest only."""
    t = Table(
        show_header=True, header_style="bold", box=None, expand=True, pad_edge=False, padding=(0, 1)
    )
    t.add_column("member", no_wrap=True, overflow="ellipsis", min_width=22, ratio=1)
    if listed:
        t.add_column("listed", no_wrap=True)
    t.add_column("actual", no_wrap=True)
    t.add_column("", no_wrap=True, overflow="ellipsis", min_width=8)
    for m in members:
        if m.matches is not None:  # core's answer for the member
            differs = not m.matches and m.listed is not None
        else:
            differs = (
                m.listed is not None
                and m.actual is not None
                and m.listed.lower() != m.actual.lower()
            )
        unlisted = listed and m.listed is None and m.actual is not None and not m.note
        style = "bold red" if differs or unlisted else ""
        note = m.note or ("differs" if differs else "not listed" if unlisted else "")
        cells = [Text(shown(m.name))]
        if listed:
            cells.append(Text(_short_hex(m.listed)))
        cells += [Text(_short_hex(m.actual), style), Text(shown(note), style or "dim")]
        t.add_row(*cells)
    return t


class UnitRows(OptionList):
    """The rows of a unit's `records.jsonl`, one line each (its marks in the key help)."""

    LEGEND_TITLE = "records.jsonl rows"
    LEGEND = (
        ("▶", "bold cyan", "a row of the pack's window (window.jsonl)"),
        (
            "✗",
            "bold red",
            (
                "a row the unit's check names: where the chain first "
                "breaks, or a window row that differs from its line"
            ),
        ),
    )


class UnitTab(EvidenceTab):
    """The tab of one evidence pack or audit bundle (`kind`), folder or zip."""

    DEFAULT_CSS = """
    UnitTab { layout: vertical; padding: 0; }
    UnitTab #unit-body { height: 1fr; }
    UnitTab #unit-left {
        width: 62;
        height: 1fr;
        padding: 0 1;
        border-right: vkey $primary 50%;
        scrollbar-size-vertical: 1;
    }
    UnitTab #unit-members { height: auto; }
    UnitTab #unit-right { width: 1fr; height: 1fr; }
    UnitTab #unit-rows {
        width: 1fr;
        height: 1fr;
        border: none;
        padding: 0;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    has_report = True
    export_screen = export_screen_of

    view: reactive[UnitView | None] = reactive(None, init=False)

    BINDINGS = [
        PaletteBinding(
            "L",
            "open_ledger",
            "Ledger tab",
            title="Open records.jsonl as a ledger",
            help="The unit's ledger in its own tab, with every ledger feature "
            "(a folder's; a zip is never extracted)",
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
        self.path = os.fspath(path)
        self.kind = kind if kind in (PACK, BUNDLE) else PACK
        self.kind_name = KIND_TITLE[self.kind]
        self.tab_name = os.path.basename(os.path.normpath(self.path)) or self.path
        super().__init__(tab_title(self.tab_name, None), id=id)
        self._given = check

    def compose(self) -> ComposeResult:
        yield KindBanner(self.tab_name, self.path, self.kind, check=self._given, id="unit-banner")
        with Horizontal(id="unit-body"):
            with VerticalScroll(id="unit-left"):
                yield Static(Text("members: reading…", style="dim"), id="unit-members")
            with Vertical(id="unit-right"):
                yield UnitRows(id="unit-rows")
                yield RowJson(Text("", end=""), id="unit-row")

    @work(thread=True, exclusive=True, group="unit-check")
    def _load(self, got: KindCheck) -> None:
        unit = read_unit(self.path, got.detail)
        self.app.call_from_thread(setattr, self, "view", unit)

    def main_widget(self) -> OptionList:
        return self.query_one("#unit-rows", OptionList)

    check = property(check_of, doc="Core's check of the unit (the banner's; None while it runs).")

    # ------------------------------------------------------------------ state
    def on_kind_banner_checked(self, m: KindBanner.Checked) -> None:
        """The unit's members and rows are read once core's check has named them."""
        m.stop()
        self.judge()
        self._load(m.check)

    def watch_view(self) -> None:
        if self.view is None:
            return
        v = self.view
        head = Text(end="")
        head.append(f" members: {len(v.members)}\n", "bold underline")
        for e in v.errors:
            head.append(" " + shown(e) + "\n", "italic yellow")
        members = self.query_one("#unit-members", Static)
        notes = self.notes_text()
        if v.members:
            members.update(Group(head, members_table(v.members, self.kind == PACK), notes))
        else:
            members.update(Group(head, notes))
        rows = self.query_one("#unit-rows", OptionList)
        rows.clear_options()
        bad = self.flagged_lines()
        rows.add_options(
            [
                Option(row_prompt(n, obj, n in v.window, n in bad), id=f"line-{n}")
                for n, obj in v.rows
            ]
        )
        if v.rows_total > len(v.rows):
            rows.add_option(
                Option(
                    Text(
                        f"  … {v.rows_total - len(v.rows):,} more rows: open the ledger tab (L)",
                        style="dim",
                    ),
                    disabled=True,
                )
            )
        if not v.rows:
            rows.add_option(
                Option(Text("  no rows read from records.jsonl", style="dim"), disabled=True)
            )
        else:  # the first row core's check names, else the first
            first = next((i for i, (n, _o) in enumerate(v.rows) if n in bad), 0)
            rows.highlighted = first

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        line = line_of(event.option.id)
        if line is not None and self.view is not None:
            self.query_one(RowJson).show(line, dict(self.view.rows).get(line))

    own_outcome = outcome_of

    def checks_changed(self) -> None:
        show_checks(self)

    def notes_text(self) -> Text:
        """Each check's note in full (the banner cuts them to a line)."""
        t = Text(end="")
        lines = (
            [line for line in check_lines(self.check) if line.note]
            if self.check is not None
            else []
        )
        if lines:
            t.append("\n checks, in full\n", "bold underline")
        for line in lines:
            t.append(f" {line.name}: ", "bold")
            t.append(line.note + "\n", "dim")
        return t

    def flagged_lines(self) -> frozenset[int]:
        """The `records.jsonl` lines core's check names: where the chain first breaks
        (`first_break`, "line N: ..."), and a pack's window rows that differ from their
        records lines (`differ_lines`)."""
        d = self.check.detail if self.check is not None else {}
        out: set[int] = set()
        found = (
            [d, *[c for c in d.get("checks") or [] if isinstance(c, dict)]]
            if isinstance(d, dict)
            else []
        )
        for part in found:
            fb = part.get("first_break")
            if isinstance(fb, str) and fb.startswith("line "):
                head = fb[5:].partition(":")[0]
                if head.isdigit():
                    out.add(int(head))
            differ = part.get("differ_lines")
            if isinstance(differ, list):
                out.update(n for n in differ if isinstance(n, int) and not isinstance(n, bool))
        return frozenset(out)

    @property
    def window_lines(self) -> frozenset[int]:
        return self.view.window if self.view is not None else frozenset()

    # ------------------------------------------------------------------ its ledger
    def records_path(self) -> str | None:
        """A folder unit's `records.jsonl`, when it is a regular file (not a link)."""
        if not os.path.isdir(self.path):
            return None
        p = os.path.join(self.path, "records.jsonl")
        return p if os.path.isfile(p) and not os.path.islink(p) else None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "open_ledger":
            return self.records_path() is not None
        return super().check_action(action, parameters)

    def action_open_ledger(self) -> None:
        p = self.records_path()
        if p is not None:
            self.post_message(OpenAtFirstBreak(p))
