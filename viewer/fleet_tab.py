"""FleetTab: a folder of ledgers, one row each, filled in as `core.fleet` audits them.

A thread worker walks the folder (`fleet.walk`: every `*.jsonl`, `.json` and `.zip`
beneath it and each pack / bundle folder as one path; a link out of the folder is not
followed, a COULD NOT LOOK row saying so, as `sealscope fleet`) and runs `fleet.run_local` (the
process pool of `sealscope fleet`); a unit of another kind is one row, its kind beside
its path; paths that are not evidence are no row (counted in the status line);
entries reach the tab as
`FleetEntries` batches, at most one per `BATCH_SECONDS` or `BATCH_ENTRIES`, so
thousands of ledgers do not flood the message queue. The table is Textual's
DataTable, which renders only the rows in view. Rows are worst first
(`fleet.worst_first`, `sealscope fleet`'s order) from the first batch on; `s` steps
the sort column (after the last: arrival order; `S` reverses; clicking a header sorts
by it), `v` steps the verdict filter, and Enter opens the selected ledger in its own
tab at its first break (`OpenAtFirstBreak`, for the app). A row that is not VERIFIED
for want of a look says why in its path cell (`fleet.why_not`: a FIFO, a dangling
link, an empty file, ...); an unreadable file, and a unit of another kind, count no
rows, breaks or receipts (—). The status line counts entries, naming their kinds as
`sealscope fleet`'s count line does (`fleet.count_words`: "3 ledgers, 1 evidence-pack").

The label carries the fleet's verdict mark as every tab does (`EvidenceTab`, the
glyph of `tab_verdict`): … while the audit runs, then `fleet.outcome` of the entries
(✗ when any is broken); `x` writes the folder's report as `sealscope export DIR`
does (`ExportScreen.of_folder`). Verdict words come from `core.verdict`; paths are
shown relative to the folder, through the sanitizer, as `Text`.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rich.text import Text
from sealscope.core import fleet
from sealscope.core import verdict as _verdict
from sealscope.core.fleet import FleetEntry
from sealscope.core.sanitize import clean
from sealscope.viewer import lazy
from sealscope.viewer.commands import PaletteBinding
from sealscope.viewer.evidence_tab import EvidenceTab, tab_title
from sealscope.viewer.messages import FleetDone, FleetEntries, FleetPlanned, OpenAtFirstBreak
from sealscope.viewer.style import verdict_style
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.timer import Timer
from textual.widgets import DataTable, ProgressBar, Static
from textual.worker import get_current_worker

if TYPE_CHECKING:  # the export screen loads with the first export
    from sealscope.viewer.export_action import ExportScreen

__all__ = ["FleetTab", "FleetTable", "COLUMNS", "VERDICT_FILTERS", "BATCH_SECONDS", "BATCH_ENTRIES"]

BATCH_SECONDS = 0.25  # a batch of entries is posted at most this often ...
BATCH_ENTRIES = 256  # ... or as soon as it holds this many
VERDICT_FILTERS = (None, _verdict.BROKEN, _verdict.COULD_NOT_LOOK, _verdict.VERIFIED)
_WORDS = VERDICT_FILTERS[1:]
REBUILD_EVERY = 0.5  # seconds: the sorted table is refilled at most this often


class _Stop(Exception):
    """The tab's worker was cancelled (the tab closed): stop the audit."""


def _size(n: int | None) -> str:
    if n is None:
        return "?"
    if n < 1000:
        return f"{n} B"
    x = float(n)
    for unit in ("kB", "MB", "GB", "TB"):
        x /= 1000
        if x < 1000 or unit == "TB":
            break
    return f"{x:.1f} {unit}"


def _worst_first(entries: list[FleetEntry]) -> list[FleetEntry]:
    """The verdict column's order: `sealscope fleet`'s, the core's one rule."""
    return fleet.worst_first(entries)


# (column label, sort key of an entry, or None: the column's order is a function of
# the whole list); with no sort column the rows arrive in order
COLUMNS: tuple[tuple[str, Callable[[FleetEntry], Any] | None], ...] = (
    ("verdict", None),
    ("rows", lambda e: e.result.rows),
    ("breaks", lambda e: e.result.breaks),
    ("rcpt failed", lambda e: e.receipts.failed),
    ("rcpt bounded", lambda e: e.receipts.bounded),
    ("size", lambda e: e.size if e.size is not None else -1),
    ("path", lambda e: e.path),
)
_DESCENDING = {1, 2, 3, 4, 5}  # counts and sizes sort largest first


class FleetTable(DataTable[Text]):
    """The fleet's DataTable, whose Enter (select the row) the footer names."""

    BINDINGS = [Binding("enter", "select_cursor", "Open at first break")]


class FleetTab(EvidenceTab):
    """The tab of one folder of ledgers (`path`), audited by its worker."""

    DEFAULT_CSS = """
    FleetTab { layout: vertical; padding: 0; }
    FleetTab #fleet-status { height: 1; padding: 0 1; background: $boost; }
    FleetTab #fleet-progress { height: 1; padding: 0 1; }
    FleetTab #fleet-progress Bar { width: 1fr; }
    FleetTab DataTable { height: 1fr; }
    """

    BINDINGS = [
        PaletteBinding(
            "enter",
            "open_ledger",
            "Open at first break",
            show=False,
            title="Open ledger at its first break",
            help="Open the selected ledger in its own tab, at its first break",
        ),
        PaletteBinding(
            "s", "sort", "Sort", title="Sort fleet", help="Sort by the next column (s); S reverses"
        ),
        PaletteBinding(
            "S",
            "reverse",
            "Reverse sort",
            show=False,
            title="Reverse fleet sort",
            help="Reverse the sort order",
        ),
        PaletteBinding(
            "v",
            "verdict_filter",
            "Verdict",
            title="Filter fleet by verdict",
            help="Show only one verdict; again for the next, then all",
        ),
    ]

    kind_name = "fleet"

    order: reactive[tuple[int | None, bool]] = reactive((0, False), init=False)
    """(sort column, reversed); column None: arrival order. From the start: by
    verdict, worst first."""
    verdict_filter: reactive[str | None] = reactive(None, init=False)
    """Only ledgers of this verdict word are shown (None: all)."""

    def __init__(self, root: str | os.PathLike[str], *, id: str) -> None:
        self.root = Path(root)
        self.path = str(root)
        self.tab_name = (self.root.name or self.path) + "/"
        super().__init__(tab_title(self.tab_name, None), id=id)
        self.entries: list[FleetEntry] = []  # every audited ledger, in arrival order
        self.shown: list[FleetEntry] = []  # the table's rows, in order
        self.total: int | None = None  # ledgers found by the walk
        self.total_bytes = 0
        self.left_out = 0  # paths the walk found that are not evidence
        self.set_aside: list[FleetEntry] = []  # those paths (held content can hold a verdict)
        self.done = False
        # the stored verdicts the run holds (`fleet.fleet_context`), handed to the
        # tabs it opens; `artefacts` the app's --artefacts DIR, which the run holds too
        self.held: tuple[str, ...] = ()
        self.artefacts: str | None = None
        self.stopped: str | None = None
        self._cell_cache: dict[int, tuple[Text, ...]] = {}  # id(entry) -> its cells
        self._rebuilt_at = 0.0  # when the sorted table was last refilled
        self._rebuild_due: Timer | None = None

    def compose(self) -> ComposeResult:
        yield Static(id="fleet-status")
        yield ProgressBar(total=None, show_eta=False, id="fleet-progress")
        yield FleetTable(id="fleet-table", cursor_type="row", zebra_stripes=True)

    @property
    def table(self) -> FleetTable:
        return self.query_one(FleetTable)

    def on_mount(self) -> None:
        self._set_columns()
        self._update_status()
        self.artefacts = getattr(self.app, "artefacts", None)
        self.audit_worker()

    # ------------------------------------------------------------------ worker
    @work(thread=True, exclusive=True, group="fleet")
    def audit_worker(self) -> None:
        worker = get_current_worker()
        skipped: list[tuple[str, str]] = []  # links out of the folder, not followed
        sized = list(fleet.walk([str(self.root)], skipped=skipped))
        self.held = fleet.fleet_context(sized, self.artefacts).verdict_files
        total = len(sized) + len(skipped)
        self.post_message(FleetPlanned(total, sum(s or 0 for _p, s in sized)))
        # as `sealscope fleet`: each one a COULD NOT LOOK row saying so
        batch: list[FleetEntry] = [fleet.unreadable_entry(p, why) for p, why in skipped]
        last = time.monotonic()

        def on_entry(entry: FleetEntry) -> None:
            nonlocal batch, last
            if worker.is_cancelled:
                raise _Stop
            batch.append(entry)
            now = time.monotonic()
            if len(batch) >= BATCH_ENTRIES or now - last >= BATCH_SECONDS:
                self.post_message(FleetEntries(batch))
                batch, last = [], now

        why: str | None = None
        try:
            fleet.run_local(sized, on_entry=on_entry, artefacts=self.artefacts)
        except _Stop:
            return
        except Exception as e:  # noqa: BLE001 - a pool failure ends the run, not the app
            why = f"{type(e).__name__}: {e}"
        if batch:
            self.post_message(FleetEntries(batch))
        self.post_message(FleetDone(why))

    def on_fleet_planned(self, m: FleetPlanned) -> None:
        m.stop()
        self.set_total(m.total, m.bytes)

    def on_fleet_entries(self, m: FleetEntries) -> None:
        m.stop()
        self.add_entries(m.entries)

    def on_fleet_done(self, m: FleetDone) -> None:
        m.stop()
        self.finish(m.why)

    # ------------------------------------------------------------------ state
    def set_total(self, total: int, total_bytes: int = 0) -> None:
        """The walk found `total` ledgers (`total_bytes` in all)."""
        self.total, self.total_bytes = total, total_bytes
        self.query_one(ProgressBar).update(total=max(total, 1), progress=len(self.entries))
        self._update_status()

    def add_entries(self, entries: Sequence[FleetEntry]) -> None:
        """Take audited ledgers: appended to the table in arrival order, or the table
        re-sorted when a sort column is set."""
        left = sum(not e.evidence for e in entries)
        if left:  # listed by the walk, but not evidence: not a row, out of the total
            self.left_out += left
            self.set_aside.extend(e for e in entries if not e.evidence)
            entries = [e for e in entries if e.evidence]
            if self.total is not None:
                self.total = max(self.total - left, 0)
                self.query_one(ProgressBar).update(total=max(self.total, 1))
        self.entries.extend(entries)
        if self.total is not None:
            self.query_one(ProgressBar).update(progress=len(self.entries))
        if self.order[0] is None:
            new = [e for e in entries if self._passes(e)]
            self.shown.extend(new)
            self.table.add_rows([self._cells(e) for e in new])
        else:
            self._rebuild_soon()
        self._update_status()

    def _rebuild_soon(self) -> None:
        """Refill the sorted table now, or once more within `REBUILD_EVERY` when it was
        just refilled: a fleet of thousands arrives in many batches, and refilling the
        whole table for each would cost the square of its size."""
        if self._rebuild_due is not None:
            return
        wait = self._rebuilt_at + REBUILD_EVERY - time.monotonic()
        if wait <= 0:
            self._rebuild()
        else:
            self._rebuild_due = self.set_timer(wait, self._rebuild)

    def finish(self, why: str | None = None) -> None:
        """The audit ended; `why` says why it stopped early."""
        self.done, self.stopped = True, why
        if self._rebuild_due is not None:  # the last batches are shown at once
            self._rebuild()
        self.query_one(ProgressBar).display = False
        self._update_status()
        self.judge()

    def selected_entry(self) -> FleetEntry | None:
        row = self.table.cursor_row
        return self.shown[row] if 0 <= row < len(self.shown) else None

    # ------------------------------------------------------------------ rendering
    def _passes(self, e: FleetEntry) -> bool:
        return self.verdict_filter is None or e.verdict == self.verdict_filter

    def _rel(self, path: str) -> str:
        rel = os.path.relpath(path, self.root)
        return path if rel.startswith("..") else rel

    def _cells(self, e: FleetEntry) -> tuple[Text, ...]:
        got = self._cell_cache.get(id(e))  # entries live in `entries`: ids stay theirs
        if got is None:
            got = self._cell_cache[id(e)] = self._cells_of(e)
        return got

    def _cells_of(self, e: FleetEntry) -> tuple[Text, ...]:
        r, res = e.receipts, e.result
        path = Text(
            clean(self._rel(e.path) + ("" if e.check is None else f"  [{e.check.kind}]")),
            no_wrap=True,
        )
        if e.exit_code == _verdict.COULD_NOT:  # why, without opening it
            why = fleet.why_not(e)
            if why:
                path.append("  — " + clean(why), "yellow")
        # an unreadable file was never walked, a unit of another kind is no one chain
        counted = not res.unreadable and e.check is None
        return (
            Text(f" {e.verdict} ", verdict_style(e.verdict) + " reverse"),
            Text(f"{res.rows:,}" if counted else "—", justify="right"),
            Text(
                str(res.breaks) if counted else "—",
                "bold red" if res.breaks and counted else "",
                justify="right",
            ),
            Text(
                str(r.failed) if counted else "—", "bold red" if r.failed else "", justify="right"
            ),
            Text(
                str(r.bounded) if counted else "—", "yellow" if r.bounded else "", justify="right"
            ),
            Text(_size(e.size), justify="right"),
            path,
        )

    def _set_columns(self) -> None:
        column, rev = self.order
        t = self.table
        t.clear(columns=True)
        for i, (label, _key) in enumerate(COLUMNS):
            mark = (" ▲" if rev else " ▼") if i == column else ""
            t.add_column(Text(label + mark, "bold"), key=str(i))

    def _rebuild(self) -> None:
        """Refill the table from `entries` under the sort and the filter, keeping the
        selected ledger selected."""
        if self._rebuild_due is not None:
            self._rebuild_due.stop()
            self._rebuild_due = None
        self._rebuilt_at = time.monotonic()
        keep = self.selected_entry()
        rows = [e for e in self.entries if self._passes(e)]
        column, rev = self.order
        key = COLUMNS[column][1] if column is not None else None
        if column is not None and key is None:
            rows = _worst_first(rows)[::-1] if rev else _worst_first(rows)
        elif key is not None:
            rows.sort(key=key, reverse=rev != (column in _DESCENDING))
        self.shown = rows
        t = self.table
        t.clear()
        t.add_rows([self._cells(e) for e in rows])
        at = next((i for i, e in enumerate(rows) if e is keep), None)
        if at is not None:
            t.move_cursor(row=at, animate=False)

    def _update_status(self) -> None:
        t = Text(no_wrap=True, end="")
        t.append(clean(self.path), "bold")
        counts = dict.fromkeys(_WORDS, 0)
        done_bytes = 0
        for e in self.entries:
            counts[e.verdict] = counts.get(e.verdict, 0) + 1
            done_bytes += e.size or 0
        total = "?" if self.total is None else f"{self.total:,}"
        # entries, not "ledgers": units of other kinds are counted too, named as the
        # CLI's count line names them (`fleet.count_words`)
        t.append(f" · {len(self.entries):,}/{total} entries")
        if self.entries:
            t.append(": " + fleet.count_words(fleet.summarize(self.entries, 0.0)))
        held = fleet.held_back(self.set_aside)
        if self.left_out > held:
            t.append(f" · {self.left_out - held:,} not evidence", "dim")
        if held:  # not evidence either, but they keep the run from ending green
            t.append(" · ")
            t.append(fleet.held_back_note(held, short=True), verdict_style(_verdict.COULD_NOT_LOOK))
        if self.total_bytes and not self.done:
            t.append(f" · {_size(done_bytes)} of {_size(self.total_bytes)}")
        t.append(" · ")
        for w, n in counts.items():
            t.append(f"{n:,} {w.lower()}", verdict_style(w) if n else "dim")
            t.append("  ")
        column, rev = self.order
        if self.verdict_filter is not None:
            t.append(f"· showing {self.verdict_filter} ", "italic")
        if column == 0:
            t.append("· best first " if rev else "· worst first ", "italic")
        elif column is not None:
            t.append(f"· sorted by {COLUMNS[column][0]}{' (reversed)' if rev else ''} ", "italic")
        else:
            t.append("· in arrival order ", "italic")
        if self.stopped is not None:
            t.append("· stopped: " + clean(self.stopped), "bold yellow")
        elif not self.done:
            t.append("· auditing…", "italic")
        self.query_one("#fleet-status", Static).update(t)

    def watch_order(self) -> None:
        self._set_columns()
        self._rebuild()
        self._update_status()

    def watch_verdict_filter(self) -> None:
        self._rebuild()
        self._update_status()

    # ------------------------------------------------------------------ actions
    def action_sort(self) -> None:
        """The next sort column (after the last: arrival order again)."""
        column, rev = self.order
        nxt = 0 if column is None else (None if column + 1 >= len(COLUMNS) else column + 1)
        self.order = (nxt, rev)

    def action_reverse(self) -> None:
        column, rev = self.order
        self.order = (0 if column is None else column, not rev)

    def on_data_table_header_selected(self, event: DataTable.HeaderSelected) -> None:
        event.stop()
        column = int(str(event.column_key.value))
        cur, rev = self.order
        self.order = (column, not rev if column == cur else False)

    def action_verdict_filter(self) -> None:
        i = VERDICT_FILTERS.index(self.verdict_filter)
        self.verdict_filter = VERDICT_FILTERS[(i + 1) % len(VERDICT_FILTERS)]

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        self.action_open_ledger()

    def action_open_ledger(self) -> None:
        entry = self.selected_entry()
        if entry is not None:
            self.post_message(OpenAtFirstBreak(entry.path, self.held))

    # ------------------------------------------------------------------ EvidenceTab
    def focus_default(self) -> None:
        self.table.focus()

    def reading(self) -> str:
        """Done once the audit ended ("error" when it stopped early); until then the
        fleet's verdict is still to come."""
        if not self.done:
            return "reading"
        return "done" if self.stopped is None else "error"

    def own_outcome(self) -> _verdict.Outcome | None:
        return fleet.outcome([*self.entries, *self.set_aside]) if self.done else None

    def export_screen(self) -> ExportScreen:
        """The folder's report, as `sealscope export DIR` writes it."""
        return lazy.ExportScreen.of_folder(self.path)
