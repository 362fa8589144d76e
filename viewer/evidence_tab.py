"""EvidenceTab: what every kind of tab (ledger, seal, harn) is to the app.

Each open evidence file is one EvidenceTab. The app knows a tab only through this
base: the file it shows (`path`), what takes the keyboard when it comes to the front
(`focus_default`), the audit report it exports (`export_screen`, when `has_report`)
and its palette entries (`commands`, derived from its bindings). `front_commands(screen)`
is what the palette offers for whatever is in front of a screen.
"""
from __future__ import annotations

from textual.app import SystemCommand
from textual.screen import Screen
from textual.widgets import TabbedContent, TabPane

from sealscope.viewer.commands import binding_commands
from sealscope.viewer.export_action import ExportScreen

__all__ = ["EvidenceTab", "front_commands"]


class EvidenceTab(TabPane):
    """One open evidence file in a tab; subclasses set `path` and implement the rest."""

    path: str
    """The file (or folder) this tab shows, as it was opened."""

    has_report = True
    """Whether `export_screen` has an audit report to write (a folder of ledgers does not)."""

    def focus_default(self) -> None:
        """Give the keyboard to the tab's main widget (on activation)."""
        raise NotImplementedError

    def export_screen(self) -> ExportScreen:
        """The export screen for this tab's audit report, with its session."""
        raise NotImplementedError

    def commands(self) -> list[SystemCommand]:
        """This tab's command-palette entries: its PaletteBindings."""
        return binding_commands(self)


def front_commands(screen: Screen) -> list[SystemCommand]:
    """Palette entries for what is in front on `screen`: the screen's own bindings,
    then those of the evidence tab in front of its tabs (if it has tabs)."""
    out = binding_commands(screen)
    for tabs in screen.query(TabbedContent):
        pane = tabs.get_pane(tabs.active) if tabs.active else None
        if isinstance(pane, EvidenceTab):
            out += pane.commands()
    return out
