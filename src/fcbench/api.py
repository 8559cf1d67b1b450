"""fcbench's Python API: the same power as the command line.

import fcbench
report = fcbench.evaluate("result/", score_dir="score/")
cases = fcbench.load_dataset("simple_python")
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fcbench.core import categories
from fcbench.core.defaults import EXEC_BACKEND
from fcbench.core.model import TestCase
from fcbench.dataset.custom import DataDirs, use_data_dirs
from fcbench.dataset.fetch import DEFAULT_RELEASE
from fcbench.dataset.selection import Selection
from fcbench.decode.encoding import Encoding
from fcbench.evaluation import Evaluation, ModelEvaluation
from fcbench.evaluation import evaluate as _evaluate
from fcbench.score.aggregate import CategoryScore, with_missing

if TYPE_CHECKING:
    from rich.console import Console

    from fcbench.evaluation.jobs import CaseDetail


def load_dataset(
    category: str, *, release: str | None = None, data_dir: DataDirs = None
) -> list[TestCase]:
    """Every test case of one category (today's name, a 2024 name, or a category of a custom
    dataset given in `data_dir`)."""
    from fcbench.dataset.load import load_category

    root = use_data_dirs(data_dir)
    return load_category(categories.get(category), release or DEFAULT_RELEASE, root)


def evaluate(
    result_dir: str | Path,
    *,
    models: Sequence[str] = (),
    categories: Iterable[str] = (),
    score_dir: str | Path | None = None,
    encoding: Encoding | None = None,
    release: str | None = None,
    data_dir: DataDirs = None,
    keep_cases: bool = True,
    report_cases: bool = False,
    workers: int | None = None,
    echo: bool = False,
    exec_backend: str = EXEC_BACKEND,
    exec_replay_dir: Path | None = None,
    web_api_check: bool = True,
    selection: Selection | None = None,
) -> Evaluation:
    """Score result files; with `score_dir`, write official score files and leaderboards.

    `report_cases` (with `score_dir`) keeps each category as the HTML report reads it, for
    `report.html.write_report(..., evaluation=...)`.
    `keep_cases` keeps every case's verdict on the report (`report.models[m].categories[c]
    .cases`); `workers` judges models in parallel processes (default: one per core).
    `exec_backend` (offline, replay, live) answers the executable categories' web-service
    calls; `exec_replay_dir` is the recorded-response folder (read by replay, written by live).
    `data_dir`: a folder laid out like the official data/ and/or custom datasets (folders
    with `fcbench.json`), whose categories are then scored like the official ones.
    A live evaluation of executable results first asks each web API once (`web_api_check`);
    missing keys and failing APIs open `report.problems`.
    `selection` judges only some cases of each category (a smoke run: scores are partial).
    """
    release = release or DEFAULT_RELEASE
    data_dir = use_data_dirs(data_dir)
    target = Path(score_dir) if score_dir is not None else None
    preflight: list[str] = []
    if exec_backend == "live" and web_api_check:
        preflight = _live_preflight(Path(result_dir), models, categories, release, data_dir,
                                    exec_replay_dir)
    report = _evaluate(
        Path(result_dir),
        models=models,
        category_names=categories,
        encoding=encoding,
        release=release,
        data_root=data_dir,
        score_dir=target,
        keep_cases=keep_cases,
        case_detail=_failure_detail() if report_cases else None,
        workers=workers,
        exec_backend=exec_backend,
        exec_replay_dir=Path(exec_replay_dir) if exec_replay_dir is not None else None,
        selection=selection,
    )
    report.problems[:0] = preflight
    if target is not None and scored(report):
        write_leaderboards(report, target, release, data_dir)
        write_repeat_statistics(report, target, Path(result_dir), release, data_dir)
    if echo:
        print_evaluation(report, release, data_dir, target)
    return report


def _live_preflight(
    result_dir: Path, models: Sequence[str], names: Iterable[str], release: str,
    data_dir: Path | None, replay_dir: Path | None,
) -> list[str]:
    """The web API check's lines when executable results are to be scored and some API is
    not healthy (nothing when all answer)."""
    from fcbench.check.exec_preflight import check_web_apis, needs_web_apis
    from fcbench.results.read import find_model_dirs, find_result_files

    wanted = list(names)
    if wanted:
        chosen = categories.resolve(wanted, everything=True)
    elif result_dir.is_dir():
        folders = find_model_dirs(result_dir)
        picked = [f for n, f in folders.items() if not models or n in models]
        chosen = [categories.get(r.category) for f in picked for r in find_result_files(f)]
    else:
        chosen = []
    if not needs_web_apis(chosen):
        return []
    check = check_web_apis(release, data_dir, replay_dir)
    return [] if check.healthy else check.lines()


def scored(report: Evaluation) -> bool:
    """Whether anything was judged (else there are no score files to build boards from)."""
    return any(m.categories for m in report.models.values())


def category_scores(model: ModelEvaluation) -> dict[str, CategoryScore]:
    return {name: c.score for name, c in model.categories.items()}


def dataset_sizes(release: str, data_dir: Path | None) -> dict[str, int]:
    """The number of cases of every scoring category (missing ones count 0 over this), the
    registered custom datasets' categories included.

    A user's dataset folder may hold only some categories: the others have no cases there.
    """
    from fcbench.dataset.load import scoring_sizes

    return scoring_sizes(release, data_dir)


def write_leaderboards(
    report: Evaluation, score_dir: Path, release: str, data_dir: Path | None
) -> None:
    """The official CSVs and leaderboard.json, over every model with score files there.

    Cost and latency come from the result files just evaluated, as in the official tool; a
    model scored earlier into the same folder keeps those of its own last evaluation (kept
    beside its score files) instead of turning N/A.
    """
    from fcbench.layout import usage_path
    from fcbench.report.known_models import official_model_info
    from fcbench.report.leaderboard import write_leaderboard
    from fcbench.results.score_files import read_score_headers
    from fcbench.score.usage import load_usage, save_usage

    usage = {m.model: m.usage for m in report.models.values() if m.categories}
    for model, used in usage.items():
        save_usage(usage_path(score_dir, model), used)
    for model in read_score_headers(score_dir):
        kept = load_usage(usage_path(score_dir, model)) if model not in usage else None
        if kept is not None:
            usage[model] = kept
    facts = official_model_info(release, _warn_once)  # display names, links, prices
    write_leaderboard(score_dir, dataset_sizes(release, data_dir), usage=usage,
                      model_info=facts)


def _warn_once(line: str) -> None:
    import sys

    print(f"fcbench: warning: {line}", file=sys.stderr, flush=True)


def write_repeat_statistics(
    report: Evaluation, score_dir: Path, result_dir: Path, release: str, data_dir: Path | None
) -> None:
    """`F.repeats.json` / `.csv` for every run F scored as repeats in `score_dir`
    (`report.repeats`); what cannot be read or written is a problem line on the report."""
    from fcbench.report.repeats import write_repeats
    from fcbench.results.read import sibling_result_dirs
    from fcbench.score.runs import dataset_ids

    result_dirs = [result_dir, *sibling_result_dirs([score_dir])]
    try:
        write_repeats(score_dir, result_dirs, dataset_ids(release, data_dir),
                      dataset_sizes(release, data_dir), report.problems)
    except OSError as exc:
        report.problems.append(f"{score_dir}: repeats summary not written ({exc})")


def print_evaluation(
    report: Evaluation, release: str, data_dir: Path | None, score_dir: Path | None
) -> None:
    """The console summary: warnings (similar ones grouped) and diagnostics on stderr, the
    score table on stdout, then the commonest error types of each category (`evaluate`'s
    `echo`, and the `run` command after its generation summary)."""
    from fcbench.report.console import console_for, print_problems
    from fcbench.report.table import print_scores

    console = console_for()
    diagnostics = console_for(stderr=True)
    print_problems([p for m in report.models.values() for p in m.problems] + report.problems,
                   diagnostics)
    if not report.models:
        return  # nothing to show; the command line says so in its error line
    if not scored(report):
        return
    sizes = dataset_sizes(release, data_dir)
    per_model = {m.model: category_scores(m) for m in report.models.values()}
    complete = {m: with_missing(s, categories.ALL_SCORING, sizes) for m, s in per_model.items()}
    skipped = {
        m.model: sum(c.skipped for c in m.categories.values()) for m in report.models.values()
    }
    not_scored = {m.model: m.not_scored for m in report.models.values()}
    skipped_in = {m.model: {name: c.skipped for name, c in m.categories.items() if c.skipped}
                  for m in report.models.values()}
    print_scores(console, per_model, complete, skipped, not_scored, skipped_in=skipped_in)
    _print_corrections(report, console, per_model, complete)
    _print_per_turn(report, console)
    if score_dir is not None:
        _print_top_errors(report, console)
        diagnostics.print(f"Score files and leaderboards written to {score_dir}")


def _print_per_turn(report: Evaluation, console: Console) -> None:
    """Under the table, per model, the multi-turn categories' per-turn accuracy: fcbench's
    own metric, said so, and in no Overall (`score.per_turn`)."""
    from fcbench.score.per_turn import METRIC, pooled

    for model in report.models.values():
        found = [c.per_turn for c in model.categories.values() if c.per_turn is not None]
        if not found:
            continue
        parts = [f"{s.category} {100 * s.accuracy:.2f}% ({s.right}/{s.turns} turns)"
                 for s in found]
        everything = pooled(found)
        if len(found) > 1 and everything is not None:
            parts.append(f"all {100 * everything.accuracy:.2f}% "
                         f"({everything.right}/{everything.turns})")
        console.print(f"  {model.model} {METRIC}, in no Overall: " + "; ".join(parts),
                      markup=False, highlight=False)


def _print_corrections(report: Evaluation, console: Console,
                       evaluated: Mapping[str, Mapping[str, CategoryScore]],
                       complete: Mapping[str, Mapping[str, CategoryScore]]) -> None:
    """Under the table, the corrections profile that produced it, each category whose
    ground truth it edited scored both ways, and the summaries that changed both ways
    (nothing by default)."""
    from fcbench.corrections import describe
    from fcbench.report.corrections import summaries_both_ways, summaries_line

    lines = describe()
    for model in report.models.values():
        upstream = {name: c.upstream for name, c in model.categories.items()
                    if c.upstream is not None}
        for name, side in upstream.items():
            lines.append(_both_ways(model.model, name, model.categories[name].accuracy, side))
        rows = summaries_both_ways(evaluated[model.model], complete[model.model],
                                   {"upstream": upstream}) if upstream else []
        if rows:
            lines.append(summaries_line(model.model, rows))
    for line in lines:
        console.print(line, markup=False, highlight=False)


def _both_ways(model: str, category: str, accuracy: float, upstream: dict[str, Any]) -> str:
    """A category both ways and the corrected cases whose verdict the fixes changed (the
    ones that make the difference); a fix that changed no verdict is said so, not listed
    as if it had mattered."""
    changed = [c for c in upstream["cases"] if c["valid"] != c["upstream_valid"]]
    cases = ", ".join(f"{c['id']} ({_fix_label(c)})" for c in changed)
    return (f"  {model} {category}: {100 * accuracy:.2f}% corrected, "
            f"{100 * upstream['accuracy']:.2f}% upstream; "
            + (f"verdict changed: {cases}" if changed else "no verdict changed"))


def _fix_label(case: Mapping[str, Any]) -> str:
    """A changed case's reason: its upstream number, else the rule and the parameters given
    their defaults (`lenient-defaults`, which has no upstream pull request)."""
    if case["upstream"]:
        return f"#{case['upstream'][0]}"
    return f"{case['fix']}: {', '.join(case.get('parameters', []))}"


def _print_top_errors(report: Evaluation, console: Console) -> None:
    """The three commonest error types of each category, over this evaluation's models."""
    from fcbench.report.console import print_top_errors

    print_top_errors({m.model: {name: c.error_types for name, c in m.categories.items()}
                      for m in report.models.values()}, console)


def _failure_detail() -> CaseDetail:
    """The HTML report's detail of a failed case, handed down to the evaluation jobs (which
    import no reporter) when `report_cases` keeps categories as the report reads them."""
    from fcbench.report.html.cases import failure_detail

    return failure_detail
