"""core.verdict: every result's word and exit code, on the sample files."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest
from sealscope.core import harn, held, ledger, lookup, pins, receipt, sealfile, verdict, witness
from sealscope.core.continuity import verify_continuation
from sealscope.core.selftest import SelftestResult

ROOT = Path(__file__).resolve().parents[2]
SAMPLES = ROOT / "sample_ledgers"
SEALS = SAMPLES / "seals"


@pytest.mark.parametrize(
    "codes, want",
    [([], 0), ([0], 0), ([0, 3], 3), ([3, 0, 1], 1), ([1, 3], 1), ([0, 7], 7), ([3, 3], 3)],
)
def test_worst_ranks_wrong_over_could_not_over_held(codes, want):
    assert verdict.worst(codes) == want


@pytest.mark.parametrize(
    "name, word, code",
    [
        ("session.jsonl", "VERIFIED", 0),
        ("tampered.jsonl", "BROKEN", 1),
        ("declared-break.jsonl", "COULD NOT LOOK", 3),
        ("truncated.jsonl", "VERIFIED", 0),
        ("missing.jsonl", "COULD NOT LOOK", 3),
    ],
)
def test_chain_verdicts_of_the_samples(name, word, code):
    res = ledger.verify(SAMPLES / name)
    assert (res.verdict, res.exit_code) == (word, code)
    assert verdict.combined(res) == (word, code)


def test_pin_combines_with_the_chain():
    path = SAMPLES / "truncated.jsonl"
    res = ledger.verify(path)
    pin = pins.parse_pin((SAMPLES / "truncated.pin").read_text().strip())
    got = pins.check_pin(path, pin, local=res)
    assert got.verdict == "truncated" and got.exit_code == 1
    assert verdict.combined(res, got) == ("BROKEN", 1)
    assert verdict.combined(res, None) == ("COULD NOT LOOK", 3)  # a check not made


@pytest.mark.parametrize(
    "ns, name, check, word, code",
    [
        ("session", "session.jsonl", "consistent", "VERIFIED", 0),
        ("truncated", "truncated.jsonl", "truncated", "BROKEN", 1),
        ("tampered", "tampered.jsonl", "local_broken", "BROKEN", 1),
        ("nobody", "session.jsonl", "no_record", "COULD NOT LOOK", 3),
    ],
)
def test_witness_combines_with_the_chain(ns, name, check, word, code):
    res = ledger.verify(SAMPLES / name)
    got = witness.verify_against_witness(
        SAMPLES / "witness" / "store.jsonl", ns, SAMPLES / name, local=res
    )
    assert got.verdict == check
    assert verdict.combined(res, got) == (word, code)


def test_a_bounded_chain_with_a_consistent_check_could_not_look():
    res = ledger.verify(SAMPLES / "declared-break.jsonl")
    ok = witness.WitnessVerdict("consistent", "")
    assert verdict.combined(res, ok) == ("COULD NOT LOOK", 3)


@pytest.mark.parametrize(
    "name, status, word, code",
    [
        ("seal-day1.json", "ok", "VALID", 0),
        ("seal-day1-tampered.json", "invalid", "INVALID", 1),
        ("nothing-here.json", "unreadable", "COULD NOT LOOK", 3),
    ],
)
def test_seal_files(name, status, word, code):
    got = sealfile.load_seal(SEALS / name)
    assert (got.status, got.verdict, got.exit_code) == (status, word, code)


@pytest.mark.parametrize(
    "restated, strict, word, code",
    [
        ("restated-faithful.json", True, "FAITHFUL", 0),
        ("restated-faithful.json", False, "CONTAINED ONLY", 3),
        ("restated-divergent.json", True, "DIVERGENCE", 1),
        ("restated-divergent.json", False, "DIVERGENCE", 1),
    ],
)
def test_continuation_verdicts(restated, strict, word, code):
    snap = sealfile.load_seal(SEALS / "seal-day1.json").snap
    v = verify_continuation(snap, restated=sealfile.load_restated(SEALS / restated), strict=strict)
    assert verdict.continuation(v) == (word, code)
    assert verdict.continuation(v.to_dict()) == (word, code)  # the report reads the dict


def test_an_invalid_comparison():
    assert verdict.continuation({"valid": False, "comparison": "exact_match"}) == (
        "INVALID COMPARISON",
        1,
    )


def test_receipts_of_the_samples():
    session = SAMPLES / "session.jsonl"
    rows = [receipt.verify_receipt(r) for _n, r in lookup.iter_receipt_rows(session)]
    # ok within a bound (no content held) is VERIFIED, as `arcaeon compact` answers it
    assert [(c.verdict, c.exit_code) for c in rows] == [("VERIFIED", 0), ("VERIFIED", 0)]
    assert all(map(verdict.bounded, rows))
    assert verdict.receipts(rows) == ("VERIFIED", 0)
    assert verdict.scope_note(rows) == "2 receipts self-consistent, content not checked"
    assert verdict.receipts([]) == ("COULD NOT LOOK", 3)
    assert verdict.receipts([*rows, {"ok": False}]) == ("BROKEN", 1)
    pre = receipt.content_of(held.load_held(SAMPLES / "held" / "liar-pre.json"))
    post = receipt.content_of(held.load_held(SAMPLES / "held" / "liar-post.json"))
    ((_n, row),) = lookup.iter_receipt_rows(SAMPLES / "liar.jsonl")
    liar = receipt.verify_receipt(row, pre, post)
    assert (liar.verdict, liar.exit_code) == ("BROKEN", 1)
    assert verdict.receipts([*rows, liar]) == ("BROKEN", 1)
    pre = receipt.content_of(held.load_held(SAMPLES / "held" / "session-pre.jsonl"))
    post = receipt.content_of(held.load_held(SAMPLES / "held" / "session-post.jsonl"))
    line7 = dict(lookup.iter_receipt_rows(SAMPLES / "session.jsonl"))[7]
    full = receipt.verify_receipt(line7, pre, post)
    assert verdict.receipts([full]) == ("VERIFIED", 0)


@pytest.mark.parametrize(
    "name, word, code",
    [
        ("session-transcript.json", "OK", 0),
        ("run-record.json", "FINDINGS", 1),
    ],
)
def test_harn_samples(name, word, code):
    checks = harn.check_document(harn.load(SAMPLES / "harn" / name))
    worst = harn.worst_severity(f for c in checks for f in c.findings)
    assert verdict.harn(worst) == (word, code)


def test_harn_words():
    assert verdict.harn("medium") == ("REVIEW", 0)
    assert verdict.harn(None, readable=False) == ("COULD NOT LOOK", 3)
    assert verdict.harn_seal(2, 0, None) == ("SEALED", 0)
    assert verdict.harn_seal(1, 1, None) == ("PARTLY SEALED", 3)
    assert verdict.harn_seal(0, 0, "disk full") == ("NOT SEALED", 3)


def test_selftest_and_tones():
    assert (SelftestResult(True, ()).verdict, SelftestResult(False, ()).exit_code) == ("PASS", 1)
    assert [
        verdict.tone(w)
        for w in (
            "VERIFIED",
            "BROKEN",
            "COULD NOT LOOK",
            "REVIEW",
            "CONTAINED ONLY",
            "FAITHFUL",
            "INVALID",
        )
    ] == ["pass", "fail", "warn", "warn", "warn", "pass", "fail"]


def test_glyphs_follow_the_tone_and_pending_has_its_own():
    assert [
        verdict.glyph(w)
        for w in ("VERIFIED", "BROKEN", "COULD NOT LOOK", "VALID", "FINDINGS", "NOT VERIFIED", None)
    ] == ["✓", "✗", "◐", "✓", "✗", "◐", "…"]


def _string_literals(path: Path) -> list[tuple[int, str]]:
    """Every string literal of a module (f-strings' literal parts included), without
    docstrings (prose may name a word; a literal is what a frontend shows)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(st.value)
        for node in ast.walk(tree)
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef))
        for st in node.body[:1]
        if isinstance(st, ast.Expr) and isinstance(st.value, ast.Constant)
    }
    return [
        (node.lineno, node.value)
        for node in ast.walk(tree)
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs
    ]


# the folders held to "spelled in core/verdict.py and nowhere else"; cli/ joins once
# its own literals are gone (issue 28, the CLI side)
ONE_HOME_FOLDERS = ("core", "viewer")
# modules whose strings are another program's text, reproduced byte for byte, not words
# sealscope gives: the evidence pack's README.md and summary as the pack writer renders
# them (check 9 renders them again and compares)
FOREIGN_TEXT = {"core/checks/pack_render.py"}


def test_each_word_is_spelled_in_one_core_module():
    words = [
        getattr(verdict, n)
        for n in verdict.__all__
        if n.isupper() and isinstance(getattr(verdict, n), str)
    ]
    assert "COULD NOT LOOK" in words and len(words) == 19
    found: list[tuple[str, str, int]] = []
    for folder in ONE_HOME_FOLDERS:
        for p in sorted((ROOT / folder).rglob("*.py")):
            rel = p.relative_to(ROOT).as_posix()
            if rel in FOREIGN_TEXT:
                continue
            for line, text in _string_literals(p):
                for word in words:  # a word inside a longer string counts ("SEAL VALID")
                    if re.search(rf"(?<![A-Za-z_]){re.escape(word)}(?![A-Za-z_])", text):
                        found.append((word, rel, line))
    homes = {(w, rel) for w, rel, _line in found}
    assert {rel for _w, rel in homes} == {"core/verdict.py"}, sorted(
        f for f in found if f[1] != "core/verdict.py"
    )
    assert {w for w, _rel in homes} == set(words)


def test_the_one_home_scan_finds_a_word_inside_a_longer_string(tmp_path):
    p = tmp_path / "m.py"
    p.write_text('"""A VERIFIED docstring is prose."""\nx = f" SEAL VALID {1} "\n')
    texts = [t for _n, t in _string_literals(p)]
    assert " SEAL VALID " in texts and not any("docstring" in t for t in texts)


@pytest.mark.parametrize(
    "own, checks, want",
    [
        (("VERIFIED", 0), [], ("VERIFIED", 0)),
        (("VERIFIED", 0), [("BROKEN", 1)], ("BROKEN", 1)),  # a red pin
        (("VERIFIED", 0), [("NOTED", 0), ("FAIL", 1)], ("FAIL", 1)),  # held content fails
        (("VALID", 0), [("DIVERGENCE", 1)], ("DIVERGENCE", 1)),  # a divergent restatement
        (("BROKEN", 1), [("FAIL", 1)], ("BROKEN", 1)),  # the file's own word first
        (("VERIFIED", 0), [("COULD NOT LOOK", 3)], ("COULD NOT LOOK", 3)),
        (("COULD NOT LOOK", 3), [("PASS", 0)], ("COULD NOT LOOK", 3)),
    ],
)
def test_audit_word_and_code_always_agree(own, checks, want):
    got = verdict.audit(verdict.Outcome(*own), *(verdict.Outcome(*c) for c in checks))
    assert got == want


def test_audit_of_a_pin_equals_combined():
    path = SAMPLES / "truncated.jsonl"
    res = ledger.verify(path)
    pin = pins.parse_pin((SAMPLES / "truncated.pin").read_text().strip())
    got = pins.check_pin(path, pin, local=res)
    assert verdict.audit(verdict.chain(res), verdict.check(got)) == verdict.combined(res, got)


def test_recompute_words():
    assert verdict.recompute({"ok": False}) == ("FAIL", 1)
    assert verdict.recompute({"ok": True, "verified_scope": "full"}) == ("PASS", 0)
    assert verdict.recompute({"ok": True, "verified_scope": "bounded_no_content"}) == ("PASS", 0)


def test_a_ledger_is_broken_by_a_receipt_that_fails_on_its_own_not_by_a_bounded_one():
    res = ledger.verify(SAMPLES / "session.jsonl")
    bounded = {"ok": True, "verified_scope": "bounded_no_content"}
    assert verdict.ledger(res, [bounded]) == ("VERIFIED", 0)
    assert verdict.ledger(res, [bounded, {"ok": False}]) == ("BROKEN", 1)
    assert verdict.ledger(res, [{"ok": False}]) == ("BROKEN", 1)
    assert not hasattr(verdict, "ledger_audit")  # one rule: a fleet entry judged as export


def _verdict_words() -> list[str]:
    return [
        getattr(verdict, n)
        for n in verdict.__all__
        if n.isupper() and isinstance(getattr(verdict, n), str)
    ]


def _spelled(path: Path) -> list[tuple[int, str]]:
    """(line, word) for each verdict word a module spells in a string of its own, alone
    or inside a longer one ("BROKEN line 2"); docstrings are prose and do not count, nor
    does `verdict.BROKEN` in an f-string (a name, not a spelling)."""
    words = sorted(map(re.escape, _verdict_words()), key=len, reverse=True)
    pat = re.compile(r"(?<![A-Za-z_])(" + "|".join(words) + r")(?![A-Za-z_])")
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {
        id(n.value)
        for n in ast.walk(tree)
        if isinstance(n, ast.Expr) and isinstance(n.value, ast.Constant)
    }
    return [
        (n.lineno, m.group(1))
        for n in ast.walk(tree)
        if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs
        for m in pat.finditer(n.value)
    ]


def test_spelled_finds_words_inside_longer_strings(tmp_path):
    mod = tmp_path / "m.py"
    mod.write_text(
        '"""VERIFIED in prose."""\nA = f"{verdict.BROKEN} x"\nB = "BROKEN line 2"\n'
        'C = "INVALIDATED"\nD = "self:FAIL"\n'
    )
    assert _spelled(mod) == [(3, "BROKEN"), (5, "FAIL")]


def test_cli_spells_no_verdict_word():
    """cli/ shows verdict words only by reading `core.verdict`'s constants."""
    found = {
        p.relative_to(ROOT).as_posix(): hits
        for p in sorted((ROOT / "cli").rglob("*.py"))
        if (hits := _spelled(p))
    }
    assert found == {}


def test_cli_returns_no_literal_exit_code():
    """cli/ names exit codes by `verdict.HELD/WRONG/USAGE/COULD_NOT`, never 0/1/2/3."""
    pat = re.compile(r"^\s*(return|raise SystemExit\(|sys\.exit\()\s*[0-3]\b", re.M)
    found = {
        p.relative_to(ROOT).as_posix(): pat.findall(p.read_text(encoding="utf-8"))
        for p in sorted((ROOT / "cli").rglob("*.py"))
    }
    assert {k: v for k, v in found.items() if v} == {}


def test_code_of_is_the_code_each_word_is_given():
    assert set(verdict._CODE) == set(_verdict_words())
    given = [
        verdict.chain(ledger.verify(SAMPLES / n))
        for n in ("session.jsonl", "tampered.jsonl", "declared-break.jsonl")
    ]
    given += [verdict.seal(s) for s in ("ok", "invalid", "unreadable")]
    given += [
        verdict.continuation({"valid": True, "comparison": c})
        for c in ("exact_match", "containment_only", "other")
    ]
    given += [
        verdict.continuation({"valid": False}),
        verdict.recompute({"ok": False}),
        verdict.recompute({"ok": True}),
        verdict.harn("high"),
        verdict.harn("medium"),
        verdict.harn(None),
        verdict.harn_seal(1, 0, None),
        verdict.harn_seal(1, 1, None),
        verdict.harn_seal(0, 1, None),
    ]
    for out in given:
        assert verdict.code_of(out.verdict) == out.exit_code, out
    assert verdict.code_of("REVIEW") == 0  # a medium finding passes; its tone is warn
    assert verdict.code_of("no such word") == verdict.COULD_NOT


def test_severity_orders_worst_first():
    assert sorted([0, 3, 1, 9], key=verdict.severity, reverse=True) == [1, 9, 3, 0]
