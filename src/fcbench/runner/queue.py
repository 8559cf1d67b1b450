"""The order cases are asked in, with dependencies (`extras["depends_on"]`: ids that must be
finished first, as upstream's scheduler has them for memory prerequisites and questions).

Workers take the next *ready* case: one whose dependencies are all finished (or were
finished by an earlier run: only ids still to ask in this run are waited for). A case whose
dependencies finish later is put at the front, so a chain of prerequisite conversations keeps
moving while other cases fill the remaining slots; a failed case releases its dependants, as
upstream. Nothing can wait forever: an id that is not asked in this run is never waited for,
and dependencies point only backwards in the order the cases are listed.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import Sequence
from typing import Generic, TypeVar

from fcbench.core.model import TestCase

Job = TypeVar("Job")


class WorkQueue(Generic[Job]):
    """(job, case) items, handed out ready first, in their listed order otherwise."""

    def __init__(self, items: Sequence[tuple[Job, TestCase]]) -> None:
        pending = {case.id for _, case in items}
        self._ready: deque[tuple[Job, TestCase]] = deque()
        self._waiting: dict[str, int] = {}  # case id -> unfinished dependencies
        self._dependants: dict[str, list[tuple[Job, TestCase]]] = {}
        for item in items:
            waits_for = [d for d in dependencies(item[1]) if d in pending]
            if waits_for:
                self._waiting[item[1].id] = len(waits_for)
                for dep in waits_for:
                    self._dependants.setdefault(dep, []).append(item)
            else:
                self._ready.append(item)
        self._changed = asyncio.Condition()

    async def next(self) -> tuple[Job, TestCase] | None:
        """The next ready item; None when nothing is left to hand out."""
        async with self._changed:
            while not self._ready:
                if not self._waiting:
                    return None
                await self._changed.wait()
            return self._ready.popleft()

    async def finished(self, case: TestCase) -> None:
        """`case` is done (well or not): its dependants may become ready."""
        async with self._changed:
            released = False
            for item in reversed(self._dependants.pop(case.id, [])):
                left = self._waiting[item[1].id] - 1
                if left:
                    self._waiting[item[1].id] = left
                else:
                    del self._waiting[item[1].id]
                    self._ready.appendleft(item)
                    released = True
            if released or not self._waiting:
                self._changed.notify_all()


def dependencies(case: TestCase) -> list[str]:
    found = case.extras.get("depends_on") or []
    return [str(d) for d in found] if isinstance(found, list) else []
