"""Run work in forked child processes and collect what they return.

Plain fork + pipes rather than a process pool: a child inherits everything the parent already
loaded (no pickling of inputs, no re-imports), and the parent stays as small as a sequential
run. Items are handed out one at a time through a shared "ticket" pipe, so a child that is done
takes the next item (jobs differ a lot in size; fixed shares left one core idle while the other
finished). Each child sends one pickled list of results back; an exception in a child is
re-raised in the parent, so a damaged data file gives the same one-line error either way, and
carries the child's traceback as a note (`worker_traceback`), which the parent alone could not
show (issue 30: a crash in a worker printed only the re-raised exception).
POSIX only: callers fall back to running in-process where `os.fork` does not exist.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import struct
import sys
import traceback
from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar

T = TypeVar("T")
R = TypeVar("R")

_TICKET = struct.Struct("<I")
"""One item index. Reads of a few bytes from a pipe are atomic, so each ticket goes to
exactly one child."""


def map_in_forks(work: Callable[[T], R], items: Sequence[T], workers: int) -> list[R]:
    """`[work(item) for item in items]`, computed by `workers` children; results in item order.

    Children take items in the order given, each as soon as it is free: put the largest first.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    tickets_read, tickets_write = os.pipe()
    os.write(tickets_write, b"".join(_TICKET.pack(index) for index in range(len(items))))
    os.close(tickets_write)  # children see end-of-file once every ticket is taken
    children = []
    for _ in range(min(workers, len(items))):
        read_end, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the child, which leaves through os._exit
            os.close(read_end)
            _child(work, items, tickets_read, write_end)
        os.close(write_end)
        children.append((pid, read_end))
    os.close(tickets_read)
    return _gather(children, len(items))


def _gather(children: list[tuple[int, int]], count: int) -> list[R]:
    """Every child's (index, result) pairs, put back in item order; the first failure raised."""
    done: dict[int, R] = {}
    failure: BaseException | None = None
    for pid, read_end in children:
        ok, value, trace = _collect(pid, read_end)
        if ok and isinstance(value, list):
            done.update(value)
        elif failure is None:
            failure = value if isinstance(value, BaseException) else RuntimeError(repr(value))
            if trace:
                _attach(failure, trace)
    if failure is None and len(done) != count:
        failure = RuntimeError("a worker process died before answering")
    if failure is not None:
        raise failure
    return [done[index] for index in range(count)]


def worker_traceback(exc: BaseException) -> str | None:
    """The traceback text of the worker process an exception was raised in, if it was."""
    trace = getattr(exc, "fcbench_worker_traceback", None)
    return trace if isinstance(trace, str) else None


def _attach(failure: BaseException, trace: str) -> None:
    with contextlib.suppress(AttributeError, TypeError):  # an exception without a __dict__
        failure.fcbench_worker_traceback = trace  # type: ignore[attr-defined]
        add_note = getattr(failure, "add_note", None)  # Python 3.11+
        if add_note is not None:
            add_note(f"Raised in a worker process:\n{trace.rstrip()}")


def _collect(pid: int, read_end: int) -> tuple[bool, object, str | None]:
    """Read a child's whole answer, then reap it (reading first: a full pipe blocks the child):
    (ok, results or exception, the child's traceback text when it failed)."""
    with os.fdopen(read_end, "rb") as pipe:
        payload = pipe.read()
    os.waitpid(pid, 0)
    try:
        ok, value, trace = pickle.loads(payload)
    except Exception:
        return False, RuntimeError("a worker process died before answering"), None
    return bool(ok), value, trace if isinstance(trace, str) else None


def _child(
    work: Callable[[T], R], items: Sequence[T], tickets: int, write_end: int
) -> None:  # pragma: no cover - runs in a child
    try:
        results = [(index, work(items[index])) for index in _take_tickets(tickets)]
        payload = pickle.dumps((True, results, None))
    except BaseException as exc:  # handed to the parent, which re-raises it
        trace = "".join(traceback.format_exception(exc))
        try:
            payload = pickle.dumps((False, exc, trace))
        except Exception:
            payload = pickle.dumps((False, RuntimeError(f"{type(exc).__name__}: {exc}"), trace))
    with os.fdopen(write_end, "wb") as pipe:
        pipe.write(payload)
    os._exit(0)


def _take_tickets(tickets: int) -> Iterator[int]:  # pragma: no cover - runs in a child
    """Item indices, one at a time, until the ticket pipe is empty."""
    while True:
        data = os.read(tickets, _TICKET.size)
        if len(data) < _TICKET.size:
            return
        yield _TICKET.unpack(data)[0]
