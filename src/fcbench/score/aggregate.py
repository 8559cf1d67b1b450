"""Per-category scores: how many cases passed out of how many were evaluated.

A category the run did not evaluate still has to take part in the leaderboard formulas. The
official tool counts it as accuracy 0 over the category's full dataset size and displays "N/A";
`CategoryScore.missing` builds exactly that record, so every formula can treat evaluated and
missing categories alike and only the display differs.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from fcbench.core.model import Verdict


@dataclass(frozen=True)
class CategoryScore:
    """The score of one category for one model.

    `total` is the number of cases evaluated (the weight the official formulas use), and
    `dataset_size` the number of cases the category has; they differ only in a partial run.
    """

    category: str
    correct: int
    total: int
    dataset_size: int
    evaluated: bool = True

    @property
    def accuracy(self) -> float:
        """correct / total, computed as the official does (0 for an empty category)."""
        return self.correct / self.total if self.total else 0.0

    @property
    def partial(self) -> bool:
        """Evaluated on fewer cases than the category holds (e.g. a `--partial-eval` run)."""
        return self.evaluated and self.total < self.dataset_size

    @classmethod
    def missing(cls, category: str, dataset_size: int) -> CategoryScore:
        """A category without a score: 0 correct over the whole dataset, displayed "N/A"."""
        return cls(category, 0, dataset_size, dataset_size, evaluated=False)

    @classmethod
    def from_header(
        cls, category: str, header: Mapping[str, Any], dataset_size: int
    ) -> CategoryScore:
        """Rebuild a score from a score file's first line (`correct_count`, `total_count`)."""
        return cls(category, int(header["correct_count"]), int(header["total_count"]), dataset_size)


def score_verdicts(
    category: str, verdicts: Iterable[Verdict | bool], dataset_size: int
) -> CategoryScore:
    """Count a category's verdicts (a `Verdict` or a plain valid flag per evaluated case)."""
    correct = total = 0
    for verdict in verdicts:
        total += 1
        correct += verdict.valid if isinstance(verdict, Verdict) else bool(verdict)
    return CategoryScore(category, correct, total, dataset_size)


def with_missing(
    scores: Mapping[str, CategoryScore],
    categories: Iterable[str],
    dataset_sizes: Mapping[str, int],
) -> dict[str, CategoryScore]:
    """`scores` completed with a `CategoryScore.missing` for every absent category.

    The V4 formulas need a score for every category they name; this is the one place that
    decides what an absent one counts as.
    """
    complete = dict(scores)
    for category in categories:
        if category not in complete:
            complete[category] = CategoryScore.missing(category, _size(dataset_sizes, category))
    return complete


def _size(dataset_sizes: Mapping[str, int], category: str) -> int:
    try:
        return dataset_sizes[category]
    except KeyError:
        raise ValueError(
            f"category {category!r} has no score and no known dataset size; "
            "a missing category counts as 0 over its dataset size"
        ) from None
