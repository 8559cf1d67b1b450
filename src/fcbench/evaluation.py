"""`evaluate`: result files in, verdicts, score files and leaderboards out.

The work is split by category: one job loads a category's test cases once and judges every
model's answers to it, writes each model's official score file at once, and hands back only
counts (and, if asked, the per-case verdicts). Jobs are independent, so with several cores
they run in worker processes; a process never holds more than one category's data, which
keeps memory flat however many models are scored. Answers to the same case that decode to the
same calls (common across models) are checked once per job. Damage (broken lines, unknown or
duplicate ids, categories fcbench cannot check yet) becomes a one-line problem; the rest is
scored.
"""

from __future__ import annotations

import gc
import json
import os
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.check.single_turn import CheckMemo, judge
from fcbench.dataset import categories
from fcbench.dataset.categories import EXEC_CHECKERS, Category, Checker, Language
from fcbench.dataset.derived import cached
from fcbench.dataset.fetch import DEFAULT_RELEASE
from fcbench.dataset.load import answer_file, load_category, question_file
from fcbench.dataset.model import TestCase, Verdict
from fcbench.decode.encoding import Encoding
from fcbench.report.records import multi_turn_prompt_of, prompt_of
from fcbench.report.score_files import RawJSON
from fcbench.runner.results import (
    ResultFile,
    find_model_dirs,
    find_result_files,
    read_result_file,
)
from fcbench.score.aggregate import CategoryScore
from fcbench.score.usage import Usage

SINGLE_TURN_CHECKERS = (
    Checker.AST_SIMPLE,
    Checker.AST_MULTIPLE,
    Checker.AST_PARALLEL,
    Checker.IRRELEVANCE,
    Checker.RELEVANCE,
)
MULTI_TURN_CHECKERS = (Checker.MULTI_TURN,)


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


@dataclass
class Evaluation:
    models: dict[str, ModelEvaluation] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


class EvaluationError(ValueError):
    """The request itself is wrong (no such folder, no such model)."""


@dataclass(frozen=True)
class _Request:
    """What every job needs to know; small and picklable."""

    release: str
    data_root: Path | None
    score_dir: Path | None
    keep_cases: bool
    exec_backend: str = "offline"
    exec_replay_dir: Path | None = None


@dataclass(frozen=True)
class _Answers:
    """One model's result file for the category of a job."""

    model: str
    file: ResultFile
    encoding: Encoding


@dataclass(frozen=True)
class _Job:
    category: Category
    answers: tuple[_Answers, ...]


@dataclass
class _CategoryData:
    """A job's test cases (slim), their prompts as JSON text, and their official order."""

    cases: dict[str, TestCase]
    prompts: dict[str, RawJSON]
    rank: dict[str, int] = field(init=False)

    def __post_init__(self) -> None:
        ordered = sorted(self.cases, key=id_order)  # once per job, not once per result file
        self.rank = {case_id: index for index, case_id in enumerate(ordered)}


@dataclass
class _Memo:
    """A job's shared judgements: identical answer texts to a case (`answers`) and, for the
    AST categories, identical decoded calls to a case (`checks`; see `judge`)."""

    answers: dict[tuple[str, str, Encoding], Verdict] = field(default_factory=dict)
    checks: CheckMemo = field(default_factory=CheckMemo)


@dataclass
class _JobResult:
    evaluations: dict[str, CategoryEvaluation] = field(default_factory=dict)
    usage: dict[str, Usage] = field(default_factory=dict)
    problems: dict[str, list[str]] = field(default_factory=dict)


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
    workers: int | None = None,
    exec_backend: str = "offline",
    exec_replay_dir: Path | None = None,
) -> Evaluation:
    """Judge every answer in `result_dir` (one model folder, or a folder of them).

    `encoding` overrides every model's model.json; `category_names` (categories or
    collections) restricts what is scored; with `score_dir`, each category's official score
    file is written as soon as it is judged. `workers` (default: one per core) runs category
    jobs in parallel processes.
    """
    if exec_backend != "offline" or exec_replay_dir is not None:
        _check_exec_backend(exec_backend, exec_replay_dir)  # imports the exec library: only then
    model_dirs = _select_models(Path(result_dir), models)
    wanted = (
        frozenset(c.name for c in categories.resolve(category_names)) if category_names else None
    )
    report = Evaluation()
    jobs: dict[str, list[_Answers]] = {}
    for name, folder in model_dirs.items():
        model = ModelEvaluation(name, model_encoding(name, folder, encoding))
        report.models[name] = model
        for answers in _plan_model(model, folder, wanted):
            jobs.setdefault(answers.file.category, []).append(answers)
    request = _Request(release, data_root, score_dir, keep_cases, exec_backend, exec_replay_dir)
    planned = [_Job(categories.get(name), tuple(answers)) for name, answers in jobs.items()]
    if any(job.category.checker is Checker.MULTI_TURN for job in planned):
        from fcbench.check.multi_turn import preload

        preload()  # once here rather than once per worker
    for result in _run_jobs(planned, request, workers):
        _merge(report, result)
    for model in report.models.values():
        order = {c.name: i for i, c in enumerate(categories.CATEGORIES)}
        model.categories = dict(sorted(model.categories.items(), key=lambda kv: order[kv[0]]))
    return report


def _check_exec_backend(backend: str, replay_dir: Path | None) -> None:
    from fcbench.envs.exec_functions.backends import BACKENDS

    if backend not in BACKENDS:
        raise EvaluationError(f"unknown exec backend {backend!r} (one of {', '.join(BACKENDS)})")
    if backend == "replay" and (replay_dir is None or not Path(replay_dir).is_dir()):
        raise EvaluationError(
            "--exec-backend replay needs --exec-replay-dir, a folder of recorded responses "
            f"(got {replay_dir})"
        )


def _select_models(result_dir: Path, models: Sequence[str]) -> dict[str, Path]:
    if not result_dir.is_dir():
        raise EvaluationError(f"result folder not found: {result_dir}")
    model_dirs = find_model_dirs(result_dir)
    if not models:
        return model_dirs
    wanted = {m.replace("/", "_") for m in models}
    missing = [m for m in models if m.replace("/", "_") not in model_dirs]
    if missing:
        raise EvaluationError(
            f"no results for model(s) {', '.join(missing)} in {result_dir} "
            f"(found: {', '.join(model_dirs) or 'none'})"
        )
    return {k: v for k, v in model_dirs.items() if k in wanted}


def model_encoding(name: str, folder: Path, override: Encoding | None) -> Encoding:
    if override is not None:
        return override
    if (folder / "model.json").is_file():
        return Encoding.from_file(folder / "model.json")
    return Encoding.default_for(name)


def _is_scored(category: Category) -> bool:
    scored = SINGLE_TURN_CHECKERS + MULTI_TURN_CHECKERS + EXEC_CHECKERS
    return category.checker in scored and category.scoring


def _plan_model(
    model: ModelEvaluation, folder: Path, wanted: frozenset[str] | None
) -> list[_Answers]:
    """The result files of one model that will be scored; the rest become problems."""
    planned: dict[str, _Answers] = {}
    unscored: list[str] = []
    for file in find_result_files(folder):
        if wanted is not None and file.category not in wanted:
            continue
        category = categories.get(file.category)
        if not _is_scored(category):
            unscored.append(category.name)
        elif category.name in planned:
            model.problems.append(f"{file.path}: a second result file for {category.name}; skipped")
        else:
            planned[category.name] = _Answers(model.model, file, model.encoding)
    if wanted is not None:
        missing = [n for n in sorted(wanted) if n not in planned and n not in unscored]
        if missing:
            model.problems.append(
                f"{model.model}: no result file for {', '.join(missing)} "
                "(counted as missing: N/A, 0)"
            )
    if unscored:
        model.problems.append(
            f"{model.model}: not scored by this version of fcbench, skipped: {', '.join(unscored)}"
        )
    return list(planned.values())


def _run_jobs(jobs: list[_Job], request: _Request, workers: int | None) -> list[_JobResult]:
    """Run the category jobs, in forked worker processes when that helps; results in job order.

    Workers take the jobs largest first, each as soon as it is free.
    """
    count = min(workers or os.cpu_count() or 1, len(jobs))
    if count <= 1 or not hasattr(os, "fork"):
        return [_run_job(job, request) for job in jobs]
    from fcbench.runner.forks import map_in_forks

    order = sorted(range(len(jobs)), key=lambda i: -_job_size(jobs[i]))
    gc.freeze()  # the workers' collectors then leave what they inherit alone (no page copies)
    try:
        results = map_in_forks(lambda i: _run_job(jobs[i], request), order, count)
    finally:
        gc.unfreeze()
    by_job = dict(zip(order, results, strict=True))
    return [by_job[i] for i in range(len(jobs))]


def _job_size(job: _Job) -> float:
    """A rough cost of a job, to start the largest first: per result file a fixed cost (read,
    look up, write a score file) plus its bytes, weighted by what judging a byte costs for
    the category's checker (measured on the v1 corpus: tree-sitter languages about 2x Python
    syntax, relevance 0.5x; executable and multi-turn answers run calls, several times more)."""
    weight = _COST_PER_BYTE.get(job.category.checker, 1.0) * _language_cost(job.category)
    return sum(_FILE_COST + weight * _file_size(a.file.path) for a in job.answers)


_FILE_COST = 10_000
"""What a result file costs besides its answers, in bytes of Python-syntax answers."""

_COST_PER_BYTE = {
    Checker.IRRELEVANCE: 0.5,
    Checker.RELEVANCE: 0.5,
    Checker.MULTI_TURN: 4.0,
    **dict.fromkeys(EXEC_CHECKERS, 4.0),
}


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # gone since planning: reading it will report that
        return 0


def _language_cost(category: Category) -> float:
    return 1.0 if category.language is Language.PYTHON else 2.0


def _merge(report: Evaluation, result: _JobResult) -> None:
    for model, evaluation in result.evaluations.items():
        target = report.models[model]
        target.categories[evaluation.category.name] = evaluation
        target.usage.extend_from(result.usage[model])
    for model, problems in result.problems.items():
        report.models[model].problems.extend(problems)


def _load_slim(
    category: Category, request: _Request
) -> tuple[dict[str, TestCase], dict[str, RawJSON]]:
    """A category's cases in the slim form the checkers read, and each case's prompt as the
    JSON text that failure records embed (serialised once for all models).

    For the single-turn categories of a fetched release, the slim form is kept in the
    release's derived cache (built on first use), keyed by the two data files it comes from.
    """
    if request.data_root is not None or category.checker not in _DIGESTED:
        return _build_slim(category, request)
    sources = [question_file(category, request.release)]
    if category.has_possible_answer:
        sources.append(answer_file(category, request.release))
    rows = cached(
        f"slim-{category.name}", request.release, sources, lambda: _slim_rows(category, request)
    )
    cases: dict[str, TestCase] = {}
    prompts: dict[str, RawJSON] = {}
    for case_id, case_category, functions, possible_answer, prompt in rows:
        cases[case_id] = TestCase(case_id, case_category, [], functions, possible_answer)
        prompts[case_id] = RawJSON(prompt)
    return cases, prompts


_DIGESTED = frozenset(
    {
        Checker.AST_SIMPLE,
        Checker.AST_MULTIPLE,
        Checker.AST_PARALLEL,
        Checker.IRRELEVANCE,
        Checker.RELEVANCE,
    }
)
"""Checkers whose cases come from their question and answer files alone (multi-turn and
executable cases read more files, and carry extras)."""


def _slim_rows(category: Category, request: _Request) -> list[tuple[Any, ...]]:
    """`_build_slim`'s result as plain values, for the derived cache."""
    cases, prompts = _build_slim(category, request)
    return [
        (case.id, case.category, case.functions, case.possible_answer, str(prompts[case.id]))
        for case in cases.values()
    ]


def _build_slim(
    category: Category, request: _Request
) -> tuple[dict[str, TestCase], dict[str, RawJSON]]:
    cases: dict[str, TestCase] = {}
    prompts: dict[str, RawJSON] = {}
    multi_turn = category.checker is Checker.MULTI_TURN  # replayed: no docs, the rest needed
    loaded = load_category(category, request.release, request.data_root, functions=not multi_turn)
    for case in loaded:
        if multi_turn:
            prompts[case.id] = RawJSON(json.dumps(multi_turn_prompt_of(case), ensure_ascii=False))
            cases[case.id] = case
            continue
        prompts[case.id] = RawJSON(json.dumps(prompt_of(case), ensure_ascii=False))
        functions = [slim_doc(d) for d in case.functions]
        extras = case.extras if category.checker in EXEC_CHECKERS else {}
        cases[case.id] = TestCase(
            case.id, case.category, [], functions, case.possible_answer, extras
        )
    return cases, prompts


def slim_doc(doc: Any) -> Any:
    """The parts of a function doc the AST checker reads: name, parameter types (and element
    types), required list. Keys the doc lacks stay absent, so defects fail as before."""
    if not isinstance(doc, dict) or not isinstance(doc.get("parameters"), dict):
        return doc
    params = doc["parameters"]
    slim_params: dict[str, Any] = {}
    if "properties" in params:
        properties = params["properties"]
        slim_params["properties"] = (
            {name: _slim_property(p) for name, p in properties.items()}
            if isinstance(properties, dict)
            else properties
        )
    if "required" in params:
        slim_params["required"] = params["required"]
    return {"name": doc.get("name"), "parameters": slim_params}


def _slim_property(prop: Any) -> Any:
    if not isinstance(prop, dict):
        return prop
    slim = {k: prop[k] for k in ("type",) if k in prop}
    items = prop.get("items")
    if isinstance(items, dict) and "type" in items:
        slim["items"] = {"type": items["type"]}
    elif "items" in prop:
        slim["items"] = items
    return slim


def _run_job(job: _Job, request: _Request) -> _JobResult:
    """Judge every model's answers to one category."""
    frozen = _freeze_loaded(job.category)
    paused = _pause_gc(job.category)
    data = _CategoryData(*_load_slim(job.category, request))
    memo = _Memo()
    _ANSWER_TEXTS.clear()
    result = _JobResult()
    try:
        for answers in job.answers:
            problems = result.problems.setdefault(answers.model, [])
            usage = result.usage.setdefault(answers.model, Usage())
            result.evaluations[answers.model] = _judge_file(
                answers, job.category, data, memo, usage, problems, request
            )
    finally:
        if paused:
            gc.enable()
    if job.category.checker in EXEC_CHECKERS:
        from fcbench.check.exec import close_runners

        close_runners()
    if frozen:
        gc.unfreeze()
    return result


def _pause_gc(category: Category) -> bool:
    """Turn the cycle collector off for a single-turn job (True if it was on).

    Judging allocates hundreds of thousands of short-lived, acyclic objects (parsed answers,
    calls, verdicts), which refcounting frees; the collector's passes over everything alive
    cost about a tenth of the run and find nothing. Multi-turn jobs keep it (their
    environments hold reference cycles; see `_freeze_loaded`).
    """
    if category.checker is Checker.MULTI_TURN or not gc.isenabled():
        return False
    gc.disable()
    return True


def _judge_file(
    answers: _Answers,
    category: Category,
    data: _CategoryData,
    memo: _Memo,
    usage: Usage,
    problems: list[str],
    request: _Request,
) -> CategoryEvaluation:
    if category.checker is Checker.MULTI_TURN:
        from fcbench.envs.multi_turn import reset_process_state

        reset_process_state()  # as if each model were scored in a fresh process, as upstream
    found = read_result_file(answers.file)
    cases = data.cases
    _freeze_loaded(category)
    problems.extend(found.problems)
    _report_unknown_ids(
        answers.file, category, [i for i in found.entries if i not in cases], problems
    )
    judged: list[tuple[TestCase, dict[str, Any], Verdict]] = []
    for test_id in sorted((i for i in found.entries if i in cases), key=data.rank.__getitem__):
        entry = found.entries[test_id]
        case = cases[test_id]
        key = _memo_key(test_id, entry["result"], answers, category)
        verdict = memo.answers.get(key) if key is not None else None
        if verdict is None:
            verdict = _judge(case, category, entry["result"], answers, request, memo.checks)
            if key is not None:
                memo.answers[key] = verdict
        judged.append((case, entry, verdict))
    evaluation = CategoryEvaluation(category, len(cases), file_path=answers.file.path)
    evaluation.skipped = sum(1 for _, _, verdict in judged if "skipped" in verdict.extras)
    evaluation.total = len(judged) - evaluation.skipped
    evaluation.correct = sum(1 for _, _, verdict in judged if verdict.valid)
    if evaluation.skipped:
        problems.append(_skipped_note(answers.model, category, request, evaluation.skipped))
    usage.extend(entry for _, entry, _ in judged)
    if request.keep_cases:
        evaluation.cases = [CaseVerdict(case.id, verdict) for case, _, verdict in judged]
    if request.score_dir is not None:
        _write_score_file(request.score_dir, answers.model, evaluation, judged, data.prompts)
    return evaluation


def _freeze_loaded(category: Category) -> bool:
    """Multi-turn replays allocate a lot; without this, each full garbage collection would
    rescan everything loaded so far (about a quarter of the run's time). Frozen at the start
    of the job and after each result file; the job unfreezes at its end."""
    if category.checker is not Checker.MULTI_TURN:
        return False
    gc.freeze()
    return True


def _judge(
    case: TestCase,
    category: Category,
    raw: Any,
    answers: _Answers,
    request: _Request,
    checks: CheckMemo,
) -> Verdict:
    if category.checker is Checker.MULTI_TURN:
        from fcbench.check.multi_turn import judge_multi_turn

        details = request.score_dir is not None
        return judge_multi_turn(case, raw, answers.encoding, answers.model, details)
    if category.checker in EXEC_CHECKERS:
        from fcbench.check.exec import judge_exec, shared_runner

        runner = shared_runner(request.exec_backend, request.exec_replay_dir)
        return judge_exec(case, category, raw, answers.encoding, runner)
    return judge(case, category, raw, answers.encoding, checks)


def _skipped_note(model: str, category: Category, request: _Request, count: int) -> str:
    return (
        f"{model}: {category.name}: {count} case(s) skipped, not scored (they need a web "
        f"service the '{request.exec_backend}' exec backend cannot answer; see --exec-backend)"
    )


def _memo_key(
    test_id: str, raw: Any, answers: _Answers, category: Category
) -> tuple[str, str, Encoding] | None:
    """The key under which identical answers to a case share one verdict, or None.

    Only where judging is costly: executable answers (text; their calls run in a sandbox) and
    multi-turn ones (keyed with the model name, which can show in the verdict's details). AST
    answers share verdicts by decoded calls instead (`CheckMemo`): identical texts are rare
    across models, and keeping every text would cost more memory than the decoding it saves.
    """
    if category.checker is Checker.MULTI_TURN:
        try:
            text = json.dumps(raw, ensure_ascii=False)
        except (TypeError, ValueError):
            text = repr(raw)
        return (test_id, answers.model + "\x00" + text, answers.encoding)
    if isinstance(raw, str) and category.checker in EXEC_CHECKERS:
        return (test_id, raw, answers.encoding)
    return None


def _write_score_file(
    score_dir: Path,
    model: str,
    evaluation: CategoryEvaluation,
    judged: list[tuple[TestCase, dict[str, Any], Verdict]],
    prompts: dict[str, RawJSON],
) -> None:
    from fcbench.report.records import FailureLines
    from fcbench.report.score_files import write_category_score

    category = evaluation.category
    lines = FailureLines(model, category, _answer_text) if FailureLines.supports(category) else None
    records: list[str | dict[str, Any]] = []
    for case, entry, verdict in judged:
        if verdict.valid or "skipped" in verdict.extras:
            continue
        prompt = prompts.get(case.id)
        line = lines.line(case, entry["result"], verdict, prompt) if lines else None
        if line is None:  # multi-turn, or a value only the general path encodes
            records.append(_failure_record(model, category, case, entry, verdict, prompt))
        else:
            records.append(line)
    skipped = [
        {"id": case.id, "reason": verdict.extras["skipped"]}
        for case, _, verdict in judged
        if "skipped" in verdict.extras
    ]
    header = {"skipped_count": len(skipped), "skipped": skipped} if skipped else None
    write_category_score(score_dir, model, evaluation.score, records, header)


def _failure_record(
    model: str,
    category: Category,
    case: TestCase,
    entry: dict[str, Any],
    verdict: Verdict,
    prompt: RawJSON | None,
) -> dict[str, Any]:
    """A failed case's record as a dict, for the score-file writer's general path (the
    shapes and values `FailureLines` leaves to it)."""
    from fcbench.report.records import failure_record

    record = failure_record(
        model, category, case, entry["result"], verdict, prompt, entry.get("inference_log", "")
    )
    return _with_answer_text(record, case)


_ANSWER_TEXTS: dict[tuple[str, str], RawJSON] = {}


def _with_answer_text(record: dict[str, Any], case: TestCase) -> dict[str, Any]:
    """Put the case's possible answer in as JSON text serialised once for every model that
    fails the case (failure records repeat it for each model)."""
    if "possible_answer" in record and not isinstance(record["possible_answer"], RawJSON):
        text = _answer_text(case)
        if text is not None:
            record["possible_answer"] = text
    return record


def _answer_text(case: TestCase) -> RawJSON | None:
    """The case's possible answer as JSON text, cached per job; None if plain `json.dumps`
    rejects it (the record then keeps the value, and the writer's general path encodes it)."""
    if isinstance(case.possible_answer, RawJSON):
        return case.possible_answer
    key = (case.category, case.id)
    text = _ANSWER_TEXTS.get(key)
    if text is None:
        try:
            text = RawJSON(json.dumps(case.possible_answer, ensure_ascii=False))
        except (TypeError, ValueError):
            return None
        _ANSWER_TEXTS[key] = text
    return text


def _report_unknown_ids(
    file: ResultFile, category: Category, unknown: list[str], problems: list[str]
) -> None:
    if unknown:
        shown = ", ".join(unknown[:3]) + (", ..." if len(unknown) > 3 else "")
        problems.append(
            f"{file.path}: {len(unknown)} id(s) not in the {category.name} dataset, "
            f"skipped ({shown})"
        )


def id_order(test_id: str) -> tuple[str, int, str]:
    """Sort like the official tool: by category, then by the case's integer index."""
    head, _, tail = test_id.partition("-")
    prefix, _, number = head.rpartition("_")
    return (prefix, int(number) if number.isdigit() else -1, tail)
