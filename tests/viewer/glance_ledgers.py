"""Generated ledgers for the overview strip and the compaction chart: everything at
known lines, byte-for-byte the same on every run (fixed timestamps)."""

from __future__ import annotations

import hashlib
from pathlib import Path

from sealscope.core import receipt
from sealscope.core.jsonio import dumps_row
from sealscope.core.ledger import DECLARE_OP, GENESIS, link

BIG_LINES = 10_000
BIG_BREAKS = (2_500, 7_000)
BIG_DECLARED = 8_000  # broken, then excused by the last row
BIG_RECEIPTS = (1_000, 5_000, 9_000)
BIG_SEALS = (4_000,)


def _ts(i: int) -> str:
    return f"2026-01-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z"


def _receipt(i: int, pre_n: int, drop_n: int) -> dict:
    pre = [f"item {i}-{k} " + "x" * (20 + k) for k in range(pre_n)]
    row = receipt.build_row(pre, pre[drop_n:], "glance-test", "truncate", opened_at=_ts(i))
    row["ts"] = _ts(i)
    return row


def _write(
    path: Path, rows: list[dict], tamper: tuple[int, ...] = (), declare: int | None = None
) -> Path:
    """Chain `rows` (line i is rows[i-1]), tamper the lines in `tamper` (content
    changed, chain kept: each breaks alone), then append a declaration of `declare`."""
    prev = GENESIS
    out = []
    for row in rows:
        row["chain"] = prev = link(prev, row)
        out.append(row)
    for n in tamper:
        out[n - 1]["tampered"] = True
    lines = [dumps_row(r) for r in out]
    if declare is not None:
        d = {
            "op": DECLARE_OP,
            "orphan_line": declare,
            "orphan_sha256": hashlib.sha256(lines[declare - 1].encode()).hexdigest(),
            "why": "the agent crashed mid-write",
            "ts": _ts(len(rows) + 1),
        }
        d["chain"] = link(prev, d)
        lines.append(dumps_row(d))
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def big_ledger(path: Path) -> Path:
    """BIG_LINES lines: breaks at BIG_BREAKS, receipts at BIG_RECEIPTS, a seal row at
    BIG_SEALS, line BIG_DECLARED broken and excused by the last line's declaration."""
    rows: list[dict] = []
    for i in range(1, BIG_LINES):
        if i in BIG_RECEIPTS:
            rows.append(_receipt(i, 6, 2))
        elif i in BIG_SEALS:
            rows.append(
                {
                    "kind": "continuity_snapshot",
                    "label": "mid-run",
                    "manifest_digest": "sha256:" + "ab" * 32,
                    "ts": _ts(i),
                }
            )
        else:
            rows.append({"tool": "search", "args": {"q": f"question {i}"}, "ts": _ts(i)})
    return _write(path, rows, tamper=(*BIG_BREAKS, BIG_DECLARED), declare=BIG_DECLARED)


DROP_RECEIPTS = (3, 6, 9, 12, 15)  # lines
DROP_OUTLIER = 12  # drops 9 of 10 items; the others drop 2 or 3


def planted_drop_ledger(path: Path) -> Path:
    """Five receipts; the one at DROP_OUTLIER drops far more than the others."""
    rows: list[dict] = []
    drops = {3: 2, 6: 3, 9: 2, 12: 9, 15: 3}
    for i in range(1, 17):
        if i in drops:
            rows.append(_receipt(i, 10, drops[i]))
        else:
            rows.append({"tool": "read_file", "args": {"path": f"notes/{i}.md"}, "ts": _ts(i)})
    return _write(path, rows)
