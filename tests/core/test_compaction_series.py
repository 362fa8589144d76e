"""The compaction series: claimed sizes per receipt, the call-out, and the export's copy."""

from __future__ import annotations

import json
from dataclasses import replace

from sealscope.core import export, harn
from sealscope.core.compaction_series import (
    SeriesPoint,
    harn_event_point,
    harn_point,
    outlier,
    receipt_point,
    series,
    series_dicts,
)

from tests.viewer.glance_ledgers import DROP_OUTLIER, DROP_RECEIPTS, planted_drop_ledger
from tests.viewer.viewer_helpers import SAMPLES


def pt(where: int, pre: int, dropped: int) -> SeriesPoint:
    return SeriesPoint(where, "bytes", pre, pre - dropped, dropped)


def test_outlier_is_furthest_above_the_median():
    pts = [pt(1, 100, 20), pt(2, 100, 25), pt(3, 100, 90), pt(4, 100, 30)]
    assert outlier(pts) == 2
    assert [p.outlier for p in series(pts)] == [False, False, True, False]


def test_no_outlier_with_fewer_than_three_or_all_equal():
    assert outlier([pt(1, 100, 10), pt(2, 100, 90)]) is None
    assert outlier([pt(1, 100, 50)] * 4) is None
    # unknown sizes have no share and are not counted
    assert outlier([pt(1, 100, 10), SeriesPoint(2, "bytes", None, 1, 1), pt(3, 100, 90)]) is None


def test_receipt_point_reads_the_claims_and_the_check():
    row = {
        "kind": "compaction_receipt",
        "pre": {"bytes": 10, "count": 2},
        "post": {"bytes": True, "count": 1},
        "dropped": {"bytes": -1, "count": 1},
    }
    p = receipt_point(4, row)
    assert (p.pre, p.post, p.dropped, p.pre_items, p.post_items, p.dropped_items) == (
        10,
        None,
        None,
        2,
        1,
        1,
    )
    assert p.ok is False and p.bounded is True  # malformed: fails its own check


def test_harn_point_dropped_is_before_minus_after():
    assert harn_point(1, 500, 200).dropped == 300
    assert harn_point(2, 100, 200).dropped is None
    assert harn_point(3, None, 5).pre is None


def test_export_carries_the_chart_series(tmp_path):
    path = planted_drop_ledger(tmp_path / "drop.jsonl")
    rep = export.build_report(path)
    doc = json.loads(rep.to_json())
    got = doc["compaction_series"]
    assert [p["line"] for p in got] == list(DROP_RECEIPTS)
    assert [p["line"] for p in got if p["outlier"]] == [DROP_OUTLIER]
    assert [p["line"] for p in got if p["outlier_items"]] == [DROP_OUTLIER]
    o = next(p for p in got if p["line"] == DROP_OUTLIER)
    assert (o["pre_items"], o["post_items"], o["dropped_items"]) == (10, 1, 9)
    assert o["pre"] == o["post"] + o["dropped"] and o["ok"] is True and o["bounded"] is True
    md = rep.to_markdown()
    assert "## Compaction series" in md
    assert f"| {DROP_OUTLIER} | `{o['pre']}` | `{o['post']}` | `{o['dropped']}` |" in md
    assert md.count("★ outlier") == 1


def test_export_series_of_the_session_sample_and_a_harn_transcript():
    rep = export.build_report(SAMPLES / "session.jsonl").to_dict()
    assert [(p["line"], p["pre"], p["post"], p["dropped"]) for p in rep["compaction_series"]] == [
        (5, 67, 43, 48),
        (7, 341, 188, 227),
    ]
    assert not any(p["outlier"] for p in rep["compaction_series"])
    h = export.build_report(SAMPLES / "harn" / "session-transcript.json").to_dict()
    assert [(p["event"], p["pre"], p["post"], p["dropped"]) for p in h["compaction_series"]] == [
        (1, 495, 258, 237),
        (2, 341, 142, 199),
    ]
    assert series_dicts([]) == []


def test_a_defaulted_harn_count_is_no_claim():
    doc = harn.load(str(SAMPLES / "harn" / "session-transcript.json"))
    ev = harn.check_document(doc)[0].event
    assert harn_event_point(1, ev).pre == ev.estimated_tokens_before == 495
    blank = replace(ev, estimated_tokens_after=0, defaulted=frozenset({"estimated_tokens_after"}))
    p = harn_event_point(1, blank)
    assert (p.pre, p.post, p.dropped) == (495, None, None)
