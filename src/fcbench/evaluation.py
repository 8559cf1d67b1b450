"""`evaluate`: result files in, verdicts and scores out.

The flow for each model folder: read its encoding (model.json or flags), find its result
files, load each category's test cases once, judge every answer, and collect per-category
counts. Damage (broken lines, unknown or duplicate ids, categories fcbench cannot check yet)
becomes a one-line problem on the report; everything else is still scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.check.single_turn import judge
from fcbench.dataset import categories
from fcbench.dataset.categories import Category, Checker
from fcbench.dataset.fetch import DEFAULT_RELEASE
from fcbench.dataset.load import load_category
from fcbench.dataset.model import TestCase, Verdict
from fcbench.decode.encoding import Encoding
from fcbench.runner.results import ResultFile, find_model_dirs, find_result_files, read_result_file

SINGLE_TURN_CHECKERS = (
    Checker.AST_SIMPLE,
    Checker.AST_MULTIPLE,
    Checker.AST_PARALLEL,
    Checker.IRRELEVANCE,
    Checker.RELEVANCE,
)


@dataclass(frozen=True)
class CaseResult:
    case: TestCase
    entry: dict[str, Any]
    verdict: Verdict


@dataclass
class CategoryEvaluation:
    category: Category
    dataset_size: int
    cases: list[CaseResult] = field(default_factory=list)
    file_path: Path | None = None

    @property
    def correct(self) -> int:
        return sum(1 for c in self.cases if c.verdict.valid)

    @property
    def total(self) -> int:
        return len(self.cases)

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def partial(self) -> bool:
        return self.total < self.dataset_size

    def failures(self) -> list[CaseResult]:
        return [c for c in self.cases if not c.verdict.valid]


@dataclass
class ModelEvaluation:
    model: str
    encoding: Encoding
    categories: dict[str, CategoryEvaluation] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


@dataclass
class Evaluation:
    models: dict[str, ModelEvaluation] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class EvaluationError(ValueError):
    """The request itself is wrong (no such folder, no such model)."""


class _Datasets:
    """Test cases by category, loaded once per evaluation and shared by all models."""

    def __init__(self, release: str, data_root: Path | None) -> None:
        self.release, self.data_root = release, data_root
        self._cases: dict[str, dict[str, TestCase]] = {}

    def cases(self, category: Category) -> dict[str, TestCase]:
        if category.name not in self._cases:
            loaded = load_category(category, self.release, self.data_root)
            self._cases[category.name] = {case.id: case for case in loaded}
        return self._cases[category.name]


def evaluate(
    result_dir: Path,
    *,
    models: Sequence[str] = (),
    category_names: Iterable[str] = (),
    encoding: Encoding | None = None,
    release: str = DEFAULT_RELEASE,
    data_root: Path | None = None,
) -> Evaluation:
    """Judge every answer in `result_dir` (one model folder, or a folder of them).

    `encoding` overrides every model's model.json; `category_names` (categories or
    collections) restricts what is scored.
    """
    result_dir = Path(result_dir)
    if not result_dir.is_dir():
        raise EvaluationError(f"result folder not found: {result_dir}")
    model_dirs = find_model_dirs(result_dir)
    if models:
        missing = [
            m for m in models if m not in model_dirs and m.replace("/", "_") not in model_dirs
        ]
        if missing:
            raise EvaluationError(
                f"no results for model(s) {', '.join(missing)} in {result_dir} "
                f"(found: {', '.join(model_dirs) or 'none'})"
            )
        wanted_models = {m.replace("/", "_") for m in models}
        model_dirs = {k: v for k, v in model_dirs.items() if k in wanted_models}
    wanted = {c.name for c in categories.resolve(category_names)} if category_names else None
    datasets = _Datasets(release, data_root)
    report = Evaluation()
    for name, folder in model_dirs.items():
        report.models[name] = _evaluate_model(name, folder, encoding, wanted, datasets)
    return report


def model_encoding(name: str, folder: Path, override: Encoding | None) -> Encoding:
    if override is not None:
        return override
    if (folder / "model.json").is_file():
        return Encoding.from_file(folder / "model.json")
    return Encoding.default_for(name)


def _evaluate_model(
    name: str,
    folder: Path,
    override: Encoding | None,
    wanted: set[str] | None,
    datasets: _Datasets,
) -> ModelEvaluation:
    result = ModelEvaluation(name, model_encoding(name, folder, override))
    unscored: list[str] = []
    for file in find_result_files(folder):
        if wanted is not None and file.category not in wanted:
            continue
        category = categories.get(file.category)
        if category.checker not in SINGLE_TURN_CHECKERS or not category.scoring:
            unscored.append(category.name)
            continue
        if category.name in result.categories:
            result.problems.append(
                f"{file.path}: a second result file for {category.name}; skipped"
            )
            continue
        result.categories[category.name] = _evaluate_file(file, category, result, datasets)
    if wanted is not None:
        missing = [n for n in sorted(wanted) if n not in result.categories and n not in unscored]
        if missing:
            result.problems.append(
                f"{name}: no result file for {', '.join(missing)} (counted as missing: N/A, 0)"
            )
    if unscored:
        result.problems.append(
            f"{name}: not scored by this version of fcbench, skipped: {', '.join(unscored)}"
        )
    return result


def _evaluate_file(
    file: ResultFile, category: Category, model: ModelEvaluation, datasets: _Datasets
) -> CategoryEvaluation:
    cases = datasets.cases(category)
    found = read_result_file(file)
    model.problems.extend(found.problems)
    evaluation = CategoryEvaluation(category, len(cases), file_path=file.path)
    unknown = [test_id for test_id in found.entries if test_id not in cases]
    if unknown:
        shown = ", ".join(unknown[:3]) + (", ..." if len(unknown) > 3 else "")
        model.problems.append(
            f"{file.path}: {len(unknown)} id(s) not in the {category.name} dataset, "
            f"skipped ({shown})"
        )
    for test_id, entry in found.entries.items():
        case = cases.get(test_id)
        if case is not None:
            verdict = judge(case, category, entry["result"], model.encoding)
            evaluation.cases.append(CaseResult(case, entry, verdict))
    evaluation.cases.sort(key=lambda c: _id_order(c.case.id))
    return evaluation


def _id_order(test_id: str) -> tuple[str, int, str]:
    """Sort like the official tool: by category, then by the case's integer index."""
    head, _, tail = test_id.partition("-")
    prefix, _, number = head.rpartition("_")
    return (prefix, int(number) if number.isdigit() else -1, tail)
