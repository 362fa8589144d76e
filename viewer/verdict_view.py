"""VerdictView: a restatement scored against the open seal.

Shows the verdict `verify_continuation` returned, as the CLI's `continuity --json`
prints it: the `comparison` first, `faithful` (in loose mode "not judged", never a
pass), the divergences grouped by severity with the declared and restated values
side by side, the notes, the verdict digest, and — when a newer manifest was loaded —
the items it declares that the seal never sealed (`added_since_seal`).

Every string from the snapshot, the restatement or the tiers file goes through
`sanitize.clean` and reaches the screen as `rich.text.Text` (never markup).
Mount: `VerdictView(id="seal-verdict")`, then `show(verdict, restated_path=...,
tiers_path=..., added=..., added_source=...)` or `show_error(text)`.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text
from sealscope.core import verdict as _verdict
from sealscope.core.export import grouped_divergences
from sealscope.viewer.style import shown, tier_style, verdict_style
from textual.widgets import Static

__all__ = ["VerdictView", "render_verdict", "WORD_STYLE"]

WORD_STYLE = {
    _verdict.FAITHFUL: "bold white on dark_green",
    _verdict.CONTAINED_ONLY: "bold black on yellow",
    _verdict.DIVERGENCE: "bold white on dark_red",
    _verdict.INVALID_COMPARISON: "bold white on dark_red",
}


def _value(value: Any) -> Text:
    if value is None:
        return Text("(none)", style="dim italic")
    if value == "":
        return Text("(empty)", style="dim italic")
    return Text(shown(value))


def render_verdict(
    v: Any,
    *,
    restated_path: str | None = None,
    tiers_path: str | None = None,
    added: dict | None = None,
    added_source: str | None = None,
) -> RenderableType:
    """The verdict as a renderable (what VerdictView shows)."""
    strict = bool((v.policy or {}).get("strict", True))
    word = _verdict.continuation(v).verdict
    head = Text()
    head.append(f" {word} ", WORD_STYLE.get(word, "bold"))
    head.append(f"  {'strict' if strict else 'loose'} mode", "bold")
    if restated_path:
        head.append("  restatement ", "dim")
        head.append(shown(restated_path))
    if tiers_path:
        head.append("  tiers ", "dim")
        head.append(shown(tiers_path))

    facts = Text()
    facts.append("comparison ", "dim")
    facts.append(
        shown(v.comparison) if v.comparison is not None else "null (not established)", "bold"
    )
    facts.append("   faithful ", "dim")
    if not strict:
        facts.append("not judged (loose mode)", "italic yellow")
    elif v.faithful is True:
        facts.append("true", "bold green")
    else:
        facts.append("false", "bold red")
    facts.append("   valid ", "dim")
    facts.append("true" if v.valid else "false", "green" if v.valid else "bold red")
    facts.append(f"   divergences {len(v.divergences)}", "dim")

    parts: list[RenderableType] = [head, facts]
    if v.claimed_property:
        parts.append(Text(shown(v.claimed_property), style="italic"))
    if not strict:
        parts.append(
            Text(
                "loose mode: a pass means each declared value appeared in the "
                "answer, not that it was restated exactly",
                style="yellow",
            )
        )

    for sev, group in grouped_divergences(v.divergences):
        style = tier_style(sev)
        count = f"  {len(group)} divergence{'s' if len(group) != 1 else ''}"
        parts.append(Text.assemble("\n", (f"{shown(sev)}", style), (count, "dim")))
        t = Table(
            show_header=True,
            header_style="bold",
            box=None,
            expand=True,
            pad_edge=False,
            padding=(0, 1),
        )
        longest = max(len(shown(d.get("id"))) for d in group)
        t.add_column("id", style=style, no_wrap=True, min_width=min(longest, 28), max_width=28)
        t.add_column("declared", ratio=3)
        t.add_column("restated", ratio=3)
        t.add_column("reason", style="dim", ratio=2)
        for d in group:
            t.add_row(
                Text(shown(d.get("id"))),
                _value(d.get("declared")),
                _value(d.get("restated")),
                _value(d.get("reason")),
            )
        parts.append(t)
    if v.valid and not v.divergences:
        parts.append(Text("\nno divergence", style="green"))

    if added is not None:
        src = f" ({shown(added_source)})" if added_source else ""
        if added:
            parts.append(Text(f"\nadded since the seal{src}", style="bold"))
            for fld, ids in added.items():
                line = Text("  ")
                line.append(shown(fld), "bold")
                line.append("  ")
                line.append(", ".join(shown(i) for i in ids))
                parts.append(line)
        else:
            parts.append(Text(f"\nnothing added since the seal{src}", style="dim"))

    notes = [n for n in v.notes if n and not str(n).startswith("comparison=")]
    if notes:
        parts.append(Text(""))
        for n in notes:
            parts.append(Text("note: " + shown(n), style="dim"))
    parts.append(Text.assemble(("verdict_digest ", "dim"), shown(v.verdict_digest)))
    return Group(*parts)


class VerdictView(Static):
    """The verdict panel of a seal tab (hidden until a restatement is scored)."""

    DEFAULT_CSS = """
    VerdictView {
        height: auto;
        padding: 0 1 1 1;
        border-bottom: hkey $primary 40%;
    }
    """

    def __init__(self, **kw: Any) -> None:
        super().__init__(Text(""), **kw)
        self.verdict: Any = None
        self.view: RenderableType = Text("")

    def show(
        self,
        verdict: Any,
        *,
        restated_path: str | None = None,
        tiers_path: str | None = None,
        added: dict | None = None,
        added_source: str | None = None,
    ) -> None:
        self.verdict = verdict
        self.view = render_verdict(
            verdict,
            restated_path=restated_path,
            tiers_path=tiers_path,
            added=added,
            added_source=added_source,
        )
        self.update(self.view)
        self.display = True

    def show_added(self, added: dict, source: str) -> None:
        """Only the `added_since_seal` part (no restatement scored yet)."""
        t = Text()
        t.append(f"added since the seal ({shown(source)})", "bold")
        if not added:
            t.append("\n  nothing", "dim")
        for fld, ids in added.items():
            t.append("\n  ")
            t.append(shown(fld), "bold")
            t.append("  " + ", ".join(shown(i) for i in ids))
        self.view = t
        self.update(t)
        self.display = True

    def show_error(self, message: str) -> None:
        """A restatement that could not be scored: the verdict is COULD NOT LOOK; what
        went wrong is a labelled field beside it, never a word in the verdict's place."""
        word = _verdict.COULD_NOT_LOOK
        self.view = Text.assemble(
            (f"{word}  ", verdict_style(word)), ("restatement not scored: ", "bold"), shown(message)
        )
        self.update(self.view)
        self.display = True
