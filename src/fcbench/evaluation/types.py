"""What an evaluation reports: per model, per category, per case."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fcbench.core.categories import Category
from fcbench.core.model import Verdict
from fcbench.decode.encoding import Encoding
from fcbench.score.aggregate import CategoryScore, with_missing
from fcbench.score.formulas import V1Summary, V4Summary, v1_overall, v4_summary
from fcbench.score.usage import Usage

if TYPE_CHECKING:
    from fcbench.score.per_turn import PerTurn
    from fcbench.score.runs import CategoryRun


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
    error_types: Counter[str] = field(default_factory=Counter)
    """Failed cases (skipped ones aside) by official error type: the score file's records,
    counted, so that a summary of why cases failed needs no second read of the files."""
    file_path: Path | None = None
    upstream: dict[str, Any] | None = None
    """Under a corrections profile that edits judged cases' ground truth: the category as
    upstream scores it (`evaluation.corrected.upstream_side`), else None."""
    per_turn: PerTurn | None = None
    """Multi-turn categories: per-turn accuracy (fcbench metric, `score.per_turn`), in no
    official score; None elsewhere."""
    report_run: CategoryRun | None = None
    """When asked (`report_cases`, with score files written): the category as the HTML report
    would read it back from its score file, with each failure's detail."""

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
    """One model's scores: per category, and the official aggregates over them."""

    model: str
    encoding: Encoding
    categories: dict[str, CategoryEvaluation] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)
    """Tokens and latencies recorded in the result files scored (for the CSV columns)."""
    not_scored: list[str] = field(default_factory=list)
    """Categories with a result file that is not scored (sql and chatable, which the official
    tool never scored; categories fcbench cannot score yet)."""
    dataset_sizes: dict[str, int] = field(default_factory=dict, repr=False)
    """Every scoring category's size: a category not scored counts 0 over it."""

    @property
    def scores(self) -> dict[str, CategoryScore]:
        """Every scoring category's score; one without results is 0 over its size (N/A)."""
        scores = {name: c.score for name, c in self.categories.items()}
        return with_missing(scores, self.dataset_sizes, self.dataset_sizes)

    @property
    def v4(self) -> V4Summary:
        """The V4 aggregates (Non-Live, Live, Irrelevance, Multi-Turn, Web Search, Memory,
        Agentic, Overall), official formulas: a category not scored counts as 0."""
        return v4_summary(self.scores)

    @property
    def overall(self) -> float:
        """The V4 Overall accuracy (0-1), as the leaderboard computes it."""
        return self.v4.overall.accuracy

    @property
    def v1(self) -> V1Summary:
        """The 2024 (v1) aggregates: Overall, AST and Exec summaries, the nine groups."""
        return v1_overall(self.scores)


@dataclass
class Evaluation:
    """What `evaluate` (and `run`) report: every model's scores, and what went wrong."""

    models: dict[str, ModelEvaluation] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class EvaluationError(ValueError):
    """The request itself is wrong (no such folder, no such model)."""
