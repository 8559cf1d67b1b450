"""Smoke runs: a few cases per category instead of all of them.

Before paying for a whole run people want to see the harness work end to end in seconds:
`--limit N` takes the first N cases of each category (dataset order), `--sample N --seed S`
a reproducible random N of each (the same N for the same seed, on any machine and Python),
`--ids ID,...` exactly those cases. Generation asks only the chosen cases and evaluation judges
only them, so scores of a smoke run cover fewer cases than the categories hold and show as
partial wherever they appear (the official score files stay as the official tool writes them
for a partial evaluation: accuracy over the cases judged).

A selection is plain data (it travels to evaluation worker processes) and chooses from a
category's ids whatever order they come in: the order used is the official id order.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from fcbench.core import categories
from fcbench.core.categories import Category, UnknownCategoryError
from fcbench.core.model import TestCase, id_order


class SelectionError(ValueError):
    """Selection flags that do not fit together, or ids that name no category."""


@dataclass(frozen=True)
class Selection:
    """Which cases of each category a run covers (every case when nothing is set)."""

    limit: int | None = None
    sample: int | None = None
    seed: int = 0
    ids: frozenset[str] | None = None

    @classmethod
    def of(
        cls,
        limit: int | None = None,
        sample: int | None = None,
        seed: int | None = None,
        ids: Iterable[str] | str | None = None,
    ) -> Selection:
        """A checked selection (SelectionError naming the flags that clash)."""
        chosen = parse_ids(ids)
        given = [name for name, value in (("--limit", limit), ("--sample", sample),
                                          ("--ids", chosen)) if value is not None]
        if len(given) > 1:
            raise SelectionError(f"{' and '.join(given)} cannot be combined; pick one")
        for name, value in (("--limit", limit), ("--sample", sample)):
            if value is not None and value < 1:
                raise SelectionError(f"{name} must be at least 1 (got {value})")
        if seed is not None and sample is None:
            raise SelectionError("--seed applies to --sample")
        return cls(limit, sample, seed or 0, chosen)

    @property
    def active(self) -> bool:
        return self.limit is not None or self.sample is not None or self.ids is not None

    def describe(self) -> str:
        """How people asked for it, e.g. `--sample 5 --seed 1`."""
        if self.limit is not None:
            return f"--limit {self.limit}"
        if self.sample is not None:
            return f"--sample {self.sample} --seed {self.seed}"
        if self.ids is not None:
            return f"--ids ({len(self.ids)} id(s))"
        return "every case"

    def choose(self, category: str, ids: Iterable[str]) -> set[str]:
        """The ids of `category` the selection covers, out of `ids`."""
        ordered = sorted(ids, key=id_order)
        if self.limit is not None:
            return set(ordered[: self.limit])
        if self.sample is not None:
            if self.sample >= len(ordered):
                return set(ordered)
            return set(random.Random(f"{self.seed}:{category}").sample(ordered, self.sample))
        if self.ids is not None:
            return set(self.ids) & set(ordered)
        return set(ordered)

    def cases(self, category: str, cases: Sequence[TestCase]) -> list[TestCase]:
        """The chosen cases in their given order, and every case a chosen one depends on
        (`depends_on`, e.g. a memory question's prerequisite conversations)."""
        if not self.active:
            return list(cases)
        wanted = _with_dependencies(self.choose(category, (c.id for c in cases)),
                                    {c.id: c for c in cases})
        return [c for c in cases if c.id in wanted]

    def categories(self) -> list[Category]:
        """The categories `--ids` names (ValueError for an id of no known category)."""
        found: dict[str, Category] = {}
        for test_id in sorted(self.ids or (), key=id_order):
            category = category_of(test_id)
            found.setdefault(category.name, category)
        order = {c.name: i for i, c in enumerate(categories.all_categories())}
        return sorted(found.values(), key=lambda c: order.get(c.name, len(order)))


def parse_ids(ids: Iterable[str] | str | None) -> frozenset[str] | None:
    """`a,b` or several such texts -> the set of ids; None when not given."""
    if ids is None:
        return None
    texts = [ids] if isinstance(ids, str) else list(ids)
    parsed = frozenset(i.strip() for text in texts for i in text.split(",") if i.strip())
    if not parsed:
        raise SelectionError("--ids is empty: give test ids, e.g. --ids simple_python_0,multiple_3")
    return parsed


def category_of(test_id: str) -> Category:
    """The category a test id belongs to: the longest category name it starts with."""
    head = test_id.split(":")[0]
    names = sorted((c.name for c in categories.all_categories()), key=len, reverse=True)
    for name in names:
        if head.startswith(name + "_"):
            return categories.get(name)
    try:
        return categories.get(id_order(test_id)[0])
    except UnknownCategoryError:
        raise SelectionError(f"--ids: {test_id!r} is not the id of a known category") from None


def _depends_on(case: TestCase | None) -> list[str]:
    if case is None:
        return []
    value = case.extras.get("depends_on")
    return [str(v) for v in value] if isinstance(value, list) else []


def select_run(
    loaded: Sequence[tuple[Category, list[TestCase]]], selection: Selection
) -> list[tuple[Category, list[TestCase]]]:
    """A run's cases cut down to the selection: in each scored category the chosen cases;
    in a prerequisite category (memory's prerequisite conversations) the cases a chosen one
    depends on, so a smoke run of memory questions still builds their memory first; the
    categories left empty are dropped (SelectionError for `--ids` found nowhere)."""
    by_id = {case.id: case for _, cases in loaded for case in cases}
    if selection.ids is not None:
        unknown = sorted(selection.ids - by_id.keys())
        if unknown:
            shown = ", ".join(unknown[:5]) + (", ..." if len(unknown) > 5 else "")
            raise SelectionError(f"--ids: not in the chosen categories' data: {shown}")
    chosen: set[str] = set()
    for category, cases in loaded:
        if not category.prerequisite:
            chosen |= selection.choose(category.name, (c.id for c in cases))
    if selection.ids is not None:
        chosen |= selection.ids
    wanted = _with_dependencies(chosen, by_id)
    picked = [(c, [case for case in cases if case.id in wanted]) for c, cases in loaded]
    return [(c, cases) for c, cases in picked if cases]


def _with_dependencies(wanted: set[str], by_id: Mapping[str, TestCase]) -> set[str]:
    """`wanted` and, transitively, every case among `by_id` that one of them depends on."""
    wanted = set(wanted)
    stack = list(wanted)
    while stack:
        for dependency in _depends_on(by_id.get(stack.pop())):
            if dependency not in wanted and dependency in by_id:
                wanted.add(dependency)
                stack.append(dependency)
    return wanted
