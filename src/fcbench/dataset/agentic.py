"""The agentic cases' first turn and prompt entry, as the official tool assembles them (§2.5).

`load_category` gives the entries as they are in the data files. Upstream changes agentic
entries on the way to the model and to the score files, and both views are needed:

* the **answer-format system message** (the release's
  `ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT`) is inserted as the first message
  of turn 0 of every web-search and memory question (not of memory prerequisites), when the
  data is loaded, so it is in what the model sees and in the score files' prompts;
* memory cases get, at generation time, the **memory system prompt** (the scenario's
  persona, the backend's instructions and the current core-memory contents) put in front
  of it: the first message becomes `memory prompt + "\n\n" + answer format`;
* prompt-mode models then get the default system prompt in front of that first system
  message (`default + "\n\n" + ...`), as for any case that starts with a system message;
  FC models get the first turn as it is.

Texts come from the fetched release's `default_prompts` constants (`prompts` below is that
dict, e.g. `PromptTexts.prompts`), never from fcbench's source.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.dataset.fetch import DEFAULT_RELEASE

__all__ = [
    "ANSWER_FORMAT",
    "answer_format_text",
    "eval_prompt",
    "first_turn",
    "memory_dependencies",
    "memory_system_prompt",
    "official_question",
    "with_first_turn",
]

ANSWER_FORMAT = "ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT"
_PERSONAS = "MEMORY_AGENT_SETTINGS"
_CORE_ARCHIVAL = "MEMORY_BACKEND_INSTRUCTION_CORE_ARCHIVAL"
_UNIFIED = "MEMORY_BACKEND_INSTRUCTION_UNIFIED"

_QUESTION_FIELDS = ("involved_classes", "scenario")
"""The question-file fields of agentic entries, in file order (the other extras come from
the answer file, or are fcbench's, like web search's `initial_config`)."""


class AgenticPromptError(ValueError):
    """The release's constants lack a text the agentic prompts need."""


def _text(prompts: Mapping[str, Any], name: str) -> Any:
    try:
        return prompts[name]
    except KeyError:
        raise AgenticPromptError(
            f"the fetched constants have no {name}; refetch the data"
        ) from None


def answer_format_text(prompts: Mapping[str, Any]) -> str:
    """The answer-format system message's text."""
    return str(_text(prompts, ANSWER_FORMAT))


def _is_question(case: TestCase) -> bool:
    """A scored agentic case (web search, memory), not a memory prerequisite."""
    return case.category in categories.AGENTIC


def _is_memory(case: TestCase) -> bool:
    return case.category.removesuffix("_prereq") in categories.MEMORY


def official_question(case: TestCase, prompts: Mapping[str, Any]) -> list[Any]:
    """The case's turns as upstream loads them: agentic questions with the answer-format
    system message first in turn 0 (a copy; the case is not changed)."""
    turns = [list(turn) for turn in case.question]
    if _is_question(case) and turns:
        turns[0].insert(0, {"role": "system", "content": answer_format_text(prompts)})
    return turns


def memory_system_prompt(
    prompts: Mapping[str, Any], category: str, scenario: str, memory_content: str
) -> str:
    """The memory system prompt: persona, backend instructions, core-memory contents.

    `memory_content` is what the memory backend shows of itself (upstream's
    `_dump_core_memory_to_context`: JSON of the core memory, or a "no content" sentence).
    rec_sum has one unified memory; kv and vector have core and archival memory.
    """
    personas = _text(prompts, _PERSONAS)
    if scenario not in personas:
        raise AgenticPromptError(f"no memory persona for scenario {scenario!r}")
    template = _text(prompts, _UNIFIED if "rec_sum" in category else _CORE_ARCHIVAL)
    return str(template).format(scenario_setting=personas[scenario],
                                memory_content=memory_content)


def first_turn(
    case: TestCase, prompts: Mapping[str, Any], memory_content: str | None = None
) -> list[dict[str, Any]]:
    """Turn 0 of an agentic case (or memory prerequisite) as the model gets it in FC mode.

    Memory cases need `memory_content` (see `memory_system_prompt`); the memory prompt is
    prepended to a first system message (blank line between) or inserted as one.
    """
    turns = official_question(case, prompts)
    messages: list[dict[str, Any]] = [dict(m) for m in turns[0]] if turns else []
    if not _is_memory(case):
        return messages
    if memory_content is None:
        raise ValueError(f"{case.id}: a memory case's first turn needs the memory contents")
    scenario = str(case.extras.get("scenario"))
    prompt = memory_system_prompt(prompts, case.category, scenario, memory_content)
    if messages and messages[0].get("role") == "system":
        messages[0]["content"] = prompt + "\n\n" + str(messages[0].get("content", ""))
    else:
        messages.insert(0, {"role": "system", "content": prompt})
    return messages


def with_first_turn(
    case: TestCase, prompts: Mapping[str, Any], memory_content: str | None = None
) -> TestCase:
    """A copy of the case whose turn 0 is `first_turn(...)`: what a request builder that
    reads `question[0]` (e.g. `models.prompts.build_request`) should be given."""
    turns = [first_turn(case, prompts, memory_content), *case.question[1:]]
    return dataclasses.replace(case, question=turns)


def eval_prompt(
    case: TestCase, prompts: Mapping[str, Any], depends_on: list[str] | None = None
) -> dict[str, Any]:
    """The entry as the official evaluator loads it, less its function docs: what agentic
    score-file records show as `prompt`. Memory entries end with `depends_on` (all
    prerequisite ids of their scenario, see `memory_dependencies`)."""
    entry: dict[str, Any] = {"id": case.id, "question": official_question(case, prompts)}
    for name in _QUESTION_FIELDS:
        if name in case.extras:
            entry[name] = case.extras[name]
    if _is_memory(case) and depends_on is not None:
        entry["depends_on"] = list(depends_on)
    return entry


def memory_dependencies(
    category: str, release: str = DEFAULT_RELEASE, data_root: Path | str | None = None
) -> dict[str, list[str]]:
    """Scenario -> the ids of its prerequisite conversations, in order, for a memory
    category: the `depends_on` of every question of that scenario."""
    from fcbench.dataset.load import load_memory_prereqs

    found: dict[str, list[str]] = {}
    for prereq in load_memory_prereqs(category, release, data_root):
        found.setdefault(str(prereq.extras.get("scenario")), []).append(prereq.id)
    return found
