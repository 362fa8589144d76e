"""Every message the viewer's widgets post, as small dataclasses in one module.

A message names what happened, not who it happened to: a worker posts to its own tab
and the tab's handler reads it there, so no message carries its tab to be compared.
Progress messages `can_replace` an older one of their kind still queued, so a flood
of progress coalesces into the latest figure.
"""

from __future__ import annotations

from array import array
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.message import Message

if TYPE_CHECKING:  # the fields' types (dataclasses read annotations as text)
    from collections.abc import Mapping, Sequence

    from sealscope.core.export import SessionRecord
    from sealscope.core.fleet import FleetEntry
    from sealscope.core.ledger import VerifyResult
    from sealscope.core.receipt_points import PointColumns
    from sealscope.viewer.ledger_tab import LedgerTab

__all__ = [
    "IndexProgress",
    "Indexed",
    "VerifyProgress",
    "Verified",
    "VerifyStopped",
    "FilterProgress",
    "Filtered",
    "RowSelected",
    "JumpToLedgerRow",
    "JumpToSeal",
    "LookUp",
    "RestatementScored",
    "Followed",
    "Marked",
    "ViewportMoved",
    "StripJump",
    "StripLeft",
    "FleetPlanned",
    "FleetEntries",
    "FleetDone",
    "OpenAtFirstBreak",
    "CheckDone",
    "SessionAdded",
    "SearchCounted",
    "ExportProgress",
]


@dataclass
class IndexProgress(Message):
    """The line index of a ledger has reached `pct` percent of the file (`done`
    bytes)."""

    pct: float
    done: int = 0

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, IndexProgress)


@dataclass
class Indexed(Message):
    """The line index of a ledger is complete."""


@dataclass
class VerifyProgress(Message):
    """The verification of a ledger has reached `pct` percent of its rows; `done`:
    the bytes verified so far (every line ending before it is verified)."""

    pct: float
    done: int = 0

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, VerifyProgress)


@dataclass
class Verified(Message):
    """The verification finished with `result`; `snapshot` (a `Follower.snapshot()`)
    when the tab may follow the file from there."""

    result: VerifyResult
    snapshot: dict[str, Any] | None = None


@dataclass
class VerifyStopped(Message):
    """The verification did not finish (cancelled or failed): `why`, in words."""

    why: str


@dataclass
class FilterProgress(Message):
    """A filter (`label`) has read `pct` percent of the file."""

    label: str
    pct: float

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, FilterProgress)


@dataclass
class Filtered(Message):
    """A filter's matching lines (`view`; None shows every line), labelled `label`."""

    view: array | None
    label: str


@dataclass
class RowSelected(Message):
    """The row list's cursor moved to `line`; `nav` when a navigation key (up, down,
    page, home, end) moved it, so the detail pane may coalesce a run of them."""

    line: int
    nav: bool = False


@dataclass
class SearchCounted(Message):
    """Every line a search for `needle` stops on, in order, counted over `line_count`
    lines."""

    needle: str
    line_count: int
    lines: array


@dataclass
class JumpToLedgerRow(Message):
    """Show line `line` of the open ledger at `path` (a seal's sealing row)."""

    path: str
    line: int


@dataclass
class JumpToSeal(Message):
    """Show the open seal that this `continuity_snapshot` row sealed."""

    row: dict[str, Any]


@dataclass
class LookUp(Message):
    """Open the look-up screen, with the items of held content at `path` loaded and
    `origin` the ledger tab the look-up began from."""

    path: Path | None = None
    origin: LedgerTab | None = None


@dataclass
class RestatementScored(Message):
    """A restatement was scored against a seal; `record` went into its session."""

    record: SessionRecord


@dataclass
class Followed(Message):
    """A poll of a followed ledger saw something: `result` is the verdict of its
    complete lines now; `offsets`/`first` the grown line index
    (`LedgerSource.offsets_to`) up to byte `cut`, or None; `added` rows appended;
    `alarm` (kind, text) when the file was truncated, replaced or rewritten; `events`
    the new findings and receipts."""

    result: VerifyResult
    added: int = 0
    offsets: array | None = None
    first: int = 0
    cut: int = 0
    alarm: tuple[str, str] | None = None
    events: tuple[Any, ...] = ()


@dataclass
class Marked(Message):
    """Receipt and seal rows of the ledger were found (all of them, or those of rows
    a followed file appended): `receipts` maps a receipt's line to whether its own
    check holds, `seals` lists the seal rows' lines, `points` are the receipts'
    `compaction_series` points in file order."""

    receipts: Mapping[int, bool]
    seals: Sequence[int]
    points: PointColumns


@dataclass
class ViewportMoved(Message):
    """The row list scrolled: the overview strip's viewport mark moves."""


@dataclass
class StripJump(Message):
    """A cell of the overview strip was chosen: show line `line`; `stay` keeps the
    keyboard on the strip (a bin-by-bin step)."""

    line: int
    stay: bool = False


@dataclass
class StripLeft(Message):
    """The overview strip gave up the keyboard (escape)."""


@dataclass
class FleetPlanned(Message):
    """A fleet's walk found `total` ledgers (`bytes` in all) to audit."""

    total: int
    bytes: int = 0


@dataclass
class FleetEntries(Message):
    """Audited ledgers of a fleet, in arrival order: a batch (the worker posts at most a
    few a second), so thousands of ledgers do not flood the queue. Never replaced."""

    entries: list[FleetEntry]


@dataclass
class FleetDone(Message):
    """The fleet audit ended; `why` says why it stopped early (None: it finished)."""

    why: str | None = None


@dataclass
class OpenAtFirstBreak(Message):
    """Open the ledger at `path` in its own tab (or show it) and select its first break
    once it is verified; `held` the stored verdicts of the run it comes from (a
    fleet's), which join the app's run."""

    path: str
    held: tuple[str, ...] = ()


@dataclass
class CheckDone(Message):
    """A check run in a worker finished: `record` goes into the tab's state under
    `key` (replacing the same check run before)."""

    record: SessionRecord
    key: Any = None


@dataclass
class SessionAdded(Message):
    """A check joined a tab's session (`EvidenceTab.add_session`): what an open case
    records (it bubbles to the app); `tab` is the tab it joined."""

    record: SessionRecord
    key: Any = None
    tab: Any = None


@dataclass
class ExportProgress(Message):
    """An export has read `pct` percent of what its report reads."""

    pct: float

    def can_replace(self, message: Message) -> bool:
        return isinstance(message, ExportProgress)
