"""LedgerChecks: the checks an auditor runs on one ledger tab, a part composed into it.

A head pin or a witness store (`check_pin`, `check_witness`: thread workers, their
records posted to the tab as `CheckDone`), and held content recomputing a receipt
(`open_held` opens the dialog; `held_content` keeps what it loaded and found). Each
check becomes a `core.export.SessionRecord` in the tab's session: the tab's verdict,
its banner, the row badge of a recomputed receipt, its receipt panel and its report
read it there. `check_inputs` / `held_inputs` give a dialog reopened what it used.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sealscope.viewer import lazy
from sealscope.viewer.messages import CheckDone
from textual import work
from textual.widget import Widget

if TYPE_CHECKING:  # annotations: the checks load on first use (`lazy`); the tab imports this
    from sealscope.core.export import SessionRecord
    from sealscope.core.pins import Pin
    from sealscope.viewer.ledger_tab import LedgerTab

__all__ = ["LedgerChecks"]


class LedgerChecks(Widget):
    """The pin, witness and held-content checks of `tab` (see the module); not drawn."""

    DEFAULT_CSS = "LedgerChecks { display: none; }"

    def __init__(self, tab: LedgerTab, **kw: Any) -> None:
        super().__init__(**kw)
        self.tab = tab
        # receipt line → the held content loaded for it (pre, post) and its recomputation
        self.held: dict[int, tuple[Path | None, Path | None, Any]] = {}

    # ------------------------------------------------------------------ pin, witness
    def check_inputs(self, kind: str) -> dict[str, Any]:
        """What the last pin or witness check used (`pin`; `witness`, `namespace`)."""
        rec = self.tab.session_record((kind,))
        return dict(rec.inputs) if rec is not None else {}

    @work(thread=True, exclusive=False, group="check")
    def check_pin(self, pin: Pin) -> None:
        """Judge the ledger against a head pin; the record joins the tab's state."""
        try:
            rec = lazy.export.check_record(
                "pin", lazy.pins.check_pin(self.tab.source.path, pin), pin=pin.text
            )
        except Exception as e:  # noqa: BLE001 - any failure is "could not check", shown
            rec = lazy.export.check_error_record("pin", f"{type(e).__name__}: {e}", pin=pin.text)
        self.post_message(CheckDone(rec, ("pin",)))

    @work(thread=True, exclusive=False, group="check")
    def check_witness(self, store: Path, namespace: str) -> None:
        """Judge the ledger against a witness store's namespace; kept as `check_pin`."""
        inputs = {"witness": str(store), "namespace": namespace}
        try:
            rec = lazy.export.check_record(
                "witness",
                lazy.witness.verify_against_witness(store, namespace, self.tab.source.path),
                **inputs,
            )
        except Exception as e:  # noqa: BLE001 - any failure is "could not check", shown
            rec = lazy.export.check_error_record("witness", f"{type(e).__name__}: {e}", **inputs)
        self.post_message(CheckDone(rec, ("witness",)))

    # ------------------------------------------------------------------ held content
    def open_held(self, line: int, pre: Path | None = None, post: Path | None = None) -> None:
        """Recompute the receipt at `line` against held content (`pre`/`post` preloaded;
        else what was loaded for that line before)."""
        had_pre, had_post, _check = self.held.get(line, (None, None, None))
        if pre is None and post is None:
            pre, post = had_pre, had_post
        elif pre is not None and post is None and had_post is not None and pre == had_pre:
            post = had_post
        self.app.push_screen(lazy.HeldContentScreen(self.tab, line, pre=pre, post=post))

    def held_content(
        self, line: int, pre: Path | None, post: Path | None, check: Any, record: SessionRecord
    ) -> None:
        """Held content recomputed the receipt at `line`: kept as the tab's state (the
        row's badge, its receipt panel, the banner, the report) until cleared."""
        self.held[line] = (pre, post, check)
        self.tab.add_session(record, key=("recompute", line))

    def recomputed(self, line: int) -> Any:
        """The held-content recomputation of the receipt at `line`, or None."""
        held = self.held.get(line)
        return held[2] if held else None

    def clear(self) -> None:
        """Forget what the checks loaded (the tab's checks were cleared)."""
        self.held.clear()
