"""The memory system prompt (spec §7.2 "Prompting"), built from the fetched prompt texts.

Upstream builds it in the inference loop (`add_memory_instruction_system_prompt`), right after
the entry's memory backend is created and has loaded its snapshot, before the first request,
for every memory entry, prerequisite conversations included:

    template.format(scenario_setting=MEMORY_AGENT_SETTINGS[scenario],
                    memory_content=backend._dump_core_memory_to_context())

with `MEMORY_BACKEND_INSTRUCTION_UNIFIED` when the category name contains `rec_sum` and
`MEMORY_BACKEND_INSTRUCTION_CORE_ARCHIVAL` otherwise (all three from the release's
`default_prompts` module, extracted into constants.json by `fcbench data fetch`). The memory
content is the core store as indented JSON for kv, or "There is no content in the core memory
at this point." when empty; for vector always the JSON of the core store, `{}` when empty
[quirk]; for rec_sum the memory text, or "There is no content in the memory at this point.".

Where it goes: if the first message of turn 0 is a system message, its content becomes
`memory_prompt + "\\n\\n" + content`; otherwise the memory prompt is inserted as a new system
message before it. For memory *questions* that first message is the agentic answer-format
instruction (`ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT`, inserted when the data is
loaded), so the request's system message reads memory prompt, blank line, answer format.
Prerequisite conversations get no answer-format message, so theirs is the memory prompt alone.
In prompt (non-FC) mode the default function-calling system prompt is prepended later in the
same way (`default + "\\n\\n" + memory prompt + ...`); FC mode sends the docs as tools.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from typing import Any, Protocol

__all__ = [
    "MemoryPromptError",
    "MemoryTexts",
    "add_memory_system_prompt",
    "memory_system_prompt",
    "memory_texts",
]

_MODULE = "default_prompts"
_PERSONAS = "MEMORY_AGENT_SETTINGS"
_CORE_ARCHIVAL = "MEMORY_BACKEND_INSTRUCTION_CORE_ARCHIVAL"
_UNIFIED = "MEMORY_BACKEND_INSTRUCTION_UNIFIED"


class MemoryPromptError(ValueError):
    """The fetched constants lack a memory prompt text, or a scenario has no persona."""


class _ShowsMemory(Protocol):
    def _dump_core_memory_to_context(self) -> str: ...


@dataclass(frozen=True)
class MemoryTexts:
    """The release's memory prompt texts, as fetched."""

    personas: dict[str, str]
    core_archival: str
    unified: str

    @classmethod
    def from_constants(cls, constants: dict[str, Any]) -> MemoryTexts:
        prompts = constants.get(_MODULE)
        if not isinstance(prompts, dict):
            raise MemoryPromptError("the fetched constants hold no default prompts; refetch")
        personas = prompts.get(_PERSONAS)
        core_archival, unified = prompts.get(_CORE_ARCHIVAL), prompts.get(_UNIFIED)
        if not isinstance(personas, dict) or not isinstance(core_archival, str) or not \
                isinstance(unified, str):
            raise MemoryPromptError(
                f"the fetched constants lack {_PERSONAS}, {_CORE_ARCHIVAL} or {_UNIFIED}"
            )
        return cls({str(k): str(v) for k, v in personas.items()}, core_archival, unified)


@lru_cache(maxsize=8)
def memory_texts(release: str) -> MemoryTexts:
    """The memory prompt texts of a fetched release (cached per process)."""
    from fcbench.dataset.fetch import load_constants

    return MemoryTexts.from_constants(load_constants(release))


def memory_system_prompt(
    backend: str, scenario: str, instance: _ShowsMemory, texts: MemoryTexts
) -> str:
    """The memory system prompt for a backend (`kv`, `vector`, `rec_sum`, or a category name
    such as `memory_rec_sum_prereq`: upstream tests for the substring `rec_sum`)."""
    try:
        persona = texts.personas[scenario]
    except KeyError:
        raise MemoryPromptError(f"no memory persona for scenario {scenario!r}") from None
    template = texts.unified if "rec_sum" in backend else texts.core_archival
    return template.format(
        scenario_setting=persona, memory_content=instance._dump_core_memory_to_context()
    )


def add_memory_system_prompt(
    question: list[list[dict[str, Any]]],
    backend: str,
    scenario: str,
    instance: _ShowsMemory,
    texts: MemoryTexts,
) -> list[list[dict[str, Any]]]:
    """The entry's turns with the memory prompt placed as upstream places it (a new list;
    the given turns and messages are not modified)."""
    prompt = memory_system_prompt(backend, scenario, instance, texts)
    turns = [list(turn) for turn in question] or [[]]
    first = turns[0]
    if first and first[0].get("role") == "system":
        first[0] = {**first[0], "content": prompt + "\n\n" + first[0]["content"]}
    else:
        first.insert(0, {"role": "system", "content": prompt})
    return turns
