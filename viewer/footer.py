"""FitFooter: a footer that never cuts a key off, at any width (80 columns included).

Textual's Footer scrolls what does not fit, so at 80 columns the last keys are cut
mid-word. This one shows the key help's key first (whatever its width allows), then
every other shown key that fits whole, in the order Textual gives them (the focused
widget's, the tab's, then the app's); the rest are in the key help and the command
palette, whose key stays on the right. It is planned again when the screen's bindings
or its width change.

It is one widget that draws its one line itself, in the look of Textual's Footer and
FooterKey (their CSS, columns and colours; the key under the mouse highlighted, its
tooltip shown): a Footer composes a FooterKey widget per key, and mounting, styling and
rendering a dozen of them cost more than the rest of the first screen.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.color import Color
from textual.css.styles import StylesBase
from textual.reactive import reactive
from textual.screen import Screen
from textual.strip import Strip
from textual.widget import Widget

__all__ = ["FitFooter", "HELP_ACTION", "ShownKey", "key_width"]

HELP_ACTION = "key_help"  # the app's action that opens the key help: always shown
PALETTE_WIDTH = 13  # the palette key on the right: border, " ^p palette "


def key_width(key_display: str, description: str) -> int:
    """The columns one footer key takes: " key " and "description " (Footer's CSS)."""
    return cell_len(key_display) + 2 + cell_len(description) + (1 if description else 0)


class ShownKey(NamedTuple):
    """One key the footer shows."""

    key: str  # what a click presses
    display: str
    description: str
    action: str
    enabled: bool
    tooltip: str


class _Ink(NamedTuple):
    """Colours and text style folded down the DOM, as DOMNode.rich_style folds them."""

    background: Color
    color: Color
    style: Style
    opacity: float

    def over(self, styles: StylesBase) -> _Ink:
        background, color, style, opacity = self
        opacity *= styles.opacity
        text_background = background
        if styles.has_rule("background"):
            layer = styles.background.tint(styles.background_tint)
            text_background = background + layer
            background += layer.multiply_alpha(opacity)
        if styles.has_rule("color"):
            color = styles.color
        style += styles.text_style
        if styles.has_rule("auto_color") and styles.auto_color:
            color = text_background.get_contrast_text(color.a)
        return _Ink(background, color, style, opacity)

    @property
    def rich(self) -> Style:
        background, color = self.background, self.color
        return self.style + Style.from_color(
            (background + color).rich_color if (background.a or color.a) else None,
            background.rich_color if background.a else None,
        )


class FitFooter(Widget, can_focus=False):
    """Footer keys that fit, whole, with the key help first (see the module)."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "footer-key--key",
        "footer-key--description",  # FooterKey's own
        "fit-footer--item",
        "fit-footer--hover",
        "fit-footer--border",
    }
    # Footer's and FooterKey's CSS (textual.widgets._footer); a key is an "item" under
    # its key and description, "hover" under the mouse; the palette key's left border
    DEFAULT_CSS = """
    FitFooter {
        color: $footer-foreground;
        background: $footer-background;
        dock: bottom;
        height: 1;
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .fit-footer--item { background: $footer-item-background; }
        .fit-footer--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        .fit-footer--border { color: $foreground 20%; }
    }
    """

    compact = reactive(False, toggle_class="-compact")
    """Display in compact style (Footer's)."""
    show_command_palette = reactive(True)
    """Show the command palette's key on the right (Footer's)."""

    def __init__(
        self,
        *,
        name: str | None = None,
        id: str | None = None,
        classes: str | None = None,
        show_command_palette: bool = True,
        compact: bool = False,
    ) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.set_reactive(FitFooter.show_command_palette, show_command_palette)
        self.set_reactive(FitFooter.compact, compact)
        self.set_class(compact, "-compact", update=False)
        self._bindings_ready = False
        self._shown: tuple[Any, ...] | None = None  # the plan drawn: (width, keys, palette)
        self._line: Strip | None = None  # the line drawn, until a change
        self._spans: list[tuple[int, int, ShownKey]] = []  # x from, x to, key
        self._hover: ShownKey | None = None
        self._styles: dict[tuple[str, bool, bool], Style] = {}

    # ------------------------------------------------------------------ what to show
    @property
    def keys(self) -> tuple[ShownKey, ...]:
        """The keys shown left to right, the palette's key last."""
        if self._shown is None:
            return ()
        _width, keys, palette = self._shown
        return keys + ((palette,) if palette is not None else ())

    def _plan(self) -> tuple[Any, ...]:
        """What to show at this width: (width, the keys that fit, the palette key's or
        None)."""
        width = self.size.width or self.app.size.width
        room = width - PALETTE_WIDTH - 1
        active = self.screen.active_bindings
        shown, actions = [], set()
        for _node, binding, enabled, tooltip in active.values():
            if binding.show and binding.action not in actions:
                actions.add(binding.action)
                shown.append((binding, enabled, tooltip))
        shown.sort(key=lambda s: s[0].action != HELP_ACTION)  # stable: help first
        keys = []
        for binding, enabled, tooltip in shown:
            display = self.app.get_key_display(binding)
            need = key_width(display, binding.description)
            if need > room:
                if binding.action == HELP_ACTION:
                    continue
                break
            room -= need
            keys.append(
                ShownKey(
                    binding.key, display, binding.description, binding.action, enabled, tooltip
                )
            )
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            got = active.get(self.app.COMMAND_PALETTE_BINDING)
            if got is not None:
                _node, binding, enabled, _tooltip = got
                palette = ShownKey(
                    binding.key,
                    self.app.get_key_display(binding),
                    binding.description,
                    binding.action,
                    enabled,
                    binding.tooltip or binding.description,
                )
        return width, tuple(keys), palette

    def _update(self) -> None:
        """Plan again; draw again only when the plan changed."""
        if not (self._bindings_ready and self.is_attached):
            return
        plan = self._plan()
        if plan != self._shown:
            self._shown = plan
            self._set_hover(None)
            self._redraw()

    def _redraw(self) -> None:
        self._line = None
        self.refresh()

    # ------------------------------------------------------------------ drawing
    def _style(self, part: str, hover: bool, enabled: bool) -> Style:
        """The rich style of a key's `part` ("footer-key--key", "footer-key--description",
        "" for its own padding, "fit-footer--border"), as FooterKey resolves it: the
        footer, the key (item or hover, dim when disabled), then the part."""
        got = self._styles.get((part, hover, enabled))
        if got is None:
            ink = _Ink(Color(0, 0, 0, 0), Color(255, 255, 255, 0), Style(), 1.0)
            for node in reversed(self.ancestors_with_self):
                ink = ink.over(node.styles)
            if part == "fit-footer--border":  # the border's colour is over the footer's
                footer = ink.background
                ink = ink.over(
                    self.get_component_styles("fit-footer--hover" if hover else "fit-footer--item")
                )
                color = self.get_component_styles(part).color.multiply_alpha(ink.opacity)
                got = Style.from_color((footer + color).rich_color, ink.background.rich_color)
            else:
                ink = ink.over(
                    self.get_component_styles("fit-footer--hover" if hover else "fit-footer--item")
                )
                if not enabled:
                    ink = ink._replace(style=ink.style + Style(dim=True))
                if part:
                    ink = ink.over(self.get_component_styles(part))
                    got = ink.rich
                else:
                    got = Style(bgcolor=ink.rich.bgcolor)
            self._styles[(part, hover, enabled)] = got
        return got

    def _build(self, width: int) -> Strip:
        """The footer's line: the keys from the left, the palette's key on the right."""
        compact = self.compact
        blank = Style(bgcolor=self.rich_style.bgcolor)  # the footer's own
        segments: list[Segment] = []
        spans: list[tuple[int, int, ShownKey]] = []
        x = 0
        keys: tuple[ShownKey, ...] = ()
        palette = None
        if self._shown is not None:
            _width, keys, palette = self._shown
        for shown in keys:
            drawn = self._key(shown, compact)
            n = sum(cell_len(s.text) for s in drawn)
            segments += drawn
            spans.append((x, x + n, shown))
            x += n
            if compact:  # Footer.-compact FooterKey: margin-right 1
                segments.append(Segment(" ", blank))
                x += 1
        tail: list[Segment] = []
        if palette is not None:
            hover = palette == self._hover
            # always FooterKey's compact padding (its default, the palette's not bound)
            tail.append(Segment("▏", self._style("fit-footer--border", hover, palette.enabled)))
            tail += self._key(palette, True)
            # Footer's CSS: padding-right 1, margin-right 1 when compact
            tail.append(Segment(" ", blank if compact else self._style("", hover, palette.enabled)))
            n = sum(cell_len(s.text) for s in tail)
            spans.append((width - n, width - (1 if compact else 0), palette))
        tail_width = sum(cell_len(s.text) for s in tail)
        if x + tail_width < width:
            segments.append(Segment(" " * (width - x - tail_width), blank))
        self._spans = spans
        return Strip(segments + tail).crop_extend(0, width, blank)

    def _key(self, shown: ShownKey, compact: bool) -> list[Segment]:
        """One key as FooterKey.render draws it."""
        hover = shown == self._hover
        key_style = self._style("footer-key--key", hover, shown.enabled)
        if not shown.description:
            return [Segment(shown.display, key_style)]
        description_style = self._style("footer-key--description", hover, shown.enabled)
        if compact:
            return [
                Segment(shown.display, key_style),
                Segment(" " + shown.description, description_style),
            ]
        return [
            Segment(f" {shown.display} ", key_style),
            Segment(shown.description + " ", description_style),
        ]

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        if self._line is None or self._line.cell_length != width:
            self._line = self._build(width)
        return self._line

    def notify_style_update(self) -> None:
        self._styles.clear()
        self._line = None
        super().notify_style_update()

    def watch_compact(self) -> None:
        self._redraw()

    def watch_show_command_palette(self) -> None:
        self._update()

    # ------------------------------------------------------------------ events
    def bindings_changed(self, screen: Screen[Any]) -> None:
        """The screen's bindings changed (Footer's rule: plan after the refresh)."""
        self._bindings_ready = True
        if not screen.app.app_focus:
            return
        if self.is_attached and screen is self.screen:
            self.call_after_refresh(self._update)

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)

    def on_resize(self, event: events.Resize) -> None:
        if self._shown is not None and event.size.width != self._shown[0]:
            self._update()

    def key_at(self, x: int) -> ShownKey | None:
        """The key drawn at column `x`, or None."""
        for start, end, shown in self._spans:
            if start <= x < end:
                return shown
        return None

    def _set_hover(self, shown: ShownKey | None) -> None:
        if shown != self._hover:
            self._hover = shown
            self.tooltip = (shown.tooltip or None) if shown is not None else None
            self.styles.pointer = "pointer" if shown is not None else "default"
            self._redraw()

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._set_hover(self.key_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._set_hover(None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        """A key pressed with the mouse: FooterKey's rule (a bell when disabled)."""
        shown = self.key_at(event.x)
        if shown is None:
            return
        if shown.enabled:
            self.app.simulate_key(shown.key)
        else:
            self.app.bell()
