"""`fcbench report`, `fcbench compare`, `fcbench leaderboard`: reading score folders back.

Flags and display only; the work is in `fcbench.report`. Every diagnostic goes to stderr,
results to stdout (or the files asked for); bad input ends with one `fcbench: error:` line.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from fcbench.report.table import SORT_KEYS

if TYPE_CHECKING:
    from fcbench.score.runs import DatasetIds, ModelRun

_DIR = click.Path(path_type=Path)


def _fail(message: str) -> NoReturn:
    click.echo(f"fcbench: error: {message}", err=True)
    sys.exit(2)


def _warn(line: str) -> None:
    click.echo(f"fcbench: warning: {line}", err=True)


def _sizes(release: str | None, data_dir: Path | None) -> dict[str, int]:
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.load import scoring_sizes as dataset_sizes

    return dataset_sizes(release or DEFAULT_RELEASE, data_dir)


def _errors() -> tuple[type[Exception], ...]:
    from fcbench.dataset.fetch import DataError
    from fcbench.report.leaderboard import LeaderboardError
    from fcbench.report.published import PublishedError
    from fcbench.score.runs import RunError

    return (DataError, LeaderboardError, PublishedError, RunError, OSError)


def _published_options(command: Any) -> Any:
    """`--published`, `--published-from`, `--refresh-published` (leaderboard and report)."""
    for option in reversed((
        click.option("--published", is_flag=True,
                     help="Place the models on the published leaderboard (the official "
                     "site's CSVs, fetched once and cached with date and checksum)."),
        click.option("--published-from", type=_DIR, default=None,
                     help="An offline copy of the published CSVs (a folder, or one "
                     "data_overall.csv); implies --published."),
        click.option("--refresh-published", is_flag=True,
                     help="Fetch the published CSVs again instead of using the cache."),
    )):
        command = option(command)
    return command


def _published_board(published: bool, source: Path | None, refresh: bool) -> Any:
    """The board asked for, or None."""
    if not (published or source is not None or refresh):
        return None
    from fcbench.report.published import load_published

    return load_published(source, refresh=refresh)


_release = click.option("--release", default=None, help="Dataset release (default: newest).")
_data_dir = click.option("--data-dir", "data_dirs", type=_DIR, multiple=True,
                         help="A dataset folder laid out like the official data/, or a custom "
                         "dataset (with fcbench.json) whose categories were scored; repeatable.")


def _data_root(data_dirs: tuple[Path, ...]) -> Path | None:
    """Register the custom datasets given; the official-layout folder among them."""
    from fcbench.dataset.custom import use_data_dirs
    from fcbench.dataset.fetch import DataError

    try:
        return use_data_dirs(data_dirs)
    except DataError as exc:
        _fail(str(exc))


@click.command()
@click.argument("score_dirs", nargs=-1, required=True, type=_DIR)
@click.option("--result-dir", "result_dirs", multiple=True, type=_DIR,
              help="Result folders (raw outputs, tokens, latency); repeatable. Default: the "
              "score folder's sibling 'result', when it exists.")
@click.option("-o", "--output", type=_DIR, default=Path("report.html"), show_default=True)
@click.option("--markdown", type=_DIR, default=None, help="Also write a Markdown summary.")
@_published_options
@_release
@_data_dir
def report(score_dirs: tuple[Path, ...], result_dirs: tuple[Path, ...], output: Path,
           markdown: Path | None, published: bool, published_from: Path | None,
           refresh_published: bool, release: str | None, data_dirs: tuple[Path, ...]) -> None:
    """One self-contained HTML report of score folders (charts, every case)."""
    from fcbench.report.html import write_report

    data_dir = _data_root(data_dirs)
    try:
        board = _published_board(published, published_from, refresh_published)
        written = write_report(list(score_dirs), list(result_dirs) or None, output,
                               release=release, data_dir=data_dir, markdown=markdown,
                               published=board)
    except _errors() as exc:
        _fail(str(exc))
    for path in written:
        click.echo(f"wrote {path}", err=True)


@click.command()
@click.argument("a")
@click.argument("b")
@click.option("--json", "as_json", is_flag=True, help="Print the comparison as JSON.")
@click.option("--html", type=_DIR, default=None, help="Also write an HTML page of it.")
@click.option("--result-dir", "result_dirs", multiple=True, type=_DIR,
              help="Result folders whose files tell which cases a partial run (--limit, "
              "--ids, --sample) answered; repeatable. Default: each score folder's sibling "
              "'result', when it exists.")
@_release
@_data_dir
def compare(a: str, b: str, as_json: bool, html: Path | None, result_dirs: tuple[Path, ...],
            release: str | None, data_dirs: tuple[Path, ...]) -> None:
    """Compare two scored runs (SCORE_DIR or SCORE_DIR:MODEL): deltas, p-values, flips."""
    from fcbench.report.console import console_for

    data_dir = _data_root(data_dirs)
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.report import compare as cmp
    from fcbench.score.disputed import load_disputed
    from fcbench.score.runs import dataset_ids, one_model

    if _compare_repeats(a, b, as_json):
        if html is not None:
            click.echo("fcbench: warning: --html is not made for repeated runs (the "
                       "comparison above is across their repeats)", err=True)
        return
    try:
        ids = dataset_ids(release or DEFAULT_RELEASE, data_dir)
        runs = [_compared_run(*one_model(target), ids, result_dirs) for target in (a, b)]
        result = cmp.compare(runs[0], runs[1], _sizes(release, data_dir), load_disputed())
        if html is not None:
            from fcbench.report.html import write_compare_page

            write_compare_page(result, html)
            click.echo(f"wrote {html}", err=True)
    except _errors() as exc:
        _fail(str(exc))
    if as_json:
        click.echo(json.dumps(cmp.as_json(result), indent=2))
    else:
        cmp.print_comparison(result, console_for(piped_width=100))


def _compare_repeats(a: str, b: str, as_json: bool) -> bool:
    """Two repeated runs (`SCORE_DIR:F` with `F.repeats.json` there) compared across their
    repeats, case by case (`report.repeats.compared`); False when neither is one. One
    repeated side only: a one-line error (name one of its repeats, `F.repeat-1`)."""
    from fcbench.report.repeats import compared, comparison_lines, repeated_target
    from fcbench.score.runs import parse_target

    first, second = (repeated_target(*parse_target(target)) for target in (a, b))
    if first is None and second is None:
        return False
    if first is None or second is None:
        side = a if first is not None else b
        _fail(f"{side} is a repeated run and the other is not: compare it with another "
              "repeated run, or name one of its repeats (SCORE_DIR:NAME.repeat-1)")
    comparison = compared(first, second)
    if as_json:
        click.echo(json.dumps(comparison, indent=2))
    else:
        click.echo("\n".join(comparison_lines(comparison)))
    return True


def _compared_run(
    folder: Path, model: str, ids: DatasetIds, result_dirs: Sequence[Path]
) -> ModelRun:
    """A compared run read back case by case. A partial run's passing cases are only in its
    result file: the first of the given result folders, then the score folder's sibling
    `result`, whose file for the model holds exactly the cases judged is the one (two runs
    of one model can each have their own folder)."""
    from fcbench.report.html.collect import Sources
    from fcbench.results.read import sibling_result_dirs
    from fcbench.score.runs import RunError, read_run

    refused: RunError | None = None
    for result_dir in [*result_dirs, *sibling_result_dirs([folder])]:
        try:
            return read_run(folder, model, ids, answered=Sources.find([result_dir]).answered)
        except RunError as exc:
            refused = exc
    if refused is not None:
        raise refused
    return read_run(folder, model, ids)


@click.command()
@click.argument("score_dirs", nargs=-1, required=True, type=_DIR)
@click.option("-o", "--output", type=_DIR, default=None,
              help="Folder for the CSVs and leaderboard.json (default: print the table only).")
@click.option("--result-dir", "result_dirs", multiple=True, type=_DIR,
              help="Result folders whose token counts and latencies fill the cost columns.")
@click.option("--model", "models", multiple=True, help="Only these models (repeatable).")
@click.option("--sort", type=click.Choice(list(SORT_KEYS), case_sensitive=False), default=None,
              help="The summary to rank by (default: v4-overall; v1-overall when every "
              "category scored is a 2024 one).")
@click.option("--v1-summary/--no-v1-summary", "v1", default=None,
              help="Show the 2024 Overall column (default: when a 2024-only category, "
              "executable or REST, was scored).")
@click.option("--model-info", type=_DIR, default=None,
              help="JSON: per model directory, display_name, url, organization, license, "
              "input_price, output_price (the official registry's strings).")
@_published_options
@_release
@_data_dir
def leaderboard(score_dirs: tuple[Path, ...], output: Path | None,
                result_dirs: tuple[Path, ...], models: tuple[str, ...], sort: str | None,
                v1: bool | None, model_info: Path | None, published: bool,
                published_from: Path | None, refresh_published: bool, release: str | None,
                data_dirs: tuple[Path, ...]) -> None:
    """The official leaderboard CSVs of one or more score folders, and a ranked table."""
    from fcbench.report.console import console_for

    data_dir = _data_root(data_dirs)
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.report import leaderboard as board
    from fcbench.report.known_models import official_model_info

    try:
        facts = official_model_info(release or DEFAULT_RELEASE, _warn)
        info = board.read_model_info(model_info, fallback=facts) if model_info else facts
        usage = board.usage_of(list(result_dirs)) if result_dirs else None
        entries = board.merge_entries(list(score_dirs), _sizes(release, data_dir),
                                      usage=usage, model_info=info, models=models)
        if output is not None:
            for path in board.write_board(entries, output):
                click.echo(f"wrote {path}", err=True)
        skipped = board.skipped_counts(list(score_dirs), models)
        published_board = _published_board(published, published_from, refresh_published)
    except _errors() as exc:
        _fail(str(exc))
    ranked_by = SORT_KEYS[sort.lower()] if sort else None
    table = board.board_table(entries, sort=ranked_by, skipped=skipped, v1=v1)
    console = console_for(piped_width=100)
    console.print(table)
    if published_board is not None:
        from fcbench.dataset.fetch import DEFAULT_RELEASE
        from fcbench.report import published as pub

        placements = pub.place(entries, published_board, release=release or DEFAULT_RELEASE,
                               header_flags=pub.header_flags(list(score_dirs)))
        pub.print_placements(console, placements, published_board,
                             board.board_order(entries, sort=ranked_by, v1=v1))


@click.command()
@click.argument("target")
@click.option("--category", "categories", multiple=True, help="Only this category (repeatable).")
@click.option("--error-type", default=None,
              help="Only this error type or its prefix (e.g. value_error).")
@click.option("--id", "id_part", default=None, help="Only ids containing this text.")
@click.option("--limit", type=click.IntRange(min=0), default=50, show_default=True,
              help="Cases shown (0: all).")
@_release
@_data_dir
def failures(target: str, categories: tuple[str, ...], error_type: str | None,
             id_part: str | None, limit: int, release: str | None,
             data_dirs: tuple[Path, ...]) -> None:
    """A model's failed cases (SCORE_DIR or SCORE_DIR:MODEL): question, expected answer,
    decoded calls and error per case; plain text when piped."""
    data_dir = _data_root(data_dirs)
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.report import failures as fail
    from fcbench.score.runs import RunError, dataset_ids, one_model, read_run

    colour = sys.stdout.isatty()
    shown = 0
    try:
        folder, model = one_model(target)
        run = read_run(folder, model, dataset_ids(release or DEFAULT_RELEASE, data_dir))
        unknown = sorted(set(categories) - set(run.categories))
        if unknown:
            raise RunError(f"{model} has no score file for {', '.join(unknown)}")
        found = fail.failed_cases(run, fail.dataset_cases(release or DEFAULT_RELEASE, data_dir),
                                  categories=categories, error_type=error_type, id_part=id_part)
        for case in found:
            if limit and shown >= limit:
                click.echo("… more failed cases (--limit 0 shows all)")
                break
            click.echo(("\n" if shown else "") + fail.render(case, colour), color=colour)
            shown += 1
    except _errors() as exc:
        _fail(str(exc))
    if not shown:
        click.echo("no failed case matches", err=True)
