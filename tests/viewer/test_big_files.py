"""Big files stay responsive: a `kind:` filter parses only the lines whose bytes can hold
the kind (and finds exactly what parsing every line finds), it reports progress while
it runs, and keys pressed while the file is still being indexed are acted on once the
index is complete instead of being dropped."""

from __future__ import annotations

import importlib.util
import threading
from pathlib import Path

import pytest
from sealscope.core import ledger as L
from sealscope.viewer import source as source_mod
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.ledger_find import RowFinder
from sealscope.viewer.ledger_tab import LedgerTab
from sealscope.viewer.source import LedgerSource

from tests.viewer.viewer_helpers import SAMPLES, goto, opened, settle, sync, until

# bench/viewer.py's `build`: a chained ledger of N tool rows (loaded by path: the name
# `viewer` is also the source folder of sealscope.viewer)
_spec = importlib.util.spec_from_file_location(
    "bench_viewer", Path(__file__).resolve().parents[2] / "bench" / "viewer.py"
)
assert _spec is not None and _spec.loader is not None
bench_viewer = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(bench_viewer)
build = bench_viewer.build

SIZE = (120, 36)

# Lines chosen to fool a byte prefilter: the kind's name inside a string, escaped keys
# and values, duplicate keys, nested objects, op and tool kinds, invalid UTF-8,
# non-JSON whitespace, CR and CRLF line ends, NaN, huge integers, deep nesting.
HOSTILE = [
    b'{"kind": "note", "i": 1}',
    b'{"kind": "other", "text": "\\"kind\\": \\"note\\""}',
    b'{"text": "kind: note", "kind": "other"}',
    b'{"k\\u0069nd": "note"}',
    b'{"kind": "n\\u006fte"}',
    b'{"kind": "other", "kind": "note"}',
    b'{"kind": "note", "kind": "other"}',
    b'{"args": {"kind": "note"}}',
    b'{"op": "note"}',
    b'{"kind": 5, "op": "note"}',
    b'{"kind": null, "tool": "note"}',
    b'{"tool": "x"}',
    b'{"t\\u006fol": "x"}',
    b'{"kind": "note", "x": "\xff\xfe"}',
    b'\xc2\xa0{"kind": "note"}\xc2\xa0',
    b'\x1c{"kind": "note"}',
    b'{"kind": "note", "v": NaN}',
    b'{"kind": "note", "n": 123456789012345678901234567890}',
    b'{"kind": "note"',
    b'["kind", "note"]',
    b'"note"',
    b"",
    b"   ",
    b'{"kind": "n\\u00f6te"}',
    b'{"kind": "n\xc3\xb6te"}',
    b'{"kind": "note", "deep": ' + b"[" * 300 + b"]" * 300 + b"}",
    b'{"kind": "' + b"x" * 5000 + b'", "note": "note"}',
    b'{"kind": "note", "pad": "' + b"y" * 5000 + b'"}',
]
TERMS = [b"\n", b"\r\n", b"\r"]


def hostile_file(path: Path) -> Path:
    parts = []
    for i, line in enumerate(HOSTILE * 3):
        parts.append(line + TERMS[i % 3])
    path.write_bytes(b"".join(parts))
    return path


def full_parse(src: LedgerSource, kind: str) -> list[int]:
    return [n for n in range(1, src.shown_lines + 1) if src._make_row(n).kind == kind]


@pytest.mark.parametrize("step", [64, 1000, 4 << 20])
def test_kind_filter_equals_a_full_parse_on_hostile_rows(tmp_path, monkeypatch, step):
    monkeypatch.setattr(source_mod, "_SCAN_STEP", step)  # windows end inside lines
    src = LedgerSource(hostile_file(tmp_path / "hostile.jsonl"))
    src.index()
    kinds = {src._make_row(n).kind for n in range(1, src.line_count + 1)}
    assert {"note", "tool", "nöte", "x" * 5000} <= kinds
    # a row with a duplicate key is refused by the verifier: it has no kind (the last
    # duplicate's "note" or "other" is not what the row is)
    assert [(src._make_row(n).kind, src._make_row(n).duplicate) for n in (6, 7)] == [
        ("", "duplicate key 'kind'")
    ] * 2
    for kind in sorted(kinds | {"", "no such kind", "\ufffd", 'a"b'}):
        assert list(src.kind_lines(kind)) == full_parse(src, kind), kind
    # the first copy's rows of kind `note` (a lone CR before an empty line's LF makes one
    # CRLF, so that copy has 27 lines), 12 in each of the three copies
    notes = list(src.kind_lines("note"))
    assert notes[:12] == [1, 4, 5, 9, 10, 14, 15, 16, 17, 18, 25, 27] and len(notes) == 36
    src.close()


def test_kind_filter_parses_only_the_lines_that_can_hold_the_kind(tmp_path, monkeypatch):
    p = tmp_path / "many.jsonl"
    build(p, 3000)  # tool rows; every 500th row below becomes a receipt-like row
    lines = p.read_bytes().split(b"\n")
    for i in range(499, 3000, 500):
        lines[i] = b'{"kind": "compaction_receipt", "i": %d}' % i
    p.write_bytes(b"\n".join(lines))
    parsed: list[bytes] = []
    real = source_mod._kind_of
    monkeypatch.setattr(source_mod, "_kind_of", lambda raw: parsed.append(raw) or real(raw))
    src = LedgerSource(p)
    src.index()
    assert list(src.kind_lines("compaction_receipt")) == list(range(500, 3001, 500))
    assert len(parsed) == 6  # not 3000: the other lines were never parsed
    assert list(src.kind_lines("tool")) == [n for n in range(1, 3001) if n % 500]
    src.close()


class _HeldIndex:
    """Holds every LedgerSource.index() until `release()`: the file stays "being
    indexed" for as long as a test needs, without any timing."""

    def __init__(self, monkeypatch):
        self.gate = threading.Event()
        real = LedgerSource.index

        def index(src, on_progress=None):
            self.gate.wait(30)
            real(src, on_progress)

        monkeypatch.setattr(LedgerSource, "index", index)

    def release(self):
        self.gate.set()


def big_ledger(tmp_path: Path, rows: int = 20000, tamper: int | None = None) -> Path:
    p = tmp_path / "big.jsonl"
    build(p, rows)
    if tamper:
        lines = p.read_bytes().split(b"\n")
        lines[tamper - 1] = lines[tamper - 1].replace(b"question number", b"question NUMBER")
        p.write_bytes(b"\n".join(lines))
    return p


@sync
async def test_goto_typed_while_indexing_lands_once_indexed(tmp_path, monkeypatch):
    held = _HeldIndex(monkeypatch)
    app = SealscopeApp([big_ledger(tmp_path)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tab = app.current_tab()
        assert not tab.source.complete and tab.source.line_count < 19000
        tab.rows.focus()
        await goto(pilot, 19000)
        assert tab.rows.current_line != 19000
        assert any("go to line 19,000" in n.message for n in app._notifications)
        held.release()
        await settle(app, pilot)
        assert tab.rows.current_line == 19000


@sync
async def test_end_filter_and_break_keys_while_indexing_are_kept(tmp_path, monkeypatch):
    held = _HeldIndex(monkeypatch)
    app = SealscopeApp([big_ledger(tmp_path, tamper=15000)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tab = app.current_tab()
        assert not tab.source.complete
        tab.rows.focus()
        await pilot.press("end")
        await pilot.pause()
        assert tab.rows.current_line < 15000
        held.release()
        await settle(app, pilot)
        assert tab.rows.current_line == 20000
    held = _HeldIndex(monkeypatch)
    app = SealscopeApp([big_ledger(tmp_path, tamper=15000)])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        tab = app.current_tab()
        tab.rows.focus()
        await pilot.press("b")
        await pilot.pause()
        tab.apply_filter("break")
        await pilot.pause()
        assert tab.rows.view is None and tab.result is None
        held.release()
        await settle(app, pilot)
        assert tab.result.first_break == "line 15000: chain mismatch"
        assert tab.rows.current_line == 15000
        assert list(tab.rows.view) == [15000]


@sync
async def test_a_filter_shows_its_progress(tmp_path, monkeypatch):
    monkeypatch.setattr(source_mod, "_SCAN_STEP", 64 << 10)
    seen: list[tuple[str, float, str]] = []
    real = RowFinder.on_filter_progress

    def spy(finder, m):
        real(finder, m)
        seen.append((m.label, m.pct, str(finder.tab.query_one("#list-status").render())))

    monkeypatch.setattr(RowFinder, "on_filter_progress", spy)
    async with opened([big_ledger(tmp_path)]) as (app, pilot):
        tab = app.current_tab()
        tab.apply_filter("kind:tool")
        await settle(app, pilot)
        assert len(tab.rows.view) == 20000
        assert seen and seen[-1][1] == 100.0
        assert any(
            lbl == "kind:tool" and 0 < pct < 100 and "filtering kind:tool" in status
            for lbl, pct, status in seen
        )
        assert "filtering" not in str(tab.query_one("#list-status").render())


@sync
async def test_an_eleven_row_file_is_eleven_rows():
    async with opened([SAMPLES / "session.jsonl"]) as (app, pilot):
        tab = app.current_tab()
        assert tab.result.rows == 11 and tab.source.line_count == 12
        status = str(tab.query_one("#list-status").render())
        assert "· 11 rows" in status and "12" not in status
        assert tab.rows.count == 11
        tab.rows.focus()
        await pilot.press("end")
        await pilot.pause()
        assert tab.rows.current_line == 11


def test_shown_lines_leave_out_only_the_empty_line_after_a_final_break(tmp_path):
    cases = {b"": 0, b"\n": 1, b"a": 1, b"a\n": 1, b"a\r\n": 1, b"a\r": 1, b"a\n\n": 2, b"a\nb": 2}
    for data, want in cases.items():
        p = tmp_path / "f.jsonl"
        p.write_bytes(data)
        src = LedgerSource(p)
        src.index()
        assert src.shown_lines == want, data
        src.close()
    p = tmp_path / "g.jsonl"
    L.append(p, {"kind": "note"})
    src = LedgerSource(p)
    src.index()
    assert (src.line_count, src.shown_lines) == (2, 1)
    src.close()


@sync
async def test_the_index_waits_for_the_first_rows_drawn_or_briefly_for_a_hidden_tab(
    tmp_path, monkeypatch
):
    """The rows of the first screen come from the quick index; the worker that indexes
    the rest of the file starts once they are drawn (it would share the interpreter with
    that paint), and a tab not in view starts within INDEX_WAIT all the same."""
    from sealscope.viewer import ledger_tab
    from sealscope.viewer.row_list import RowList

    started_at_first_row: dict[str, bool] = {}  # tab id → its index had started
    real = RowList.render_line

    def render_line(rows, y):
        tab = next(a for a in rows.ancestors if isinstance(a, LedgerTab))
        started_at_first_row.setdefault(tab.id or "", tab._index_started)
        return real(rows, y)

    monkeypatch.setattr(RowList, "render_line", render_line)
    first = big_ledger(tmp_path)
    second = tmp_path / "second.jsonl"
    second.write_bytes(first.read_bytes())
    app = SealscopeApp([first, second])
    async with app.run_test(size=SIZE) as pilot:
        shown, hidden = list(app.panes())
        assert app.current_tab() is shown
        await until(pilot, lambda: shown.source.complete and hidden.source.complete)
        assert started_at_first_row == {shown.id: False}
        assert hidden.rows.rendered_rows == 0 and hidden._index_started  # never drawn
        assert ledger_tab.INDEX_WAIT <= 1.0
