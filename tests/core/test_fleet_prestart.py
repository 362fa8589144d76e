"""A pool started ahead (`fleet_run.prestart`): the next local pool run takes it and
always shuts it down, and the CLI starts one only once its walk found enough files
for a pool (`fleet_engine.MANY_FILES`)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
from sealscope import fleet_engine
from sealscope.core import fleet, fleet_run

SAMPLES = Path(__file__).resolve().parents[2] / "sample_ledgers"


@pytest.fixture(autouse=True)
def _none_left():  # type: ignore[no-untyped-def]
    yield
    fleet_run.discard_started()
    assert not fleet_run._started


def test_a_started_pool_is_taken_and_gives_the_serial_answer() -> None:
    batches = [[str(SAMPLES / "session.jsonl")], [str(SAMPLES / "liar.jsonl")]]
    want = dict(fleet_run.Serial().map_batches(fleet.audit_batch, batches))
    fleet_run.prestart(2)
    assert len(fleet_run._started) == 1
    got = dict(fleet_run.LocalPool(2).map_batches(fleet.audit_batch, batches))
    assert got == want and len(got) == 2
    assert not fleet_run._started  # taken, and shut down at the end of the run


def test_a_run_that_needs_no_pool_still_shuts_the_started_one_down() -> None:
    fleet_run.prestart(2)
    (pool,) = [p for _n, p in fleet_run._started]
    got = list(
        fleet_run.LocalPool(2).map_batches(fleet.audit_batch, [[str(SAMPLES / "session.jsonl")]])
    )
    assert len(got) == 1 and not fleet_run._started
    with pytest.raises(RuntimeError):  # shut down: it takes no more work
        pool.submit(fleet_run._warm)


def test_the_walk_starts_the_pool_only_for_enough_files(tmp_path: Path) -> None:
    calls: list[int] = []
    few = tmp_path / "few"
    few.mkdir()
    for i in range(3):
        shutil.copy(SAMPLES / "session.jsonl", few / f"{i}.jsonl")
    sized, _ = fleet_engine.gather([str(few)], "*.jsonl", {}, on_many=lambda: calls.append(1))
    assert len(sized) == 3 and calls == []
    many = tmp_path / "many"
    many.mkdir()
    for i in range(fleet_engine.MANY_FILES + 5):
        (many / f"{i:04d}.jsonl").write_bytes(b"")
    sized, _ = fleet_engine.gather([str(many)], "*.jsonl", {}, on_many=lambda: calls.append(1))
    assert len(sized) == fleet_engine.MANY_FILES + 5 and calls == [1]
