"""Many ledgers on a pool, once: how files are planned into tasks and how the tasks run.

The plan (`plan_batches`): small files go several to a task, so a tiny file does not
pay a process round trip of its own; a batch closes at `BATCH_BYTES` or `BATCH_FILES`.
A file of `LARGE_BYTES` or more goes alone: `ledger.verify` splits it across processes
itself, so it runs in the caller (or, on an executor that cannot do that, as a task of
its own). A file whose size is unknown joins a batch; its task reports it. On a cluster
(`cluster_plan`) a task costs messages between client, scheduler and worker and wakes
threads beside the busy ones, so its batches are larger, up to `CLUSTER_BATCH_BYTES`,
as long as every worker thread still gets `TASKS_PER_SLOT` of them.

The run (`run`): the batches go to an executor, results are taken as each batch
finishes, then the large files. An executor is anything with `map_batches` (the
`Executor` protocol): `Serial` (this process), `LocalPool` (a process pool started
from `pools.spawn_context`, which falls back to `Serial` when a pool would not help or
cannot start here), or the CLI's Dask adapter. A task is a picklable function of one
batch returning one result per path, in order, and never raising for a file's
content; the same task runs on every executor, so the answer cannot depend on it.
`sealscope fleet`, the viewer's fleet tab and `sealscope verify A B C` all run here.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeVar

from sealscope.core.ledger import PARALLEL_MIN_BYTES

__all__ = [
    "LARGE_BYTES",
    "BATCH_BYTES",
    "BATCH_FILES",
    "Plan",
    "plan_batches",
    "CLUSTER_BATCH_BYTES",
    "TASKS_PER_SLOT",
    "cluster_plan",
    "Executor",
    "Serial",
    "LocalPool",
    "prestart",
    "discard_started",
    "run",
]

LARGE_BYTES = PARALLEL_MIN_BYTES  # verified alone, split across processes by `verify`
BATCH_BYTES = 8 << 20  # a batch of small files holds about this much
BATCH_FILES = 64  # ... and at most this many files
CLUSTER_BATCH_BYTES = 32 << 20  # a cluster's batch holds up to this much (`cluster_plan`)
TASKS_PER_SLOT = 8  # ... while each of its worker threads gets at least this many

T = TypeVar("T")
Task = Callable[[Sequence[str]], list[T]]


@dataclass(frozen=True)
class Plan:
    """Batches of small files (in the order found), large files (each alone), every
    file's size as listed (None: unknown), and the bytes the batches hold."""

    batches: list[list[str]]
    large: list[str]
    sizes: dict[str, int | None] = field(default_factory=dict)
    small_bytes: int = 0


def plan_batches(
    sized: Iterable[tuple[str, int | None]],
    *,
    batch_bytes: int = BATCH_BYTES,
    batch_files: int = BATCH_FILES,
    large_bytes: int = LARGE_BYTES,
) -> Plan:
    """The plan of `(path, size)` pairs: a batch closes when it reaches `batch_bytes`
    or `batch_files`; a file of `large_bytes` or more goes alone; a file whose size is
    unknown joins a batch."""
    batches: list[list[str]] = []
    large: list[str] = []
    sizes: dict[str, int | None] = {}
    cur: list[str] = []
    cur_bytes = small = 0
    for path, size in sized:
        sizes[path] = size
        if size is not None and size >= large_bytes:
            large.append(path)
            continue
        cur.append(path)
        cur_bytes += size or 0
        small += size or 0
        if cur_bytes >= batch_bytes or len(cur) >= batch_files:
            batches.append(cur)
            cur, cur_bytes = [], 0
    if cur:
        batches.append(cur)
    return Plan(batches, large, sizes, small)


def cluster_plan(sized: Iterable[tuple[str, int | None]], slots: int) -> Plan:
    """The plan for a cluster of `slots` worker threads: the batch a task holds grows
    from `BATCH_BYTES` towards `CLUSTER_BATCH_BYTES` (its file limit in proportion) so
    that a task's own cost (its messages, and the threads they wake beside the busy
    ones) is a small part of its work, but never so large that a thread gets fewer
    than `TASKS_PER_SLOT` batches of the small files: the run still ends evenly."""
    listed = list(sized)
    base = plan_batches(listed)  # the pool's plan: which files are small, and their bytes
    batch_bytes = min(CLUSTER_BATCH_BYTES, base.small_bytes // (max(1, slots) * TASKS_PER_SLOT))
    if batch_bytes <= BATCH_BYTES:
        return base
    return plan_batches(
        listed,
        batch_bytes=batch_bytes,
        batch_files=BATCH_FILES * batch_bytes // BATCH_BYTES,
    )


class Executor(Protocol):
    """Runs a task on each batch; yields (batch index, the task's results) as each
    batch finishes, in any order. Closing the iterator early drops batches not yet
    started."""

    def map_batches(
        self, task: Task[T], batches: Sequence[Sequence[str]]
    ) -> Iterator[tuple[int, list[T]]]: ...


class Serial:
    """Every batch in this process, in order."""

    def map_batches(
        self, task: Task[T], batches: Sequence[Sequence[str]]
    ) -> Iterator[tuple[int, list[T]]]:
        for i, batch in enumerate(batches):
            yield i, task(batch)


_started: list[tuple[int, Any]] = []  # (workers, executor) from `prestart`, not yet taken


def _warm() -> None:
    """A worker's first task: import the audit code before the first batch comes."""
    import sealscope.core.checks.ledger_rows
    import sealscope.core.fleet  # noqa: F401


def prestart(workers: int | None = None) -> None:
    """Start the local pool's worker processes now, each importing the audit code, so
    a caller that lists its files next (a walk of 20,000 files) has them ready when
    its batches come; the next `LocalPool` of as many workers takes them (and shuts
    them down when it ends, even if it then runs `Serial`). Does nothing where no pool
    can start, or on one core."""
    n = workers or os.cpu_count() or 1
    if n <= 1 or _started:
        return
    from concurrent.futures import ProcessPoolExecutor

    from sealscope.core.pools import spawn_context

    try:
        pool = ProcessPoolExecutor(max_workers=n, mp_context=spawn_context())
        for _ in range(n):
            pool.submit(_warm)
    except (OSError, ImportError, NotImplementedError, RuntimeError):
        return
    _started.append((n, pool))


def _take_started(workers: int) -> Any:
    """The pool `prestart` started, when it has `workers` workers; any other is shut
    down (a run never leaves one behind)."""
    got = None
    while _started:
        n, pool = _started.pop()
        if n == workers and got is None:
            got = pool
        else:
            pool.shutdown(wait=False, cancel_futures=True)
    return got


def discard_started() -> None:
    """Shut down a pool `prestart` started that no run will take (the caller stops)."""
    _take_started(-1)


class LocalPool:
    """A process pool of `workers` (default: the cores), started from
    `pools.spawn_context` (or taken from `prestart`). One batch, or one core, runs
    `Serial`; so do the batches left when no pool can start here or it breaks (a
    sandbox without semaphores, a worker killed), and so does a batch whose results
    nest too deeply to pickle back (evidence nested near the parser's limit): the
    answer is the same, only slower."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers or os.cpu_count() or 1

    def map_batches(
        self, task: Task[T], batches: Sequence[Sequence[str]]
    ) -> Iterator[tuple[int, list[T]]]:
        started = _take_started(self.workers)
        if self.workers <= 1 or len(batches) <= 1:
            if started is not None:
                started.shutdown(wait=False, cancel_futures=True)
            yield from Serial().map_batches(task, batches)
            return
        from concurrent.futures import BrokenExecutor, ProcessPoolExecutor, as_completed

        from sealscope.core.pools import spawn_context

        done: set[int] = set()
        try:
            with started or ProcessPoolExecutor(
                max_workers=min(self.workers, len(batches)), mp_context=spawn_context()
            ) as pool:
                futures = {pool.submit(task, b): i for i, b in enumerate(batches)}
                try:
                    for f in as_completed(futures):
                        i = futures[f]
                        try:
                            results = f.result()
                        except RecursionError:  # a result nested too deep to pickle back
                            results = task(batches[i])
                        done.add(i)
                        yield i, results
                finally:  # a consumer that stops early waits for no queued batch
                    for f in futures:
                        f.cancel()
        except (OSError, ImportError, NotImplementedError, BrokenExecutor):
            # no pool here, or it broke: the batches not yet answered, one at a time
            for i, batch in enumerate(batches):
                if i not in done:
                    yield i, task(batch)


def run(
    plan: Plan,
    task: Task[T],
    executor: Executor,
    *,
    large_task: Callable[[str], T] | None = None,
    large_first: bool = False,
) -> Iterator[tuple[str, T]]:
    """(path, result) for every file of `plan`, as results arrive: the batches on
    `executor`, then each large file through `large_task` here (where `verify` splits
    it across the cores). Without `large_task` a large file is a batch of one on the
    executor: after the others, or (`large_first`) before them, longest first, so a
    cluster does not end on one big file while other workers idle."""
    work: list[list[str]] = list(plan.batches)
    if large_task is None:
        alone = [[p] for p in plan.large]
        if large_first:
            alone.sort(key=lambda b: -(plan.sizes.get(b[0]) or 0))
            work = alone + work
        else:
            work = work + alone
    for i, results in executor.map_batches(task, work):
        yield from zip(work[i], results, strict=True)
    if large_task is not None:
        for path in plan.large:
            yield path, large_task(path)
