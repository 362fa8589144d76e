"""EvidenceTab: what every kind of tab (ledger, seal, harn) is to the app.

Each open evidence file is one EvidenceTab. The app knows a tab only through this
base: the file it shows (`path`), the widget that takes the keyboard when it comes to
the front (`main_widget`, given the focus at once by `focus_default`, so keys typed
right after a tab switch act there), the audit report it exports (`export_screen`,
when `has_report`) and its palette entries (`commands`, derived from its bindings).
`front_commands(screen)` is what the palette offers for whatever is in front of a
screen.

Checks stick: every check the auditor runs in a tab (a pin, a witness, held content,
a restatement, a diff, a lookup) is a `core.export.SessionRecord` in its `session`
until cleared (Delete). `tab_verdict` is the tab's one answer: its file's own outcome
(`own_outcome`, where its reading stands: `reading`) with every check, combined by
`core.verdict.evidence` — the rule the audit report uses (`verdict.judged`), so the
banner, the label and the report cannot disagree.
It is None while the file's own verdict is not known yet (indexing, verifying).

The tab's label is the glyph of `tab_verdict`'s word (`core.verdict.glyph`, coloured
by tone; … while None) before its name (`tab_title`), redrawn whenever `tab_verdict`
changes, so the open files can be triaged at a glance.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from sealscope.core import verdict
from sealscope.core.sanitize import clean
from sealscope.core.verdict import Outcome
from sealscope.viewer.commands import PaletteBinding, binding_commands
from sealscope.viewer.messages import SessionAdded
from sealscope.viewer.style import TONE_STYLE
from textual import events
from textual.app import SystemCommand
from textual.content import Content
from textual.css.query import NoMatches
from textual.reactive import reactive
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import TabbedContent, TabPane

if TYPE_CHECKING:  # annotations: the report's modules load with the first check or export
    from pathlib import Path

    from sealscope.core.checks.result import CheckContext
    from sealscope.core.export import SessionRecord
    from sealscope.viewer.export_action import ExportScreen

__all__ = ["EvidenceTab", "front_commands", "tab_label", "tab_title", "CLEAR_CHECKS"]

CLEAR_CHECKS = PaletteBinding(
    "delete",
    "clear_checks",
    "Clear checks",
    title="Clear this tab's checks",
    help="Forget the pin, witness, held content, restatements and lookups run on this tab",
)
"""The key that clears a tab's checks: last in a tab's BINDINGS (the footer shows it
only while the tab holds a check)."""


LABEL_SUFFIXES = (".jsonl", ".ndjson", ".log", ".json")
"""The suffixes a tab label drops: a ledger's, a seal's or a harn file's (JSON)."""


def tab_label(path: str | os.PathLike[str]) -> str:
    """The name on a tab, from the path it shows (every kind of tab, and the first
    paint before any tab exists): the file's name without a JSON or ledger suffix
    (the banner names the whole file), so a dozen tabs fit a 120-column bar."""
    name = os.path.basename(os.fspath(path)) or os.fspath(path)
    stem, dot, suffix = name.rpartition(".")
    return stem if dot and stem and f".{suffix.lower()}" in LABEL_SUFFIXES else name


def tab_title(name: str, word: str | None) -> Content:
    """A tab label: the verdict word's glyph, coloured by its tone (… while there is
    none yet), then the name (sanitized), with no space between so a dozen fit."""
    tone = None if word is None else verdict.tone(word)
    return Content.assemble((verdict.glyph(word), TONE_STYLE[tone]), clean(name))


class EvidenceTab(TabPane):
    """One open evidence file in a tab; subclasses set `path` and `tab_name` and
    implement the rest."""

    tab_verdict: reactive[Outcome | None] = reactive(None, init=False)
    """The tab's verdict: its file's own with every check (`verdict.evidence`); None
    while not known yet. Watch it (`watch(tab, "tab_verdict", ...)`) to follow it."""

    path: str
    """The file (or folder) this tab shows, as it was opened."""

    has_report = True
    """Whether `export_screen` has an audit report to write (a folder of ledgers does not)."""

    tab_name: str = ""
    """The name in the tab's label (after the verdict glyph); a tab without one (a
    fleet) keeps the label it was made with."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        super().__init__(*a, **kw)
        self.session: list[SessionRecord] = []
        self._session_keys: list[Any] = []

    kind_name: str = "file"
    """What kind of file the tab shows, in words ("ledger", "seal", "harn")."""

    def main_widget(self) -> Widget | None:
        """The widget that takes the keyboard when the tab comes to the front (None
        when the tab has none, e.g. a file that could not be read)."""
        return None

    def focus_default(self) -> None:
        """Give the keyboard to the main widget now (not after a refresh), so a key
        already typed behind the one that brought the tab forward acts there."""
        try:
            w = self.main_widget()
        except NoMatches:  # not composed yet: focus comes on activation
            return
        if w is not None and w.is_attached and w.focusable:
            w.screen.set_focus(w)

    def _on_descendant_focus(self, event: events.DescendantFocus) -> None:
        """A focus inside the tab brings it forward (TabPane's rule) only while the
        keyboard is still inside it: keys typed in a burst switch tabs faster than focus
        events arrive, and a late one would bring back a tab already left, the two
        tabs then pulling the front back and forth."""
        focused = self.screen.focused if self.is_attached else None
        if focused is None or self not in focused.ancestors_with_self:
            event.prevent_default()

    def export_screen(self) -> ExportScreen:
        """The export screen for this tab's audit report, with its session."""
        raise NotImplementedError

    def commands(self) -> list[SystemCommand]:
        """This tab's command-palette entries: its PaletteBindings."""
        return binding_commands(self)

    def dropped(self, path: Path) -> bool:
        """A file dropped (pasted) on this tab in front: True when the tab takes it
        (a receipt file takes it as held content); False, it opens in a new tab."""
        return False

    def ledger_opened(self, path: str) -> None:
        """A ledger `path` is open in another tab (a seal tab looks for its sealing
        rows there; other tabs do nothing)."""

    def run_changed(self, ctx: CheckContext) -> None:
        """The app's run changed to `ctx` (`viewer.run_context`): a tab whose check
        read an older one checks its file again (a kind banner's check, here; a ledger
        tab's row checks, its own)."""
        for banner in self.query("KindBanner"):
            rerun = getattr(banner, "run_changed", None)
            if rerun is not None:
                rerun(ctx)

    # ------------------------------------------------------------------ checks
    def own_outcome(self) -> Outcome | None:
        """The file's own outcome before any check, or None while not known (a tab
        that judges no single file, e.g. a fleet, keeps None)."""
        return None

    def reading(self) -> str:
        """Where the reading of the file is (`verdict.evidence`'s state): "done" once
        `own_outcome` is known; a ledger tab may be indexing, verifying, cancelled, in
        error, or alarmed by a follower."""
        return "done"

    def judge(self) -> None:
        """Recompute `tab_verdict` from the file's own outcome and the session, and
        let the tab redraw what shows the checks (`checks_changed`)."""
        self.tab_verdict = verdict.evidence(self.reading(), self.own_outcome(), self.session)
        self.checks_changed()
        if self.is_attached:
            self.app.refresh_bindings()

    def checks_changed(self) -> None:
        """Redraw what shows the checks (banner, rows, panels); subclasses extend."""

    def add_session(self, record: SessionRecord, key: Any = None) -> None:
        """Keep a check in the tab's state (and its report); one with the same `key`
        (the same check run again) replaces the earlier one."""
        if key is not None and key in self._session_keys:
            i = self._session_keys.index(key)
            del self.session[i], self._session_keys[i]
        self.session.append(record)
        self._session_keys.append(key)
        self.judge()
        self.post_message(SessionAdded(record, key, self))

    def session_record(self, key: Any) -> SessionRecord | None:
        """The check kept under `key`, or None."""
        if key in self._session_keys:
            return self.session[self._session_keys.index(key)]
        return None

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Delete clears only while the tab holds a check (hidden otherwise)."""
        if action == "clear_checks":
            return bool(self.session)
        return True

    def action_clear_checks(self) -> None:
        n = len(self.session)
        self.session.clear()
        self._session_keys.clear()
        self.clear_check_state()
        self.judge()
        self.app.notify(f"cleared {n} check(s) from this tab", markup=False)

    def clear_check_state(self) -> None:
        """Forget what the checks loaded (inputs shown when a dialog reopens)."""

    # ------------------------------------------------------------------ label
    def watch_tab_verdict(self) -> None:
        self.relabel()

    def relabel(self) -> None:
        """Redraw the tab's label from `tab_verdict` now."""
        if not self.tab_name:
            return
        word = self.tab_verdict.verdict if self.tab_verdict is not None else None
        title = tab_title(self.tab_name, word)
        self._title = title  # what a re-added pane's tab is built from
        try:
            tab = self.query_ancestor(TabbedContent).get_tab(self)
        except (NoMatches, ValueError):  # not in a TabbedContent (yet)
            return
        if tab.label != title:
            tab.label = title


def front_commands(screen: Screen) -> list[SystemCommand]:
    """Palette entries for what is in front on `screen`: the screen's own bindings,
    then those of the evidence tab in front of its tabs (if it has tabs)."""
    out = binding_commands(screen)
    for tabs in screen.query(TabbedContent):
        pane = tabs.get_pane(tabs.active) if tabs.active else None
        if isinstance(pane, EvidenceTab):
            out += pane.commands()
    return out
