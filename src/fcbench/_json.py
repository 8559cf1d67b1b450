"""`json.loads` for str input without its Python-level wrapping.

Result files and FC arguments mean tens of thousands of small `json.loads` calls per
evaluation, and for short texts the wrapping (whitespace regexes, type checks, decoder
dispatch) costs as much as the parsing. `loads` calls the C scanner `json.loads` uses; any
input it does not settle (bytes, a BOM, damage) goes to `json.loads` itself, which then
raises its usual error.

Also here: `int_digits`, the one place fcbench lifts Python's limit on converting integers
to and from decimal text (4,300 digits), for the readers and writers of data files.
"""

from __future__ import annotations

import json
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

_SCAN: Callable[[str, int], tuple[Any, int]] = json.JSONDecoder().scan_once  # type: ignore[attr-defined]
_SPACE = " \t\n\r"  # JSON whitespace, what json.loads skips around the value


class RawJSON(str):
    """A value that is already JSON text (e.g. a case's prompt, serialised once and reused
    for every model that fails the case); writers put it in as is."""

    __slots__ = ()


def loads(text: str | bytes | bytearray) -> Any:
    """Exactly `json.loads(text)`: the same value, or the same exception."""
    if type(text) is str:
        stripped = text.strip(_SPACE)
        try:
            value, end = _SCAN(stripped, 0)
        except (StopIteration, ValueError):
            pass
        else:
            if end == len(stripped):
                return value
    return json.loads(text)


MAX_INT_DIGITS = 160_000
"""Decimal digits of the longest integer a data file's reader accepts (`loads_numbers`).

Python refuses integers past 4,300 digits (`sys.get_int_max_str_digits`) because reading and
printing them is quadratic: 160,000 digits take 0.1-0.3 s to read and 0.3-0.6 s to print, a
million 4.5 s and 13 s (Python 3.11, a shared 2-core machine). A result line with a
5,000-digit `latency` must not stop a run, and one holding a ten-megabyte number must not
stall it. 160,000 digits hold the longest integer fcbench itself can write in a score file:
a hex literal filling the decoding budget (131,072 characters: 157,825 decimal digits), so
every score file it writes reads back."""

_lifts_lock = threading.Lock()
_lifts: list[int] = []
"""The limit each open `int_digits` block asked for (0: none)."""
_outside_limit = 0
"""The limit in force when no block is open (saved when the first one opens)."""


@contextmanager
def int_digits(limit: int = 0) -> Iterator[None]:
    """Python's limit on int <-> decimal text conversions raised to `limit` digits (0: no
    limit) inside the block, and put back after it.

    For the readers and writers of data files, and for a check the limit stopped
    (`check.single_turn`), never around decoding: the official decoder meets the default
    limit (a 5,000-digit literal in a Python or JSON answer fails to decode there), and
    fcbench's decoders give the same verdict by meeting it too. The setting is
    process-wide, so overlapping blocks (threads) are counted: the limit is the loosest any
    open block asked for, never tighter than outside, and restored when the last block
    closes. Code that runs beside decoding threads (generation's result store) raises it
    only for a value that needs it (`loads_numbers`, `dumps`), so another thread's decoding
    can meet the raised limit only while such a value is read or written. A Python without
    the limit (before 3.10.7) has nothing to lift."""
    if not hasattr(sys, "set_int_max_str_digits"):  # pragma: no cover - old Python
        yield
        return
    _open(limit)
    try:
        yield
    finally:
        _close(limit)


def _open(limit: int) -> None:
    global _outside_limit
    with _lifts_lock:
        if not _lifts:
            _outside_limit = sys.get_int_max_str_digits()
        _lifts.append(limit)
        _apply()


def _close(limit: int) -> None:
    with _lifts_lock:
        _lifts.remove(limit)
        _apply()


def _apply() -> None:
    """Set the loosest of the open blocks' limits and the outside one (0 is the loosest)."""
    wanted = [*_lifts, _outside_limit]
    sys.set_int_max_str_digits(0 if 0 in wanted else max(wanted))


def loads_numbers(text: str | bytes | bytearray) -> Any:
    """`loads` for a data file's line that may hold integers past Python's default limit:
    up to `MAX_INT_DIGITS` digits are read as `int`; a longer one raises `ValueError` (the
    line is damaged for the caller, as any other unreadable line). The limit is raised only
    for a line that needs it (read twice: such lines are rare)."""
    try:
        return loads(text)
    except json.JSONDecodeError:
        raise
    except ValueError:  # the only other error json raises: an integer past the limit
        with int_digits(MAX_INT_DIGITS):
            return loads(text)


def dumps(value: Any, **options: Any) -> str:
    """`json.dumps(value, **options)`, writing an integer of any length whole (the limit is
    raised only for a value that needs it)."""
    try:
        return json.dumps(value, **options)
    except ValueError:  # an integer past the limit (or a circular value: raised again)
        with int_digits():
            return json.dumps(value, **options)
