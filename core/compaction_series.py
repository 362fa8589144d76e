"""The compaction series of one file: for each compaction, in file order, the sizes it
claims before and after and what it dropped, for the viewer's chart and the export.

Ledger receipts (`receipt_point`): the row's claimed `pre`, `post` and `dropped` sizes,
in bytes and in items (`count`), as the row states them (a value that is not a
non-negative integer is None: nothing is plotted for it), with the row's own
`verify_receipt` verdict: `ok` (False: a failing receipt) and `bounded` (its
`verified_scope` is not "full", as it always is without held content).
A receipt recomputed with held content is part of that receipt's state for every view
(`checked`): its point takes the recomputation's `ok` and scope, so a held-content
FAIL is a failing point in the chart, the strip and the export alike.
harn transcripts (`harn_event_point`): estimated tokens before and after each
compaction (dropped = before - after when both are known; a count harn defaulted
because it was absent is unknown).

The call-out (`outlier`): the point whose dropped share (dropped / pre) is furthest
above the median share of all points with a share; none when no share is above the
median, and none with fewer than three shares (the larger of two is no outlier).
Pure: no I/O beyond what the caller hands in.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from statistics import median
from typing import TYPE_CHECKING, Any

from sealscope.core.receipt import ReceiptCheck, verify_receipt

if TYPE_CHECKING:  # an annotation only: a ledger's series never loads the harn model
    from sealscope.core.harn.model import CompactionEvent

MIN_POINTS = 3  # a median of fewer shares calls nothing out

__all__ = [
    "MIN_POINTS",
    "SeriesPoint",
    "receipt_point",
    "harn_point",
    "harn_event_point",
    "series",
    "outlier",
    "series_dicts",
    "checked",
    "recomputed",
    "scope_checks",
]


@dataclass(frozen=True)
class SeriesPoint:
    """One compaction of the chart. `where` is the ledger line (receipts) or the
    1-based event number (harn); `unit` is "bytes" or "tokens" for the first set of
    sizes; the `*_items` sizes are the receipts' item counts (None for harn)."""

    where: int
    unit: str
    pre: int | None
    post: int | None
    dropped: int | None
    pre_items: int | None = None
    post_items: int | None = None
    dropped_items: int | None = None
    ok: bool = True
    bounded: bool = False
    outlier: bool = False  # furthest above the median dropped share (bytes/tokens)
    outlier_items: bool = False  # the same, on item counts

    def share(self, items: bool = False) -> float | None:
        """dropped / pre, or None when either is unknown or pre is 0."""
        pre, dropped = (self.pre_items, self.dropped_items) if items else (self.pre, self.dropped)
        if pre is None or dropped is None or pre <= 0:
            return None
        return dropped / pre

    def to_dict(self) -> dict[str, Any]:
        """The plotted values, as the export's JSON carries them."""
        key = "line" if self.unit == "bytes" else "event"
        out: dict[str, Any] = {
            key: self.where,
            "unit": self.unit,
            "pre": self.pre,
            "post": self.post,
            "dropped": self.dropped,
            "dropped_share": _round(self.share()),
        }
        if self.unit == "bytes":
            out.update(
                {
                    "pre_items": self.pre_items,
                    "post_items": self.post_items,
                    "dropped_items": self.dropped_items,
                    "dropped_share_items": _round(self.share(True)),
                    "ok": self.ok,
                    "bounded": self.bounded,
                    "outlier_items": self.outlier_items,
                }
            )
        out["outlier"] = self.outlier
        return out


def _round(x: float | None) -> float | None:
    return None if x is None else round(x, 6)


def _count(v: Any) -> int | None:
    """A size: a non-negative int (never a bool), else None."""
    return v if isinstance(v, int) and not isinstance(v, bool) and v >= 0 else None


def _size(d: Any, key: str) -> int | None:
    """A claimed size of a receipt's `pre`/`post`/`dropped` object."""
    return _count(d.get(key)) if isinstance(d, dict) else None


def receipt_point(line: int, row: Any, check: ReceiptCheck | None = None) -> SeriesPoint:
    """A receipt row's claimed sizes; `check` is its `verify_receipt` verdict
    (computed here when not given)."""
    if check is None:
        check = verify_receipt(row)
    r = row if isinstance(row, dict) else {}
    pre, post, dropped = r.get("pre"), r.get("post"), r.get("dropped")
    return SeriesPoint(
        line,
        "bytes",
        _size(pre, "bytes"),
        _size(post, "bytes"),
        _size(dropped, "bytes"),
        _size(pre, "count"),
        _size(post, "count"),
        _size(dropped, "count"),
        ok=bool(check.ok),
        bounded=check.verified_scope != "full",
    )


def harn_point(event: int, before: int | None, after: int | None) -> SeriesPoint:
    """A harn compaction's estimated tokens before and after."""
    b, a = _count(before), _count(after)
    dropped = b - a if b is not None and a is not None and b >= a else None
    return SeriesPoint(event, "tokens", b, a, dropped)


def harn_event_point(event: int, ev: CompactionEvent) -> SeriesPoint:
    """`harn_point` of a read compaction event: a count harn defaulted to 0 because it
    was absent (`ev.defaulted`) is no claim, so it is unknown here."""

    def told(name: str, value: int) -> int | None:
        return None if name in ev.defaulted else value

    return harn_point(
        event,
        told("estimated_tokens_before", ev.estimated_tokens_before),
        told("estimated_tokens_after", ev.estimated_tokens_after),
    )


def outlier(points: Sequence[SeriesPoint], items: bool = False) -> int | None:
    """Index of the point whose dropped share is furthest above the median; None when
    no share is above it or fewer than `MIN_POINTS` have one. The first wins a tie."""
    shares = [(i, s) for i, p in enumerate(points) if (s := p.share(items)) is not None]
    if len(shares) < MIN_POINTS:
        return None
    mid = median(s for _i, s in shares)
    best = max(shares, key=lambda t: (t[1] - mid, -t[0]))
    return best[0] if best[1] > mid else None


def series(points: Iterable[SeriesPoint]) -> list[SeriesPoint]:
    """The points in the order given, with the call-outs marked."""
    pts = list(points)
    o, oi = outlier(pts), outlier(pts, items=True)
    return [replace(p, outlier=i == o, outlier_items=i == oi) for i, p in enumerate(pts)]


def series_dicts(points: Iterable[SeriesPoint]) -> list[dict[str, Any]]:
    """`series(points)` as the export's JSON objects, one per compaction."""
    return [p.to_dict() for p in series(points)]


def _field(obj: Any, key: str) -> Any:
    return obj.get(key) if isinstance(obj, dict) else getattr(obj, key, None)


def recomputed(records: Iterable[Any]) -> dict[int, dict[str, Any]]:
    """The receipts recomputed with held content among session records (or their
    dicts): receipt line → the recomputation's check (`ok`, `verified_scope`); the last
    record of a line wins."""
    out: dict[int, dict[str, Any]] = {}
    for r in records:
        if _field(r, "kind") != "recompute":
            continue
        result = _field(r, "result")
        line = result.get("line") if isinstance(result, dict) else None
        if isinstance(line, int) and not isinstance(line, bool) and "ok" in result:
            out[line] = result
    return out


def checked(points: Iterable[SeriesPoint], records: Iterable[Any]) -> Sequence[SeriesPoint]:
    """The points with every held-content recomputation in `records` applied: a
    recomputed receipt's point is `ok` and `bounded` as the recomputation found it
    (a FAIL is a failing point, a full recomputation is no longer bounded). With no
    recomputation, a sequence of points is given back as it is (not copied)."""
    again = recomputed(records)
    if not again and isinstance(points, Sequence):
        return points
    out = []
    for p in points:
        c = again.get(p.where) if p.unit == "bytes" else None
        out.append(
            p
            if c is None
            else replace(p, ok=bool(c.get("ok")), bounded=c.get("verified_scope") != "full")
        )
    return out


def scope_checks(points: Iterable[SeriesPoint]) -> list[dict[str, Any]]:
    """Receipt points as the checks `verdict.scope_note` reads (`ok`, and a scope that
    is "full" unless bounded)."""
    return [
        {"ok": p.ok, "verified_scope": "bounded" if p.bounded else "full"}
        for p in points
        if p.unit == "bytes"
    ]
