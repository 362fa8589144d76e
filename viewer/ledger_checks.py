"""LedgerChecks: the checks an auditor runs on one ledger tab, a part composed into it.

A head pin or a witness store (`check_pin`, `check_witness`: thread workers, their
records posted to the tab as `CheckDone`), and held content recomputing a receipt
(`open_held` opens the dialog; `held_content` keeps what it loaded and found). Each
check becomes a `core.export.SessionRecord` in the tab's session: the tab's verdict,
its banner, the row badge of a recomputed receipt, its receipt panel and its report
read it there. `check_inputs` / `held_inputs` give a dialog reopened what it used.

The ledger's own row checks (KINDS.md §11.2: `continuity_verify` rows, artefact
bindings, call and distill rows) are core's (`ledger_rows.row_checks`, the very
entries `check`, `export` and `fleet` judge by), run once the file is indexed
(`check_rows`, a thread worker): `rows` is what the tab's own verdict
(`verdict.ledger`) reads, `entries_at` what a row's badge and panel show. A file
dropped on an artefact binding row (`dropped`) is that binding's held artefact: core
checks its digest (`artefact.held_file_entry`), the entry replaces the binding's for
its badge and panel, and its record joins the session (the banner, the report).

A call record (`tab.call_record`) is judged by its own check, not the ledger walk
(`call_record.own_check`, KINDS.md §7.2, quirk 48): the rows worker runs it beside the
row checks and keeps it as `own`, which the tab's verdict, banner and report read.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sealscope.core import kinds, verdict
from sealscope.viewer import lazy
from sealscope.viewer.messages import CheckDone
from sealscope.viewer.run_context import run_ctx_of
from sealscope.viewer.source import release_freed
from textual import work
from textual.message import Message
from textual.widget import Widget

if TYPE_CHECKING:  # annotations: the checks load on first use (`lazy`); the tab imports this
    from sealscope.core.checks.result import CheckContext, KindCheck
    from sealscope.core.export import SessionRecord
    from sealscope.core.pins import Pin
    from sealscope.viewer.ledger_tab import LedgerTab

__all__ = ["LedgerChecks", "RowsChecked", "ArtefactHeld"]

# the colour of a once row's badge by its key's state: executed green, an intent
# without executed (indeterminate) or a key never matched (quirk 56) amber
_ONCE_TONE = {"executed": verdict.VERIFIED}


def _once_states(path: str) -> dict[int, str]:
    """A once ledger's rows and their keys' states (`core.profiles.once.row_states`);
    {} for any other ledger (KINDS-3.md P5: by its first object line)."""
    once = lazy.once_profile
    if lazy.detect_profile(kinds.Identified(path, kinds.LEDGER)).name != once.PROFILE_LEDGER:
        return {}
    return dict(once.row_states(path))


class RowsChecked(Message):
    """The ledger's own row checks are in (`ledger_rows.row_checks`), or the reason
    they could not be made (`error`)."""

    def __init__(
        self,
        entries: tuple[dict[str, Any], ...],
        error: str = "",
        own: KindCheck | None = None,
        once: dict[int, str] | None = None,
    ) -> None:
        super().__init__()
        self.entries = entries
        self.error = error
        self.own = own  # a call record's own check (None for any other ledger)
        self.once = once or {}  # a once ledger's rows: line → its key's state


class ArtefactHeld(Message):
    """A held file was checked against the artefact binding on `line`."""

    def __init__(self, line: int, entry: dict[str, Any]) -> None:
        super().__init__()
        self.line = line
        self.entry = entry


class LedgerChecks(Widget):
    """The pin, witness and held-content checks of `tab` (see the module); not drawn."""

    DEFAULT_CSS = "LedgerChecks { display: none; }"

    def __init__(self, tab: LedgerTab, **kw: Any) -> None:
        super().__init__(**kw)
        self.tab = tab
        # receipt line → the held content loaded for it (pre, post) and its recomputation
        self.held: dict[int, tuple[Path | None, Path | None, Any]] = {}
        # the ledger's own row checks (None until they are in), by line
        self.rows: tuple[dict[str, Any], ...] | None = None
        self._by_line: dict[int, list[dict[str, Any]]] = {}
        # binding line → the held artefact's entry (replaces the binding's own)
        self.held_artefacts: dict[int, dict[str, Any]] = {}
        # a call record's own check (`call_record.own_check`), once the rows worker ran
        self.own: KindCheck | None = None
        # a once ledger's rows (KINDS-3.md §16): line → its key's state, for the badges
        self.once: dict[int, str] = {}
        # the run context the row checks last ran with (`viewer.run_context`)
        self.ctx: CheckContext | None = None
        self._asked = False  # the row checks were asked for (the file is indexed)

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
        self.held_artefacts.clear()
        self._show_rows()

    # ------------------------------------------------------------------ row checks
    def check_rows(self) -> None:
        """Run the ledger's own row checks (once the file is indexed), with the app's
        run context (`viewer.run_context`: the stored verdicts and artefacts of the
        run, as `check` joins them)."""
        self._asked = True
        self.ctx = run_ctx_of(self)
        self._rows_worker(self.ctx)

    def run_changed(self, ctx: CheckContext) -> None:
        """The run changed: the row checks run again with it (once they were asked)."""
        if self._asked and ctx != self.ctx:
            self.check_rows()

    @work(thread=True, exclusive=True, group="row-checks")
    def _rows_worker(self, ctx: CheckContext | None) -> None:
        path = str(self.tab.source.path)
        own = lazy.call_record.own_check(path, ctx) if self.tab.call_record else None
        try:
            entries = lazy.ledger_rows.row_checks(path, ctx)
            once = _once_states(path)
        except Exception as e:  # noqa: BLE001 - shown, never a traceback
            self.post_message(RowsChecked((), f"{type(e).__name__}: {e}", own))
            return
        finally:  # a whole-file pass: its windows' pages go back (`source.release_freed`)
            release_freed()
        self.post_message(RowsChecked(entries, own=own, once=once))

    def on_rows_checked(self, m: RowsChecked) -> None:
        m.stop()
        self.rows = m.entries
        self.own = m.own
        self.once = m.once
        self._by_line = {}
        for e in m.entries:
            self._by_line.setdefault(int(e.get("line") or 0), []).append(e)
        if m.error:
            self.app.notify(f"the row checks could not run: {m.error}", markup=False)
        self._show_rows()
        self.tab.judge()

    def entries_at(self, line: int) -> list[dict[str, Any]]:
        """The row's own checks as its badge and panel show them: core's entries, a
        held artefact's in place of its binding's."""
        held = self.held_artefacts.get(line)
        return [
            held if held is not None and e.get("check") == "artefact" else e
            for e in self._by_line.get(line, ())
        ]

    def shown_rows(self) -> list[dict[str, Any]]:
        """Every row check as shown (`entries_at`), in line order."""
        return [e for n in sorted(self._by_line) for e in self.entries_at(n)]

    def not_verified(self) -> list[str]:
        """The ledger's own row checks that are not VERIFIED, each in a few words
        (core's `ledger_rows.describe`: "line 1: continuity-verify unmatched"); a held
        artefact shows as a check of the session instead."""
        return [
            f"{e.get('verdict')} {lazy.ledger_rows.describe(e)}"
            for e in self.rows or ()
            if e.get("verdict") != verdict.VERIFIED
        ]

    def rows_bound(self) -> str:
        """What the VERIFIED row checks shown held within ("1 artefact not held")."""
        return lazy.ledger_rows.rows_bound(self.shown_rows())

    def _show_rows(self) -> None:
        """The row list's badges from the row checks shown."""
        if not self.tab.is_mounted:
            return
        badges = {}
        for n in self._by_line:
            b = lazy.row_badge(self.entries_at(n))
            if b is not None:
                badges[n] = b
        # the strip marks the rows whose own check is not VERIFIED (by the badge's word);
        # a once ledger's key state is a badge only, it adds no word to the strip
        self.tab.strip.model.row_checks = {n: w for n, (w, _f) in badges.items()}
        for n, state in self.once.items():
            badges.setdefault(n, (_ONCE_TONE.get(state, verdict.COULD_NOT_LOOK), f"once: {state}"))
        self.tab.rows.set_own_checks(badges)
        self.tab.strip.changed()

    # ------------------------------------------------------------------ held artefacts
    def dropped(self, path: Path) -> bool:
        """A file dropped on the tab: the held artefact of the binding on the selected
        row, when it is one (True); else False (it opens in a tab of its own)."""
        line = self.tab.rows.current_line
        if not line or not any(e.get("check") == "artefact" for e in self._by_line.get(line, ())):
            return False
        info = self.tab.source.row(line)
        artefact = info.obj.get("artefact") if isinstance(info.obj, dict) else None
        self._held_worker(line, artefact, str(path))
        return True

    @work(thread=True, exclusive=False, group="check")
    def _held_worker(self, line: int, artefact: Any, path: str) -> None:
        self.post_message(
            ArtefactHeld(line, lazy.artefact_check.held_file_entry(line, artefact, path))
        )

    def on_artefact_held(self, m: ArtefactHeld) -> None:
        m.stop()
        self.held_artefacts[m.line] = m.entry
        self._show_rows()
        self.tab.add_session(lazy.export.artefact_record(m.entry), key=("artefact", m.line))
