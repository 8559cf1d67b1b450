"""Everything the HTML report shows, gathered into one JSON-able document.

Inputs: score folders (the official score files: counts and the failed cases), result
folders (raw outputs of the passing cases too, tokens, latency) and the data set (questions,
functions offered, expected answers). Questions and function lists are stored once per case
and once per distinct list, not once per model, which keeps the page small.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fcbench import _json as fast_json
from fcbench._version import __version__
from fcbench.core import categories as reg
from fcbench.core.categories import Category, Checker
from fcbench.evaluation.faults import guarded, unshown_detail
from fcbench.layout import model_dir_name
from fcbench.report.csv_files import ModelInfo
from fcbench.report.html.cases import failure_detail, shown
from fcbench.report.known_models import official_model_info
from fcbench.report.table import (
    SHOWN,
    UNDERNEATH,
    displayed_summaries,
    incomplete_note_lines,
    partial_summaries,
    summary_cell,
    summary_marks,
)
from fcbench.results.score_files import error_type_of, iter_score_files
from fcbench.score.aggregate import CategoryScore, with_missing
from fcbench.score.completeness import ranking_summary, shows_v1
from fcbench.score.disputed import Disputed, accuracy_without
from fcbench.score.formulas import format_percent, summary_rows, v1_rows
from fcbench.score.intervals import wilson
from fcbench.score.runs import CategoryRun, ModelRun, RunError, model_dirs, read_run
from fcbench.score.usage import Usage

if TYPE_CHECKING:
    from fcbench.evaluation import Evaluation

INTERVAL = "Wilson score interval, 95%"


@dataclass
class Sources:
    """Where a model's raw outputs are, and how they are encoded."""

    folders: dict[str, Path] = field(default_factory=dict)
    _read: dict[str, dict[str, dict[str, dict[str, Any]]]] = field(
        default_factory=dict, init=False, repr=False)
    """Each model's result files, read once (`entries`)."""
    judged: dict[str, Usage] = field(default_factory=dict)
    """Models judged in this process (`evaluate`): their usage, and no result file to read
    (their runs carry each failure's detail)."""

    @classmethod
    def find(cls, result_dirs: Sequence[Path]) -> Sources:
        from fcbench.results.read import find_model_dirs

        found = cls()
        for result_dir in result_dirs:
            if Path(result_dir).is_dir():
                for name, folder in find_model_dirs(Path(result_dir)).items():
                    found.folders.setdefault(name, folder)
        return found

    def run_warnings(self, model: str) -> list[str]:
        """The warnings of the model's last generation (`model.json`'s run log), e.g. an FC
        server that ignored `tools`."""
        from fcbench.results.manifest import read_manifest

        folder = self.folders.get(model)
        runs = read_manifest(folder).get("runs") if folder is not None else None
        last = runs[-1] if isinstance(runs, list) and runs else None
        found = last.get("warnings") if isinstance(last, dict) else None
        return [str(text) for text in found] if isinstance(found, list) else []

    def answered(self, model: str, category: str) -> set[str] | None:
        """The ids of the model's result file for a category (None: no such file)."""
        found = self.entries(model)
        return set(found[category]) if category in found else None

    def entries(self, model: str) -> dict[str, dict[str, dict[str, Any]]]:
        """category -> id -> result entry (nothing for a model judged in this process)."""
        if model in self.judged:
            return {}
        if model not in self._read:
            self._read[model] = self._read_entries(model)
        return self._read[model]

    def usage(self, run: ModelRun) -> Usage:
        """Tokens and latencies of the cases the run judged or skipped, as `evaluate` counts
        them for the CSVs (not of every answer in the result files: a partial evaluation)."""
        if run.model in self.judged:
            return self.judged[run.model]
        found = self.entries(run.model)
        usage = Usage()
        for name, cat in run.categories.items():
            answers = found.get(name, {})
            usage.extend(answers[i] for i in [*cat.ids, *cat.skipped] if i in answers)
        return usage

    def _read_entries(self, model: str) -> dict[str, dict[str, dict[str, Any]]]:
        from fcbench.results.read import find_result_files, read_result_file

        folder = self.folders.get(model)
        if folder is None:
            return {}
        return {file.category: read_result_file(file).entries
                for file in find_result_files(folder)}


@dataclass
class _Document:
    cases: dict[str, list[Any]] = field(default_factory=dict)
    function_sets: list[str] = field(default_factory=list)
    function_index: dict[str, int] = field(default_factory=dict)
    rows: list[list[Any]] = field(default_factory=list)
    details: list[dict[str, Any]] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def function_text(self, text: str) -> int:
        """The index of a function list (as `_compact` JSON text), stored once."""
        if text not in self.function_index:
            self.function_index[text] = len(self.function_sets)
            self.function_sets.append(text)
        return self.function_index[text]


def collect(
    score_dirs: Sequence[Path],
    result_dirs: Sequence[Path],
    release: str,
    data_dir: Path | None,
    sizes: Mapping[str, int],
    disputed: Disputed,
    evaluation: Evaluation | None = None,
) -> dict[str, Any]:
    """The report document (see the module docstring). `evaluation`: what `evaluate` just
    judged and wrote into `score_dirs`, asked with `report_cases`; its models are taken from
    memory instead of their score and result files (same document, no second read)."""
    from fcbench.score.runs import dataset_ids

    ids = dataset_ids(release, data_dir)
    sources = Sources.find(result_dirs)
    doc = _Document()
    judged = _judged_runs(evaluation, sources) if evaluation is not None else {}
    runs = [run for folder in score_dirs
            for run in _runs(Path(folder), ids, doc, sources, judged)]
    labels = _labels(runs)
    names = [c.name for c in reg.all_categories() if any(c.name in r.categories for r in runs)]
    _add_cases(doc, names, release, data_dir)
    facts = official_model_info(release, doc.problems.append)  # prices for the cost
    boards = [{n: c.score for n, c in run.categories.items()} for run in runs]
    v1 = shows_v1(boards)
    models = [
        _model(index, run, labels[index], sources, sizes, disputed, doc, facts(run.model), v1)
        for index, run in enumerate(runs)
    ]
    doc.problems.extend(f"{run.model}: {text}" for run in runs
                        for text in sources.run_warnings(run.model))
    return {
        "meta": {"fcbench": __version__, "release": release, "interval": INTERVAL,
                 "score_dirs": [str(p) for p in score_dirs],
                 "result_dirs": [str(p) for p in result_dirs],
                 "disputed_release": disputed.release},
        "categories": names,
        "groups": {c.name: c.group for c in reg.all_categories() if c.name in names},
        "models": models,
        "cases": doc.cases,
        "functions": doc.function_sets,
        "rows": doc.rows,
        "details": doc.details,
        "disputed": {c.id: [c.source, c.claim] for c in disputed.cases},
        "problems": doc.problems,
        "summary_names": SHOWN,
        # The summary the page ranks and charts by (`completeness.ranking_summary`, a
        # `summaries` label): v1 Overall for a board of 2024 runs, as `leaderboard` ranks it.
        "ranked_by": ranking_summary(boards),
        "incomplete": _incomplete_notes(models),
        "skipped": [note for index, run in enumerate(runs)
                    for note in _skipped_notes(labels[index], run)],
    }


def _runs(score_dir: Path, ids: Any, doc: _Document, sources: Sources,
          judged: Mapping[str, ModelRun]) -> list[ModelRun]:
    """Every model's run in a score folder: from memory when `judged` holds exactly the
    categories its score files are for (in this folder), else read from the files."""
    try:
        model_dirs(score_dir)  # a folder that is not there: its one-line error
        listed: dict[str, list[str]] = {}
        for model, category, _ in iter_score_files(score_dir):
            if category != "format_sensitivity":
                listed.setdefault(model, []).append(category)
        kept = {model for model, names in listed.items()
                if model in judged and set(judged[model].categories) == set(names)}
        read = _read_runs(score_dir, [m for m in listed if m not in kept], ids, doc, sources)
        return [_judged_run(judged[model], score_dir, names) if model in kept else read[model]
                for model, names in listed.items()]
    except RunError as exc:
        doc.problems.append(str(exc))
        return []


READ_WORKERS: int | None = None
"""Processes that read models' score and result files back (None: one per core)."""


def _read_runs(score_dir: Path, models: Sequence[str], ids: Any, doc: _Document,
               sources: Sources) -> dict[str, ModelRun]:
    """The runs of `models` read from their files: in forked workers when there are several
    models and cores (parsing the failure lines, which hold whole prompts, is most of a
    report's time), each run coming back with its failures' details made (`_read_apart`)."""
    workers = min(READ_WORKERS or os.cpu_count() or 1, len(models))
    if workers <= 1 or not hasattr(os, "fork"):
        return {m: read_run(score_dir, m, ids, doc.problems, sources.answered) for m in models}
    from fcbench.runner.forks import map_in_forks

    found = map_in_forks(lambda model: _read_apart(score_dir, model, ids, sources), models,
                         workers)
    runs: dict[str, ModelRun] = {}
    for model, (run, usage, problems) in zip(models, found, strict=True):
        doc.problems.extend(problems)
        sources.judged[model] = usage  # its result files were read in the worker
        runs[model] = run
    return runs


def _read_apart(score_dir: Path, model: str, ids: Any, sources: Sources
                ) -> tuple[ModelRun, Usage, list[str]]:
    """In a worker: a model's run as the report needs it, like one judged in this process
    (failures' details made, records cut to id and error type), its usage and problems."""
    problems: list[str] = []
    run = read_run(score_dir, model, ids, problems, sources.answered)
    entries = sources.entries(model)
    for name, cat in run.categories.items():
        category = reg.get(name)
        answers = entries.get(name, {})
        cat.details = {i: _detail(category, answers.get(i), record, problems.append,
                                  f"{model}: {i}")
                       for i, record in cat.failures.items()}
        cat.failures = {i: {"id": i, "error_type": error_type_of(record)}
                        for i, record in cat.failures.items()}
    return run, sources.usage(run), problems


def _judged_runs(evaluation: Evaluation, sources: Sources) -> dict[str, ModelRun]:
    """The models of `evaluation` whose every category carries its `report_run`, by score
    folder name; their usage goes to `sources` (no result file is read for them)."""
    runs: dict[str, ModelRun] = {}
    for name, model in evaluation.models.items():
        made = {c: e.report_run for c, e in model.categories.items() if c != "format_sensitivity"}
        if made and all(run is not None for run in made.values()):
            folder = model_dir_name(name)
            runs[folder] = ModelRun(folder, Path(), {c: r for c, r in made.items() if r})
            sources.judged[folder] = model.usage
    return runs


def _judged_run(run: ModelRun, score_dir: Path, order: Sequence[str]) -> ModelRun:
    """A run from memory, in the folder and category order reading it back would give."""
    return ModelRun(run.model, score_dir, {name: run.categories[name] for name in order})


def _labels(runs: Sequence[ModelRun]) -> list[str]:
    """A model's name, or `folder:name` when the same name comes from several folders."""
    counts = Counter(run.model for run in runs)
    return [run.model if counts[run.model] == 1 else f"{run.score_dir.name}:{run.model}"
            for run in runs]


def _add_cases(
    doc: _Document, names: Sequence[str], release: str, data_dir: Path | None
) -> None:
    for name in names:
        for case_id, question, functions, expected in _case_texts(name, release, data_dir):
            doc.cases[case_id] = [name, question, doc.function_text(functions), expected]


CaseTexts = list[tuple[str, str, str, "str | None"]]
"""(id, question, function list as compact JSON, expected answer) per case, as shown."""

_CACHED_CHECKERS = frozenset({
    Checker.AST_SIMPLE, Checker.AST_MULTIPLE, Checker.AST_PARALLEL, Checker.IRRELEVANCE,
    Checker.RELEVANCE, Checker.EXEC_SIMPLE, Checker.EXEC_MULTIPLE, Checker.EXEC_PARALLEL,
    Checker.REST})
"""Checker kinds whose cases come from the question and answer files alone."""


def _case_texts(name: str, release: str, data_dir: Path | None) -> CaseTexts:
    """A category's case texts; for a single-turn category of a fetched release, kept in the
    release's derived cache (parsing the category and encoding its function lists again was
    a third of the report's time after `evaluate`)."""
    from fcbench.dataset.derived import cached
    from fcbench.dataset.load import answer_file, question_file
    from fcbench.dataset.source import has_own_source

    category = reg.get(name)
    if (data_dir is not None or has_own_source(category) or category.prerequisite
            or category.checker not in _CACHED_CHECKERS):
        return _build_case_texts(name, release, data_dir)
    sources = [question_file(category, release)]
    if category.has_possible_answer:
        sources.append(answer_file(category, release))
    def build() -> list[list[Any]]:  # marshal keeps lists exactly
        return [list(row) for row in _build_case_texts(name, release, None)]

    return [(str(row[0]), str(row[1]), str(row[2]), row[3])
            for row in cached(f"report-{name}", release, sources, build)]


def _build_case_texts(name: str, release: str, data_dir: Path | None) -> CaseTexts:
    from fcbench.dataset.load import load_category

    return [(case.id, shown(case.question), _compact(case.functions),
             None if case.possible_answer is None else shown(case.possible_answer))
            for case in load_category(name, release, data_dir)]


def _compact(value: Any) -> str:
    """Compact JSON (the C encoder; `indent` takes the pure-Python one, 1.5 s of a 14-model
    report): the page indents it."""
    return fast_json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _model(
    index: int, run: ModelRun, label: str, sources: Sources, sizes: Mapping[str, int],
    disputed: Disputed, doc: _Document, info: ModelInfo, v1: bool | None = None,
) -> dict[str, Any]:
    entries = sources.entries(run.model)
    scores = {name: cat.score for name, cat in run.categories.items()}
    for name, cat in run.categories.items():
        _add_rows(doc, index, reg.get(name), cat, entries.get(name, {}), label)
    model: dict[str, Any] = {
        "name": label,
        "score_dir": str(run.score_dir),
        "has_results": run.model in sources.folders,
        "scores": {n: _score_json(c, disputed) for n, c in run.categories.items()},
        "errors": {n: dict(Counter(error_type_of(r) for r in c.failures.values()))
                   for n, c in run.categories.items()},
        "summaries": _summaries(scores, sizes, run.categories, v1),
        "usage": _usage_json(sources.usage(run), info),
    }
    corrected = _corrections(with_missing(scores, reg.ALL_SCORING, sizes), run)
    if corrected:
        model["corrections"] = corrected
    model.update(_per_turn(run))
    return model


def _per_turn(run: ModelRun) -> dict[str, Any]:
    """`per_turn`: the multi-turn categories' per-turn accuracy (fcbench metric, in no
    Overall) with each case's turn outcomes (true, false, null for a turn with nothing
    expected), from the files beside the score files; nothing when none was judged."""
    from fcbench.report.per_turn_csv import read_per_turn
    from fcbench.score.per_turn import per_turn_json

    found = read_per_turn(run.score_dir / run.model)
    block = per_turn_json(found).get("per_turn_accuracy")
    if block is None:
        return {}
    for name, category in block["categories"].items():
        category["case_turns"] = {i: list(o) for i, o in found[name].cases.items()}
    return {"per_turn": block}


def _corrections(scores: Mapping[str, CategoryScore], run: ModelRun) -> dict[str, Any]:
    """Scores both ways when the run used a corrections profile (leaderboard.json's block:
    each corrected category and case with its upstream numbers, the V4 summaries as
    upstream scores them, from every scoring category's score: `scores`, completed by
    `with_missing`); {} for the default, which then shows nothing."""
    from fcbench.report.corrections import corrections_json, corrections_of

    found = corrections_of({name: cat.header for name, cat in run.categories.items()})
    block: dict[str, Any] = corrections_json(scores, found).get("corrections", {})
    return block


def _score_json(cat: CategoryRun, disputed: Disputed) -> dict[str, Any]:
    score = cat.score
    interval = wilson(score.correct, score.total)
    correct, total = score.correct, score.total
    if not {c.id for c in disputed.cases}.isdisjoint(cat.ids):  # else nothing to leave out
        correct, total = accuracy_without(((i, cat.valid(i)) for i in cat.ids), disputed)
    judged = score.total > 0  # every case skipped: nothing to show a number for
    return {
        "correct": score.correct, "total": score.total, "size": score.dataset_size,
        "accuracy": score.accuracy if judged else None,
        "text": format_percent(score.accuracy).rstrip("%") if judged else "N/A",
        "ci": None if interval is None else [interval.low, interval.high],
        "skipped": len(cat.skipped),
        "undisputed": [correct, total] if total != score.total else None,
    }


def _summaries(
    scores: Mapping[str, CategoryScore], sizes: Mapping[str, int],
    runs: Mapping[str, CategoryRun], v1: bool | None = None,
) -> list[Any]:
    """[label, value, text, skipped, incomplete] per summary: the console's values (None
    where nothing under a summary was run or judged), their text formatted once, here, as
    the console shows it (`*` partial, `‡` incomplete, `—` nothing run: `score.completeness`,
    the rule every view follows), the cases skipped in the categories under it (the value
    leaves them out: shown beside) and what an incomplete one misses (None when complete or
    nothing was run). The 2024 summaries are there when a 2024-only category was run, or
    when `v1` (a board of 2024 runs, ranked by v1 Overall: `completeness.ranking_summary`)."""
    complete = with_missing(scores, reg.ALL_SCORING, sizes)
    labels = [label for label, _ in summary_rows(complete)]
    # The 2024 summaries: `v1`, the board's `completeness.shows_v1` (None: this model's).
    if shows_v1([scores]) if v1 is None else v1:
        labels += [label for label, _ in v1_rows(complete)] + ["v1 Relevance (2024)"]
    values = displayed_summaries(scores, complete, labels)
    partial = partial_summaries(scores, {n: len(r.skipped) for n, r in runs.items()})
    marks = summary_marks(scores, labels)
    rows = []
    for label in labels:
        gap = marks.get(label)
        value = None if gap is not None and gap.nothing_run else values.get(label)
        text = summary_cell(value, label in partial, gap)
        skipped = sum(len(runs[n].skipped) for n in UNDERNEATH.get(label, ()) if n in runs)
        described = gap.describe() if gap is not None and not gap.nothing_run else None
        rows.append([label, value, text, skipped, described])
    return rows


def _incomplete_notes(models: Sequence[Mapping[str, Any]]) -> list[str]:
    """The `‡ incomplete:` lines under the summary table: the terminal's, from the same
    marks (`table.incomplete_notes`)."""
    marks = {m["name"]: {row[0]: row[4] for row in m["summaries"] if row[4] is not None}
             for m in models}
    labels = list(dict.fromkeys(row[0] for m in models for row in m["summaries"]))
    return incomplete_note_lines(marks, labels)


def _skipped_notes(label: str, run: ModelRun) -> list[str]:
    """One line per category with skipped cases: how many, of how many, and why."""
    notes = []
    for name, cat in run.categories.items():
        reasons = Counter(cat.skipped.values())
        if reasons:
            why = "; ".join(f"{n} {reason}" for reason, n in reasons.most_common(3))
            notes.append(f"{label}: {name}: {sum(reasons.values())} of "
                         f"{cat.score.dataset_size} cases skipped, not judged ({why})")
    return notes


def _usage_json(usage: Usage, info: ModelInfo) -> dict[str, Any] | None:
    """Tokens, calls, latency and cost (by the registry's prices when `info` has them)."""
    if not (usage.latencies or usage.input_tokens or usage.output_tokens):
        return None
    from fcbench.report.csv_files import cost_latency

    cost = cost_latency(usage, info, spread=False)  # the page shows no deviation
    return {"latency_mean": cost.mean, "latency_p95": cost.p95, "cost": cost.cost,
            "input_tokens": sum(usage.input_tokens), "output_tokens": sum(usage.output_tokens),
            "calls": len(usage.latencies)}


def _detail(category: Category, entry: Mapping[str, Any] | None, failure: Mapping[str, Any],
            note: Callable[[str], None], what: str) -> Any:
    """A failed case's detail, or a note in its place when making it raises (issue 30): the
    rest of the report is built."""
    return guarded(lambda: failure_detail(category, entry, failure), unshown_detail, note,
                   f"{what}: the report's case detail")


def _add_rows(
    doc: _Document, model: int, category: Category, cat: CategoryRun,
    entries: Mapping[str, Mapping[str, Any]], label: str = "",
) -> None:
    """One row per judged case: [model, id, valid, error type, detail index]. Only failures
    get a detail (the page shows a passing case's question, functions and expected answer,
    which are per case, not per model): a passing answer's detail was most of the report's
    bytes and half its build time."""
    made = cat.details or {}
    for case_id in cat.ids:
        failure = cat.failures.get(case_id)
        if failure is None:
            doc.rows.append([model, case_id, 1, None, None])
            continue
        detail = made.get(case_id)
        if detail is None:
            detail = _detail(category, entries.get(case_id), failure, doc.problems.append,
                             f"{label}: {case_id}")
        doc.rows.append([model, case_id, 0, error_type_of(failure), len(doc.details)])
        doc.details.append(detail)
