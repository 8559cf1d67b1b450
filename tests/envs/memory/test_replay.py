"""Replays of whole memory scenarios: the official prereq chains, snapshots, then questions.

An agent-like call sequence is derived from each prerequisite conversation of the data (store
facts from the user's messages, search, replace) and run on fcbench's backend and on the
official one, each in its own result folder, through `_load_scenario` and the end-of-prereq
flush. After every prereq both snapshots must be byte-identical; then every question of the
scenario (for the vector backend, whose official reload re-embeds the whole snapshot, every
third of the first eight) loads the final snapshot and runs its retrieval calls, which must
agree (vector scores within 1e-5), as must the memory text of the system prompt.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path
from typing import Any

import pytest

from fcbench.envs.memory import MEMORY_CLASSES
from fcbench.envs.memory.base import initial_config
from fcbench.envs.memory.snapshots import snapshot_paths

from .conftest import Oracle, close, mine

Op = tuple[str, list[Any], dict[str, Any]]


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?])\s+", text) if s.strip()]


def _key(text: str, n: int) -> str:
    words = re.findall(r"[a-z]+", text.lower())[:3] or ["note"]
    return "_".join(words) + f"_{n}"


def prereq_ops(backend: str, messages: list[str]) -> list[Op]:
    ops: list[Op] = []
    for j, message in enumerate(messages):
        first, *rest = _sentences(message) or [""]
        if backend == "kv":
            ops += [("core_memory_add", [_key(first, j), first[:300]], {}),
                    ("archival_memory_add", [], {"key": _key(message, j), "value": message}),
                    ("archival_memory_key_search", [" ".join(first.split()[:4])], {})]
            if j % 3 == 2:
                ops.append(("core_memory_replace", [_key(first, j), (rest or [first])[0]], {}))
        elif backend == "vector":
            ops += [("archival_memory_add", [first[:2000]], {}),
                    ("core_memory_add", [first[:300]], {})]
            if rest:
                ops.append(("archival_memory_retrieve", [rest[0]], {"top_k": 3}))
            if j % 4 == 3:
                ops.append(("core_memory_update", [0, (rest or [first])[-1][:300]], {}))
            if j == 1:  # ids are never reused: the next add after a reload must know that
                ops.append(("archival_memory_remove", [0], {}))
        else:
            ops.append(("memory_append", [first + " "], {}))
            if j % 3 == 2 and rest:
                ops.append(("memory_replace", [first, rest[0]], {}))
    return ops


def question_ops(backend: str, question: str) -> list[Op]:
    if backend == "kv":
        return [("core_memory_retrieve_all", [], {}), ("archival_memory_list_keys", [], {}),
                ("archival_memory_key_search", [question], {"k": 3}),
                ("core_memory_key_search", [question], {})]
    if backend == "vector":
        return [("archival_memory_retrieve", [question], {}),
                ("core_memory_retrieve", [question], {"top_k": 2}),
                ("core_memory_retrieve_all", [], {})]
    return [("memory_retrieve", [], {})]


def _official_config(config: dict[str, Any]) -> dict[str, Any]:
    return {**config, "model_result_dir": str(config["model_result_dir"])}


def _replay(oracle: Oracle, root: Path, backend: str, scenario: str, questions: int,
            step: int = 1) -> int:
    """Replay the scenario's prereqs, then every `step`-th of its first `questions` questions;
    the number of calls compared."""
    from fcbench.dataset.load import load_category, load_memory_prereqs

    category = f"memory_{backend}"
    cls = f"MemoryAPI_{backend}"
    module, _, name = MEMORY_CLASSES[cls].partition(":")
    backend_class = getattr(importlib.import_module(module), name)
    compared = 0
    for case in (c for c in load_memory_prereqs(category) if c.extras["scenario"] == scenario):
        ops = prereq_ops(backend, [m["content"] for turn in case.question for m in turn])
        official = oracle.run(cls, ops, flush=True, config=_official_config(
            initial_config(cls, root / "official", case.id, scenario)[cls]))
        ours = backend_class()
        ours._load_scenario(initial_config(cls, root / "ours", case.id, scenario)[cls])
        assert close(official["outcomes"], mine(ours, ops), 1e-5) == [], case.id
        ours._flush_memory_to_local_file()
        ours_paths = snapshot_paths(root / "ours", case.id, scenario)
        official_paths = snapshot_paths(root / "official", case.id, scenario)
        for written in ("own", "final"):
            assert getattr(ours_paths, written).read_bytes() == getattr(
                official_paths, written).read_bytes(), (case.id, written)
        compared += len(ops)
    cases = [c for c in load_category(category) if c.extras["scenario"] == scenario]
    for case in cases[:questions:step]:
        text = case.question[0][-1]["content"]
        ops = question_ops(backend, text)
        official = oracle.run(cls, ops, config=_official_config(
            initial_config(cls, root / "official", case.id, scenario)[cls]))
        ours = backend_class()
        ours._load_scenario(initial_config(cls, root / "ours", case.id, scenario)[cls])
        assert close(official["outcomes"], mine(ours, ops), 1e-5) == [], case.id
        assert ours._dump_core_memory_to_context() == official["context"], case.id
        assert not snapshot_paths(root / "ours", case.id, scenario).own.exists()
        compared += len(ops)
    return compared


@pytest.mark.parametrize("backend", ["kv", "rec_sum"])
@pytest.mark.parametrize("scenario", ["student", "customer", "finance", "healthcare",
                                      "notetaker"])
def test_replayed_scenarios_match_the_official_backend(
    official_memory: Oracle, fetched_home: Path, tmp_path: Path, backend: str, scenario: str
) -> None:
    assert _replay(official_memory, tmp_path, backend, scenario, questions=100) > 0


@pytest.mark.parametrize("scenario", ["healthcare", "notetaker"])
def test_replayed_vector_scenarios_match_the_official_backend(
    official_memory: Oracle, fetched_home: Path, use_minilm: Path, tmp_path: Path,
    scenario: str,
) -> None:
    """Every third of the first 8 questions (0, 3, 6): each question loads the same final
    snapshot, which the official backend re-embeds whole (over a second each for the
    healthcare scenario), and runs the same calls with another query. Still fails when the
    reloaded index numbers its rows by position instead of by id, or when the system
    prompt's memory text is indented by 2 (a fault only the questions see; both tried)."""
    assert _replay(official_memory, tmp_path, "vector", scenario, questions=8, step=3) > 0
