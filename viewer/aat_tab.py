"""AatTab: an agent-audit-trail export (`arcaeon export --format agent-audit-trail`,
KINDS.md §10) as a ledger-like tab with the export's own chain rule, read-only.

An AAT export carries its ledger's `chain` values, which a ledger verifier reads as a
mismatch on every line; its own chain is `prev_hash` over the previous line's bytes.
The banner is core's check of that chain (`KindCheck` of kind `aat-export`): VERIFIED
with the number of records and the head (the hash of the last line, which nothing
else protects: quirk 47), or BROKEN at the line where the chain breaks. So an honest
export never reads BROKEN here. Below: one row per line (its number, action type,
tool, outcome, timestamp, prev_hash), the line the chain breaks at marked ✗.

The banner (`check_list.KindBanner`) runs the check, then the listing runs in a thread
worker; the file is only read.
"""

from __future__ import annotations

import os
from typing import Any

from rich.text import Text
from sealscope.core.checks.result import KindCheck
from sealscope.viewer.check_list import (
    KindBanner,
    check_of,
    export_screen_of,
    outcome_of,
    show_checks,
)
from sealscope.viewer.evidence_tab import CLEAR_CHECKS, EvidenceTab, tab_label, tab_title
from sealscope.viewer.kind_view import AAT, KIND_TITLE, RowJson, line_of
from sealscope.viewer.style import shown
from sealscope.viewer.unit_read import aat_rows
from textual import work
from textual.app import ComposeResult
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.widgets import OptionList
from textual.widgets.option_list import Option

__all__ = ["AatTab", "AatRows", "aat_prompt"]


def _cell(value: Any, width: int) -> str:
    s = shown(value)
    return (s if len(s) <= width else s[: width - 1] + "…").ljust(width)


def aat_prompt(line: int, rec: Any, bad: bool = False) -> Text:
    """One AAT line: its number, action type, tool, outcome, timestamp, prev_hash."""
    t = Text(no_wrap=True, overflow="ellipsis", end="")
    t.append("✗ " if bad else "  ", "bold red")
    t.append(f"{line:>5} ", "bold red" if bad else "dim")
    if not isinstance(rec, dict):
        t.append("not a JSON object: ", "bold red")
        t.append(shown(rec)[:120])
        return t
    detail = rec.get("action_detail")
    tool = detail.get("tool_name") if isinstance(detail, dict) else None
    t.append(_cell(rec.get("action_type"), 11) + " ", "bold")
    t.append(_cell(tool, 18) + " ")
    t.append(_cell(rec.get("outcome"), 8) + " ")
    t.append(_cell(rec.get("timestamp"), 21) + " ", "dim")
    t.append("src " + _cell(rec.get("source_line"), 5) + " ", "dim")
    prev = rec.get("prev_hash")
    t.append("prev " + (_cell(prev, 14) if prev is not None else "— (first)"), "cyan")
    return t


class AatRows(OptionList):
    """The lines of an AAT export, one each (its marks in the key help)."""

    LEGEND_TITLE = "AAT export lines"
    LEGEND = (
        (
            "✗",
            "bold red",
            (
                "the line the export's own chain breaks at (its "
                "prev_hash is not the hash of the line before)"
            ),
        ),
    )


class AatTab(EvidenceTab):
    """The tab of one AAT export."""

    DEFAULT_CSS = """
    AatTab { layout: vertical; padding: 0; }
    AatTab #aat-rows {
        height: 1fr;
        border: none;
        padding: 0;
        text-wrap: nowrap;
        text-overflow: ellipsis;
    }
    """

    has_report = True
    export_screen = export_screen_of
    kind = AAT
    kind_name = KIND_TITLE[AAT]

    rows: reactive[tuple[tuple[int, Any], ...] | None] = reactive(None, init=False)

    BINDINGS = [CLEAR_CHECKS]

    def __init__(
        self, path: str | os.PathLike[str], *, id: str | None = None, check: KindCheck | None = None
    ) -> None:
        self.path = os.fspath(path)
        self.tab_name = tab_label(os.path.basename(self.path))
        super().__init__(tab_title(self.tab_name, None), id=id)
        self._given = check
        self.total = 0
        self.read_error: str | None = None

    def compose(self) -> ComposeResult:
        yield KindBanner(
            os.path.basename(self.path), self.path, AAT, check=self._given, id="aat-banner"
        )
        yield AatRows(id="aat-rows")
        yield RowJson(Text("", end=""), id="aat-row")

    def on_kind_banner_checked(self, m: KindBanner.Checked) -> None:
        """The export's lines are read once core's check has run (the line it names
        is marked)."""
        m.stop()
        self.judge()
        self._load()

    @work(thread=True, exclusive=True, group="aat-check")
    def _load(self) -> None:
        rows, total, err = aat_rows(self.path)
        self.total, self.read_error = total, err
        self.app.call_from_thread(setattr, self, "rows", tuple(rows))

    def main_widget(self) -> OptionList:
        return self.query_one("#aat-rows", OptionList)

    check = property(check_of, doc="Core's check of the export (the banner's; None while it runs).")

    @property
    def break_line(self) -> int | None:
        """The line core's check says the chain breaks at (None when it holds)."""
        d = self.check.detail if self.check is not None else {}
        line = d.get("line") if isinstance(d, dict) and self.check and not self.check.ok else None
        return line if isinstance(line, int) and not isinstance(line, bool) else None

    def watch_rows(self) -> None:
        self._draw_rows()

    def _draw_rows(self) -> None:
        if self.rows is None:
            return
        try:
            ol = self.query_one("#aat-rows", OptionList)
        except NoMatches:  # not composed yet
            return
        keep = ol.highlighted
        ol.clear_options()
        bad = self.break_line
        ol.add_options(
            [Option(aat_prompt(n, rec, n == bad), id=f"line-{n}") for n, rec in self.rows]
        )
        if self.read_error:
            ol.add_option(
                Option(Text("  " + shown(self.read_error), style="yellow"), disabled=True)
            )
        elif self.total > len(self.rows):
            ol.add_option(
                Option(
                    Text(f"  … {self.total - len(self.rows):,} more lines", style="dim"),
                    disabled=True,
                )
            )
        if keep is not None and keep < len(self.rows):
            ol.highlighted = keep
        elif self.rows:  # the line the chain breaks at, else the first
            ol.highlighted = bad - 1 if bad is not None and bad <= len(self.rows) else 0

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        line = line_of(event.option.id)
        got = dict(self.rows or ()).get(line) if line is not None else None
        if line is not None:
            self.query_one(RowJson).show(line, got)

    own_outcome = outcome_of

    def checks_changed(self) -> None:
        show_checks(self)
