"""The memory system prompt, with the real backends' view of their memory, equals the
official builder's on every memory case and scenario (`dataset.agentic.first_turn`)."""

from __future__ import annotations

import copy
import importlib
from pathlib import Path
from typing import Any

import pytest

from fcbench.core.model import TestCase
from fcbench.dataset.agentic import AgenticPromptError, first_turn, memory_system_prompt
from fcbench.envs.memory import MEMORY_CLASSES
from fcbench.envs.memory.base import initial_config
from fcbench.envs.memory.rec_sum import MemoryRecSum
from fcbench.envs.memory.snapshots import snapshot_paths, write_snapshot

from .conftest import Oracle

# Final snapshots per scenario; "notetaker" has none (its questions start empty), "finance"
# an empty memory. Braces and quotes check that the memory text is not parsed as a template.
SNAPSHOTS: dict[str, dict[str, Any]] = {
    "kv": {"core_memory": {"name": "Zoë {x}", "pet": "dog \"Rex\""},
           "archival_memory": {"note": "a"}},
    "vector": {"core_memory": {"next_id": 3, "store": {"0": "likes {tea}", "2": "Zoë"}},
               "archival_memory": {"next_id": 1, "store": {"0": "x"}}},
    "rec_sum": {"memory": "Notes: {braces} and \"quotes\"\nline two"},
}
EMPTY: dict[str, dict[str, Any]] = {
    "kv": {"core_memory": {}, "archival_memory": {"note": "a"}},
    "vector": {"core_memory": {"next_id": 0, "store": {}},
               "archival_memory": {"next_id": 0, "store": {}}},
    "rec_sum": {"memory": ""},
}


def _write_finals(result: Path, backend: str) -> None:
    for scenario in ("student", "customer", "healthcare", "finance"):
        data = EMPTY[backend] if scenario == "finance" else SNAPSHOTS[backend]
        test_id = f"memory_{backend}_0-{scenario}-0"
        write_snapshot(snapshot_paths(result, test_id, scenario).final, data)


def _question(case: Any, agentic_format: str) -> list[list[dict[str, Any]]]:
    """The case's turns as generation has them before the memory prompt (the agentic answer
    format first in turn 0, for questions only)."""
    question = copy.deepcopy(case.question)
    if "prereq" not in case.id:
        question[0].insert(0, {"role": "system", "content": agentic_format})
    return question


@pytest.mark.parametrize("backend", ["kv", "vector", "rec_sum"])
def test_prompts_equal_the_official_builder_on_every_case(
    official_memory: Oracle, fetched_home: Path, tmp_path: Path, backend: str,
    request: pytest.FixtureRequest,
) -> None:
    from fcbench.dataset.fetch import DEFAULT_RELEASE, load_constants
    from fcbench.dataset.load import load_category, load_memory_prereqs

    cls = f"MemoryAPI_{backend}"
    if backend == "vector":
        request.getfixturevalue("use_minilm")
        from .conftest import require

        require(official_memory.vector_missing is None, str(official_memory.vector_missing))
    prompts = load_constants(DEFAULT_RELEASE)["default_prompts"]
    agentic = prompts["ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT"]
    _write_finals(tmp_path, backend)
    module, _, name = MEMORY_CLASSES[cls].partition(":")
    category = f"memory_{backend}"
    cases = load_memory_prereqs(category) + load_category(category)
    assert len(cases) == 37 + 155
    scenarios = set()
    for case in cases:
        scenario = case.extras["scenario"]
        scenarios.add(scenario)
        config = initial_config(cls, tmp_path, case.id, scenario)[cls]
        question = _question(case, agentic)
        official = official_memory.request(
            cmd="prompt", **{"class": cls}, config={**config, "model_result_dir": str(tmp_path)},
            question=question, category=case.id.rsplit("_", 1)[0], scenario=scenario,
        )["question"]
        instance = getattr(importlib.import_module(module), name)()
        instance._load_scenario(config)
        ours = [first_turn(case, prompts, instance._dump_core_memory_to_context()),
                *question[1:]]
        assert ours == official, case.id
        assert question == _question(case, agentic)  # the input was left as it was
    assert scenarios == {"student", "customer", "finance", "healthcare", "notetaker"}


def test_prompt_pieces_come_from_the_fetched_texts() -> None:
    prompts = {"MEMORY_AGENT_SETTINGS": {"student": "PERSONA"},
               "MEMORY_BACKEND_INSTRUCTION_CORE_ARCHIVAL": "{scenario_setting}|CA|{memory_content}",
               "MEMORY_BACKEND_INSTRUCTION_UNIFIED": "{scenario_setting}|U|{memory_content}",
               "ADDITIONAL_SYSTEM_PROMPT_FOR_AGENTIC_RESPONSE_FORMAT": "FORMAT"}
    memory = MemoryRecSum()
    content = memory._dump_core_memory_to_context()
    assert memory_system_prompt(prompts, "memory_rec_sum_prereq", "student", content) == (
        "PERSONA|U|There is no content in the memory at this point.")
    memory.memory_append("{not a field}")
    assert memory_system_prompt(prompts, "memory_rec_sum", "student",
                                memory._dump_core_memory_to_context()) == "PERSONA|U|{not a field}"
    with pytest.raises(AgenticPromptError, match="no memory persona"):
        memory_system_prompt(prompts, "memory_rec_sum", "pirate", content)
    prereq = TestCase("memory_kv_prereq_0-student-0", "memory_kv_prereq",
                      [[{"role": "user", "content": "hi"}]], [], None, {"scenario": "student"})
    assert first_turn(prereq, prompts, "{x}")[0] == {"role": "system", "content": "PERSONA|CA|{x}"}


def test_missing_texts_are_reported() -> None:
    with pytest.raises(AgenticPromptError, match="refetch"):
        memory_system_prompt({}, "memory_kv", "student", "")
