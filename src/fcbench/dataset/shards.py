"""Shards: one deterministic part of a run's cases, for a Slurm array or a Kubernetes job.

`--shard K/N` (K counts from 0) asks the cases whose *unit* hashes to K modulo N. A unit is
what must run together in one process and one folder:

* a memory scenario: its prerequisite conversations (a chain, each reading the memory the
  one before wrote into the model folder) and every question asked of that memory, keyed
  `memory_kv:customer` (the category without `_prereq`, and the scenario);
* any other case on its own, keyed by its id (a multi-turn case is one id and one result
  line: its turns are one conversation, asked by one worker);
* and, whatever the keys say, cases linked by `depends_on` are one unit (the smallest key of
  the linked cases), so a dependency never ends up in another shard than its dependant.

The hash is SHA-256 of the key's UTF-8 text: the same on every machine, Python and run
(never `hash()`, dict order or the process), so a resumed or re-scheduled shard asks exactly
the cases it asked before. The shards of one N partition the run: every unit in exactly one.

`--shard auto` reads the scheduler's variables: Slurm's `SLURM_ARRAY_TASK_ID` (less
`SLURM_ARRAY_TASK_MIN`, over `SLURM_ARRAY_TASK_STEP`) with `SLURM_ARRAY_TASK_COUNT`, or
Kubernetes' `JOB_COMPLETION_INDEX` (an Indexed Job) with the count from `auto/N` or
`FCBENCH_SHARD_COUNT` (Kubernetes does not pass the completions to the pod).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from fcbench.core import categories
from fcbench.core.categories import Category
from fcbench.core.model import TestCase, id_order

COUNT_VARIABLE = "FCBENCH_SHARD_COUNT"
"""The shard count for `--shard auto` where the scheduler does not give one (Kubernetes)."""
MAX_SHARDS = 100_000


class ShardError(ValueError):
    """A `--shard` value, or a scheduler's variables, that do not name one shard."""


@dataclass(frozen=True)
class Shard:
    """Shard `index` of `count` (0 <= index < count)."""

    index: int
    count: int

    def __post_init__(self) -> None:
        if not 1 <= self.count <= MAX_SHARDS:
            raise ShardError(f"--shard: the count must be 1 to {MAX_SHARDS} (got {self.count})")
        if not 0 <= self.index < self.count:
            raise ShardError(f"--shard {self.index}/{self.count}: K counts from 0 to N-1 "
                             f"(0/{self.count} ... {self.count - 1}/{self.count})")

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"

    def owns(self, key: str) -> bool:
        """Whether the unit with this key is this shard's."""
        return shard_of(key, self.count) == self.index

    def record(self) -> dict[str, int]:
        """As model.json records it."""
        return {"index": self.index, "count": self.count}


def shard_of(key: str, count: int) -> int:
    """The shard (0..count-1) a unit key falls in: SHA-256, stable everywhere."""
    digest = hashlib.sha256(key.encode("utf-8", "surrogatepass")).digest()
    return int.from_bytes(digest[:8], "big") % count


def parse_shard(text: str | None, environ: Mapping[str, str]) -> Shard | None:
    """`K/N`, `auto` or `auto/N` -> the shard (None when not given); ShardError, one line."""
    if text is None:
        return None
    given = text.strip()
    head, slash, tail = given.partition("/")
    if head.strip().lower() == "auto":
        count = _number(tail, "--shard auto/N: N") if slash else None
        return from_scheduler(environ, count)
    if not slash:
        raise ShardError(f"--shard {given!r}: give K/N (K from 0 to N-1), auto or auto/N")
    return Shard(_number(head, f"--shard {given}: K"), _number(tail, f"--shard {given}: N"))


def from_scheduler(environ: Mapping[str, str], count: int | None = None) -> Shard:
    """The shard a Slurm array task or a Kubernetes Indexed Job pod is (ShardError: which
    variable is missing or wrong)."""
    if "SLURM_ARRAY_TASK_ID" in environ:
        return _slurm(environ, count)
    if "JOB_COMPLETION_INDEX" in environ:
        index = _number(environ["JOB_COMPLETION_INDEX"], "JOB_COMPLETION_INDEX")
        if count is None:
            if COUNT_VARIABLE not in environ:
                raise ShardError("--shard auto in a Kubernetes Indexed Job: give the count as "
                                 f"--shard auto/N or ${COUNT_VARIABLE} (the Job's completions)")
            count = _number(environ[COUNT_VARIABLE], COUNT_VARIABLE)
        return Shard(index, count)
    raise ShardError("--shard auto: neither SLURM_ARRAY_TASK_ID (a Slurm array) nor "
                     "JOB_COMPLETION_INDEX (a Kubernetes Indexed Job) is set; give --shard K/N")


def _slurm(environ: Mapping[str, str], count: int | None) -> Shard:
    task = _number(environ["SLURM_ARRAY_TASK_ID"], "SLURM_ARRAY_TASK_ID")
    first = _number(environ.get("SLURM_ARRAY_TASK_MIN", "0"), "SLURM_ARRAY_TASK_MIN")
    step = _number(environ.get("SLURM_ARRAY_TASK_STEP", "1"), "SLURM_ARRAY_TASK_STEP")
    if step < 1 or (task - first) % step:
        raise ShardError(f"SLURM_ARRAY_TASK_ID={task} is not on the array's steps (min "
                         f"{first}, step {step})")
    if count is None:
        name = next((v for v in ("SLURM_ARRAY_TASK_COUNT", COUNT_VARIABLE) if v in environ),
                    None)
        if name is None:
            raise ShardError("--shard auto: SLURM_ARRAY_TASK_COUNT is not set; give "
                             f"--shard auto/N or ${COUNT_VARIABLE}")
        count = _number(environ[name], name)
    return Shard((task - first) // step, count)


def _number(text: str, what: str) -> int:
    value = text.strip()
    if not value.isascii() or not value.isdigit() or len(value) > 9:
        raise ShardError(f"{what} must be a whole number (got {text!r})")
    return int(value)


# --------------------------------------------------------------------------- units


def unit_key(case: TestCase) -> str:
    """The key a case's unit is hashed by (before `depends_on` links are followed)."""
    base = case.category.removesuffix("_prereq")
    scenario = case.extras.get("scenario")
    if base in categories.MEMORY and scenario is not None:
        return f"{base}:{scenario}"
    return case.id


def unit_keys(cases: Sequence[TestCase]) -> dict[str, str]:
    """Case id -> its unit's key, cases linked by `depends_on` (either way, transitively)
    given one key: the smallest of theirs."""
    parent: dict[str, str] = {case.id: case.id for case in cases}

    def root(item: str) -> str:
        while parent[item] != item:
            parent[item] = parent[parent[item]]
            item = parent[item]
        return item

    for case in cases:
        for dependency in _depends_on(case):
            if dependency in parent:
                a, b = root(case.id), root(dependency)
                if a != b:
                    parent[max(a, b)] = min(a, b)
    smallest: dict[str, str] = {}
    for case in cases:
        top = root(case.id)
        key = unit_key(case)
        smallest[top] = min(smallest.get(top, key), key)
    return {case.id: smallest[root(case.id)] for case in cases}


def _depends_on(case: TestCase) -> list[str]:
    value = case.extras.get("depends_on")
    return [str(v) for v in value] if isinstance(value, list) else []


def shard_cases(
    loaded: Sequence[tuple[Category, list[TestCase]]], shard: Shard
) -> list[tuple[Category, list[TestCase]]]:
    """The run's cases this shard asks, each category's in its given order (a category the
    shard has no case of is kept, empty: the shard's record names every category)."""
    keys = unit_keys([case for _, cases in loaded for case in cases])
    return [(category, [case for case in cases if shard.owns(keys[case.id])])
            for category, cases in loaded]


def shard_ids(loaded: Sequence[tuple[Category, list[TestCase]]]) -> dict[str, list[str]]:
    """Category -> its ids, in the official order (what a shard's record lists)."""
    return {category.name: sorted((case.id for case in cases), key=id_order)
            for category, cases in loaded}


def shard_run(
    loaded: Sequence[tuple[Category, list[TestCase]]], shard: Shard, selection: str
) -> tuple[list[tuple[Category, list[TestCase]]], dict[str, object]]:
    """The shard's cases (the categories it has none of left out) and its record, the
    folder's shard.json: which shard, the whole run's categories (prerequisites included)
    and selection, how many cases the whole run has of each, and this shard's ids (what
    `fcbench merge` checks the shards against, and lists as missing)."""
    mine = shard_cases(loaded, shard)
    record: dict[str, object] = {
        **shard.record(),
        "selection": selection,
        "categories": [category.name for category, _ in loaded],
        "totals": {category.name: len(cases) for category, cases in loaded},
        "ids": shard_ids(mine),
    }
    return [(category, cases) for category, cases in mine if cases], record
