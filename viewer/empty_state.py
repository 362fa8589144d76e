"""The main area while no tab is open: the files given that could not be opened, each
with its reason (a FIFO, a device, an unreadable or missing file), and how to open
another. A notification fades; this stays until a tab opens (`sealscope FIFO` alone
would otherwise leave a blank screen). The app passes lines it built from
`sanitize.clean`ed paths and reasons; they are shown as plain text, never as markup."""

from __future__ import annotations

from collections.abc import Sequence

from rich.text import Text
from textual.widgets import Static

HOW = "press o to open a ledger, seal, harn file or folder · q quits"


class EmptyState(Static):
    """Why nothing is open: one line per refused path, then what to do."""

    DEFAULT_CSS = """
    EmptyState {
        height: 1fr;
        padding: 1 2;
    }
    """

    def __init__(self, refused: Sequence[str]) -> None:
        text = Text()
        if refused:
            text.append("Nothing could be opened.\n\n", "bold")
            for line in refused:
                text.append("✗ ", "bold red")
                text.append(line + "\n")
        else:
            text.append("No files open.\n", "bold")
        text.append("\n" + HOW, "dim")
        super().__init__(text, id="empty-state")
