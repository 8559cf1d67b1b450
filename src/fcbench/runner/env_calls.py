"""Environment calls during generation: off the event loop, under a wall-clock budget.

The conversation loop of every case shares one event loop, so a call that computes or waits
for long must not run on it: each step's calls run in a thread of their own while the loop
goes on serving the other cases. Python cannot stop a thread, so past the budget the loop
stops *waiting*: the case fails with the reason (the runner records it and a later run asks
it again), and the abandoned thread, a daemon, ends on its own or with the process. The
environments bound their known expensive calls themselves (`envs.budget`), so the budget here
is for what nobody foresaw.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
import time
from collections.abc import Callable

from fcbench.envs import budget
from fcbench.envs.budget import BudgetExceeded
from fcbench.envs.scenario import Scenario

__all__ = ["CaseCalls", "execute_calls"]


class CaseCalls:
    """One case's environment calls during generation: each step's calls may take
    `envs.budget.CALL_SECONDS`, and all of the case's together `CASE_CALL_SECONDS` (both
    read when the case starts)."""

    def __init__(self) -> None:
        self.left = budget.CASE_CALL_SECONDS

    async def execute(self, env: Scenario, calls: list[str]) -> list[str]:
        """Run one step's calls; BudgetExceeded past either budget."""
        per_call = budget.CALL_SECONDS
        limit = min(per_call, self.left)
        started = time.monotonic()
        try:
            return await execute_calls(env, calls, limit)
        except BudgetExceeded:
            if limit < per_call:
                raise BudgetExceeded(
                    f"the case's environment calls ran for more than "
                    f"{budget.CASE_CALL_SECONDS:g} s in all ({_shown(calls)})"
                ) from None
            raise
        finally:
            self.left -= time.monotonic() - started


async def execute_calls(env: Scenario, calls: list[str], seconds: float | None = None
                        ) -> list[str]:
    """`env.execute(calls)` in a daemon thread; BudgetExceeded after `seconds` (default
    `envs.budget.CALL_SECONDS`, read at call time)."""
    limit = budget.CALL_SECONDS if seconds is None else seconds
    loop = asyncio.get_running_loop()
    outcome: asyncio.Future[list[str]] = loop.create_future()

    def settle(results: list[str] | None, error: BaseException | None) -> None:
        if outcome.done():
            return  # the loop gave up waiting
        if error is not None:
            outcome.set_exception(error)
        else:
            outcome.set_result(results or [])

    def work() -> None:
        try:
            results = env.execute(calls)
        except BaseException as exc:  # handed to the waiting case, as if raised there
            _report(loop, settle, None, exc)
        else:
            _report(loop, settle, results, None)

    threading.Thread(target=work, name="fcbench-environment-call", daemon=True).start()
    try:
        return await asyncio.wait_for(asyncio.shield(outcome), limit)
    except asyncio.TimeoutError:  # TimeoutError itself only from Python 3.11
        raise BudgetExceeded(
            f"environment calls ran for more than {limit:g} s ({_shown(calls)})"
        ) from None


_Settle = Callable[[list[str] | None, BaseException | None], None]


def _report(loop: asyncio.AbstractEventLoop, settle: _Settle, results: list[str] | None,
            error: BaseException | None) -> None:
    """Hand the outcome to the loop; a loop already closed (the run ended) needs none."""
    with contextlib.suppress(RuntimeError):
        loop.call_soon_threadsafe(settle, results, error)


def _shown(calls: list[str]) -> str:
    """The calls, shortened for a one-line reason."""
    text = ", ".join(calls)
    return text if len(text) <= 200 else text[:197] + "..."
