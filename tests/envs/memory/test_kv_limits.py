"""The key-value memory's limits, at their boundaries: core memory holds 7 entries of at most
300 characters, archival memory 50 of at most 2,000 (both inclusive), on add and on replace."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from fcbench.envs.memory.kv import MemoryKV

LIMITS = {"core": (7, 300), "archival": (50, 2000)}


def call(memory: MemoryKV, kind: str, operation: str, *args: str) -> dict[str, str]:
    result: dict[str, str] = getattr(memory, f"{kind}_memory_{operation}")(*args)
    return result


@pytest.mark.parametrize("kind", sorted(LIMITS))
def test_the_store_holds_exactly_its_size(kind: str) -> None:
    memory = MemoryKV()
    size = LIMITS[kind][0]
    for n in range(size):
        assert "status" in call(memory, kind, "add", f"key_{n}", "v"), n
    assert "full" in call(memory, kind, "add", "one_more", "v")["error"]
    assert len(getattr(memory, f"{kind}_memory")) == size


@pytest.mark.parametrize("kind", sorted(LIMITS))
@given(extra=st.integers(-5, 5))
def test_an_entry_may_be_exactly_as_long_as_the_limit(kind: str, extra: int) -> None:
    memory = MemoryKV()
    length = LIMITS[kind][1] + extra
    added = call(memory, kind, "add", "key", "x" * length)
    assert ("status" in added) is (extra <= 0)
    call(memory, kind, "add", "other", "short")
    replaced = call(memory, kind, "replace", "other", "y" * length)
    assert ("status" in replaced) is (extra <= 0)


@pytest.mark.parametrize("kind", sorted(LIMITS))
def test_empty_values_and_missing_keys(kind: str) -> None:
    memory = MemoryKV()
    assert "status" in call(memory, kind, "add", "empty", "")
    assert call(memory, kind, "retrieve", "empty") == {"value": ""}
    assert call(memory, kind, "retrieve", "absent") == {"error": "Key not found."}
    assert call(memory, kind, "remove", "absent") == {"error": "Key not found."}
