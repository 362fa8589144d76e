"""What the app does with a case (`sealscope --case CASE [PATH...]`), kept out of app.py.

`open_case` reads the case (`CaseLink`) and opens its recorded evidence as tabs;
`record_opened` (once every PATH is open) adds the case tab, restores the recorded
checks of each tab and records each PATH the case did not hold; `ask_note` is `N` and `F`;
`case_changed` lists the case again after an append.
"""

from __future__ import annotations

from typing import Any

from sealscope.core.sanitize import clean
from sealscope.viewer import lazy
from sealscope.viewer.case_link import CaseLink, resolved_path
from sealscope.viewer.case_tab import CaseTab
from textual.widgets import TabbedContent

__all__ = ["open_case", "record_opened", "ask_note", "case_changed", "SEVERITY_PREFIXES"]

SEVERITY_PREFIXES = ("high:", "medium:", "low:")
"""A finding's text may open with its severity (`high: ...`); else it is medium."""


async def open_case(app: Any) -> None:
    """Open the case `app.case_path`: its evidence as tabs. A file that cannot be read,
    or opens no case, is said (an error notification) and nothing is recorded."""
    link = CaseLink(app, app.case_path)
    if link.read is None or not link.read.is_case:
        why = link.error or f"{link.path}: not a sealscope case (its first row opens none)"
        app.notify(clean(why), title="case not opened", severity="error", markup=False)
        return
    app.case_link = link
    given = {resolved_path(p) for p in app.paths}
    for path in link.evidence_paths():
        if path not in given:
            await app.open_path(path, activate=False)


async def record_opened(app: Any) -> None:
    """Every tab open: add the case tab (last), restore the checks the case recorded
    on each tab's file, and record each PATH given that the case did not hold yet."""
    link: CaseLink = app.case_link
    await app.query("EmptyState").remove()
    await app.query_one(TabbedContent).add_pane(CaseTab(link, id="case-tab"))
    held = set(link.evidence_paths())
    for pane in app.panes():
        if resolved_path(pane.path) in held:
            link.restore(pane)
    for p in app.paths:
        if resolved_path(p) not in held:
            link.add_evidence(str(p))


def _split_severity(text: str) -> tuple[str, str]:
    low = text.lower()
    for prefix in SEVERITY_PREFIXES:
        if low.startswith(prefix):
            return prefix[:-1], text[len(prefix) :].strip()
    return "medium", text


def ask_note(app: Any, *, finding: bool) -> None:
    """`N` / `F`: ask for the text, then write it anchored to the tab in front (its
    file) and, on a ledger tab, its selected row."""
    link: CaseLink | None = app.case_link
    if link is None:
        return
    tab = app.current_tab()
    on = str(tab.path) if tab is not None else None
    rows = getattr(tab, "rows", None)
    line = getattr(rows, "current_line", None) or None
    where = f"{on}:{line}" if on and line else on or "the case"

    def done(value: str | None) -> None:
        if not value or not value.strip():
            return
        severity, text = _split_severity(value.strip()) if finding else (None, value.strip())
        link.note(text, finding=severity, on=on, line=line if isinstance(line, int) else None)

    title = "Finding" if finding else "Note"
    hint = "start with high: or low: for its severity (else medium)" if finding else ""
    app.push_screen(
        lazy.PromptScreen(
            f"{title} on {clean(where)}", "what you found", hint=hint, id="case-note-prompt"
        ),
        done,
    )


def case_changed(app: Any) -> None:
    """The case grew: its tab lists it again."""
    for tab in app.query(CaseTab):
        tab.show()
