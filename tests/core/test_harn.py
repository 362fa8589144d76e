"""sealscope.core.harn on hand-built harn transcripts and run records.

Every transcript here is built the way harn builds one at compaction: the message list
becomes `kept prefix + [summary] + kept suffix`, the events one event per message plus
the carried non-message events and the new `compaction` event, and the pre-compaction
transcript is appended to `assets` as a `compaction_source_transcript` asset.
"""

from __future__ import annotations

import copy
import json

import pytest
from sealscope.core import harn
from sealscope.core.harn import Finding

from tests.core.fifo_helpers import fifo_in_place, returns, swapped_after_stat

# --------------------------------------------------------------------------- builders


def m(role: str, content, **extra) -> dict:
    return {"role": role, "content": content, **extra}


def events_for(messages):
    return [
        {
            "id": f"msg-evt-{i}",
            "kind": "message",
            "role": x.get("role"),
            "visibility": "public",
            "text": str(x.get("content")),
            "blocks": [],
        }
        for i, x in enumerate(messages)
    ]


def transcript(messages, tid="t-1", **extra) -> dict:
    t = {
        "_type": "transcript",
        "version": 2,
        "id": tid,
        "messages": list(messages),
        "events": events_for(messages),
        "assets": [],
    }
    t.update(extra)
    return t


PRE = [
    m("user", "fix the failing invoice test"),
    m("assistant", "running pytest", tool_calls=[{"id": "c1"}]),
    m("tool", "1 failed, 47 passed", tool_call_id="c1"),
    m("assistant", "rounding is half-up; the test wants half-even"),
    m("user", "check the changelog first"),
    m("assistant", "changelog says half-even since March"),
    m("user", "go ahead"),
]


def compact(
    t: dict,
    *,
    keep_last: int,
    keep_first: int = 0,
    receipt: dict | None = None,
    flat: dict | None = None,
    legacy: bool = False,
    claim: int | None = None,
    summary: str | None = None,
    snap_id: str | None = None,
    event_id: str | None = None,
    snapshot: bool = True,
    n: int = 1,
    asset_extra: dict | None = None,
    measurement=None,
    recap=None,
) -> dict:
    """harn's compaction of transcript `t`; `claim` overrides archived_messages."""
    summary = summary or f"[auto-compacted older messages, pass {n}]"
    pre = t["messages"]
    split = len(pre) - keep_last
    archived = split - keep_first
    post = pre[:keep_first] + [m("user", summary)] + pre[split:]
    snap_id = snap_id or f"snap-{n}"
    rid = f"compaction-{n}"
    count = archived if claim is None else claim
    meta = {
        "mode": "auto",
        "reason": "threshold",
        "strategy": "hybrid",
        "engine_strategy": "observation_mask",
        "keep_last": keep_last,
        "target_tokens": None,
        "archived_messages": count,
        "estimated_tokens_before": 900,
        "estimated_tokens_after": 300,
        "new_summary_len": len(summary),
        "snapshot_asset_id": snap_id if snapshot else None,
        "reminders_decremented": 0,
        "reminders_expired": 0,
        "reminders_deduped": 0,
        "reminders_preserved": 0,
        "instruction_mode": "default",
    }
    if not legacy:
        r = {
            "schema_version": 1,
            "receipt_id": rid,
            "session_id": "s-1",
            "transcript_id": t["id"],
            "mode": "auto",
            "reason": "threshold",
            "strategy": "hybrid",
            "engine_strategy": "observation_mask",
            "requested_strategy": "hybrid",
            "resolved_threshold_tokens": 3000,
            "threshold_source": "token_threshold",
            "hard_limit_tokens": 8000,
            "archived_messages": count,
            "estimated_tokens_before": 900,
            "estimated_tokens_after": 300,
            "snapshot_asset_id": snap_id if snapshot else None,
            "instruction_mode": "default",
            "instruction_source": None,
            "compaction_policy": None,
            "recap": recap,
            "source_measurement": measurement,
        }
        r.update(receipt or {})
        meta["receipt"] = r
    meta.update(flat or {})
    text = "Transcript compacted via observation_mask"
    event = {
        "id": event_id if event_id is not None else rid,
        "kind": "compaction",
        "role": "system",
        "visibility": "internal",
        "text": text,
        "blocks": [{"type": "text", "text": text}],
        "metadata": meta,
    }
    carried = [e for e in t["events"] if e.get("kind") not in ("message", "tool_result")]
    assets = list(t["assets"])
    if snapshot:
        asset = {
            "_type": "transcript_asset",
            "id": snap_id,
            "kind": "compaction_source_transcript",
            "visibility": "internal",
            "data": copy.deepcopy(t),
            "metadata": {"archived_messages": archived, "instruction_mode": "default"},
        }
        asset.update(asset_extra or {})
        assets.append(asset)
    out = transcript(post, t["id"], assets=assets)
    out["events"] = events_for(post) + carried + [event]
    return out


def one(t) -> harn.CompactionCheck:
    checks = harn.check_transcript(t)
    assert len(checks) == 1
    return checks[0]


def codes(check) -> list[tuple[str, str]]:
    return [(f.code, f.severity) for f in check.findings]


def clean_receipt_transcript() -> dict:
    return compact(
        transcript(PRE),
        keep_last=2,
        measurement={
            "source_message_count": 5,
            "source_bytes": 400,
            "summary_bytes": 31,
            "carried_source_bytes": 120,
        },
        recap={
            "recap_bytes": 31,
            "budget_bytes": 16000,
            "kept_results_count": 1,
            "dropped_count": 0,
            "carried_prior_recap": False,
        },
    )


# --------------------------------------------------------------------------- rules


def test_rule_table_is_the_documented_one():
    assert {c: s for c, (s, _d) in harn.RULES.items()} == {
        "archived_understated": "high",
        "archived_overstated": "medium",
        "measurement_count_mismatch": "medium",
        "nothing_carried_forward": "medium",
        "tokens_grew": "medium",
        "tokens_unchanged": "low",
        "receipt_flat_mismatch": "medium",
        "receipt_id_mismatch": "medium",
        "duplicate_receipt_id": "medium",
        "receipt_malformed": "medium",
        "archived_unclaimed": "medium",
        "snapshot_not_found": "medium",
        "snapshot_unreadable": "medium",
        "snapshot_conflict": "medium",
        "snapshot_metadata_mismatch": "medium",
        "no_snapshot": "low",
        "snapshot_kind_unexpected": "low",
        "legacy_event": "info",
        "event_id_missing": "info",
        "kept_messages_rewritten": "info",
        "no_following_state": "info",
        "check_inconclusive": "info",
    }


# --------------------------------------------------------------------------- receipt era


def test_receipt_era_reads_every_field_and_holds():
    c = one(clean_receipt_transcript())
    ev = c.event
    assert ev.path == "receipt" and ev.receipt_error is None
    assert (ev.schema_version, ev.receipt_id, ev.id, ev.event_id) == (
        1,
        "compaction-1",
        "compaction-1",
        "compaction-1",
    )
    assert (ev.session_id, ev.transcript_id, ev.mode, ev.reason) == (
        "s-1",
        "t-1",
        "auto",
        "threshold",
    )
    assert (ev.strategy, ev.engine_strategy, ev.requested_strategy) == (
        "hybrid",
        "observation_mask",
        "hybrid",
    )
    assert (ev.resolved_threshold_tokens, ev.threshold_source, ev.hard_limit_tokens) == (
        3000,
        "token_threshold",
        8000,
    )
    assert (ev.archived_messages, ev.estimated_tokens_before, ev.estimated_tokens_after) == (
        5,
        900,
        300,
    )
    assert ev.snapshot_asset_id == "snap-1"
    assert ev.recap == harn.RecapMetrics(31, 16000, 1, 0, False)
    assert ev.source_measurement == harn.SourceMeasurement(5, 400, 31, 120)
    assert ev.flat["keep_last"] == 2 and "receipt" not in ev.flat
    assert c.snapshot.location == "assets[0]" and len(c.snapshot.messages) == 7
    assert c.following.source == "current" and len(c.following.messages) == 3
    assert c.inference == harn.ArchiveInference(0, 5, 2, 0, 0, True)
    assert c.findings == ()
    assert [x["content"] for x in c.archived] == [x["content"] for x in PRE[:5]]
    d = c.to_dict()
    assert list(d)[9:30] == list(harn.RECEIPT_FIELDS)
    assert d["path"] == "receipt" and d["findings"] == [] and d["worst"] is None
    json.dumps(d, allow_nan=False)


def test_partial_receipt_takes_serde_defaults_and_ignores_unknown_keys():
    t = transcript(PRE)
    t["events"].append(
        {
            "id": "r-9",
            "kind": "compaction",
            "metadata": {
                "receipt": {"receipt_id": "r-9", "mode": "manual", "future_field": [1, 2]}
            },
        }
    )
    ev = harn.compaction_events(t)[0]
    assert ev.path == "receipt"
    assert ev.schema_version == 1  # missing schema_version reads 1
    assert (ev.reason, ev.strategy, ev.engine_strategy) == ("", "", "")
    assert (ev.archived_messages, ev.estimated_tokens_before) == (0, 0)
    assert ev.session_id is None and ev.recap is None and ev.source_measurement is None
    assert ev.snapshot_asset_id is None and ev.compaction_policy is None


def test_receipt_snapshot_id_falls_back_to_flat_and_id_to_receipt_id():
    t = compact(transcript(PRE), keep_last=2, event_id="", receipt={"snapshot_asset_id": None})
    c = one(t)
    assert c.event.snapshot_asset_id == "snap-1" and c.snapshot is not None
    assert c.event.id == "compaction-1" and c.event.event_id == ""
    assert codes(c) == [("event_id_missing", "info")]


def test_receipt_in_array_form_reads_in_field_order():
    t = clean_receipt_transcript()
    meta = t["events"][-1]["metadata"]
    meta["receipt"] = [meta["receipt"][k] for k in harn.RECEIPT_FIELDS]
    assert one(t).event.path == "receipt" and one(t).findings == ()
    meta["receipt"] = meta["receipt"] + [None]  # more elements than fields
    assert one(t).event.path == "legacy"


# --------------------------------------------------------------------------- legacy


def test_legacy_flat_metadata_migrates_as_harn_does():
    t = compact(
        transcript(PRE),
        keep_last=2,
        legacy=True,
        flat={
            "reason": None,
            "engine_strategy": 7,
            "instruction_mode": None,
            "instruction_source": "author",
            "compaction_policy": {"scope": "summary"},
        },
    )
    c = one(t)
    ev = c.event
    assert ev.path == "legacy" and ev.receipt_error is None
    assert (ev.schema_version, ev.receipt_id, ev.id) == (0, None, "compaction-1")
    assert (ev.mode, ev.reason, ev.strategy, ev.engine_strategy) == ("auto", "", "hybrid", "")
    assert (ev.instruction_mode, ev.instruction_source) == ("", "author")
    assert ev.compaction_policy == {"scope": "summary"}
    assert ev.archived_messages == 5 and ev.source_measurement is None
    assert codes(c) == [("legacy_event", "info")]


@pytest.mark.parametrize("bad", ["5", -1, 5.0, True, None, 2**64, [5]])
def test_legacy_bad_counts_read_zero(bad):
    t = compact(
        transcript(PRE),
        keep_last=2,
        legacy=True,
        flat={"archived_messages": bad, "estimated_tokens_before": bad},
    )
    ev = one(t).event
    assert ev.archived_messages == 0 and ev.estimated_tokens_before == 0


def test_legacy_largest_count_is_kept():
    t = compact(
        transcript(PRE), keep_last=2, legacy=True, flat={"estimated_tokens_before": 2**64 - 1}
    )
    assert one(t).event.estimated_tokens_before == 2**64 - 1


def test_legacy_recap_only_when_it_reads():
    ok = {
        "recap_bytes": 1,
        "budget_bytes": 2,
        "kept_results_count": 3,
        "dropped_count": 4,
        "carried_prior_recap": True,
    }
    t = compact(transcript(PRE), keep_last=2, legacy=True, flat={"recap": ok})
    assert one(t).event.recap == harn.RecapMetrics(1, 2, 3, 4, True)
    t = compact(
        transcript(PRE), keep_last=2, legacy=True, flat={"recap": dict(ok, carried_prior_recap=1)}
    )
    assert one(t).event.recap is None


@pytest.mark.parametrize(
    "override, why",
    [
        ({"archived_messages": None}, "archived_messages"),
        ({"archived_messages": -3}, "archived_messages"),
        ({"archived_messages": 5.0}, "archived_messages"),
        ({"estimated_tokens_after": "300"}, "estimated_tokens_after"),
        ({"mode": None}, "mode"),
        ({"mode": 5}, "mode"),
        ({"receipt_id": None}, "receipt_id"),
        ({"schema_version": None}, "schema_version"),
        ({"schema_version": 2**32}, "schema_version"),
        ({"session_id": 12}, "session_id"),
        ({"hard_limit_tokens": -1}, "hard_limit_tokens"),
        ({"recap": {"recap_bytes": None}}, "recap.recap_bytes"),
        (
            {
                "recap": {
                    "recap_bytes": 1,
                    "budget_bytes": 2,
                    "kept_results_count": 3,
                    "dropped_count": 4,
                    "carried_prior_recap": "yes",
                }
            },
            "carried_prior_recap",
        ),
        ({"source_measurement": {"source_bytes": -1}}, "source_bytes"),
        ({"source_measurement": {"summary_bytes": 1.5}}, "summary_bytes"),
        ({"source_measurement": "measured"}, "source_measurement"),
    ],
)
def test_malformed_receipt_falls_back_to_legacy(override, why):
    t = compact(transcript(PRE), keep_last=2, receipt=override)
    c = one(t)
    ev = c.event
    assert ev.path == "legacy" and why in ev.receipt_error
    assert ev.schema_version == 0 and ev.receipt_id is None
    assert ev.archived_messages == 5  # from the flat key beside it
    assert codes(c) == [("receipt_malformed", "medium")]


@pytest.mark.parametrize("receipt", [None, "r", 3, True])
def test_non_object_receipt_falls_back(receipt):
    t = compact(transcript(PRE), keep_last=2)
    t["events"][-1]["metadata"]["receipt"] = receipt
    c = one(t)
    assert c.event.path == "legacy"
    assert codes(c) == [("receipt_malformed", "medium")]


# --------------------------------------------------------------------------- serde shapes
# harn's CompactionReceipt and RecapMetrics are `#[serde(default)]`: a missing key reads
# its default, a present value of the wrong type fails the receipt.

FULL_RECAP = {
    "recap_bytes": 31,
    "budget_bytes": 16000,
    "kept_results_count": 1,
    "dropped_count": 2,
    "carried_prior_recap": True,
}


@pytest.mark.parametrize(
    "recap, want",
    [
        ({}, harn.RecapMetrics(0, 0, 0, 0, False)),
        ({"recap_bytes": 31}, harn.RecapMetrics(31, 0, 0, 0, False)),
        ({"carried_prior_recap": True, "unknown": "ignored"}, harn.RecapMetrics(0, 0, 0, 0, True)),
        ([], harn.RecapMetrics(0, 0, 0, 0, False)),
        ([31, 16000], harn.RecapMetrics(31, 16000, 0, 0, False)),
        ([31, 16000, 1, 2, True], harn.RecapMetrics(31, 16000, 1, 2, True)),
        (None, None),
    ],
)
def test_partial_recap_stays_a_receipt_with_serde_defaults(recap, want):
    c = one(compact(transcript(PRE), keep_last=2, recap=recap))
    assert c.event.path == "receipt" and c.event.receipt_error is None
    assert c.event.recap == want
    assert codes(c) == []


WHOLE = "expected a whole number, got"
FLAG = "expected true or false, got"


@pytest.mark.parametrize(
    "recap, error",
    [
        ({"recap_bytes": None}, f"recap.recap_bytes: {WHOLE} null"),
        ({"budget_bytes": -1}, f"recap.budget_bytes: {WHOLE} a negative integer"),
        (
            {"dropped_count": 1.5},
            f"recap.dropped_count: {WHOLE} a number with a fraction or exponent (a float)",
        ),
        ({"kept_results_count": "1"}, f"recap.kept_results_count: {WHOLE} a string"),
        ({"recap_bytes": 2**64}, f"recap.recap_bytes: {WHOLE} an integer above {2**64 - 1}"),
        ({"carried_prior_recap": 1}, f"recap.carried_prior_recap: {FLAG} an integer"),
        ({"carried_prior_recap": None}, f"recap.carried_prior_recap: {FLAG} null"),
        ([1, 2, 3, 4, False, 9], "recap: an array of 6 elements, expected 5"),
        ("31 bytes", "recap: expected an object, got a string"),
    ],
)
def test_recap_of_the_wrong_type_fails_as_serde_does(recap, error):
    c = one(compact(transcript(PRE), keep_last=2, recap=recap))
    assert c.event.path == "legacy" and c.event.receipt_error == error
    assert codes(c) == [("receipt_malformed", "medium")]


def test_legacy_flat_recap_reads_with_serde_defaults():
    c = one(
        compact(transcript(PRE), keep_last=2, legacy=True, flat={"recap": {"dropped_count": 2}})
    )
    assert c.event.recap == harn.RecapMetrics(0, 0, 0, 2, False)
    for bad in (None, {"dropped_count": -2}, {"carried_prior_recap": 0}):
        c = one(compact(transcript(PRE), keep_last=2, legacy=True, flat={"recap": bad}))
        assert c.event.recap is None


def test_flat_recap_compared_as_harn_reads_it():
    same = one(
        compact(
            transcript(PRE),
            keep_last=2,
            recap={"recap_bytes": 31},
            flat={"recap": {"recap_bytes": 31, "carried_prior_recap": False}},
        )
    )
    assert codes(same) == []
    differs = one(
        compact(transcript(PRE), keep_last=2, recap={"recap_bytes": 31}, flat={"recap": FULL_RECAP})
    )
    assert codes(differs) == [("receipt_flat_mismatch", "medium")]


def test_absent_counts_read_zero_and_are_marked_defaulted():
    t = compact(transcript(PRE), keep_last=2)
    del t["events"][-1]["metadata"]["receipt"]["estimated_tokens_after"]
    ev = one(t).event
    assert ev.path == "receipt" and ev.estimated_tokens_after == 0
    assert ev.defaulted == {"estimated_tokens_after"}
    assert one(compact(transcript(PRE), keep_last=2)).event.defaulted == frozenset()


def _without_archived_count(legacy: bool) -> dict:
    t = compact(transcript(PRE), keep_last=2, legacy=legacy, asset_extra={"metadata": {}})
    meta = t["events"][-1]["metadata"]
    del meta["archived_messages"]
    if not legacy:
        del meta["receipt"]["archived_messages"]
    return t


@pytest.mark.parametrize("legacy", [False, True])
def test_a_defaulted_archived_count_raises_no_high_finding(legacy):
    c = one(_without_archived_count(legacy))
    assert c.event.archived_messages == 0 and "archived_messages" in c.event.defaulted
    assert c.inference.archived == 5
    assert codes(c) == [("archived_unclaimed", "medium")] + (
        [("legacy_event", "info")] if legacy else []
    )
    unclaimed = c.findings[0]
    assert unclaimed.message.startswith(
        "archived_messages is absent (harn reads the default 0) and 5 messages are gone"
    )
    assert c.to_dict()["defaulted"] == ["archived_messages"]


def test_a_claimed_zero_is_still_understated():
    c = one(
        compact(
            transcript(PRE),
            keep_last=2,
            claim=0,
            flat={"archived_messages": 0},
            asset_extra={"metadata": {}},
        )
    )
    assert c.event.defaulted == frozenset()
    assert codes(c) == [("archived_understated", "high")]


# what serde_json itself parses: NaN and Infinity are not JSON, `-0` is a float


def _raw_file(tmp_path, text: str):
    p = tmp_path / "t.json"
    p.write_text(text, encoding="utf-8")
    return p


@pytest.mark.parametrize("token", ["NaN", "Infinity", "-Infinity"])
def test_nan_and_infinity_make_the_file_unreadable_for_harn(tmp_path, token):
    text = json.dumps(clean_receipt_transcript()).replace(
        '"summary_bytes": 31', f'"summary_bytes": {token}'
    )
    assert token in text
    with pytest.raises(harn.HarnParseError) as ei:
        harn.load(_raw_file(tmp_path, text))
    assert str(ei.value) == (
        f"{tmp_path / 't.json'} is not JSON: {token} is not a JSON "
        f"number; harn's JSON reader (serde_json) refuses NaN and "
        f"Infinity"
    )


@pytest.mark.parametrize("literal", ["1e400", "-1e400", "1" * 320])
def test_a_number_beyond_f64_is_unreadable_for_harn(tmp_path, literal):
    text = json.dumps(transcript(PRE)).replace('"version": 2', f'"version": {literal}')
    with pytest.raises(harn.HarnParseError) as ei:
        harn.load(_raw_file(tmp_path, text))
    assert "number out of range" in str(ei.value)


def test_minus_zero_is_a_float_to_serde_and_fails_an_unsigned_field(tmp_path):
    t = compact(
        transcript(PRE), keep_last=2, receipt={"hard_limit_tokens": 8000}, recap=dict(FULL_RECAP)
    )
    text = json.dumps(t).replace('"hard_limit_tokens": 8000', '"hard_limit_tokens": -0')
    c = harn.check_document(harn.load(_raw_file(tmp_path, text)))[0]
    assert c.event.path == "legacy"
    assert c.event.receipt_error == (
        "hard_limit_tokens: expected a whole number, got -0 (a float to serde_json)"
    )
    zero = text.replace('"hard_limit_tokens": -0', '"hard_limit_tokens": 0')
    c = harn.check_document(harn.load(_raw_file(tmp_path, zero)))[0]
    assert c.event.path == "receipt" and c.event.hard_limit_tokens == 0


def test_minus_zero_in_a_legacy_count_reads_zero_as_as_u64_does(tmp_path):
    t = compact(transcript(PRE), keep_last=2, legacy=True, asset_extra={"metadata": {}})
    text = json.dumps(t).replace('"estimated_tokens_after": 300', '"estimated_tokens_after": -0')
    ev = harn.check_document(harn.load(_raw_file(tmp_path, text)))[0].event
    assert ev.estimated_tokens_after == 0 and ev.defaulted == frozenset()


def test_minus_zero_in_content_keeps_its_digest(tmp_path):
    t = compact(transcript(PRE + [m("user", {"n": 0})]), keep_last=2)
    plain = harn.check_document(harn.load(_raw_file(tmp_path, json.dumps(t))))[0]
    text = json.dumps(t).replace('"n": 0', '"n": -0')
    assert '"n": -0' in text
    minus = harn.check_document(harn.load(_raw_file(tmp_path, text)))[0]
    assert minus.to_dict() == plain.to_dict()


# --------------------------------------------------------------------------- measurement


def test_measured_zero_is_not_null():
    zero = compact(
        transcript(PRE),
        keep_last=2,
        measurement={
            "source_message_count": 5,
            "source_bytes": 400,
            "summary_bytes": 0,
            "carried_source_bytes": 0,
        },
    )
    null = compact(
        transcript(PRE),
        keep_last=2,
        measurement={"source_message_count": 5, "source_bytes": 400, "summary_bytes": None},
    )
    cz, cn = one(zero), one(null)
    assert cz.event.source_measurement == harn.SourceMeasurement(5, 400, 0, 0)
    assert cn.event.source_measurement == harn.SourceMeasurement(5, 400, None, None)
    assert cz.to_dict()["source_measurement"] == {
        "source_message_count": 5,
        "source_bytes": 400,
        "summary_bytes": 0,
        "carried_source_bytes": 0,
    }
    assert cn.to_dict()["source_measurement"] == {
        "source_message_count": 5,
        "source_bytes": 400,
        "summary_bytes": None,
        "carried_source_bytes": None,
    }
    assert codes(cz) == [("nothing_carried_forward", "medium")]
    assert codes(cn) == []


def test_no_measurement_at_all_is_null():
    c = one(compact(transcript(PRE), keep_last=2))
    assert c.event.source_measurement is None and c.to_dict()["source_measurement"] is None


def test_zero_source_carried_zero_is_not_a_finding():
    c = one(
        compact(
            transcript(PRE),
            keep_last=2,
            measurement={
                "source_message_count": 5,
                "source_bytes": 0,
                "summary_bytes": 0,
                "carried_source_bytes": 0,
            },
        )
    )
    assert codes(c) == []


def test_measurement_count_mismatch():
    c = one(
        compact(
            transcript(PRE),
            keep_last=2,
            measurement={
                "source_message_count": 4,
                "source_bytes": 400,
                "summary_bytes": 30,
                "carried_source_bytes": 100,
            },
        )
    )
    assert codes(c) == [("measurement_count_mismatch", "medium")]
    assert "source_message_count 4 != archived_messages 5" in c.findings[0].message


def test_measurement_count_not_measured_is_not_a_mismatch():
    c = one(
        compact(
            transcript(PRE),
            keep_last=2,
            measurement={"source_message_count": None, "source_bytes": 400},
        )
    )
    assert codes(c) == []


# --------------------------------------------------------------------------- findings


def test_archived_understated_is_high():
    c = one(
        compact(
            transcript(PRE),
            keep_last=2,
            claim=3,
            flat={"archived_messages": 3},
            asset_extra={"metadata": {}},
        )
    )
    assert codes(c) == [("archived_understated", "high")]
    assert c.worst == "high"
    assert "claims 3 but 5 messages are gone" in c.findings[0].message


def test_archived_overstated_is_medium():
    c = one(
        compact(
            transcript(PRE),
            keep_last=2,
            claim=6,
            flat={"archived_messages": 6},
            asset_extra={"metadata": {}},
        )
    )
    assert codes(c) == [("archived_overstated", "medium")]


def test_keep_first_prefix_is_not_counted_as_archived():
    c = one(compact(transcript(PRE), keep_first=1, keep_last=2))
    assert c.inference == harn.ArchiveInference(1, 4, 2, 0, 0, True)
    assert codes(c) == []


def test_appended_messages_after_compaction_are_not_archived():
    t = compact(transcript(PRE), keep_last=2)
    t["messages"] += [m("assistant", "done"), m("user", "go ahead")]  # a repeat of PRE[-1]
    c = one(t)
    assert c.inference == harn.ArchiveInference(0, 5, 2, 0, 2, True)
    assert codes(c) == []


def test_rewritten_kept_tool_message_is_info_not_understatement():
    pre = PRE[:3] + [m("tool", "x" * 50, tool_call_id="c2")] + PRE[3:5]
    t = compact(transcript(pre), keep_last=3)
    t["messages"][1]["content"] = "xxxx [... 42 characters snipped ...] xx"
    c = one(t)
    assert c.inference.archived == 3 and c.inference.rewritten == 1
    assert codes(c) == [("kept_messages_rewritten", "info")]


def test_rewritten_non_tool_message_breaks_the_kept_suffix():
    # a kept message whose content changed is not kept: the suffix no longer aligns
    # after the summary, so nothing after it counts as kept
    t = compact(transcript(PRE), keep_last=2)
    t["messages"][1]["content"] = "changechangechange"
    c = one(t)
    assert c.inference == harn.ArchiveInference(0, 7, 0, 0, 2, True)
    assert codes(c) == [("archived_understated", "high")]


def test_tokens_grew_and_unchanged():
    grew = one(
        compact(
            transcript(PRE),
            keep_last=2,
            receipt={"estimated_tokens_after": 901},
            flat={"estimated_tokens_after": 901},
        )
    )
    same = one(
        compact(
            transcript(PRE),
            keep_last=2,
            receipt={"estimated_tokens_after": 900},
            flat={"estimated_tokens_after": 900},
        )
    )
    none = one(
        compact(
            transcript(PRE),
            keep_last=2,
            receipt={"estimated_tokens_after": 0, "estimated_tokens_before": 0},
            flat={"estimated_tokens_after": 0, "estimated_tokens_before": 0},
        )
    )
    assert codes(grew) == [("tokens_grew", "medium")]
    assert codes(same) == [("tokens_unchanged", "low")]
    assert codes(none) == []


@pytest.mark.parametrize(
    "key, flat_value",
    [
        ("archived_messages", 4),
        ("archived_messages", 5.0),
        ("mode", "manual"),
        ("strategy", "llm"),
        ("engine_strategy", "truncate"),
        ("snapshot_asset_id", "other"),
        ("estimated_tokens_before", 899),
        ("instruction_mode", "extend"),
        ("recap", {"recap_bytes": 1}),
        ("compaction_policy", {"scope": "x"}),
    ],
)
def test_receipt_flat_mismatch(key, flat_value):
    c = one(compact(transcript(PRE), keep_last=2, flat={key: flat_value}))
    assert ("receipt_flat_mismatch", "medium") in codes(c)
    f = next(f for f in c.findings if f.code == "receipt_flat_mismatch")
    assert f.message.startswith(f"{key}: receipt says ")


def test_flat_keys_absent_are_not_compared():
    t = compact(transcript(PRE), keep_last=2)
    meta = t["events"][-1]["metadata"]
    for key in list(meta):
        if key != "receipt":
            del meta[key]
    assert codes(one(t)) == []


def test_receipt_id_mismatch():
    c = one(compact(transcript(PRE), keep_last=2, event_id="evt-other"))
    assert codes(c) == [("receipt_id_mismatch", "medium")]
    assert c.event.id == "evt-other"


def test_duplicate_receipt_id():
    t1 = compact(transcript(PRE), keep_last=4, n=1)
    t1["messages"].append(m("assistant", "more"))
    t2 = compact(
        t1, keep_last=2, n=2, event_id="compaction-1", receipt={"receipt_id": "compaction-1"}
    )
    checks = harn.check_transcript(t2)
    assert [codes(c) for c in checks] == [[("duplicate_receipt_id", "medium")]] * 2


def test_no_snapshot_is_low():
    c = one(compact(transcript(PRE), keep_last=2, snapshot=False))
    assert codes(c) == [("no_snapshot", "low")]
    assert c.snapshot is None and c.inference is None


def test_snapshot_not_found():
    t = compact(transcript(PRE), keep_last=2)
    t["assets"] = []
    assert codes(one(t)) == [("snapshot_not_found", "medium")]


def test_snapshot_unreadable():
    t = compact(transcript(PRE), keep_last=2)
    t["assets"][0]["data"] = {"_type": "transcript", "messages": "gone"}
    c = one(t)
    assert codes(c) == [("snapshot_unreadable", "medium")]
    assert c.inference is None


def test_snapshot_kind_unexpected():
    t = compact(transcript(PRE), keep_last=2, asset_extra={"kind": "file"})
    assert codes(one(t)) == [("snapshot_kind_unexpected", "low")]


def test_snapshot_conflict():
    t = compact(transcript(PRE), keep_last=2)
    other = copy.deepcopy(t["assets"][0])
    other["data"]["messages"] = other["data"]["messages"][:1]
    t["assets"].append(other)
    c = one(t)
    assert c.snapshot.location == "assets[0]"
    assert codes(c) == [("snapshot_conflict", "medium")]


def test_snapshot_metadata_mismatch():
    t = compact(
        transcript(PRE),
        keep_last=2,
        asset_extra={"metadata": {"archived_messages": 5, "estimated_tokens_before": 1}},
    )
    c = one(t)
    assert codes(c) == [("snapshot_metadata_mismatch", "medium")]
    assert c.findings[0].message.startswith("estimated_tokens_before:")


def test_no_following_state_when_next_compaction_has_no_snapshot():
    t1 = compact(transcript(PRE), keep_last=4, n=1)
    t1["messages"].append(m("assistant", "more"))
    t2 = compact(t1, keep_last=2, n=2, snapshot=False)
    first, second = harn.check_transcript(t2)
    assert codes(first) == [("no_following_state", "info")]
    assert codes(second) == [("no_snapshot", "low")]


def test_check_inconclusive_when_budget_runs_out():
    pre = [m("user", f"m{i}") for i in range(50)]
    post = [m("user", "summary")] + [m("user", f"x{i}") for i in range(49)]
    assert harn.infer_archive(pre, post, budget=10) is None
    assert harn.infer_archive(pre, post).archived == 50


def test_findings_sorted_by_severity():
    c = one(
        compact(
            transcript(PRE),
            keep_last=2,
            claim=3,
            event_id="evt-x",
            receipt={"estimated_tokens_after": 950},
            asset_extra={"metadata": {}},
        )
    )
    assert [s for _c, s in codes(c)] == sorted([s for _c, s in codes(c)], key=harn.SEVERITIES.index)
    assert codes(c)[0] == ("archived_understated", "high")
    assert {"receipt_flat_mismatch", "receipt_id_mismatch", "tokens_grew"} <= {
        x for x, _s in codes(c)
    }


# --------------------------------------------------------------------------- nesting


def two_compactions() -> dict:
    t1 = compact(transcript(PRE), keep_last=4, n=1)
    t1["messages"] += [
        m("assistant", "applied the fix"),
        m("tool", "48 passed"),
        m("user", "write the PR"),
    ]
    t1["events"] += events_for(t1["messages"][-3:])
    return compact(t1, keep_last=2, n=2)


def test_two_compactions_follow_each_other():
    first, second = harn.check_transcript(two_compactions())
    assert first.following.source == "snapshot" and first.following.asset_id == "snap-2"
    assert first.inference == harn.ArchiveInference(0, 3, 4, 0, 3, True)
    assert second.following.source == "current"
    assert second.inference == harn.ArchiveInference(0, 6, 2, 0, 0, True)
    assert codes(first) == [] and codes(second) == []
    # the second snapshot's data nests the first snapshot
    assert second.snapshot.data["assets"][0]["id"] == "snap-1"


def test_snapshot_found_only_nested():
    t = two_compactions()
    t["assets"] = [a for a in t["assets"] if a["id"] != "snap-1"]
    first, second = harn.check_transcript(t)
    assert first.snapshot.location == "assets[0].data.assets[0]"
    assert codes(first) == [] and codes(second) == []
    assert harn.find_snapshot(t, "snap-1").location == "assets[0].data.assets[0]"
    assert harn.find_snapshot(t, "snap-404") is None
    assert harn.find_snapshot(t, None) is None


def test_deep_nesting_of_snapshots_is_iterative():
    t = transcript([m("user", "x")])
    inner = t
    for i in range(3000):
        inner["assets"] = [
            {
                "id": f"a{i}",
                "kind": "compaction_source_transcript",
                "data": {"_type": "transcript", "messages": [], "assets": []},
            }
        ]
        inner = inner["assets"][0]["data"]
    inner["assets"] = [
        {
            "id": "deepest",
            "kind": "compaction_source_transcript",
            "data": {"messages": [m("user", "old")]},
        }
    ]
    ref = harn.find_snapshot(t, "deepest")
    assert ref is not None and ref.messages == (m("user", "old"),)


# --------------------------------------------------------------------------- documents


def run_record() -> dict:
    return {
        "_type": "run_record",
        "id": "run_1",
        "status": "completed",
        "transcript": transcript([m("user", "hi")], "t-run"),
        "stages": [
            {
                "id": "stage_a",
                "node_id": "plan",
                "transcript": compact(transcript(PRE, "t-a"), keep_last=2, legacy=True),
            },
            "not a stage",
            {"id": "stage_b", "node_id": "act", "transcript": None},
            {
                "id": "stage_c",
                "node_id": "impl",
                "transcript": compact(
                    transcript(PRE, "t-c"),
                    keep_last=2,
                    claim=2,
                    flat={"archived_messages": 2},
                    asset_extra={"metadata": {}},
                ),
            },
        ],
    }


def test_run_record_with_stages(tmp_path):
    p = tmp_path / "run_1.json"
    p.write_text(json.dumps(run_record()))
    doc = harn.load(p)
    assert doc.kind == "run" and doc.run_id == "run_1"
    assert [(t.location, t.id, t.stage_id, t.node_id) for t in doc.transcripts] == [
        ("run.transcript", "t-run", None, None),
        ("run.stages[0].transcript", "t-a", "stage_a", "plan"),
        ("run.stages[3].transcript", "t-c", "stage_c", "impl"),
    ]
    checks = harn.check_document(doc)
    assert [(c.event.location, c.event.path, codes(c)) for c in checks] == [
        ("run.stages[0].transcript", "legacy", [("legacy_event", "info")]),
        ("run.stages[3].transcript", "receipt", [("archived_understated", "high")]),
    ]
    assert harn.worst_severity(f for c in checks for f in c.findings) == "high"
    assert checks[1].to_dict()["stage_id"] == "stage_c"


def test_run_record_wrapped_and_untyped():
    wrapped = harn.document_from_value({"run": run_record()})
    assert wrapped.kind == "run" and len(wrapped.transcripts) == 3
    bare = dict(run_record())
    del bare["_type"]
    assert harn.document_from_value(bare).kind == "run"
    untyped = transcript(PRE)
    del untyped["_type"]
    assert harn.document_from_value(untyped).kind == "transcript"


def test_transcripts_of_accepts_values_and_documents():
    t = clean_receipt_transcript()
    assert len(harn.check_document(t)) == 1
    doc = harn.document_from_value(t)
    assert harn.transcripts_of(doc) == doc.transcripts
    assert harn.transcripts_of(doc.transcripts[0]) == doc.transcripts


@pytest.mark.parametrize(
    "mutate",
    [
        lambda t: t.__setitem__("events", "nope"),
        lambda t: t.__setitem__("events", [1, None, "x", {"kind": 5}, {"kind": "compaction"}]),
        lambda t: t["events"][-1].__setitem__("metadata", [1, 2]),
        lambda t: t["events"][-1].__setitem__("id", 42),
        lambda t: t.__setitem__("assets", {"snap-1": {}}),
        lambda t: t.__setitem__("assets", [None, 3, {"id": "snap-1", "data": "text"}]),
        lambda t: t.__setitem__("messages", None),
    ],
)
def test_wrong_types_inside_never_raise(mutate):
    t = clean_receipt_transcript()
    mutate(t)
    for c in harn.check_transcript(t):
        json.dumps(c.to_dict())
        assert all(f.code in harn.RULES for f in c.findings)


def test_event_id_not_a_string_reads_empty():
    t = clean_receipt_transcript()
    t["events"][-1]["id"] = 42
    c = one(t)
    assert c.event.event_id == "" and c.event.id == "compaction-1"


def test_deep_compaction_policy_stays_printable():
    policy: object = "leaf"
    for _ in range(600):
        policy = {"p": policy}
    c = one(compact(transcript(PRE), keep_last=2, receipt={"compaction_policy": policy}))
    d = c.to_dict()
    assert d["compaction_policy"].startswith("<nested deeper than")
    json.dumps(d)
    assert c.event.compaction_policy is policy


# --------------------------------------------------------------------------- loading


def one_line(e: harn.HarnError) -> str:
    text = str(e)
    assert text and "\n" not in text and text == e.message
    return text


def test_load_missing_file(tmp_path):
    with pytest.raises(harn.HarnFileError) as ei:
        harn.load(tmp_path / "nope.json")
    assert "No such file" in one_line(ei.value) and ei.value.kind == "unreadable"


def test_load_directory(tmp_path):
    with pytest.raises(harn.HarnFileError) as ei:
        harn.load(tmp_path)
    assert "directory" in one_line(ei.value)


@pytest.mark.parametrize("when", ["at the stat", "after the stat"])
def test_load_refuses_a_fifo_without_blocking_even_when_swapped_in_after_the_stat(
    tmp_path, monkeypatch, when
):
    path = tmp_path / "t.json"
    path.write_text(json.dumps(transcript([])))
    fifo_in_place(monkeypatch, path, when)
    came_back, got = returns(lambda: harn.load(path), path)
    assert came_back, "harn.load blocked on a FIFO"
    assert isinstance(got, harn.HarnFileError) and got.kind == "unreadable"
    assert one_line(got) == f"cannot read {path}: not a regular file"


def test_load_of_a_folder_swapped_in_after_the_stat_says_a_directory(tmp_path, monkeypatch):
    path, folder = tmp_path / "t.json", tmp_path / "dir"
    path.write_text(json.dumps(transcript([])))
    folder.mkdir()
    swapped_after_stat(monkeypatch, path, folder)
    with pytest.raises(harn.HarnFileError) as ei:
        harn.load(path)
    assert one_line(ei.value) == f"cannot read {path}: a directory"
    with pytest.raises(harn.HarnFileError) as ei:  # as a folder there at the stat says
        harn.load(path)
    assert one_line(ei.value) == f"cannot read {path}: a directory"


@pytest.mark.parametrize(
    "data",
    [
        b"",
        b"{",
        b"not json",
        b"\xff\xfe\x00garbage",
        b"[" * 100000,
        b'{"a": 1}\n{"b": 2}',
        b"\x80abc",
    ],
    ids=["empty", "open", "words", "utf16-junk", "deep", "jsonl", "bad-utf8"],
)
def test_load_not_json(tmp_path, data):
    p = tmp_path / "bad.json"
    p.write_bytes(data)
    with pytest.raises(harn.HarnParseError) as ei:
        harn.load(p)
    assert "is not JSON" in one_line(ei.value) and ei.value.kind == "not_json"


@pytest.mark.parametrize(
    "value, word",
    [
        ([1, 2], "array"),
        ("t", "string"),
        (3, "number"),
        (None, "null"),
        ({"hello": 1}, "not a harn"),
    ],
)
def test_load_wrong_shape(tmp_path, value, word):
    p = tmp_path / "shape.json"
    p.write_text(json.dumps(value))
    with pytest.raises(harn.HarnShapeError) as ei:
        harn.load(p)
    assert word in one_line(ei.value)


def test_load_too_large(tmp_path):
    p = tmp_path / "big.json"
    p.write_text(json.dumps(clean_receipt_transcript()))
    with pytest.raises(harn.HarnTooLargeError) as ei:
        harn.load(p, max_bytes=100)
    assert "over the 100-byte limit" in one_line(ei.value)
    assert harn.load(p).kind == "transcript"


def test_load_deep_but_parseable(tmp_path):
    t = clean_receipt_transcript()
    clean = tmp_path / "clean.json"
    clean.write_text(json.dumps(t))
    want = harn.check_document(harn.load(clean))[0].to_dict()
    deep: object = 1
    for _ in range(900):
        deep = [deep]
    t["messages"].append(deep)
    p = tmp_path / "deep.json"
    p.write_text(json.dumps(t))
    (c,) = harn.check_document(harn.load(p))
    got = json.loads(json.dumps(c.to_dict()))
    # the deep message is one more message after the compaction, and nothing else changes
    assert c.findings == () and c.worst is None
    assert got["following"]["message_count"] == want["following"]["message_count"] + 1
    assert got["inferred"]["appended"] == want["inferred"]["appended"] + 1
    for key in ("following", "inferred"):
        got.pop(key), want.pop(key)
    assert got == want


# --------------------------------------------------------------------------- sealing


def test_compactor_and_method_from_the_receipt():
    ev = one(clean_receipt_transcript()).event
    assert harn.compactor_of(ev) == "harn:observation_mask"
    assert harn.method_of(ev) == "auto/hybrid#compaction-1"
    legacy = one(
        compact(
            transcript(PRE), keep_last=2, legacy=True, flat={"engine_strategy": None, "mode": None}
        )
    ).event
    assert harn.compactor_of(legacy) == "harn:hybrid"
    assert harn.method_of(legacy) == "unknown/hybrid#compaction-1"


def test_sealed_receipts_verify_with_the_reference(tmp_path):
    from arcaeon.prove.compact import verify_receipt

    t = two_compactions()
    ledger = tmp_path / "out.jsonl"
    rows = harn.seal_transcript(t, ledger)
    assert len(rows) == 2
    snap1 = t["assets"][0]["data"]["messages"]
    snap2 = t["assets"][1]["data"]["messages"]
    for row, pre, post in ((rows[0], snap1, snap2), (rows[1], snap2, t["messages"])):
        v = verify_receipt(row, pre, post)
        assert (v["ok"], v["content"], v["verified_scope"]) == (True, "match", "full"), v
    assert rows[0]["dropped"]["count"] == 3 and rows[1]["dropped"]["count"] == 6
    assert rows[0]["compactor"] == "harn:observation_mask"
    assert rows[0]["method"] == "auto/hybrid#compaction-1"
    # the rows on disk are the rows returned, and the chain holds
    on_disk = [json.loads(x) for x in ledger.read_text().splitlines()]
    assert on_disk == rows
    from arcaeon.record.ledger import verify_file

    assert verify_file(str(ledger)).ok is True


def test_sealed_receipt_fails_the_reference_on_the_wrong_content(tmp_path):
    from arcaeon.prove.compact import verify_receipt

    t = compact(transcript(PRE), keep_last=2)
    (row,) = harn.seal_transcript(t, tmp_path / "l.jsonl")
    v = verify_receipt(row, PRE, t["messages"][:-1])
    assert v["ok"] is False and v["content"] == "mismatch"


def test_sealing_an_understated_receipt_records_the_truth(tmp_path):
    t = compact(transcript(PRE), keep_last=2, claim=3)
    (row,) = harn.seal_transcript(t, tmp_path / "l.jsonl")
    assert row["dropped"]["count"] == 5 and row["introduced"]["count"] == 1


def test_seal_skips_what_it_cannot_seal(tmp_path):
    t1 = compact(transcript(PRE), keep_last=4, n=1)
    t1["messages"].append(m("assistant", "more"))
    t2 = compact(t1, keep_last=2, n=2, snapshot=False)
    out = harn.seal(t2, tmp_path / "l.jsonl")
    assert out.sealed == () and out.error is None
    assert [r for _p, r in out.skipped] == [
        "the messages that followed are not recorded",
        "no snapshot asset named",
    ]
    assert not (tmp_path / "l.jsonl").exists()


def test_seal_skips_content_that_cannot_be_digested(tmp_path):
    t = compact(transcript(PRE + [m("user", float("nan"))]), keep_last=2)
    out = harn.seal(t, tmp_path / "l.jsonl")
    assert out.sealed == ()
    assert out.skipped[0][1].startswith("content cannot be digested")


def test_seal_skips_a_label_with_a_lone_surrogate(tmp_path):
    t = compact(
        transcript(PRE),
        keep_last=2,
        receipt={"engine_strategy": "mask\ud800"},
        flat={"engine_strategy": "mask\ud800"},
    )
    out = harn.seal(t, tmp_path / "l.jsonl")
    assert out.sealed == () and out.skipped[0][1].startswith("cannot be sealed")


def test_seal_write_failure(tmp_path):
    t = two_compactions()
    out = harn.seal(t, tmp_path)  # a directory
    assert out.sealed == () and out.error.startswith("cannot write ledger")
    with pytest.raises(harn.HarnSealError) as ei:
        harn.seal_transcript(t, tmp_path)
    assert ei.value.sealed == [] and "\n" not in str(ei.value)


def test_seal_a_run_record_document(tmp_path):
    from arcaeon.prove.compact import verify_receipt

    doc = harn.document_from_value(run_record())
    out = harn.seal(doc, tmp_path / "l.jsonl")
    assert [p.event.location for p, _r in out.sealed] == [
        "run.stages[0].transcript",
        "run.stages[3].transcript",
    ]
    for plan, row in out.sealed:
        v = verify_receipt(row, list(plan.pre), list(plan.post))
        assert (v["ok"], v["content"], v["verified_scope"]) == (True, "match", "full")


def test_finding_to_dict():
    assert Finding("no_snapshot", "low", "x").to_dict() == {
        "code": "no_snapshot",
        "severity": "low",
        "message": "x",
    }
