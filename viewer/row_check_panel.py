"""The panel and row badge of a ledger row with a check of its own (KINDS.md §11.2): a
`continuity_verify` row, an artefact binding, a call row, a distill receipt row.

The check and its word are core's (`core.checks.ledger_rows`: the `rows_checked`
entries of the row, or a held artefact's `checks.artefact.held_file_entry`); this
module only lays them out, beside the row's own fields. Every string from the evidence
passes through `style.shown` (sanitized), so markup and escapes are shown, not obeyed.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.text import Text
from sealscope.core import verdict as _verdict
from sealscope.viewer.style import CHECK_STYLE, shown
from textual.widgets import Static

__all__ = ["TITLES", "row_badge", "render_row_checks", "RowCheckPanel"]

# check → (panel title, the badge's short name)
TITLES = {
    "continuity-verify": ("continuity verdict row", "continuity"),
    "artefact": ("artefact binding", "artefact"),
    "call-args": ("call row", "call args"),
    "distill-receipt": ("distill receipt row", "distill"),
}

# the field of an entry that says in one word what its check found, by check
_FOUND = {
    "continuity-verify": "match",
    "artefact": "held",
    "call-args": "args",
    "distill-receipt": "verified_scope",
}


def _found(e: dict[str, Any]) -> str:
    """What an entry's check found, in a word or two (`not held`, `unmatched`, ...)."""
    check = str(e.get("check"))
    if check == "artefact" and not e.get("ok"):
        return str(e.get("artefact_verdict"))
    return str(e.get(_FOUND.get(check, "verdict"))).replace("_", " ")


def row_badge(entries: Sequence[dict[str, Any]]) -> tuple[str, str] | None:
    """The badge of a row in the row list: (the worst entry's word, "artefact: not
    held"); None when the row has no check of its own (compaction receipts have their
    own mark)."""
    own = [e for e in entries if e.get("check") in TITLES]
    if not own:
        return None
    worst = max(own, key=lambda e: _verdict.severity(_verdict.row_check(e).exit_code))
    name = TITLES[str(worst["check"])][1]
    more = f" +{len(own) - 1}" if len(own) > 1 else ""
    return str(worst.get("verdict")), f"{name}: {_found(worst)}{more}"


def _field(t: Text, key: str, value: Any, style: str = "") -> None:
    t.append(f"  {key}: ", "bold")
    t.append(shown(value) + "\n", style)


def _continuity(t: Text, row: dict[str, Any], e: dict[str, Any]) -> None:
    for key in ("label", "comparison", "faithful", "valid", "n_divergences", "verdict_digest"):
        if key in row:
            _field(t, key, row.get(key))
    match = str(e.get("match"))
    _field(t, "match", match, {"matched": "green", "mismatch": "bold red"}.get(match, "yellow"))
    if e.get("verdict_file"):
        _field(t, "stored verdict", e.get("verdict_file"))
    if e.get("differs"):
        _field(t, "the row differs from it in", ", ".join(map(str, e["differs"])), "bold red")
    if match == "unmatched":
        t.append(
            "  no stored verdict held has this verdict_digest (the row alone cannot be "
            "checked): `sealscope check LEDGER VERDICT.json`, or --artefacts DIR, joins one\n",
            "dim",
        )


def _artefact(t: Text, row: dict[str, Any], e: dict[str, Any]) -> None:
    got = row.get("artefact")
    art: dict[str, Any] = got if isinstance(got, dict) else {}
    subj = art.get("subject")
    subject: dict[str, Any] = subj if isinstance(subj, dict) else {}
    _field(t, "name", subject.get("name"))
    _field(t, "digest", art.get("digest"))
    ok = bool(e.get("ok"))
    _field(t, "binding", e.get("artefact_verdict"), "green" if ok else "bold red")
    if e.get("reason") and not ok:
        _field(t, "reason", e.get("reason"), "bold red")
    held = str(e.get("held"))
    _field(t, "held", held, {"match": "green", "mismatch": "bold red"}.get(held, "yellow"))
    if e.get("held_file"):
        _field(t, "held file", e.get("held_file"))
    if ok and held == "not_held":
        t.append(
            "  drop or paste the artefact's file here to check its digest\n",
            "dim",
        )


def _call(t: Text, row: dict[str, Any], e: dict[str, Any]) -> None:
    for key in ("tool", "ts", "args_digest", "args_bytes", "ok", "error"):
        if key in row:
            _field(t, key, row.get(key))
    args = str(e.get("args"))
    _field(t, "args", args, {"match": "green", "mismatch": "bold red"}.get(args, "yellow"))
    if args == "not_inline":
        t.append("  the call's args are not in the row: its digest cannot be recomputed\n", "dim")


def _distill(t: Text, row: dict[str, Any], e: dict[str, Any]) -> None:
    for key in ("strategy", "budget_tokens", "truncated", "distiller"):
        if key in row:
            _field(t, key, row.get(key))
    drops = row.get("drops")
    if isinstance(drops, list):
        _field(t, "drops", len(drops))
    _field(t, "verified scope", e.get("verified_scope"), "green" if e.get("ok") else "bold red")


_BODY = {
    "continuity-verify": _continuity,
    "artefact": _artefact,
    "call-args": _call,
    "distill-receipt": _distill,
}


def render_row_checks(row: Any, entries: Sequence[dict[str, Any]]) -> Text:
    """Each check of the row's own (`entries`, in core's order): its title, its word
    on its tone's colour, the bound a VERIFIED held within, then what it looked at."""
    t = Text(end="")
    row = row if isinstance(row, dict) else {}
    for i, e in enumerate(x for x in entries if x.get("check") in TITLES):
        if i:
            t.append("\n")
        word = str(e.get("verdict"))
        t.append(f" {TITLES[str(e['check'])][0]} ", "bold reverse")
        t.append("  ")
        t.append(f" {word} ", CHECK_STYLE[_verdict.tone(word)] + " reverse")
        if e.get("bound") and word == _verdict.VERIFIED:
            t.append(f" · {shown(e['bound'])}", "bold")
        t.append("\n")
        _BODY[str(e["check"])](t, row, e)
        if e.get("note") and word != _verdict.VERIFIED and e["check"] != "continuity-verify":
            _field(t, "note", e.get("note"), "dim")
    return t


class RowCheckPanel(Static):
    """A row's own checks, laid out (`render_row_checks`)."""

    def show(self, row: Any, entries: Sequence[dict[str, Any]]) -> None:
        self.update(render_row_checks(row, entries))
