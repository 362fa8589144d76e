"""Command-palette entries derived from key bindings, so a key and its entry cannot drift.

A binding that is also a palette entry is declared as a `PaletteBinding`: the footer
shows its `description`, the palette its `title` and `help`. `binding_commands(node)`
turns the `PaletteBinding`s a node's class declares into `SystemCommand`s, leaving out
those the node's `check_action` refuses at that moment — the same rule that enables
the key. The app yields them from `get_system_commands`, which Textual's system
commands provider puts in the palette.
"""
from __future__ import annotations

from dataclasses import dataclass

from textual.app import SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode

__all__ = ["PaletteBinding", "binding_commands"]


@dataclass(frozen=True)
class PaletteBinding(Binding):
    """A key binding that the command palette offers too, as `title` with `help`."""

    title: str = ""
    help: str = ""


def _declared(node: DOMNode) -> list[PaletteBinding]:
    """The PaletteBindings of `node`'s class and its bases, most derived first, one
    per action."""
    out: list[PaletteBinding] = []
    actions: set[str] = set()
    for cls in type(node).__mro__:
        for b in vars(cls).get("BINDINGS", ()):
            if isinstance(b, PaletteBinding) and b.action not in actions:
                actions.add(b.action)
                out.append(b)
    return out


def binding_commands(node: DOMNode) -> list[SystemCommand]:
    """Palette entries for `node`'s PaletteBindings that its `check_action` allows now;
    choosing one runs the action as its key would."""
    out = []
    for b in _declared(node):
        if not node.check_action(b.action, ()):
            continue
        method = getattr(node, f"action_{b.action}")
        out.append(SystemCommand(b.title or b.description, b.help or b.description, method))
    return out
