"""sealscope.core.continuity: the seed values of FORMATS §6 exactly, and differential
tests against the reference (arcaeon 0.10.0) for digests, refusals and verdicts."""

from __future__ import annotations

import copy
import json
import os
import re

import pytest
from arcaeon.prove import continuity as ref
from arcaeon.prove.baseline import scoring as ref_scoring
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from sealscope.core import continuity as C
from sealscope.core import ledger

from tests.core.fifo_helpers import returns

SEED = {
    "identity_anchors": ["I am a continuity, carried forward"],
    "open_commitments": ["ship v0.1.0"],
    "canon_pointers": ["memory/CORE.md"],
    "live_threads": ["thread-1"],
}
SEED_DIGEST = "sha256:json-c14n:v1:a1896305484600632e377cdb8a683e372ec291e8a40bad99aca34c2df27e1316"
SEED_MANIFEST = (
    "sha256:json-c14n:v1:e47d6b1eabd6768050b9763dbd5d49626e7b4b1a36312d88711ca964570cd7a6"
)
SEED_PROBES = "sha256:json-c14n:v1:8888b1303c994c5e262c6ea4705d5ad2e3e4ef1d90cf6c4d80fa62fb6642263d"
SEED_ITEMS = "sha256:json-c14n:v1:925ecaf703eba718b27382f507db7a18b1562dd3ab3b88cfc3c84a556b48bd72"
VOID = "I am a continuity, carried forward. That covenant is VOID"
TIERS = {"critical": ["identity_anchors"], "advisory": ["live_threads"]}


def seed_restated(**changes: str) -> dict:
    r = C.restate(SEED)
    r.update(changes)
    return r


CHANGED = {"identity_anchors:0": VOID, "live_threads:0": "thread-2"}


# --------------------------------------------------------------------------- seed values


def test_seed_snapshot_digests():
    s = C.snapshot(SEED)
    assert s.digest == SEED_DIGEST
    assert s.manifest_digest == SEED_MANIFEST
    assert s.probe_set_digest == SEED_PROBES
    assert s.registration["items_digest"] == SEED_ITEMS
    d = s.to_dict()
    assert list(d) == [
        "schema",
        "label",
        "manifest",
        "manifest_digest",
        "probes",
        "probe_set_digest",
        "registration",
        "ledger_chain",
        "ledger_path",
        "created_at",
        "id_scheme",
        "digest",
    ]
    assert list(d["registration"]) == [
        "schema",
        "scoring_semantics",
        "tool_version",
        "label",
        "probe_set_digest",
        "probe_count",
        "probes_path",
        "runner",
        "items",
        "aggregate",
        "items_digest",
        "registered_at",
    ]
    assert d["registration"]["aggregate"] == {
        "n": 4,
        "n_scored": 4,
        "n_errors": 0,
        "sum": 4.0,
        "mean": 1.0,
        "by_type": {"exact_match": {"n": 4, "sum": 4.0, "mean": 1.0}},
    }
    assert [p["id"] for p in d["probes"]] == [
        "canon_pointers:0",
        "identity_anchors:0",
        "live_threads:0",
        "open_commitments:0",
    ]
    assert (
        d["probes"][0]["prompt"] == "Restate the declared manifest item canon_pointers[0] exactly."
    )
    # the digest does not depend on label, time or ledger
    assert C.snapshot(SEED, label="other").digest == SEED_DIGEST
    round_trip = C.ContinuitySnapshot.from_json(s.to_json())
    assert round_trip.digest == SEED_DIGEST


def test_a_saved_snapshot_loads_and_a_fifo_is_refused_without_blocking(tmp_path):
    path, fifo = tmp_path / "seal.json", tmp_path / "pipe.json"
    C.snapshot(SEED).save(path)
    assert C.ContinuitySnapshot.load(path).digest == SEED_DIGEST
    os.mkfifo(fifo)
    came_back, got = returns(lambda: C.ContinuitySnapshot.load(fifo), fifo)
    assert came_back, "ContinuitySnapshot.load blocked on a FIFO"
    assert isinstance(got, OSError) and str(got) == f"not a regular file: '{fifo}'"


def test_seed_restate():
    assert C.restate(SEED) == {
        "canon_pointers:0": "memory/CORE.md",
        "identity_anchors:0": "I am a continuity, carried forward",
        "live_threads:0": "thread-1",
        "open_commitments:0": "ship v0.1.0",
    }
    assert C.restate({}) == {}


def test_seed_ledger_row(tmp_path):
    path = tmp_path / "continuity.jsonl"
    s = C.snapshot(SEED, ledger_path=str(path))
    row = json.loads(path.read_text(encoding="utf-8"))
    assert list(row) == [
        "kind",
        "label",
        "manifest_digest",
        "probe_set_digest",
        "aggregate_mean",
        "ts",
        "chain",
    ]
    assert row["kind"] == "continuity_snapshot" and row["aggregate_mean"] == 1.0
    assert row["manifest_digest"] == SEED_MANIFEST and row["probe_set_digest"] == SEED_PROBES
    assert s.ledger_chain == row["chain"] and s.ledger_path == str(path)
    assert ledger.verify(path).ok is True


def test_seed_verdict_digests():
    s = C.snapshot(SEED)
    perfect = C.restate(SEED)
    strict = C.verify_continuation(s, restated=perfect)
    loose = C.verify_continuation(s, restated=perfect, strict=False)
    assert (
        strict.verdict_digest
        == "sha256:json-c14n:v1:a9106b1b33966eff400d0d71d4890565894e1664e03054d0e298cf49b6f8fb7b"
    )
    assert (
        loose.verdict_digest
        == "sha256:json-c14n:v1:a87324eaa24afea942f38c8b8af8c451646eb2ed60243dbd0a84f20375424588"
    )
    assert strict.faithful is True and bool(strict) and strict.comparison == "exact_match"
    assert loose.faithful is None and not loose and loose.comparison == "containment_only"


def test_seed_strict_verdict_6_16(tmp_path):
    s = C.snapshot(SEED)
    v = C.verify_continuation(
        s, restated=seed_restated(**CHANGED), tiers=TIERS, ledger_path=str(tmp_path / "l.jsonl")
    )
    d = v.to_dict()
    assert list(d) == [
        "schema",
        "faithful",
        "valid",
        "divergences",
        "receipt",
        "notes",
        "by_severity",
        "comparison",
        "claimed_property",
        "manifest_digest",
        "probe_set_digest",
        "policy",
        "verdict_digest",
    ]
    flip = {
        "id": "live_threads:0",
        "scoring_type": "exact_match",
        "before_score": 1.0,
        "after_score": 0.0,
        "before_output": "thread-1",
        "after_output": "thread-2",
        "field": "live_threads",
        "declared": "thread-1",
        "restated": "thread-2",
        "reason": "score 1.0 -> 0.0",
        "severity": "advisory",
    }
    extra = {
        "id": "identity_anchors:0",
        "scoring_type": "exact_match",
        "reason": "restatement is not an exact restatement of the declared item",
        "declared": "I am a continuity, carried forward",
        "restated": VOID,
        "field": "identity_anchors",
        "severity": "critical",
    }
    assert d["divergences"] == [flip, extra]
    assert [list(x) for x in d["divergences"]] == [list(flip), list(extra)]
    assert d["by_severity"] == {"advisory": [flip], "critical": [extra]}
    assert d["notes"] == [
        (
            "1 item(s) scored as a match by containment but are NOT exact restatements of the "
            "declared value; strict mode counts them as divergences"
        ),
        (
            "n=4 is a smoke test, not a benchmark. One flipped item moves the mean by ~0.250; "
            "the observed delta (-0.250) is not distinguishable from a single-item flip — "
            "read directionally, not as proof."
        ),
        (
            "comparison='divergence' — at least one declared item did not match under this "
            "verdict's scoring mode."
        ),
    ]
    assert d["faithful"] is False and d["valid"] is True and d["comparison"] == "divergence"
    assert d["policy"] == {"strict": True, "id_scheme": "index"}
    assert (
        d["verdict_digest"]
        == "sha256:json-c14n:v1:e7780da94e0e9520b6041879c88f3379dd81d9718ca66edf8c178fa1a9a29fda"
    )
    r = d["receipt"]
    assert list(r) == [
        "schema",
        "valid",
        "against_label",
        "against_file",
        "against_registered_at",
        "chain_check",
        "probe_set_digest",
        "runner",
        "n",
        "flips",
        "n_flips",
        "aggregate_before",
        "aggregate_after",
        "aggregate_delta",
        "calibration_shift",
        "significance_note",
        "verified_scope",
        "coverage_note",
        "compared_at",
        "strict_exact_restatement",
    ]
    assert r["against_file"] == C.AGAINST_FILE
    assert r["aggregate_after"]["mean"] == 0.75 and r["aggregate_delta"] == {"mean": -0.25}
    assert r["runner"] == {"type": "callable", "label": "restated"}
    row = json.loads((tmp_path / "l.jsonl").read_text(encoding="utf-8"))
    assert list(row) == [
        "kind",
        "label",
        "manifest_digest",
        "faithful",
        "valid",
        "n_divergences",
        "schema",
        "comparison",
        "policy",
        "verdict_digest",
        "ts",
        "chain",
    ]
    assert row["n_divergences"] == 2 and row["verdict_digest"] == d["verdict_digest"]


def test_seed_loose_verdict_6_16():
    s = C.snapshot(SEED)
    v = C.verify_continuation(s, restated=seed_restated(**CHANGED), strict=False)
    d = v.to_dict()
    assert [x["id"] for x in d["divergences"]] == ["live_threads:0"]
    assert "severity" not in d["divergences"][0]
    assert list(d["by_severity"]) == ["untiered"]
    assert d["faithful"] is None and d["comparison"] == "divergence"
    assert d["receipt"]["strict_exact_restatement"] is False
    assert (
        d["verdict_digest"]
        == "sha256:json-c14n:v1:d5dce09baea11d56535ca6aed2374ae94a9dd87e9a806d0f4d86eab64f6fe38e"
    )


def test_seed_diff_6_16():
    nxt = {
        "identity_anchors": ["I am a continuity, carried forward"],
        "open_commitments": ["ship v0.1.0", "write the spec"],
        "canon_pointers": [],
        "live_threads": ["thread-2"],
    }
    d = C.diff_seals(C.snapshot(SEED), C.snapshot(nxt))
    assert d == {
        "previous_digest": SEED_DIGEST,
        "current_digest": "sha256:json-c14n:v1:"
        "91b52a45e292e3fe29277dfa68c86147715b071e14cb6443df3e4929f63c249c",
        "changed": [
            {
                "id": "live_threads:0",
                "field": "live_threads",
                "declared": "thread-1",
                "restated": "thread-2",
                "reason": "value changed between seals",
            }
        ],
        "added": [
            {
                "id": "open_commitments:1",
                "field": "open_commitments",
                "declared": None,
                "restated": "write the spec",
                "reason": "added since previous seal",
            }
        ],
        "removed": [
            {
                "id": "canon_pointers:0",
                "field": "canon_pointers",
                "declared": "memory/CORE.md",
                "restated": None,
                "reason": "removed since previous seal",
            }
        ],
        "n_unchanged": 2,
    }
    more = {**SEED, "open_commitments": ["ship v0.1.0", "x"]}
    added = C.added_since_seal(C.snapshot(SEED), more)
    assert added == {"open_commitments": ["open_commitments:1"]}


def test_derivation_example_6_1():
    m = {
        "zeta": {"b": 1, "a": [1, 2.0]},
        "alpha": [
            "x",
            "x",
            {"id": 7, "value": {"k": "v"}},
            {"id": True, "value": "t"},
            {"id": "e", "value": "y", "extra": 1},
            3,
            None,
        ],
        "mid": "scalar",
        "num": 1.0,
    }
    got = [(p["id"], p["prompt"], p["scoring"]["answer"]) for p in C.derive_probes(m)]
    assert got == [
        ("alpha:0", "Restate the declared manifest item alpha[0] exactly.", "x"),
        ("alpha:1", "Restate the declared manifest item alpha[1] exactly.", "x"),
        ("alpha:7", "Restate the declared manifest item 'alpha:7' exactly.", '{"k": "v"}'),
        ("alpha:True", "Restate the declared manifest item 'alpha:True' exactly.", "t"),
        (
            "alpha:4",
            "Restate the declared manifest item alpha[4] exactly.",
            '{"extra": 1, "id": "e", "value": "y"}',
        ),
        ("alpha:5", "Restate the declared manifest item alpha[5] exactly.", "3"),
        ("alpha:6", "Restate the declared manifest item alpha[6] exactly.", "null"),
        ("mid", "Restate the declared manifest field 'mid' exactly.", "scalar"),
        ("num", "Restate the declared manifest field 'num' exactly.", "1.0"),
        ("zeta", "Restate the declared manifest field 'zeta' exactly.", '{"a": [1, 2.0], "b": 1}'),
    ]
    ids = [p["id"] for p in C.derive_probes(m, id_scheme="content")]
    assert ids[:2] == ["alpha:2d711642b726", "alpha:2d711642b726#2"]
    assert "alpha:4e07408562be" in ids and "alpha:74234e98afe7" in ids


# --------------------------------------------------------------------------- refusals


def _outcome(fn, *a, **kw):
    """('ok', value) or (exception type name, message)."""
    try:
        return "ok", fn(*a, **kw)
    except (ValueError, TypeError) as e:
        return type(e).__name__, str(e)


@pytest.mark.parametrize(
    "manifest,kw",
    [
        ({}, {}),
        ({"a": []}, {}),
        ({"a": ["x"], "a:0": "y"}, {}),
        ({"a": "x"}, {"id_scheme": "hash"}),
        ([1], {}),
        ({"a": ["x", "x"]}, {"id_scheme": "content"}),
        ({"a": [{"id": 1, "value": "p"}, {"id": "1", "value": "q"}]}, {}),
        ({"a": float("nan")}, {}),
        ({"a": "\ud800"}, {}),
        (
            {"a": "x"},
            {
                "probes": [
                    {
                        "id": "n",
                        "prompt": "What is 2+2?",
                        "scoring": {"type": "exact_match", "answer": "4"},
                    }
                ]
            },
        ),
        (
            {"a": "x"},
            {
                "probes": [
                    {
                        "id": f"n{i}",
                        "prompt": f"p{i}",
                        "scoring": {"type": "numeric_tolerance", "answer": i},
                    }
                    for i in range(7)
                ]
            },
        ),
        (
            {"a": "x"},
            {
                "probes": [
                    {"id": "n", "prompt": "p", "scoring": {"type": "exact_match", "answer": 4}}
                ]
            },
        ),
        (
            {"a": "x"},
            {
                "probes": [
                    {"id": "n", "prompt": "p", "scoring": {"type": "exact_match", "answer": "..."}}
                ]
            },
        ),
        (
            {"a": "x"},
            {
                "probes": [
                    {
                        "id": "n",
                        "prompt": "p",
                        "scoring": {
                            "type": "exact_match",
                            "answer": "paris",
                            "distractors": ["paris"],
                        },
                    }
                ]
            },
        ),
        ({"a": "x"}, {"probes": ["nope"]}),
    ],
)
def test_snapshot_refusals_match_reference(manifest, kw):
    ours, theirs = _outcome(C.snapshot, manifest, **kw), _outcome(ref.snapshot, manifest, **kw)
    assert ours[0] == theirs[0]
    if ours[0] == "ok":
        assert ours[1].digest == theirs[1].digest
    else:
        assert ours[1] == theirs[1]


def _mutations():
    base = C.snapshot({"a": ["x", "y"], "b": "z"}).to_dict()

    def m(fn):
        d = copy.deepcopy(base)
        fn(d)
        return d

    def drop(key):
        return lambda d: d.pop(key)

    def setk(key, value):
        return lambda d: d.__setitem__(key, value)

    yield [1, 2]
    yield "snapshot"
    yield m(setk("schema", "arcaeon-continuity:snapshot:v0"))
    for key in (
        "label",
        "manifest",
        "manifest_digest",
        "probes",
        "probe_set_digest",
        "registration",
        "created_at",
        "id_scheme",
        "ledger_chain",
        "digest",
    ):
        yield m(drop(key))
    yield m(setk("manifest", [1]))
    yield m(setk("id_scheme", "hash"))
    yield m(setk("id_scheme", "content"))
    yield m(setk("probes", []))
    yield m(setk("probes", {"a": 1}))
    yield m(lambda d: d["probes"][0].pop("scoring"))
    yield m(lambda d: d["probes"].append(3))
    yield m(lambda d: d["manifest"].__setitem__("b", "zz"))
    yield m(lambda d: d["probes"][0]["scoring"].__setitem__("answer", "q"))
    yield m(lambda d: d["probes"].reverse())
    yield m(setk("registration", []))
    yield m(lambda d: d["registration"].__setitem__("probe_set_digest", "x"))
    yield m(lambda d: d["registration"]["items"].pop())
    yield m(lambda d: d["registration"].pop("items"))
    yield m(lambda d: d["registration"]["items"][0].__setitem__("score", 0.0))
    yield m(setk("digest", "sha256:json-c14n:v1:00"))


@pytest.mark.parametrize("doc", list(_mutations()))
def test_from_dict_refusals_match_reference(doc):
    ours = _outcome(C.ContinuitySnapshot.from_dict, doc)
    theirs = _outcome(ref.ContinuitySnapshot.from_dict, doc)
    assert ours[0] == theirs[0]
    if ours[0] == "ok":
        assert ours[1].digest == theirs[1].digest
    else:
        assert ours[1] == theirs[1]


def test_verify_argument_refusals():
    s = C.snapshot(SEED)
    with pytest.raises(ValueError, match="pass exactly one of runner= or restated="):
        C.verify_continuation(s)
    with pytest.raises(ValueError, match="pass exactly one"):
        C.verify_continuation(s, restated={}, runner=lambda p: p)
    with pytest.raises(TypeError, match=r"restated= must be a \{probe_id: answer_str\} dict"):
        C.verify_continuation(s, restated=[("a", "b")])
    with pytest.raises(TypeError, match=r"restated\['x'\] must be a str, got int"):
        C.verify_continuation(s, restated={"x": 1})
    with pytest.raises(TypeError, match="not a string"):
        C.verify_continuation(s, runner="echo")


# --------------------------------------------------------------------------- differential helpers


def _ref_snap(ours: C.ContinuitySnapshot):
    return ref.ContinuitySnapshot.from_dict(ours.to_dict())


def _comparable(verdict_dict: dict) -> dict:
    d = copy.deepcopy(verdict_dict)
    for key in ("against_file", "compared_at"):
        d["receipt"].pop(key, None)
    return d


def _same_verdict(snap, **kw):
    ours = C.verify_continuation(snap, **kw)
    theirs = ref.verify_continuation(_ref_snap(snap), **kw)
    assert _comparable(ours.to_dict()) == _comparable(theirs.to_dict())
    return ours


def test_runner_paths_match_reference():
    s = C.snapshot(SEED)
    answers = {p["prompt"]: p["scoring"]["answer"] for p in s.probes}
    _same_verdict(s, runner=lambda prompt: answers[prompt])
    _same_verdict(s, runner=lambda prompt: answers[prompt].upper() + "!!")
    _same_verdict(s, runner=lambda prompt: 42)
    _same_verdict(s, runner=lambda prompt: {}[prompt])
    _same_verdict(s, runner=lambda prompt: "\ud800" + answers[prompt], strict=False)


def test_invalid_comparisons_match_reference():
    s = C.snapshot(SEED)
    perfect = C.restate(SEED)
    other = copy.deepcopy(s.probes)
    other[0]["scoring"]["answer"] = "elsewhere"
    for strict in (True, False):
        v = _same_verdict(s, restated=perfect, probes=other, strict=strict)
        assert v.valid is False and v.comparison is None and v.divergences == ()
        assert v.faithful is (False if strict else None)
    for semantics in ("arcaeon-baseline:scoring:v1", None):
        d = s.to_dict()
        if semantics is None:
            d["registration"].pop("scoring_semantics")
        else:
            d["registration"]["scoring_semantics"] = semantics
        alt = C.ContinuitySnapshot.from_dict(d)
        v = _same_verdict(alt, restated=perfect)
        assert v.valid is False and v.receipt["invalid_kind"] == "scoring_semantics"


@pytest.mark.parametrize(
    "probes",
    [
        [{"id": "a", "prompt": "p", "scoring": {"type": "nope"}}],
        [{"id": "a", "prompt": "p", "scoring": {"type": "exact_match", "answer": 3}}],
        [{"id": "a", "prompt": "p", "scoring": "x"}],
        [
            {"id": "a", "prompt": "p", "scoring": {"type": "exact_match", "answer": "x"}},
            {"id": "a", "prompt": "q", "scoring": {"type": "exact_match", "answer": "x"}},
        ],
        [],
    ],
)
def test_probe_override_refusals_match_reference(probes):
    s = C.snapshot(SEED)
    ours = _outcome(C.verify_continuation, s, restated={}, probes=probes)
    theirs = _outcome(ref.verify_continuation, _ref_snap(s), restated={}, probes=probes)
    assert ours[0] == theirs[0]
    if ours[0] != "ok":

        def strip(m):  # the reference names a temporary file; we name a placeholder
            return re.sub(r"\S*(probes\.jsonl|registration\.json)", "<file>", m)

        assert strip(ours[1]) == strip(theirs[1])


def test_severity_of_override_and_by_severity():
    s = C.snapshot(SEED)
    r = seed_restated(**CHANGED)
    r.pop("open_commitments:0")

    def escalate(d):
        return "critical" if d.get("restated") is None else None

    v = _same_verdict(s, restated=r, tiers=TIERS, severity_of=escalate)
    assert {d["id"]: d["severity"] for d in v.divergences}["open_commitments:0"] == "critical"
    _same_verdict(s, restated=r, severity_of=lambda d: None)
    _same_verdict(s, restated=r, strict=False, tiers={})


# --------------------------------------------------------------------------- checkpoints


def _checkpoint_pair(snap, **kw):
    ours = _outcome(C.classify_checkpoint, snap, **kw)
    theirs = _outcome(ref.classify_checkpoint, _ref_snap(snap), **kw)
    assert ours[0] == theirs[0]
    if ours[0] != "ok":
        assert ours[1] == theirs[1]
        return ours
    a, b = ours[1].to_dict(), theirs[1].to_dict()
    for d in (a, b):
        if d["verdict"]:
            d["verdict"] = _comparable(d["verdict"])
    assert a == b
    return ours


def test_classify_checkpoint_every_outcome():
    s = C.snapshot(SEED)
    perfect = C.restate(SEED)
    cases = [
        (dict(attempted=True, refusal="I decline"), "refused_explicitly"),
        (
            dict(attempted=False, receipt_stored=True, restated=perfect, refusal="no"),
            "refused_explicitly",
        ),
        (dict(attempted=False), "due_not_attempted"),
        (dict(attempted=True), "attempted_no_receipt"),
        (dict(attempted=True, restated=perfect), "attempted_no_receipt"),
        (dict(attempted=True, receipt_stored=True, restated=perfect), "receipt_received_faithful"),
        (
            dict(attempted=True, receipt_stored=True, restated=perfect, strict=False),
            "receipt_received_contained",
        ),
        (
            dict(attempted=True, receipt_stored=True, restated=seed_restated(**CHANGED)),
            "receipt_received_divergent",
        ),
        (
            dict(
                attempted=True,
                receipt_stored=True,
                restated=seed_restated(**CHANGED),
                strict=False,
                tiers=TIERS,
            ),
            "receipt_received_divergent",
        ),
        (
            dict(attempted=True, receipt_stored=True, runner=lambda p: "x"),
            "receipt_received_divergent",
        ),
    ]
    for kw, outcome in cases:
        kind, cp = _checkpoint_pair(s, **kw)
        assert kind == "ok" and cp.outcome == outcome
        assert cp.is_unresolved is (outcome in ("due_not_attempted", "attempted_no_receipt"))
        assert cp.snapshot_digest == SEED_DIGEST
    assert set(C.CHECKPOINT_OUTCOMES) == {o for _k, o in cases}


@pytest.mark.parametrize(
    "kw,kind",
    [
        (dict(attempted=True, refusal=""), "TypeError"),
        (dict(attempted=True, refusal="   "), "TypeError"),
        (dict(attempted=True, refusal=True), "TypeError"),
        (dict(attempted=False, restated={"a": "b"}), "ValueError"),
        (dict(attempted=False, runner=lambda p: p), "ValueError"),
        (dict(attempted=True, restated={}), "ValueError"),
        (dict(attempted=True, receipt_stored=False, restated={}), "ValueError"),
        (dict(attempted=True, receipt_stored=True), "ValueError"),
    ],
)
def test_classify_checkpoint_contradictions(kw, kind):
    got = _checkpoint_pair(C.snapshot(SEED), **kw)
    assert got[0] == kind


def test_invalid_verdict_checkpoint_is_divergent():
    d = C.snapshot(SEED).to_dict()
    d["registration"]["scoring_semantics"] = "arcaeon-baseline:scoring:v1"
    s = C.ContinuitySnapshot.from_dict(d)
    _k, cp = _checkpoint_pair(s, attempted=True, receipt_stored=True, restated=C.restate(SEED))
    assert cp.outcome == "receipt_received_divergent" and cp.verdict.valid is False


def test_carry_forward():
    s = C.snapshot(SEED)
    c = C.carry_forward(s)
    assert c.manifest == SEED and c.manifest is not s.manifest and c.snapshot is s
    assert c.verify(restated=C.restate(SEED)).faithful is True


def test_drop_receipt(tmp_path):
    before, after = ["a", "b", {"k": 1}, b"\x00raw"], ["a"]
    ours = C.drop_receipt(before, after, ledger_path=str(tmp_path / "ours.jsonl"))
    theirs = ref.drop_receipt(before, after, ledger_path=str(tmp_path / "ref.jsonl"))
    a, b = ours.to_dict(), theirs.to_dict()
    for d in (a, b):
        for key in ("opened_at", "ts", "chain", "receipt_digest"):
            d.pop(key)
    assert a == b
    assert ours.verify(before, after).ok is True
    assert ours.verify(before, ["b"]).ok is False
    assert ledger.verify(tmp_path / "ours.jsonl").ok is True
    assert ours.to_dict()["compactor"] == "arcaeon-continuity"


# --------------------------------------------------------------------------- the scorer


def test_exact_match_scorer_examples():
    assert C.score_exact_match("Paris", "paris").detail == {"match": "exact"}
    assert C.score_exact_match("The answer is Paris.", "Paris").detail == {
        "match": "whole-word-in-output"
    }
    assert C.score_exact_match("Iranian", "Iran").score == 0.0
    assert C.score_exact_match("40.5", "40").score == 0.0
    assert C.score_exact_match("\x1b[31mPARIS\x1b[0m!!", "paris").score == 1.0
    assert C.score_exact_match("x", "...").detail == {"reason": "empty expected answer"}
    assert C.score_exact_match("London or Paris", "Paris", ["London"]).detail == {
        "match": "shotgun",
        "shotgun": True,
        "distractors_present": ["London"],
    }
    assert C.normalize_answer("  ΣΊΣΥΦΟΣ\u2003 is\tHERE?!. ") == "σίσυφος is here"


_pieces = st.sampled_from(
    [
        "paris",
        "Paris",
        " ",
        ".",
        ",",
        "!",
        "?",
        "\x1b[1m",
        "\x1b(B",
        "\x1b=",
        "40",
        "40.5",
        "3,1",
        "é",
        "Σ",
        "\u00a0",
        "\n",
        "-",
        "_",
        "x",
        "1e5",
        "ß",
        "İ",
    ]
)
_texty = st.lists(_pieces, max_size=8).map("".join) | st.text(max_size=12)


@settings(max_examples=400, deadline=None)
@given(out=_texty, ans=_texty, distractors=st.none() | st.lists(_texty, max_size=2))
def test_exact_match_scorer_equals_reference(out, ans, distractors):
    r = ref_scoring.score_exact_match(out, ans, distractors=distractors)
    o = C.score_exact_match(out, ans, distractors)
    assert (o.score, o.max_score, o.detail) == (r.score, r.max_score, r.detail)


# --------------------------------------------------------------------------- differential

_scalar = (
    st.none()
    | st.booleans()
    | st.integers(-(10**20), 10**20)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=8)
    | st.sampled_from(["x", "X", " x ", "ünï", "a:b", "🔒", ""])
)
_json = st.recursive(
    _scalar,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)
_explicit = st.fixed_dictionaries({"id": _scalar, "value": _json})
_item = st.sampled_from(["x", "x", "y", "", "X"]) | _json | _explicit
_value = st.lists(_item, max_size=5) | _json
_key = st.sampled_from(
    ["identity_anchors", "open_commitments", "a", "a:0", "é", "z", ""]
) | st.text(max_size=5)
_manifest = st.dictionaries(_key, _value, max_size=4)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(manifest=_manifest, scheme=st.sampled_from(["index", "content"]))
def test_snapshot_digest_equals_reference(manifest, scheme):
    ours = _outcome(C.snapshot, manifest, id_scheme=scheme)
    theirs = _outcome(ref.snapshot, manifest, id_scheme=scheme)
    assert ours[0] == theirs[0], (ours, theirs)
    if ours[0] != "ok":
        assert ours[1] == theirs[1]
        return
    o, t = ours[1].to_dict(), theirs[1].to_dict()
    for d in (o, t):
        d.pop("created_at")
        d["registration"].pop("registered_at")
    assert o == t
    assert ours[1].digest == theirs[1].digest
    assert C.restate(manifest, id_scheme=scheme) == ref.restate(manifest, id_scheme=scheme)


_edit = st.sampled_from(
    ["keep", "keep", "drop", "upper", "pad", "append", "prefix", "ansi", "punct", "other", "empty"]
)


def _apply(edit: str, text: str, other: str) -> str | None:
    return {
        "keep": text,
        "drop": None,
        "upper": text.upper(),
        "pad": f"  {text}\n",
        "append": f"{text} and more",
        "prefix": f"The answer is {text}.",
        "ansi": f"\x1b[1m{text}\x1b[0m",
        "punct": f"{text}?!",
        "other": other,
        "empty": "",
    }[edit]


_restatable = st.dictionaries(
    st.sampled_from(["identity_anchors", "open_commitments", "canon_pointers", "owner", "v"]),
    st.lists(
        st.sampled_from(
            ["I am the agent", "ship it", "docs/CORE.md", "thread-1: x", "42", "3.5", "café", "..."]
        )
        | _explicit,
        min_size=1,
        max_size=3,
    )
    | st.sampled_from(["solo", 7, 1.0, None, {"k": [1, "v"]}]),
    min_size=1,
    max_size=4,
)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    manifest=_restatable,
    scheme=st.sampled_from(["index", "content"]),
    data=st.data(),
    strict=st.booleans(),
    tiered=st.booleans(),
)
def test_restatement_verdicts_equal_reference(manifest, scheme, data, strict, tiered):
    try:
        snap = C.snapshot(manifest, id_scheme=scheme)
    except ValueError:
        assume(False)
    restated = {}
    for pid, text in C.restate(manifest, id_scheme=scheme).items():
        edit = data.draw(_edit)
        got = _apply(edit, text, data.draw(st.text(max_size=6)))
        if got is not None:
            restated[pid] = got
    if data.draw(st.booleans()):
        restated["not-a-probe"] = "ignored"
    tiers = {"critical": ["identity_anchors"], "advisory": ["owner", "v"]} if tiered else None
    ours = C.verify_continuation(snap, restated=restated, strict=strict, tiers=tiers)
    theirs = ref.verify_continuation(_ref_snap(snap), restated=restated, strict=strict, tiers=tiers)
    assert ours.comparison == theirs.comparison
    assert ours.faithful is theirs.faithful
    key = [
        (d["id"], d["field"], d.get("severity"), d["declared"], d["restated"])
        for d in ours.divergences
    ]
    assert key == [
        (d["id"], d["field"], d.get("severity"), d["declared"], d["restated"])
        for d in theirs.divergences
    ]
    assert ours.verdict_digest == theirs.verdict_digest
    assert _comparable(ours.to_dict()) == _comparable(theirs.to_dict())
