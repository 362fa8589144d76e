"""FitFooter: a footer that never cuts a key off, at any width (80 columns included).

Textual's Footer scrolls what does not fit, so at 80 columns the last keys are cut
mid-word. This one shows the key help's key first (whatever its width allows), then
every other shown key that fits whole, in the order Textual gives them (the focused
widget's, the tab's, then the app's); the rest are in the key help and the command
palette, whose key stays on the right. It is composed again when its width changes.
"""
from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

__all__ = ["FitFooter", "HELP_ACTION", "key_width"]

HELP_ACTION = "key_help"   # the app's action that opens the key help: always shown
PALETTE_WIDTH = 13         # the palette key on the right: border, " ^p palette "


def key_width(key_display: str, description: str) -> int:
    """The columns one footer key takes: " key " and "description " (Footer's CSS)."""
    return cell_len(key_display) + 2 + cell_len(description) + (1 if description else 0)


class FitFooter(Footer):
    """Footer keys that fit, whole, with the key help first (see the module)."""

    def __init__(self, **kw: object) -> None:
        super().__init__(**kw)  # type: ignore[arg-type]
        self._width = 0
        self._shown: tuple[Any, ...] | None = None   # what the last compose laid out

    def _plan(self) -> tuple[Any, ...]:
        """What to show at this width: (the keys that fit, each (key, display,
        description, action, enabled, tooltip); the palette key's, or None)."""
        width = self.size.width or self.app.size.width
        room = width - PALETTE_WIDTH - 1
        active = self.screen.active_bindings
        shown, actions = [], set()
        for _node, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in actions:
                actions.add(binding.action)
                shown.append((binding, enabled, tooltip))
        shown.sort(key=lambda s: s[0].action != HELP_ACTION)   # stable: help first
        keys = []
        for binding, enabled, tooltip in shown:
            display = self.app.get_key_display(binding)
            need = key_width(display, binding.description)
            if need > room:
                if binding.action == HELP_ACTION:
                    continue
                break
            room -= need
            keys.append((binding.key, display, binding.description, binding.action, enabled,
                         tooltip))
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            got = active.get(self.app.COMMAND_PALETTE_BINDING)
            if got is not None:
                _node, binding, enabled, _tooltip = got
                palette = (binding.key, self.app.get_key_display(binding), binding.description,
                           binding.action, enabled, binding.tooltip or binding.description)
        return width, tuple(keys), palette

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        self._shown = plan = self._plan()
        self._width, keys, palette = plan
        for key, display, description, action, enabled, tooltip in keys:
            fk = FooterKey(key, display, description, action, disabled=not enabled,
                           tooltip=tooltip, classes="-compact" if self.compact else "")
            # born in the footer's style: Textual's default (compact) would be set, then
            # undone by the binding, restyling every key twice per compose
            fk.set_reactive(FooterKey.compact, self.compact)
            yield fk.data_bind(compact=Footer.compact)
        if palette is not None:
            key, display, description, action, enabled, tooltip = palette
            yield FooterKey(key, display, description, action, classes="-command-palette",
                            disabled=not enabled, tooltip=tooltip)

    async def recompose(self) -> None:
        """Compose again only when what it shows would change: the bindings change
        with every focus move, the keys shown mostly do not."""
        if self._bindings_ready and self._shown is not None and self.is_attached and \
                self._plan() == self._shown:
            return
        await super().recompose()

    def on_resize(self, event: events.Resize) -> None:
        if self._bindings_ready and event.size.width != self._width:
            self.call_after_refresh(self.recompose)
