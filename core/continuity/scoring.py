"""Scoring one answer against an exact_match probe (§6.9)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from sealscope.core.continuity.schema import KNOWN_SCORING_TYPES

__all__ = ["normalize_answer", "contains_whole", "ExactMatchScore", "score_exact_match"]

_ANSI = re.compile(r"\x1b(?:\[[0-9;?]*[A-Za-z]|[()][0-9A-B]|[=>])")
_RUNS_OF_SPACE = re.compile(r"\s+")


def normalize_answer(text: Any) -> str:
    """§6.9 step 1: drop ANSI escapes, strip, lowercase, collapse whitespace runs
    to one space, drop trailing `.`/`!`/`?`. A falsy value reads as ``""``."""
    s = _ANSI.sub("", text or "")
    s = _RUNS_OF_SPACE.sub(" ", s.strip().lower())
    return s.rstrip(".!?")


def contains_whole(haystack: str, needle: str) -> bool:
    """`needle` occurs in `haystack` not glued to a word character, and not as
    part of a longer number (no digit or `.` before; no `[.,]?digit` after)."""
    if not needle:
        return False
    return (
        re.search(r"(?<!\w)(?<![\d.])" + re.escape(needle) + r"(?!\w)(?![.,]?\d)", haystack)
        is not None
    )


@dataclass(frozen=True)
class ExactMatchScore:
    """One exact_match outcome: score 1.0/0.0 out of 1.0, with its detail."""

    score: float
    max_score: float
    detail: dict[str, Any]


def score_exact_match(output: Any, answer: Any, distractors: Any = None) -> ExactMatchScore:
    """§6.9: empty normalised answer → 0.0; equal or whole-word contained → 1.0
    (unless a declared distractor is also contained: 0.0 "shotgun"); else 0.0."""
    out, want = normalize_answer(output), normalize_answer(answer)
    if not want:
        return ExactMatchScore(0.0, 1.0, {"reason": "empty expected answer"})
    if not (out == want or contains_whole(out, want)):
        return ExactMatchScore(0.0, 1.0, {"match": "none"})
    present = [d for d in (distractors or []) if contains_whole(out, normalize_answer(d))]
    if present:
        return ExactMatchScore(
            0.0, 1.0, {"match": "shotgun", "shotgun": True, "distractors_present": present}
        )
    return ExactMatchScore(1.0, 1.0, {"match": "exact" if out == want else "whole-word-in-output"})


def _score(scoring: dict[str, Any], output: str) -> ExactMatchScore:
    kind = scoring.get("type")
    if kind == "exact_match":
        return score_exact_match(output, scoring["answer"], scoring.get("distractors"))
    if kind in KNOWN_SCORING_TYPES:
        raise ValueError(
            f"scoring type {kind!r} is not scored by sealscope: only "
            f"exact_match probes (the only kind snapshot() can seal) are"
        )
    raise ValueError(f"unknown scoring type {kind!r} (known: {sorted(KNOWN_SCORING_TYPES)})")
