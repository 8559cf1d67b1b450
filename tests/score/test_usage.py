"""Token counts and latencies gathered from result entries."""

from __future__ import annotations

from typing import Any

from fcbench.score.usage import Usage

ENTRIES: list[dict[str, Any]] = [
    {"latency": 1.5, "input_token_count": 10, "output_token_count": 0},
    {"latency": 2, "input_token_count": None},
    {"result": "no usage at all"},
    {"latency": [[0.5, 0], [2.0]], "input_token_count": [[1, 2], []]},
    {"latency": "n/a", "output_token_count": True},
    {"latency": [1.0, 2.0], "output_token_count": False},  # a flat list is ignored
    {"latency": 0.0, "input_token_count": 7, "output_token_count": 3},
]


def one_by_one(entries: list[dict[str, Any]]) -> Usage:
    usage = Usage()
    for entry in entries:
        usage.add(entry)
    return usage


def test_extend_is_add_for_each_entry() -> None:
    """Per-field collection keeps each list's order, whatever the mix of entries."""
    for entries in (ENTRIES, ENTRIES[:3], ENTRIES[::-1], [ENTRIES[0], ENTRIES[6]], []):
        usage = Usage()
        usage.extend(iter(entries))  # any iterable, read once
        assert usage == one_by_one(entries)


def test_plain_numbers_skip_zeros_and_missing_values() -> None:
    usage = Usage()
    usage.extend([ENTRIES[0], ENTRIES[1], ENTRIES[2], ENTRIES[6]])
    assert usage.latencies == [1.5, 2]
    assert usage.input_tokens == [10, 7]
    assert usage.output_tokens == [3]
