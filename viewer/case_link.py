"""CaseLink: an open case in the viewer (`sealscope --case CASE [PATH...]`).

The case decides, the viewer shows (`sealscope.core.case`):
- `evidence_paths`: the evidence the case records (the latest entry of each path),
  opened as tabs, then any PATH given (recorded as evidence with its kind's check);
- `restore(tab)`: a tab whose file still has the recorded SHA-256 gets its recorded
  pin, witness and held-content checks run again from their recorded paths (their
  records rejoin its session); a tab whose file changed since, or a check whose held
  input did, gets instead a BROKEN session record saying which and how, which its
  banner shows as it shows a pin mismatch;
- `session_added`: every pin, witness, held-content check or look-up (`l`, in a ledger
  tab: its held files or typed text, once per look-up) the auditor runs from then on is
  performed by core (`perform`, the function `case replay` re-performs) on the tab's
  file and recorded as a `check` entry;
- `note`: `N` / `F` write a note or a finding anchored to the tab's file (its SHA-256)
  and the selected row.
Appends run in thread workers (each is one locked write); a refusal (a torn line, a case
that does not verify) is a notification, never a traceback.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from sealscope.core import held, pins, receipt, verdict
from sealscope.core.case import record, rows, store
from sealscope.core.case.evidence import Evidence, read_evidence
from sealscope.core.case.perform import Input, perform
from sealscope.core.export import SessionRecord, recompute_record
from sealscope.core.lookup import iter_receipt_rows
from sealscope.core.sanitize import clean
from textual.message import Message

if TYPE_CHECKING:
    from sealscope.viewer.evidence_tab import EvidenceTab
    from textual.app import App

__all__ = ["CaseLink", "CaseChanged", "CASE_RECORD"]

CASE_RECORD = "case"
"""The kind of the session record that says a tab's evidence changed since the case."""


def resolved_path(path: str | Path) -> str:
    """`path` resolved (absolute when it cannot be resolved): how the case names a file."""
    try:
        return str(Path(path).resolve())
    except OSError:
        return str(Path(path).absolute())


def _held_changed(e: rows.CaseEntry) -> str:
    """What of a recorded check's other inputs (held content, a pin file, a witness
    store) no longer has its recorded SHA-256 ("" when all do)."""
    for i in e.get("inputs")[1:]:
        if not isinstance(i, dict) or not isinstance(i.get("resolved"), str):
            continue
        now = read_evidence(i["resolved"], with_kind=False)
        if not isinstance(now, Evidence):
            return f"{i.get('role')} {i['resolved']}: missing"
        if now.sha256 != i.get("sha256"):
            return f"{i.get('role')} {i['resolved']}: sha256 differs"
    return ""


class CaseChanged(Message):
    """The case was appended to: the case tab lists it again."""


class CaseLink:
    """The case at `path` as the app `app` works on it (see the module)."""

    def __init__(self, app: App[Any], path: str) -> None:
        self.app = app
        self.path = path
        self.read: store.CaseRead | None = None
        self.error = ""
        # (resolved path, session key) of the checks being restored: not recorded again
        self._restoring: set[tuple[str, Any]] = set()
        # (resolved path, session key) of the look-ups recorded: the screen's refresh
        # hands the same look-up in again, which is not a second check
        self._looked_up: set[tuple[str, Any]] = set()
        self.refresh()

    # ------------------------------------------------------------------ reading
    def refresh(self) -> None:
        """Read the case again (after an append)."""
        try:
            self.read = store.read_case(self.path)
            self.error = ""
        except store.CaseError as e:
            self.read, self.error = None, str(e)

    @property
    def entries(self) -> list[rows.CaseEntry]:
        return list(self.read.entries) if self.read is not None else []

    def evidence_paths(self) -> list[str]:
        """Every evidence path the case records, in first-recorded order."""
        out: list[str] = []
        for e in self.entries:
            got = e.get("resolved")
            if e.entry == "evidence" and isinstance(got, str) and got not in out:
                out.append(got)
        return out

    def _evidence_of(self, resolved: str) -> rows.CaseEntry | None:
        found = None
        for e in self.entries:
            if e.entry == "evidence" and e.get("resolved") == resolved:
                found = e
        return found

    def _checks_of(self, resolved: str) -> list[rows.CaseEntry]:
        """The last recorded check of each kind (and held-content line) on `resolved`."""
        last: dict[Any, rows.CaseEntry] = {}
        for e in self.entries:
            inputs = e.get("inputs") if isinstance(e.get("inputs"), list) else []
            if e.entry != "check" or not inputs or not isinstance(inputs[0], dict):
                continue
            if inputs[0].get("resolved") != resolved or e.get("check") == "kind":
                continue
            args = e.get("args") if isinstance(e.get("args"), dict) else {}
            last[(e.get("check"), args.get("line"))] = e
        return list(last.values())

    # ------------------------------------------------------------------ restoring
    def restore(self, tab: EvidenceTab) -> None:
        """Restore the recorded checks of the tab's evidence (see the module)."""
        resolved = resolved_path(tab.path)
        recorded = self._evidence_of(resolved)
        if recorded is None:
            return
        self.app.run_worker(lambda: self._restore(tab, resolved, recorded), thread=True)

    def _restore(self, tab: EvidenceTab, resolved: str, recorded: rows.CaseEntry) -> None:
        now = read_evidence(resolved, with_kind=False)
        if not isinstance(now, Evidence) or now.sha256 != recorded.get("sha256"):
            why = "missing" if not isinstance(now, Evidence) else "sha256 differs"
            self.app.call_from_thread(self._changed, tab, resolved, why)
            return
        for e in self._checks_of(resolved):
            changed = _held_changed(e)
            if changed:
                self.app.call_from_thread(self._changed, tab, resolved, changed, e.line)
            else:
                self.app.call_from_thread(self._rerun, tab, resolved, e)

    def _changed(self, tab: EvidenceTab, resolved: str, why: str, line: int = 0) -> None:
        key = (CASE_RECORD, line)
        self._restoring.add((resolved, key))
        what = f"the check on case line {line}: held input" if line else "evidence"
        title = f"{what} changed since the case recorded it: {why}"
        rec = SessionRecord(
            CASE_RECORD, title, {"case": self.path}, None, verdict.WRONG, verdict.BROKEN
        )
        tab.add_session(rec, key=key)
        self.app.notify(f"{clean(tab.path)}: {title}", markup=False, severity="error")

    def _rerun(self, tab: EvidenceTab, resolved: str, e: rows.CaseEntry) -> None:
        checks = getattr(tab, "checks", None)
        if checks is None:  # only a ledger tab runs these checks
            return
        args = e.get("args") if isinstance(e.get("args"), dict) else {}
        inputs = {i.get("role"): i.get("resolved") for i in e.get("inputs") if isinstance(i, dict)}
        kind = e.get("check")
        if kind == "pin":
            try:
                pin = pins.pin_from(str(inputs.get("pin") or args.get("pin") or ""))
            except ValueError:
                return
            self._restoring.add((resolved, ("pin",)))
            checks.check_pin(pin)
        elif kind == "witness" and inputs.get("witness"):
            self._restoring.add((resolved, ("witness",)))
            checks.check_witness(Path(str(inputs["witness"])), str(args.get("namespace") or ""))
        elif kind == "receipts" and isinstance(args.get("line"), int):
            line = args["line"]
            pre, post = inputs.get("pre"), inputs.get("post")
            self._restoring.add((resolved, ("recompute", line)))
            self.app.run_worker(lambda: self._recompute(tab, line, pre, post), thread=True)

    def _recompute(self, tab: Any, line: int, pre: str | None, post: str | None) -> None:
        try:
            row = next((r for n, r in iter_receipt_rows(tab.path, None) if n == line), None)
            items = {s: held.load_held(p) if p else None for s, p in (("pre", pre), ("post", post))}
            contents = {
                s: receipt.content_of(v) if v is not None else None for s, v in items.items()
            }
            check = receipt.verify_receipt(row, contents["pre"], contents["post"])
            rec = recompute_record(
                line,
                check,
                row=row,
                held=[*(items["pre"] or []), *(items["post"] or [])],
                pre=pre,
                post=post,
            )
        except (OSError, ValueError):
            return
        pre_p, post_p = (Path(pre) if pre else None), (Path(post) if post else None)
        self.app.call_from_thread(tab.checks.held_content, line, pre_p, post_p, check, rec)

    # ------------------------------------------------------------------ recording
    def session_added(self, tab: EvidenceTab, record_: SessionRecord, key: Any) -> None:
        """A check joined `tab`'s session: record it (unless it is being restored)."""
        resolved = resolved_path(tab.path)
        if (resolved, key) in self._restoring:
            self._restoring.discard((resolved, key))
            return
        inputs = [Input("evidence", str(tab.path))]
        args: dict[str, Any] = {}
        got = record_.inputs
        if record_.kind == "pin":
            check, args = "pin", {"pin": got.get("pin")}
        elif record_.kind == "witness":
            check, args = "witness", {"namespace": got.get("namespace")}
            inputs.append(Input("witness", str(got.get("witness"))))
        elif record_.kind == "recompute":
            check, args = "receipts", {"line": got.get("line")}
            inputs += [Input(s, str(got[s])) for s in ("pre", "post") if got.get(s)]
        elif record_.kind == "lookup" and getattr(tab, "checks", None) is not None:
            if (resolved, key) in self._looked_up:  # the screen shows it again: once
                return
            self._looked_up.add((resolved, key))
            check = "lookup"
            if got.get("text") is not None:
                args = {"text": got.get("text")}
            inputs += [Input("held", str(h)) for h in got.get("held") or []]
        else:
            return  # a restatement, a diff, a receipt file's look-up: not recorded here
        self.app.run_worker(lambda: self._perform(check, inputs, args), thread=True)

    def _perform(self, check: str, inputs: list[Input], args: dict[str, Any]) -> None:
        done = perform(check, inputs, args)
        self._append(lambda: record.record_check(self.path, done), f"{check} check recorded")

    def add_evidence(self, path: str) -> None:
        """Record a PATH opened beside the case: its evidence and its kind's check."""
        self.app.run_worker(
            lambda: self._append(lambda: record.add(self.path, path), "evidence recorded"),
            thread=True,
        )

    def note(self, text: str, *, finding: str | None, on: str | None, line: int | None) -> None:
        """Write a note (or a finding) anchored to `on` (a file) and `line`."""

        def write() -> None:
            anchor = record.anchor(on, line=line) if on is not None else None
            record.note(self.path, text, on=anchor, finding=finding)

        said = f"{finding} finding recorded" if finding else "note recorded"
        self.app.run_worker(lambda: self._append(write, said), thread=True)

    def _append(self, write: Any, said: str) -> None:
        try:
            write()
        except (store.CaseError, ValueError, UnicodeEncodeError) as e:
            self.app.call_from_thread(
                self.app.notify,
                clean(str(e)),
                title="not recorded",
                severity="error",
                markup=False,
            )
            return
        self.refresh()
        self.app.call_from_thread(self._recorded, said)

    def _recorded(self, said: str) -> None:
        self.app.notify(f"{said} in {clean(self.path)}", markup=False)
        self.app.post_message(CaseChanged())
