"""`--shard K/N` and `--shard auto`: which cases a shard asks, and the values it accepts.

The property: for any set of cases (odd ids, memory scenarios whose questions depend on
their prerequisite chains, arbitrary `depends_on` links) and any N, the N shards partition
the cases, every case sits with everything it depends on, and the assignment does not
depend on the order the cases come in, nor on the process (hash seed)."""

from __future__ import annotations

import os
import random
import subprocess
import sys

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.dataset.shards import (
    Shard,
    ShardError,
    parse_shard,
    shard_cases,
    shard_of,
    unit_keys,
)


def case(test_id: str, category: str, **extras: object) -> TestCase:
    return TestCase(id=test_id, category=category, question=[], functions=[],
                    extras=dict(extras))


@pytest.mark.parametrize(("text", "environ", "expected"), [
    ("0/1", {}, (0, 1)),
    ("3/4", {}, (3, 4)),
    (" 2 / 5 ", {}, (2, 5)),
    ("auto", {"SLURM_ARRAY_TASK_ID": "2", "SLURM_ARRAY_TASK_COUNT": "4"}, (2, 4)),
    ("auto", {"SLURM_ARRAY_TASK_ID": "5", "SLURM_ARRAY_TASK_MIN": "4",
              "SLURM_ARRAY_TASK_COUNT": "3"}, (1, 3)),
    ("auto", {"SLURM_ARRAY_TASK_ID": "9", "SLURM_ARRAY_TASK_MIN": "1",
              "SLURM_ARRAY_TASK_STEP": "4", "SLURM_ARRAY_TASK_COUNT": "3"}, (2, 3)),
    ("auto", {"JOB_COMPLETION_INDEX": "7", "FCBENCH_SHARD_COUNT": "8"}, (7, 8)),
    ("AUTO/8", {"JOB_COMPLETION_INDEX": "0"}, (0, 8)),
    ("auto/2", {"SLURM_ARRAY_TASK_ID": "1", "SLURM_ARRAY_TASK_COUNT": "9"}, (1, 2)),
])
def test_values_and_scheduler_variables(
    text: str, environ: dict[str, str], expected: tuple[int, int]
) -> None:
    shard = parse_shard(text, environ)
    assert shard is not None and (shard.index, shard.count) == expected


@pytest.mark.parametrize(("text", "environ", "said"), [
    ("4/4", {}, "K counts from 0 to N-1"),
    ("1/0", {}, "the count must be"),
    ("-1/4", {}, "must be a whole number"),
    ("1", {}, "give K/N"),
    ("a/b", {}, "must be a whole number"),
    ("1/４", {}, "must be a whole number"),
    ("1/99999999999999999999", {}, "must be a whole number"),
    ("auto", {}, "neither SLURM_ARRAY_TASK_ID"),
    ("auto", {"JOB_COMPLETION_INDEX": "3"}, "FCBENCH_SHARD_COUNT"),
    ("auto", {"JOB_COMPLETION_INDEX": "3", "FCBENCH_SHARD_COUNT": "3"}, "K counts from 0"),
    ("auto", {"SLURM_ARRAY_TASK_ID": "2"}, "SLURM_ARRAY_TASK_COUNT is not set"),
    ("auto", {"SLURM_ARRAY_TASK_ID": "x", "SLURM_ARRAY_TASK_COUNT": "2"},
     "SLURM_ARRAY_TASK_ID must be"),
    ("auto", {"SLURM_ARRAY_TASK_ID": "6", "SLURM_ARRAY_TASK_STEP": "4",
              "SLURM_ARRAY_TASK_COUNT": "2"}, "not on the array's steps"),
])
def test_bad_values_are_one_line_errors(text: str, environ: dict[str, str], said: str) -> None:
    with pytest.raises(ShardError, match=said) as raised:
        parse_shard(text, environ)
    assert "\n" not in str(raised.value)


def test_the_command_line_says_it_in_one_line(monkeypatch: pytest.MonkeyPatch) -> None:
    from fcbench.cli import main

    monkeypatch.delenv("SLURM_ARRAY_TASK_ID", raising=False)
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "1")
    monkeypatch.delenv("FCBENCH_SHARD_COUNT", raising=False)
    for value in ("2/2", "auto"):
        result = CliRunner().invoke(main, ["generate", "--model", "m", "--shard", value])
        assert result.exit_code == 2
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1 and lines[0].startswith("fcbench: error: ")


ODD_IDS = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), min_size=1,
                  max_size=12)


@st.composite
def runs(draw: st.DrawFn) -> list[tuple[str, list[TestCase]]]:
    """Single cases with odd ids, memory scenarios (chained prerequisites, questions depending
    on all of them), and a few arbitrary backward `depends_on` links."""
    memory = draw(st.sampled_from(sorted(categories.MEMORY)))
    singles = [case(f"simple_python_{i}{suffix}", "simple_python")
               for i, suffix in enumerate(draw(st.lists(ODD_IDS, max_size=25, unique=True)))]
    prereqs: list[TestCase] = []
    questions: list[TestCase] = []
    for s, scenario in enumerate(draw(st.lists(ODD_IDS, max_size=6, unique=True))):
        chain = [f"{memory}_prereq_{s}-{scenario}-{k}"
                 for k in range(draw(st.integers(1, 4)))]
        prereqs += [case(p, f"{memory}_prereq", scenario=scenario, depends_on=chain[:k])
                    for k, p in enumerate(chain)]
        questions += [case(f"{memory}_{s}-{scenario}-{k}", memory, scenario=scenario,
                           depends_on=chain) for k in range(draw(st.integers(0, 3)))]
    for _ in range(draw(st.integers(0, 4))):  # a link between single cases, backwards
        if len(singles) > 1:
            later = draw(st.integers(1, len(singles) - 1))
            earlier = draw(st.integers(0, later - 1))
            old = singles[later]
            singles[later] = case(old.id, old.category,
                                  depends_on=[singles[earlier].id, "not_in_the_run_0"])
    return [(f"{memory}_prereq", prereqs), ("simple_python", singles), (memory, questions)]


@settings(max_examples=60, deadline=None)
@given(run=runs(), count=st.integers(1, 7), seed=st.integers(0, 2**32))
def test_shards_partition_and_keep_dependencies_together(
    run: list[tuple[str, list[TestCase]]], count: int, seed: int
) -> None:
    loaded = [(categories.get(name), cases) for name, cases in run]
    every = [c for _, cases in loaded for c in cases]
    where: dict[str, int] = {}
    for index in range(count):
        for _, cases in shard_cases(loaded, Shard(index, count)):
            for c in cases:
                assert c.id not in where, f"{c.id} in two shards"
                where[c.id] = index
    assert sorted(where) == sorted(c.id for c in every)  # every case in exactly one shard
    for c in every:
        for dependency in c.extras.get("depends_on") or []:
            if dependency in where:
                assert where[dependency] == where[c.id], (c.id, dependency)
    shuffled = list(every)
    random.Random(seed).shuffle(shuffled)
    assert unit_keys(shuffled) == unit_keys(every)  # not the order the cases come in


def test_the_same_shard_in_another_process() -> None:
    """SHA-256, not hash(): a process with another hash seed puts each key in the same
    shard (a resumed or re-scheduled shard asks the same cases)."""
    keys = ["simple_python_0", "memory_kv:finance", "format_sensitivity_3:x=1:simple_2", "é"]
    code = ("import sys; from fcbench.dataset.shards import shard_of; "
            "print([shard_of(k, 7) for k in sys.argv[1:]])")
    found = subprocess.run([sys.executable, "-c", code, *keys], capture_output=True, text=True,
                           env={**os.environ, "PYTHONHASHSEED": "12345"}, check=True)
    assert found.stdout.strip() == str([shard_of(k, 7) for k in keys])
    assert len({shard_of(f"simple_python_{i}", 4) for i in range(40)}) == 4  # spreads


def test_memory_scenarios_are_units() -> None:
    prereq = case("memory_kv_prereq_0-finance-0", "memory_kv_prereq", scenario="finance")
    question = case("memory_kv_9-finance-3", "memory_kv", scenario="finance")
    other = case("memory_vector_1-finance-0", "memory_vector", scenario="finance")
    keys = unit_keys([prereq, question, other])
    assert keys[prereq.id] == keys[question.id] == "memory_kv:finance"
    assert keys[other.id] == "memory_vector:finance"


def test_the_library_takes_the_same_values(monkeypatch: pytest.MonkeyPatch) -> None:
    """`fcbench.generate(..., shard="K/N")`, `shard="auto"` or a Shard, like the flag."""
    from fcbench.run_config import RunConfig

    assert RunConfig.of({"shard": "1/3"}).selection.shard == Shard(1, 3)
    assert RunConfig.of({"shard": Shard(0, 2)}).selection.shard == Shard(0, 2)
    monkeypatch.setenv("JOB_COMPLETION_INDEX", "4")
    assert RunConfig.of({"shard": "auto/5"}).selection.shard == Shard(4, 5)
    with pytest.raises(ShardError):
        RunConfig.of({"shard": "5/5"})
