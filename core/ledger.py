"""Hash-chained JSONL ledgers: verification, and the one surface of every ledger name.

Verification walks every line of one open file, in parallel over byte ranges when it is
large, each range bound to that file's identity, and returns a `VerifyResult` value; it
never raises for any file. Every name callers use is also offered here, so
`sealscope.core.ledger.<name>` stays the surface whichever module holds it: `chain` (the
chain rule, `Finding`, `Findings`, `VerifyResult`) and `walk` (parsing, the walk,
`WalkState`, declarations), imported up front since verification runs on them; `explain`
(`Mismatch`, `explain_mismatch(es)`), `ledger_read` (`iter_rows`, `chain_at`,
`tail_chain`) and `ledger_write` (`append`, `declare_break`, `authority`,
`LedgerWriteError`), loaded on first read.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from sealscope.core import chunk_digest as _chunks
from sealscope.core import cores as _cores
from sealscope.core import lazy
from sealscope.core import lines as _lines
from sealscope.core import walk as _walk_mod
from sealscope.core.chain import _DECLARE_OP_B
from sealscope.core.chain import CHAIN_LEN as CHAIN_LEN
from sealscope.core.chain import DECLARE_OP as DECLARE_OP
from sealscope.core.chain import GENESIS as GENESIS
from sealscope.core.chain import TEXT_TABLE_MAX as TEXT_TABLE_MAX
from sealscope.core.chain import Declared as Declared
from sealscope.core.chain import Finding as Finding
from sealscope.core.chain import Findings as Findings
from sealscope.core.chain import ProgressFn as ProgressFn
from sealscope.core.chain import VerifyResult as VerifyResult
from sealscope.core.chain import link as link
from sealscope.core.walk import WalkState as WalkState
from sealscope.core.walk import _scan_declarations as _scan_declarations
from sealscope.core.walk import _Walk as _Walk

if TYPE_CHECKING:  # for the type checker; at run time each name loads on first read
    from sealscope.core.explain import (
        CONTENT_CHANGED,
        EARLIER_OR_ORDER,
        UNDETERMINED,
        Mismatch,
        explain_mismatch,
        explain_mismatches,
    )
    from sealscope.core.ledger_read import chain_at, iter_rows, tail_chain
    from sealscope.core.ledger_write import LedgerWriteError, append, authority, declare_break

__all__ = [
    "GENESIS",
    "CHAIN_LEN",
    "DECLARE_OP",
    "Finding",
    "Findings",
    "VerifyResult",
    "link",
    "verify",
    "verify_bytes",
    "append",
    "authority",
    "declare_break",
    "chain_at",
    "tail_chain",
    "LedgerWriteError",
    "iter_rows",
    "WalkState",
    "Walked",
    "walk_span",
    "state_result",
    "Mismatch",
    "explain_mismatch",
    "explain_mismatches",
    "CONTENT_CHANGED",
    "EARLIER_OR_ORDER",
    "UNDETERMINED",
]

# the names of the explaining, reading and writing modules, imported on the name's first read
_LAZY = lazy.table(
    {
        "sealscope.core.explain": (
            "CONTENT_CHANGED",
            "EARLIER_OR_ORDER",
            "UNDETERMINED",
            "Mismatch",
            "explain_mismatch",
            "explain_mismatches",
        ),
        "sealscope.core.ledger_read": ("chain_at", "iter_rows", "tail_chain"),
        "sealscope.core.ledger_write": ("LedgerWriteError", "append", "authority", "declare_break"),
    }
)

if not TYPE_CHECKING:
    __getattr__, __dir__ = lazy.exports(__name__, _LAZY)

RunJobs = Callable[[list[tuple[Any, ...]]], Iterator[dict[str, Any]]]  # worker pool


# --------------------------------------------------------------------------- verify


def _unreadable(e: OSError) -> VerifyResult:
    return VerifyResult(ok=False, first_break=f"unreadable: {e}", breaks=1, unreadable=True)


# Called as `after_open(path, fd)` once the verifier holds the file open, before a
# byte is read: tests install it to replace the file under its name at exactly that
# moment (the race a live writer can run), deterministically.
after_open: Callable[[str, int], None] | None = None


class FileReplaced(OSError):
    """The bytes could not be bound to the one open file: a range worker could not
    reach the parent's file, or the bytes it read differ from the parent's."""


def _open_checked(path: str | os.PathLike[str]) -> tuple[BinaryIO, _lines.FileSource]:
    """Open for reading by offset (the file and its `FileSource`), failing as the
    reference's read_text would; anything but a regular file (a FIFO, a device) is
    refused before it is read (`lines.open_regular`), never waited on. Every byte of
    the verdict is read through this one open file description."""
    fh = _lines.open_regular(path)
    try:
        if after_open is not None:
            after_open(os.fspath(path), fh.fileno())
        return fh, _lines.FileSource(fh)
    except BaseException:
        fh.close()
        raise


def _walk_lines(
    w: _Walk,
    buf: _lines.Buffer,
    start: int,
    end: int,
    n: int,
    final: bool,
    on_progress: ProgressFn | None = None,
    hasher: Any = None,
    spot: list[int] | None = None,
    window: int = _lines.WINDOW,
) -> int:
    """Feed [start, end) (starting at a line start) to `w` from line n+1; the last line
    number. `final`: `end` is the end of the file, so the piece after its last line
    break is a line (empty when the file ends with one); otherwise `end` is just after
    a line break and nothing after it is read. `hasher` (a hashlib object) is updated
    with every byte walked, as it is read. `spot`: the walk assumed the file declares
    nothing; it stops at the first window holding a declaration's op and appends that
    window's start (the caller walks again with the declarations). A file's windows
    are read into one reused buffer, so a walk costs no fresh memory per window;
    `window`: about how many bytes one read takes (a line longer is read whole)."""
    total = len(buf)
    if start >= end:
        return w.walk([b""], n) if final else n
    into = buf.read_into if isinstance(buf, _lines.FileSource) else None
    kept = getattr(_range_thread, "buf", None)
    scratch = bytearray() if kept is None else kept
    for s, e in _lines.window_bounds(buf, start, end, window):
        data: bytes | bytearray
        if into is not None:
            data = scratch = into(s, e, scratch)
        else:
            data = buf[s:e]
        if hasher is not None:
            hasher.update(data)
        if spot is not None and _lines.find(data, _DECLARE_OP_B) >= 0:
            spot.append(s)
            break
        n = w.walk_window(data, final and e == end, n)
        if on_progress is not None:
            on_progress(e, total)
    if kept is not None:
        _range_thread.buf = scratch
    return n


# A range thread's read buffer, kept from one of its jobs to the next while its pool
# lives (a buffer per job would leave the allocator a fresh 8 MB each time).
_range_thread = threading.local()


def _keep_a_buffer() -> None:
    _range_thread.buf = bytearray()


def _walk_buf(
    buf: _lines.Buffer,
    start: int,
    end: int,
    first_line: int,
    strict: bool,
    declared: Declared,
    detached: bool,
    final: bool | None = None,
    digest: bool = True,
    spot: bool = False,
    first_break_only: bool = False,
    window: int = _lines.WINDOW,
) -> dict[str, Any]:
    """One range job: walk [start, end) of `buf`, line numbers from `first_line`,
    detached when it does not start the walk. `final`: whether `end` is the end of
    the file (its last line is kept). The result carries the SHA-256 of the bytes
    walked (`sha256`, when `digest`) and, when `spot`, where a declaration's op was
    seen (`spotted`); `first_break_only`, as `_Walk`; `window`, as `_walk_lines`."""
    w = _Walk(strict, declared, detached, first_break_only)
    h = hashlib.sha256() if digest else None
    spotted: list[int] | None = [] if spot else None
    n = _walk_lines(
        w,
        buf,
        start,
        end,
        first_line - 1,
        end == len(buf) if final is None else final,
        None,
        h,
        spotted,
        window,
    )
    held = w.pending if w.pending is not None else w.held
    return {
        "held": held,
        "detached_all": w.pending is not None,
        "last_line": n,
        "prev": w.prev,
        "began": w.began,
        "rows": w.rows,
        "chained": w.chained,
        "prechain": w.prechain,
        "breaks": w.breaks,
        "declared_breaks": w.declared_breaks,
        "findings": w.findings,
        "first_chained": w.first_chained,
        "sha256": h.hexdigest() if h is not None else "",
        "spotted": spotted or [],
    }


def _finish(w: _Walk, strict: bool, declared: Declared, lines_total: int) -> VerifyResult:
    findings = w.findings.sorted()  # stable: keeps in-line order
    at = findings.first("break")
    first_break = findings.text(at) if at >= 0 else None
    ok: bool | None = w.breaks == 0
    scope = "full"
    declared_list = [findings.text(i) for i, k in enumerate(findings.kinds) if k == 1]
    if not strict and (w.prechain or w.declared_breaks):
        if w.prechain and w.declared_breaks:
            scope = "bounded_prechain_skipped+declared_break"
        elif w.prechain:
            scope = "bounded_prechain_skipped"
        else:
            scope = "bounded_declared_break"
        if ok:
            ok = None
    elif w.rows == 0 and ok:
        ok, scope = None, "empty"
    if strict and declared:
        declared_list.extend(
            f"line {n}: declaration present, NOT honored (strict mode) ({d['why']})"
            for n, d in sorted(declared.items())
        )
    return VerifyResult(
        ok=ok,
        rows=w.rows,
        chained=w.chained,
        prechain=w.prechain,
        first_break=first_break,
        breaks=w.breaks,
        verified_scope=scope,
        declared_breaks=w.declared_breaks,
        declared=tuple(declared_list),
        findings=findings,
        first_chained_line=w.first_chained,
        lines=lines_total,
    )


PARALLEL_MIN_BYTES = 16 << 20
CHUNK_BYTES = 8 << 20

# (start, end, SHA-256) of each span of bytes a walk read, in order
Spans = list[tuple[int, int, str]]


def verify(
    path: str | os.PathLike[str],
    *,
    strict: bool = False,
    on_progress: ProgressFn | None = None,
    workers: int | None = None,
    chunk_bytes: int | None = None,
    digest: bool = False,
    all_findings: bool = True,
) -> VerifyResult:
    """Walk and verify a ledger file. Never raises for any file content.

    `all_findings=False`: the result's `findings` hold every declared break but only
    the first break (its counts are whole), so memory does not grow with breaks; for
    a caller that shows the verdict's fields and no list of breaks.

    The verdict is bound to one open file description: every byte is read through
    the descriptor opened here (worker processes open that same descriptor, see
    `Source`). When the path names another file by the end of the walk (the file was
    replaced or moved while it was verified), the answer is not VERIFIED: a verdict
    that held becomes COULD NOT LOOK saying so. `digest=True` also gives the SHA-256
    of the bytes walked (`VerifyResult.sha256`), hashed from the same reads (parallel
    walks: each range's hash checked against the parent's own read of it).

    Large files are split at line starts into byte ranges verified in parallel
    threads (the accelerator reads and hashes rows without the GIL), each reading
    through this same descriptor; each range after the first holds back its lines up
    to its first chained row, which are replayed in order with the true incoming
    state, so the merged verdict equals one sequential pass. `workers`: how many
    threads (default: as many as the process has cores, `cores.usable`, for a large
    file with the accelerator built; else 1); their reads share one bounded budget
    (`cores.read_bytes`), so memory does not grow with them. `workers=1` walks in
    this thread alone.

    The walk first assumes the file declares no break and stops at the first window
    holding a declaration's op; only then are the declarations read and the file
    walked again with them (a declaration may excuse a line before it)."""
    try:
        fh, buf = _open_checked(path)
    except OSError as e:
        return _unreadable(e)
    with fh:
        total = len(buf)
        w, declared, spans, n = _walk_declared(
            buf, strict, workers, chunk_bytes, on_progress, digest, not all_findings
        )
        res = _finish(w, strict, declared, n)
        sha = None
        if digest:
            sha, changed = span_digest(buf.fd, 0, total, spans)
            if changed:
                return changed_while_read(res, changed)
        return bound_to_file(replace(res, sha256=sha), str(path), buf.fd)


def _walk_declared(
    buf: _lines.Buffer,
    strict: bool,
    workers: int | None,
    chunk_bytes: int | None,
    on_progress: ProgressFn | None,
    digest: bool,
    first_break_only: bool = False,
) -> tuple[_Walk, Declared, Spans, int]:
    """The whole of `buf` walked with the declarations it holds (`_with_declarations`):
    (walk, declarations, spans, last line); `first_break_only`, as `_Walk`."""

    def attempt(declared: Declared, spot: list[int] | None) -> tuple[_Walk, Declared, Spans, int]:
        w = _Walk(strict, declared, first_break_only=first_break_only)
        spans: Spans | None = [] if digest else None
        n = _walk_into(w, buf, 0, len(buf), 0, True, workers, chunk_bytes, on_progress, spans, spot)
        return w, declared, spans or [], n

    return _with_declarations(buf, attempt)


T = TypeVar("T")


def _with_declarations(buf: _lines.Buffer, walk: Callable[[Declared, list[int] | None], T]) -> T:
    """A walk of `buf` from byte 0 with the declarations it holds, without a pre-scan:
    `walk(declarations, spot)` first assuming there are none, with a `spot` list (see
    `_walk_lines`); only when it spotted a declaration's op (then the answer is
    discarded) are they read from the file and the walk run again with them."""
    spot: list[int] = []
    got = walk({}, spot)
    if not spot:
        return got
    return walk(_scan_declarations(buf), None)


def span_digest(fd: int, start: int, end: int, spans: Spans) -> tuple[str | None, str | None]:
    """(SHA-256 of [start, end) read through `fd`, None) when every span in `spans`
    (each inside [start, end)) hashes to what its walk read; else (None, a sentence
    naming the first span whose bytes differ). One span that is all of [start, end)
    is that digest already (the walk hashed every byte it read); otherwise the bytes
    are read again here and each span's hash compared."""
    if [(a, b) for a, b, _h in spans] == [(start, end)]:
        return spans[0][2], None
    h = hashlib.sha256()
    why = _chunks.checked_read(fd, start, end, spans, h)
    return (None, why) if why is not None else (h.hexdigest(), None)


def changed_while_read(res: VerifyResult, why: str) -> VerifyResult:
    """A verdict whose bytes did not hold still while they were read: COULD NOT LOOK
    (BROKEN stays BROKEN), the reason first, no digest."""
    text = f"the file changed while it was verified ({why})"
    if res.ok is False:
        return replace(res, sha256=None)
    return replace(res, ok=False, unreadable=True, first_break=text, sha256=None)


def bound_to_file(res: VerifyResult, path: str, fd: int) -> VerifyResult:
    """`res` when `path` still names the file open on `fd` (same device and inode),
    else the verdict of a file replaced while it was verified: a verdict that held
    becomes COULD NOT LOOK naming both inodes (BROKEN stays BROKEN), and no digest
    is given for a name that no longer holds those bytes."""
    try:
        a, b = os.fstat(fd), os.stat(path)
        same = (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)
        why = "" if same else f"inode {a.st_ino} → {b.st_ino}"
    except OSError as e:
        same, why = False, f"{path!r} cannot be found again: {e.strerror or e}"
    if same:
        return res
    text = f"the file was replaced while it was verified ({why}); no verdict for {path!r}"
    if res.ok is False:
        return replace(res, sha256=None)
    return replace(res, ok=False, unreadable=True, first_break=text, sha256=None)


def verify_bytes(data: bytes, *, strict: bool = False, digest: bool = False) -> VerifyResult:
    """`verify` over a ledger held in memory (a zip member read in place, never
    extracted, or a small file read once): the same walk and verdict, in this thread;
    `digest=True` also gives the SHA-256 the walk hashed the bytes to."""
    w, declared, spans, n = _walk_declared(data, strict, 1, None, None, digest)
    res = _finish(w, strict, declared, n)
    if not digest:
        return res
    return replace(res, sha256=spans[0][2] if spans else hashlib.sha256(data).hexdigest())


def _walk_into(
    w: _Walk,
    buf: _lines.Buffer,
    start: int,
    end: int,
    n: int,
    final: bool,
    workers: int | None,
    chunk_bytes: int | None,
    on_progress: ProgressFn | None,
    spans: Spans | None = None,
    spot: list[int] | None = None,
) -> int:
    """Continue `w` over [start, end) from line n+1, in parallel threads when the span
    is large (`_walk_parallel`); the last line number. `spans` gets (start, end,
    SHA-256) of the bytes walked; `spot`, as `_walk_lines`."""
    if workers is None:  # without the accelerator, threads would only take turns
        big = end - start >= PARALLEL_MIN_BYTES and _walk_mod._c_run is not None
        workers = _cores.usable() if big else 1
    workers = _cores.clamp(workers)
    if workers > 1 and end > start:
        before = w.export(start, n)
        got: Spans = []
        try:
            n = _walk_parallel(
                buf,
                start,
                end,
                final,
                w,
                n,
                workers,
                chunk_bytes or CHUNK_BYTES,
                on_progress,
                spans=got if spans is not None else None,
                spot=spot,
            )
            if spans is not None:
                spans.extend(got)
            return n
        except RuntimeError:
            # no thread can be started (the interpreter is shutting down): this thread
            # gives the same verdict alone
            fresh = _Walk.resume(before, w.declared)
            n = _walk_alone(fresh, buf, start, end, n, final, on_progress, spans, spot)
            _copy_state(fresh, w)
            return n
    return _walk_alone(w, buf, start, end, n, final, on_progress, spans, spot)


def _walk_alone(
    w: _Walk,
    buf: _lines.Buffer,
    start: int,
    end: int,
    n: int,
    final: bool,
    on_progress: ProgressFn | None,
    spans: Spans | None,
    spot: list[int] | None,
) -> int:
    """`_walk_lines` over [start, end) in this thread, its bytes' SHA-256 added to
    `spans` when they are kept."""
    h = hashlib.sha256() if spans is not None else None
    n = _walk_lines(w, buf, start, end, n, final, on_progress, h, spot)
    if spans is not None and h is not None and end > start:
        spans.append((start, end, h.hexdigest()))
    return n


def _copy_state(src: _Walk, dst: _Walk) -> None:
    for k in (
        "prev",
        "began",
        "rows",
        "chained",
        "prechain",
        "breaks",
        "declared_breaks",
        "findings",
        "first_chained",
    ):
        setattr(dst, k, getattr(src, k))


def _absorb(w: _Walk, out: dict[str, Any]) -> None:
    w.rows += out["rows"]
    w.chained += out["chained"]
    w.prechain += out["prechain"]
    w.breaks += out["breaks"]
    w.declared_breaks += out["declared_breaks"]
    w.findings.extend(out["findings"])
    if not w.first_chained and out["first_chained"]:
        w.first_chained = out["first_chained"]


def _verify_parallel(
    buf: _lines.Buffer,
    total: int,
    strict: bool,
    declared: Declared,
    workers: int,
    chunk: int,
    on_progress: ProgressFn | None,
    run_jobs: RunJobs | None = None,
) -> VerifyResult:
    """The whole file by byte ranges, merged (see `_walk_parallel`)."""
    w = _Walk(strict, declared)
    n = _walk_parallel(buf, 0, total, True, w, 0, workers, chunk, on_progress, run_jobs)
    return _finish(w, strict, declared, n)


def _walk_parallel(
    buf: _lines.Buffer,
    start: int,
    end: int,
    final: bool,
    w: _Walk,
    n: int,
    workers: int,
    chunk: int,
    on_progress: ProgressFn | None,
    run_jobs: RunJobs | None = None,
    spans: Spans | None = None,
    spot: list[int] | None = None,
) -> int:
    """Verify byte ranges of [start, end) independently and merge them into `w` as one
    sequential pass would leave it; the last line number.

    Each range not at byte 0 is walked detached: its lines up to and including its
    first row with a non-null chain are held back and replayed here with the true
    incoming state; from that row on the range's outcome depends on nothing before it.
    Line numbers are range-relative (shifted here) unless a declaration needs absolute
    ones. `run_jobs` maps `_walk_buf` argument tuples to results in order (threads by
    default); `spans` gets each range's (start, end, SHA-256 of the bytes it read);
    `spot`, as `_walk_lines` (the walk stops at the first range that saw one: its
    outcome is about to be walked again)."""
    if start >= end:
        return _walk_lines(w, buf, start, end, n, final)
    declared = w.declared
    total = len(buf)
    bounds = list(_lines.window_bounds(buf, start, end, chunk))
    firsts: list[int] = []
    first = n + 1
    for s, e in bounds:
        firsts.append(first)
        if declared:
            first += _lines.count_lines(buf, s, e)
    relative = not declared
    if relative:
        firsts = [1] * len(bounds)
    jobs = [
        (
            buf,
            s,
            e,
            f,
            w.strict,
            declared,
            s > 0,
            final and e == end,
            spans is not None,
            spot is not None,
            w.findings.first_break_only,
            _cores.read_bytes(workers),
        )
        for (s, e), f in zip(bounds, firsts, strict=True)
    ]
    line_base = n
    results = (run_jobs or _thread_runner(workers))(jobs)
    try:
        for i, out in enumerate(results):
            if out["spotted"] and spot is not None:
                spot.extend(out["spotted"])
                return line_base
            if spans is not None:
                spans.append((bounds[i][0], bounds[i][1], out["sha256"]))
            shift = line_base if relative else 0
            if shift:
                out["findings"].shift(shift)
                out["held"] = [(a + shift, raw) for a, raw in out["held"]]
                if out["first_chained"]:
                    out["first_chained"] += shift
            for a, raw in out["held"]:
                w.feed(a, raw)
            if not out["detached_all"]:
                _absorb(w, out)
                w.prev, w.began = out["prev"], out["began"]
            line_base = out["last_line"] + shift
            if on_progress is not None:
                on_progress(bounds[i][1], total)
    finally:
        close = getattr(results, "close", None)
        if close is not None:
            close()
    return line_base


def _thread_runner(workers: int) -> RunJobs:
    """Range jobs run on `workers` threads, results in order; stopping early cancels
    the jobs not yet begun. At most `2 * workers` jobs are queued or done and not yet
    taken, so the results waiting (each range's held-back lines) stay bounded
    however far the threads run ahead of the merge."""

    def run(jobs: list[tuple[Any, ...]]) -> Iterator[dict[str, Any]]:
        from collections import deque
        from concurrent.futures import Future, ThreadPoolExecutor

        pool = ThreadPoolExecutor(
            max_workers=workers, thread_name_prefix="sealscope-walk", initializer=_keep_a_buffer
        )
        ahead: deque[Future[dict[str, Any]]] = deque()
        todo = iter(jobs)
        try:
            for job in todo:
                ahead.append(pool.submit(_walk_buf, *job))
                if len(ahead) >= 2 * workers:
                    break
            while ahead:
                out = ahead.popleft().result()
                more = next(todo, None)
                if more is not None:
                    ahead.append(pool.submit(_walk_buf, *more))
                yield out
        finally:
            pool.shutdown(wait=True, cancel_futures=True)

    return run


def _serial_runner(jobs: list[tuple[Any, ...]]) -> Iterator[dict[str, Any]]:
    """Run range jobs in this thread, one after another (tests use it to exercise
    the merge)."""
    for job in jobs:
        yield _walk_buf(*job)


@dataclass(frozen=True)
class Walked:
    """`walk_span`'s answer: the whole file's verdict, the walk state at the cut, and
    why a given state was not used (the walk then began at byte 0), if it was not.
    `spans`: (start, end, SHA-256) of every byte span the walk read, in order, from
    the state's offset (or 0) to the end, so a caller hashing the file can prove the
    bytes it hashed are the bytes that were walked (`span_digest`); empty when the walk
    was asked not to hash them (`hash_spans=False`)."""

    result: VerifyResult
    state: WalkState
    restarted: str | None = None
    spans: tuple[tuple[int, int, str], ...] = ()


def walk_span(
    buf: _lines.Buffer,
    *,
    strict: bool,
    cut: int,
    state: WalkState | None = None,
    on_progress: ProgressFn | None = None,
    workers: int | None = None,
    chunk_bytes: int | None = None,
    hash_spans: bool = True,
) -> Walked:
    """Verify the file in `buf` (a `FileSource`, or bytes) continuing from `state`
    (whose bytes [0, state.offset) the caller has proven to be this file's), and
    export the state at byte `cut` (just after a line break, at or after
    state.offset; the bytes after it are walked but kept out of the state).

    The declarations are the state's plus those found from its offset on, later ones
    winning, as the whole-file pre-scan gives. A later declaration naming a line
    before the state that broke (a chain mismatch, an unchained row after the chain
    began, or an excused break) could change that line's outcome and everything that
    follows through `prev`; the walk then starts again at byte 0."""
    if state is None:
        return _walk_fresh(buf, strict, cut, on_progress, workers, chunk_bytes, hash_spans)
    total = len(buf)
    start, n = state.offset, state.lines
    later = _scan_declarations(buf, start, n + 1)
    why = None if strict else _redecided(state, later)
    if why is not None:
        again = _walk_fresh(buf, strict, cut, on_progress, workers, chunk_bytes, hash_spans)
        return Walked(again.result, again.state, why, again.spans)
    declared = dict(state.declared)
    declared.update(later)
    w = _Walk.resume(state, declared)
    spans: Spans | None = [] if hash_spans else None
    n = _walk_into(w, buf, start, cut, n, False, workers, chunk_bytes, on_progress, spans)
    at_cut = w.export(cut, n)
    h = hashlib.sha256() if spans is not None else None
    n = _walk_lines(w, buf, cut, total, n, True, on_progress, h)
    if spans is not None and h is not None and total > cut:
        spans.append((cut, total, h.hexdigest()))
    return Walked(_finish(w, strict, declared, n), at_cut, spans=tuple(spans or ()))


def _walk_fresh(
    buf: _lines.Buffer,
    strict: bool,
    cut: int,
    on_progress: ProgressFn | None,
    workers: int | None,
    chunk_bytes: int | None,
    hash_spans: bool,
) -> Walked:
    """`walk_span` from byte 0, with the declarations the file holds
    (`_with_declarations`)."""
    total = len(buf)

    def attempt(declared: Declared, spot: list[int] | None) -> Walked | None:
        w = _Walk(strict, declared)
        spans: Spans | None = [] if hash_spans else None
        n = _walk_into(w, buf, 0, cut, 0, False, workers, chunk_bytes, on_progress, spans, spot)
        if spot:  # walked again
            return None
        at_cut = w.export(cut, n)
        h = hashlib.sha256() if spans is not None else None
        n = _walk_lines(w, buf, cut, total, n, True, on_progress, h, spot)
        if spot:
            return None
        if spans is not None and h is not None and total > cut:
            spans.append((cut, total, h.hexdigest()))
        return Walked(_finish(w, strict, declared, n), at_cut, spans=tuple(spans or ()))

    walked = _with_declarations(buf, attempt)
    assert walked is not None, "a walk with the file's own declarations spots nothing"
    return walked


def state_result(state: WalkState) -> VerifyResult:
    """The verdict of the file as if it ended at the state's offset (`verify` of
    exactly those bytes): what is known for sure while a writer may be mid-line."""
    return _finish(
        _Walk.resume(state, state.declared), state.strict, state.declared, state.lines + 1
    )


_REDECIDABLE = ("chain mismatch", "unchained row after chain began", "declared break (")


def _redecided(state: WalkState, later: dict[int, dict[str, Any]]) -> str | None:
    """Why a declaration found after `state` changes a line already walked, or None.
    Only lines of the two excusable classes ever read a declaration."""
    old = [ln for ln in later if 0 < ln <= state.lines]
    if not old:
        return None
    hits = {
        n
        for n, _k, t in state.findings
        if any(t.startswith(f"line {n}: {w}") for w in _REDECIDABLE)
    }
    for ln in sorted(old):
        if ln in hits:
            return (
                f"a declaration after the checkpoint names line {ln}, which broke "
                f"before it; walked again from the start"
            )
    return None


def _reline(text: str, old: int, new: int) -> str:
    prefix = f"line {old}: "
    return f"line {new}: " + text[len(prefix) :] if text.startswith(prefix) else text
