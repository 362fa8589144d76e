"""Small shared pieces: a one-line prompt modal, a modal offering a few choices or a
path, a path suggester, and the reading of a path pasted (or dragged) into the
terminal.

A relative path (typed, completed or pasted) is looked for in a base folder first, then
in the current directory: the folder given (the held-content dialog gives its
ledger's), else the running app's `relative_base()` (the folder of the file of the tab
in front), so a sample's walkthrough works with the paths its README gives from
wherever sealscope was started (`base_folder`).
"""

from __future__ import annotations

import os
import shlex
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import unquote, urlparse

from rich.text import Text
from sealscope.core.sanitize import clean
from sealscope.viewer.style import dialog_css, json_text
from textual import active_app, events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.suggester import Suggester
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option


def base_folder(base: Path | None = None) -> Path | None:
    """Where a relative path is looked for first: `base`, else the running app's
    `relative_base()` (None outside an app, or when it has none)."""
    if base is not None:
        return base
    try:
        app = active_app.get()
    except LookupError:
        return None
    get = getattr(app, "relative_base", None)
    return get() if callable(get) else None


def _folders(value: str, base: Path | None) -> list[str]:
    """The folders a relative `value` is tried in, in order: the base, then the cwd."""
    if os.path.isabs(value):
        return [""]
    b = base_folder(base)
    return ([str(b)] if b is not None else []) + [""]


class PathSuggester(Suggester):
    """Completes the last path component from the file system (directories get `/`);
    a relative path in the base folder first, then the current directory (`base_folder`)."""

    def __init__(self, base: Path | None = None) -> None:
        super().__init__(use_cache=False, case_sensitive=True)
        self.base = base

    async def get_suggestion(self, value: str) -> str | None:
        if not value:
            return None
        expanded = os.path.expanduser(value)
        head, tail = os.path.split(expanded)
        for folder in _folders(expanded, self.base):
            try:
                where = os.path.join(folder, head) if folder else head
                names = sorted(
                    e.name + ("/" if e.is_dir() else "") for e in os.scandir(where or ".")
                )
            except OSError:
                continue
            for name in names:
                if name.startswith(tail) and name != tail:
                    if name.startswith(".") and not tail.startswith("."):
                        continue
                    return value + name[len(tail) :]
        return None


def pasted_path(text: str, base: Path | None = None) -> Path | None:
    """The existing path in pasted text: a drag-and-drop gives a quoted or
    backslash-escaped path, or a `file://` URI; a relative one in the base folder
    first, then the current directory (`base_folder`). None when it names nothing."""
    text = (text or "").strip()
    if not text:
        return None
    first = text.splitlines()[0].strip()
    candidates = [first]
    if first.startswith("file://"):
        candidates.insert(0, unquote(urlparse(first).path))
    try:
        parts = shlex.split(first)
        if parts:
            candidates.append(parts[0])
            candidates.append(" ".join(parts))
    except ValueError:
        pass
    if len(first) > 1 and first[0] == first[-1] and first[0] in "'\"":
        candidates.append(first[1:-1])
    for c in candidates:
        expanded = os.path.expanduser(c)
        for folder in _folders(expanded, base):
            p = Path(folder, expanded) if folder else Path(expanded)
            try:
                if p.exists():
                    return p
            except (OSError, ValueError):
                continue
    return None


class PromptScreen(ModalScreen[str | None]):
    """Ask for one line; dismiss with the text, or None on escape."""

    DEFAULT_CSS = (
        dialog_css("PromptScreen", "prompt-box", 80)
        + "#prompt-hint { margin-top: 1; width: 100%; }   /* wraps: never cut off */"
    )

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        placeholder: str = "",
        value: str = "",
        suggester: Suggester | None = None,
        hint: str = "",
        restrict: str | None = None,
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._title, self._placeholder, self._value = title, placeholder, value
        self._suggester, self._hint, self._restrict = suggester, hint, restrict

    def compose(self) -> ComposeResult:
        with Vertical(id="prompt-box"):
            yield Label(Text(self._title, "bold"), id="prompt-title")
            yield Input(
                value=self._value,
                placeholder=self._placeholder,
                suggester=self._suggester,
                restrict=self._restrict,
                id="prompt-input",
            )
            if self._hint:
                yield Label(Text(self._hint, "dim"), id="prompt-hint")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def action_cancel(self) -> None:
        self.dismiss(None)


class ChoiceScreen(ModalScreen[str | None]):
    """Pick one of `choices` ((label, value): a label is `Text` built by the caller,
    evidence in it sanitized) with the arrows and Enter, or type a path (completed from
    the file system) below them; typing while the list has the keyboard types there.
    Dismiss with the value or the typed text, None on escape."""

    DEFAULT_CSS = (
        dialog_css("ChoiceScreen", "choice-box", 80, max_height="90%")
        + """
    #choice-list { height: auto; max-height: 12; margin-bottom: 1; }
    #choice-hint { margin-top: 1; width: 100%; }
    """
    )

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(
        self,
        title: str,
        choices: Sequence[tuple[Text, str]],
        placeholder: str = "or a path",
        id: str | None = None,
    ) -> None:
        super().__init__(id=id)
        self._title, self._placeholder = title, placeholder
        self.choices = list(choices)

    def compose(self) -> ComposeResult:
        with Vertical(id="choice-box"):
            yield Label(Text(self._title, "bold"), id="choice-title")
            yield OptionList(
                *[Option(label) for label, _v in self.choices], id="choice-list", markup=False
            )
            yield Input(
                placeholder=self._placeholder,
                suggester=PathSuggester(),
                select_on_focus=False,
                id="choice-input",
            )
            yield Label(
                Text("↑ ↓ and Enter pick an open one · or type a path, Enter · Esc cancels", "dim"),
                id="choice-hint",
            )

    def on_mount(self) -> None:
        ol = self.query_one(OptionList)
        if self.choices:
            ol.highlighted = 0
            ol.focus()
        else:
            ol.display = False
            self.query_one(Input).focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        self.dismiss(self.choices[event.option_index][1])

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.dismiss(event.value)

    def on_key(self, event: events.Key) -> None:
        """A character typed on the list (or before it has the keyboard) starts a path
        in the input."""
        if not isinstance(self.focused, Input) and event.is_printable and event.character:
            event.stop()
            inp = self.query_one(Input)
            inp.focus()
            inp.insert_text_at_cursor(event.character)

    def action_cancel(self) -> None:
        self.dismiss(None)


def preview(value, width: int = 70) -> str:
    """A one-line, sanitized preview of a held item."""
    if isinstance(value, (bytes, bytearray)):
        b = bytes(value[:width])
        try:
            shown = b.decode("utf-8")
        except UnicodeDecodeError:
            shown = b.hex(" ")
        s = f"bytes[{len(value)}] {shown}"
    else:
        s = json_text(value)
    s = clean(s)
    return s if len(s) <= width else s[: width - 1] + "…"
