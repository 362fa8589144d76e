"""The overview strip and the compaction chart: snapshots (120x36) and Pilot flows."""

from __future__ import annotations

from sealscope.core import ledger as L
from sealscope.core import receipt
from sealscope.core.compaction_series import SeriesPoint
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.compaction_chart import CompactionChart
from sealscope.viewer.follow_mode import FollowMode
from sealscope.viewer.harn_tab import HarnPane
from sealscope.viewer.overview_strip import CLASSES, LEGEND, StripLegend, StripModel, bin_starts
from textual.widgets import OptionList, Static

from tests.viewer.glance_ledgers import (
    BIG_BREAKS,
    BIG_DECLARED,
    BIG_RECEIPTS,
    BIG_SEALS,
    DROP_OUTLIER,
    DROP_RECEIPTS,
    big_ledger,
    planted_drop_ledger,
)
from tests.viewer.viewer_helpers import SAMPLES, opened, settle, sync, until

SIZE = (120, 36)


def expected_classes(bins: list[tuple[int, int]]) -> list[str]:
    """What each bin must show, from the positions the generator planted."""
    out = []
    for lo, hi in bins:

        def has(lines, lo=lo, hi=hi):
            return any(lo <= n <= hi for n in lines)

        out.append(
            "break"
            if has(BIG_BREAKS)
            else "declared"
            if has((BIG_DECLARED,))
            else "receipt"
            if has(BIG_RECEIPTS)
            else "seal"
            if has(BIG_SEALS)
            else "verified"
        )
    return out


async def open_chart(pilot, *keys: str) -> CompactionChart:
    """Settled, C (then `keys`): the compaction chart in front."""
    await settle(pilot.app, pilot)
    await pilot.press("C", *keys)
    await pilot.pause()
    chart = pilot.app.screen
    assert isinstance(chart, CompactionChart)
    return chart


async def strip_as_planted(pilot) -> None:
    """Settled, the strip of `big_ledger` shows each bin as the generator planted it."""
    await settle(pilot.app, pilot)
    strip = pilot.app.current_tab().strip
    assert strip.bin_classes() == expected_classes(strip.bin_lines())


# ---------------------------------------------------------------------- snapshots


def test_snapshot_strip_tampered(snap_compare):
    async def run(pilot):
        await settle(pilot.app, pilot)
        assert pilot.app.current_tab().strip.bin_classes()[3] == "break"  # line 4

    assert snap_compare(
        SealscopeApp([SAMPLES / "tampered.jsonl"]), terminal_size=SIZE, run_before=run
    )


def test_snapshot_strip_10000_rows(snap_compare, tmp_path):
    path = big_ledger(tmp_path / "glance-10k.jsonl")
    assert snap_compare(SealscopeApp([path]), terminal_size=SIZE, run_before=strip_as_planted)


def test_snapshot_chart_session(snap_compare):
    assert snap_compare(
        SealscopeApp([SAMPLES / "session.jsonl"]), terminal_size=SIZE, run_before=open_chart
    )


def test_snapshot_chart_planted_drop(snap_compare, tmp_path):
    path = planted_drop_ledger(tmp_path / "planted-drop.jsonl")

    async def run(pilot):
        chart = await open_chart(pilot)
        assert [p.where for p in chart.points if p.outlier] == [DROP_OUTLIER]

    assert snap_compare(SealscopeApp([path]), terminal_size=SIZE, run_before=run)


def test_snapshot_chart_planted_drop_80x24(snap_compare, tmp_path):
    path = planted_drop_ledger(tmp_path / "planted-drop.jsonl")

    async def run(pilot):
        await open_chart(pilot, "end")

    assert snap_compare(SealscopeApp([path]), terminal_size=(80, 24), run_before=run)


def test_snapshot_strip_80x24(snap_compare, tmp_path):
    path = big_ledger(tmp_path / "glance-10k.jsonl")
    assert snap_compare(SealscopeApp([path]), terminal_size=(80, 24), run_before=strip_as_planted)


def test_snapshot_chart_harn_tokens(snap_compare):
    async def run(pilot):
        chart = await open_chart(pilot)
        assert [(p.where, p.unit, p.pre, p.post, p.dropped) for p in chart.points] == [
            (1, "tokens", 495, 258, 237),
            (2, "tokens", 341, 142, 199),
        ]

    assert snap_compare(
        SealscopeApp([SAMPLES / "harn" / "session-transcript.json"]),
        terminal_size=SIZE,
        run_before=run,
    )


# ---------------------------------------------------------------------- Pilot


@sync
async def test_strip_bins_of_the_10000_row_ledger(tmp_path):
    async with opened([big_ledger(tmp_path / "big.jsonl")]) as (app, _pilot):
        tab = app.current_tab()
        strip = tab.strip
        bins = strip.bin_lines()
        assert bins[0][0] == 1 and bins[-1][1] == tab.source.line_count == 10_001
        classes = strip.bin_classes()
        assert classes == expected_classes(bins)
        assert classes.count("break") == 2 and classes.count("declared") == 1
        assert classes.count("receipt") == 3 and classes.count("seal") == 1
        # each planted line's bin, by position
        for line, cls in [
            (BIG_BREAKS[0], "break"),
            (BIG_DECLARED, "declared"),
            (BIG_RECEIPTS[1], "receipt"),
            (BIG_SEALS[0], "seal"),
        ]:
            b = next(i for i, (lo, hi) in enumerate(bins) if lo <= line <= hi)
            assert classes[b] == cls


@sync
async def test_clicking_a_strip_cell_moves_the_view_to_its_first_row(tmp_path):
    async with opened([big_ledger(tmp_path / "big.jsonl")]) as (app, pilot):
        tab = app.current_tab()
        bins = tab.strip.bin_lines()
        assert await pilot.click("#strip", offset=(1, 20))
        await pilot.pause()
        assert tab.rows.current_line == bins[20][0]
        top = int(tab.rows.scroll_offset.y)
        assert top <= bins[20][0] - 1 < top + tab.rows.size.height
        assert tab.strip.viewport[0] <= bins[20][0] <= tab.strip.viewport[1]


@sync
async def test_m_then_a_position_key_jumps_and_m_twice_hides(tmp_path):
    async with opened([big_ledger(tmp_path / "big.jsonl")]) as (app, pilot):
        tab = app.current_tab()
        bins = tab.strip.bin_lines()
        await pilot.press("m", "5")
        await pilot.pause()
        assert tab.rows.current_line == bins[5 * len(bins) // 10][0]
        await pilot.press("down")
        await pilot.pause()
        assert tab.rows.current_line == bins[5 * len(bins) // 10 + 1][0]
        assert app.focused is tab.strip
        await pilot.press("m")
        await pilot.pause()
        assert not tab.strip.display and app.focused is tab.rows
        await pilot.press("m")
        await pilot.pause()
        assert tab.strip.display and app.focused is tab.strip


@sync
async def test_filtered_strip_bins_only_the_rows_shown(tmp_path):
    """With a filter the bins split the matching rows: every cell is a break (no cell
    stands for rows the list hides), one cell per break when they are fewer than the
    cells, each beside the row it marks while the list starts at the top."""
    async with opened([big_ledger(tmp_path / "big.jsonl")]) as (app, pilot):
        tab = app.current_tab()
        tab.apply_filter("break")
        await pilot.pause()
        await pilot.pause()
        strip = tab.strip
        assert len(BIG_BREAKS) < strip.cells
        assert strip.bin_classes() == ["break"] * len(BIG_BREAKS)
        assert strip.bin_lines() == [(n, n) for n in sorted(BIG_BREAKS)]
        assert all(strip.model.matching(strip.cells))
        assert await pilot.click("#strip", offset=(1, 1))  # the second cell: the second break
        await pilot.pause()
        assert tab.rows.current_line == sorted(BIG_BREAKS)[1]
        assert tab.rows.index_of(tab.rows.current_line) == 1  # the row beside that cell
        tab.action_clear_filter()
        await pilot.pause()
        assert len(strip.bin_lines()) == strip.cells  # every line again


@sync
async def test_enter_on_a_chart_bar_jumps_to_the_receipt_row(tmp_path):
    async with opened([planted_drop_ledger(tmp_path / "drop.jsonl")]) as (app, pilot):
        tab = app.current_tab()
        chart = await open_chart(pilot)
        assert [p.where for p in chart.points] == list(DROP_RECEIPTS)
        await pilot.press("down", "down", "down", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, CompactionChart)
        assert tab.rows.current_line == DROP_RECEIPTS[3] == DROP_OUTLIER


@sync
async def test_chart_items_toggle_and_80x24(tmp_path):
    app = SealscopeApp([planted_drop_ledger(tmp_path / "drop.jsonl")])
    async with app.run_test(size=(80, 24)) as pilot:
        chart = await open_chart(pilot)
        ol = chart.query_one(OptionList)
        first = str(ol.get_option_at_index(0).prompt)
        assert "pre" in first and "post" in first and "dropped" in first and " B" in first
        await pilot.press("i")
        await pilot.pause()
        first = str(ol.get_option_at_index(0).prompt)
        assert "10 items" in first and "2 items" in first
        assert all(len(line) <= 76 for line in first.split("\n"))


@sync
async def test_harn_chart_tokens_and_jump():
    async with opened([SAMPLES / "harn" / "session-transcript.json"]) as (app, pilot):
        (pane,) = app.query(HarnPane)
        assert "Compaction chart" in [c.title for c in pane.commands()]
        chart = await open_chart(pilot)
        assert [(p.where, p.unit, p.pre, p.post) for p in chart.points] == [
            (1, "tokens", 495, 258),
            (2, "tokens", 341, 142),
        ]
        await pilot.press("down", "enter")
        await pilot.pause()
        assert app.query_one("#harn-events", OptionList).highlighted == 1


@sync
async def test_legend_names_every_class_with_its_own_glyph():
    async with opened([SAMPLES / "session.jsonl"], size=(80, 24)) as (app, pilot):
        await pilot.press("m", "question_mark")
        await pilot.pause()
        assert isinstance(app.screen, StripLegend)
        shown = str(app.screen.query_one("#legend-box", Static).render())
        assert len({g for _c, g, _s, _w in LEGEND}) == len(CLASSES) == 11
        for _c, glyph, _s, words in LEGEND:
            assert f" {glyph}  {words}" in shown
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, StripLegend)


def test_model_bins_grow_with_the_line_count():
    m = StripModel(lines=100, verified_through=50, findings={60: ("break", "x")}, verified=False)
    assert bin_starts(100, 10) == [1, 11, 21, 31, 41, 51, 61, 71, 81, 91, 101]
    assert m.classes(10)[:5] == ["walked"] * 5  # no verdict yet: not "verified"
    assert m.classes(10)[5] == "break" and m.classes(10)[6:] == ["pending"] * 4
    m.lines = 200  # a followed file grew: bins re-cut from the count
    assert bin_starts(200, 10)[1] == 21 and m.classes(10)[2] == "break"
    m.verified, m.first_chained = True, 31  # lines 1..30 prechain: bounded
    assert m.classes(10)[:4] == ["bounded", "bounded", "break", "pending"]
    m.verified_through = 200
    assert m.classes(10)[3:] == ["verified"] * 7


def test_series_point_marks():
    p = SeriesPoint(3, "bytes", 100, 40, 60, 10, 4, 6, ok=False, bounded=True)
    assert p.share() == 0.6 and p.share(True) == 0.6


@sync
async def test_a_followed_file_grows_into_the_strip_and_the_chart(tmp_path, monkeypatch):
    monkeypatch.setattr(FollowMode, "follow_poll", 0.03)
    p = tmp_path / "live.jsonl"
    for i in range(5):
        L.append(p, {"kind": "note", "i": i, "ts": f"2026-11-30T12:00:0{i}Z"})
    async with opened([p]) as (app, pilot):
        tab = app.current_tab()
        await until(pilot, lambda: tab.following)
        assert tab.series == [] and tab.strip.bin_classes() == ["verified"] * 6
        pre = ["kept item", "dropped item"]
        L.append(
            p,
            receipt.build_row(
                pre, pre[:1], "glance-test", "truncate", opened_at="2026-11-30T12:00:06Z"
            ),
        )  # line 6
        L.append(
            p,
            {
                "kind": "continuity_snapshot",
                "label": "live",
                "manifest_digest": "sha256:" + "ab" * 32,
            },
        )  # line 7
        with p.open("a") as fh:  # line 8
            fh.write('{"kind": "note", "i": 8, "chain": "' + "0" * 32 + '"}\n')
        await until(pilot, lambda: tab.result.rows == 8 and bool(tab.series))
        await pilot.pause()
        assert [pt.where for pt in tab.series] == [6]
        assert tab.strip.bin_classes() == ["verified"] * 5 + [
            "receipt",
            "seal",
            "break",
            "verified",
        ]


@sync
async def test_the_strip_sits_apart_from_the_rows_under_its_heading():
    """A gap between the row list and the strip, and `map` over both, so a cell does
    not read as the mark of the row beside it; the heading goes when the strip does."""
    async with opened([SAMPLES / "tampered.jsonl"]) as (app, pilot):
        tab = app.current_tab()
        strip, head = tab.strip, tab.query_one("#strip-head")
        rows_right = tab.rows.region.right
        assert strip.region.x == rows_right + 1  # one column of gap
        assert head.region.x == rows_right and str(head.render()) == "map"
        await pilot.press("m", "m")  # the strip takes the keyboard, then hides
        await pilot.pause()
        assert not strip.display and not head.display
