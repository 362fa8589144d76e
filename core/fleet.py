"""Fleet audits: many ledgers, each verified and its receipts checked, one entry each.

A fleet entry is the `verify` verdict of one ledger plus a summary of its compaction
receipts (how many, how many fail, how many hold only within a bound) and its other row
checks (`rows_checked`, KINDS.md §11.2: continuity_verify rows, artefact bindings,
distill and call rows, as `check` reports them with what the run holds); its word and exit
code come from `verdict.ledger`, as `check`, `export` and a viewer tab judge the ledger
(a chain that holds with a receipt that fails is BROKEN 1, with a continuity_verify row
no held verdict matches COULD NOT LOOK 3).

**What a fleet holds** (`fleet_context`): a fleet joins what `check` joins. Its run is
every local file it found, so every one the classifier calls a stored continuity
verdict is held for the `continuity_verify` rows of every ledger of the run, as
`check LEDGER VERDICT.json` holds it (KINDS.md §5.3), and `artefacts` (`fleet
--artefacts DIR`, check's flag) is the folder of held artefacts and verdicts. The
context travels with each batch (`audit_batch`), so every executor judges alike.

Many ledgers run through `fleet_run`, the one planner and runner (small files in
batches, a large file alone, split across processes by `ledger.verify`, the serial
fallback): `run_local` on the local process pool. `audit_batch` is a pure function of
paths, so any executor runs it: the local pool, or a Dask cluster (the CLI's adapter)
whose workers fetch remote files themselves.

**Kinds** (`audit_path`): the classifier (`kinds.identify`) decides what a found path
is, not its name. A ledger is audited as above. Any other evidence kind (a receipt,
a harn file, an evidence pack or audit bundle, folder or zip, an AAT export, ...) is
ONE entry carrying its own check (`checks.check_path`, a `KindCheck`: its kind, word,
exit code and bound); the members of a pack or bundle folder are not walked again.
The fleet has no classification of its own (KINDS.md §1, as `check`): a file the
classifier calls a ledger (every `.jsonl` file, whatever its rows hold: a witness
store, rows that lost their `chain`) is audited as a ledger, with the word `check`
gives it. A path that is no evidence kind is a *not-evidence* entry: listed with
why by the frontends, never judged, no part of the exit code, except that a run in
which nothing was judged is COULD NOT LOOK (nothing looked at is not a pass).

**One open file**: a ledger entry's verdict, digest and receipt rows are all read
through the one descriptor `audit_file` opens (`lines.open_regular`; the walk and
the receipt scan reach it as `/proc/self/fd/N`, the same file whatever its name now
names), and the verdict is then bound to the name (`ledger.bound_to_file`): a file
replaced after the open is COULD NOT LOOK, and its receipts are the opened file's.
"""

from __future__ import annotations

import os
import stat as _stat
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from sealscope.core import fleet_run
from sealscope.core import kinds as _kinds
from sealscope.core import lines as _lines
from sealscope.core import verdict as _verdict
from sealscope.core.checks.result import CheckContext
from sealscope.core.fleet_entry import (
    FleetEntry,
    ReceiptRow,
    ReceiptSummary,
    not_evidence_entry,
    receipt_summary,
    unreadable_entry,
)
from sealscope.core.fleet_run import BATCH_BYTES, BATCH_FILES, LARGE_BYTES, plan_batches
from sealscope.core.fleet_walk import walk
from sealscope.core.ledger import VerifyResult, bound_to_file, verify_bytes
from sealscope.core.ledger import verify as _verify

if TYPE_CHECKING:
    from sealscope.core.checks import ledger_rows as _ledger_rows

__all__ = [
    "ReceiptRow",
    "ReceiptSummary",
    "FleetEntry",
    "FleetSummary",
    "audit_file",
    "fleet_context",
    "audit_batch",
    "audit_path",
    "unreadable_entry",
    "not_evidence_entry",
    "plan_batches",
    "walk",
    "worst_first",
    "not_evidence",
    "after_open",
    "worst_first_key",
    "summarize",
    "count_words",
    "outcome",
    "why_not",
    "run_local",
    "iter_local",
    "LARGE_BYTES",
    "BATCH_BYTES",
    "BATCH_FILES",
]


# Called as `after_open(path, fd)` once `audit_file` holds the ledger open, before a
# byte is read: tests install it to replace the file under its name at that moment.
after_open: Callable[[str, int], None] | None = None


def _fd_path(fd: int) -> str | None:
    """A name that opens the file open on `fd` whatever its path now names."""
    via = f"/proc/self/fd/{fd}"
    return via if os.path.exists(via) else None


def audit_file(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    display: str | None = None,
    workers: int | None = 1,
    incremental: bool = False,
    ctx: CheckContext | None = None,
    digest: bool = True,
) -> FleetEntry:
    """Verify one local ledger and summarise its receipts, every byte through the
    one descriptor opened here (module docstring: one open file). Never raises for
    any file content; an unreadable file is a could-not-look entry. `digest` False:
    the entry carries no SHA-256 (only a VSA names files by it). `display` is the
    path the entry reports (a URL for a fetched remote object). `incremental`
    resumes from and updates the ledger's checkpoint in the user's cache
    (`checkpoint`, keyed by the real path `/proc/self/fd/N` resolves to), so a
    re-audit walks only what was appended. `ctx`: what the run holds (module
    docstring; None: nothing)."""
    name = display if display is not None else os.fspath(path)
    p = os.fspath(path)
    try:
        fh = _lines.open_regular(p)
    except OSError as e:  # judged as `verify` judges a file it cannot open
        return unreadable_entry(name, str(e), _unit_size(p))
    with fh:
        fd = fh.fileno()
        size: int | None = os.fstat(fd).st_size
        if after_open is not None:
            after_open(p, fd)
        via = _fd_path(fd)
        where = via or p  # without /proc: the name, bound to `fd` below
        if incremental:  # keyed by the real path, which `via` resolves to
            from sealscope.core.checkpoint import verify_incremental

            res = verify_incremental(where, strict=strict, workers=workers, digest=digest).result
        else:  # the digest of the bytes walked, for a VSA subject (no second read)
            res = _verify(where, strict=strict, workers=workers, digest=digest)
        try:
            got = _scan(where, ctx) if not res.unreadable else None
            receipts = ReceiptSummary() if got is None else receipt_summary(got.receipts)
            rows = () if got is None else got.checks
        except OSError as e:  # vanished between the walk and the scan
            return unreadable_entry(name, str(e), size)
        return FleetEntry(name, bound_to_file(res, p, fd), receipts, size, None, rows)


# A regular file of at most this many bytes is read once, whole, through its one open
# descriptor, and classified, verified, digested and scanned from those bytes
# (`_audit_small`); a larger one is walked window by window (`audit_file`).
SMALL_BYTES = _lines.WINDOW


def _read_all(fd: int, size: int) -> bytes:
    """The `size` bytes of the file open on `fd`, as `lines.FileSource` reads them
    (short reads continued; fewer bytes when the file ends sooner)."""
    out = os.pread(fd, size, 0) if size else b""
    while len(out) < size:
        more = os.pread(fd, size - len(out), len(out))
        if not more:
            break
        out += more
    return out


def _audit_small(
    p: str, *, strict: bool, ctx: CheckContext | None, digest: bool = True
) -> FleetEntry | None:
    """`audit_path` of a small regular file with every byte read once (module
    docstring: one open file): the open, then `after_open`, then one read; the kind
    (`kinds.identify_data`), the chain (`ledger.verify_bytes`, digest included), the
    first row and the receipt scan (`ledger_rows.scan_bytes`) all from those bytes,
    the verdict then bound to the name (`ledger.bound_to_file`). `digest` False: no
    SHA-256 of the bytes (no VSA names them). None when the file is no longer small
    once open (the caller walks it by windows). Never raises."""
    try:
        fh = _lines.open_regular(p)
    except OSError as e:
        return unreadable_entry(p, str(e), _unit_size(p))
    with fh:
        fd = fh.fileno()
        size = os.fstat(fd).st_size
        if size > SMALL_BYTES:
            return None
        if after_open is not None:
            after_open(p, fd)
        try:
            data = _read_all(fd, size)
        except OSError as e:
            return unreadable_entry(p, str(e), size)
        found = _unnamed(_kinds.identify_data(p, data), len(data))
        if found.kind != _kinds.LEDGER:
            return _other_kind(found, size, ctx)
        res = verify_bytes(data, strict=strict, digest=digest)
        from sealscope.core.checks import ledger_rows

        try:
            got = ledger_rows.scan_bytes(data, ctx)
        except ValueError:
            got = ledger_rows.LedgerScan()
        receipts = receipt_summary(got.receipts)
        return FleetEntry(p, bound_to_file(res, p, fd), receipts, size, None, got.checks)


# a file named so is audited as the classifier calls it, an empty one too
LEDGER_NAMES = (".jsonl", ".json")


def _unnamed(found: _kinds.Identified, size: int) -> _kinds.Identified:
    """`found`, unless it is an empty file not named `*.jsonl` / `*.json` (a lock file
    beside a ledger): the classifier calls it a ledger (KINDS.md §1 row 11) that could
    not be looked at, and the fleet lists it, with why, instead of judging it. Any
    other file is audited as the classifier calls it, whatever its name (a
    `distill.out` is a distill receipt, a `.pin` with a JSON line a ledger)."""
    if size or found.kind != _kinds.LEDGER or found.path.lower().endswith(LEDGER_NAMES):
        return found
    return _kinds.Identified(
        found.path,
        None,
        _kinds.UNREADABLE_WORD,
        f"{found.path} is an empty file not named *.jsonl: nothing to audit "
        f"(`sealscope check` reads it as an empty ledger, {_verdict.COULD_NOT_LOOK})",
    )


def _other_kind(found: _kinds.Identified, size: int | None, ctx: CheckContext | None) -> FleetEntry:
    """The entry of a path the classifier calls no ledger: its kind's own check, or a
    not-evidence entry naming why."""
    from sealscope.core.checks import check_path
    from sealscope.core.profiles.detect import detect

    if found.kind is None and detect(found).profile is None:  # KINDS-3.md §15: no profile
        return not_evidence_entry(found.path, found.reason, size)

    return FleetEntry(
        found.path,
        VerifyResult(ok=None),
        ReceiptSummary(),
        size,
        check_path(found, ctx or CheckContext()),
    )


def _scan(path: str, ctx: CheckContext | None) -> _ledger_rows.LedgerScan:
    """The ledger's receipt rows and other row checks in one read (`ledger_rows.scan`),
    as `check` and `export` judge them with what `ctx` holds; nothing when a line
    cannot be searched (its chain then says why). OSError when it cannot be read."""
    from sealscope.core.checks import ledger_rows

    try:
        return ledger_rows.scan(path, ctx)
    except ValueError:
        return ledger_rows.LedgerScan()


def _unit_size(path: str) -> int | None:
    """A regular file's size; None for a folder or a path that cannot be stat'ed."""
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return st.st_size if _stat.S_ISREG(st.st_mode) else None


def audit_path(
    path: str,
    *,
    strict: bool = False,
    workers: int | None = 1,
    incremental: bool = False,
    ctx: CheckContext | None = None,
    digest: bool = True,
) -> FleetEntry:
    """One fleet entry for `path`, the classifier deciding (module docstring: kinds):
    a ledger's `audit_file`, another kind's own check, or a not-evidence entry. A
    path that is missing or not a regular file or folder is the could-not-look
    entry `audit_file` gives it. `ctx`: what the run holds. Never raises."""
    try:
        st = os.stat(path)
        plain = _stat.S_ISREG(st.st_mode) or _stat.S_ISDIR(st.st_mode)
    except (OSError, ValueError):
        plain = False
    if not plain:
        return audit_file(
            path, strict=strict, workers=workers, incremental=incremental, ctx=ctx, digest=digest
        )
    if not incremental and _stat.S_ISREG(st.st_mode) and st.st_size <= SMALL_BYTES:
        small = _audit_small(path, strict=strict, ctx=ctx, digest=digest)
        if small is not None:
            return small
    found = _kinds.identify(path)
    if _stat.S_ISREG(st.st_mode):
        found = _unnamed(found, st.st_size)
    if found.kind == _kinds.LEDGER:
        return audit_file(
            path, strict=strict, workers=workers, incremental=incremental, ctx=ctx, digest=digest
        )
    if found.kind is None and found.reason_word == _kinds.MISSING_WORD:
        return audit_file(
            path, strict=strict, workers=workers, incremental=incremental, ctx=ctx, digest=digest
        )
    return _other_kind(found, _unit_size(path), ctx)


def audit_batch(
    paths: Sequence[str],
    strict: bool = False,
    incremental: bool = False,
    ctx: CheckContext | None = None,
    digest: bool = True,
) -> list[dict[str, Any]]:
    """Audit local files one after another in this process; wire dicts, for pools.
    `digest` False: a small file's entry carries no SHA-256 (`audit_path`)."""
    return [
        audit_path(p, strict=strict, incremental=incremental, ctx=ctx, digest=digest).to_wire()
        for p in paths
    ]


def fleet_context(
    sized: Iterable[tuple[str, int | None]], artefacts: str | None = None
) -> CheckContext:
    """What a fleet over `sized` holds (module docstring): `artefacts`, and every
    regular local file found that the classifier calls a continuity verdict
    (`checks.run_context`). A URL or folder is never a held verdict."""
    from sealscope.core.checks import run_context

    local = [p for p, _n in sized if "://" not in p and os.path.isfile(p)]
    return run_context(local, artefacts)


def worst_first_key(e: FleetEntry) -> tuple[int, int, int, str]:
    """The sort key of the one worst-first order of fleet entries (`sealscope fleet`,
    its step summary, the viewer's fleet tab): by exit code (`verdict.severity`: 1,
    then 3, then 0; an entry's word agrees with its code), then more breaks, then more
    failed receipts first, then by path."""
    return (-_verdict.severity(e.exit_code), -e.result.breaks, -e.receipts.failed, e.path)


def worst_first(entries: Iterable[FleetEntry]) -> list[FleetEntry]:
    """Evidence entries worst first (`worst_first_key`); not-evidence ones are not
    judged and not listed here (`not_evidence`)."""
    return sorted((e for e in entries if e.evidence), key=worst_first_key)


def not_evidence(entries: Iterable[FleetEntry]) -> list[FleetEntry]:
    """The not-evidence entries, by path."""
    return sorted((e for e in entries if not e.evidence), key=lambda e: e.path)


@dataclass(frozen=True)
class FleetSummary:
    """Counts per verdict, receipts, bytes and time of a whole fleet run: `ledgers`
    the ledger entries, `units` the entries of other kinds (`kinds`: how many of
    each), `not_evidence` the paths listed but not judged (no part of the verdicts
    or the exit code; a run with no judged entry is COULD NOT LOOK)."""

    ledgers: int
    verdicts: dict[str, int]
    receipts: int
    receipts_failed: int
    receipts_bounded: int
    bytes: int
    seconds: float
    exit_code: int
    units: int = 0
    kinds: dict[str, int] = field(default_factory=dict)
    not_evidence: int = 0
    held_back: int = 0  # `held_back`: always 0 (no path is set aside by content)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ledgers": self.ledgers,
            "units": self.units,
            "kinds": dict(self.kinds),
            "not_evidence": self.not_evidence,
            "held_back": self.held_back,
            "verdicts": dict(self.verdicts),
            "receipts": self.receipts,
            "receipts_failed": self.receipts_failed,
            "receipts_bounded": self.receipts_bounded,
            "bytes": self.bytes,
            "seconds": round(self.seconds, 3),
            "exit_code": self.exit_code,
        }


def held_back(entries: Sequence[FleetEntry]) -> int:
    """How many paths were set aside by their content alone: none, ever (a fleet
    classifies by KINDS.md §1 as `check` does, so a `.jsonl` file is always judged as
    a ledger). Kept, at 0, for the frontends that still ask."""
    return 0


def held_back_note(n: int, *, short: bool = False) -> str:
    """What a frontend says of `n` content set-asides (`held_back`: always 0)."""
    if short:
        return f"{n:,} set aside by content: at best {_verdict.COULD_NOT_LOOK}"
    return f"{_verdict.plural(n, 'file')} set aside by content alone"


def count_words(summary: FleetSummary) -> str:
    """What a run counted, in the one wording every frontend shows (the CLI's count
    line, the fleet tab's status line, a folder report): the ledgers, then each other
    kind by name ("3 ledgers, 1 aat-export, 1 evidence-pack"); entries of another
    kind are never called ledgers."""
    units = "".join(f", {_verdict.plural(n, k)}" for k, n in sorted(summary.kinds.items()))
    return f"{_verdict.plural(summary.ledgers, 'ledger')}{units}"


def summarize(entries: Sequence[FleetEntry], seconds: float) -> FleetSummary:
    """The counts of a run; not-evidence entries only counted as such."""
    left_out = sum(not e.evidence for e in entries)
    entries = [e for e in entries if e.evidence]
    verdicts = {w: 0 for w in (_verdict.VERIFIED, _verdict.BROKEN, _verdict.COULD_NOT_LOOK)}
    kinds: dict[str, int] = {}
    for e in entries:
        verdicts[e.verdict] = verdicts.get(e.verdict, 0) + 1
        unit = None if e.check is None else e.kind
        if unit is not None and unit != _kinds.LEDGER:  # a paired ledger is a ledger
            kinds[unit] = kinds.get(unit, 0) + 1
    return FleetSummary(
        ledgers=len(entries) - sum(kinds.values()),
        verdicts=verdicts,
        units=sum(kinds.values()),
        kinds=kinds,
        not_evidence=left_out,
        receipts=sum(e.receipts.count for e in entries),
        receipts_failed=sum(e.receipts.failed for e in entries),
        receipts_bounded=sum(e.receipts.bounded for e in entries),
        bytes=sum(e.size or 0 for e in entries),
        seconds=seconds,
        exit_code=_run_code(entries),
    )


def _run_code(judged: Sequence[FleetEntry]) -> int:
    """The exit code of a run whose judged entries are `judged`: the worst of theirs;
    COULD NOT LOOK when none was judged (an empty folder, one of held `.json` content
    only: nothing looked at is not a pass)."""
    if not judged:
        return _verdict.COULD_NOT
    return _verdict.worst(e.exit_code for e in judged)


def outcome(entries: Sequence[FleetEntry]) -> _verdict.Outcome:
    """A whole fleet's one verdict (the fleet tab's label, `export DIR`'s, as a
    file's verdict marks its tab): the worst of its evidence entries' words
    (`verdict.worst_word`) with that word's code, `summarize`'s exit code; a fleet
    with no evidence entry is COULD NOT LOOK, nothing was audited."""
    word = _verdict.worst_word(e.verdict for e in entries if e.evidence)
    return _verdict.Outcome(word, _verdict.code_of(word))


def why_not(e: FleetEntry) -> str:
    """Why an entry is not VERIFIED, in words (its row says it without opening it):
    another kind's check reason, else the chain's (`VerifyResult.reason`: unreadable,
    a FIFO, a dangling link, an empty file, a declared break); "" when it held."""
    if e.exit_code == _verdict.HELD:
        return ""
    if e.check is not None:
        return e.check.reason
    if e.result.unreadable:
        return _unreadable_why(e.path) or e.result.reason()
    return e.result.reason()


_SPECIAL = (
    (_stat.S_ISFIFO, "a FIFO (named pipe): not read"),
    (_stat.S_ISSOCK, "a socket: not read"),
    (_stat.S_ISCHR, "a character device: not read"),
    (_stat.S_ISBLK, "a block device: not read"),
)


def _unreadable_why(path: str) -> str:
    """What an unreadable path is, when its kind says why: a dangling link, a FIFO,
    a socket or a device ("" otherwise: the read error says it)."""
    try:
        if os.path.islink(path) and not os.path.exists(path):
            return "a dangling link: no target"
        mode = os.stat(path).st_mode
    except OSError:
        return ""
    return next((why for test, why in _SPECIAL if test(mode)), "")


Audit = Callable[[Sequence[tuple[str, int | None]], CheckContext], Iterator[FleetEntry]]


def iter_held(
    sized: Iterable[tuple[str, int | None]], audit: Audit, artefacts: str | None = None
) -> Iterator[FleetEntry]:
    """The entries `audit(sized, ctx)` gives with `ctx` what the run holds
    (`fleet_context(sized, artefacts)`), without classifying every file twice: the
    run is audited holding `artefacts` alone, which judges every entry as the whole
    context would except one that reads the held verdicts (a ledger with a
    `continuity-verify` row, an entry of another kind); those are kept back, and when
    the run found stored continuity verdicts (its workers classified every file),
    audited again holding them, in the order found, as `fleet_context` holds them.
    Every other entry is passed on as it arrives."""
    sized = list(sized)
    base = CheckContext(artefacts=artefacts)
    later: list[FleetEntry] = []
    verdicts: set[str] = set()
    for entry in audit(sized, base):
        if entry.kind == _kinds.CONTINUITY_VERDICT:
            verdicts.add(entry.path)
        if _reads_held(entry):
            later.append(entry)
        else:
            yield entry
    held = tuple(p for p, _n in sized if p in verdicts and "://" not in p and os.path.isfile(p))
    if not held or not later:
        yield from later
        return
    sizes = dict(sized)
    again = [(e.path, sizes.get(e.path, e.size)) for e in later]
    yield from audit(again, replace(base, verdict_files=held))


def _reads_held(e: FleetEntry) -> bool:
    """Whether an entry's judgment may read the run's held continuity verdicts."""
    if e.check is not None:
        return e.check.kind is not None
    return any(r.get("check") == "continuity-verify" for r in e.rows_checked)


def run_local(
    sized: Sequence[tuple[str, int | None]],
    *,
    strict: bool = False,
    incremental: bool = False,
    workers: int | None = None,
    on_entry: Callable[[FleetEntry], None] | None = None,
    artefacts: str | None = None,
    digest: bool = True,
) -> list[FleetEntry]:
    """Audit local files through `fleet_run` on a process pool sized to the cores:
    small files in batches, large ones here, each split across the cores by `verify`.
    Entries are passed to `on_entry` as they arrive and returned in arrival order; an
    exception `on_entry` raises ends the run (batches not yet started are dropped) and
    propagates. What the run holds is `fleet_context(sized, artefacts)` (`iter_held`)."""

    def audit(items: Sequence[tuple[str, int | None]], ctx: CheckContext) -> Iterator[FleetEntry]:
        return iter_local(
            items, strict=strict, incremental=incremental, workers=workers, ctx=ctx, digest=digest
        )

    out: list[FleetEntry] = []
    for entry in iter_held(sized, audit, artefacts):
        out.append(entry)
        if on_entry is not None:
            on_entry(entry)
    return out


def iter_local(
    sized: Iterable[tuple[str, int | None]],
    *,
    strict: bool = False,
    incremental: bool = False,
    workers: int | None = None,
    executor: fleet_run.Executor | None = None,
    ctx: CheckContext | None = None,
    digest: bool = True,
) -> Iterator[FleetEntry]:
    """`run_local`'s entries as they arrive (on `executor`, default the local pool);
    `ctx` what the run holds (None: nothing). A large file is a task of its own, the
    largest first, while there are as many batches of small files as workers to keep
    the other cores busy beside it (no run ends on one big file); with fewer, each is
    verified here, split across the cores by `verify`. `digest` False: small files'
    entries carry no SHA-256 (asked for by a VSA only)."""

    def large(path: str) -> dict[str, Any]:
        return audit_path(
            path, strict=strict, workers=None, incremental=incremental, ctx=ctx, digest=digest
        ).to_wire()

    pool = executor or fleet_run.LocalPool(workers)
    plan = fleet_run.plan_batches(sized)
    alone = len(plan.batches) >= getattr(pool, "workers", 1) > 1
    task = partial(audit_batch, strict=strict, incremental=incremental, ctx=ctx, digest=digest)
    for _path, wire in fleet_run.run(
        plan, task, pool, large_task=None if alone else large, large_first=alone
    ):
        yield FleetEntry.from_dict(wire)
