"""`fcbench generate` and `fcbench run`: flags -> `RunConfig` -> the call `fcbench.run` makes
(`pipeline.plan`, then `execute_run` / `execute_generation`) -> what is shown. Nothing else:
the work is the library's.

Heavy modules (openai, rich, the dataset) are imported inside the commands so that
`fcbench --help` stays fast.
"""

from __future__ import annotations

import functools
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from fcbench.cli.flags import (
    AT_LEAST_ONE,
    CACHE,
    EXEC,
    MODEL,
    NON_NEGATIVE,
    OUTPUT,
    POSITIVE,
    PROBABILITY,
    RUN_CONTROL,
    RUN_GROUPS,
    SAMPLING,
    SELECTION,
    SERVE,
    WEB_SEARCH,
    Decorator,
    GroupedCommand,
    RegistryChoice,
    corrections_option,
    grouped,
    report_option,
    selection_options,
    write_html_report,
)
from fcbench.run_config import DEFAULTS
from fcbench.runner.generate import ProgressSink
from fcbench.runner.progress import DEFAULT_INTERVAL

if TYPE_CHECKING:
    from fcbench.pipeline import GenerateResult, RunPlan, RunResult
    from fcbench.run_config import RunConfig
    from fcbench.runner.generate import GenerateReport, GenerationJob

Result = TypeVar("Result", "GenerateResult", "RunResult")

GROUND_TRUTH = "ground-truth"
TOOL_CALL_FORMATS = RegistryChoice("fcbench.decode.tool_call_formats:names")

_model, _selection, _sampling, _control = (grouped(MODEL), grouped(SELECTION),
                                           grouped(SAMPLING), grouped(RUN_CONTROL))
_cache, _serve, _web, _exec, _output = (grouped(CACHE), grouped(SERVE), grouped(WEB_SEARCH),
                                        grouped(EXEC), grouped(OUTPUT))


class RunError(click.ClickException):
    """A usage or setup problem, reported in one line (exit status 2)."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"fcbench: error: {self.format_message()}", err=True)


def _deprecated_output_format(
    _ctx: click.Context, _param: click.Parameter, value: str | None
) -> str | None:
    if value is not None:
        click.echo("fcbench: warning: --output-format is now --tool-call-format (in `evaluate`, "
                   "--output-format names a family decoder)", err=True)
    return value


def _checked_base_urls(
    _ctx: click.Context, _param: click.Parameter, value: tuple[str, ...]
) -> tuple[str, ...]:
    """Each `--base-url` checked as it is parsed (`models.urls`): a bad port, scheme or host
    is one line naming the flag, before anything is read or asked."""
    from fcbench.models.urls import BadBaseURL, check_base_url

    try:
        return tuple(check_base_url(url, "--base-url") for url in value)
    except BadBaseURL as exc:
        raise RunError(str(exc)) from None


def _checked_shard(_ctx: click.Context, _param: click.Parameter, value: str | None) -> Any:
    """`--shard K/N`, `auto` or `auto/N` read as it is parsed (`dataset.shards`): a bad value
    or a scheduler variable missing is one line."""
    import os

    from fcbench.dataset.shards import ShardError, parse_shard

    try:
        return parse_shard(value, os.environ)
    except ShardError as exc:
        raise RunError(str(exc)) from None


def _options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The flags shared by `generate` and `run`, by section; defaults from `DEFAULTS`."""
    endpoint, sampling, retries = DEFAULTS.endpoint, DEFAULTS.sampling, DEFAULTS.retries
    decorators: list[Decorator] = [
        click.option("--model", required=True,
                     help=f"Model name sent to the endpoint, `provider/model` (openai/gpt-4o, "
                          f"mistral/..., vllm/...: `fcbench models` lists them; no --base-url "
                          f"needed), or `{GROUND_TRUTH}` (no endpoint)."),
        _model("--backend",
                     type=RegistryChoice("fcbench.models.registry:names"),
                     default=endpoint.backend, show_default=True,
                     help="openai: any OpenAI-compatible endpoint; anthropic: the Messages API "
                          "(optional extra: pip install 'fcbench[anthropic]'); google: the "
                          "Gemini API (pip install 'fcbench[google]'); hf: a local transformers "
                          "model, --model-path (pip install 'fcbench[hf]'); completions: "
                          "/v1/completions with an official open-model prompt format; "
                          "litellm: LiteLLM (pip install 'fcbench[litellm]')."),
        _model("--base-url", "base_url", multiple=True, callback=_checked_base_urls,
               help="OpenAI-compatible base URL, e.g. http://localhost:8000/v1 "
                    "(repeat for replicas; default $OPENAI_BASE_URL)."),
        _model("--api-key-env", default=endpoint.api_key_env,
               help="Environment variable holding the API key (default: OPENAI_API_KEY, "
                    "ANTHROPIC_API_KEY with --backend anthropic, GOOGLE_API_KEY with "
                    "--backend google)."),
        _model("--mode", type=click.Choice(["fc", "prompt"]), default=endpoint.mode,
               show_default=True, help="Function calling (tools) or the benchmark prompt."),
        _model("--prompt-format", type=RegistryChoice("fcbench.models.families:names"),
               default=None,
               help="Prompt the model as the official handler of this open-model family "
                    "does, over /v1/completions (default with --backend completions: "
                    "the family the official registry gives --model)."),
        _model("--tool-call-format", type=TOOL_CALL_FORMATS, default=None,
               help="FC mode: parse tool calls the model wrote as text in this format "
                    "(client-side; a server's own parser is --tool-call-parser)."),
        _model("--output-format", "deprecated_output_format",
               type=TOOL_CALL_FORMATS, default=None, hidden=True,
               callback=_deprecated_output_format,
               help="Deprecated name of --tool-call-format."),
        _model("--model-path", type=click.Path(path_type=Path), default=endpoint.model_path,
               help="--backend hf: the local model folder, or a .gguf file (default: "
                    "--model); --concurrency is the batch size."),
        _model("--timeout", type=POSITIVE, default=endpoint.timeout, show_default=True,
               help="Seconds for each whole request, the reply read to its end (not "
                    "per read: a server dripping bytes is cut off at this deadline)."),
        _model("--max-reply-mb", type=POSITIVE, default=endpoint.max_reply_mb,
               show_default=True,
               help="Cap on one reply's body in MB (as sent, and once decoded); a "
                    "larger reply is an error, retried like a dropped one, never kept."),
        _selection("--categories", "categories", multiple=True,
                   help="Categories or collections, comma-separated (default: single_turn, "
                        "or the categories of the custom datasets given as --data-dir); "
                        "-NAME leaves one out: all,-web_search."),
        _selection("--exclude", "exclude", multiple=True,
                   help="Categories or collections to leave out, comma-separated (of "
                        "--categories, or of the default)."),
        _selection("--release", default=DEFAULTS.selection.release,
                   help="Dataset release (default: newest known)."),
        _selection("--data-dir", type=click.Path(path_type=Path, file_okay=False),
                   multiple=True,
                   help="A custom dataset (a folder with fcbench.json), or a folder laid out "
                        "like the official data/ (replaces the release's); repeatable."),
        _selection("--shard", callback=_checked_shard, default=None,
                   help="Ask one deterministic part of the cases, K/N (K from 0), into the "
                        "folder NAME.shard-K-of-N; auto: from a Slurm array or a Kubernetes "
                        "Indexed Job (auto/N or $FCBENCH_SHARD_COUNT gives the count). "
                        "`fcbench merge` puts the shards together."),
        _sampling("--temperature", type=NON_NEGATIVE, default=sampling.temperature,
                  show_default=True),
        _sampling("--top-p", type=PROBABILITY, default=sampling.top_p),
        _sampling("--max-tokens", type=AT_LEAST_ONE, default=sampling.max_tokens),
        _sampling("--extra-body", default=None,
                  help='JSON merged into each request body, e.g. \'{"top_k": 1}\'.'),
        _sampling("--model-seed", type=click.IntRange(0, 2**63 - 1), default=sampling.seed,
                  help="Generation seed sent where the backend takes one (OpenAI-compatible "
                       "`seed`, completions, Gemini, local models); recorded in model.json "
                       "and the response cache's key. (--seed picks --sample's cases.)"),
        _control("--concurrency", type=click.IntRange(1, 4096), default=retries.concurrency,
                 show_default=True, help="Requests in flight (over all base URLs)."),
        _control("--max-attempts", type=click.IntRange(1, 100), default=retries.max_attempts,
                 show_default=True,
                 help="Attempts per case on 429/5xx/timeouts/dropped connections."),
        _control("--max-retry-wait", type=NON_NEGATIVE, default=retries.max_retry_wait,
                 show_default=True,
                 help="The longest wait (s) a server's Retry-After is honoured for."),
        _control("--max-rps", type=POSITIVE, default=retries.max_rps,
                 help="Cap on requests per second."),
        _control("--stop-after", "stop_after", type=click.IntRange(0),
                 default=retries.stop_after, show_default=True,
                 help="Stop when the first N finished cases all failed with the same error "
                      "(0: never)."),
        _control("--down-after", "down_after", type=NON_NEGATIVE,
                 default=retries.down_after, show_default=True,
                 help="Seconds an endpoint may fail without one answer (refused, DNS, TLS, "
                      "timeouts, 401/403/404, 5xx) before it is set aside; the run stops "
                      "when every --base-url is (0: never)."),
        _control("--batch", is_flag=True, default=retries.batch,
                 help="Ask single-turn and format-sensitivity cases through the provider's "
                      "batch API (OpenAI, Anthropic, Gemini: half the price, up to 24 h; "
                      "multi-turn and agentic cases are asked live). A rerun picks submitted "
                      "batches up."),
        _control("--batch-poll", type=POSITIVE, default=retries.batch_poll, show_default=True,
                 help="Seconds between two questions about a batch's progress."),
        _control("--batch-timeout", type=NON_NEGATIVE, default=retries.batch_timeout,
                 show_default=True,
                 help="Seconds of waiting for batches before the run stops (the same "
                      "command then resumes without submitting again)."),
        _control("--no-preflight", "no_preflight", is_flag=True,
                 help="Skip the check (endpoint reachable, key accepted, model served) made "
                      "before the first case."),
        _control("--progress-interval", type=click.FloatRange(0.1), default=DEFAULT_INTERVAL,
                 show_default=True,
                 help="Seconds between progress lines when stderr is not a terminal."),
        _control("--quiet", "-q", is_flag=True, help="No progress display."),
        _cache("--cache", type=click.Choice(["auto", "always", "off"]), default=None,
                     help="Response cache: auto (the default, or $FCBENCH_CACHE) = endpoint "
                          "models at temperature <= 0.01; always = also when sampling; "
                          "off = never."),
        _cache("--no-cache", is_flag=True, help="Same as --cache off."),
        _cache("--cache-scope", type=click.Choice(["endpoint", "model"]),
               default=DEFAULTS.cache.scope, show_default=True,
               help="endpoint: cached replies belong to the run's base URLs (another "
                    "server is asked afresh); model: declare endpoints interchangeable, "
                    "sharing the entries of every run with this scope under the model "
                    "name."),
        _cache("--cache-dir", type=click.Path(path_type=Path, file_okay=False),
               default=DEFAULTS.cache.folder,
               help="Folder of the response cache (default: $FCBENCH_CACHE_DIR, else "
                    "$FCBENCH_HOME/cache)."),
        _serve("--serve", type=RegistryChoice("fcbench.runner.serve:ENGINES"), default=None,
               help="Start this engine (your install) for the run, with tool calling on, "
                    "and stop it at the end; its log goes to the result folder."),
        _serve("--serve-cmd", default=None,
               help='Start any OpenAI-compatible server command for the run, e.g. '
                    '"llama-server -m m.gguf --jinja --port {port}" ({port}: a free port '
                    "fcbench picks; {model}: --model)."),
        _serve("--serve-args", default=None,
               help="More arguments for the --serve engine, e.g. '--max-model-len 8192'."),
        _serve("--tool-call-parser", default=None,
               help="--serve: the engine's tool-call parser (default: from the model "
                    "family)."),
        _serve("--tensor-parallel", type=AT_LEAST_ONE, default=None,
               help="--serve: GPUs one model copy is split across (vLLM "
                    "--tensor-parallel-size, SGLang --tp)."),
        _serve("--pipeline-parallel", type=AT_LEAST_ONE, default=None,
               help="--serve: pipeline stages of one copy (vLLM --pipeline-parallel-size, "
                    "SGLang --pp-size)."),
        _serve("--data-parallel", type=AT_LEAST_ONE, default=None,
               help="--serve: model copies behind the one address (vLLM "
                    "--data-parallel-size, SGLang --dp)."),
        _serve("--serve-nodes", type=AT_LEAST_ONE, default=None,
               help="--serve: machines the engine spans: vLLM on this machine's Ray cluster "
                    "(--distributed-executor-backend ray), SGLang with --nnodes and "
                    "--serve-dist-init-addr."),
        _serve("--serve-dist-init-addr", default=None,
               help="--serve sglang --serve-nodes N: HOST:PORT of this machine (rank 0), "
                    "where the other nodes meet it."),
        _serve("--serve-timeout", type=click.FloatRange(1),
               default=DEFAULTS.serve.start_timeout, show_default=True,
               help="Seconds the server may take to start answering."),
        _web("--web-provider", type=RegistryChoice("fcbench.envs.web_search.services:PROVIDERS"),
                     default=DEFAULTS.web_search.provider, show_default=True,
                     help="Who answers web searches: serpapi (the official, SERPAPI_API_KEY; "
                          "the only one comparable with the leaderboard), ddgs (keyless), "
                          "replay (from --web-record)."),
        _web("--web-record", type=click.Path(path_type=Path), default=None,
             help="Folder recording every search and page (default: the model "
                  "folder's agentic/web_record); replay serves from it."),
        _web("--web-allow-private", is_flag=True,
             help="Let fetch_url_content read pages on loopback, private and "
                  "link-local addresses (a local mirror), and, behind a proxy, on names "
                  "that do not resolve here; refused by default."),
        _web("--serpapi-max-wait", type=NON_NEGATIVE,
             default=DEFAULTS.web_search.serpapi_max_wait, show_default=True,
             help="Most seconds to keep retrying SerpAPI rate limits for one search."),
        _web("--serpapi-endpoint", default=None,
             help="Another SerpAPI host, e.g. a proxy (default https://serpapi.com)."),
        _output("--result-dir", type=click.Path(path_type=Path),
                default=DEFAULTS.output.result_dir, show_default=True),
        _output("--score-dir", type=click.Path(path_type=Path),
                default=DEFAULTS.output.score_dir, show_default=True,
                help="Where scores go (and --rerun-failed reads them)."),
        _output("--name", default=None,
                help="Result folder name (default: the model, with -FC in FC mode)."),
        _output("--overwrite", is_flag=True,
                help="Discard existing results of these categories (default: resume)."),
        _output("--rerun-failed", is_flag=True,
                help="Ask again the cases whose verdict was wrong (reads --score-dir)."),
        _control("--repeats", type=click.IntRange(1, 1000), default=DEFAULTS.output.repeats,
                 show_default=True,
                 help="Ask every case N times, each repeat its own resumable folder "
                      "NAME.repeat-I seeded --model-seed + I - 1 (default seed 0); `run` "
                      "writes the statistics across repeats to SCORE_DIR/NAME.repeats.json "
                      "and .csv."),
        _output("--retry-permanent", is_flag=True,
                help="Ask again the cases recorded with a final error (the prompt does not "
                     "fit the model's context, ...), which a resume keeps as failed."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return corrections_option(selection_options(func))


@click.command(cls=GroupedCommand, groups=RUN_GROUPS)
@_options
def generate(**kwargs: Any) -> None:
    """Ask a model every case of the chosen categories; resumable, writes result files."""
    config = _config(kwargs)
    from fcbench.pipeline import execute_generation

    _, result = _carry_out(kwargs["model"], config, execute_generation)
    for each in _each_repeat(result):
        _print_generation(each.generation, each.folder)
    if any(e.generation.errors > e.generation.final for e in _each_repeat(result)):
        sys.exit(1)


def _exec_options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The flags of scoring executable categories (`run` only)."""
    func = _exec(
        "--exec-replay-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
        help="Recorded web-service responses: read by --exec-backend replay, written by live.",
    )(func)
    return _exec(
        "--exec-backend", type=RegistryChoice("fcbench.envs.exec_functions.backends:BACKENDS"),
        default=DEFAULTS.exec.backend, show_default=True,
        help="How executable categories' web-service calls are answered: not at all (those "
             "cases are skipped), from recorded responses, or over the network (keys from "
             "RAPID_API_KEY, GEOCODE_API_KEY, EXCHANGERATE_API_KEY, OMDB_API_KEY; each web "
             "API is checked once before the run).",
    )(func)


@click.command(cls=GroupedCommand, groups=RUN_GROUPS)
@_options
@_exec_options
@report_option
def run(**kwargs: Any) -> None:
    """Generate, then evaluate and print the scores (one command from model to leaderboard)."""
    from fcbench.api import print_evaluation, scored
    from fcbench.pipeline import execute_run

    html = not kwargs.pop("no_report")
    config = _config(kwargs)
    planned, result = _carry_out(kwargs["model"], config,
                                  functools.partial(execute_run, report_cases=html))
    output = config.output
    for each in _each_repeat(result):
        _print_generation(each.generation, each.folder)
    statistics = getattr(result, "statistics", None)
    if statistics is not None:  # --repeats: the table across repeats, not the last one's
        from fcbench.report.console import console_for, print_problems
        from fcbench.report.repeats import table_lines

        print_problems([p for each in _each_repeat(result) for p in [
            *(p for m in each.evaluation.models.values() for p in m.problems),
            *each.problems]], console_for(stderr=True))
        click.echo("\n".join(table_lines(statistics)))
    else:
        print_evaluation(result.evaluation, planned.release, planned.data_dir, output.score_dir)
    _print_smoke_note(planned)
    shard = config.selection.shard
    if shard is not None:
        click.echo(f"Shard {shard}: the scores above cover this shard's cases; `fcbench merge` "
                   "the shards' folders, then evaluate the merged one.", err=True)
    if html and scored(result.evaluation):
        write_html_report(output.score_dir, output.result_dir, config.selection.release,
                          config.selection.data_dir, result.evaluation)
    if kwargs["model"] == GROUND_TRUTH:
        _print_health(result)
    if any(e.generation.errors > e.generation.final for e in _each_repeat(result)):
        sys.exit(1)


def _each_repeat(result: Result) -> list[Any]:
    """The results to show: each repeat's of a `--repeats` run, else the one."""
    return list(getattr(result, "repeats", ())) or [result]


def _config(kwargs: dict[str, Any]) -> RunConfig:
    """The flags as the library's options (`RunConfig.of`, the keywords of `fcbench.run`)."""
    from fcbench.run_config import RunConfig

    options = dict(kwargs)
    options.pop("model")
    options["base_url"] = tuple(options["base_url"])
    options["categories"] = options["categories"] or None
    options["exclude"] = options["exclude"] or None
    options["extra_body"] = _extra_body(options["extra_body"])
    options["preflight"] = not options.pop("no_preflight")
    deprecated = options.pop("deprecated_output_format")
    if options["tool_call_format"] is None:
        options["tool_call_format"] = deprecated
    interval = options.pop("progress_interval")
    quiet = options.pop("quiet")
    if options.pop("no_cache"):
        options["cache"] = "off"
    options["progress"] = None if quiet else _progress(interval)
    return RunConfig.of(options)


def _progress(interval: float) -> ProgressSink:
    """A live display on a terminal; plain lines at an interval in a log."""
    if sys.stderr.isatty():
        return RichProgress()
    from fcbench.runner.progress import PlainProgress

    return PlainProgress(interval=interval)


def _carry_out(
    model: str, config: RunConfig, execute: Callable[[RunPlan], Result]
) -> tuple[RunPlan, Result]:
    """`pipeline.plan`, then `execute` (`execute_run` or `execute_generation`): the calls
    `fcbench.run` / `fcbench.generate` make; every setup or run error as one line."""
    from fcbench.core.categories import UnknownCategoryError
    from fcbench.dataset.fetch import DataError
    from fcbench.evaluation import EvaluationError
    from fcbench.models.base import PreflightError
    from fcbench.models.registry import BackendSetupError
    from fcbench.pipeline import RunStopped, plan
    from fcbench.results.store import StoreBusyError
    from fcbench.runner.serve import ServeError

    try:
        planned = plan(model, config)
        check = planned.web_api_check
        for line in check.lines() if check is not None else []:
            click.echo(line, err=True)
        return planned, execute(planned)
    except (DataError, StoreBusyError, BackendSetupError, UnknownCategoryError,
            ValueError, ServeError, EvaluationError) as exc:
        raise RunError(str(exc)) from None
    except PreflightError as exc:
        raise RunError(f"{exc} (--no-preflight skips this check)") from None
    except RunStopped as exc:
        _print_generation(exc.report, exc.report.model_dir.name)
        click.echo(f"fcbench: error: {exc}; {_asked_of(exc.report)}. Fix the cause and "
                   f"resume (finished cases are kept): {resume_command()}; "
                   f"{_never_stops(exc.report)}", err=True)
        sys.exit(1)
    except KeyboardInterrupt:
        # the command as given, less --overwrite: run again, that would discard what is saved
        click.echo(f"\nInterrupted: every finished case is saved; resume with: "
                   f"{resume_command()}", err=True)
        _exit_interrupted()


def _exit_interrupted() -> NoReturn:
    """Exit 130; at once (no waiting for threads) while a local model's batch thread still
    runs (a second Ctrl-C came before it reached its next token): its C++ frames would
    otherwise meet the interpreter's shutdown."""
    import os
    import threading

    from fcbench.models.hf_local import THREAD_NAME

    if any(t.name == THREAD_NAME and t.is_alive() for t in threading.enumerate()):
        sys.stdout.flush()
        sys.stderr.flush()
        os._exit(130)
    sys.exit(130)


def _asked_of(report: GenerateReport) -> str:
    """How far a stopped run got: `27 of 40 case(s) were asked, 13 were not; 412 of 425
    case(s) are done`."""
    asked, planned = report.asked, report.planned
    return (f"{asked} of {planned} case(s) were asked, {planned - asked} were not; "
            f"{report.done} of {report.total} case(s) are done")


def _never_stops(report: GenerateReport) -> str:
    """The flag that would have let the run go on."""
    if report.stopped is not None and report.stopped.startswith("no answer from"):
        return "--down-after 0 never stops."
    if report.stopped is not None and "(--batch-timeout)" in report.stopped:
        return "a longer --batch-timeout waits longer."
    return "--stop-after 0 never stops."


def resume_command(argv: Sequence[str] | None = None) -> str:
    """The command line that started this process (`argv`, default `sys.argv`), as one
    shell line that resumes it: `fcbench` for the program, without `--overwrite` (which
    would discard what the stopped run kept), known secrets masked."""
    import shlex

    from fcbench import redact

    args = [a for a in (sys.argv if argv is None else argv)[1:] if a != "--overwrite"]
    return redact.text(shlex.join(["fcbench", *args]))


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
        self._activity: str | None = None
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
        self._progress.update(
            self._tasks[id(job)],
            completed=job.already + s.done,
            rate=rate_text(s.done, elapsed),
            extra=self._extra(job),
        )

    def _extra(self, job: GenerationJob) -> str:
        """Tokens, retries, errors; a running wait; on the first category with cases left,
        the backend's activity (a local model's batch: tokens so far and seconds)."""
        s = job.stats
        extra = f"tok {s.input_tokens}/{s.output_tokens}  retries {s.retries}  errors {s.errors}"
        if s.wait is not None and s.wait.remaining() > 0:
            extra += f"  {s.wait.describe()}"
        current = next((j for j in self._jobs if j.stats.done < len(j.cases)), None)
        if self._activity and job is current:
            extra += f"  {self._activity}"
        return extra

    def tick(self) -> None:
        """Keep a running wait's countdown and the backend's activity moving (no other event
        comes while they last; a first batch comes before any case of its category)."""
        for job in self._jobs:
            if job.stats.wait is not None and id(job) in self._started:
                self.update(job)
            elif id(job) in self._tasks:
                self._progress.update(self._tasks[id(job)], extra=self._extra(job))

    def activity(self, text: str | None) -> None:
        self._activity = text

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
        if report.final:
            click.echo(f"{report.final} case(s) failed for good (the prompt does not fit the "
                       "context, ...): scored as failed, not asked again on resume "
                       "(--retry-permanent asks them, e.g. after raising the server's "
                       "context length).", err=True)
        if not report.stopped and report.errors > report.final:
            click.echo("Errored cases are asked again on the next run (resume is the default).",
                       err=True)


def _print_smoke_note(planned: RunPlan) -> None:
    """Say that a smoke run's scores cover a few cases only."""
    selection = planned.selection
    if selection.active:
        click.echo(f"Smoke run ({selection.describe()}): every score above covers the chosen "
                   "cases only and is marked partial (*).", err=True)


def _print_health(result: RunResult) -> None:
    """The ground-truth self-check: every case whose official answer fails the checker."""
    model = result.models.get(result.model)
    if model is None:
        return
    failures = [
        (name, case.id, case.verdict.error_type)
        for name, cat in model.categories.items()
        for case in cat.failures()
        if "skipped" not in case.verdict.extras
    ]
    click.echo(
        f"Self-check ({result.mode} mode): the benchmark's own answers fail {len(failures)} "
        "case(s) (dataset health: unsatisfiable or contradictory ground truth)"
        + (":" if failures else ".")
    )
    for name, test_id, error_type in failures:
        click.echo(f"  {name}  {test_id}  {error_type}")
    skipped = sum(cat.skipped for cat in model.categories.values())
    if skipped:
        click.echo(f"  ({skipped} executable case(s) skipped: they need a web service the exec "
                   "backend cannot answer)")
