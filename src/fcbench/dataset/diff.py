"""`fcbench data diff A B`: which cases changed between two releases (or folders).

Both sides are loaded as today's categories (an older release's `BFCL_v3_simple.json` is
`simple_python`, its ids renamed), so cases are matched by today's id. A case is *added*,
*removed*, or *changed* in named parts: `question`, `functions` (for multi-turn cases, the
docs of their classes, as a model is shown them), `answer` (the possible answer), and any
other field by its name (`initial_config`, `involved_classes`, `missed_function`, ...).
Values are compared as canonical JSON, so `2` and `2.0`, or `1` and `true`, differ as they
do for the checker.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.core import categories
from fcbench.core.categories import Category
from fcbench.core.model import TestCase
from fcbench.dataset.fetch import DataError
from fcbench.dataset.load import has_category, load_category
from fcbench.dataset.source import has_own_source, source

__all__ = ["CaseChange", "CategoryDiff", "DataSpec", "DatasetDiff", "diff_datasets"]

FORMAT_SENSITIVITY = "format_sensitivity"


@dataclass(frozen=True)
class DataSpec:
    """One side of a diff: a fetched release, or a folder laid out like `data/`."""

    release: str
    root: Path | None = None

    @property
    def label(self) -> str:
        return str(self.root) if self.root is not None else self.release


@dataclass(frozen=True)
class CaseChange:
    case_id: str
    parts: tuple[str, ...]


@dataclass
class CategoryDiff:
    category: str
    in_a: bool
    in_b: bool
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: list[CaseChange] = field(default_factory=list)
    unchanged: int = 0

    @property
    def differs(self) -> bool:
        return bool(self.added or self.removed or self.changed)

    def as_json(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "in_a": self.in_a,
            "in_b": self.in_b,
            "added": self.added,
            "removed": self.removed,
            "changed": [{"id": c.case_id, "parts": list(c.parts)} for c in self.changed],
            "unchanged": self.unchanged,
        }


@dataclass
class DatasetDiff:
    a: DataSpec
    b: DataSpec
    categories: list[CategoryDiff]

    def totals(self) -> dict[str, int]:
        return {
            "added": sum(len(c.added) for c in self.categories),
            "removed": sum(len(c.removed) for c in self.categories),
            "changed": sum(len(c.changed) for c in self.categories),
            "unchanged": sum(c.unchanged for c in self.categories),
        }


def diff_datasets(
    a: DataSpec, b: DataSpec, names: Iterable[str] = ()
) -> DatasetDiff:
    """Case by case, every category either side has (or only those `names` resolve to)."""
    wanted = categories.resolve(names) if names else list(categories.all_categories())
    wanted = [c for c in wanted if not has_own_source(c)]  # custom datasets: not A or B's
    found: list[CategoryDiff] = []
    for cat in wanted:
        in_a, in_b = _has(cat, a), _has(cat, b)
        if in_a or in_b:
            found.append(_diff_category(cat, a, b, in_a, in_b))
    return DatasetDiff(a, b, found)


def _has(cat: Category, spec: DataSpec) -> bool:
    return has_category(cat, spec.release, spec.root)


def _diff_category(cat: Category, a: DataSpec, b: DataSpec, in_a: bool, in_b: bool) -> CategoryDiff:
    old = _cases(cat, a) if in_a else {}
    new = _cases(cat, b) if in_b else {}
    result = CategoryDiff(cat.name, in_a, in_b)
    result.removed = [i for i in old if i not in new]
    result.added = [i for i in new if i not in old]
    for case_id, parts in old.items():
        if case_id in new:
            changed = tuple(p for p in _part_names(parts, new[case_id])
                            if parts.get(p) != new[case_id].get(p))
            if changed:
                result.changed.append(CaseChange(case_id, changed))
            else:
                result.unchanged += 1
    return result


def _cases(cat: Category, spec: DataSpec) -> dict[str, dict[str, str]]:
    """Each case's parts as canonical JSON, by today's id, in file order."""
    if cat.name == FORMAT_SENSITIVITY:
        return {case_id: {} for case_id in _selected(spec)}
    return {case.id: _parts(case) for case in load_category(cat, spec.release, spec.root)}


def _parts(case: TestCase) -> dict[str, str]:
    parts = {
        "question": _canonical(case.question),
        "functions": _canonical(case.functions),
        "answer": _canonical(case.possible_answer),
    }
    for key, value in case.extras.items():
        parts[key] = _canonical(value)
    return parts


def _part_names(old: dict[str, str], new: dict[str, str]) -> list[str]:
    """The parts of both versions, the three main ones first."""
    names = list(old)
    names.extend(k for k in new if k not in old)
    return names


def _canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def _selected(spec: DataSpec) -> list[str]:
    """The ids the format-sensitivity file selects (they name their categories)."""
    src = source(spec.release, spec.root)
    rel = src.naming.format_sensitivity_file()
    try:
        selected = json.loads(src.read(rel))
        return [str(case_id) for ids in selected.values() for case_id in ids]
    except (ValueError, AttributeError, TypeError):
        raise DataError(f"{src.label(rel)}: not a JSON object of id lists") from None
