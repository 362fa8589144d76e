"""The CLI's colours (names `output.paint` takes): a verdict word's colour by its tone
(`core.verdict.tone`), and a severity's colour on both severity scales (continuity tiers
critical / notable / advisory; harn findings high / medium / low / info). Which severity
is worse is core's (`continuity.SEVERITY_ORDER`, `harn.worst_severity`); the viewer's
styles are `viewer/style.py`'s."""

from __future__ import annotations

from sealscope.core.verdict import tone

TONE_COLOUR = {"pass": "green", "fail": "red", "warn": "yellow"}

SEVERITY_COLOUR = {
    "critical": "red",
    "notable": "yellow",
    "advisory": "cyan",
    "high": "red",
    "medium": "yellow",
    "low": "cyan",
    "info": "dim",
}
OTHER_SEVERITY_COLOUR = "magenta"  # a tier name the table does not know, or untiered


def verdict_colour(word: str) -> str:
    """The colour of a verdict word: green pass, red fail, yellow otherwise."""
    return TONE_COLOUR[tone(word)]


def severity_colour(severity: object) -> str:
    return SEVERITY_COLOUR.get(str(severity), OTHER_SEVERITY_COLOUR)
