"""The verdict banner of one ledger tab.

Green only for a finished, uncancelled verification whose verdict is VERIFIED. While
indexing or verifying it says so with a percentage and stays neutral; a cancelled or
failed verification says "NOT VERIFIED" in amber. Once done, its word is the tab's
verdict (`EvidenceTab.tab_verdict`: the chain with every check the auditor ran), and
each check (a pin, a witness, held content, a lookup) adds a line with its own word.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from sealscope.core import verdict
from sealscope.core.sanitize import clean
from sealscope.viewer.messages import ChainChanged

if TYPE_CHECKING:  # annotations only: the report's records load with the first check
    from sealscope.core.export import SessionRecord

VERDICT_CLASSES = ("-pending", "-verified", "-broken", "-couldnot")
"""The banner's colour classes: exactly one is set (`Banner.verdict_class`)."""


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


class Banner(Static):
    """One ledger's verdict. Its state is reactive; every change repaints it (watchers).

    `state`: "indexing" | "verifying" | "done" | "cancelled" | "error" | "alarm" (a
    followed file was truncated, replaced or rewritten while open); `pct` the
    progress of indexing or verifying; `result` the chain's VerifyResult once done;
    `message` why it is cancelled or in error; `outcome` the tab's verdict and
    `checks` the checks behind it (the tab sets both: `show_checks`); `failed` the
    lines of receipts that fail on their own. A change of state or result posts
    `ChainChanged` for the tab to judge again.
    """

    DEFAULT_CSS = """
    Banner {
        height: auto;
        max-height: 7;
        padding: 0 1;
        color: $text;
    }
    Banner.-pending  { background: $panel; }
    Banner.-verified { background: $success-darken-2; }
    Banner.-broken   { background: $error-darken-2; }
    Banner.-couldnot { background: $warning-darken-3; }
    """

    state: reactive[str] = reactive("indexing", init=False)
    pct: reactive[float] = reactive(0.0, init=False)
    result: reactive[Any] = reactive(None, init=False)
    message: reactive[str] = reactive("", init=False)
    outcome: reactive[verdict.Outcome | None] = reactive(None, init=False)
    checks: reactive[tuple[SessionRecord, ...]] = reactive((), init=False)
    failed: reactive[tuple[int, ...]] = reactive((), init=False)

    def __init__(self, name: str, **kw: Any) -> None:
        super().__init__("", **kw)
        self.file_name = name
        self.explained: Any = None
        self._painted: tuple[str, int, int] | None = None   # state, length, lines painted

    def on_mount(self) -> None:
        self._paint()

    def _repaint(self) -> None:
        if self.is_mounted:
            self._paint()

    def _changed(self) -> None:
        self.post_message(ChainChanged())
        self._repaint()

    watch_pct = watch_message = _repaint
    watch_outcome = watch_checks = watch_failed = _repaint
    watch_state = watch_result = _changed

    # ------------------------------------------------------------------ updates
    def indexing(self, pct: float) -> None:
        self.state, self.pct = "indexing", pct

    def verifying(self, pct: float) -> None:
        self.state, self.pct = "verifying", pct

    def done(self, result: Any, explained: Any = None) -> None:
        """The verdict is in: `result`, and `explained` (a `ledger.Mismatch`) when its
        first break is a chain mismatch."""
        self.explained = explained
        self.result, self.state = result, "done"

    def cancelled(self, message: str = "verification did not finish") -> None:
        self.message, self.state = message, "cancelled"

    def error(self, message: str) -> None:
        self.message, self.state = message, "error"

    def alarm(self, message: str, result: Any = None) -> None:
        """The file changed under the viewer (truncated, replaced, rewritten): red at
        once, naming what happened, whatever the verdict was."""
        if result is not None:
            self.result = result
        self.message, self.state = message, "alarm"

    def show_checks(self, outcome: verdict.Outcome | None,
                    checks: tuple[SessionRecord, ...], failed: tuple[int, ...] = ()) -> None:
        """The tab's verdict, the checks behind it and the receipts failing on their own."""
        self.outcome, self.checks, self.failed = outcome, checks, failed

    # ------------------------------------------------------------------ drawing
    @property
    def combined_verdict(self) -> str | None:
        """The tab's verdict word (the chain with its checks, `export.judged`). None
        while the chain is not finished; BROKEN once the file changed under a
        follower."""
        if self.state == "alarm":
            return verdict.BROKEN
        if self.state != "done" or self.result is None:
            return None
        return self.outcome.verdict if self.outcome is not None else self.result.verdict

    @property
    def verdict_class(self) -> str:
        if self.state == "alarm":
            return "-broken"
        if self.state != "done" or self.result is None:
            return "-pending" if self.state in ("indexing", "verifying") else "-couldnot"
        return {"pass": "-verified", "fail": "-broken"}.get(
            verdict.tone(self.combined_verdict or ""), "-couldnot")

    def _paint(self) -> None:
        want = self.verdict_class
        for c in VERDICT_CLASSES:   # only a class that changes restyles the banner
            self.set_class(c == want, c)
        t = Text(no_wrap=False, end="")
        name = clean(self.file_name)
        if self.state == "indexing":
            t.append(" indexing… ", "bold")
            t.append(f"{self.pct:3.0f}%  ", "bold")
            t.append(name)
        elif self.state == "verifying":
            t.append(" verifying… ", "bold")
            t.append(f"{self.pct:3.0f}%  ", "bold")
            t.append(name)
            t.append("   not verified yet", "italic")
        elif self.state == "cancelled":
            t.append(f" {verdict.NOT_VERIFIED} ", "bold reverse")
            t.append(f"  {name}  ")
            t.append(clean(self.message), "italic")
        elif self.state == "alarm":
            t.append(f" {clean(self.message)} ", "bold reverse")
            t.append(f"  {name}")
            if self.result is not None:
                t.append(f"\n rows {self.result.rows:,} shown as they were read · the file "
                         f"no longer holds what was verified")
        elif self.state == "error":
            t.append(f" {verdict.COULD_NOT_LOOK} ", "bold reverse")
            t.append(f"  {name}  ")
            t.append(clean(self.message))
        else:
            r = self.result
            t.append(f" {self.combined_verdict} ", "bold reverse")
            t.append(f"  {name}  ", "bold")
            if r.verdict == verdict.COULD_NOT_LOOK:
                t.append(clean(r.reason()), "bold")
                t.append(" · ")
            if self.checks or self.failed:
                t.append(f"chain {r.verdict} · ")
            t.append(f"scope {clean(str(r.verified_scope))} · rows {r.rows:,} · chained "
                     f"{r.chained:,} · prechain {r.prechain:,} · breaks {r.breaks:,} · "
                     f"declared breaks {r.declared_breaks:,}")
            if r.first_break:
                t.append("\n first break: ", "bold")
                t.append(clean(r.first_break))
                if self.explained is not None:
                    t.append(f" · fits: {self.explained.cause}", "italic")
        if self.failed and self.state == "done":
            t.append("\n receipts failing on their own: ", "bold")
            t.append(", ".join(f"line {n}" for n in self.failed), "bold red")
        for rec in self.checks:
            style = {"pass": "bold green", "fail": "bold red"}.get(
                verdict.tone(rec.verdict), "bold yellow")
            t.append("\n ")
            t.append(f"{clean(rec.title)}: ", "bold")
            t.append(f" {rec.verdict} ", style + " reverse")
            detail = check_detail(rec)
            if detail:
                t.append(" " + clean(detail))
        # a progress step changes only the percentage's digits: the banner keeps its
        # size, so the screen is not laid out again (50 steps while a big file indexes)
        painted = (self.state, len(t.plain), t.plain.count("\n"))
        same_size = painted == self._painted and self.state in ("indexing", "verifying")
        self._painted = painted
        self.update(t, layout=not same_size)
