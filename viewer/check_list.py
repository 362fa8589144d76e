"""KindBanner: the verdict and check list of a kind's tab, and the check it shows — the
one widget the tabs of the other evidence kinds compose (`kind_tab.KindTab` for a
receipt file, a distill or portable receipt and a continuity verdict,
`unit_tab.UnitTab` for a pack or a bundle, `aat_tab.AatTab` for an AAT export).

The rule: a kind's tab shows exactly one `KindCheck`, core's, and this widget holds
it. Given by the caller, or run once in a thread worker (`kind_view.run_check`, which
never raises), it lands in `check`; the widget then tells its tab
(`KindBanner.Checked`, bubbling), which judges (`EvidenceTab.judge`, the tab's own
outcome being `own_outcome`: the check's) and loads what it draws from the check's
detail (`check_of`, `outcome_of` and `show_checks` are that glue, for every such tab;
`export_screen_of` its `x`: the kind's report from the tab's check, the very report
`sealscope export PATH` writes).
The text is `kind_view.banner_text`: the word (the tab's verdict when checks
were run in it, else the check's), the bound beside VERIFIED, the kind and the file,
each check of the kind with its word, then each check run in the tab (`show`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from sealscope.core import verdict
from sealscope.core.checks.result import CheckContext, KindCheck
from sealscope.viewer import lazy
from sealscope.viewer.evidence_tab import EvidenceTab
from sealscope.viewer.kind_view import banner_text, run_check, verdict_class
from sealscope.viewer.run_context import run_ctx_of
from textual import work
from textual.css.query import NoMatches
from textual.dom import DOMNode
from textual.message import Message
from textual.reactive import reactive
from textual.widgets import Static

if TYPE_CHECKING:  # the export screen loads with the first export
    from sealscope.viewer.export_action import ExportScreen

__all__ = ["KindBanner", "check_of", "outcome_of", "show_checks", "export_screen_of"]


class KindBanner(Static):
    """One kind's verdict and its checks (`path` classified as `kind`); repainted
    whenever its reactive state changes (`check` the kind's result, `outcome` the tab's
    verdict with the checks run in it, `checks` those checks)."""

    DEFAULT_CSS = """
    KindBanner {
        height: auto;
        max-height: 16;
        padding: 0 1;
        color: $text;
    }
    KindBanner.-pending  { background: $panel; }
    KindBanner.-verified { background: $success-darken-2; }
    KindBanner.-broken   { background: $error-darken-2; }
    KindBanner.-couldnot { background: $warning-darken-3; }
    """

    check: reactive[KindCheck | None] = reactive(None, init=False)
    outcome: reactive[verdict.Outcome | None] = reactive(None, init=False)
    checks: reactive[tuple[Any, ...]] = reactive((), init=False)

    class Checked(Message):
        """Core's check of the tab's file arrived (`check`)."""

        def __init__(self, check: KindCheck) -> None:
            super().__init__()
            self.check = check

    def __init__(
        self,
        name: str,
        path: str | os.PathLike[str],
        kind: str,
        *,
        check: KindCheck | None = None,
        **kw: Any,
    ) -> None:
        """`name` the file as the banner names it; `check` core's result when the
        caller already has it (else it is run on mount)."""
        super().__init__("", **kw)
        self.file_name = name
        self.path = os.fspath(path)
        self.kind = kind
        self._given = check
        self.ctx: CheckContext | None = None  # the run context its check ran with

    def on_mount(self) -> None:
        if self._given is not None:
            self.check = self._given  # its watcher tells the tab (not mounted yet: no paint)
        else:
            self.ctx = run_ctx_of(self)
            self._run_check(self.ctx)
        self._paint()

    def run_changed(self, ctx: CheckContext) -> None:
        """The app's run changed (`viewer.run_context`): a check this banner ran is
        run again with it (one it was given stays)."""
        if self._given is None and self.is_mounted and ctx != self.ctx:
            self.ctx = ctx
            self._run_check(ctx)

    @work(thread=True, exclusive=True, group="kind-check")
    def _run_check(self, ctx: CheckContext | None) -> None:
        got = run_check(self.path, self.kind, ctx)
        self.app.call_from_thread(setattr, self, "check", got)

    def watch_check(self) -> None:
        self._repaint()
        if self.check is not None:
            self.post_message(self.Checked(self.check))

    def _repaint(self) -> None:
        if self.is_mounted:
            self._paint()

    watch_outcome = watch_checks = _repaint

    def show(self, session: Iterable[Any], outcome: verdict.Outcome | None) -> None:
        """The checks run in the tab (`session`) and the tab's verdict with them
        (`outcome`, shown as the word only while there is a check)."""
        self.checks = tuple(session)
        self.outcome = outcome if self.checks else None

    @property
    def word(self) -> str | None:
        """The word the banner shows (None while checking)."""
        if self.check is None:
            return None
        return self.outcome.verdict if self.outcome is not None else self.check.verdict

    def _paint(self) -> None:
        want = verdict_class(self.word)
        for c in ("-pending", "-verified", "-broken", "-couldnot"):
            self.set_class(c == want, c)
        self.update(banner_text(self.file_name, self.check, self.outcome, self.checks))


def check_of(tab: DOMNode) -> KindCheck | None:
    """The check the banner in `tab` holds (None while it runs, or before the tab is
    composed): a kind tab's `check`."""
    try:
        return tab.query_one(KindBanner).check
    except NoMatches:
        return None


def outcome_of(tab: DOMNode) -> verdict.Outcome | None:
    """A kind tab's own outcome (`EvidenceTab.own_outcome`): its check's."""
    found = check_of(tab)
    return found.outcome() if found is not None else None


def show_checks(tab: EvidenceTab) -> None:
    """The banner in `tab` shows the tab's checks and its verdict with them."""
    try:
        tab.query_one(KindBanner).show(tab.session, tab.tab_verdict)
    except NoMatches:  # not composed yet: the banner paints on mount
        return


def export_screen_of(tab: EvidenceTab) -> ExportScreen:
    """A kind tab's `x` (`EvidenceTab.export_screen`): the kind's report
    (`core.export.build_kind_report`) of the tab's path from the check it shows, as
    `sealscope export PATH` writes it. That report takes no check run in the tab (held
    content on a receipt file): the screen says so when the tab holds one."""
    kind = str(getattr(tab, "kind", "")) or None
    n = len(tab.session)
    note = (
        f"the {verdict.plural(n, 'check')} run in this tab {'is' if n == 1 else 'are'} "
        f"not in this report: sealscope export of a {tab.kind_name} takes none"
        if n
        else ""
    )
    return lazy.ExportScreen(tab.path, kind=kind, check=check_of(tab), note=note)
