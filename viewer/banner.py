"""The verdict banner of one ledger tab.

Green only for a finished, uncancelled verification whose verdict is VERIFIED. While
indexing or verifying it says so with a percentage and stays neutral; a cancelled or
failed verification says "NOT VERIFIED" in amber. A pin or witness check adds a
second line with its verdict.
"""
from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from sealscope.core import verdict
from sealscope.core.sanitize import clean


class Banner(Static):
    """One ledger's verdict. Its state is reactive; every change repaints it (watchers).

    `state`: "indexing" | "verifying" | "done" | "cancelled" | "error" | "alarm" (a
    followed file was truncated, replaced or rewritten while open); `pct` the
    progress of indexing or verifying; `result` the chain's VerifyResult once done;
    `message` why it is cancelled or in error; `check` a pin or witness check as
    (label, WitnessVerdict or None) with `check_error` when it could not run.
    """

    DEFAULT_CSS = """
    Banner {
        height: auto;
        max-height: 4;
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
    check: reactive[tuple[str, Any] | None] = reactive(None, init=False)
    check_error: reactive[str | None] = reactive(None, init=False)

    def __init__(self, name: str, **kw: Any) -> None:
        super().__init__("", **kw)
        self.file_name = name

    def on_mount(self) -> None:
        self._paint()

    def _repaint(self) -> None:
        if self.is_mounted:
            self._paint()

    watch_state = watch_pct = watch_result = watch_message = _repaint
    watch_check = watch_check_error = _repaint

    # ------------------------------------------------------------------ updates
    def indexing(self, pct: float) -> None:
        self.state, self.pct = "indexing", pct

    def verifying(self, pct: float) -> None:
        self.state, self.pct = "verifying", pct

    def done(self, result: Any) -> None:
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

    def set_check(self, label: str, verdict: Any) -> None:
        self.check_error, self.check = None, (label, verdict)

    def set_check_error(self, label: str, message: str) -> None:
        self.check_error, self.check = message, (label, None)

    # ------------------------------------------------------------------ drawing
    @property
    def combined_verdict(self) -> str | None:
        """The chain verdict combined with a pin/witness check (`core.verdict.combined`,
        as `verify --pin`). None while the chain is not finished; BROKEN once the file
        changed under a follower."""
        if self.state == "alarm":
            return verdict.BROKEN
        if self.state != "done" or self.result is None:
            return None
        checks = () if self.check is None else (self.check[1],)
        return verdict.combined(self.result, *checks).verdict

    @property
    def verdict_class(self) -> str:
        if self.state == "alarm":
            return "-broken"
        if self.state != "done" or self.result is None:
            return "-pending" if self.state in ("indexing", "verifying") else "-couldnot"
        return {"pass": "-verified", "fail": "-broken"}.get(
            verdict.tone(self.combined_verdict or ""), "-couldnot")

    def _paint(self) -> None:
        for c in ("-pending", "-verified", "-broken", "-couldnot"):
            self.remove_class(c)
        self.add_class(self.verdict_class)
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
            if self.check is not None:
                t.append(f"chain {r.verdict} · ")
            t.append(f"scope {clean(str(r.verified_scope))} · rows {r.rows:,} · chained "
                     f"{r.chained:,} · prechain {r.prechain:,} · breaks {r.breaks:,} · "
                     f"declared breaks {r.declared_breaks:,}")
            if r.first_break:
                t.append("\n first break: ", "bold")
                t.append(clean(r.first_break))
        if self.check is not None:
            label, v = self.check
            t.append("\n ")
            if v is None:
                t.append(f"{clean(label)}: ", "bold")
                t.append("could not check — ", "bold yellow")
                t.append(clean(self.check_error or ""))
            else:
                word = str(getattr(v, "verdict", "?"))
                style = {verdict.HELD: "bold green", verdict.WRONG: "bold red"}.get(
                    verdict.check(v).exit_code, "bold yellow")
                t.append(f"{clean(label)}: ", "bold")
                t.append(f" {clean(word)} ", style + " reverse")
                t.append(" " + clean(str(getattr(v, "detail", "") or "")))
        self.update(t)
