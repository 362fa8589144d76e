"""A small file read once (`fleet._audit_small`): the same entry as the window path.

A regular file of at most `fleet.SMALL_BYTES` is read once through its one open
descriptor, and classified, verified, digested and scanned for receipts and row checks
from those bytes. Each entry here is compared with the one the window path gives the
same file (`SMALL_BYTES` forced below every size: `kinds.identify`, `ledger.verify`
through `/proc/self/fd/N`, `ledger_rows.scan`), on the samples and on generated
ledgers with breaks, declared breaks, CRLF lines and every row check; the line search
with and without its C accelerator; and a file replaced right after the open.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest
from sealscope.core import fleet, verdict
from sealscope.core import lines as _lines
from sealscope.core.checks import ledger_rows
from sealscope.core.ledger import append, declare_break, verify

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


def _window_path(path: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, object]:
    with monkeypatch.context() as m:
        m.setattr(fleet, "SMALL_BYTES", -1)
        return fleet.audit_path(path).to_wire()


def _rows() -> list[dict[str, object]]:
    """Rows of every kind a row check reads, and plain ones around them."""
    receipt = {
        "kind": "compaction_receipt",
        "schema": "arcaeon.compaction_receipt/v1",
        "dropped": 3,
        "kept": 2,
    }
    return [
        {"kind": "note", "text": "first"},
        {"kind": "tool_call", "op": "tool_call", "tool": "fetch", "args": {"q": "x"}},
        {"kind": "tool_call", "op": "tool_call", "args_digest": "00" * 32, "args": {"q": 1}},
        receipt,
        {"kind": "note", "artefact": {"path": "out.txt", "sha256": "ab" * 32}},
        {"kind": "continuity_verify", "verdict_sha256": "cd" * 32, "ok": True},
        {"kind": "distill_receipt", "schema": "arcaeon.distill/v1", "dropped": []},
        {"kind": "note", "text": "an escaped word: compaction\\u005freceipt"},
        {"kind": "note", "text": "tail ü 東京"},
    ]


@pytest.fixture
def generated(tmp_path: Path) -> list[Path]:
    """Honest, broken, declared-break, CRLF and escaped-kind ledgers."""
    honest = tmp_path / "honest.jsonl"
    for i in range(4):
        for row in _rows():
            append(honest, {**row, "i": i})
    text = honest.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    broken = tmp_path / "broken.jsonl"
    broken.write_text("".join(lines[:5] + [lines[5].replace('"i": 0', '"i": 9')] + lines[6:]))
    declared = tmp_path / "declared.jsonl"
    shutil.copy(broken, declared)
    declare_break(declared, 6, "an edited row, declared")
    crlf = tmp_path / "crlf.jsonl"
    crlf.write_bytes(honest.read_bytes().replace(b"\n", b"\r\n"))
    mixed = tmp_path / "mixed.jsonl"
    mixed.write_bytes(
        b"".join(
            ln.encode().replace(b"\n", b"\r\n") if k % 3 else ln.encode()
            for k, ln in enumerate(lines)
        )
    )
    escaped = tmp_path / "escaped.jsonl"
    row = json.dumps({"kind": "compaction\u005freceipt", "dropped": 1}, ensure_ascii=True)
    escaped.write_text(text + row.replace("_", "\\u005f") + "\n", encoding="utf-8")
    unended = tmp_path / "unended.jsonl"
    unended.write_text(text.rstrip("\n"), encoding="utf-8")
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"")
    plain = tmp_path / "plain.jsonl"
    for i in range(50):
        append(plain, {"kind": "note", "i": i})
    return [honest, broken, declared, crlf, mixed, escaped, unended, empty, plain]


def test_generated_ledgers_get_the_window_paths_entry_and_verifys_verdict(
    generated: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    words = set()
    for p in generated:
        small = fleet.audit_path(str(p))
        assert small.to_wire() == _window_path(str(p), monkeypatch), p.name
        res = verify(p, workers=1, digest=True)
        assert (small.result.ok, small.result.breaks, small.result.sha256) == (
            res.ok,
            res.breaks,
            res.sha256,
        ), p.name
        assert small.result.declared == res.declared, p.name
        words.add(small.verdict)
    # the fixture is not all one verdict: breaks, declared breaks and empty files differ
    assert {verdict.VERIFIED, verdict.BROKEN, verdict.COULD_NOT_LOOK} <= words
    honest = fleet.audit_path(str(generated[0]))
    assert honest.receipts.count == 4 and honest.rows_checked  # the row checks ran
    escaped = fleet.audit_path(str(generated[5]))
    assert escaped.receipts.count == honest.receipts.count + 1  # found through `\u`


def test_the_samples_get_the_window_paths_entry(monkeypatch: pytest.MonkeyPatch) -> None:
    paths = sorted(
        p for p in SAMPLES.rglob("*") if p.is_file() and p.suffix in (".jsonl", ".json", ".zip")
    )
    assert len(paths) > 10
    for p in paths:
        assert fleet.audit_path(str(p)).to_wire() == _window_path(str(p), monkeypatch), p


def test_the_line_search_finds_the_same_lines_with_and_without_c(
    generated: list[Path], monkeypatch: pytest.MonkeyPatch
) -> None:
    if _lines._c_marked is None:
        pytest.skip("the C line search is not built here")
    marked = _lines._c_marked
    tokens = ledger_rows.MARKS
    for p in generated:
        data = p.read_bytes().replace(b"\r", b"")
        for final in (False, True):
            with_c = _lines.window_holding(data, final, tokens)
            with monkeypatch.context() as m:
                m.setattr(_lines, "_c_marked", None)
                assert _lines.window_holding(data, final, tokens) == with_c, p.name
        found = bool(marked(data, tokens))
        assert found == (p.name not in ("empty.jsonl", "plain.jsonl")), p.name
    assert marked(b'x\n"artefact"\n\n"artefact"', tokens) == [
        (1, 2, 12),
        (3, 14, 24),
    ]
    with pytest.raises(ValueError):
        marked(b"abc", (b"a\nb",))


def test_every_row_check_line_is_found_as_the_needles_find_it(generated: list[Path]) -> None:
    """The token search (`iter_marked_rows`, every row check's) judges exactly the rows
    the broader needles find, line by line through `ledger.iter_rows`; from the bytes
    and from the file alike."""
    from sealscope.core import ledger

    samples = sorted(p for p in SAMPLES.rglob("*.jsonl") if p.is_file())
    for p in [*generated, *samples]:
        by_needles = ledger_rows._scan_rows(
            ledger.iter_rows(str(p), needles=ledger_rows.NEEDLES), None
        )
        assert ledger_rows.scan_bytes(p.read_bytes()) == by_needles, p.name
        assert ledger_rows.scan(str(p)) == by_needles, p.name


def test_a_small_file_replaced_after_the_open_is_could_not_look(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    led = tmp_path / "L.jsonl"
    shutil.copy(SAMPLES / "session.jsonl", led)
    original = fleet.audit_path(str(led))
    assert original.verdict == verdict.VERIFIED and original.receipts.count
    other = tmp_path / "other.jsonl"
    shutil.copy(SAMPLES / "liar.jsonl", other)
    done: list[int] = []

    def hook(path: str, fd: int) -> None:
        done.append(fd)
        os.replace(other, led)

    monkeypatch.setattr(fleet, "after_open", hook)
    e = fleet.audit_path(str(led))
    assert done, "the hook did not run"
    assert led.read_bytes() == (SAMPLES / "liar.jsonl").read_bytes()  # the swap happened
    # the walk and the receipts are the opened file's; the name holds other bytes now
    assert e.receipts == original.receipts and e.result.rows == original.result.rows
    assert (e.verdict, e.result.unreadable, e.result.sha256) == (verdict.COULD_NOT_LOOK, True, None)
    assert "replaced while it was verified" in (e.result.first_break or "")


def test_a_file_cut_short_after_the_open_is_judged_on_what_was_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    led = tmp_path / "L.jsonl"
    shutil.copy(SAMPLES / "session.jsonl", led)
    cut = len(led.read_bytes()) // 2
    original_rows = verify(led, workers=1).rows

    def hook(path: str, fd: int) -> None:
        os.truncate(path, cut)

    monkeypatch.setattr(fleet, "after_open", hook)
    e = fleet.audit_path(str(led))
    whole = verify(led, workers=1, digest=True)  # the same name, now cut short
    assert e.result.sha256 == whole.sha256 and e.result.rows == whole.rows < original_rows
