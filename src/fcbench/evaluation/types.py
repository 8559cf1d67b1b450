"""What an evaluation reports: per model, per category, per case."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from fcbench.dataset.categories import Category
from fcbench.dataset.model import Verdict
from fcbench.decode.encoding import Encoding
from fcbench.score.aggregate import CategoryScore
from fcbench.score.usage import Usage


@dataclass(frozen=True)
class CaseVerdict:
    id: str
    verdict: Verdict


@dataclass
class CategoryEvaluation:
    category: Category
    dataset_size: int
    correct: int = 0
    total: int = 0
    skipped: int = 0
    """Cases that could not be judged (executable cases needing an unreachable web
    service); they count in neither `correct` nor `total`."""
    cases: list[CaseVerdict] = field(default_factory=list)
    """Per-case verdicts in id order (empty unless `keep_cases` was asked for)."""
    file_path: Path | None = None

    @property
    def accuracy(self) -> float:
        return self.correct / self.total if self.total else 0.0

    @property
    def partial(self) -> bool:
        return self.total < self.dataset_size

    @property
    def score(self) -> CategoryScore:
        return CategoryScore(self.category.name, self.correct, self.total, self.dataset_size)

    def failures(self) -> list[CaseVerdict]:
        return [c for c in self.cases if not c.verdict.valid]


@dataclass
class ModelEvaluation:
    model: str
    encoding: Encoding
    categories: dict[str, CategoryEvaluation] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    """Tokens and latencies recorded in the result files scored (for the CSV columns)."""
    not_scored: list[str] = field(default_factory=list)
    """Categories with a result file that is not scored (sql and chatable, which the official
    tool never scored; categories fcbench cannot score yet)."""


@dataclass
class Evaluation:
    models: dict[str, ModelEvaluation] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class EvaluationError(ValueError):
    """The request itself is wrong (no such folder, no such model)."""
