"""How much a model's accuracy moves with the prompt's format (spec §7.3).

Format sensitivity is not part of the Overall; its score file's header carries, after the
usual counts over all its cases, each configuration's `{accuracy, correct_count,
total_count}` and three spreads of those accuracies, in percentage points:
`accuracy_max_delta` (max - min), `accuracy_std` (sample standard deviation) and
`accuracy_variance` (sample variance, in points squared), each rounded to 2 decimals, 0.0
when fewer than two configurations were judged. `data_format_sensitivity.csv` shows the
delta, the deviation and every configuration's accuracy.

The spreads come from the standard library's `statistics` (the official's too), so the same
accuracies give the same floats to the last bit before rounding.
"""

from __future__ import annotations

import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass
class ConfigCount:
    correct: int = 0
    total: int = 0

    @property
    def accuracy(self) -> float:
        return self.correct / self.total


def count_by_config(outcomes: Iterable[tuple[str, bool]]) -> dict[str, ConfigCount]:
    """(configuration, passed) per judged case -> counts per configuration, in the order
    the configurations first appear (the header keeps that order)."""
    counts: dict[str, ConfigCount] = {}
    for config, passed in outcomes:
        count = counts.setdefault(config, ConfigCount())
        count.total += 1
        count.correct += passed
    return counts


def header_fields(counts: dict[str, ConfigCount]) -> dict[str, Any]:
    """The score-file header fields after accuracy / correct_count / total_count."""
    accuracies = [count.accuracy for count in counts.values()]
    if len(accuracies) > 1:
        variance = round(statistics.variance(accuracies) * 100**2, 2)
        std = round(statistics.stdev(accuracies) * 100, 2)
        delta = round((max(accuracies) - min(accuracies)) * 100, 2)
    else:
        variance = std = delta = 0.0
    fields: dict[str, Any] = {
        "accuracy_max_delta": delta,
        "accuracy_variance": variance,
        "accuracy_std": std,
    }
    for config, count in counts.items():
        fields[config] = {
            "accuracy": count.accuracy,
            "correct_count": count.correct,
            "total_count": count.total,
        }
    return fields
