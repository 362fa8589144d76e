"""CaseTab: the case's own tab — its entries, open findings on top, then newest first.

The order is core's (`core.case.rows.newest_first`); each line is core's description
of the entry (`rows.describe`), sanitized. The header names the case, its own verdict
(its chain, `store.read_case`) and its head. The label shows the count of open
findings. `Enter` on an entry anchored to a ledger row brings that ledger's tab to the
front at that row (`JumpToLedgerRow`, to the tab showing that file).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from sealscope.core import verdict
from sealscope.core.case.rows import OPEN, describe, findings_of, newest_first
from sealscope.core.sanitize import clean
from sealscope.viewer.case_link import resolved_path
from sealscope.viewer.messages import JumpToLedgerRow
from sealscope.viewer.style import TONE_STYLE
from textual.app import ComposeResult
from textual.widgets import OptionList, Static, TabbedContent, TabPane
from textual.widgets.option_list import Option

if TYPE_CHECKING:
    from sealscope.core.case.rows import CaseEntry
    from sealscope.viewer.case_link import CaseLink

__all__ = ["CaseTab", "case_label"]


def case_label(link: CaseLink) -> str:
    """The tab's label: `case · K open`."""
    k = sum(1 for f in findings_of(link.entries) if f.status == OPEN)
    return f"case · {k} open"


class CaseTab(TabPane):
    """The entries of the case `link` (see the module)."""

    DEFAULT_CSS = """
    CaseTab #case-head { height: auto; padding: 0 1; }
    CaseTab OptionList { height: 1fr; }
    """

    def __init__(self, link: CaseLink, **kw: Any) -> None:
        super().__init__(case_label(link), **kw)
        self.link = link
        self._shown: list[CaseEntry] = []

    def compose(self) -> ComposeResult:
        yield Static(id="case-head")
        yield OptionList(id="case-entries")

    def on_mount(self) -> None:
        self.show()

    def main_widget(self) -> OptionList:
        return self.query_one(OptionList)

    def focus_default(self) -> None:
        self.main_widget().focus()

    def _head(self) -> Text:
        read = self.link.read
        if read is None:
            return Text("case  " + clean(self.link.error), TONE_STYLE["fail"])
        word = read.verdict
        text = Text()
        text.append(f"{verdict.glyph(word)} {word}", TONE_STYLE[verdict.tone(word)])
        text.append(f"  case {clean(read.path)}")
        reason = read.reason()
        if reason:
            text.append(f"  {clean(reason)}")
        text.append(f"\nhead rows {read.head_rows} chain {clean(str(read.head_chain))}", "dim")
        return text

    def show(self) -> None:
        """List the case as read now (and relabel the tab)."""
        self.query_one("#case-head", Static).update(self._head())
        entries = self.link.entries
        ids = {f.entry.line: f.id for f in findings_of(entries)}
        open_lines = {f.entry.line for f in findings_of(entries) if f.status == OPEN}
        self._shown = newest_first(entries)
        options = self.query_one(OptionList)
        options.clear_options()
        for e in self._shown:
            line = Text()
            style = "bold red" if e.line in open_lines else ""
            line.append(f"{e.line:>4}  {e.entry:<8} ", style)
            line.append(clean(str(e.get("ts")))[:20] + "  ", "dim")
            line.append(clean(describe(e, ids)), style)
            options.add_option(Option(line))
        try:
            tab = self.query_ancestor(TabbedContent).get_tab(self)
        except Exception:  # noqa: BLE001 - not in a TabbedContent (yet)
            return
        tab.label = case_label(self.link)

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        if not 0 <= event.option_index < len(self._shown):
            return
        on = self._shown[event.option_index].get("on")
        if isinstance(on, dict) and isinstance(on.get("line"), int):
            want = resolved_path(str(on.get("path")))
            for lt in getattr(self.app, "ledger_tabs", list)():
                if resolved_path(lt.path) == want:
                    self.post_message(JumpToLedgerRow(lt.path, on["line"]))
                    return
            self.app.notify("the anchored file is not open in a tab", markup=False)
