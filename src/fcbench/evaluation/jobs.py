"""Running category jobs: each loads its category once, judges every model's answers to it
through the category's checker kind, writes each model's score file at once and hands back
counts (and, if asked, the per-case verdicts).

Jobs are independent, so with several cores they run in forked worker processes that take the
largest job first as soon as they are free; a process never holds more than one category's
data, which keeps memory flat however many models are scored.
"""

from __future__ import annotations

import gc
import os
import sys
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

from fcbench.check import registry
from fcbench.check.registry import CheckSession, JudgeSettings, Record
from fcbench.core.categories import Category
from fcbench.core.model import TestCase, Verdict
from fcbench.dataset.selection import Selection
from fcbench.dataset.slim import SlimCategory
from fcbench.evaluation.corrected import upstream_side
from fcbench.evaluation.faults import guarded, internal_record, internal_verdict, unshown_detail
from fcbench.evaluation.per_turn import per_turn_of
from fcbench.evaluation.plan import CategoryJob, ModelAnswers
from fcbench.evaluation.types import CaseVerdict, CategoryEvaluation
from fcbench.results.per_turn import write_per_turn
from fcbench.results.read import read_result_file
from fcbench.score.runs import CategoryRun, from_judged
from fcbench.score.usage import Usage

FILE_COST = 10_000
"""What a result file costs besides its answers, in bytes of Python-syntax AST answers."""


@dataclass(frozen=True)
class JobRequest:
    """What every job needs to know; small and picklable."""

    settings: JudgeSettings
    score_dir: Path | None
    keep_cases: bool
    selection: Selection | None = None
    """Only these cases of each category are judged (a smoke run)."""
    case_detail: CaseDetail | None = None
    """When given: hand back each category as the HTML report reads it
    (`CategoryEvaluation.report_run`), each failure's details made by this function (the
    report's, passed down by the API: evaluation imports no reporter), so that the report
    written after `evaluate` does not read the score files back. A module-level function:
    jobs in worker processes receive it by name."""


@dataclass
class JobResult:
    evaluations: dict[str, CategoryEvaluation] = field(default_factory=dict)
    usage: dict[str, Usage] = field(default_factory=dict)
    problems: dict[str, list[str]] = field(default_factory=dict)


Judged = list[tuple[TestCase, dict[str, Any], Verdict]]

CaseDetail = Callable[[Category, dict[str, Any], dict[str, Any]], Any]
"""What a report shows of one failed case: (category, result entry, failure fields) ->
details (`report.html.cases.failure_detail`)."""


def run_jobs(jobs: Sequence[CategoryJob], request: JobRequest, workers: int | None
             ) -> list[JobResult]:
    """Run the jobs, in forked worker processes when that helps; results in job order."""
    for kind in {registry.get(job.category.checker).name for job in jobs}:
        registry.get(kind).prepare()
    count = min(workers or os.cpu_count() or 1, len(jobs))
    if count <= 1 or not hasattr(os, "fork"):
        return [run_job(job, request) for job in jobs]
    from fcbench.runner.forks import map_in_forks

    order = sorted(range(len(jobs)), key=lambda i: -job_cost(jobs[i]))
    gc.freeze()  # the workers' collectors then leave what they inherit alone (no page copies)
    try:
        results = map_in_forks(lambda i: run_job(jobs[i], request), order, count)
    finally:
        gc.unfreeze()
    by_job = dict(zip(order, results, strict=True))
    return [by_job[i] for i in range(len(jobs))]


def job_cost(job: CategoryJob) -> float:
    """A rough cost, to start the largest job first: per result file a fixed cost (read, look
    up, write a score file) plus its bytes weighted by the kind's cost per byte."""
    weight = registry.get(job.category.checker).cost(job.category)
    return sum(FILE_COST + weight * _file_size(a.file.path) for a in job.answers)


def _file_size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:  # gone since planning: reading it will report that
        return 0


def run_job(job: CategoryJob, request: JobRequest) -> JobResult:
    """Judge every model's answers to one category."""
    kind = registry.get(job.category.checker)
    session = kind.session(job.category, request.settings)
    result = JobResult()
    try:
        data = kind.load(job.category, request.settings)
        memo: dict[Hashable, Verdict] = {}
        for answers in job.answers:
            problems = result.problems.setdefault(answers.model, [])
            usage = result.usage.setdefault(answers.model, Usage())
            result.evaluations[answers.model] = _judge_file(
                answers, job.category, data, session, memo, usage, problems, request
            )
    finally:
        session.close()
    return result


def _judge_file(
    answers: ModelAnswers,
    category: Category,
    data: SlimCategory,
    session: CheckSession,
    memo: dict[Hashable, Verdict],
    usage: Usage,
    problems: list[str],
    request: JobRequest,
) -> CategoryEvaluation:
    found = read_result_file(answers.file)
    session.begin_model(answers.model)
    problems.extend(found.problems)
    cases = data.cases
    unknown = [i for i in found.entries if i not in cases]
    if unknown:
        problems.append(_unknown_ids(answers.file.path, category, unknown))
    chosen = (request.selection.choose(category.name, cases)
              if request.selection is not None else cases)
    judged: Judged = []
    for test_id in sorted((i for i in found.entries if i in chosen), key=data.rank.__getitem__):
        entry = found.entries[test_id]
        case = cases[test_id]
        verdict = guarded(partial(_verdict, session, memo, case, entry["result"], answers),
                          internal_verdict, problems.append,
                          f"{answers.model}: {test_id}: decoding and checking")
        judged.append((case, entry, verdict))
    evaluation = CategoryEvaluation(category, len(cases), file_path=answers.file.path)
    evaluation.skipped = sum(1 for _, _, verdict in judged if "skipped" in verdict.extras)
    evaluation.total = len(judged) - evaluation.skipped
    evaluation.correct = sum(1 for _, _, verdict in judged if verdict.valid)
    evaluation.error_types.update(verdict.error_type or "unknown" for _, _, verdict in judged
                                  if not verdict.valid and "skipped" not in verdict.extras)
    if evaluation.skipped:
        problems.append(session.skipped_note(answers.model, category, evaluation.skipped))
    problems.extend(session.notes(answers.model, category, answers.file.path))
    usage.extend(entry for _, entry, _ in judged)
    evaluation.upstream = upstream_side(category, request.settings, judged, answers.encoding,
                                        answers.model)
    evaluation.per_turn = per_turn_of(category, judged)
    if request.keep_cases:
        evaluation.cases = [CaseVerdict(case.id, verdict) for case, _, verdict in judged]
    if request.score_dir is not None:
        records = _write_score_file(request.score_dir, answers.model, evaluation, judged, data,
                                    session, evaluation.upstream, problems.append)
        if evaluation.per_turn is not None:  # beside the score file, which stays official
            write_per_turn(request.score_dir, answers.model, evaluation.per_turn.as_json())
        if request.case_detail is not None:  # the report reads a category it lacks back
            detail = request.case_detail
            evaluation.report_run = guarded(
                lambda: _report_run(evaluation, judged, records, detail, answers.model,
                                    problems.append),
                lambda _: None, problems.append,
                f"{answers.model}: {category.name}: the report's view of the category")
    return evaluation


def _report_run(evaluation: CategoryEvaluation, judged: Judged, records: list[Record],
                failure_detail: CaseDetail, model: str, note: Callable[[str], None]
                ) -> CategoryRun:
    """The category as the HTML report reads it back from the score file (`runs.from_judged`),
    built here, in the worker that holds the answers and records: the report after `evaluate`
    then reads no file a second time, and the details are made on every core."""
    category = evaluation.category
    kept = [(case, entry, verdict) for case, entry, verdict in judged
            if "skipped" not in verdict.extras]
    failed = [(case.id, entry, verdict) for case, entry, verdict in kept if not verdict.valid]
    details = {case_id: _detail(failure_detail, category, entry, record, verdict,
                                f"{model}: {case_id}: the report's case detail", note)
               for (case_id, entry, verdict), record in zip(failed, records, strict=True)}
    return from_judged(evaluation.score,
                       [(case.id, verdict.valid, verdict.error_type) for case, _, verdict in kept],
                       {**_skipped_header(judged), **_corrections_header(evaluation.upstream)},
                       details)


def _detail(failure_detail: CaseDetail, category: Category, entry: dict[str, Any],
            record: Record, verdict: Verdict, what: str, note: Callable[[str], None]) -> Any:
    """One failed case's detail for the report; a detail that raises becomes a note in its
    place (the report shows the rest)."""
    return guarded(lambda: failure_detail(category, entry, _failure_fields(record, verdict)),
                   unshown_detail, note, what)


def _verdict(
    session: CheckSession,
    memo: dict[Hashable, Verdict],
    case: TestCase,
    raw: Any,
    answers: ModelAnswers,
) -> Verdict:
    """The session's verdict, shared by identical answers under the kind's memo key."""
    try:
        key = session.memo_key(case, raw, answers.encoding, answers.model)
    except Exception:  # an answer that cannot be keyed (too deep, too big) is judged alone
        key = None
    verdict = memo.get(key) if key is not None else None
    if verdict is None:
        verdict = session.judge(case, raw, answers.encoding, answers.model)
        if key is not None:
            memo[key] = verdict
    return verdict


def _failure_fields(record: Record, verdict: Verdict) -> dict[str, Any]:
    """What a failure's detail reads from its record: the record itself, or for a record
    built straight as its JSON line (single-turn), the same fields from the verdict."""
    if isinstance(record, dict):
        return record
    return {"error": verdict.errors, "model_result_decoded": verdict.extras.get("decoded")}


def _write_score_file(
    score_dir: Path,
    model: str,
    evaluation: CategoryEvaluation,
    judged: Judged,
    data: SlimCategory,
    session: CheckSession,
    upstream: dict[str, Any] | None = None,
    note: Callable[[str], None] | None = None,
) -> list[Record]:
    """The official score file: header, then one record per failed case (skipped cases are
    listed in the header instead); under a corrections profile, the profile and `upstream`
    (the category scored as upstream does, see `evaluation.corrected`). Returns the records,
    in case order. A record that cannot be built is replaced by a short one that says why
    (`faults.internal_record`), with one line to `note`."""
    from fcbench.results.score_files import write_category_score

    category = evaluation.category
    build = session.records(model, category, data)
    warn = note or (lambda line: print(f"fcbench: warning: {line}", file=sys.stderr))

    def record(case: TestCase, entry: dict[str, Any], verdict: Verdict) -> Record:
        return guarded(lambda: build(case, entry, verdict, data.prompts.get(case.id)),
                       lambda exc: internal_record(case.id, model, category.name, verdict, exc),
                       warn, f"{model}: {case.id}: the failure record")

    records: list[Record] = [
        record(case, entry, verdict) for case, entry, verdict in judged
        if not verdict.valid and "skipped" not in verdict.extras
    ]
    header = _skipped_header(judged)
    if evaluation.file_path is not None:
        scored = [(case, verdict) for case, _, verdict in judged if "skipped" not in verdict.extras]
        header.update(session.header_fields(evaluation.file_path, scored))
    header.update(_corrections_header(upstream))
    write_category_score(score_dir, model, evaluation.score, records, header or None)
    return records


def _skipped_header(judged: Judged) -> dict[str, Any]:
    """The score header's skipped cases and why (nothing when none: official bytes)."""
    skipped = [
        {"id": case.id, "reason": verdict.extras["skipped"]}
        for case, _, verdict in judged
        if "skipped" in verdict.extras
    ]
    return {"skipped_count": len(skipped), "skipped": skipped} if skipped else {}


def _corrections_header(upstream: dict[str, Any] | None) -> dict[str, Any]:
    """The corrections profile, named only when one is on (the default's score files keep
    the official bytes), and `upstream` when the profile edited judged cases."""
    from fcbench.corrections import DEFAULT_PROFILE, active_profile

    profile = active_profile()
    header: dict[str, Any] = {} if profile == DEFAULT_PROFILE else {"corrections": profile}
    if upstream is not None:
        header["corrections_upstream"] = upstream
    return header


def _unknown_ids(path: Path, category: Category, unknown: list[str]) -> str:
    shown = ", ".join(unknown[:3]) + (", ..." if len(unknown) > 3 else "")
    return f"{path}: {len(unknown)} id(s) not in the {category.name} dataset, skipped ({shown})"
