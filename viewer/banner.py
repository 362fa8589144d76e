"""The verdict banner of every evidence tab (ledger, seal, harn): one widget, one look.

The banner decides nothing. A tab hands it down (`Banner.show`) its verdict
(`outcome`: the tab's `tab_verdict`, from `core.verdict.evidence`), the text to draw
(`detail`, made by a pure builder) and where its reading is (`state`); its colour is
the outcome's tone (`style.BANNER_CLASS`), neutral while the file is still being
indexed or verified, never green before a finished, uncancelled verification.

The builders are plain functions of their inputs, so the first paint draws the same
text as the widget: `badge` (a verdict word, reversed on the banner's colour),
`ledger_detail` (a ledger's banner in every state: indexing and verifying with a
percentage, NOT VERIFIED when cancelled, COULD NOT LOOK on an error, the follower's
alarm, and once done the tab's word, the scope it holds within, the chain's counts, the
first break and each check with its own word), `check_detail` (one line per check).
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from sealscope.core import verdict
from sealscope.core.sanitize import clean
from sealscope.viewer.style import BANNER_CLASS, BANNER_CSS, CHECK_STYLE

if TYPE_CHECKING:  # annotations only: the report's records load with the first check
    from sealscope.core.export import SessionRecord

__all__ = ["Banner", "VERDICT_CLASSES", "badge", "ledger_detail", "check_detail", "BUSY"]

VERDICT_CLASSES = tuple(BANNER_CLASS.values())
"""The banner's colour classes: exactly one is set (`Banner.verdict_class`)."""

BUSY = ("indexing", "verifying")
"""Reading states with no verdict yet: the banner stays neutral."""


def badge(word: str) -> Text:
    """A verdict word as the banner draws it: bold, reversed on the banner's colour."""
    return Text(f" {word} ", "bold reverse", end="")


def check_detail(rec: SessionRecord) -> str:
    """One line on what a check found (words, never None)."""
    r = rec.result if isinstance(rec.result, dict) else {}
    if "error" in r:
        return str(r["error"])
    if rec.kind in ("pin", "witness"):
        return str(r.get("detail") or "")
    if rec.kind == "recompute":
        hidden = len(r.get("undeclared") or [])
        phantom = len(r.get("phantom") or [])
        parts = [f"content {r.get('content')}", f"scope {r.get('verified_scope')}"]
        if hidden:
            parts.append(f"{hidden} drop(s) the manifest does not declare")
        if phantom:
            parts.append(f"{phantom} manifest entr(ies) no drop explains")
        return " · ".join(parts)
    if rec.kind == "lookup":
        items = r.get("items") or []
        found = sum(1 for it in items if it.get("found"))
        return f"{found} of {len(items)} item(s) found in this ledger's manifests"
    return ""


def check_lines(t: Text, checks: Sequence[SessionRecord]) -> None:
    """Each check on a line of its own: its title, its word, what it found."""
    for rec in checks:
        t.append("\n ")
        t.append(f"{clean(rec.title)}: ", "bold")
        t.append(f" {rec.verdict} ", CHECK_STYLE[verdict.tone(rec.verdict)] + " reverse")
        detail = check_detail(rec)
        if detail:
            t.append(" " + clean(detail))


def ledger_detail(name: str, state: str, *, pct: float = 0.0, result: Any = None,
                  message: str = "", outcome: verdict.Outcome | None = None,
                  scope: str = "", checks: Sequence[SessionRecord] = (),
                  failed: Sequence[int] = (), explained: Any = None) -> Text:
    """A ledger's banner text. `state`: "indexing" | "verifying" | "done" |
    "cancelled" | "error" | "alarm" (the file changed under a follower); `pct` the
    progress; `result` the chain's VerifyResult; `message` why it is cancelled, in
    error or alarmed; `outcome` the tab's verdict; `scope` what it holds within
    (`verdict.beside`); `checks` the checks behind it; `failed` the lines of receipts
    failing on their own; `explained` the first break's `ledger.Mismatch`."""
    t = Text(no_wrap=False, end="")
    name = clean(name)
    if state in BUSY:
        t.append(f" {state}… ", "bold")
        t.append(f"{pct:3.0f}%  ", "bold")
        t.append(name)
        if state == "verifying":
            t.append("   not verified yet", "italic")
    elif state == "alarm":
        t.append(f" {clean(message)} ", "bold reverse")
        t.append(f"  {name}")
        if result is not None:
            t.append(f"\n rows {result.rows:,} shown as they were read · the file "
                     f"no longer holds what was verified")
    elif state in ("cancelled", "error") or result is None:
        word = outcome.verdict if outcome is not None else verdict.COULD_NOT_LOOK
        t.append_text(badge(word))
        t.append(f"  {name}  ")
        t.append(clean(message), "italic" if state == "cancelled" else "")
    else:
        r = result
        t.append_text(badge(outcome.verdict if outcome is not None else r.verdict))
        if scope:
            t.append(f"· {clean(scope)}", "bold")
        t.append(f"  {name}  ", "bold")
        if r.verdict == verdict.COULD_NOT_LOOK:
            t.append(clean(r.reason()), "bold")
            t.append(" · ")
        if checks or failed:
            t.append(f"chain {r.verdict} · ")
        t.append(f"scope {clean(str(r.verified_scope))} · rows {r.rows:,} · chained "
                 f"{r.chained:,} · prechain {r.prechain:,} · breaks {r.breaks:,} · "
                 f"declared breaks {r.declared_breaks:,}")
        if r.first_break:
            t.append("\n first break: ", "bold")
            t.append(clean(r.first_break))
            if explained is not None:
                t.append(f" · fits: {explained.cause}", "italic")
        if failed:
            t.append("\n receipts failing on their own: ", "bold")
            t.append(", ".join(f"line {n}" for n in failed), CHECK_STYLE["fail"])
    check_lines(t, checks)
    return t


class Banner(Static):
    """A tab's verdict banner. Reactive `outcome` (the tab's verdict: its colour),
    `detail` (the text drawn) and `state` (the reading's: neutral while busy); every
    change repaints it (watchers). `show` sets all three at once."""

    DEFAULT_CSS = f"""
    Banner {{
        height: auto;
        max-height: 7;
        padding: 0 1;
        color: $text;
    }}
    {BANNER_CSS}
    """

    state: reactive[str] = reactive("done", init=False)
    outcome: reactive[verdict.Outcome | None] = reactive(None, init=False)
    detail: reactive[Text] = reactive(Text(""), init=False, always_update=True)

    def __init__(self, detail: Text | str = "", *, outcome: verdict.Outcome | None = None,
                 state: str = "done", **kw: Any) -> None:
        super().__init__("", **kw)
        self.set_reactive(Banner.detail, detail if isinstance(detail, Text) else Text(detail))
        self.set_reactive(Banner.outcome, outcome)
        self.set_reactive(Banner.state, state)
        self._painted: tuple[str, int, int] | None = None   # state, length, lines painted

    def on_mount(self) -> None:
        self._paint()

    def _repaint(self) -> None:
        if self.is_mounted:
            self._paint()

    watch_state = watch_outcome = watch_detail = _repaint

    def show(self, outcome: verdict.Outcome | None, detail: Text, state: str = "done"
             ) -> None:
        """The tab's verdict, its text and its reading's state: one repaint."""
        self.set_reactive(Banner.outcome, outcome)
        self.set_reactive(Banner.state, state)
        self.set_reactive(Banner.detail, detail)
        self._repaint()

    @property
    def combined_verdict(self) -> str | None:
        """The word the banner shows: the tab's verdict; None while there is none."""
        return None if self.outcome is None else self.outcome.verdict

    @property
    def verdict_class(self) -> str:
        if self.outcome is None:
            return BANNER_CLASS[None] if self.state in BUSY else BANNER_CLASS["warn"]
        return BANNER_CLASS[verdict.tone(self.outcome.verdict)]

    def _paint(self) -> None:
        want = self.verdict_class
        for c in VERDICT_CLASSES:   # only a class that changes restyles the banner
            self.set_class(c == want, c)
        t = self.detail
        # a progress step changes only the percentage's digits: the banner keeps its
        # size, so the screen is not laid out again (50 steps while a big file indexes)
        painted = (self.state, len(t.plain), t.plain.count("\n"))
        same_size = painted == self._painted and self.state in BUSY
        self._painted = painted
        self.update(t, layout=not same_size)
