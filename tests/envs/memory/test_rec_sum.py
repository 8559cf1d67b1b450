"""MemoryAPI_rec_sum: the 10,000-character limit, upstream's replace rules, 0 differences."""

from __future__ import annotations

import random

import pytest

from fcbench.envs.budget import BudgetExceeded
from fcbench.envs.memory.rec_sum import MemoryRecSum
from fcbench.envs.multi_turn.dispatch import render_result

from .conftest import Oracle, mine
from .fuzz import rec_sum_ops

TOO_LONG = "Please shorten the entry to less than 10000 characters."


def test_append_stops_at_ten_thousand_characters() -> None:
    memory = MemoryRecSum()
    assert memory.memory_append("a" * 9_999) == {"status": "Memory appended."}
    assert memory.memory_append("b") == {"status": "Memory appended."}
    assert memory.memory_append("c") == {
        "error": f"Entry will be too long after appending. {TOO_LONG}"}
    assert len(memory.memory) == 10_000


def test_update_replaces_everything_within_the_limit() -> None:
    memory = MemoryRecSum()
    memory.memory_append("old")
    assert memory.memory_update("x" * 10_001) == {
        "error": f"Entry will be too long after updating. {TOO_LONG}"}
    assert memory.memory_update("new") == {"status": "Memory updated."}
    assert memory.memory == "new"


def test_replace_checks_only_the_new_text_and_replaces_every_occurrence() -> None:
    memory = MemoryRecSum()
    memory.memory_update("cat and cat")
    assert memory.memory_replace("dog", "x") == {"error": "Text 'dog' not found in memory."}
    assert memory.memory_replace("cat", "dog") == {"status": "Memory updated."}
    assert memory.memory == "dog and dog"
    assert memory.memory_replace("dog", "w" * 10_001) == {
        "error": f"Entry will be too long after replacing. {TOO_LONG}"}
    memory.memory_update("ab")
    assert memory.memory_replace("", "-") == {"status": "Memory updated."}
    assert memory.memory == "-a-b-"  # upstream's str.replace with an empty pattern
    memory.memory_update("y" * 9_000)
    memory.memory_replace("y", "yy")  # grows past the limit: only the new text is checked
    assert len(memory.memory) == 18_000


def test_retrieve_clear_and_context() -> None:
    memory = MemoryRecSum()
    assert memory.memory_retrieve() == {"error": "Memory is empty."}
    assert memory._dump_core_memory_to_context() == (
        "There is no content in the memory at this point.")
    memory.memory_append(12)
    assert memory.memory_retrieve() == {"memory_content": "12"}
    assert memory._dump_core_memory_to_context() == "12"
    assert memory.memory_clear() == {"status": "Short term memory cleared."}
    assert memory.memory == ""


@pytest.mark.parametrize("seed", range(10))
def test_fuzzed_calls_match_the_official_backend(
    official_memory: Oracle, memory_sentences: list[str], seed: int
) -> None:
    ops = rec_sum_ops(random.Random(seed), 120, memory_sentences)
    official = official_memory.run("MemoryAPI_rec_sum", ops)
    memory = MemoryRecSum()
    outcomes = mine(memory, ops)
    for i, (expected, actual) in enumerate(zip(official["outcomes"], outcomes, strict=True)):
        assert actual == expected, f"call {i} {ops[i]}"
    assert [render_result(o[1]) for o in outcomes] == official["rendered"]
    assert {"memory": memory.memory} == official["state"]
    assert memory._dump_core_memory_to_context() == official["context"]


def test_replaces_that_multiply_the_memory_are_refused_before_growing() -> None:
    memory = MemoryRecSum()
    memory.memory_append("a" * 10_000)
    assert memory.memory_replace("a", "ab" * 250) == {"status": "Memory updated."}  # 5 M
    assert len(memory.memory) == 5_000_000
    with pytest.raises(BudgetExceeded, match="would hold 27500000 characters"):
        memory.memory_replace("a", "a" * 10)  # 2.5 M "a"s, each 9 longer (upstream: done)
    assert len(memory.memory) == 5_000_000
    with pytest.raises(BudgetExceeded):
        memory.memory_replace("", "z")  # between every character: doubles
    assert memory.memory_replace("ab", "c") == {"status": "Memory updated."}
    assert len(memory.memory) == 2_500_000
