"""Planning an evaluation: which model folders, how each model's outputs are encoded, and
which result files make one job per category (every model's file for that category)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from fcbench.check import registry
from fcbench.core import categories
from fcbench.core.categories import Category
from fcbench.decode.encoding import Encoding
from fcbench.evaluation.types import EvaluationError, ModelEvaluation
from fcbench.layout import manifest_path, model_dir_name
from fcbench.results.read import ResultFile, find_model_dirs, find_result_files


@dataclass(frozen=True)
class ModelAnswers:
    """One model's result file for the category of a job."""

    model: str
    file: ResultFile
    encoding: Encoding


@dataclass(frozen=True)
class CategoryJob:
    """One category, judged over every model's answers to it."""

    category: Category
    answers: tuple[ModelAnswers, ...]


def select_models(result_dir: Path, models: Sequence[str]) -> dict[str, Path]:
    """Model name -> folder: every model found, or the ones asked for (all must exist)."""
    if not result_dir.is_dir():
        raise EvaluationError(f"result folder not found: {result_dir}")
    model_dirs = find_model_dirs(result_dir)
    if not models:
        return model_dirs
    wanted = {model_dir_name(m) for m in models}
    missing = [m for m in models if model_dir_name(m) not in model_dirs]
    if missing:
        raise EvaluationError(
            f"no results for model(s) {', '.join(missing)} in {result_dir} "
            f"(found: {', '.join(model_dirs) or 'none'})"
        )
    return {k: v for k, v in model_dirs.items() if k in wanted}


def model_encoding(name: str, folder: Path, override: Encoding | None) -> Encoding:
    """The override, else the folder's model.json, else the official naming convention."""
    if override is not None:
        return override
    if manifest_path(folder).is_file():
        return Encoding.from_file(manifest_path(folder))
    return Encoding.default_for(name)


def is_scored(category: Category) -> bool:
    """A category fcbench scores: a scoring row whose checker kind is registered."""
    return category.scoring and registry.is_registered(category.checker)


def plan_model(
    model: ModelEvaluation, folder: Path, wanted: frozenset[str] | None
) -> list[ModelAnswers]:
    """The result files of one model that will be scored; the rest become problems."""
    planned: dict[str, ModelAnswers] = {}
    unscored: list[str] = []
    for file in find_result_files(folder):
        if wanted is not None and file.category not in wanted:
            continue
        category = categories.get(file.category)
        if category.prerequisite:
            continue  # memory prerequisites prepare state; they are never scored
        if not is_scored(category):
            unscored.append(category.name)
        elif category.name in planned:
            model.problems.append(f"{file.path}: a second result file for {category.name}; skipped")
        else:
            planned[category.name] = ModelAnswers(model.model, file, model.encoding)
    if wanted is not None:
        missing = [
            n for n in sorted(wanted)
            if n not in planned and n not in unscored and categories.get(n).scoring
        ]
        if missing:
            model.problems.append(
                f"{model.model}: no result file for {', '.join(missing)} "
                "(counted as missing: N/A, 0)"
            )
    _note_unscored(model, unscored)
    _note_profile(model, folder)
    return list(planned.values())


def _note_profile(model: ModelEvaluation, folder: Path) -> None:
    """A folder generated under another corrections profile than the one judging it: said in
    one problem line (its answers carry the generation-time fixes of the profile it records,
    the verdicts the ground-truth fixes of the active one)."""
    from fcbench.corrections import DEFAULT_PROFILE, active_profile
    from fcbench.results.manifest import read_manifest

    recorded = read_manifest(folder).get("corrections", DEFAULT_PROFILE)
    if recorded != active_profile():
        model.problems.append(
            f"{model.model}: generated with --corrections {recorded}, judged with "
            f"--corrections {active_profile()} (pass --corrections {recorded} to match)"
        )


def _note_unscored(model: ModelEvaluation, unscored: list[str]) -> None:
    """Result files that are kept but not scored: listed on the model (the table shows
    them) and in one problem line that says why."""
    model.not_scored.extend(unscored)
    never = [n for n in unscored if not categories.get(n).scoring]
    later = [n for n in unscored if categories.get(n).scoring]
    if never:
        model.problems.append(
            f"{model.model}: not scored (the official tool never scored them either), results "
            f"kept: {', '.join(never)}"
        )
    if later:
        model.problems.append(
            f"{model.model}: not scored by this version of fcbench, skipped: {', '.join(later)}"
        )


def group_jobs(per_model: Sequence[ModelAnswers]) -> list[CategoryJob]:
    """One job per category, its models in the order they were planned."""
    jobs: dict[str, list[ModelAnswers]] = {}
    for answers in per_model:
        jobs.setdefault(answers.file.category, []).append(answers)
    return [CategoryJob(categories.get(name), tuple(items)) for name, items in jobs.items()]
