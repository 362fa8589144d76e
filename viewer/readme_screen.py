"""The bundled samples' README in the app (`R`, also from the key help, or the command
palette): what each sample file is and what the viewer should show for it. It is read
from the installed samples (`sealscope.sample_ledgers`), so it is the same text in a
checkout and in a wheel. The README is the project's own text, not evidence, so it is
rendered as Markdown."""

from __future__ import annotations

from sealscope.sample_ledgers import README
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, MarkdownViewer


class SamplesReadmeScreen(Screen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        try:
            text = README.read_text(encoding="utf-8")
        except OSError as e:
            text = f"The samples' README could not be read: `{type(e).__name__}`."
        yield Header()
        yield MarkdownViewer(text, show_table_of_contents=False, id="samples-readme")
        yield Footer()
