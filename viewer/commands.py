"""Command-palette entries derived from key bindings, so a key and its entry cannot drift.

A binding that is also a palette entry is declared as a `PaletteBinding`: the footer
shows its `description`, the palette its `title` and `help`. `binding_commands(node)`
turns the `PaletteBinding`s a node's class declares into `SystemCommand`s, leaving out
those the node's `check_action` refuses at that moment — the same rule that enables
the key. The app yields them from `get_system_commands`, which Textual's system
commands provider puts in the palette. `declared_bindings(node)` is every binding a
node's class declares (palette or not), what the key help lists.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from textual.app import SystemCommand
from textual.binding import Binding
from textual.dom import DOMNode

__all__ = ["PaletteBinding", "binding_commands", "declared_bindings"]


@dataclass(frozen=True)
class PaletteBinding(Binding):
    """A key binding that the command palette offers too, as `title` with `help`."""

    title: str = ""
    help: str = ""


def declared_bindings(node: DOMNode) -> list[Binding]:
    """The bindings of `node`'s class and its bases, most derived first: the keys
    that work on `node` (a class's binding hides its bases' for the same key)."""
    out: list[Binding] = []
    keys: set[str] = set()
    for cls in type(node).__mro__:
        mine = [b if isinstance(b, Binding) else Binding(*b) for b in vars(cls).get("BINDINGS", ())]
        for b in mine:
            free = [k for k in _key_list(b) if k not in keys]
            if free:
                out.append(b if len(free) == len(_key_list(b)) else replace(b, key=",".join(free)))
        keys |= {k for b in mine for k in _key_list(b)}
    return out


def _key_list(b: Binding) -> list[str]:
    return [k.strip() for k in b.key.split(",") if k.strip()]


def _declared(node: DOMNode) -> list[PaletteBinding]:
    """The PaletteBindings of `node`'s class and its bases, most derived first, one
    per action."""
    out: list[PaletteBinding] = []
    for b in declared_bindings(node):
        if isinstance(b, PaletteBinding) and all(b.action != o.action for o in out):
            out.append(b)
    return out


def binding_commands(
    node: DOMNode, allows: Callable[[str], bool | None] | None = None
) -> list[SystemCommand]:
    """Palette entries for `node`'s PaletteBindings that its `check_action` allows now
    (or `allows(action)`, for a node that judges as if the palette were not in front:
    the app, whose keys work on the screen under it); choosing one runs the action as
    its key would."""
    out = []
    for b in _declared(node):
        ok = allows(b.action) if allows is not None else node.check_action(b.action, ())
        if not ok:
            continue
        method = getattr(node, f"action_{b.action}")
        out.append(SystemCommand(b.title or b.description, b.help or b.description, method))
    return out
