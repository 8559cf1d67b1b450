"""MemoryAPI_kv: limits, key rules, BM25+ scores, and 0 differences from the official class."""

from __future__ import annotations

import importlib.util
import json
import random
from typing import Any

import pytest

from fcbench.envs.memory.kv import MemoryKV, _BM25Plus, _words
from fcbench.envs.multi_turn.dispatch import render_result

from .conftest import Oracle, mine
from .fuzz import kv_ops


def test_core_memory_holds_seven_entries_of_at_most_300_characters() -> None:
    memory = MemoryKV()
    assert memory.core_memory_add("long_value", "v" * 301) == {
        "error": "Entry is too long. Please shorten the entry to less than 300 characters."}
    assert memory.core_memory_add("exactly_max", "v" * 300) == {"status": "Key-value pair added."}
    for i in range(6):
        assert memory.core_memory_add(f"key_{i}", "x") == {"status": "Key-value pair added."}
    # Full is checked before anything else, even a bad key.
    assert memory.core_memory_add("Bad Key", "x") == {
        "error": "Core memory is full. Please clear some entries."}
    assert memory.core_memory_replace("key_0", "v" * 301)["error"].startswith("Entry is too long")
    assert memory.core_memory_clear() == {"status": "Short term memory cleared."}
    assert memory.core_memory == {}


def test_archival_memory_holds_fifty_entries_of_at_most_2000_characters() -> None:
    memory = MemoryKV()
    assert memory.archival_memory_add("big", "v" * 2001)["error"] == (
        "Entry is too long. Please shorten the entry to less than 2000 characters.")
    for i in range(50):
        assert memory.archival_memory_add(f"note_{i}", "v" * 2000) == {"status": "Key added."}
    assert memory.archival_memory_add("one_more", "x") == {
        "error": "Long term memory is full. Please clear some entries."}
    assert memory.archival_memory_clear() == {"status": "Long term memory cleared."}


@pytest.mark.parametrize("key", ["name", "user_name", "pet_2", "a_b1_c2", "abc\n"])
def test_snake_case_keys_are_accepted(key: str) -> None:
    # `abc\n` passes upstream too: the pattern is used with re.match, where `$` allows a
    # trailing newline.
    assert MemoryKV().core_memory_add(key, "v") == {"status": "Key-value pair added."}


@pytest.mark.parametrize("key", ["Name", "user name", "a__b", "1abc", "_a", "a_", "", "a-b",
                                 "naïve", "a_B"])
def test_other_keys_are_refused(key: str) -> None:
    assert MemoryKV().archival_memory_add(key, "v") == {
        "error": "Key must be in snake_case format and cannot contain spaces."}


def test_keys_are_unique_and_lookups_exact() -> None:
    memory = MemoryKV()
    memory.core_memory_add("pet", "dog")
    assert memory.core_memory_add("pet", "cat") == {"error": "Key name must be unique."}
    assert memory.core_memory_retrieve("pet") == {"value": "dog"}
    assert memory.core_memory_retrieve("pets") == {"error": "Key not found."}
    assert memory.core_memory_replace("pets", "cat") == {"error": "Key not found."}
    assert memory.core_memory_replace("pet", "cat") == {"status": "Key replaced."}
    assert memory.core_memory_remove("pet") == {"status": "Key removed."}
    assert memory.core_memory_remove("pet") == {"error": "Key not found."}


def test_add_and_replace_convert_arguments_to_strings_as_upstream() -> None:
    memory = MemoryKV()
    assert memory.core_memory_add("count", 5) == {"status": "Key-value pair added."}
    assert memory.core_memory == {"count": "5"}
    assert memory.core_memory_replace("count", None) == {"status": "Key replaced."}
    assert memory.core_memory == {"count": "None"}
    with pytest.raises(TypeError, match="unhashable type: 'list'"):
        memory.core_memory_remove(["count"])  # remove and retrieve take the key as given


def test_list_keys_and_retrieve_all_follow_insertion_order() -> None:
    memory = MemoryKV()
    for key in ("b", "a", "c"):
        memory.core_memory_add(key, key.upper())
    assert memory.core_memory_list_keys() == {"keys": ["b", "a", "c"]}
    assert memory.core_memory_retrieve_all() is memory.core_memory


def test_key_search_ranks_keys_by_bm25_plus() -> None:
    memory = MemoryKV()
    for key in ("favorite_color", "dog_name", "favorite_food", "color_of_car"):
        memory.archival_memory_add(key, "v")
    ranked = memory.archival_memory_key_search("Favorite COLOR")["ranked_results"]
    assert [key for _, key in ranked][:1] == ["favorite_color"]
    assert [score for score, _ in ranked] == sorted((s for s, _ in ranked), reverse=True)
    assert len(memory.archival_memory_key_search("x", k=2)["ranked_results"]) == 2
    # Equal scores keep insertion order (a stable sort, as upstream).
    assert [key for _, key in memory.archival_memory_key_search("zzz")["ranked_results"]] == [
        "favorite_color", "dog_name", "favorite_food", "color_of_car"]


def test_key_search_of_an_empty_store_fails_as_upstream() -> None:
    with pytest.raises(ZeroDivisionError, match="division by zero"):
        MemoryKV().core_memory_key_search("anything")


def test_dump_to_context() -> None:
    memory = MemoryKV()
    assert memory._dump_core_memory_to_context() == (
        "There is no content in the core memory at this point.")
    memory.core_memory_add("name", "Ann")
    assert memory._dump_core_memory_to_context() == json.dumps({"name": "Ann"}, indent=4)


@pytest.mark.skipif(importlib.util.find_spec("rank_bm25") is None, reason="rank_bm25 missing")
def test_bm25_scores_are_bit_identical_to_rank_bm25() -> None:
    from rank_bm25 import BM25Plus

    rng = random.Random(7)
    vocabulary = ["user", "name", "favorite", "color", "a1", "pet", "x", "order", "z9"]
    for _ in range(300):
        corpus = [_words("_".join(rng.choices(vocabulary, k=rng.randint(1, 5))))
                  for _ in range(rng.randint(1, 12))]
        query = _words(" ".join(rng.choices([*vocabulary, "unknown"], k=rng.randint(0, 4))))
        expected = [float(score) for score in BM25Plus(corpus).get_scores(query)]
        assert _BM25Plus(corpus).scores(query) == expected


def _compare(oracle: Oracle, ops: list[Any]) -> None:
    official = oracle.run("MemoryAPI_kv", ops)
    memory = MemoryKV()
    outcomes = mine(memory, ops)
    for i, (expected, actual) in enumerate(zip(official["outcomes"], outcomes, strict=True)):
        assert actual == expected, f"call {i} {ops[i]}"
    rendered = [render_result(o[1]) if o[0] == "ok" else f"Error during execution: {o[2]}"
                for o in outcomes]
    assert rendered == official["rendered"]
    assert {"core_memory": memory.core_memory,
            "archival_memory": memory.archival_memory} == official["state"]
    assert memory._dump_core_memory_to_context() == official["context"]


@pytest.mark.parametrize("seed", range(12))
def test_fuzzed_calls_match_the_official_backend(
    official_memory: Oracle, memory_sentences: list[str], seed: int
) -> None:
    _compare(official_memory, kv_ops(random.Random(seed), 150, memory_sentences))
