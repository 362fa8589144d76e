"""The `check` conformance cases of one kind family, run through that kind's checker
directly (until the `check` verb drives them), compared as check.py's `check` rule
compares: path, kind, verdict, exit_code and ok exactly, detail as a recursive subset."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from typing import Any

import pytest
from sealscope.core.checks.result import CheckContext, KindCheck

from tests.conftest import SHARED

KINDS_CORPUS = SHARED / "conformance" / "corpus" / "kinds"


def subset(expected: Any, got: Any) -> bool:
    """check.py's rule: every expected key present and equal, lists of equal length
    item by item, true/false/null never equal to a number."""
    if isinstance(expected, dict):
        return isinstance(got, dict) and all(
            k in got and subset(v, got[k]) for k, v in expected.items()
        )
    if isinstance(expected, list):
        return (
            isinstance(got, list)
            and len(expected) == len(got)
            and all(subset(a, b) for a, b in zip(expected, got, strict=True))
        )
    if isinstance(expected, bool) or isinstance(got, bool) or expected is None or got is None:
        return expected is got
    return bool(expected == got)


def cases(prefix: str) -> list[dict[str, Any]]:
    """The corpus cases whose id starts with `prefix` ([] when the corpus is absent)."""
    index = KINDS_CORPUS / "cases.jsonl"
    if not index.is_file():
        return []
    with index.open(encoding="utf-8") as fh:
        return [c for c in map(json.loads, fh) if c["id"].startswith(prefix)]


def run_case(case: dict[str, Any], check: Callable[[str, CheckContext], KindCheck]) -> None:
    """Run one case in the corpus folder and assert the comparison holds."""
    if not KINDS_CORPUS.is_dir():
        pytest.skip("../shared/conformance is not present")
    here = os.getcwd()
    os.chdir(KINDS_CORPUS)
    try:
        got = [check(p, CheckContext()).to_dict() for p in case["argv"][1:]]
    finally:
        os.chdir(here)
    assert len(got) == len(case["expect"])
    for g, e in zip(got, case["expect"], strict=True):
        for key in ("path", "kind", "verdict", "exit_code", "ok"):
            assert subset(e[key], g[key]), (case["id"], key, e[key], g[key])
        assert subset(e["detail"], g["detail"]), (case["id"], e["detail"], g["detail"])
    worst = max((g["exit_code"] for g in got), key=lambda c: {0: 0, 3: 1, 1: 2}[c])
    assert worst == case["expect_exit"]
