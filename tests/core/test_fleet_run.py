"""core.fleet_run: the one planner and runner of many ledgers, on real executors (this
process, a real spawn pool, a pool whose worker dies)."""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Sequence

from sealscope.core import fleet_run
from sealscope.core.fleet_run import LocalPool, Serial, plan_batches, run


def _lengths(batch: Sequence[str]) -> list[tuple[int, int]]:
    """A task: each item's length and the process that handled it."""
    return [(len(x), os.getpid()) for x in batch]


def _dies_in_a_worker(batch: Sequence[str]) -> list[tuple[int, int]]:
    """A task whose worker process is killed on the batch holding "kill" (a worker
    the OS ends); in the caller it answers."""
    if "kill" in batch and multiprocessing.parent_process() is not None:
        os._exit(9)
    return _lengths(batch)


SIZED = [(f"f{i:03d}", 100) for i in range(10)] + [("big", 10**9), ("kill", None)]


def test_the_plan_batches_small_files_and_keeps_large_ones_alone():
    plan = plan_batches(SIZED, batch_files=4)
    assert plan.batches == [
        ["f000", "f001", "f002", "f003"],
        ["f004", "f005", "f006", "f007"],
        ["f008", "f009", "kill"],
    ]
    assert plan.large == ["big"] and plan.small_bytes == 1000
    assert fleet_run.LARGE_BYTES <= 10**9


def test_serial_and_pool_give_the_same_answers_large_files_in_the_caller():
    plan = plan_batches(SIZED, batch_files=4)
    here = os.getpid()

    def large(path: str) -> tuple[int, int]:
        return (-1, os.getpid())

    serial = dict(run(plan, _lengths, Serial(), large_task=large))
    pooled = dict(run(plan, _lengths, LocalPool(2), large_task=large))
    assert {k: v[0] for k, v in serial.items()} == {k: v[0] for k, v in pooled.items()}
    assert len(serial) == len(SIZED) and serial["big"] == (-1, here)
    assert all(pid == here for _n, pid in serial.values())
    assert pooled["big"][1] == here  # split by verify, here
    assert {pooled[p][1] for p in ("f000", "f004", "f008")} - {here}  # from workers


def test_without_a_large_task_a_large_file_is_a_task_of_its_own_longest_first():
    sized = [("a", 1), ("huge", 3 * 10**9), ("big", 2 * 10**9)]
    plan = plan_batches(sized)
    assert [p for p, _r in run(plan, _lengths, Serial())] == ["a", "huge", "big"]
    assert [p for p, _r in run(plan, _lengths, Serial(), large_first=True)] == ["huge", "big", "a"]


def test_a_broken_pool_answers_the_rest_one_at_a_time():
    plan = plan_batches(SIZED, batch_files=4)
    got = dict(run(plan, _dies_in_a_worker, LocalPool(2), large_task=lambda p: (0, 0)))
    assert sorted(got) == sorted(p for p, _n in SIZED)  # every file answered once
    assert got["kill"] == (4, os.getpid())  # the killed batch: here


def test_one_batch_or_one_worker_starts_no_pool():
    here = os.getpid()
    plan = plan_batches(SIZED[:3])
    assert {pid for _p, (_n, pid) in run(plan, _lengths, LocalPool(8))} == {here}
    plan = plan_batches(SIZED, batch_files=2)
    assert {
        pid for _p, (_n, pid) in run(plan, _lengths, LocalPool(1), large_task=lambda p: (0, here))
    } == {here}


def test_stopping_early_drops_the_batches_not_started():
    plan = plan_batches([(f"f{i:03d}", 1) for i in range(40)], batch_files=1)
    it = run(plan, _lengths, LocalPool(2))
    first = next(it)
    it.close()  # returns: queued batches were cancelled
    assert first[0].startswith("f")


def test_a_cluster_plan_grows_its_batches_while_every_thread_keeps_its_share():
    few = [(f"s{i:04d}", 100_000) for i in range(200)]  # 20 MB: the pool's batches
    assert fleet_run.cluster_plan(few, 2).batches == plan_batches(few).batches
    many = [(f"m{i:05d}", 200_000) for i in range(20_000)] + [("big", 10**9)]  # 4 GB
    plan = fleet_run.cluster_plan(many, 2)
    bytes_per_batch = [len(b) * 200_000 for b in plan.batches]
    assert max(bytes_per_batch) < fleet_run.CLUSTER_BATCH_BYTES + 200_000
    assert min(bytes_per_batch[:-1]) >= fleet_run.CLUSTER_BATCH_BYTES
    assert plan.large == ["big"] and sum(map(len, plan.batches)) == 20_000
    # a wider cluster: smaller batches, so that each of its threads still gets its share,
    # and never smaller than the pool's
    wider = fleet_run.cluster_plan(many, 16)
    assert len(wider.batches) >= 16 * fleet_run.TASKS_PER_SLOT > len(plan.batches)
    assert fleet_run.cluster_plan(many, 64).batches == plan_batches(many).batches
