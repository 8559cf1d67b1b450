"""`fcbench generate` and `fcbench run`: the flags and what is shown; the work is
`fcbench.run` (backend from the registry, the runner, the manifest, evaluation).

Heavy modules (openai, rich, the dataset) are imported inside the commands so that
`fcbench --help` stays fast.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from fcbench.cli.flags import (
    AT_LEAST_ONE,
    NON_NEGATIVE,
    POSITIVE,
    PROBABILITY,
    corrections_option,
    report_option,
    run_control_options,
    selection_options,
    serve_options,
    write_html_report,
)
from fcbench.models.families import names as prompt_format_names
from fcbench.models.limits import DEFAULT_MAX_REPLY_BYTES
from fcbench.runner.generate import ProgressSink

if TYPE_CHECKING:
    from fcbench.evaluation.types import Evaluation
    from fcbench.pipeline import Prepared
    from fcbench.run_config import RunConfig
    from fcbench.runner.generate import GenerateReport, GenerationJob

GROUND_TRUTH = "ground-truth"
OUTPUT_FORMATS = ("hermes", "llama3", "mistral", "python")
PROMPT_FORMATS = prompt_format_names()


class RunError(click.ClickException):
    """A usage or setup problem, reported in one line (exit status 2)."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"fcbench: error: {self.format_message()}", err=True)


def _options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The flags shared by `generate` and `run`."""
    decorators = [
        click.option("--model", required=True,
                     help=f"Model name sent to the endpoint, or `{GROUND_TRUTH}` (no endpoint)."),
        click.option("--backend",
                     type=click.Choice(["openai", "anthropic", "google", "hf", "completions"]),
                     default="openai", show_default=True,
                     help="openai: any OpenAI-compatible endpoint; anthropic: the Messages API "
                          "(optional extra: pip install 'fcbench[anthropic]'); google: the "
                          "Gemini API (pip install 'fcbench[google]'); hf: a local transformers "
                          "model, --model-path (pip install 'fcbench[hf]'); completions: "
                          "/v1/completions with an official open-model prompt format."),
        click.option("--prompt-format", type=click.Choice(PROMPT_FORMATS), default=None,
                     help="Prompt the model as the official handler of this open-model family "
                          "does, over /v1/completions (default with --backend completions: "
                          "the family the official registry gives --model)."),
        click.option("--model-path", type=click.Path(path_type=Path), default=None,
                     help="--backend hf: the local model folder, or a .gguf file (default: "
                          "--model); --concurrency is the batch size."),
        click.option("--base-url", "base_urls", multiple=True,
                     help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1 "
                          "(repeat for replicas; default $OPENAI_BASE_URL)."),
        click.option("--mode", type=click.Choice(["fc", "prompt"]), default="fc",
                     show_default=True, help="Function calling (tools) or the benchmark prompt."),
        click.option("--name", default=None,
                     help="Result folder name (default: the model, with -FC in FC mode)."),
        click.option("--api-key-env", default=None,
                     help="Environment variable holding the API key (default: OPENAI_API_KEY, "
                          "ANTHROPIC_API_KEY with --backend anthropic, GOOGLE_API_KEY with "
                          "--backend google)."),
        click.option("--categories", "category_names", multiple=True,
                     help="Categories or collections, comma-separated (default: single_turn, "
                          "or the categories of the custom datasets given as --data-dir)."),
        click.option("--result-dir", type=click.Path(path_type=Path), default=Path("result"),
                     show_default=True),
        click.option("--score-dir", type=click.Path(path_type=Path), default=Path("score"),
                     show_default=True, help="Where scores go (and --rerun-failed reads them)."),
        click.option("--temperature", type=NON_NEGATIVE, default=0.001, show_default=True),
        click.option("--top-p", type=PROBABILITY, default=None),
        click.option("--max-tokens", type=AT_LEAST_ONE, default=None),
        click.option("--extra-body", default=None,
                     help='JSON merged into each request body, e.g. \'{"top_k": 1}\'.'),
        click.option("--model-seed", type=click.IntRange(0, 2**63 - 1), default=None,
                     help="Generation seed sent where the backend takes one (OpenAI-compatible "
                          "`seed`, completions, Gemini, local models); recorded in model.json "
                          "and the response cache's key. (--seed picks --sample's cases.)"),
        click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default=None,
                     help="FC mode: parse tool calls the model wrote as text in this format."),
        click.option("--concurrency", type=click.IntRange(1, 4096), default=8, show_default=True,
                     help="Requests in flight (over all base URLs)."),
        click.option("--timeout", type=POSITIVE, default=300.0,
                     show_default=True,
                     help="Seconds for each whole request, the reply read to its end (not "
                          "per read: a server dripping bytes is cut off at this deadline)."),
        click.option("--max-reply-mb", type=POSITIVE,
                     default=DEFAULT_MAX_REPLY_BYTES / 1_000_000, show_default=True,
                     help="Cap on one reply's body in MB (as sent, and once decoded); a "
                          "larger reply is an error, retried like a dropped one, never kept."),
        click.option("--max-attempts", type=click.IntRange(1, 100), default=8, show_default=True,
                     help="Attempts per case on 429/5xx/timeouts/dropped connections."),
        click.option("--max-rps", type=POSITIVE, default=None, help="Cap on requests per second."),
        click.option("--rerun-failed", is_flag=True,
                     help="Ask again the cases whose verdict was wrong (reads --score-dir)."),
        click.option("--overwrite", is_flag=True,
                     help="Discard existing results of these categories (default: resume)."),
        click.option("--release", default=None, help="Dataset release (default: newest known)."),
        click.option("--data-dir", type=click.Path(path_type=Path, file_okay=False),
                     multiple=True,
                     help="A custom dataset (a folder with fcbench.json), or a folder laid out "
                          "like the official data/ (replaces the release's); repeatable."),
        click.option("--cache", type=click.Choice(["auto", "always", "off"]), default=None,
                     help="Response cache: auto (the default, or $FCBENCH_CACHE) = endpoint "
                          "models at temperature <= 0.01; always = also when sampling; "
                          "off = never."),
        click.option("--no-cache", is_flag=True, help="Same as --cache off."),
        click.option("--cache-scope", type=click.Choice(["endpoint", "model"]),
                     default="endpoint", show_default=True,
                     help="endpoint: cached replies belong to the run's base URLs (another "
                          "server is asked afresh); model: declare endpoints interchangeable, "
                          "sharing the entries of every run with this scope under the model "
                          "name."),
        click.option("--cache-dir", type=click.Path(path_type=Path, file_okay=False),
                     default=None,
                     help="Folder of the response cache (default: $FCBENCH_CACHE_DIR, else "
                          "$FCBENCH_HOME/cache)."),
        click.option("--web-provider", type=click.Choice(["serpapi", "ddgs", "replay"]),
                     default="serpapi", show_default=True,
                     help="Who answers web searches: serpapi (the official, SERPAPI_API_KEY; "
                          "the only one comparable with the leaderboard), ddgs (keyless), "
                          "replay (from --web-record)."),
        click.option("--web-record", type=click.Path(path_type=Path), default=None,
                     help="Folder recording every search and page (default: the model "
                          "folder's agentic/web_record); replay serves from it."),
        click.option("--web-allow-private", is_flag=True,
                     help="Let fetch_url_content read pages on loopback, private and "
                          "link-local addresses (a local mirror); refused by default."),
        click.option("--serpapi-max-wait", type=NON_NEGATIVE, default=600.0, show_default=True,
                     help="Most seconds to keep retrying SerpAPI rate limits for one search."),
        click.option("--serpapi-endpoint", default=None,
                     help="Another SerpAPI host, e.g. a proxy (default https://serpapi.com)."),
        click.option("--quiet", "-q", is_flag=True, help="No progress display."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return corrections_option(serve_options(run_control_options(selection_options(func))))


@click.command()
@_options
def generate(**kwargs: Any) -> None:
    """Ask a model every case of the chosen categories; resumable, writes result files."""
    config = _config(kwargs)
    prepared, report = _run_generation(kwargs["model"], config)
    _print_generation(report, prepared.folder)
    if report.errors:
        sys.exit(1)


def _exec_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The flags of scoring executable categories (`run` only)."""
    func = click.option(
        "--exec-replay-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
        help="Recorded web-service responses: read by --exec-backend replay, written by live.",
    )(func)
    return click.option(
        "--exec-backend", type=click.Choice(["offline", "replay", "live"]), default="offline",
        show_default=True,
        help="How executable categories' web-service calls are answered: not at all (those "
             "cases are skipped), from recorded responses, or over the network (keys from "
             "RAPID_API_KEY, GEOCODE_API_KEY, EXCHANGERATE_API_KEY, OMDB_API_KEY; each web "
             "API is checked once before the run).",
    )(func)


@click.command()
@_options
@_exec_options
@report_option
def run(**kwargs: Any) -> None:
    """Generate, then evaluate and print the scores (one command from model to leaderboard)."""
    from fcbench.api import scored

    html = not kwargs.pop("no_report")
    config = _config(kwargs)
    _check_web_apis(config)
    prepared, report = _run_generation(kwargs["model"], config)
    _print_generation(report, prepared.folder)
    evaluation = _evaluate(config, prepared.folder, scored_categories(report), html)
    _print_smoke_note(config)
    if html and scored(evaluation):
        write_html_report(Path(config.score_dir), Path(config.result_dir), config.release,
                          config.data_dir, evaluation)
    if kwargs["model"] == GROUND_TRUTH:
        _print_health(evaluation, prepared.folder, prepared.mode)
    if report.errors:
        sys.exit(1)


def scored_categories(report: GenerateReport) -> list[str]:
    from fcbench.pipeline import scored_categories as scored

    return scored(report)


def _config(kwargs: dict[str, Any]) -> RunConfig:
    """The flags as the library's options."""
    from fcbench.run_config import RunConfig

    options = dict(kwargs)
    options.pop("model")
    options["base_url"] = options.pop("base_urls")
    options["categories"] = options.pop("category_names") or None
    options["extra_body"] = _extra_body(options["extra_body"])
    options["preflight"] = not options.pop("no_preflight")
    interval = options.pop("progress_interval")
    quiet = options.pop("quiet")
    if options.pop("no_cache"):
        options["cache"] = "off"
    config = RunConfig.of(options)
    config.progress = None if quiet else _progress(interval)
    return config


def _check_web_apis(config: RunConfig) -> None:
    """Before a live run: each web API asked once; what it found is printed."""
    from fcbench.check.registry import JudgeSettings
    from fcbench.dataset import categories
    from fcbench.dataset.fetch import DataError
    from fcbench.pipeline import web_api_check

    try:
        JudgeSettings(config.release_name, exec_backend=config.exec_backend,
                      exec_replay_dir=config.exec_replay_path).validate()
        config.data_path  # noqa: B018 - registers the custom datasets among --data-dir
        names = config.category_names()
        chosen = categories.resolve([names] if isinstance(names, str) else list(names))
        check = web_api_check(config, chosen)
    except (DataError, ValueError) as exc:
        raise RunError(str(exc)) from None
    for line in check.lines() if check is not None else []:
        click.echo(line, err=True)


def _progress(interval: float) -> ProgressSink:
    """A live display on a terminal; plain lines at an interval in a log."""
    if sys.stderr.isatty():
        return RichProgress()
    from fcbench.runner.progress import PlainProgress

    return PlainProgress(interval=interval)


def _run_generation(model: str, config: RunConfig) -> tuple[Prepared, GenerateReport]:
    from fcbench.dataset.categories import UnknownCategoryError
    from fcbench.dataset.fetch import DataError
    from fcbench.models.base import PreflightError
    from fcbench.models.registry import BackendSetupError
    from fcbench.pipeline import RunStopped, generate_prepared, prepare
    from fcbench.runner.serve import ServeError
    from fcbench.runner.store import StoreBusyError

    try:
        prepared = prepare(model, config)
        return prepared, generate_prepared(prepared, config)
    except (DataError, StoreBusyError, BackendSetupError, UnknownCategoryError,
            ValueError, ServeError) as exc:
        raise RunError(str(exc)) from None
    except PreflightError as exc:
        raise RunError(f"{exc} (--no-preflight skips this check)") from None
    except RunStopped as exc:
        _print_generation(exc.report, exc.report.model_dir.name)
        click.echo(f"fcbench: error: {exc}; {_asked_of(exc.report)}. Fix the cause and run "
                   "the same command again (finished cases are kept); --stop-after 0 never "
                   "stops.", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        click.echo("\nInterrupted: every finished case is saved; run the same command again "
                   "to resume.", err=True)
        sys.exit(130)


def _asked_of(report: GenerateReport) -> str:
    """How far a stopped run got: `27 of 40 case(s) were asked, 13 were not`."""
    asked, planned = report.asked, report.planned
    return f"{asked} of {planned} case(s) were asked, {planned - asked} were not"


def _extra_body(text: str | None) -> dict[str, Any]:
    if not text:
        return {}
    try:
        extra = json.loads(text)
    except ValueError as exc:
        raise RunError(f"--extra-body is not valid JSON ({exc})") from None
    if not isinstance(extra, dict):
        raise RunError("--extra-body must be a JSON object")
    return extra


# --------------------------------------------------------------------------- output


class RichProgress(ProgressSink):
    """One bar per category: cases done, rate, ETA, tokens, retries, errors."""

    def __init__(self, console: Any = None) -> None:
        from rich.console import Console
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeRemainingColumn,
        )

        self._progress = Progress(
            TextColumn("{task.description:<22}"),
            BarColumn(bar_width=24),
            MofNCompleteColumn(),
            TextColumn("{task.fields[rate]:>8}"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[extra]}"),
            console=console or Console(stderr=True),
            refresh_per_second=8,
            # the ETA's speed over the last ten minutes: a case every 20 s still counts
            speed_estimate_period=600,
        )
        self._tasks: dict[int, Any] = {}
        self._started: dict[int, float] = {}
        self._previous = time.perf_counter()
        self._jobs: Sequence[GenerationJob] = ()

    def start(self, jobs: Sequence[GenerationJob]) -> None:
        self._jobs = jobs
        self._previous = time.perf_counter()
        self._progress.start()
        for job in jobs:
            self._tasks[id(job)] = self._progress.add_task(
                job.category.name, total=job.total, completed=job.already, rate="", extra=""
            )

    def update(self, job: GenerationJob) -> None:
        from fcbench.runner.progress import rate_text

        s = job.stats
        # categories run one after another: a category's rate counts from the event before
        # its first one (the start, or the previous category's last answer)
        now = time.perf_counter()
        started = self._started.setdefault(id(job), self._previous)
        self._previous = now
        elapsed = now - started
        extra = f"tok {s.input_tokens}/{s.output_tokens}  retries {s.retries}  errors {s.errors}"
        if s.wait is not None and s.wait.remaining() > 0:
            extra += f"  {s.wait.describe()}"
        self._progress.update(
            self._tasks[id(job)],
            completed=job.already + s.done,
            rate=rate_text(s.done, elapsed),
            extra=extra,
        )

    def tick(self) -> None:
        """Keep a running wait's countdown moving (no other event comes while it lasts)."""
        for job in self._jobs:
            if job.stats.wait is not None and id(job) in self._started:
                self.update(job)

    def note(self, text: str) -> None:
        from rich.markup import escape

        self._progress.console.print(f"[yellow]fcbench: warning:[/] {escape(text)}",
                                     highlight=False)

    def stop(self) -> None:
        self._progress.stop()


def _print_generation(report: GenerateReport, folder: str) -> None:
    from fcbench.runner.progress import rate_text

    rate = rate_text(report.asked, report.seconds)
    click.echo(
        f"{folder}: asked {report.asked} case(s) in {report.seconds:.1f} s "
        f"({rate}), {report.skipped} already done, {report.retries} retries, "
        f"{report.errors} error(s); results in {report.model_dir}",
        err=True,
    )
    cache = report.extra.get("cache")
    if isinstance(cache, dict):
        from fcbench.runner.cached import describe_counts

        click.echo(f"{folder}: {describe_counts(cache)}", err=True)
    if report.errors:
        from fcbench.runner.failures import describe_reasons

        click.echo("Errors by reason:", err=True)
        for line in describe_reasons(report.reasons):
            click.echo(f"  {line}", err=True)
        if not report.stopped:
            click.echo("Errored cases are asked again on the next run (resume is the default).",
                       err=True)


def _print_smoke_note(config: RunConfig) -> None:
    """Say that a smoke run's scores cover a few cases only."""
    selection = config.selection
    if selection.active:
        click.echo(f"Smoke run ({selection.describe()}): every score above covers the chosen "
                   "cases only and is marked partial (*).", err=True)


def _evaluate(config: RunConfig, folder: str, names: list[str], report_cases: bool = False
              ) -> Evaluation:
    """Score the run's result files (`report_cases`: keep them as the HTML report reads
    them, so that the report after the run reads nothing back)."""
    from fcbench import api
    from fcbench.dataset.fetch import DataError
    from fcbench.evaluation import EvaluationError

    try:
        return api.evaluate(
            config.result_dir,
            models=[folder],
            categories=names,
            score_dir=config.score_dir,
            release=config.release,
            data_dir=config.data_path,
            echo=True,
            exec_backend=config.exec_backend,
            exec_replay_dir=config.exec_replay_path,
            web_api_check=False,
            selection=config.selection,
            report_cases=report_cases,
        )
    except (DataError, EvaluationError) as exc:
        raise RunError(str(exc)) from None


def _print_health(evaluation: Evaluation, folder: str, mode: str) -> None:
    """The ground-truth self-check: every case whose official answer fails the checker."""
    model = evaluation.models.get(folder)
    if model is None:
        return
    failures = [
        (name, case.id, case.verdict.error_type)
        for name, cat in model.categories.items()
        for case in cat.failures()
        if "skipped" not in case.verdict.extras
    ]
    click.echo(
        f"Self-check ({mode} mode): the benchmark's own answers fail {len(failures)} "
        "case(s) (dataset health: unsatisfiable or contradictory ground truth):"
    )
    for name, test_id, error_type in failures:
        click.echo(f"  {name}  {test_id}  {error_type}")
    skipped = sum(cat.skipped for cat in model.categories.values())
    if skipped:
        click.echo(f"  ({skipped} executable case(s) skipped: they need a web service the exec "
                   "backend cannot answer)")
