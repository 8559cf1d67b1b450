"""Budgets for environment calls: what one call, and one case, may cost.

Call strings come from model output (or from a result file someone else wrote), and a few
official environment functions do work proportional to a *value* in them rather than to
their length: `square_root(number=2, precision=999999999)` computes a billion digits (upstream:
minutes and gigabytes), `cp` of a directory shares its children, so repeated copies build a
tree whose paths double each time. Two defences, both defined here:

* semantic bounds inside the environments (`BudgetExceeded`, raised *before* the expensive work
  and before any state changes): the dispatcher renders it as an error result, like any
  exception a call raises upstream, so the conversation and the checker go on;
* a wall-clock budget per call during generation (`CALL_SECONDS`: the conversation loop runs
  calls in a worker thread and gives up waiting) and per case during evaluation
  (`CASE_SECONDS`, `CASE_MEMORY_BYTES`: `check.multi_turn` stops a replay that overruns and
  records the case as failed with `BUDGET_ERROR_TYPE`).

The bounds sit far above anything the benchmark's ground truth needs (measured on the
2026.3.23 release, long context included: the largest precision asked for is 10 digits, the
largest tree 126 entries and 29,576 characters of text), so no normal verdict changes: an
over-budget call's result could never have matched a ground-truth result.
"""

from __future__ import annotations

import contextlib
import resource
import signal
import threading
import time
from collections.abc import Iterator
from types import FrameType

__all__ = [
    "BUDGET_ERROR_TYPE",
    "CALL_SECONDS",
    "CASE_CALL_SECONDS",
    "CASE_MEMORY_BYTES",
    "CASE_SECONDS",
    "MAX_MEMORY_TEXT",
    "MAX_PRECISION_DIGITS",
    "MAX_RESULT_DIGITS",
    "MAX_TREE_NODES",
    "MAX_TREE_TEXT",
    "BudgetExceeded",
    "CaseOverBudget",
    "case_budget",
]

MAX_PRECISION_DIGITS = 10_000
"""Digits `square_root` and `logarithm` may be asked for (10,000 take < 0.3 s)."""

MAX_RESULT_DIGITS = 100_000
"""Decimal digits an integer `power` may produce when Python's own limit on printing
integers (`sys.get_int_max_str_digits`) is switched off."""

MAX_TREE_NODES = 20_000
"""Entries a file system may hold, counted along every path (a shared child counts once per
path that reaches it, as listing, sizing, comparing and printing the tree all do)."""

MAX_TREE_TEXT = 5_000_000
"""Characters of file text a file system may hold, counted the same way."""

MAX_MEMORY_TEXT = 10_000_000
"""Characters the recursive-summary memory may reach by `memory_replace` (which, upstream,
checks only the new text's length: two replaces of one character by 10,000 would make 10**12);
1,000 times its entry limit."""

CALL_SECONDS = 30.0
"""Wall-clock seconds the conversation loop waits for one step's environment calls."""

CASE_CALL_SECONDS = 120.0
"""Wall-clock seconds all of one case's environment calls may take together during generation
(its model calls not counted)."""

CASE_SECONDS = 10.0
"""Wall-clock seconds the multi-turn checker may spend replaying one case."""

CASE_MEMORY_BYTES = 500 * 1024 * 1024
"""Address space one case's replay may add, where the checker can enforce it (a forked
evaluation worker: `RLIMIT_AS`)."""

BUDGET_ERROR_TYPE = "fcbench:environment_budget_exceeded"
"""The error type of a case whose replay overran its budget. The official evaluator has no
verdict for such a case (it runs for minutes and then stops on a `MemoryError`, writing no
score file), so fcbench records a failure of its own type, which names the reason."""


class BudgetExceeded(Exception):
    """A call (or a case) would cost more than its budget; the message says which and why."""


class CaseOverBudget(BaseException):
    """A whole case ran out of time. A `BaseException`, so that the dispatcher's catch-all
    (which turns a call's exceptions into error results, as upstream) lets it through to
    the checker, which records the case as failed."""


@contextlib.contextmanager
def case_budget(seconds: float = CASE_SECONDS, memory: int = CASE_MEMORY_BYTES
                ) -> Iterator[None]:
    """Run the block under a wall-clock and an address-space budget.

    Time: a `SIGALRM` timer raises `CaseOverBudget` in the block (main thread only; Python
    code is interrupted between bytecodes, which is why the environments also bound the
    single C-level computations that could run for minutes). Memory: `RLIMIT_AS` is lowered to
    the current address space plus `memory`, so an allocation past it raises `MemoryError`.
    Both are put back as they were afterwards. Where a mechanism is missing (not the main
    thread, no `setitimer`, no `/proc`), the block runs without it.
    """
    with _alarm(seconds), _address_space(memory):
        yield


@contextlib.contextmanager
def _alarm(seconds: float) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread() or seconds <= 0:
        yield
        return

    def expired(signum: int, frame: FrameType | None) -> None:
        raise CaseOverBudget(f"the case ran for more than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, expired)
    started = time.monotonic()
    outer, interval = signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if outer:  # someone else's timer was running: it goes on with what it had left
            left = max(outer - (time.monotonic() - started), 0.001)
            signal.setitimer(signal.ITIMER_REAL, left, interval)


@contextlib.contextmanager
def _address_space(extra: int) -> Iterator[None]:
    current = _address_space_now()
    try:
        previous = resource.getrlimit(resource.RLIMIT_AS)
    except (ValueError, OSError):
        current = None
    if current is None or extra <= 0:
        yield
        return
    soft, hard = previous
    wanted = current + extra
    if hard != resource.RLIM_INFINITY:
        wanted = min(wanted, hard)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        wanted = soft  # a tighter limit set by someone else stays
    try:
        resource.setrlimit(resource.RLIMIT_AS, (wanted, hard))
    except (ValueError, OSError):
        yield
        return
    try:
        yield
    finally:
        resource.setrlimit(resource.RLIMIT_AS, previous)


def _address_space_now() -> int | None:
    """This process's address space in bytes (Linux `/proc`), or None where unknown."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            pages = int(statm.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * resource.getpagesize()
