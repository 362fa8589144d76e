"""The compact stores behind the viewer (line offsets as one array, findings as
`FindingIndex`, search hits counted window by window) give what the plain structures
they replaced gave: the same rows, statuses, breaks and search hits, on the samples, on
generated ledgers with breaks, declared breaks, blank, unparseable and CRLF lines, and
on a file that grows while it is open. The references here are written from the rules
(the reference's universal-newline split, a dict of findings where the break wins, a
whole-file byte search per pattern), not from the code under test."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sealscope.core import ledger as L
from sealscope.core.jsonio import dumps_row
from sealscope.viewer import source as source_mod
from sealscope.viewer.app import SealscopeApp
from sealscope.viewer.finding_index import FindingIndex
from sealscope.viewer.follow_mode import FollowMode
from sealscope.viewer.source import LedgerSource, status_of

from tests.viewer.viewer_helpers import SAMPLES, settle, sync, until

SIZE = (120, 36)
NEEDLES = ["kind", "question number 1", "é", "\\", '"step": 7', "zz-absent", "ü", "\r"]


def generated(path: Path, rows: int = 400, crlf: bool = False) -> Path:
    """A chained ledger with every line shape: notes and tool rows (some with a
    non-ASCII text, some written JSON-escaped), blank lines, rows appended by hand
    (declared breaks), a row edited after chaining (the break: the walk stops at its
    first undeclared one), CRLF or lone-CR ends; the samples bring unparseable and
    prechain lines."""
    prev, out = L.GENESIS, []
    for i in range(rows):
        row = (
            {"kind": "note", "step": i, "text": f"question number {i} café"}
            if i % 3
            else {"tool": "fetch", "step": i, "args": {"q": f"ü{i}"}}
        )
        row["chain"] = prev = L.link(prev, row)
        out.append(dumps_row(row) if i % 7 else json.dumps(row))  # json.dumps escapes é
        if i % 50 == 10:
            out.append("")
        if i in (120, 250):
            out.append(json.dumps({"note": f"appended by hand {i}"}))  # no chain
    lines = [x.encode("utf-8") for x in out]
    lines[-7] = lines[-7].replace(b'"step": ', b'"step":  ', 1)  # edited: a mismatch
    ends = [
        b"\r\n" if crlf and i % 2 else b"\r" if crlf and i % 5 == 1 else b"\n"
        for i in range(len(lines))
    ]
    path.write_bytes(b"".join(x + e for x, e in zip(lines, ends, strict=True)))
    for n, t in enumerate(ref_lines(path), 1):
        if "appended by hand" in t:
            L.declare_break(path, n, "rows appended by hand")
    return path


def ref_lines(path: Path) -> list[str]:
    """The reference's split: UTF-8 with replacement, universal newlines, split on LF."""
    text = path.read_bytes().decode("utf-8", "replace")
    return text.replace("\r\n", "\n").replace("\r", "\n").split("\n")


def ref_findings(findings) -> dict[int, tuple[str, str]]:
    """The dict the row list kept before: per line, the break winning over an excusal."""
    out: dict[int, tuple[str, str]] = {}
    for f in findings:
        if f.line not in out or f.kind == "break":
            out[f.line] = (f.kind, f.text)
    return out


def ref_hits(path: Path, needle: str) -> list[int]:
    """Lines where the needle's UTF-8 or JSON-escaped bytes begin, by a plain search of
    the whole file (lines numbered by universal-newline terminators)."""
    data = path.read_bytes()
    starts = [0]
    i = 0
    while i < len(data):
        c = data[i : i + 1]
        if c == b"\n" or (c == b"\r" and data[i + 1 : i + 2] != b"\n"):
            starts.append(i + 1)
        i += 1
    import bisect

    found: set[int] = set()
    for pat in {needle.encode("utf-8", "surrogatepass"), json.dumps(needle)[1:-1].encode()}:
        pos = data.find(pat)
        while pos >= 0:
            found.add(bisect.bisect_right(starts, pos))
            pos = data.find(pat, pos + 1)
    return sorted(found)


def files(tmp_path: Path) -> list[Path]:
    samples = sorted(SAMPLES.glob("*.jsonl")) if SAMPLES.is_dir() else []
    return [
        *samples,
        generated(tmp_path / "gen.jsonl"),
        generated(tmp_path / "crlf.jsonl", crlf=True),
    ]


def test_finding_index_reads_as_the_dict_it_replaced(tmp_path):
    for p in files(tmp_path):
        res = L.verify(p)
        want = ref_findings(res.findings)
        got = FindingIndex(res.findings)
        assert dict(got) == want and list(got) == sorted(want), p.name
        assert dict(got.items()) == want and len(got) == len(want)
        for n in range(0, res.lines + 2):
            assert got.get(n) == want.get(n) and (n in got) == (n in want)
            assert got.kind_of(n) == (want[n][0] if n in want else None)
            assert got.after(n) == next((k for k in sorted(want) if k > n), None)
            assert got.before(n) == next((k for k in sorted(want, reverse=True) if k < n), None)
        assert got.nbytes() == 13 * len(want)
    gen = L.verify(tmp_path / "gen.jsonl")
    assert {k for k, _t in ref_findings(gen.findings).values()} == {"break", "declared"}


def test_finding_index_out_of_order_and_shared_lines():
    class F:
        def __init__(self, line, kind, text):
            self.line, self.kind, self.text = line, kind, text

    fs = [
        F(9, "break", "a"),
        F(4, "declared", "b"),
        F(4, "break", "c"),
        F(4, "declared", "d"),
        F(2, "break", "e"),
        F(2, "break", "f"),
    ]
    assert dict(FindingIndex(fs)) == {2: ("break", "f"), 4: ("break", "c"), 9: ("break", "a")}
    assert list(FindingIndex(fs)) == [2, 4, 9]
    assert dict(FindingIndex([])) == {} and FindingIndex().get(1) is None


@pytest.mark.parametrize("step", [64, 1000, 4 << 20])
def test_rows_and_search_hits_equal_the_plain_reading(tmp_path, monkeypatch, step):
    monkeypatch.setattr(source_mod, "_SCAN_STEP", step)
    for p in files(tmp_path):
        src = LedgerSource(p)
        src.index()
        lines = ref_lines(p)
        assert src.line_count == len(lines), p.name
        assert src.offsets.itemsize == 8
        for n, text in enumerate(lines, 1):
            assert src.row(n).raw == text.strip(), (p.name, n)
        for needle in NEEDLES:
            want = ref_hits(p, needle)
            assert list(src.match_lines(needle)) == want, (p.name, needle)
            stops, at = [], 0
            while (n := src.find_text(needle, at)) is not None and n > at:
                stops.append(n)
                at = n
            assert stops == want, (p.name, needle)
            back, at = [], src.line_count + 1
            while (n := src.find_text(needle, at, backwards=True)) is not None and n < at:
                back.append(n)
                at = n
            assert back == want[::-1], (p.name, needle)
        src.close()


@sync
async def test_the_row_list_shows_the_statuses_and_breaks_of_the_plain_rules(tmp_path):
    for p in files(tmp_path):
        app = SealscopeApp([p])
        async with app.run_test(size=SIZE) as pilot:
            await settle(app, pilot)
            tab = app.current_tab()
            res = L.verify(p)
            want = ref_findings(res.findings)
            assert dict(tab.rows.findings) == want
            for n in range(1, tab.source.shown_lines + 1):
                info = tab.source.row(n)
                f = want.get(n)
                assert tab.rows.status(n) == status_of(
                    info, f[0] if f else None, res.first_chained_line, True
                ), (p.name, n)
            # b, then n until no later break, visits every finding's line in order
            tab.rows.focus()
            seen: list[int] = []
            if want:
                await pilot.press("b")
                await pilot.pause()
                seen.append(tab.rows.current_line)
                for _ in range(len(want)):
                    await pilot.press("n")
                    await pilot.pause()
                    if tab.rows.current_line == seen[-1]:
                        break
                    seen.append(tab.rows.current_line)
            assert seen == sorted(want), p.name
            classes = tab.strip.bin_classes()
            # a finding's bin shows it, or worse (a break beside a declared break)
            worse = {"break": {"break"}, "declared": {"break", "declared"}}
            for m, (k, _t) in want.items():
                cls = classes[tab.strip.model.bin_of(m, len(classes))]
                assert cls in worse[k], (p.name, m)
            assert bool({"break", "declared"} & set(classes)) == bool(want)


def _append(p: Path, rows: int, start: int, tamper: bool = False, crlf: bool = False) -> None:
    prev = L.tail_chain(p)
    out = b""
    for i in range(start, start + rows):
        row = {"kind": "note", "step": i, "text": f"question number {i} é"}
        row["chain"] = prev = L.link(prev, row)
        line = dumps_row(row).encode()
        if tamper and i == start + 1:
            line = line.replace(b"question", b"QUESTION")
        out += line + (b"\r\n" if crlf and i % 2 else b"\n")
    with p.open("ab") as fh:
        fh.write(out)


def test_a_grown_source_equals_one_opened_after(tmp_path):
    p = generated(tmp_path / "grow.jsonl", rows=120, crlf=True)
    src = LedgerSource(p)
    src.index()
    for k, tamper in enumerate((False, True, False)):
        _append(p, 40, 1000 + 100 * k, tamper=tamper, crlf=True)
        offsets, first = src.offsets_to(p.stat().st_size)
        src.grow_to(offsets, first, p.stat().st_size)
        fresh = LedgerSource(p)
        fresh.index()
        assert list(src.offsets) == list(fresh.offsets)
        for n in range(1, fresh.line_count + 1):
            assert src.row(n) == fresh.row(n)
        for needle in NEEDLES:
            assert list(src.match_lines(needle)) == ref_hits(p, needle), needle
        fresh.close()
    src.close()


@sync
async def test_a_followed_file_keeps_statuses_breaks_and_hits_as_reopened(tmp_path, monkeypatch):
    monkeypatch.setattr(FollowMode, "follow_poll", 0.03)
    p = tmp_path / "live.jsonl"
    for i in range(30):
        L.append(p, {"kind": "note", "i": i, "text": f"question number {i}"})
    app = SealscopeApp([p])
    async with app.run_test(size=SIZE) as pilot:
        await settle(app, pilot)
        (tab,) = app.ledger_tabs()
        await until(pilot, lambda: tab.following)
        _append(p, 20, 100, tamper=True)
        lines = len(ref_lines(p))
        await until(
            pilot,
            lambda: (
                tab.source.line_count == lines and tab.result is not None and tab.result.rows == 50
            ),
            "the appended rows never arrived",
        )
        await pilot.pause()
        res = L.verify(p)
        want = ref_findings(res.findings)
        assert want and dict(tab.rows.findings) == want
        for n in range(1, tab.source.shown_lines + 1):
            f = want.get(n)
            assert tab.rows.status(n) == status_of(
                tab.source.row(n), f[0] if f else None, res.first_chained_line, True
            ), n
        assert list(tab.source.match_lines("question number 10")) == ref_hits(
            p, "question number 10"
        )
