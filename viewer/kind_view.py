"""What the tabs of the other evidence kinds share (KINDS.md: receipt files, distill and
portable receipts, continuity verdicts, evidence packs, audit bundles, AAT exports).

Each of those tabs shows one `core.checks.result.KindCheck`, the typed result core's
checker of the kind returns; this module only reads it. `run_check(path, kind)` asks
core for it (the dispatcher `core.checks.run`, else the kind's own module), and turns
an exception into a COULD NOT LOOK result naming it, so a tab never shows a traceback.
`banner_text` is the result as the tabs' banner (`check_list.KindBanner`) draws it:
the word (`KindCheck.verdict`, the reference's own word or its `ok` by
`verdict.kind_check`), the bound beside a VERIFIED (`KindCheck.bound`), the kind and
the file, then every check the kind carries with its own word (`check_lines`), then
the checks the auditor ran in the tab (held content), each with its word.
Every value from the evidence goes through `style.shown`.
"""

from __future__ import annotations

import importlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.text import Text
from sealscope.core import kinds, verdict
from sealscope.core.checks.result import CheckContext, KindCheck
from sealscope.core.sanitize import clean
from sealscope.viewer.profile_view import DOCUMENT_PROFILES, PROFILE_TITLE, profile_lines
from sealscope.viewer.remeasure import remeasure
from sealscope.viewer.style import shown
from textual.widgets import Static

if TYPE_CHECKING:  # annotations only: a check's record loads with the first check
    from sealscope.core.export import SessionRecord

__all__ = [
    "RECEIPT",
    "DISTILL",
    "PORTABLE",
    "CONTINUITY",
    "PACK",
    "BUNDLE",
    "AAT",
    "DOCUMENT_KINDS",
    "UNIT_KINDS",
    "TAB_KINDS",
    "KIND_TITLE",
    "run_check",
    "CheckLine",
    "check_lines",
    "banner_text",
    "verdict_class",
    "word_style",
    "RowJson",
    "line_of",
]

# the kind names of KINDS.md §12: core's classifier's own
RECEIPT = kinds.RECEIPT
DISTILL = kinds.DISTILL_RECEIPT
PORTABLE = kinds.PORTABLE_RECEIPT
CONTINUITY = kinds.CONTINUITY_VERDICT
PACK = kinds.EVIDENCE_PACK
BUNDLE = kinds.AUDIT_BUNDLE
AAT = kinds.AAT_EXPORT

DOCUMENT_KINDS = (RECEIPT, DISTILL, PORTABLE, CONTINUITY)
"""Whole-document kinds: one JSON object, shown by `kind_tab.KindTab`."""
UNIT_KINDS = kinds.UNIT_KINDS
"""Kinds opened as one unit (a folder or a zip): `unit_tab.UnitTab`."""
TAB_KINDS = (*DOCUMENT_KINDS, *UNIT_KINDS, AAT)
"""Every kind one of these tabs opens (an AAT export: `aat_tab.AatTab`)."""

KIND_TITLE = {
    RECEIPT: "compaction receipt",
    DISTILL: "distill receipt",
    PORTABLE: "portable receipt",
    CONTINUITY: "continuity verdict",
    PACK: "evidence pack",
    BUNDLE: "audit bundle",
    AAT: "AAT export",
    **PROFILE_TITLE,  # the long tail's documents (KINDS-3.md), named by their profile
}

NOTE_WIDTH = 72  # characters of a check's note in the banner

# the kind's own checker module, when the dispatcher is not there to ask
_MODULES = {
    RECEIPT: "receipt_file",
    DISTILL: "distill",
    PORTABLE: "portable",
    CONTINUITY: "continuity_verdict",
    PACK: "pack",
    BUNDLE: "bundle",
    AAT: "aat",
}


def run_check(
    path: str | os.PathLike[str], kind: str, ctx: CheckContext | None = None
) -> KindCheck:
    """Core's check of `path` (classified as `kind`): the dispatcher's result for it,
    else the kind module's `check(path, ctx)`. Never raises: a checker that is missing
    or raises is COULD NOT LOOK with `detail.error` naming why (KINDS.md §0.1 rule 2)."""
    p = os.fspath(path)
    ctx = ctx if ctx is not None else CheckContext()
    try:
        checks = importlib.import_module("sealscope.core.checks")
        run = getattr(checks, "run", None)
        if callable(run):
            got: Any = run([p], ctx)
            if isinstance(got, KindCheck):
                return got
            if isinstance(got, (list, tuple)) and got and isinstance(got[0], KindCheck):
                return got[0]
        mod = importlib.import_module(f"sealscope.core.checks.{_MODULES[kind]}")
        got = mod.check(p, ctx)
        if isinstance(got, KindCheck):
            return got
        raise TypeError(f"the {kind} checker returned {type(got).__name__}")
    except Exception as e:  # noqa: BLE001 - never a traceback for a file
        return KindCheck(
            p,
            kind,
            None,
            {"error": type(e).__name__},
            reason=f"could not check this {KIND_TITLE.get(kind, kind)}: {type(e).__name__}: {e}",
        )


# ------------------------------------------------------------------ the kind's checks


@dataclass(frozen=True)
class CheckLine:
    """One check of a kind as the banner lists it: its name, its word (a verdict word,
    or the status the reference's result spells) and a note."""

    name: str
    word: str
    note: str = ""


def _sub(d: Any, key: str) -> Any:
    v = d.get(key) if isinstance(d, dict) else None
    return v if isinstance(v, dict) else {}


def _flag(value: Any, yes: str, no: str) -> str:
    return (
        "—" if value is None else (yes if value is True else no if value is False else shown(value))
    )


def check_lines(kc: KindCheck) -> list[CheckLine]:
    """The checks `kc` carries, in the order its kind's reference runs them (KINDS.md
    §2-§10), each with the word or status core's result gives it."""
    d = kc.detail if isinstance(kc.detail, dict) else {}
    if kc.kind is None and kc.profile in DOCUMENT_PROFILES:
        return [CheckLine(*line) for line in profile_lines(kc)]
    out: list[CheckLine] = []
    if "error" in d and d.get("error") is not None and kc.kind != CONTINUITY:
        out.append(CheckLine("verifier", verdict.COULD_NOT_LOOK, shown(d["error"])))
    if kc.kind == RECEIPT:
        out += [
            CheckLine("self-consistent", _flag(d.get("self_consistent"), "yes", "no")),
            CheckLine("content", shown(d.get("content"))),
            CheckLine("schema", shown(d.get("schema"))),
            CheckLine("understatement check", shown(d.get("understatement_check"))),
            CheckLine("verified scope", shown(d.get("verified_scope"))),
        ]
    elif kc.kind == DISTILL:
        out += [
            CheckLine("verified scope", shown(d.get("verified_scope"))),
            CheckLine("read from", shown(d.get("source"))),
        ]
    elif kc.kind == PORTABLE:
        out += [
            CheckLine("body digest", _flag(d.get("body_digest_ok"), "ok", "mismatch")),
            CheckLine("ledger", shown(_sub(d, "ledger").get("status"))),
            CheckLine("witness", shown(_sub(d, "witness").get("verdict"))),
            CheckLine(
                "attestation signature", shown(_sub(d, "attestation_signature").get("verdict"))
            ),
        ]
        if d.get("duplicate_keys"):
            out.append(CheckLine("duplicate keys", "refused", shown(d["duplicate_keys"])))
    elif kc.kind == CONTINUITY:
        out.append(
            CheckLine(
                "loaded",
                _flag(d.get("loaded"), "yes", "no"),
                shown(d.get("error")) if d.get("error") else "",
            )
        )
        if d.get("loaded"):
            out += [
                CheckLine("faithful", _flag(d.get("faithful"), "yes", "no")),
                CheckLine("valid", _flag(d.get("valid"), "yes", "no")),
                CheckLine("comparison", shown(d.get("comparison"))),
                CheckLine(
                    "verdict digest (recomputed)",
                    shown(d.get("verdict_digest")),
                    "" if d.get("verdict_digest") else "unbound: no verdict_digest",
                ),
            ]
    elif kc.kind == PACK:
        for c in d.get("checks") or []:
            if isinstance(c, dict):
                note = c.get("finding") or c.get("reason") or c.get("note")
                out.append(
                    CheckLine(
                        shown(c.get("check")), shown(c.get("verdict")), shown(note) if note else ""
                    )
                )
    elif kc.kind == BUNDLE:
        if d.get("reason_word") and "rows" not in d:
            out.append(
                CheckLine("records.jsonl", verdict.COULD_NOT_LOOK, shown(d.get("reason_word")))
            )
        else:
            chain = verdict.kind_check(d.get("ok")).verdict
            out.append(CheckLine("records chain", chain, _chain_note(d)))
            out.append(_integrity_line(d.get("integrity")))
        out.append(
            CheckLine(
                "manifest, summary",
                "not covered",
                "the reference's audit verify reads only the chain",
            )
        )
    elif kc.kind == AAT and "error" not in d:
        if kc.ok:
            out += [
                CheckLine(
                    "AAT chain over line bytes", kc.verdict, f"{shown(d.get('records'))} records"
                ),
                CheckLine("head (the last line's hash)", shown(d.get("head"))),
            ]
        else:
            out.append(
                CheckLine(
                    "AAT chain over line bytes",
                    kc.verdict,
                    shown(d.get("finding") or f"line {shown(d.get('line'))}"),
                )
            )
    return out


def _integrity_line(rec: Any) -> CheckLine:
    """The bundle's own record (KINDS.md §9.2) as the check core made of it: the word
    it adds (never better than the chain's) and why."""
    rec = rec if isinstance(rec, dict) else {}
    said, matches = rec.get("verdict"), rec.get("records_sha256_matches")
    if said is None and matches is None:
        return CheckLine("integrity.json", "not covered", "absent or unreadable")
    words = [verdict.BROKEN] if matches is False else []
    if said in (verdict.BROKEN, verdict.COULD_NOT_LOOK):
        words.append(said)
    note = f"records {shown(rec.get('finding'))}; records_sha256 " + (
        "matches" if matches else "differs" if matches is False else "not recorded"
    )
    word = verdict.worst_word(words) if words else verdict.VERIFIED
    return CheckLine("integrity.json", word, note)


def _chain_note(d: dict[str, Any]) -> str:
    parts = [
        f"rows {shown(d.get('rows'))}",
        f"chained {shown(d.get('chained'))}",
        f"scope {shown(d.get('verified_scope'))}",
    ]
    if d.get("first_break"):
        parts.append(f"first break: {shown(d.get('first_break'))}")
    return " · ".join(parts)


# ------------------------------------------------------------------ the banner


def word_style(word: str) -> str:
    """A verdict word's colour by its tone; any other status word (a scope, `ok`) dim."""
    if word in (verdict.VERIFIED, verdict.BROKEN, verdict.COULD_NOT_LOOK):
        return {"pass": "bold green", "fail": "bold red"}.get(verdict.tone(word), "bold yellow")
    return "cyan"


def verdict_class(word: str | None) -> str:
    """The banner's colour class for a word (pending while None)."""
    if word is None:
        return "-pending"
    return {"pass": "-verified", "fail": "-broken"}.get(verdict.tone(word), "-couldnot")


def banner_text(
    name: str,
    kc: KindCheck | None,
    outcome: verdict.Outcome | None = None,
    checks: tuple[SessionRecord, ...] = (),
    waiting: str = "checking…",
) -> Text:
    """The banner of one kind's tab: the word (the tab's verdict `outcome` when checks
    were run, else `kc`'s), the bound beside VERIFIED, the kind and file, why it could
    not look, then each check of the kind and each check run in the tab."""
    t = Text(no_wrap=False, end="")
    if kc is None:
        t.append(f" {waiting} ", "bold")
        t.append(f"  {clean(name)}")
        return t
    word = outcome.verdict if outcome is not None else kc.verdict
    t.append(f" {word} ", "bold reverse")
    # the bound beside VERIFIED: the check's own, unless held content recomputed the
    # receipt in the tab, whose scope is then what held (`verdict.scope_note`)
    recomputed = [r.result for r in checks if r.kind == "recompute"]
    bound = verdict.scope_note(recomputed) if recomputed else kc.bound
    if word == verdict.VERIFIED and bound:
        t.append(" · " + shown(bound), "bold")
    named = kc.kind or kc.profile or ""
    t.append(f"  {KIND_TITLE.get(named, shown(named or None))}  ", "bold")
    t.append(clean(name))
    if checks:
        t.append(f"  · own check {kc.verdict}")
    lines = check_lines(kc)
    if (
        kc.reason
        and word != verdict.VERIFIED
        and all(line.note != shown(kc.reason) for line in lines)
    ):
        t.append("\n ")
        t.append(shown(kc.reason), "italic")
    for line in lines:
        t.append("\n  ")
        t.append(f"{line.name}: ", "bold")
        if line.word in (verdict.VERIFIED, verdict.BROKEN, verdict.COULD_NOT_LOOK):
            t.append(f" {line.word} ", word_style(line.word) + " reverse")
        else:
            t.append(line.word, word_style(line.word))
        if line.note:  # one screen line: the whole note is in the kind's panel or JSON
            note = line.note if len(line.note) <= NOTE_WIDTH else line.note[: NOTE_WIDTH - 1] + "…"
            t.append("  " + note, "dim")
    for rec in checks:
        t.append("\n  ")
        t.append(f"{clean(rec.title)}: ", "bold")
        t.append(f" {rec.verdict} ", word_style(rec.verdict) + " reverse")
    return t


# ------------------------------------------------------------------ one row, literally


def line_of(option_id: str | None) -> int | None:
    """The line number of a row list's option (`line-N`), or None."""
    if option_id is None or not option_id.startswith("line-"):
        return None
    try:
        return int(option_id[5:])
    except ValueError:
        return None


class RowJson(Static):
    """The row highlighted in a unit's or an export's row list, as its JSON, literally
    (sanitized): what the list cuts to one line."""

    DEFAULT_CSS = """
    RowJson {
        height: auto;
        max-height: 8;
        padding: 0 1;
        border-top: hkey $primary 50%;
        overflow-y: auto;
    }
    """

    def show(self, line: int, value: Any) -> None:
        t = Text(end="")
        t.append(f"line {line}  ", "bold")
        t.append(shown(value))
        self.update(t)
        remeasure(self)
