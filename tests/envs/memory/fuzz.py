"""Random call sequences for the memory backends (seeded, so every failure reproduces).

Arguments mix what a model plausibly sends (snake_case keys, sentences, small ints) with what
it sometimes sends instead (wrong types, bad keys, over-long texts, odd `k`/`top_k` values),
and the sequences are long enough to fill the stores past their limits.
"""

from __future__ import annotations

import random
from typing import Any

Op = tuple[str, list[Any], dict[str, Any]]

WORDS = ["user", "name", "favorite", "color", "order", "status", "pet", "dog", "city",
         "birthday", "allergy", "meeting", "deadline", "project", "budget", "goal", "a1", "x"]
BAD_KEYS = ["Bad Key", "a__b", "1abc", "abc\n", "", "a_", "_a", "CamelCase", "naïve", "a-b",
            "key with space", "ab_1c", "a_b_c_d"]
ODD_VALUES: list[Any] = [5, None, True, 1.5, ["x"], {"a": 1}, ("t",), -0.0]
ODD_K: list[Any] = [0, -1, 1, 2, 3, 100, 2.5, 2.0, None, "3", True, False, [1]]


def snake_key(rng: random.Random) -> str:
    words = rng.sample(WORDS, rng.randint(1, 3))
    while words[0][0].isdigit():
        words = words[1:] or ["k"]
    return "_".join(words)


def some_text(rng: random.Random, sentences: list[str], limit: int) -> Any:
    roll = rng.random()
    if roll < 0.55:
        return rng.choice(sentences)
    if roll < 0.65:
        return "y" * rng.choice([limit - 1, limit, limit + 1])
    if roll < 0.75:
        return rng.choice(ODD_VALUES)
    if roll < 0.85:
        return " ".join(rng.sample(WORDS, 3))
    return ""


def kv_ops(rng: random.Random, count: int, sentences: list[str]) -> list[Op]:
    """Calls of the 15 kv methods; keys reused so that duplicates and lookups hit."""
    used: list[str] = []
    ops: list[Op] = []
    for _ in range(count):
        store = rng.choice(["core", "archival"])
        limit = 300 if store == "core" else 2000
        method = rng.choices(
            ["add", "remove", "replace", "clear", "retrieve", "list_keys", "key_search",
             "retrieve_all"],
            weights=[10, 2, 3, 0.3, 3, 1, 4, 1],
        )[0]
        if method == "retrieve_all" and store == "archival":
            method = "list_keys"
        key = _key(rng, used)
        if method in ("add", "replace"):
            value = some_text(rng, sentences, limit)
            args: list[Any] = [key, value] if rng.random() < 0.5 else []
            kwargs = {} if args else {"key": key, "value": value}
        elif method in ("remove", "retrieve"):
            args, kwargs = [key], {}
        elif method == "key_search":
            query = rng.choice([" ".join(rng.sample(WORDS, 2)), key, "", "USER Name",
                                rng.choice(sentences), 7])
            args, kwargs = [query], ({"k": rng.choice(ODD_K)} if rng.random() < 0.4 else {})
        else:
            args, kwargs = [], {}
        ops.append((f"{store}_memory_{method}", args, kwargs))
    return ops


def _key(rng: random.Random, used: list[str]) -> Any:
    roll = rng.random()
    if used and roll < 0.35:
        return rng.choice(used)
    if roll < 0.45:
        return rng.choice(BAD_KEYS)
    if roll < 0.5:
        return rng.choice(ODD_VALUES[:4])
    key = snake_key(rng)
    used.append(key)
    return key


def rec_sum_ops(rng: random.Random, count: int, sentences: list[str]) -> list[Op]:
    """append/update/replace/clear/retrieve; replace picks fragments written earlier."""
    written: list[str] = []
    ops: list[Op] = []
    for _ in range(count):
        method = rng.choices(["append", "update", "replace", "clear", "retrieve"],
                             weights=[8, 2, 5, 0.5, 3])[0]
        if method in ("append", "update"):
            text = rng.choice([rng.choice(sentences), "z" * rng.choice([4000, 9999, 10_001]),
                               rng.choice(ODD_VALUES), "", " and more."])
            if isinstance(text, str) and text:
                written.append(text)
            ops.append((f"memory_{method}", [text], {}))
        elif method == "replace":
            old = _fragment(rng, written)
            new = rng.choice(["NEW", "", rng.choice(sentences), "w" * 10_001, 42])
            ops.append(("memory_replace", [old, new], {}))
        else:
            ops.append((f"memory_{method}", [], {}))
    return ops


def _fragment(rng: random.Random, written: list[str]) -> Any:
    roll = rng.random()
    if written and roll < 0.7:
        text = rng.choice(written)
        start = rng.randrange(len(text))
        return text[start:start + rng.randint(1, 30)]
    return rng.choice(["", "absent text", None, 3])


def vector_ops(rng: random.Random, count: int, texts: list[str]) -> list[Op]:
    """Calls of the 12 vector methods; texts repeat so that equal scores tie."""
    ops: list[Op] = []
    next_ids = {"core": 0, "archival": 0}
    for _ in range(count):
        store = rng.choice(["core", "archival"])
        limit = 300 if store == "core" else 2000
        method = rng.choices(
            ["add", "remove", "update", "clear", "retrieve", "retrieve_all"],
            weights=[10, 2, 3, 0.4, 6, 1],
        )[0]
        if method == "add":
            text = _vector_text(rng, texts, limit)
            next_ids[store] += 1
            ops.append((f"{store}_memory_add", [text], {}))
        elif method in ("remove", "update"):
            vec_id = _vec_id(rng, next_ids[store])
            if method == "remove":
                ops.append((f"{store}_memory_remove", [vec_id], {}))
            else:
                new = _vector_text(rng, texts, limit)
                ops.append((f"{store}_memory_update", [], {"vec_id": vec_id, "new_text": new}))
        elif method == "retrieve":
            query = _vector_query(rng, texts)
            kwargs = {"top_k": rng.choice(ODD_K)} if rng.random() < 0.4 else {}
            ops.append((f"{store}_memory_retrieve", [query], kwargs))
        elif method == "clear":
            next_ids[store] = 0
            ops.append((f"{store}_memory_clear", [], {}))
        else:
            ops.append((f"{store}_memory_retrieve_all", [], {}))
    return ops


def _vector_text(rng: random.Random, texts: list[str], limit: int) -> Any:
    roll = rng.random()
    if roll < 0.8:
        return rng.choice(texts)
    if roll < 0.85:
        return "q" * rng.choice([limit, limit + 1])
    return rng.choice([5, None, ["one"], ["a", "b"], [], {"text": "hi"}, {"a": 1}, 2.5, ""])


def _vec_id(rng: random.Random, issued: int) -> Any:
    roll = rng.random()
    if roll < 0.75 and issued:
        return rng.randrange(issued)
    return rng.choice([issued + 3, -1, 1.0, "0", True, None, [0]])


def _vector_query(rng: random.Random, texts: list[str]) -> Any:
    roll = rng.random()
    if roll < 0.85:
        return rng.choice(texts)
    return rng.choice(["", 7, None, ["x", "y"], [], {"text": ["a", "b"]}, {"image": "x"}])
