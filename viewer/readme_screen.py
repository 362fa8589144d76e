"""The bundled samples' README in the app (`R`, also from the key help, or the command
palette): what each sample file is and what the viewer should show for it. It is read
from the installed samples (`sealscope.sample_ledgers`), so it is the same text in a
checkout and in a wheel. The README is the project's own text, not evidence, so it is
rendered as Markdown; above it, the samples' absolute folder, where a pip install put
them (a prompt looks a relative path up beside the file in front first, then in the
current directory: `prompt.base_folder`)."""

from __future__ import annotations

from rich.text import Text
from sealscope.core.sanitize import clean
from sealscope.sample_ledgers import FOLDER, README
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, Header, MarkdownViewer, Static


def samples_folder_text() -> Text:
    """The line above the README: the samples' absolute folder."""
    t = Text(" the samples are in ", "dim")
    t.append(clean(str(FOLDER.resolve())), "bold")
    t.append(
        "  · a relative path in a prompt is looked for beside the file in front, "
        "then in the current directory",
        "dim",
    )
    return t


class SamplesReadmeScreen(Screen):
    DEFAULT_CSS = "#samples-folder { height: auto; background: $boost; }"

    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def compose(self) -> ComposeResult:
        try:
            text = README.read_text(encoding="utf-8")
        except OSError as e:
            text = f"The samples' README could not be read: `{type(e).__name__}`."
        yield Header()
        yield Static(samples_folder_text(), id="samples-folder")
        yield MarkdownViewer(text, show_table_of_contents=False, id="samples-readme")
        yield Footer()
