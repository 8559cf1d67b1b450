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
from collections.abc import Callable, Iterator, Mapping
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


# -- Writing any value -----------------------------------------------------------------------

_INDENT_LIMIT = 64
"""Nesting levels indented in full by `dumps_total`; deeper levels are written on one line
(so a 10,000-level state does not become 50 MB of leading spaces)."""


def dumps_total(value: Any, *, indent: int | None = None, sort_keys: bool = False,
                separators: tuple[str, str] | None = None) -> str:
    """`json.dumps(value, ensure_ascii=False, indent=..., sort_keys=..., separators=...)`, or,
    where that raises, the same kind of text written by a walk that never raises.

    Why: environment states and answers hold what no JSON writer expects (int keys beside
    str keys, which `sort_keys` cannot order; sets; integers past Python's 4,300-digit
    str() limit; nesting deeper than the recursion limit; objects whose `__str__` raises),
    and one such value must not cost a report or a score file. The walk: keys ordered by
    kind then value when asked (numbers numerically, the rest by text), sets as sorted
    lists, big integers printed in full, NaN/Infinity as `json.dumps` writes them, other
    objects as their `str()` (or `<type object>`), a container inside itself as
    `"[circular]"`. It keeps its own stack, so depth costs no recursion.
    """
    try:
        return json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=sort_keys,
                          separators=separators)
    except (TypeError, ValueError, RecursionError, MemoryError):
        pass
    if separators is None:  # json.dumps's defaults
        separators = (",", ": ") if indent is not None else (", ", ": ")
    return _Walk(indent, sort_keys, separators).text(value)


def safe_str(value: Any) -> str:
    """`str(value)`, for any value: big integers in full, an object whose `__str__` raises
    as `<type object>`."""
    if isinstance(value, int) and not isinstance(value, bool):
        return _int_text(value)
    try:
        return str(value)
    except Exception:
        return f"<{type(value).__name__} object>"


def _int_text(number: int) -> str:
    try:
        return int.__repr__(number)
    except ValueError:  # past sys.get_int_max_str_digits(): Decimal has no such limit
        from decimal import Decimal

        return str(Decimal(number))


def _scalar_text(value: Any) -> str:
    """A leaf as JSON text (never a container)."""
    if value is None or value is True or value is False:
        return {None: "null", True: "true", False: "false"}[value]
    if isinstance(value, str):
        return json.encoder.encode_basestring(value)
    if isinstance(value, int):
        return _int_text(value)
    if isinstance(value, float):
        return _float_text(value)
    return json.encoder.encode_basestring(safe_str(value))


def _float_text(number: float) -> str:
    if number != number:
        return "NaN"
    if number in (float("inf"), float("-inf")):
        return "Infinity" if number > 0 else "-Infinity"
    return float.__repr__(number)


def _key_text(key: Any) -> str:
    """A key as `json.dumps` turns it into a string (other kinds: their `str()`)."""
    if isinstance(key, str):
        return key
    if key is None or isinstance(key, (bool, int, float)):
        return _scalar_text(key)
    return safe_str(key)


def _order(item: Any) -> tuple[int, Any]:
    """A total order over mixed items: numbers numerically, then everything else by text."""
    if isinstance(item, (int, float)) and not isinstance(item, bool) and item == item:
        return (0, item)
    return (1, _key_text(item))


_Frame = tuple[Iterator[tuple[Any, Any]], str, int, list[int]]
"""An open container: its (key, value) items, its closing bracket, its id, [items written]."""


class _Walk:
    """The never-raising writer behind `dumps_total` (iterative: an explicit stack)."""

    def __init__(self, indent: int | None, sort_keys: bool, separators: tuple[str, str]
                 ) -> None:
        self.indent = indent
        self.sort_keys = sort_keys
        self.item_separator, self.key_separator = separators
        self.parts: list[str] = []
        self.open: set[int] = set()

    def text(self, value: Any) -> str:
        stack: list[_Frame] = []
        self._enter(value, stack)
        while stack:
            items, closer, ident, count = stack[-1]
            item = next(items, None)
            if item is None:
                stack.pop()
                self.open.discard(ident)
                self.parts.append((self._newline(len(stack)) if count[0] else "") + closer)
                continue
            self.parts.append(self.item_separator if count[0] else "")
            self.parts.append(self._newline(len(stack)))
            count[0] += 1
            key, child = item
            if key is not _NO_KEY:
                self.parts.append(json.encoder.encode_basestring(_key_text(key))
                                  + self.key_separator)
            self._enter(child, stack)
        return "".join(self.parts)

    def _newline(self, depth: int) -> str:
        if self.indent is None or depth > _INDENT_LIMIT:
            return ""
        return "\n" + " " * (self.indent * depth)

    def _enter(self, value: Any, stack: list[_Frame]) -> None:
        items = self._items(value)
        if items is None:
            self.parts.append(_scalar_text(value))
            return
        if id(value) in self.open:
            self.parts.append('"[circular]"')
            return
        self.open.add(id(value))
        opener, closer = ("{", "}") if isinstance(value, (dict, Mapping)) else ("[", "]")
        self.parts.append(opener)
        stack.append((items, closer, id(value), [0]))

    def _items(self, value: Any) -> Iterator[tuple[Any, Any]] | None:
        if type(value) in _SCALARS:  # the usual leaf, decided without an ABC check
            return None
        if isinstance(value, (list, tuple)):
            return ((_NO_KEY, item) for item in value)
        if isinstance(value, (dict, Mapping)):
            keys = list(value)
            if self.sort_keys:
                keys.sort(key=_order)
            return ((key, value[key]) for key in keys)
        if isinstance(value, (set, frozenset)):
            return ((_NO_KEY, item) for item in sorted(value, key=_order))
        return None


_NO_KEY = object()
_SCALARS = frozenset({str, int, float, bool, type(None)})
