"""The work queue: ready cases first, dependants released when their dependencies finish
(well or not), nothing waits for a case that is not asked in this run."""

from __future__ import annotations

import asyncio

from fcbench.core.model import TestCase
from fcbench.runner.queue import WorkQueue


def case(case_id: str, *depends_on: str) -> TestCase:
    return TestCase(case_id, "c", [], [], None, {"depends_on": list(depends_on)})


def drain(queue: WorkQueue[str], workers: int) -> list[str]:
    """Run `workers` workers that finish each case after a few loop turns; the start order.
    Every case must start after its dependencies (those asked in this run) finished."""
    started: list[str] = []
    finished: set[str] = set()

    async def worker() -> None:
        while (item := await queue.next()) is not None:
            asked = {i for i in ["p0", "p1", "p2", "q", "x", "a", "b"]}
            waits = [d for d in item[1].extras["depends_on"] if d in asked]
            assert set(waits) <= finished, (item[1].id, waits, finished)
            started.append(item[1].id)
            for _ in range(3):
                await asyncio.sleep(0)
            finished.add(item[1].id)
            await queue.finished(item[1])

    async def main() -> None:
        await asyncio.wait_for(asyncio.gather(*(worker() for _ in range(workers))), 10)

    asyncio.run(main())
    return started


def test_a_chain_runs_in_order_while_other_work_fills_the_slots() -> None:
    items = [("j", case("p0")), ("j", case("p1", "p0")), ("j", case("p2", "p0", "p1")),
             ("j", case("a")), ("j", case("b")), ("j", case("q", "p0", "p1", "p2"))]
    started = drain(WorkQueue(items), workers=2)
    assert sorted(started) == ["a", "b", "p0", "p1", "p2", "q"]
    assert started.index("p0") < started.index("p1") < started.index("p2") < started.index("q")
    # with two workers the other cases do not wait behind the chain
    assert started.index("a") < started.index("p2")


def test_one_worker_never_deadlocks_and_unknown_dependencies_are_not_waited_for() -> None:
    items = [("j", case("q", "p1", "done-before")), ("j", case("p1")), ("j", case("x"))]
    assert drain(WorkQueue(items), workers=1) == ["p1", "q", "x"]


def test_without_dependencies_the_listed_order_is_kept() -> None:
    items = [("j", case(str(i))) for i in range(50)]
    assert drain(WorkQueue(items), workers=4) == [str(i) for i in range(50)]
