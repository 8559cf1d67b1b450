"""`MemoryAPI_kv`: a small core memory and a larger archival memory of key-value pairs.

fcbench's implementation of the official key-value memory backend, from its function docs
(`multi_turn_func_doc/memory_kv.json`) and spec §7.2. Each method returns what the official
returns (the same dicts and message strings) and checks in the same order; arguments the
official converts with `str()` (add, replace) are converted here too, the others are used as
given, so a list key fails the same way (`unhashable type: 'list'`).

Key search ranks the store's keys with BM25+ (k1 1.5, b 0.75, delta 1; the `rank-bm25`
package the official uses) over keys split into words (`_` -> space, lower case, split on
whitespace). `_bm25plus_scores` computes it in plain Python with the same floating-point
operations in the same order, so the scores are bit-identical without numpy; results are
sorted by score, highest first, ties in key insertion order. An empty store raises
`ZeroDivisionError('division by zero')`, as upstream does (the model then sees
"Error during execution: division by zero").
"""

from __future__ import annotations

import json
import math
import re
from typing import Any

from fcbench import corrections
from fcbench.envs.memory.base import MemoryBackend

__all__ = ["MemoryKV"]

MAX_CORE_MEMORY_SIZE = 7
MAX_CORE_MEMORY_ENTRY_LENGTH = 300
MAX_ARCHIVAL_MEMORY_SIZE = 50
MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH = 2000

_KEY_PATTERN = re.compile(r"^[a-z]+(_[a-z0-9]+)*$")  # used with match(): `$` allows a final \n
_CORRECTED_KEY_PATTERN = re.compile(r"^[a-z][a-z0-9]*(_[a-z0-9]+)*$")  # #1327
_BM25_K1 = 1.5
_BM25_B = 0.75
_BM25_DELTA = 1

_FULL = {
    "core": "Core memory is full. Please clear some entries.",
    "archival": "Long term memory is full. Please clear some entries.",
}
_ADDED = {"core": "Key-value pair added.", "archival": "Key added."}
_CLEARED = {"core": "Short term memory cleared.", "archival": "Long term memory cleared."}


class MemoryKV(MemoryBackend):
    """Key-value memory: `core_memory` (7 entries of <= 300 chars) and `archival_memory`
    (50 entries of <= 2000 chars); keys are unique snake_case strings."""

    def __init__(self) -> None:
        super().__init__()
        self.core_memory: dict[str, Any] = {}
        self.archival_memory: dict[str, Any] = {}

    # ------------------------------------------------------------------ snapshots, prompt

    def _export(self) -> dict[str, Any]:
        return {"core_memory": self.core_memory, "archival_memory": self.archival_memory}

    def _restore(self, data: dict[str, Any]) -> None:
        core, archival = data["core_memory"], data["archival_memory"]
        self.core_memory = dict(core)
        self.archival_memory = dict(archival)

    def _dump_core_memory_to_context(self) -> str:
        if not self.core_memory:
            return "There is no content in the core memory at this point."
        return json.dumps(self.core_memory, indent=4)

    # ------------------------------------------------------------------ core memory

    def core_memory_add(self, key: str, value: str) -> dict[str, str]:
        return _add(self.core_memory, "core", key, value)

    def core_memory_remove(self, key: str) -> dict[str, str]:
        return _remove(self.core_memory, key)

    def core_memory_replace(self, key: str, value: str) -> dict[str, str]:
        return _replace(self.core_memory, "core", key, value)

    def core_memory_clear(self) -> dict[str, str]:
        self.core_memory = {}
        return {"status": _CLEARED["core"]}

    def core_memory_retrieve(self, key: str) -> dict[str, str]:
        return _retrieve(self.core_memory, key)

    def core_memory_list_keys(self) -> dict[str, list[str]]:
        return {"keys": list(self.core_memory.keys())}

    def core_memory_key_search(self, query: str, k: int = 5) -> dict[str, Any]:
        return _key_search(query, list(self.core_memory.keys()), k)

    def core_memory_retrieve_all(self) -> dict[str, Any]:
        """The store itself, as upstream returns it (the dispatcher serialises it at once)."""
        return self.core_memory

    # ------------------------------------------------------------------ archival memory

    def archival_memory_add(self, key: str, value: str) -> dict[str, str]:
        return _add(self.archival_memory, "archival", key, value)

    def archival_memory_remove(self, key: str) -> dict[str, str]:
        return _remove(self.archival_memory, key)

    def archival_memory_replace(self, key: str, value: str) -> dict[str, str]:
        return _replace(self.archival_memory, "archival", key, value)

    def archival_memory_clear(self) -> dict[str, str]:
        self.archival_memory = {}
        return {"status": _CLEARED["archival"]}

    def archival_memory_retrieve(self, key: str) -> dict[str, str]:
        return _retrieve(self.archival_memory, key)

    def archival_memory_list_keys(self) -> dict[str, list[str]]:
        return {"keys": list(self.archival_memory.keys())}

    def archival_memory_key_search(self, query: str, k: int = 5) -> dict[str, Any]:
        return _key_search(query, list(self.archival_memory.keys()), k)


def _limits(kind: str) -> tuple[int, int]:
    if kind == "core":
        return MAX_CORE_MEMORY_SIZE, MAX_CORE_MEMORY_ENTRY_LENGTH
    return MAX_ARCHIVAL_MEMORY_SIZE, MAX_ARCHIVAL_MEMORY_ENTRY_LENGTH


def _too_long(max_length: int) -> dict[str, str]:
    return {
        "error": "Entry is too long. Please shorten the entry to less than "
        f"{max_length} characters."
    }


def _add(store: dict[str, Any], kind: str, key: Any, value: Any) -> dict[str, str]:
    """Checks in the official order: store full, value too long, key format, key taken."""
    key, value = str(key), str(value)
    max_size, max_length = _limits(kind)
    if len(store) >= max_size:
        return {"error": _FULL[kind]}
    if len(value) > max_length:
        return _too_long(max_length)
    if not _key_pattern().match(key):
        return {"error": "Key must be in snake_case format and cannot contain spaces."}
    if key in store:
        return {"error": "Key name must be unique."}
    store[key] = value
    return {"status": _ADDED[kind]}


def _remove(store: dict[str, Any], key: Any) -> dict[str, str]:
    if key in store:
        del store[key]
        return {"status": "Key removed."}
    return {"error": "Key not found."}


def _replace(store: dict[str, Any], kind: str, key: Any, value: Any) -> dict[str, str]:
    key, value = str(key), str(value)
    if key not in store:
        return {"error": "Key not found."}
    max_length = _limits(kind)[1]
    if len(value) > max_length:
        return _too_long(max_length)
    store[key] = value
    return {"status": "Key replaced."}


def _retrieve(store: dict[str, Any], key: Any) -> dict[str, str]:
    if key not in store:
        return {"error": "Key not found."}
    return {"value": store[key]}


def _key_pattern() -> re.Pattern[str]:
    """Upstream's key pattern; #1327's (digits in the first word) under the profile."""
    if corrections.enabled(corrections.MEMORY_KEY_PATTERN.id):
        return _CORRECTED_KEY_PATTERN
    return _KEY_PATTERN


def _words(text: str) -> list[str]:
    return text.replace("_", " ").lower().split()


def _key_search(query: Any, keys: list[str], k: Any) -> dict[str, Any]:
    """Upstream's steps in order: index the keys (fails on none), split the query, rank, cut."""
    if not keys and corrections.enabled(corrections.MEMORY_EMPTY_SEARCH.id):
        return {"ranked_results": []}  # #1347
    corpus = [_words(key) for key in keys]
    index = _BM25Plus(corpus)
    scores = index.scores(_words(query))
    ranked = sorted(zip(scores, keys, strict=True), key=lambda pair: pair[0], reverse=True)
    return {"ranked_results": ranked[:k]}


class _BM25Plus:
    """BM25+ as `rank_bm25.BM25Plus` computes it, operation for operation."""

    def __init__(self, corpus: list[list[str]]) -> None:
        self.doc_len = [len(document) for document in corpus]
        self.doc_freqs: list[dict[str, int]] = []
        containing: dict[str, int] = {}
        for document in corpus:
            frequencies: dict[str, int] = {}
            for word in document:
                frequencies[word] = frequencies.get(word, 0) + 1
            self.doc_freqs.append(frequencies)
            for word in frequencies:
                containing[word] = containing.get(word, 0) + 1
        size = len(corpus)
        self.avgdl = sum(self.doc_len) / size  # no keys: ZeroDivisionError, as upstream
        self.idf = {word: math.log((size + 1) / count) for word, count in containing.items()}

    def scores(self, query: list[str]) -> list[float]:
        """One score per document; numpy's 0/0 (nan) where every document is empty."""
        scores = [0.0] * len(self.doc_len)
        for word in query:
            idf = self.idf.get(word) or 0
            for i, frequencies in enumerate(self.doc_freqs):
                tf = frequencies.get(word) or 0
                norm = _BM25_B * self.doc_len[i] / self.avgdl if self.avgdl else math.nan
                scores[i] += idf * (
                    _BM25_DELTA + (tf * (_BM25_K1 + 1)) / (_BM25_K1 * (1 - _BM25_B + norm) + tf)
                )
        return scores
