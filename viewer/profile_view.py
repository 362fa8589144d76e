"""What a kind tab shows of a long-tail document (KINDS-3.md §15–§23): a mandate, a
stored once receipt, a deal pack or a vet grade, each judged by core's profile check
(`core.profiles`, what `sealscope check` gives it).

* `PROFILE_TITLE`: the words a banner names each by;
* `profile_lines(kc)`: the banner's lines of the check (each with its word or status);
* `profile_panel(profile, doc, kc)`: the left panel — a mandate's shape, problems and
  sealed digest; a once receipt's fields beside the fresh ones (`differs` marked); a
  deal pack's dispute and findings; a vet grade's source and reproduction.

Only core's result decides a word; the panel lays out what it holds. Every value goes
through `style.shown`.
"""

from __future__ import annotations

from typing import Any

from rich.text import Text
from sealscope.core import verdict
from sealscope.core.checks.result import KindCheck
from sealscope.viewer.style import shown

__all__ = ["PROFILE_TITLE", "DOCUMENT_PROFILES", "profile_lines", "profile_panel"]

PROFILE_TITLE = {
    "mandate": "mandate",
    "once-receipt": "once receipt",
    "deal-pack": "deal pack",
    "vet-grade": "vet grade",
}
DOCUMENT_PROFILES = tuple(PROFILE_TITLE)

_DEAL_WORD = {"MATCHED": verdict.VERIFIED, "MISSING": verdict.BROKEN, "ALTERED": verdict.BROKEN}


def _flag(value: Any, yes: str, no: str) -> str:
    return (
        "—" if value is None else yes if value is True else no if value is False else shown(value)
    )


def _digest_word(ok: Any) -> str:
    return "—" if ok is None else verdict.VERIFIED if ok is True else verdict.BROKEN


def _line(name: str, word: str, note: str = "") -> tuple[str, str, str]:
    """One banner line (`kind_view.CheckLine`'s fields: name, word, note)."""
    return name, word, note


def profile_lines(kc: KindCheck) -> list[tuple[str, str, str]]:
    """The banner's lines of a long-tail document's check, each (name, word or
    status, note): `kind_view` draws them as its `CheckLine`s."""
    d = kc.detail if isinstance(kc.detail, dict) else {}
    p = kc.profile
    if d.get("reason_word") in ("missing",) and p in ("once-receipt", "vet-grade"):
        held = "ledger" if p == "once-receipt" else "source"
        return [_line(held, verdict.COULD_NOT_LOOK, "not beside it, nor in --artefacts")]
    if p == "mandate":
        if "error" in d:
            return [_line("lint", verdict.COULD_NOT_LOOK, shown(d.get("error")))]
        problems = [shown(x.get("key")) for x in d.get("problems") or [] if isinstance(x, dict)]
        return [
            _line("shape", shown(d.get("shape"))),
            _line(
                "lint",
                verdict.VERIFIED if d.get("valid") else verdict.BROKEN,
                ", ".join(repr(x) for x in problems) if problems else "",
            ),
            _line("warnings", shown(d.get("warnings"))),
            _line(
                "sealed body digest",
                _digest_word(d.get("mandate_digest_ok")),
                "differs from mandate_digest" if d.get("mandate_digest_ok") is False else "",
            ),
        ]
    if p == "once-receipt":
        differs = d.get("differs") or []
        return [
            _line("ledger", shown(d.get("ledger"))),
            _line("ledger chain", verdict.kind_check(d.get("ledger_ok")).verdict),
            _line("state (fresh)", shown(d.get("state"))),
            _line(
                "stored fields",
                verdict.BROKEN if differs else verdict.VERIFIED,
                ("differ: " + ", ".join(shown(x) for x in differs)) if differs else "as fresh",
            ),
        ]
    if p == "deal-pack":
        said = str(d.get("verdict"))
        return [
            _line("deal", shown(d.get("deal"))),
            _line("dispute of its rows", _DEAL_WORD.get(said, verdict.COULD_NOT_LOOK), shown(said)),
            _line(
                "verdict.json says",
                shown(d.get("stored_verdict")),
                {True: "agrees", False: "does not agree", None: ""}.get(d.get("agrees"), ""),
            ),
        ]
    if p == "vet-grade":
        return [
            _line("source", shown(d.get("source"))),
            _line(
                "reproduced",
                _flag(d.get("reproduced"), "yes", "no"),
                "findings need the grader's checks" if d.get("reproduced") is None else "",
            ),
        ]
    return []


def profile_panel(profile: str, doc: Any, kc: KindCheck | None) -> Text:
    """The left panel of a long-tail document's tab."""
    t = Text(end="")
    t.append(f" {PROFILE_TITLE.get(profile, profile)} ", "bold reverse")
    d = kc.detail if kc is not None and isinstance(kc.detail, dict) else {}
    if kc is None:
        t.append("\n  checking…\n", "italic")
        return t
    t.append(f"  {kc.verdict}\n", "bold")
    if kc.reason:
        t.append("  " + shown(kc.reason) + "\n", "italic")
    if profile == "mandate":
        _mandate(t, doc, d)
    elif profile == "once-receipt":
        _receipt(t, doc, d)
    elif profile == "deal-pack":
        _pack(t, d)
    elif profile == "vet-grade":
        _grade(t, doc, d)
    return t


def _mandate(t: Text, doc: Any, d: dict[str, Any]) -> None:
    t.append(f"\n shape {shown(d.get('shape'))}\n", "bold underline")
    problems = [x.get("key") for x in d.get("problems") or [] if isinstance(x, dict)]
    for key in problems:
        t.append("  ✗ ", "bold red")
        t.append((shown(key) or "(the gate cannot read it)") + "\n")
    if not problems:
        t.append("  every key known and of its type\n", "green")
    body = doc.get("mandate") if isinstance(doc, dict) and d.get("shape") == "sealed" else doc
    if isinstance(body, dict):
        t.append("\n acts\n", "bold underline")
        for key in ("allowed_acts", "may", "forbidden_acts", "may_not"):
            if key in body:
                t.append(f"  {key}: ", "bold")
                t.append(shown(body[key]) + "\n")
        cap = body.get("spend_cap", body.get("cap"))
        t.append("  cap: ", "bold")
        t.append(shown(cap) + "\n")
    ok = d.get("mandate_digest_ok")
    if ok is not None:
        t.append("\n sealed body digest ", "bold underline")
        t.append(
            " ok \n" if ok else " differs from mandate_digest \n", "green" if ok else "bold red"
        )


def _receipt(t: Text, doc: Any, d: dict[str, Any]) -> None:
    differs = set(d.get("differs") or [])
    t.append(f"\n ledger {shown(d.get('ledger'))}\n", "bold underline")
    t.append(f"  fresh state {shown(d.get('state'))} · chain ok {shown(d.get('ledger_ok'))}\n")
    if not isinstance(doc, dict):
        return
    t.append("\n stored fields\n", "bold underline")
    for key in (
        "key",
        "state",
        "intent_ts",
        "intent_chain",
        "executed_ts",
        "executed_chain",
        "outcome_digest",
    ):
        mark = "≠ " if key in differs else "  "
        t.append(f" {mark}", "bold red" if key in differs else "")
        t.append(f"{key}: ", "bold")
        t.append(shown(doc.get(key)) + "\n")


def _pack(t: Text, d: dict[str, Any]) -> None:
    t.append(f"\n deal {shown(d.get('deal'))}\n", "bold underline")
    t.append(
        f"  dispute {shown(d.get('verdict'))} · matched {shown(d.get('matched'))} · counts "
        f"{shown(d.get('counts'))}\n"
    )
    t.append(f"  verdict.json {shown(d.get('stored_verdict'))} · agrees {shown(d.get('agrees'))}\n")
    findings = d.get("findings") or []
    if findings:
        t.append("\n findings\n", "bold underline")
    for f in findings:
        if isinstance(f, dict):
            t.append(f"  {shown(f.get('verdict'))} at {shown(f.get('at'))} ", "bold red")
            t.append(f"({shown(f.get('side'))} tape)\n")


def _grade(t: Text, doc: Any, d: dict[str, Any]) -> None:
    t.append(f"\n source {shown(d.get('source'))}\n", "bold underline")
    t.append(f"  reproduced {shown(d.get('reproduced'))} · reasons {shown(d.get('reasons'))}\n")
    if isinstance(doc, dict):
        t.append(f"\n verdict {shown(doc.get('verdict'))}\n", "bold underline")
        for f in doc.get("findings") or []:
            if isinstance(f, dict):
                t.append(f"  {shown(f.get('severity'))} ", "bold")
                t.append(f"{shown(f.get('check'))} line {shown(f.get('line'))}\n")
