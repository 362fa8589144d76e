"""Check the current ledger against a head pin or a witness store.

A pin (its text, or a file holding it) goes to `pins.pin_from` / `pins.check_pin`; a
witness store (and one of its namespaces, from `witness.namespaces`) to
`witness.verify_against_witness`.
The check runs in the tab's worker and becomes part of the tab's state (its banner,
verdict and report) until cleared; reopened, the screen shows the pin or the store
and namespace last checked.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from sealscope.core import pins, witness
from sealscope.core.sanitize import clean
from sealscope.viewer.prompt import PathSuggester, pasted_path
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.screen import ModalScreen
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label, Static

if TYPE_CHECKING:
    from sealscope.viewer.ledger_tab import LedgerTab


class PinScreen(ModalScreen[None]):
    DEFAULT_CSS = """
    PinScreen { align: center middle; }
    #pin-box {
        width: 100;
        height: auto;
        padding: 1 2;
        background: $panel;
        border: thick $accent 60%;
    }
    #pin-message { height: auto; margin-top: 1; }
    """
    BINDINGS = [Binding("escape", "dismiss_screen", "Back")]

    def __init__(self, tab: LedgerTab) -> None:
        super().__init__()
        self.tab = tab
        self.namespaces: list[str] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="pin-box"):
            t = Text(end="")
            t.append(" check against a pin or a witness ", "bold reverse")
            t.append(f"  {clean(self.tab.source.name)}")
            yield Static(t)
            with Horizontal(classes="field-row"):
                yield Label("head pin")
                yield Input(placeholder="arcaeon-ledger head chain=… rows=N as_of=…", id="pin")
            yield Static(Text("  or", "dim"))
            with Horizontal(classes="field-row"):
                yield Label("witness store")
                yield Input(
                    placeholder="path to a witness store (.jsonl)",
                    suggester=PathSuggester(),
                    id="store",
                )
            with Horizontal(classes="field-row"):
                yield Label("namespace")
                yield Input(placeholder="namespace in the store", id="namespace")
            yield Static(id="pin-message")

    def on_mount(self) -> None:
        pin = self.tab.check_inputs("pin").get("pin")
        if pin:
            self.query_one("#pin", Input).value = pin
        seen = self.tab.check_inputs("witness")
        if seen.get("witness"):
            self.query_one("#store", Input).value = seen["witness"]
            self.query_one("#namespace", Input).value = seen.get("namespace") or ""
        self.query_one("#pin", Input).focus()

    def _say(self, text: str, style: str = "") -> None:
        self.query_one("#pin-message", Static).update(Text(text, style))

    def on_paste(self, event: events.Paste) -> None:
        if isinstance(self.focused, Input):
            return
        event.stop()
        if event.text.strip().startswith("arcaeon-ledger"):
            self.query_one("#pin", Input).value = event.text.strip()
            self.check_pin(event.text)
            return
        p = pasted_path(event.text)
        if p is not None:
            self.query_one("#store", Input).value = str(p)
            self.load_store(str(p))

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "pin":
            self.check_pin(event.value)
        elif event.input.id == "store":
            self.load_store(event.value)
        else:
            self.check_witness()

    def check_pin(self, text: str) -> None:
        dropped = pasted_path(text)  # a dragged-in pin file arrives quoted or as file://
        try:
            pin = pins.pin_from(str(dropped) if dropped is not None else text)
        except ValueError as e:
            self._say(clean(str(e)), "bold red")
            return
        self.tab.check_pin(pin)
        self.dismiss(None)

    def load_store(self, value: str) -> None:
        p = pasted_path(value)
        if p is None:
            self._say(f"no such file: {clean(value)}", "bold red")
            return
        self.query_one("#store", Input).value = str(p)
        try:
            self.namespaces = witness.namespaces(p)
        except (OSError, ValueError) as e:
            self._say(f"cannot read the store: {clean(str(e))}", "bold red")
            return
        ns_input = self.query_one("#namespace", Input)
        ns_input.suggester = SuggestFromList(self.namespaces)
        stem = self.tab.source.path.stem
        guess = stem if stem in self.namespaces else (self.namespaces[0] if self.namespaces else "")
        if not ns_input.value:
            ns_input.value = guess
        self._say(
            "namespaces: " + ", ".join(clean(n) for n in self.namespaces)
            if self.namespaces
            else "the store holds no namespaces",
            "",
        )
        ns_input.focus()

    def check_witness(self) -> None:
        store = pasted_path(self.query_one("#store", Input).value)
        ns = self.query_one("#namespace", Input).value.strip()
        if store is None:
            self._say("give a witness store path first", "bold red")
            return
        self.tab.check_witness(store, ns)
        self.dismiss(None)

    def action_dismiss_screen(self) -> None:
        self.dismiss(None)
