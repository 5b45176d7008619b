"""``WorkerPool.run``: a failed task stops the run without killing a worker mid-write.
``multiprocessing.Pool.terminate`` kills busy workers, and one killed while it writes a
result holds the result queue's lock for ever, so that the pool's shutdown never returns
(seen once in CI: an arena whose every game failed, both workers racing through them)."""

from __future__ import annotations

import pickle
import time
from pathlib import Path

import pytest

from parlour.processes import WorkerTraceback, start_pool, stopping


def _square(task: int) -> int:
    return task * task


def _fail_first(task: tuple[int, str]) -> int:
    """Task 0 fails at once; every other one notes that it ran, then takes a while."""
    number, folder = task
    if number == 0:
        raise ValueError("task 0 is broken")
    (Path(folder) / str(number)).touch()
    time.sleep(0.05)
    return number


def _wait_for_the_failure(task: int) -> str:
    """Task 0 fails after a moment; task 1 runs until it is told to stop."""
    if task == 0:
        time.sleep(0.3)
        raise RuntimeError("task 0 failed late")
    while not stopping():
        time.sleep(0.01)
    return "stopped"


class Unpicklable:
    def __reduce__(self):
        raise pickle.PicklingError("this result cannot be sent back")


def _unpicklable(task: int) -> object:
    return Unpicklable() if task == 3 else task


@pytest.fixture(scope="module")
def pool():
    with start_pool(2) as pool:
        yield pool


def test_a_run_gives_every_result_in_order_or_as_they_finish(pool):
    assert list(pool.run(_square, range(20))) == [n * n for n in range(20)]
    assert sorted(pool.run(_square, range(20), ordered=False, chunksize=3)) == [n * n for n in range(20)]


def test_a_failure_skips_the_tasks_not_yet_started_and_is_raised_with_the_workers_traceback(pool, tmp_path):
    with pytest.raises(ValueError, match="task 0 is broken") as raised:
        list(pool.run(_fail_first, [(n, str(tmp_path)) for n in range(60)]))
    assert isinstance(raised.value.__cause__, WorkerTraceback)
    assert "_fail_first" in str(raised.value.__cause__)  # the worker's own traceback, as text
    ran = len(list(tmp_path.iterdir()))
    assert ran < 10, f"{ran} of the 59 tasks after the failure ran: the rest should have been skipped"
    assert list(pool.run(_square, range(5))) == [0, 1, 4, 9, 16]  # the next run starts afresh


def test_a_long_task_can_end_early_when_another_one_fails(pool):
    # Without ``stopping()`` task 1 would never end, and the run (and this test) would hang.
    with pytest.raises(RuntimeError, match="task 0 failed late"):
        list(pool.run(_wait_for_the_failure, [0, 1], ordered=False))


def test_a_result_that_cannot_be_sent_back_fails_the_run(pool):
    with pytest.raises(Exception, match="cannot be sent back"):
        list(pool.run(_unpicklable, range(8)))
    assert list(pool.run(_square, [7])) == [49]
