"""Which rows a filter keeps: the rule behind the viewer's `f` (a frontend asks, never decides).

A filter is one of:

* a status (`rows.STATUSES`): the rows of that status;
* `kind:NAME` (or `kind=NAME`): the rows whose kind (`rows.row_kind`) is NAME, exactly;
* a bare word that is no status: the kinds present in the file equal to it, else
  those holding it (case-insensitive): `receipt` keeps the `compaction_receipt` rows.
  A word no kind present holds is refused, naming the kinds there are;
* `ts:FROM..TO`: the rows whose `ts` falls in the span. Each bound is an ISO-8601
  prefix (`2026`, `2026-03`, `2026-03-01`, `2026-03-01T09`, `2026-03-01T09:00`,
  `…T09:00:05`, `…T09:00:05.250`, optionally ending `Z` or `+HH:MM`) and stands for the
  whole unit it names, so `FROM..TO` runs from the start of FROM to the end of TO, both
  included: `ts:2026-03-01T09:00..09:01` is 09:00:00 to 09:01:59.999999. A TO with no
  date (`09:01`) takes FROM's date; either bound may be left out (`ts:..09:01` needs a
  date then); `ts:WHEN` alone is the unit WHEN names. A bound without a zone is UTC, as
  a row's `ts` without one is. A row with no `ts`, or one that is not an ISO-8601 time,
  is not in any span.

`parse_filter` reads the text into a `RowFilter` or a one-line reason it is refused;
`RowFilter.keeps_ts` and `RowFilter.kinds` are what a frontend applies to its rows.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from sealscope.core.rows import STATUSES
from sealscope.core.sanitize import clean

__all__ = ["RowFilter", "parse_filter", "time_span", "parse_ts", "FILTER_HELP"]

FILTER_HELP = (
    "a status, a kind (kind:NAME, or a word a kind holds: receipt), "
    "or ts:FROM..TO (ISO prefixes, both ends included: ts:2026-03-01T09:00..09:01)"
)
"""The filter syntax in one line, for a prompt and the key help."""

_PREFIX = re.compile(
    r"^(?P<y>\d{4})(?:-(?P<mo>\d{2})(?:-(?P<d>\d{2})"
    r"(?:[T ](?P<h>\d{2})(?::(?P<mi>\d{2})(?::(?P<s>\d{2})(?:\.(?P<f>\d{1,9}))?)?)?)?)?)?"
    r"(?P<z>Z|[+-]\d{2}:?\d{2})?$"
)
_TIME_ONLY = re.compile(r"^\d{2}(?::\d{2}(?::\d{2}(?:\.\d{1,6})?)?)?(?:Z|[+-]\d{2}:?\d{2})?$")


@dataclass(frozen=True)
class RowFilter:
    """A filter read: `what` is "status", "kind" or "ts"; `status` the status kept,
    `kinds` the row kinds kept, `start`/`end` the span kept ([start, end), None: open);
    `label` what it is called on screen."""

    what: str
    label: str
    status: str = ""
    kinds: tuple[str, ...] = ()
    start: datetime | None = None
    end: datetime | None = None

    def keeps_ts(self, ts: object) -> bool:
        """A row whose `ts` is `ts` is in this filter's span."""
        when = parse_ts(ts)
        if when is None:
            return False
        return (self.start is None or when >= self.start) and (self.end is None or when < self.end)


def _zone(z: str | None) -> timezone:
    if not z or z == "Z":
        return timezone.utc
    sign = -1 if z[0] == "-" else 1
    digits = z[1:].replace(":", "")
    return timezone(sign * timedelta(hours=int(digits[:2]), minutes=int(digits[2:])))


def time_span(text: str) -> tuple[datetime, datetime] | None:
    """The span an ISO-8601 prefix names: [its start, the start of the next unit).
    None when `text` is not such a prefix (or names no real date)."""
    m = _PREFIX.match(text.strip())
    if m is None:
        return None
    g = m.groupdict()
    frac = (g["f"] or "")[:6]  # a time finer than a microsecond is cut to one
    tz = _zone(g["z"])
    try:
        start = datetime(
            int(g["y"]),
            int(g["mo"] or 1),
            int(g["d"] or 1),
            int(g["h"] or 0),
            int(g["mi"] or 0),
            int(g["s"] or 0),
            int(frac.ljust(6, "0")),
            tzinfo=tz,
        )
    except ValueError:
        return None
    if frac:
        end = start + timedelta(microseconds=10 ** (6 - len(frac)))
    elif g["s"]:
        end = start + timedelta(seconds=1)
    elif g["mi"]:
        end = start + timedelta(minutes=1)
    elif g["h"]:
        end = start + timedelta(hours=1)
    elif g["d"]:
        end = start + timedelta(days=1)
    elif g["mo"]:
        end = start.replace(year=start.year + start.month // 12, month=start.month % 12 + 1)
    else:
        end = start.replace(year=start.year + 1)
    return start, end


def parse_ts(value: object) -> datetime | None:
    """A row's `ts` as an aware time (UTC when it names no zone); None when it is not
    an ISO-8601 time."""
    if not isinstance(value, str) or not value:
        return None
    span = time_span(value)
    return span[0] if span is not None else None


def _ts_filter(body: str) -> RowFilter | str:
    lo_text, sep, hi_text = body.partition("..")
    lo_text, hi_text = lo_text.strip(), hi_text.strip()
    if not sep:
        hi_text = lo_text
    if not lo_text and not hi_text:
        return "ts: needs a time: ts:FROM..TO, e.g. ts:2026-03-01T09:00..09:01"
    start = end = None
    if lo_text:
        lo = time_span(lo_text)
        if lo is None:
            return f"ts: {clean(lo_text)} is not an ISO-8601 time (2026-03-01T09:00)"
        start = lo[0]
    if hi_text:
        if _TIME_ONLY.match(hi_text) and lo_text:
            hi_text = lo_text[:10] + "T" + hi_text
        hi = time_span(hi_text)
        if hi is None:
            return f"ts: {clean(hi_text)} is not an ISO-8601 time (2026-03-01T09:01)"
        end = hi[1]
    if start is not None and end is not None and end <= start:
        return "ts: the span ends before it starts"
    return RowFilter("ts", "ts:" + clean(body.strip()), start=start, end=end)


def parse_filter(spec: str, kinds_present: Callable[[], Iterable[str]]) -> RowFilter | str:
    """`spec` read as a filter (see the module), the file holding rows of the kinds
    `kinds_present()` gives (asked only for a bare word): the filter, or why it is
    refused (one line, naming the kinds present when a word matched none)."""
    text = spec.strip()
    if text in STATUSES:
        return RowFilter("status", text, status=text)
    low = text.lower()
    if low.startswith(("kind:", "kind=")):
        name = text[5:].strip()
        return RowFilter("kind", "kind:" + clean(name), kinds=(name,))
    if low.startswith(("ts:", "ts=")):
        return _ts_filter(text[3:])
    present = sorted({k for k in kinds_present() if k})
    exact = [k for k in present if k.lower() == low]
    holding = exact or [k for k in present if low and low in k.lower()]
    if holding:
        return RowFilter(
            "kind", "kind:" + "|".join(clean(k) for k in holding), kinds=tuple(holding)
        )
    kinds = ", ".join(clean(k) for k in present) if present else "none"
    return (
        f"unknown filter: {clean(text)} — statuses: {', '.join(STATUSES)}; "
        f"kinds in this file: {kinds}; or ts:FROM..TO"
    )
