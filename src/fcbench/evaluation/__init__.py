"""`evaluate`: result files in, verdicts, score files and leaderboards out.

The work is planned (`plan`: models, their encodings, one job per category) and run (`jobs`:
each job judges every model's answers to its category through the category's checker kind,
in worker processes). Damage (broken lines, unknown or duplicate ids, categories fcbench cannot
check) becomes a one-line problem; the rest is scored.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path

from fcbench.check.registry import JudgeSettings
from fcbench.core import categories
from fcbench.core.defaults import EXEC_BACKEND
from fcbench.dataset.fetch import DEFAULT_RELEASE
from fcbench.dataset.load import scoring_sizes
from fcbench.dataset.selection import Selection
from fcbench.decode.encoding import Encoding, EncodingError
from fcbench.evaluation.jobs import CaseDetail, JobRequest, JobResult, run_jobs
from fcbench.evaluation.plan import (
    ModelAnswers,
    group_jobs,
    model_encoding,
    plan_model,
    select_models,
)
from fcbench.evaluation.types import (
    CaseVerdict,
    CategoryEvaluation,
    Evaluation,
    EvaluationError,
    ModelEvaluation,
)

__all__ = [
    "CaseVerdict",
    "CategoryEvaluation",
    "Evaluation",
    "EvaluationError",
    "ModelEvaluation",
    "evaluate",
    "model_encoding",
]


def evaluate(
    result_dir: Path,
    *,
    models: Sequence[str] = (),
    category_names: Iterable[str] = (),
    encoding: Encoding | None = None,
    release: str = DEFAULT_RELEASE,
    data_root: Path | None = None,
    score_dir: Path | None = None,
    keep_cases: bool = True,
    case_detail: CaseDetail | None = None,
    workers: int | None = None,
    exec_backend: str = EXEC_BACKEND,
    exec_replay_dir: Path | None = None,
    selection: Selection | None = None,
) -> Evaluation:
    """Judge every answer in `result_dir` (one model folder, or a folder of them).

    `encoding` overrides every model's model.json; `category_names` (categories or
    collections) restricts what is scored; with `score_dir`, each category's official score
    file is written as soon as it is judged. `workers` (default: one per core) runs category
    jobs in parallel processes. `selection` judges only the cases it chooses of each
    category (the others in a result file are left out, as if absent). `case_detail` (with
    `score_dir`) keeps each category as the HTML report reads it (`report_run`), failures
    detailed by that function.
    """
    settings = JudgeSettings(release, data_root, score_dir is not None, exec_backend,
                             exec_replay_dir)
    try:
        settings.validate()
    except ValueError as exc:
        raise EvaluationError(str(exc)) from None
    model_dirs = select_models(Path(result_dir), models)
    wanted = (
        frozenset(c.name for c in categories.resolve(category_names, everything=True))
        if category_names else None
    )
    report = Evaluation()
    planned = []
    for name, folder in model_dirs.items():
        try:
            model = ModelEvaluation(name, model_encoding(name, folder, encoding))
        except EncodingError as exc:  # one unreadable model.json: that model only is left out
            report.problems.append(f"{exc}; model {name} not scored")
            continue
        report.models[name] = model
        planned += plan_model(model, folder, wanted)
    if data_root is not None:
        planned = _in_dataset(report, planned, release, data_root)
    active = selection if selection is not None and selection.active else None
    request = JobRequest(settings, score_dir, keep_cases, active, case_detail)
    for result in run_jobs(group_jobs(planned), request, workers):
        _merge(report, result)
    order = {c.name: i for i, c in enumerate(categories.all_categories())}
    sizes = scoring_sizes(release, data_root) if report.models else {}
    for model in report.models.values():
        model.categories = dict(sorted(model.categories.items(), key=lambda kv: order[kv[0]]))
        model.dataset_sizes = sizes
    return report


def _in_dataset(
    report: Evaluation, planned: list[ModelAnswers], release: str, data_root: Path
) -> list[ModelAnswers]:
    """The planned files whose category the user's dataset folder holds; the others are
    said once per model and left out (a custom dataset may hold only some categories)."""
    from fcbench.dataset.load import has_category

    present: dict[str, bool] = {}
    kept: list[ModelAnswers] = []
    absent: dict[str, list[str]] = {}
    for answers in planned:
        name = answers.file.category
        if name not in present:
            present[name] = has_category(name, release, data_root)
        if present[name]:
            kept.append(answers)
        else:
            absent.setdefault(answers.model, []).append(name)
    for model, names in absent.items():
        report.models[model].problems.append(
            f"{model}: not in the dataset folder {data_root}, skipped: {', '.join(names)}"
        )
    return kept


def _merge(report: Evaluation, result: JobResult) -> None:
    for model, evaluation in result.evaluations.items():
        target = report.models[model]
        target.categories[evaluation.category.name] = evaluation
        target.usage.extend_from(result.usage[model])
    for model, problems in result.problems.items():
        report.models[model].problems.extend(problems)
