"""`MemoryAPI_vector`: core and archival memories of texts, retrieved by embedding similarity.

fcbench's implementation of the official vector backend (`multi_turn_func_doc/memory_vector.json`,
spec §7.2) without torch or FAISS. Upstream each store is a FAISS `IndexIDMap(IndexFlatIP(384))`
over all-MiniLM-L6-v2 embeddings (L2-normalised, so inner product = cosine similarity), with
ids handed out sequentially from `next_id` (never reused until `clear`, which resets it).
Here a store keeps the same three things: `_store` (id -> text), `_next_id`, and `_index`,
the (id, vector) rows in the flat index's storage order: appended on add, dropped in place on
remove (rows keep their order), and on update removed then appended; a snapshot load lays
them out by increasing id, as upstream re-adds them.

Retrieval reproduces the flat index search exactly, including ties: FAISS keeps a k-slot
min-heap, lets a row in only when its score is strictly greater than the heap's smallest,
evicts the smallest (score, then storage position), and returns the survivors by decreasing
(score, position). So among equal scores an earlier row wins a place but a later row comes
first. Scores are float32 inner products (computed per row, in float64, then rounded, so a
row's score never depends on where it sits); they match sentence-transformers + FAISS to
about 1e-6.

Upstream's own failure modes are kept: a method argument of the wrong type reaches the
encoder and fails with sentence-transformers' message (`encoder_inputs.py`); an `add` whose
embedding fails has still used up its id; an `update` whose embedding fails has already left
the index, so the text stays in the store but is never retrieved; `top_k` goes through
`min(top_k, len(store))` and FAISS's checks (`AssertionError` for k <= 0, `TypeError` for a
float or bool).
"""

from __future__ import annotations

import heapq
import json
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from fcbench.envs.memory.base import MemoryBackend
from fcbench.envs.memory.encoder_inputs import batch_inputs

if TYPE_CHECKING:
    from fcbench.envs.memory.embedding import Encoder, Vector

__all__ = ["MemoryVector", "VectorStore"]

MAX_CORE_MEMORY_SIZE = 7
MAX_CORE_MEMORY_ENTRY_LENGTH = 300
MAX_ARCHIVAL_MEMORY_SIZE = 50
MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH = 2000

_NOT_A_MATRIX = "not enough values to unpack (expected 2, got 1)"  # FAISS on an empty batch


class VectorStore:
    """One memory: texts by id, and their embeddings in flat-index order."""

    def __init__(
        self, max_size: int, max_entry_length: int, encoder: Callable[[], Encoder]
    ) -> None:
        self.max_size = max_size
        self.max_entry_length = max_entry_length
        self._encoder = encoder
        self._store: dict[int, Any] = {}
        self._next_id = 0
        self._index: list[tuple[int, Vector]] = []

    def _embed(self, value: Any) -> list[Vector]:
        """Upstream's `_embed`: a list is a batch, anything else one input."""
        inputs = batch_inputs(value)
        encoder = self._encoder()
        return [encoder.encode(item) for item in inputs]

    def _index_one(self, vec_id: int, vectors: list[Vector]) -> None:
        """FAISS `add_with_ids` with one id: the batch must hold exactly one vector."""
        if not vectors:
            raise ValueError(_NOT_A_MATRIX)
        if len(vectors) != 1:
            raise AssertionError("not same nb of vectors as ids")
        self._index.append((int(vec_id), vectors[0]))

    def _unindex(self, vec_id: Any) -> None:
        target = int(vec_id)
        self._index = [row for row in self._index if row[0] != target]

    def add(self, text: Any) -> dict[str, Any]:
        if len(text) > self.max_entry_length:
            return {
                "error": f"Entry length exceeds maximum length of {self.max_entry_length} "
                "characters."
            }
        if len(self._store) >= self.max_size:
            return {"error": f"Memory size exceeds maximum size of {self.max_size} entries."}
        vec_id = self._next_id
        self._next_id += 1
        self._index_one(vec_id, self._embed(text))
        self._store[vec_id] = text
        return {"id": vec_id}

    def remove(self, vec_id: Any) -> dict[str, str]:
        if vec_id not in self._store:
            return {"error": f"ID {vec_id} not present in store."}
        self._unindex(vec_id)
        del self._store[vec_id]
        return {"status": f"ID {vec_id} removed from store."}

    def update(self, vec_id: Any, new_text: Any) -> dict[str, str]:
        if vec_id not in self._store:
            return {"error": f"ID {vec_id} not present in store."}
        if len(new_text) > self.max_entry_length:
            return {
                "error": f"Entry length exceeds maximum length of {self.max_entry_length} "
                "characters."
            }
        self._unindex(vec_id)
        self._index_one(vec_id, self._embed(new_text))
        self._store[vec_id] = new_text
        return {"status": f"ID {vec_id} updated."}

    def clear(self) -> dict[str, str]:
        self._index = []
        self._store.clear()
        self._next_id = 0
        return {"status": "Memory cleared."}

    def retrieve(self, query: Any, top_k: Any = 5) -> list[dict[str, Any]]:
        """The `top_k` most similar texts: id, similarity_score, text, best first."""
        if not self._store:
            return []
        vectors = self._embed(query)
        if not vectors:
            raise ValueError(_NOT_A_MATRIX)
        k = min(top_k, len(self._store))
        _check_k(k)
        scores = [_inner_product(row, vectors[0]) for _, row in self._index]
        return [
            {
                "id": self._index[position][0],
                "similarity_score": scores[position],
                "text": self._store[self._index[position][0]],
            }
            for position in _flat_index_top_k(scores, k)
        ]

    def retrieve_all(self) -> list[dict[str, Any]]:
        return [{"id": int(vec_id), "text": text} for vec_id, text in self._store.items()]

    def export(self) -> dict[str, Any]:
        """The snapshot form (JSON turns the integer ids into strings)."""
        return {"next_id": self._next_id, "store": self._store}

    def load_from_snapshot(self, snapshot: dict[str, Any]) -> None:
        """Restore an `export()`: every text re-embedded, rows by increasing id."""
        self._next_id = snapshot["next_id"]
        self._store = {int(key): value for key, value in snapshot["store"].items()}
        self._index = []
        if self._store:
            ids = sorted(self._store)
            vectors = self._embed([self._store[vec_id] for vec_id in ids])
            self._index = list(zip(ids, vectors, strict=True))


def _check_k(k: Any) -> None:
    """The checks `faiss.Index.search` makes of k, with their messages."""
    if not k > 0:
        raise AssertionError()
    if isinstance(k, bool):
        raise TypeError("an integer is required")
    if not isinstance(k, int):
        raise TypeError(f"'{type(k).__name__}' object cannot be interpreted as an integer")


def _inner_product(row: Vector, query: Vector) -> float:
    """A float32 score computed the same way wherever the row sits."""
    import numpy as np

    return float(np.float32(np.dot(row.astype(np.float64), query.astype(np.float64))))


def _flat_index_top_k(scores: list[float], k: int) -> list[int]:
    """Storage positions FAISS's flat inner-product search returns for k, in its order."""
    heap: list[tuple[float, int]] = []
    for position, score in enumerate(scores):
        if len(heap) < k:
            heapq.heappush(heap, (score, position))
        elif score > heap[0][0]:
            heapq.heapreplace(heap, (score, position))
    return [position for _, position in sorted(heap, reverse=True)]


class MemoryVector(MemoryBackend):
    """Vector memory: `core_memory` (7 texts of <= 300 chars) and `archival_memory`
    (50 texts of <= 2000 chars)."""

    performs_io = True
    """Its calls fetch pages or compute embeddings: the loop runs them in a thread."""

    def __init__(self) -> None:
        super().__init__()
        self._encoder: Encoder | None = None
        self.core_memory = VectorStore(
            MAX_CORE_MEMORY_SIZE, MAX_CORE_MEMORY_ENTRY_LENGTH, self._get_encoder
        )
        self.archival_memory = VectorStore(
            MAX_ARCHIVAL_MEMORY_SIZE, MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH, self._get_encoder
        )

    def _get_encoder(self) -> Encoder:
        """The embedding model, loaded on first need (`EmbeddingUnavailable` if it cannot be)."""
        if self._encoder is None:
            from fcbench.envs.memory.embedding import load_encoder

            self._encoder = load_encoder()
        return self._encoder

    def _load_scenario(self, config: dict[str, Any], long_context: bool = False) -> None:
        """Load the model first: upstream cannot even import the backend without it."""
        self._get_encoder()
        super()._load_scenario(config, long_context)

    def _export(self) -> dict[str, Any]:
        return {
            "core_memory": self.core_memory.export(),
            "archival_memory": self.archival_memory.export(),
        }

    def _restore(self, data: dict[str, Any]) -> None:
        self.core_memory.load_from_snapshot(data["core_memory"])
        self.archival_memory.load_from_snapshot(data["archival_memory"])

    def _dump_core_memory_to_context(self) -> str:
        """Always the JSON of the core store, `{}` when empty: upstream's emptiness test looks
        at the store object, which is never false [quirk]."""
        return json.dumps(self.core_memory._store, indent=4)

    def core_memory_add(self, text: str) -> dict[str, Any]:
        return self.core_memory.add(text)

    def core_memory_remove(self, vec_id: int) -> dict[str, str]:
        return self.core_memory.remove(vec_id)

    def core_memory_update(self, vec_id: int, new_text: str) -> dict[str, str]:
        return self.core_memory.update(vec_id, new_text)

    def core_memory_clear(self) -> dict[str, str]:
        return self.core_memory.clear()

    def core_memory_retrieve(self, query: str, top_k: int | None = 5) -> dict[str, Any]:
        return {"result": self.core_memory.retrieve(query, top_k)}

    def core_memory_retrieve_all(self) -> dict[str, Any]:
        return {"result": self.core_memory.retrieve_all()}

    def archival_memory_add(self, text: str) -> dict[str, Any]:
        return self.archival_memory.add(text)

    def archival_memory_remove(self, vec_id: int) -> dict[str, str]:
        return self.archival_memory.remove(vec_id)

    def archival_memory_update(self, vec_id: int, new_text: str) -> dict[str, str]:
        return self.archival_memory.update(vec_id, new_text)

    def archival_memory_clear(self) -> dict[str, str]:
        return self.archival_memory.clear()

    def archival_memory_retrieve(self, query: str, top_k: int | None = 5) -> dict[str, Any]:
        return {"result": self.archival_memory.retrieve(query, top_k)}

    def archival_memory_retrieve_all(self) -> dict[str, Any]:
        return {"result": self.archival_memory.retrieve_all()}
