"""The key help (`?`, F1): every key of the tab in front, grouped, and what its marks mean.

The keys are read from the Binding lists the footer and the command palette use
(`commands.declared_bindings`): the tab's own keys, its main list's, then the keys that
work everywhere on the main screen (the app's and the screen's, the tab keys among
them). Bindings of one action are one line (`h`, `enter`), and so is a run of one
action with different arguments (`1`-`9`). A palette entry shows its title and help.

A widget class in the tab that draws marks declares `LEGEND_TITLE` and `LEGEND` (rows
of mark, style, meaning) and the help lists them, after the tab labels' own marks
(`core.verdict.GLYPHS`, with the verdict words of each tone). A tab whose list is the
ledger row list also gets the badges it draws for a row with a check of its own
(`row_check_panel.row_badge`: `[name: found]` coloured by the check's verdict word),
named as `row_check_panel.TITLES` names them. The text here is the
project's own (key names, titles, legends), never evidence; the tab's name is
sanitized. Escape, `?` or F1 closes the help; `R` opens the samples README.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import replace
from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from sealscope.core import verdict
from sealscope.core.sanitize import clean
from sealscope.viewer.commands import PaletteBinding, declared_bindings
from sealscope.viewer.evidence_tab import EvidenceTab
from sealscope.viewer.readme_screen import SamplesReadmeScreen
from sealscope.viewer.row_check_panel import TITLES
from sealscope.viewer.row_list import LEGEND_TITLE as ROW_MARKS
from sealscope.viewer.style import OWN_CHECK_STYLE, TONE_STYLE
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.dom import DOMNode
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Static

__all__ = ["KeyHelpScreen", "key_lines", "legends", "help_text"]

KEY_COLUMN = 10  # "shift+tab", "pgup pgdn"
TONE_MEANING = {
    "pass": "held",
    "fail": "wrong",
    "warn": "could not look in full",
    None: "not verified yet",
}


def _words(tone: str) -> list[str]:
    """The verdict words of one tone, as `core.verdict` spells them."""
    names = [n for n in verdict.__all__ if n.isupper()]
    words = [getattr(verdict, n) for n in names]
    return [w for w in words if isinstance(w, str) and verdict.tone(w) == tone]


def _keys(app: App[Any], binding: Binding) -> list[str]:
    return [
        app.get_key_display(replace(binding, key=k.strip()))
        for k in binding.key.split(",")
        if k.strip()
    ]


def key_lines(app: App[Any], bindings: Iterable[Binding]) -> list[tuple[str, str, str]]:
    """(keys, what, help) per action, in declaration order: the keys of one action
    (or of one action with different arguments and one description, as `tab(1)`…
    `tab(9)`) on one line;
    bindings with no description and Textual's system ones are left out."""
    rows: list[tuple[str, list[str], str, str]] = []  # action, keys, what, help
    for b in bindings:
        if b.system or not b.description:
            continue
        action = b.action.split("(", 1)[0]
        what = b.title if isinstance(b, PaletteBinding) and b.title else b.description
        more = b.help if isinstance(b, PaletteBinding) else ""
        keys = _keys(app, b)
        same = [r for r in rows if r[0] == action and r[2] == what]
        if same:
            same[0][1].extend(k for k in keys if k not in same[0][1])
            continue
        rows.append((action, keys, what, more))
    out = []
    for _action, keys, what, more in rows:
        shown = f"{keys[0]}–{keys[-1]}" if len(keys) > 3 else " ".join(keys)
        out.append((shown, what, more))
    return out


def legends(pane: Widget) -> list[tuple[str, Sequence[tuple[str, str, str]]]]:
    """(title, rows of mark, style, meaning) of each widget class in `pane` (itself
    included) that declares a LEGEND, once per class, in the order they are met; a
    row with named `glyph`, `style` and `meaning` (the overview strip's) is read by
    name."""
    out: list[tuple[str, Sequence[tuple[str, str, str]]]] = []
    seen: set[type] = set()
    for w in [pane, *pane.walk_children(Widget)]:
        cls = type(w)
        legend = getattr(cls, "LEGEND", None)
        if legend and cls not in seen:
            seen.add(cls)
            rows = [
                (r.glyph, r.style, r.meaning) if hasattr(r, "meaning") else tuple(r) for r in legend
            ]
            out.append((str(getattr(cls, "LEGEND_TITLE", cls.__name__)), rows))
    return out


def _tab_marks() -> list[tuple[str, str, str]]:
    rows = []
    for tone in ("pass", "fail", "warn"):
        rows.append(
            (
                verdict.GLYPHS[tone],
                TONE_STYLE[tone],
                f"{TONE_MEANING[tone]}: " + ", ".join(_words(tone)),
            )
        )
    rows.append((verdict.GLYPHS[None], TONE_STYLE[None], TONE_MEANING[None]))
    return rows


# what each row check's badge reports (the project's words; the names are the badges')
_ROW_CHECK_MEANING = {
    "continuity-verify": "a continuity_verify row: matched, mismatch or unmatched against "
    "the stored verdicts held (check LEDGER VERDICT.json, --artefacts DIR)",
    "artefact": "an artefact binding: held match, mismatch or not held, or why its digest fails",
    "call-args": "a call row: its args match or mismatch its args_digest, or are not inline",
    "distill-receipt": "a distill receipt row: the scope it verified within",
}


def row_check_marks() -> list[tuple[str, str, str]]:
    """The legend of the row list's own-check badges: the three colours by verdict
    word, each check's badge name, and the `+N` of a row with more than one."""
    rows = [
        (
            "[…]",
            OWN_CHECK_STYLE[tone],
            f"{', '.join(_words(tone))}: the row's own check {TONE_MEANING[tone]}",
        )
        for tone in ("pass", "fail", "warn")
    ]
    for check, (title, name) in TITLES.items():
        rows.append((name, "bold", _ROW_CHECK_MEANING.get(check, title)))
    rows.append(("+N", "bold", "N more checks on that row (the badge shows the worst)"))
    return rows


def help_text(app: App[Any], pane: EvidenceTab | None, everywhere: Sequence[DOMNode]) -> Group:
    """The key help of `pane` (None: no tab open) with the keys of `everywhere` (the
    main screen, the app): a heading and a two-column grid per group."""
    parts: list[RenderableType] = []

    def section(title: str, rows: list[tuple[Text, Text]]) -> None:
        if not rows:
            return
        if parts:
            parts.append(Text(""))
        parts.append(Text(f" {title} ", "bold reverse"))
        grid = Table.grid(padding=(0, 1), expand=True)
        grid.add_column(style="bold", width=KEY_COLUMN)
        grid.add_column(ratio=1)
        for row in rows:
            grid.add_row(*row)
        parts.append(grid)

    def keys(lines: list[tuple[str, str, str]]) -> list[tuple[Text, Text]]:
        rows = []
        for k, what, more in lines:
            line = Text(what)
            if more:
                line.append(" · " + more, "dim")
            rows.append((Text(k), line))
        return rows

    if pane is not None:
        section(
            f"this {pane.kind_name} tab: {clean(pane.tab_name)}",
            keys(key_lines(app, declared_bindings(pane))),
        )
        main = pane.main_widget()
        if main is not None:
            section("in its list", keys(key_lines(app, declared_bindings(main))))
    every = [line for node in everywhere for line in key_lines(app, declared_bindings(node))]
    palette = Binding(app.COMMAND_PALETTE_BINDING, "command_palette")
    every.append((app.get_key_display(palette), "Command palette", "every command here, by name"))
    section(
        "everywhere on the main screen (a field takes digits and brackets as text)", keys(every)
    )
    marks: list[tuple[str, Sequence[tuple[str, str, str]]]] = [("tab label marks", _tab_marks())]
    if pane is not None:
        found = legends(pane)
        marks += found
        if any(title == ROW_MARKS for title, _rows in found):  # the ledger row list
            marks.append(("row check badges", row_check_marks()))
    for title, legend in marks:
        section(title, [(Text(mark, style), Text(meaning)) for mark, style, meaning in legend])
    return Group(*parts)


class KeyHelpScreen(ModalScreen[None]):
    """The key help of the tab in front."""

    DEFAULT_CSS = """
    KeyHelpScreen { align: center middle; }
    #key-help-box {
        width: 100%;
        max-width: 96;
        height: 100%;
        max-height: 40;
        background: $panel;
        border: thick $accent 60%;
        padding: 0 1;
    }
    #key-help-title { height: 1; text-style: bold; }
    #key-help-scroll { height: 1fr; scrollbar-size-vertical: 1; }
    #key-help-foot { height: 1; color: $text-muted; }
    """

    BINDINGS = [
        Binding("escape,question_mark,f1", "close", "Close"),
        PaletteBinding(
            "R",
            "samples_readme",
            "Samples README",
            title="Samples README",
            help="What each bundled sample is and what it should show",
        ),
    ]

    def __init__(self, pane: EvidenceTab | None, everywhere: Sequence[DOMNode]) -> None:
        super().__init__(id="key-help")
        self.pane = pane
        self.everywhere = list(everywhere)
        self.content: Group | None = None

    def compose(self) -> ComposeResult:
        self.content = help_text(self.app, self.pane, self.everywhere)
        with Vertical(id="key-help-box"):
            yield Static(Text("Keys"), id="key-help-title")
            with VerticalScroll(id="key-help-scroll"):
                yield Static(self.content, id="key-help-body")
            yield Static(
                Text("esc ? F1 close · ↑ ↓ scroll · R the samples README"), id="key-help-foot"
            )

    def on_mount(self) -> None:
        self.query_one("#key-help-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)

    def action_samples_readme(self) -> None:
        self.app.push_screen(SamplesReadmeScreen())
