"""Summaries of custom datasets' categories, which the official V4 formulas do not name.

Overall, Non-Live, Live and the other leaderboard summaries are the official formulas over the
official categories, so a custom category never moves them. Each custom *group* (the
manifest's `group`, by default the dataset's name) gets a summary of its own instead: the
share of the group's cases that passed, over every category of the group (case-weighted; a
category not run counts as 0 over its size, as the official summaries count a missing
category). A category in a score folder that no registered dataset names (the folder scored
without its `--data-dir`) is reported in group `unregistered`, sized by its score file.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from fcbench.core import categories
from fcbench.dataset.custom import is_custom
from fcbench.score.aggregate import CategoryScore

__all__ = ["custom_groups", "custom_label", "custom_summaries", "is_custom_name"]

UNKNOWN_GROUP = "unregistered"
NOTE = ("custom categories are not part of the official formulas (Overall and the other "
        "summaries leave them out); `<group> (custom)` is the share of that group's cases "
        "passed, a category not run counting 0.")


def is_custom_name(name: str) -> bool:
    """A registered custom category, or a name no built-in category has."""
    if is_custom(name):
        return True
    try:
        categories.get(name)
    except categories.UnknownCategoryError:
        return True
    return False


def custom_label(group: str) -> str:
    return f"{group} (custom)"


def custom_groups(names: Iterable[str]) -> dict[str, list[str]]:
    """group -> its categories: every registered custom category of the groups the names
    touch (registry order), and unregistered names in group `unregistered`."""
    wanted = [n for n in names if is_custom_name(n)]
    groups: dict[str, list[str]] = {}
    touched = {_group(n) for n in wanted}
    for row in categories.all_categories():
        if is_custom(row) and row.group in touched:
            groups.setdefault(row.group, []).append(row.name)
    for name in sorted(n for n in wanted if not is_custom(n)):
        groups.setdefault(UNKNOWN_GROUP, []).append(name)
    return groups


def _group(name: str) -> str:
    return categories.get(name).group if is_custom(name) else UNKNOWN_GROUP


def custom_summaries(
    evaluated: Mapping[str, CategoryScore],
    sizes: Mapping[str, int] | None = None,
    names: Iterable[str] | None = None,
) -> dict[str, float | None]:
    """`<group> (custom)` -> the group's pass rate; None when none of it was evaluated.

    The groups are those of `names` (default: the evaluated categories), so that models
    compared side by side are summed over the same categories."""
    from fcbench.dataset.load import dataset_size

    values: dict[str, float | None] = {}
    for group, members in custom_groups(evaluated if names is None else names).items():
        correct = total = 0
        for name in members:
            score = evaluated.get(name)
            if score is not None and score.evaluated:
                correct, total = correct + score.correct, total + score.total
            else:
                total += (sizes or {}).get(name) or dataset_size(name)
        run = any(n in evaluated and evaluated[n].evaluated for n in members)
        values[custom_label(group)] = correct / total if run and total else (0.0 if run else None)
    return values
