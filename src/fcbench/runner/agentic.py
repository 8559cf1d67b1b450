"""What the conversation loop does differently for agentic cases (spec §2.5, §7.1, §7.2).

* Web search questions start with the answer-format system message.
* Memory cases (questions and their prerequisite conversations) get the official
  `initial_config` that tells the backend where the model's snapshots live, and, once the
  backend has restored its memory, the memory system prompt (persona, instructions, the
  current core memory) in front of turn 0 (and of the answer-format message, for questions).
* A prerequisite conversation that ran to its end (force-quit included, as upstream; not one
  whose inference failed) writes its memory: its checkpoint, then the scenario's final
  snapshot, both atomically. Before prerequisite k runs, the scenario's final snapshot is set
  back to prerequisite k-1's checkpoint when that exists: in an uninterrupted run this is the
  same file, and after a crash between a snapshot and its result line it undoes the
  half-recorded conversation, so a resumed run equals an uninterrupted one.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.dataset.prompt_texts import PromptTexts
from fcbench.envs.scenario import Scenario


def is_agentic(case: TestCase) -> bool:
    """A web-search or memory question, or a memory prerequisite conversation."""
    return case.category.removesuffix("_prereq") in categories.AGENTIC


def is_memory(case: TestCase) -> bool:
    return case.category.removesuffix("_prereq") in categories.MEMORY


def with_memory_config(case: TestCase, model_dir: Path | None) -> TestCase:
    """A memory case with the official `initial_config` (where its snapshots live)."""
    from fcbench.envs.memory.base import initial_config

    if not is_memory(case) or model_dir is None:
        return case
    (class_name,) = case.extras["involved_classes"]
    config = initial_config(class_name, model_dir, case.id, str(case.extras.get("scenario")))
    return dataclasses.replace(case, extras={**case.extras, "initial_config": config})


def restore_chain(case: TestCase, model_dir: Path | None) -> None:
    """Before a prerequisite conversation: the scenario's final snapshot is the previous
    conversation's checkpoint, when there is one."""
    from fcbench.envs.memory.snapshots import read_snapshot, snapshot_paths, write_snapshot

    earlier = case.extras.get("depends_on") or []
    if model_dir is None or not earlier or not is_memory(case):
        return
    scenario = str(case.extras.get("scenario"))
    previous = snapshot_paths(model_dir, str(earlier[-1]), scenario)
    data = read_snapshot(previous.own)
    if data is not None:
        write_snapshot(previous.final, data)


def first_turn_case(case: TestCase, env: Scenario, texts: PromptTexts) -> TestCase:
    """The case as the model gets it: its turn 0 with the agentic system messages."""
    from fcbench.dataset.agentic import with_first_turn

    if not is_agentic(case):
        return case
    memory: str | None = None
    if is_memory(case):
        instance: Any = next(iter(env.instances.values()))
        memory = str(instance._dump_core_memory_to_context())
    return with_first_turn(case, texts.prompts, memory)


def finish(case: TestCase, env: Scenario) -> None:
    """After a prerequisite conversation: write its memory (checkpoint, then final)."""
    if not (is_memory(case) and case.category.endswith("_prereq")):
        return
    instance: Any = next(iter(env.instances.values()))
    instance._flush_memory_to_local_file()


def question_dependencies(
    questions: list[TestCase], prerequisites: list[TestCase]
) -> list[TestCase]:
    """Memory questions with `depends_on`: every prerequisite of their scenario (upstream's
    scheduler waits for all of them)."""
    by_scenario: dict[str, list[str]] = {}
    for prereq in prerequisites:
        by_scenario.setdefault(str(prereq.extras.get("scenario")), []).append(prereq.id)
    return [
        dataclasses.replace(q, extras={
            **q.extras, "depends_on": by_scenario.get(str(q.extras.get("scenario")), []),
        })
        for q in questions
    ]
