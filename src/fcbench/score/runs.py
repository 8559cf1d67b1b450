"""A scored run read back: per model and category, which cases passed and how the others
failed, from the official score files (and the data set for the ids of the cases that
passed, which score files do not list).

Why here: `compare` needs per-case verdicts to pair two runs, the HTML report needs them to
list every case; both start from score folders, which is what people keep and share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.results.score_files import (
    Record,
    error_type_of,
    iter_score_files,
    read_score_file,
)
from fcbench.score.aggregate import CategoryScore


class RunError(ValueError):
    """A score folder (or `DIR:MODEL`) that cannot be read as asked."""


@dataclass
class CategoryRun:
    """One category of one model: its score, failed records by id, and the ids judged."""

    score: CategoryScore
    failures: dict[str, Record]
    ids: list[str]
    """Every case judged, in data-set order (failed or passed; skipped ones left out)."""
    header: dict[str, Any] = field(default_factory=dict)
    details: dict[str, dict[str, Any]] | None = None
    """Each failed case's detail as the HTML report shows it, when the run was judged in this
    process (`from_judged`); None when read from score files (the report builds them)."""

    def valid(self, case_id: str) -> bool:
        return case_id not in self.failures

    def error_type(self, case_id: str) -> str | None:
        record = self.failures.get(case_id)
        return None if record is None else error_type_of(record)

    @property
    def skipped(self) -> dict[str, str]:
        """Cases that were not judged, with the reason fcbench's score header records."""
        listed = self.header.get("skipped", [])
        return {str(s.get("id")): str(s.get("reason", "")) for s in listed
                if isinstance(s, Mapping)} if isinstance(listed, list) else {}


def from_judged(
    score: CategoryScore, judged: list[tuple[str, bool, str | None]],
    header: Mapping[str, Any], details: dict[str, dict[str, Any]],
) -> CategoryRun:
    """A category as `evaluate` just judged it: what reading its score file back would give
    the report (ids judged, failed cases' error types, the header's skipped cases and
    corrections), plus each failure's detail. `judged`: (id, valid, error type) per judged
    case in data-set order, skipped ones left out."""
    failures: dict[str, Record] = {
        case_id: {"id": case_id, "error_type": kind or "unknown"}
        for case_id, valid, kind in judged if not valid
    }
    return CategoryRun(score, failures, [i for i, _, _ in judged], dict(header), details)


@dataclass
class ModelRun:
    model: str
    score_dir: Path
    categories: dict[str, CategoryRun] = field(default_factory=dict)


DatasetIds = Callable[[str], list[str]]
"""category -> the ids of its cases in data-set order."""

AnsweredIds = Callable[[str, str], "set[str] | None"]
"""(model, category) -> the ids its result file answers (None: no result file known)."""


def dataset_ids(release: str, data_root: Path | None = None) -> DatasetIds:
    """Ids read from the fetched data set (memoised per category)."""
    from fcbench.core.categories import UnknownCategoryError
    from fcbench.dataset.load import load_category

    cache: dict[str, list[str]] = {}

    def ids(category: str) -> list[str]:
        if category not in cache:
            try:
                cases = load_category(category, release, data_root, functions=False)
            except UnknownCategoryError:
                raise RunError(f"unknown category {category!r} (a custom dataset's? give its "
                               "folder as --data-dir)") from None
            cache[category] = [c.id for c in cases]
        return cache[category]

    return ids


def parse_target(text: str) -> tuple[Path, str | None]:
    """`SCORE_DIR` or `SCORE_DIR:MODEL` (a path that exists as given is taken whole). A model
    name may hold `:` itself (`score:org:model:v2`): the folder is the shortest prefix before
    a `:` that is a folder, else everything before the last `:`."""
    if Path(text).exists() or ":" not in text:
        return Path(text), None
    for index, char in enumerate(text):
        if char == ":" and index and Path(text[:index]).is_dir():
            return Path(text[:index]), text[index + 1:] or None
    folder, _, model = text.rpartition(":")
    return Path(folder), model or None


def model_dirs(score_dir: Path) -> list[str]:
    """The models with score files in a score folder, sorted."""
    if not Path(score_dir).is_dir():
        raise RunError(f"{score_dir}: no such score folder")
    return sorted({model for model, _, _ in iter_score_files(score_dir)})


def one_model(target: str) -> tuple[Path, str]:
    """The folder and model a `SCORE_DIR[:MODEL]` target names; a folder of several models
    without a name is a `RunError` listing some of them."""
    folder, model = parse_target(target)
    if model is not None:
        return folder, model
    models = model_dirs(folder)
    if len(models) != 1:
        raise RunError(f"{folder} holds {len(models)} models; name one as "
                       f"{folder}:MODEL ({', '.join(models[:5])})")
    return folder, models[0]


def read_run(
    score_dir: Path,
    model: str,
    ids_of: DatasetIds,
    problems: list[str] | None = None,
    answered: AnsweredIds | None = None,
) -> ModelRun:
    """Every category a model has score files for, with its per-case verdicts.

    A partial run's passing cases are not in its score files: `answered` (the ids of the
    model's result file) tells them, when that file holds exactly the cases judged (a smoke
    run's). A category that cannot be read case by case raises `RunError`, or, with a
    `problems` list, is left out and said there.
    """
    run = ModelRun(model, Path(score_dir))
    if not Path(score_dir).is_dir():
        raise RunError(f"{score_dir}: no such score folder")
    for found_model, category, path in iter_score_files(score_dir):
        if found_model != model or category == "format_sensitivity":
            continue
        try:
            judged = (lambda c=category: answered(model, c)) if answered is not None else None
            run.categories[category] = _category_run(category, path, ids_of, judged)
        except RunError as exc:
            if problems is None:
                raise
            problems.append(f"{model}: {category} left out: {exc}")
    if not run.categories:
        raise RunError(f"{score_dir}: no score files for model {model!r}")
    return run


def _category_run(
    category: str, path: Path, ids_of: DatasetIds,
    answered: Callable[[], set[str] | None] | None = None,
) -> CategoryRun:
    """One category's verdicts; `answered` gives the result file's ids, read only for a
    partial run (the only case that needs them)."""
    try:
        header, records = read_score_file(path)
    except (OSError, ValueError) as exc:
        raise RunError(f"{path}: unreadable score file ({exc})") from None
    failures = {str(r["id"]): r for r in records if isinstance(r, dict) and "id" in r}
    skipped = {s.get("id") for s in header.get("skipped", []) if isinstance(s, Mapping)}
    known = ids_of(category)
    ids = [i for i in known if i not in skipped]
    total = int(header.get("total_count", len(ids)))
    judged = answered() if total != len(ids) and answered is not None else None
    if judged is not None:  # a partial run, with its result file
        present = [i for i in ids if i in judged]
        ids = present if len(present) == total and set(failures) <= set(present) else ids
    if total != len(ids):  # a partial run: only the failures are known for sure
        raise RunError(
            f"{path}: {total} cases judged but the data set has {len(ids)}; a partial run's "
            "passing cases are not listed in score files, and no result file of the run "
            "(--result-dir) holds exactly the cases judged"
        )
    score = CategoryScore(category, int(header.get("correct_count", 0)), total, len(known))
    return CategoryRun(score, failures, ids, header)


def iter_runs(
    score_dir: Path,
    model: str | None,
    ids_of: DatasetIds,
    problems: list[str] | None = None,
    answered: AnsweredIds | None = None,
) -> Iterator[ModelRun]:
    """The run of `model`, or of every model in the folder (see `read_run`)."""
    for name in [model] if model else model_dirs(score_dir):
        yield read_run(score_dir, name, ids_of, problems, answered)
