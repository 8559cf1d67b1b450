"""fcbench._json.loads: the same value or the same exception as json.loads."""

from __future__ import annotations

import json
import math
import sys
import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench import _json as fast_json

_JSON_PIECES = [
    '{"a": 1}',
    "[1, 2]",
    '"x"',
    "1e5",
    "NaN",
    "-Infinity",
    " ",
    "\n",
    "\t",
    "\r",
    "\ufeff",
    "{",
    "}",
    "]",
    ",",
    ":",
    "true",
    "null",
    '"\\u00e9"',
    '"\\ud800"',
    "01",
    "1.",
    "\x00",
    "\u2028",
    "\xa0",
    '"a\nb"',
]


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from(_JSON_PIECES) | st.text(max_size=4), max_size=6).map("".join))
def test_loads_is_exactly_json_loads(text: str) -> None:
    def outcome(loads: Any) -> Any:
        try:
            return ("value", repr(loads(text)))
        except (ValueError, RecursionError) as exc:
            return ("error", type(exc).__name__, str(exc))

    assert outcome(fast_json.loads) == outcome(json.loads)


# -- dumps_total: any value written, never an exception (issue 30) ------------------------

_ODD_KEYS = st.one_of(st.integers(), st.text(max_size=5), st.floats(), st.none(), st.booleans())
_ODD = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), st.floats(),
              st.text(alphabet=st.characters(codec=None), max_size=10),
              st.integers(4_400, 5_000).map(lambda n: -(10 ** n))),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.tuples(inner),
                            st.dictionaries(_ODD_KEYS, inner, max_size=3),
                            st.frozensets(st.one_of(st.integers(), st.text(max_size=3)),
                                          max_size=3)),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(_ODD, st.sampled_from([None, 1, 2]), st.booleans(),
       st.sampled_from([None, (",", ":"), (" ,", " : ")]))
def test_dumps_total_writes_anything_as_json_would(
    value: Any, indent: int | None, sort_keys: bool, separators: tuple[str, str] | None
) -> None:
    """Where json.dumps succeeds: its very text. Where it raises: a text json reads back
    (big integers allowed)."""
    text = fast_json.dumps_total(value, indent=indent, sort_keys=sort_keys,
                                 separators=separators)
    try:
        expected = json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=sort_keys,
                              separators=separators)
    except (TypeError, ValueError):
        limit = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)
        try:
            json.loads(text)
        finally:
            sys.set_int_max_str_digits(limit)
    else:
        assert text == expected


def test_dumps_total_orders_mixed_keys_and_prints_what_json_cannot() -> None:
    big = 10 ** 5000
    text = fast_json.dumps_total({"order_type": "Sell", 12446: {2, 1}, 3: big}, sort_keys=True)
    assert text == '{"3": ' + "1" + "0" * 5000 + ', "12446": [1, 2], "order_type": "Sell"}'
    nested: Any = 0
    for _ in range(sys.getrecursionlimit() * 3):
        nested = [nested]
    assert fast_json.dumps_total(nested) == "[" * (sys.getrecursionlimit() * 3) + "0" + "]" * (
        sys.getrecursionlimit() * 3)
    loop: list[Any] = []
    loop.append(loop)
    assert fast_json.dumps_total(loop) == '["[circular]"]'


_PLAIN = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-10**20, 10**20), st.floats(),
              st.text(alphabet=st.characters(codec=None), max_size=5)),
    lambda inner: st.one_of(st.lists(inner, max_size=3),
                            st.dictionaries(st.text(max_size=4), inner, max_size=3),
                            st.dictionaries(st.integers(), inner, max_size=3)),
    max_leaves=12,
)


@settings(max_examples=150, deadline=None)
@given(_PLAIN, st.sampled_from([None, 0, 1, 3]), st.booleans(),
       st.sampled_from([None, (",", ":")]))
def test_the_walk_writes_what_json_writes(
    value: Any, indent: int | None, sort_keys: bool, separators: tuple[str, str] | None
) -> None:
    """The fallback's text has json.dumps's layout: on values json can write, the same."""
    seps = separators or ((",", ": ") if indent is not None else (", ", ": "))
    walked = fast_json._Walk(indent, sort_keys, seps).text(value)
    assert walked == json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=sort_keys,
                                separators=separators)


# Integers past Python's limit on int <-> decimal text conversions (4,300 digits)

BIG = "7" * 5000
"""A JSON integer Python refuses to read by default."""


def test_int_digits_lifts_the_limit_inside_the_block_and_restores_it() -> None:
    before = sys.get_int_max_str_digits()
    with fast_json.int_digits():
        assert sys.get_int_max_str_digits() == 0
        assert len(str(int(BIG))) == 5000
        with fast_json.int_digits(fast_json.MAX_INT_DIGITS):  # never tighter than outside
            assert sys.get_int_max_str_digits() == 0
        assert sys.get_int_max_str_digits() == 0
    assert sys.get_int_max_str_digits() == before
    with pytest.raises(ValueError), fast_json.int_digits():
        raise ValueError("restored on the way out of an error too")
    assert sys.get_int_max_str_digits() == before


def test_overlapping_blocks_of_threads_restore_the_limit_when_the_last_one_closes() -> None:
    """Two threads' blocks open A, open B, close A, close B: a save-and-restore per block
    would leave the limit lifted for good (B saved A's 0) or lower it under B."""
    before = sys.get_int_max_str_digits()
    opened, closed_a = threading.Event(), threading.Event()
    seen: list[int] = []

    def b() -> None:
        with fast_json.int_digits():
            opened.set()
            closed_a.wait(5)
            seen.append(sys.get_int_max_str_digits())

    other = threading.Thread(target=b)
    with fast_json.int_digits(fast_json.MAX_INT_DIGITS):
        other.start()
        opened.wait(5)
    closed_a.set()
    other.join(5)
    assert seen == [0]  # A's exit did not put the default back under B
    assert sys.get_int_max_str_digits() == before


def test_loads_numbers_reads_long_integers_and_refuses_past_the_bound() -> None:
    line = '{"id": "simple_python_0", "latency": ' + BIG + "}"
    with pytest.raises(ValueError):
        json.loads(line)
    entry = fast_json.loads_numbers(line)
    assert entry["latency"] == _int(BIG)
    assert fast_json.loads_numbers(f"[-{BIG}]") == [-_int(BIG)]
    too_long = "[" + "1" * (fast_json.MAX_INT_DIGITS + 1) + "]"
    with pytest.raises(ValueError) as refused:
        fast_json.loads_numbers(too_long)
    assert not isinstance(refused.value, json.JSONDecodeError)
    with pytest.raises(json.JSONDecodeError):  # damage is still damage
        fast_json.loads_numbers('{"latency": ' + BIG)
    assert sys.get_int_max_str_digits() == 4300


def test_dumps_writes_an_integer_of_any_length_whole() -> None:
    value = {"base": 10**4400, "n": [-(16**3700 - 1)]}
    text = fast_json.dumps(value)
    assert text.startswith('{"base": 1' + "0" * 100)
    assert fast_json.loads_numbers(text) == value
    with pytest.raises(ValueError, match="Circular"):  # other errors are still raised
        circular: list[object] = []
        circular.append(circular)
        fast_json.dumps(circular)


def test_every_integer_fcbench_can_write_reads_back() -> None:
    """The longest integer decoding lets through is a hex literal filling the answer budget;
    its decimal digits must fit `MAX_INT_DIGITS`, so every score file fcbench writes reads
    back."""
    from fcbench.decode.budget import MAX_INT_BITS, MAX_TEXT_CHARS

    longest_literal = 16 ** (MAX_TEXT_CHARS - 2) - 1  # `0x` and the rest `f`
    assert _digits(longest_literal) <= fast_json.MAX_INT_DIGITS
    assert _digits(2**MAX_INT_BITS) <= fast_json.MAX_INT_DIGITS


def _int(text: str) -> int:
    with fast_json.int_digits():
        return int(text)


def _digits(value: int) -> int:
    """Decimal digits of a positive integer, without printing it."""
    return math.floor(value.bit_length() * math.log10(2)) + 1
