"""Agentic first turns and prompt entries, against the official assembly on every case.

The official side runs from the shared wheel: `load_dataset_entry` (which inserts the
answer-format message), the handlers' `add_memory_instruction_system_prompt` with a memory
backend stand-in whose core-memory dump is a fixed text, and the prompt-mode system-prompt
step `system_prompt_pre_processing_chat_model`.
"""

from __future__ import annotations

import copy
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.dataset.agentic import (
    AgenticPromptError,
    answer_format_text,
    eval_prompt,
    first_turn,
    memory_dependencies,
    memory_system_prompt,
    with_first_turn,
)
from fcbench.dataset.fetch import DEFAULT_RELEASE
from fcbench.dataset.load import load_category, load_memory_prereqs
from fcbench.dataset.prompt_texts import load_texts
from fcbench.models.prompts import build_request
from official_bfcl import official_package

CORE_MEMORY = '{\n    "name": "Michael"\n}'


class _Memory:
    """What `add_memory_instruction_system_prompt` reads of a memory backend."""

    def _dump_core_memory_to_context(self) -> str:
        return CORE_MEMORY


@pytest.fixture(scope="module")
def official(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with official_package(bfcl_wheel, tmp_path_factory.mktemp("bfcl_prompts")):
        try:
            from bfcl_eval import utils
            from bfcl_eval.model_handler import utils as handler_utils
        except Exception as exc:  # pragma: no cover - depends on the environment
            pytest.fail(f"the official modules cannot be imported here: {exc!r}", pytrace=False)
        yield utils, handler_utils


@pytest.fixture(scope="module")
def prompts(fetched_home: Path) -> dict[str, Any]:
    return load_texts(DEFAULT_RELEASE).prompts


def _official_entries(official: Any, category: str, **options: Any) -> dict[str, Any]:
    utils, _ = official
    return {e["id"]: e for e in utils.load_dataset_entry(category, **options)}


@pytest.mark.parametrize("category", categories.AGENTIC)
def test_first_turns_and_requests_equal_the_official(
    official: Any, prompts: dict[str, Any], category: str
) -> None:
    _, handler_utils = official
    texts = load_texts(DEFAULT_RELEASE)
    entries = _official_entries(official, category, include_prereq=False)
    for case in load_category(category):
        entry = entries[case.id]
        question = copy.deepcopy(entry["question"])
        memory = None
        if category in categories.MEMORY:
            memory = CORE_MEMORY
            question = handler_utils.add_memory_instruction_system_prompt(
                question, category, entry["scenario"], _Memory()
            )
        assert first_turn(case, prompts, memory) == question[0], case.id
        request = build_request(with_first_turn(case, prompts, memory), "prompt", texts)
        expected = handler_utils.system_prompt_pre_processing_chat_model(
            copy.deepcopy(question[0]), entry["function"], case.id
        )
        assert request.messages == expected, case.id
        assert build_request(with_first_turn(case, prompts, memory), "fc", texts).messages \
            == question[0]


def test_memory_prerequisites_get_the_memory_prompt_only(
    official: Any, prompts: dict[str, Any]
) -> None:
    _, handler_utils = official
    entries = _official_entries(official, "memory_rec_sum")
    prereqs = load_memory_prereqs("memory_rec_sum")
    for case in prereqs:
        expected = handler_utils.add_memory_instruction_system_prompt(
            copy.deepcopy(entries[case.id]["question"]), "memory_rec_sum",
            entries[case.id]["scenario"], _Memory(),
        )
        assert first_turn(case, prompts, CORE_MEMORY) == expected[0], case.id
    assert len(prereqs) == sum("prereq" in key for key in entries) > 0


@pytest.mark.parametrize("category", categories.AGENTIC)
def test_eval_prompts_equal_the_official_entries(
    official: Any, prompts: dict[str, Any], category: str
) -> None:
    entries = _official_entries(
        official, category, include_prereq=False, include_language_specific_hint=False
    )
    dependencies = memory_dependencies(category) if category in categories.MEMORY else {}
    for case in load_category(category):
        expected = dict(entries[case.id])
        del expected["function"]  # the official runner deletes it before writing records
        depends_on = dependencies.get(str(case.extras.get("scenario")))
        ours = eval_prompt(case, prompts, depends_on)
        assert list(ours) == list(expected), case.id  # the same keys in the same order
        assert ours == expected, case.id


def test_the_case_itself_is_not_changed(prompts: dict[str, Any]) -> None:
    case = TestCase("web_search_base_0", "web_search_base",
                    [[{"role": "user", "content": "Q?"}]], [], ["A"], {})
    turn = first_turn(case, prompts)
    assert turn[0] == {"role": "system", "content": answer_format_text(prompts)}
    assert case.question == [[{"role": "user", "content": "Q?"}]]


def test_missing_texts_and_contents_are_clear_errors(prompts: dict[str, Any]) -> None:
    memory = TestCase("memory_kv_0-student-0", "memory_kv",
                      [[{"role": "user", "content": "Q?"}]], [], ["A"], {"scenario": "student"})
    with pytest.raises(ValueError, match="memory contents"):
        first_turn(memory, prompts)
    with pytest.raises(AgenticPromptError, match="ADDITIONAL_SYSTEM_PROMPT"):
        answer_format_text({})
    with pytest.raises(AgenticPromptError, match="scenario 'pirate'"):
        memory_system_prompt(prompts, "memory_kv", "pirate", "")
