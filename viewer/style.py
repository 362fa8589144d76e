"""How evidence looks in the viewer: one way to show a value, one table of severities.

`shown(value)` is the only road from an evidence value (any type) to display text: it
goes through `sealscope.core.sanitize.clean`, the one sanitizer. Severity words are
coloured from one place, per vocabulary of core: `VERDICT_STYLE` for a verdict word's
tone (`core.verdict.tone`), `FINDING_STYLE` for harn findings
(`core.harn.SEVERITIES`), `TIER_STYLE` for continuity divergences and diffs (the
usual tier names; a tier a tiers file invents, or `untiered`, is magenta), `TONE_STYLE`
the same with None for no verdict yet; `BANNER_CLASS` / `BANNER_BACKGROUND` the verdict
banner's colour by tone (every tab's banner, `viewer.banner`). The CLI
keeps its own ANSI tables (cli/cmd_continuity.py, cli/cmd_harn.py) for now.
"""

from __future__ import annotations

import json
from typing import Any

from sealscope.core import verdict as _verdict
from sealscope.core.sanitize import clean

__all__ = [
    "VERDICT_STYLE",
    "verdict_style",
    "TONE_STYLE",
    "FINDING_STYLE",
    "TIER_STYLE",
    "tier_style",
    "shown",
    "json_text",
    "BANNER_CLASS",
    "BANNER_BACKGROUND",
    "BANNER_CSS",
    "CHECK_STYLE",
    "ROW_CHECK_STYLE",
    "OWN_CHECK_STYLE",
    "ARCHIVED_STYLE",
    "dialog_css",
]

VERDICT_STYLE = {"pass": "bold green", "fail": "bold red", "warn": "bold yellow"}
FINDING_STYLE = {"high": "bold red", "medium": "yellow", "low": "cyan", "info": "dim"}
TIER_STYLE = {
    "critical": "bold red",
    "notable": "yellow",
    "advisory": "cyan",
    "untiered": "magenta",
}
TONE_STYLE: dict[str | None, str] = {None: "dim"}  # None: no verdict yet
TONE_STYLE.update(VERDICT_STYLE)
CHECK_STYLE = VERDICT_STYLE  # a check's word on a banner line, by its tone
# a row's own check (an artefact binding, a continuity_verify row, a call row) as the
# row list's badge shows it, by the word's tone
OWN_CHECK_STYLE = {"pass": "green", "fail": "bold red", "warn": "bold yellow"}
# a harn receipt's claimed archived count beside what its content shows, by tone
# (more gone than claimed: fail; fewer: warn; the same: pass)
ARCHIVED_STYLE = {"pass": "green", "fail": "bold red", "warn": "yellow"}
# the overview strip's cell for a row whose own check is not VERIFIED, by its tone
ROW_CHECK_STYLE = {"fail": "bold white on dark_red", "warn": "bold black on dark_orange"}

# the verdict banner of every tab: its class by the verdict's tone (None: no verdict
# yet, still reading), and each class's background
BANNER_CLASS: dict[str | None, str] = {
    None: "-pending",
    "pass": "-verified",
    "fail": "-broken",
    "warn": "-couldnot",
}
BANNER_BACKGROUND = {
    "-pending": "$panel",
    "-verified": "$success-darken-2",
    "-broken": "$error-darken-2",
    "-couldnot": "$warning-darken-3",
}
BANNER_CSS = "\n".join(f"Banner.{c} {{ background: {bg}; }}" for c, bg in BANNER_BACKGROUND.items())


def tier_style(severity: Any) -> str:
    """The colour of a tier name (magenta for one the table does not know)."""
    return TIER_STYLE.get(severity, "magenta")


def verdict_style(word: str) -> str:
    """The colour of a verdict word, by its tone."""
    return VERDICT_STYLE[_verdict.tone(word)]


def shown(value: Any) -> str:
    """Any evidence value as display text, sanitized: a string as it is, None (absent,
    or JSON null) as `—`, anything else as `json_text` spells it (`true`, `3.5`, a
    list as JSON): never a Python spelling such as `None` or `True`."""
    if value is None:
        return "—"
    return clean(value if isinstance(value, str) else json_text(value))


def json_text(value: Any) -> str:
    """A value as text, not yet sanitized: a string as it is, anything else as one line
    of JSON, `repr` where JSON cannot say it, a note where it is nested too deep."""
    if isinstance(value, str):
        return value
    try:
        # on screen as stored (NaN as NaN): display text, not a JSON document
        return json.dumps(value, ensure_ascii=False, allow_nan=True)
    except (TypeError, ValueError, RecursionError):
        try:
            return repr(value)
        except RecursionError:  # a row nested near the limit
            return f"[{type(value).__name__} nested too deep to show]"


def dialog_css(screen: str, box: str, width: int, *, max_height: str = "") -> str:
    """The one look of a dialog: `screen` centred over the app, its `#box` a padded
    panel with the accent border, `width` cells wide but never wider than the screen
    (`max_height`, e.g. "90%", when its list may grow)."""
    tall = f"\n        max-height: {max_height};" if max_height else ""
    return f"""
    {screen} {{ align: center middle; }}
    #{box} {{
        width: {width};
        max-width: 100%;
        height: auto;{tall}
        padding: 1 2;
        background: $panel;
        border: thick $accent 60%;
    }}
    """
