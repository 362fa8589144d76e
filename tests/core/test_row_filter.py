"""The filter rule (`core.row_filter`): which rows a status, a kind word or a time span keeps."""

from __future__ import annotations

from datetime import datetime, timezone

from sealscope.core.row_filter import parse_filter, parse_ts, time_span

KINDS = ["tool", "compaction_receipt", "continuity_snapshot", "session_start"]


def kinds():
    return KINDS


def test_a_span_runs_from_the_start_of_from_to_the_end_of_to_both_included():
    f = parse_filter("ts:2026-03-01T09:00..09:01", kinds)
    assert not isinstance(f, str)
    assert f.keeps_ts("2026-03-01T09:00:00Z")
    assert f.keeps_ts("2026-03-01T09:01:59.999999Z")
    assert not f.keeps_ts("2026-03-01T09:02:00Z")
    assert not f.keeps_ts("2026-03-01T08:59:59Z")
    assert f.keeps_ts("2026-03-01T10:00:30+01:00")  # 09:00:30 UTC
    assert not f.keeps_ts("not a time") and not f.keeps_ts(None) and not f.keeps_ts(7)


def test_one_prefix_is_its_whole_unit_and_either_end_may_be_open():
    day = parse_filter("ts:2026-03-01", kinds)
    assert not isinstance(day, str)
    assert day.keeps_ts("2026-03-01T23:59:59Z") and not day.keeps_ts("2026-03-02T00:00:00Z")
    dec = time_span("2026-12")
    assert dec == (
        datetime(2026, 12, 1, tzinfo=timezone.utc),
        datetime(2027, 1, 1, tzinfo=timezone.utc),
    )
    after = parse_filter("ts:2026-03-01T09:00:50..", kinds)
    assert not isinstance(after, str) and after.end is None
    assert after.keeps_ts("2030-01-01T00:00:00Z") and not after.keeps_ts("2026-03-01T09:00:49Z")


def test_a_bad_span_is_one_line_saying_why():
    assert parse_filter("ts:2026-13-01", kinds).startswith("ts: 2026-13-01 is not")
    assert parse_filter("ts:2026-03-02..2026-03-01", kinds) == "ts: the span ends before it starts"
    assert parse_filter("ts:", kinds).startswith("ts: needs a time")
    assert parse_ts("2026-03-01T09:00:05.123456789Z") == datetime(
        2026, 3, 1, 9, 0, 5, 123456, tzinfo=timezone.utc
    )


def test_a_word_is_a_status_else_the_kinds_holding_it_else_refused_naming_them():
    assert parse_filter("break", kinds).status == "break"
    assert parse_filter("receipt", kinds).kinds == ("compaction_receipt",)
    assert parse_filter("TOOL", kinds).kinds == ("tool",)
    assert parse_filter("s", kinds).kinds == ("continuity_snapshot", "session_start")
    assert parse_filter("kind:absent", kinds).kinds == ("absent",)
    why = parse_filter("nope", kinds)
    assert isinstance(why, str)
    assert "kinds in this file: compaction_receipt, continuity_snapshot, session_start, tool" in why


def test_kinds_are_asked_for_only_for_a_bare_word():
    def never():
        raise AssertionError("asked")

    for spec in ("ok", "kind:tool", "ts:2026"):
        assert not isinstance(parse_filter(spec, never), str)
