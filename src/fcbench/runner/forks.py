"""Run work in forked child processes and collect what they return.

Plain fork + pipe rather than a process pool: a child inherits everything the parent already
loaded (no pickling of inputs, no re-imports), and the parent stays as small as a sequential
run. Each child sends one pickled result back; an exception in a child is re-raised in the
parent, so a damaged data file gives the same one-line error either way. POSIX only: callers
fall back to running in-process where `os.fork` does not exist.
"""

from __future__ import annotations

import os
import pickle
import sys
from collections.abc import Callable, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")


def map_in_forks(work: Callable[[T], list[R]], shares: Sequence[T]) -> list[R]:
    """`work(share)` for every share, each in its own child; the results concatenated in order."""
    sys.stdout.flush()
    sys.stderr.flush()
    children = []
    for share in shares:
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child, which leaves through os._exit
            os.close(read_end)
            _child(work, share, write_end)
        os.close(write_end)
        children.append((pid, read_end))
    results: list[R] = []
    failure: BaseException | None = None
    for pid, read_end in children:
        ok, value = _collect(pid, read_end)
        if ok and isinstance(value, list):
            results.extend(value)
        elif failure is None:
            failure = value if isinstance(value, BaseException) else RuntimeError(repr(value))
    if failure is not None:
        raise failure
    return results


def _collect(pid: int, read_end: int) -> tuple[bool, object]:
    """Read a child's whole answer, then reap it (reading first: a full pipe blocks the child)."""
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    os.waitpid(pid, 0)
    try:
        ok, value = pickle.loads(payload)
    except Exception:
        return False, RuntimeError("a worker process died before answering")
    return bool(ok), value


def _child(work: Callable[[T], list[R]], share: T, write_end: int) -> None:  # pragma: no cover
    try:
        payload = pickle.dumps((True, work(share)))
    except BaseException as exc:  # handed to the parent, which re-raises it
        try:
            payload = pickle.dumps((False, exc))
        except Exception:
            payload = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}")))
    with os.fdopen(write_end, "wb") as pipe:
        pipe.write(payload)
    os._exit(0)
