"""MemoryAPI_vector: store rules, FAISS's search order, 0 differences from the official class.

The store rules run on a small deterministic fake encoder; the search order is checked
against a bare FAISS flat index on vectors built to tie; the official class itself (with
sentence-transformers and FAISS) is compared on fuzzed call sequences over real texts.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest

from .conftest import Oracle, close, installed, mine, require
from .fuzz import vector_ops

np = pytest.importorskip("numpy")

from fcbench.envs.memory.vector import (  # noqa: E402 - after the numpy check
    MemoryVector,
    _flat_index_top_k,
    _inner_product,
)


class FakeEncoder:
    """Deterministic unit vectors per text (equal texts, equal vectors)."""

    def encode(self, text: Any) -> Any:
        seed = int.from_bytes(hashlib.sha256(repr(text).encode()).digest()[:8], "little")
        vector = np.random.default_rng(seed).standard_normal(8).astype(np.float32)
        return vector / np.linalg.norm(vector)


def fake_memory() -> MemoryVector:
    memory = MemoryVector()
    memory._encoder = FakeEncoder()  # type: ignore[assignment]
    return memory


def test_ids_are_sequential_and_reset_only_by_clear() -> None:
    memory = fake_memory()
    assert [memory.core_memory_add(t) for t in ("a", "b", "c")] == [{"id": 0}, {"id": 1},
                                                                    {"id": 2}]
    assert memory.core_memory_remove(1) == {"status": "ID 1 removed from store."}
    assert memory.core_memory_add("d") == {"id": 3}
    assert memory.core_memory_remove(1) == {"error": "ID 1 not present in store."}
    assert memory.core_memory_update(0, "z") == {"status": "ID 0 updated."}
    assert memory.core_memory_retrieve_all() == {"result": [
        {"id": 0, "text": "z"}, {"id": 2, "text": "c"}, {"id": 3, "text": "d"}]}
    assert memory.core_memory_clear() == {"status": "Memory cleared."}
    assert memory.core_memory_add("e") == {"id": 0}


def test_limits_length_before_size() -> None:
    memory = fake_memory()
    for i in range(7):
        memory.core_memory_add(str(i))
    assert memory.core_memory_add("x" * 301) == {
        "error": "Entry length exceeds maximum length of 300 characters."}
    assert memory.core_memory_add("x") == {
        "error": "Memory size exceeds maximum size of 7 entries."}
    assert memory.archival_memory_add("x" * 2001) == {
        "error": "Entry length exceeds maximum length of 2000 characters."}
    assert memory.archival_memory_update(0, "x") == {"error": "ID 0 not present in store."}


def test_failed_embeddings_keep_upstreams_side_effects() -> None:
    memory = fake_memory()
    memory.core_memory_add("a")
    with pytest.raises(AssertionError, match="not same nb of vectors as ids"):
        memory.core_memory_add(["b", "c"])  # a batch of two for one id
    assert memory.core_memory_add("d") == {"id": 2}  # id 1 was used up
    with pytest.raises(ValueError, match="Unsupported input type: int"):
        memory.core_memory_update(0, [5])
    # The failed update already took id 0 out of the index: still stored, never retrieved.
    assert memory.core_memory._store == {0: "a", 2: "d"}
    assert [r["id"] for r in memory.core_memory_retrieve("a")["result"]] == [2]


def test_retrieve_checks_top_k_as_faiss_does() -> None:
    memory = fake_memory()
    assert memory.core_memory_retrieve("q") == {"result": []}  # empty: nothing is checked
    memory.core_memory_add("a")
    memory.core_memory_add("b")
    with pytest.raises(AssertionError):
        memory.core_memory_retrieve("q", top_k=0)
    with pytest.raises(TypeError, match="'float' object cannot be interpreted as an integer"):
        memory.core_memory_retrieve("q", top_k=1.0)
    with pytest.raises(TypeError, match="an integer is required"):
        memory.core_memory_retrieve("q", top_k=True)
    with pytest.raises(TypeError, match="'<' not supported"):
        memory.core_memory_retrieve("q", top_k=None)
    assert len(memory.core_memory_retrieve("q", top_k=3.5)["result"]) == 2  # min() gives 2
    best = memory.core_memory_retrieve("a", top_k=1)["result"]
    assert best[0]["id"] == 0 and best[0]["similarity_score"] == pytest.approx(1.0, abs=1e-6)


def test_equal_texts_tie_in_faiss_order() -> None:
    memory = fake_memory()
    for text in ("pie", "tea", "pie", "jam", "pie"):
        memory.core_memory_add(text)
    ids = [r["id"] for r in memory.core_memory_retrieve("pie", top_k=5)["result"]]
    assert ids[:3] == [4, 2, 0]  # among equal scores the later row comes first...
    assert [r["id"] for r in memory.core_memory_retrieve("pie", top_k=2)["result"]] == [2, 0]
    assert [r["id"] for r in memory.core_memory_retrieve("pie", top_k=1)["result"]] == [0]


def test_context_is_always_the_core_store_json() -> None:
    memory = fake_memory()
    assert memory._dump_core_memory_to_context() == "{}"  # upstream's quirk
    memory.core_memory_add("likes tea")
    assert memory._dump_core_memory_to_context() == json.dumps({"0": "likes tea"}, indent=4)


def test_snapshot_round_trip_reindexes_by_id() -> None:
    memory = fake_memory()
    for text in ("a", "b", "c"):
        memory.archival_memory_add(text)
    memory.archival_memory_update(0, "a2")  # row order now 1, 2, 0
    data = json.loads(json.dumps(memory._export()))
    assert data["archival_memory"] == {"next_id": 3, "store": {"0": "a2", "1": "b", "2": "c"}}
    restored = fake_memory()
    restored._restore(data)
    assert [row[0] for row in restored.archival_memory._index] == [0, 1, 2]
    assert restored.archival_memory._store == {0: "a2", 1: "b", 2: "c"}
    assert restored.archival_memory_add("d") == {"id": 3}


def _tie_prone_vectors(rng: random.Random, count: int) -> list[list[float]]:
    """Vectors on a coarse grid (exact products) with repeats, so that scores tie."""
    pool = [[rng.choice([-1.0, -0.5, 0.0, 0.5, 1.0]) for _ in range(4)] for _ in range(6)]
    return [rng.choice(pool) for _ in range(count)]


@pytest.mark.parametrize("seed", range(6))
def test_search_order_equals_a_faiss_flat_index(official_memory: Oracle, seed: int) -> None:
    require(installed("faiss"), "faiss-cpu is needed for the flat-index comparison")
    rng = random.Random(seed)
    vectors = _tie_prone_vectors(rng, 400)
    rows: list[tuple[int, Any]] = []
    ops: list[tuple[Any, ...]] = []
    expected_results = []
    next_id = 0
    for vector in vectors:
        roll = rng.random()
        if roll < 0.5 or not rows:
            ops.append(("add", next_id, vector))
            rows.append((next_id, np.asarray(vector, dtype=np.float32)))
            next_id += 1
        elif roll < 0.65:
            vec_id = rng.choice(rows)[0]
            ops.append(("remove", vec_id))
            rows = [row for row in rows if row[0] != vec_id]
        else:
            k = rng.randint(1, len(rows) + 2)
            ops.append(("search", vector, k))
            query = np.asarray(vector, dtype=np.float32)
            scores = [_inner_product(row, query) for _, row in rows]
            expected_results.append([(rows[p][0], scores[p]) for p in
                                     _flat_index_top_k(scores, min(k, len(rows)))])
    official = official_memory.request(cmd="flat", dim=4, ops=ops)["results"]
    assert expected_results == official


def _vector_texts(sentences: list[str]) -> list[str]:
    rng = random.Random(3)
    return [*rng.sample(sorted(set(sentences)), 40), "I like tea.", "i like tea", ""]


@pytest.mark.parametrize("seed", range(4))
def test_fuzzed_calls_match_the_official_backend(
    official_memory: Oracle, use_minilm: Any, memory_sentences: list[str], seed: int
) -> None:
    ops = vector_ops(random.Random(seed), 70, _vector_texts(memory_sentences))
    official = official_memory.run("MemoryAPI_vector", ops)
    memory = MemoryVector()
    outcomes = mine(memory, ops)
    differences = [d for i, (expected, actual) in
                   enumerate(zip(official["outcomes"], outcomes, strict=True))
                   for d in close(expected, actual, 1e-5, f"call {i} {ops[i][0]}")]
    assert differences == []
    state = {name: {"store": store._store, "next_id": store._next_id,
                    "index_ids": [row[0] for row in store._index]}
             for name, store in (("core_memory", memory.core_memory),
                                 ("archival_memory", memory.archival_memory))}
    assert state == official["state"]
    assert memory._dump_core_memory_to_context() == official["context"]
