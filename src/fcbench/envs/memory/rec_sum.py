"""`MemoryAPI_rec_sum`: one running text the model summarises into (recursive summarisation).

fcbench's implementation of the official backend, from `multi_turn_func_doc/memory_rec_sum.json`
and spec §7.2: a single string of at most 10,000 characters. Arguments are converted with
`str()` first, as upstream. Two upstream rules are kept on purpose: `memory_replace` checks
only the new text's length (the memory may grow past the limit by replacing), and replaces
every occurrence, so an empty `old_text` inserts the new text between all characters.
"""

from __future__ import annotations

from typing import Any

from fcbench.envs.budget import MAX_MEMORY_TEXT, BudgetExceeded
from fcbench.envs.memory.base import MemoryBackend

__all__ = ["MemoryRecSum"]

MAX_MEMORY_ENTRY_LENGTH = 10_000


def _too_long(after: str) -> dict[str, str]:
    return {
        "error": f"Entry will be too long after {after}. Please shorten the entry to less than "
        f"{MAX_MEMORY_ENTRY_LENGTH} characters."
    }


class MemoryRecSum(MemoryBackend):
    """A single memory text (`memory`)."""

    def __init__(self) -> None:
        super().__init__()
        self.memory: str = ""

    def _export(self) -> dict[str, Any]:
        return {"memory": self.memory}

    def _restore(self, data: dict[str, Any]) -> None:
        memory = data["memory"]
        if not isinstance(memory, str):
            raise TypeError(f"memory should be a string, not {type(memory).__name__}")
        self.memory = memory

    def _dump_core_memory_to_context(self) -> str:
        if not self.memory:
            return "There is no content in the memory at this point."
        return self.memory

    def memory_append(self, text: str) -> dict[str, str]:
        text = str(text)
        if len(self.memory + text) > MAX_MEMORY_ENTRY_LENGTH:
            return _too_long("appending")
        self.memory += text
        return {"status": "Memory appended."}

    def memory_update(self, text: str) -> dict[str, str]:
        text = str(text)
        if len(text) > MAX_MEMORY_ENTRY_LENGTH:
            return _too_long("updating")
        self.memory = text
        return {"status": "Memory updated."}

    def memory_clear(self) -> dict[str, str]:
        self.memory = ""
        return {"status": "Short term memory cleared."}

    def memory_replace(self, old_text: str, new_text: str) -> dict[str, str]:
        old_text, new_text = str(old_text), str(new_text)
        if old_text not in self.memory:
            return {"error": f"Text '{old_text}' not found in memory."}
        if len(new_text) > MAX_MEMORY_ENTRY_LENGTH:
            return _too_long("replacing")
        grown = self.memory.count(old_text) * (len(new_text) - len(old_text))
        if len(self.memory) + grown > MAX_MEMORY_TEXT:  # each replace can multiply the text
            raise BudgetExceeded(
                f"memory_replace: the memory would hold {len(self.memory) + grown} characters, "
                f"over the limit of {MAX_MEMORY_TEXT}"
            )
        self.memory = self.memory.replace(old_text, new_text)
        return {"status": "Memory updated."}

    def memory_retrieve(self) -> dict[str, str]:
        if not self.memory:
            return {"error": "Memory is empty."}
        return {"memory_content": self.memory}
