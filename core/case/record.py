"""Recording into a case: open one, add evidence and its checks, note, find, resolve,
sign off. Each function builds its entry row (`rows.new_row`) and appends it
(`store.append`); each returns what it recorded. Refusals are `store.CaseError`.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.case import rows as _rows
from sealscope.core.case import store as _store
from sealscope.core.case.evidence import Evidence, Unreadable, read_evidence
from sealscope.core.case.perform import Input, Performed, perform

__all__ = [
    "Added",
    "new_case",
    "add",
    "record_check",
    "anchor",
    "note",
    "resolve",
    "signoff",
]


def _version() -> str:
    from sealscope.core.version import __version__

    return __version__


def new_case(path: str, *, title: str | None = None, by: str | None = None) -> str:
    """Create the case with its `opened` entry; its chain."""
    row = _rows.new_row("opened", {"title": title, "by": by, "sealscope": _version()})
    return _store.create(path, row)


def check_fields(done: Performed) -> dict[str, Any]:
    """The fields of the `check` entry recording `done`."""
    return {
        "check": done.check,
        "inputs": done.input_fields(),
        "args": done.args,
        "verdict": done.verdict,
        "exit_code": done.exit_code,
        "bound": done.bound or None,
        "reason": done.reason,
        "sealscope": _version(),
        "result_sha256": done.result_sha256,
    }


def record_check(case: str, done: Performed) -> str:
    """Append the `check` entry of a performed check; its chain."""
    return _store.append(case, _rows.new_row("check", check_fields(done)))


@dataclass(frozen=True)
class Added:
    """One path added to a case: its evidence as read and the checks recorded on it."""

    path: str
    evidence: Evidence | Unreadable
    checks: tuple[Performed, ...]


def add(
    case: str,
    path: str,
    *,
    artefacts: str | None = None,
    pin: str | None = None,
    pre: str | None = None,
    post: str | None = None,
    line: int | None = None,
    lookup: list[str] | None = None,
    diff: str | None = None,
    restated: str | None = None,
    loose: bool = False,
    tiers: str | None = None,
) -> Added:
    """Record `path`'s evidence entry, then its kind's own check, and with `pin` a pin
    check, with `pre`/`post` a receipts check, with `lookup` (held files) a look-up in
    its drop manifests, with `diff` (a later seal) a seal diff, with `restated` a
    restatement scored against it (`loose`, `tiers` as `sealscope continuity` takes
    them; `tiers` also goes with `diff`). An unreadable path is recorded by its check
    alone (COULD NOT LOOK, saying why); no evidence entry claims bytes not read."""
    ev = read_evidence(path)
    if isinstance(ev, Evidence):
        _store.append(case, _rows.new_row("evidence", ev.fields()))
    inputs = [Input("evidence", path)]
    if artefacts is not None:
        inputs.append(Input("artefacts", artefacts))
    done = [perform("kind", inputs)]
    if pin is not None:
        pin_inputs = [Input("evidence", path)]
        args: dict[str, Any] = {}
        if os.path.isfile(pin):  # a pin file is an input; a pin's text is an argument
            pin_inputs.append(Input("pin", pin))
        else:
            args["pin"] = pin
        done.append(perform("pin", pin_inputs, args))
    if pre is not None or post is not None:
        held = [Input("evidence", path)]
        held += [Input(side, p) for side, p in (("pre", pre), ("post", post)) if p is not None]
        done.append(perform("receipts", held, {"line": line} if line is not None else {}))
    if lookup:
        done.append(
            perform("lookup", [Input("evidence", path), *(Input("held", h) for h in lookup)])
        )
    with_tiers = [Input("tiers", tiers)] if tiers is not None else []
    if diff is not None:
        done.append(perform("diff", [Input("evidence", path), Input("new", diff), *with_tiers]))
    if restated is not None:
        scored = [Input("evidence", path), Input("restated", restated), *with_tiers]
        done.append(perform("restatement", scored, {"loose": True} if loose else {}))
    for d in done:
        record_check(case, d)
    return Added(path, ev, tuple(done))


def anchor(
    path: str, *, line: int | None = None, item: str | None = None, member: str | None = None
) -> dict[str, Any]:
    """The anchor of a note on `path` (its SHA-256, and a line, item or member)."""
    ev = read_evidence(path, with_kind=False)
    if isinstance(ev, Unreadable):
        raise _store.CaseError(f"{path}: cannot anchor a note on it: {ev.why}")
    out: dict[str, Any] = {"path": path, "sha256": ev.sha256}
    for key, value in (("line", line), ("item", item), ("member", member)):
        if value is not None:
            out[key] = value
    return out


def note(
    case: str,
    text: str,
    *,
    on: dict[str, Any] | None = None,
    finding: str | None = None,
    by: str | None = None,
) -> str:
    """Append a note, or with `finding` (a severity) an open finding; its chain."""
    if finding is None:
        return _store.append(case, _rows.new_row("note", {"text": text, "on": on, "by": by}))
    if finding not in _rows.SEVERITIES:
        raise ValueError(f"a finding's severity is one of {', '.join(_rows.SEVERITIES)}")
    fields = {"text": text, "on": on, "by": by, "severity": finding, "status": _rows.OPEN}
    return _store.append(case, _rows.new_row("finding", fields))


def resolve(case: str, finding_id: str, text: str = "", *, by: str | None = None) -> str:
    """Append the resolution of the open finding `finding_id` (`F<n>`); its chain.
    CaseError when the case has no such open finding or does not verify."""
    read = _store.read_case(case)
    if read.verdict != _verdict.VERIFIED:
        raise _store.CaseRefused(f"{case}: the case does not verify; nothing is appended")
    for f in _rows.findings_of(list(read.entries)):
        if f.id == finding_id:
            if f.status != _rows.OPEN:
                raise _store.CaseError(f"{case}: {finding_id} is already resolved")
            fields = {
                "text": text,
                "by": by,
                "status": _rows.RESOLVED,
                "resolves": f.id,
                "resolves_chain": f.entry.get("chain"),
            }
            return _store.append(case, _rows.new_row("finding", fields))
    raise _store.CaseError(f"{case}: no finding {finding_id}")


def signoff(case: str, by: str, statement: str = "") -> str:
    """Append a sign-off by `by`; its chain."""
    if not by.strip():
        raise ValueError("a sign-off names who signs (--by)")
    return _store.append(case, _rows.new_row("signoff", {"by": by, "statement": statement}))
