"""Explain, don't just flag: the banner and the row detail say what the chain shows at a
chain mismatch and why a verdict is COULD NOT LOOK, and no Python `None` reaches the
screen."""

from __future__ import annotations

import html
import json

from sealscope.core import ledger as L

from tests.viewer.viewer_helpers import SAMPLES, goto, opened, sync


def text_of(widget) -> str:
    return str(widget.render())


@sync
async def test_a_chain_mismatch_is_explained_in_the_banner_and_the_row():
    async with opened([SAMPLES / "tampered.jsonl"]) as (app, pilot):
        tab = app.current_tab()
        banner = text_of(tab.banner).split("\n")
        assert banner[1] == (
            " first break: line 4: chain mismatch · fits: this row's content "
            "changed after it was chained"
        )
        tab.rows.focus()
        await pilot.press("b")
        await pilot.pause()
        head = text_of(tab.query_one("#detail-head")).split("\n")
        assert head[1:] == [
            "line 4: chain mismatch",
            "stored     380400a66317fb0b606c83fac02e7f7c",
            "recomputed a4a1427c52b09ee5d139fbeb9c2dee0b",
            "  after line 3, chain 2ca23e86634ea683beb20a10fbfb626d",
            (
                "fits: this row's content changed after it was chained — line 5 still links to "
                "this row's stored chain"
            ),
        ]
        await goto(pilot, 5)
        assert "fits" not in text_of(tab.query_one("#detail-head"))


@sync
async def test_could_not_look_says_why_on_the_same_line(tmp_path):
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    pre = tmp_path / "prechain.jsonl"
    pre.write_text('{"a": 1}\n{"a": 2}\n')
    async with opened([SAMPLES / "declared-break.jsonl", empty, pre]) as (app, _pilot):
        first = {t.source.name: text_of(t.banner).split("\n")[0] for t in app.ledger_tabs()}
        assert first["declared-break.jsonl"].startswith(
            " COULD NOT LOOK   declared-break.jsonl  declared break at line 3 · scope "
        )
        assert first["empty.jsonl"].startswith(" COULD NOT LOOK   empty.jsonl  empty file · ")
        assert first["prechain.jsonl"].startswith(
            " COULD NOT LOOK   prechain.jsonl  no chained rows (2 rows without a chain) · "
        )


@sync
async def test_no_python_none_reaches_the_screen(tmp_path):
    p = tmp_path / "nulls.jsonl"
    L.append(p, {"kind": "note", "text": None, "ts": None})
    L.append(
        p,
        {
            "op": "chain_break_declared",
            "orphan_line": None,
            "orphan_sha256": None,
            "why": None,
            "resume_prev": None,
        },
    )
    L.append(
        p,
        {
            "kind": "continuity_snapshot",
            "label": None,
            "aggregate_mean": None,
            "manifest_digest": None,
        },
    )
    # (a null schema would show the reference's own note, "unknown schema None")
    L.append(
        p,
        {
            "kind": "compaction_receipt",
            "schema": "arcaeon-compact:receipt:v2",
            "compactor": None,
            "method": None,
            "pre": {"count": None, "bytes": None},
            "post": {"count": 1, "bytes": None},
            "dropped": None,
        },
    )
    with p.open("a") as fh:
        fh.write(json.dumps({"kind": "summary_gaps"}) + "\n")
    async with opened([p]) as (app, pilot):
        tab = app.current_tab()
        tab.rows.focus()
        seen, panels = [], []
        for line in range(1, 6):
            await goto(pilot, line)
            await pilot.pause()
            assert tab.detail_line == line
            seen.append(html.unescape(app.export_screenshot()).replace("\xa0", " "))
            if line in (2, 3):
                panels.append(text_of(tab.query_one("#kind-panel")))
        assert all("None" not in shot for shot in seen)
        assert "orphan_line: —" in panels[0] and "manifest_digest: —" in panels[1]
        assert tab.source.row(2).summary == "declares line null broken: null"
        assert tab.source.row(4).summary.startswith("receipt v2: pre null items/null B → post 1/")
