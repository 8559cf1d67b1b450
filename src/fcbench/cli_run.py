"""`fcbench generate` and `fcbench run`: ask a model every case, then (run) score it.

Heavy modules (openai, rich, the dataset) are imported inside the commands so that
`fcbench --help` stays fast.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from fcbench.dataset.categories import Category
    from fcbench.dataset.model import TestCase
    from fcbench.models.base import Backend, Mode
    from fcbench.runner.generate import GenerateReport, Job

GROUND_TRUTH = "ground-truth"
OUTPUT_FORMATS = ("hermes", "llama3", "mistral", "python")


class RunError(click.ClickException):
    """A usage or setup problem, reported in one line (exit status 2)."""

    exit_code = 2

    def show(self, file: Any = None) -> None:
        click.echo(f"fcbench: error: {self.format_message()}", err=True)


@dataclass
class RunOptions:
    """Everything `generate` needs, as the flags give it."""

    model: str
    backend: str
    base_urls: tuple[str, ...]
    mode: str
    name: str | None
    api_key_env: str | None
    category_names: tuple[str, ...]
    result_dir: Path
    score_dir: Path
    temperature: float | None
    top_p: float | None
    max_tokens: int | None
    extra_body: str | None
    output_format: str | None
    concurrency: int
    timeout: float
    max_attempts: int
    max_rps: float | None
    rerun_failed: bool
    overwrite: bool
    release: str | None
    data_dir: Path | None
    quiet: bool
    model_path: Path | None = None

    @property
    def folder_name(self) -> str:
        """The result folder: `--name`, else the model name (+ `-FC` in FC mode), `/` -> `_`."""
        name = self.name or self.model
        if not self.name and self.mode == "fc" and not name.endswith("-FC"):
            name += "-FC"
        return name.replace("/", "_")


def _options(func: Callable[..., Any]) -> Callable[..., Any]:
    """The flags shared by `generate` and `run`."""
    decorators = [
        click.option("--model", required=True,
                     help=f"Model name sent to the endpoint, or `{GROUND_TRUTH}` (no endpoint)."),
        click.option("--backend", type=click.Choice(["openai", "anthropic", "google", "hf"]),
                     default="openai", show_default=True,
                     help="openai: any OpenAI-compatible endpoint; anthropic: the Messages API "
                          "(optional extra: pip install 'fcbench[anthropic]'); google: the "
                          "Gemini API (pip install 'fcbench[google]'); hf: a local transformers "
                          "model, --model-path (pip install 'fcbench[hf]')."),
        click.option("--model-path", type=click.Path(path_type=Path, file_okay=False),
                     default=None,
                     help="--backend hf: the local model folder (default: --model); "
                          "--concurrency is the batch size."),
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
                     help="Categories or collections, comma-separated (default: single_turn)."),
        click.option("--result-dir", type=click.Path(path_type=Path), default=Path("result"),
                     show_default=True),
        click.option("--score-dir", type=click.Path(path_type=Path), default=Path("score"),
                     show_default=True, help="Where scores go (and --rerun-failed reads them)."),
        click.option("--temperature", type=float, default=0.001, show_default=True),
        click.option("--top-p", type=float, default=None),
        click.option("--max-tokens", type=int, default=None),
        click.option("--extra-body", default=None,
                     help='JSON merged into each request body, e.g. \'{"top_k": 1}\'.'),
        click.option("--output-format", type=click.Choice(OUTPUT_FORMATS), default=None,
                     help="FC mode: parse tool calls the model wrote as text in this format."),
        click.option("--concurrency", type=click.IntRange(1, 4096), default=8, show_default=True,
                     help="Requests in flight (over all base URLs)."),
        click.option("--timeout", type=float, default=300.0, show_default=True,
                     help="Per-request timeout in seconds."),
        click.option("--max-attempts", type=click.IntRange(1, 100), default=8, show_default=True,
                     help="Attempts per case on 429/5xx/timeouts/dropped connections."),
        click.option("--max-rps", type=float, default=None, help="Cap on requests per second."),
        click.option("--rerun-failed", is_flag=True,
                     help="Ask again the cases whose verdict was wrong (reads --score-dir)."),
        click.option("--overwrite", is_flag=True,
                     help="Discard existing results of these categories (default: resume)."),
        click.option("--release", default=None, help="Dataset release (default: newest known)."),
        click.option("--data-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
                     help="A dataset folder laid out like the official data/."),
        click.option("--quiet", "-q", is_flag=True, help="No progress display."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


@click.command()
@_options
def generate(**kwargs: Any) -> None:
    """Ask a model every case of the chosen categories; resumable, writes result files."""
    options = RunOptions(**kwargs)
    report = run_generation(options)
    _print_generation(report, options)
    if report.errors:
        sys.exit(1)


@click.command()
@_options
def run(**kwargs: Any) -> None:
    """Generate, then evaluate and print the scores (one command from model to leaderboard)."""
    options = RunOptions(**kwargs)
    report = run_generation(options)
    _print_generation(report, options)
    evaluation = _evaluate(options, [job.category.name for job in report.jobs])
    if options.model == GROUND_TRUTH:
        _print_health(evaluation, options)
    if report.errors:
        sys.exit(1)


# --------------------------------------------------------------------------- generation


def run_generation(options: RunOptions) -> GenerateReport:
    """Load the cases, build the backend, run, and keep the manifest up to date."""
    from fcbench.dataset.fetch import DataError
    from fcbench.runner.generate import GenerateSettings, RetryPolicy, generate
    from fcbench.runner.store import FolderLock, StoreBusyError

    try:
        chosen = _categories(options.category_names)
        cases = _load_cases(chosen, options)
        backend = _backend(options)
        model_dir = options.result_dir / options.folder_name
        with FolderLock(model_dir):
            manifest = _start_manifest(model_dir, options, backend, chosen)
            if options.overwrite:
                _discard(model_dir, chosen)
            rerun = _failed_ids(options, chosen) if options.rerun_failed else None
            settings = GenerateSettings(
                mode=_mode(options.mode),
                concurrency=options.concurrency,
                policy=RetryPolicy(max_attempts=options.max_attempts),
                max_rps=options.max_rps,
            )
            solver = _solver(backend, options, chosen)
            report = generate(backend, model_dir, cases, settings, rerun=rerun,
                              progress=_progress(options), solver=solver)
            _finish_manifest(model_dir, manifest, report)
    except (DataError, StoreBusyError, ValueError) as exc:
        raise RunError(str(exc)) from None
    except KeyboardInterrupt:
        click.echo("\nInterrupted: every finished case is saved; run the same command again "
                   "to resume.", err=True)
        sys.exit(130)
    return report


def _solver(backend: Backend, options: RunOptions, chosen: Sequence[Category]) -> Any:
    """The multi-turn loop when a multi-turn category is chosen (None: single-turn only)."""
    from fcbench.dataset.categories import Checker
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.models.prompts import load_texts
    from fcbench.runner.multi_turn import solver_for

    if not any(c.checker == Checker.MULTI_TURN for c in chosen):
        return None
    texts = load_texts(options.release or DEFAULT_RELEASE)
    return solver_for(backend, _mode(options.mode), texts, options.model)


def _mode(text: str) -> Mode:
    return "fc" if text == "fc" else "prompt"


def _categories(names: Sequence[str]) -> list[Category]:
    """The single- and multi-turn categories among the names (others refused with a reason)."""
    from fcbench.dataset import categories
    from fcbench.dataset.categories import Checker

    generated = (Checker.AST_SIMPLE, Checker.AST_MULTIPLE, Checker.AST_PARALLEL,
                 Checker.IRRELEVANCE, Checker.RELEVANCE, Checker.MULTI_TURN)

    try:
        chosen = categories.resolve(names or ("single_turn",))
    except categories.UnknownCategoryError as exc:
        raise RunError(str(exc)) from None
    supported = [
        c for c in chosen
        if c.checker in generated and c.scoring and not c.retired
    ]
    skipped = [c.name for c in chosen if c not in supported]
    if not supported:
        raise RunError(
            "generation supports the single-turn and multi-turn categories only for now; not: "
            + (", ".join(skipped) or "(none chosen)")
        )
    if skipped:
        click.echo(f"Skipped (no generation for these yet): {', '.join(skipped)}", err=True)
    return supported


def _load_cases(
    chosen: Sequence[Category], options: RunOptions
) -> list[tuple[Category, list[TestCase]]]:
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.load import load_category

    release = options.release or DEFAULT_RELEASE
    return [(c, load_category(c, release, options.data_dir)) for c in chosen]


def _backend(options: RunOptions) -> Backend:
    """The ground-truth model, or an OpenAI-compatible endpoint (its settings checked first)."""
    if options.model == GROUND_TRUTH:
        from fcbench.models.ground_truth import GroundTruthBackend

        return GroundTruthBackend()
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.models.openai_compat import OpenAICompatBackend, Sampling
    from fcbench.models.prompts import load_texts

    if options.backend == "anthropic":
        return _anthropic_backend(options)
    if options.backend == "google":
        return _google_backend(options)
    if options.backend == "hf":
        return _hf_backend(options)
    urls = list(options.base_urls) or [u for u in [os.environ.get("OPENAI_BASE_URL")] if u]
    if not urls:
        raise RunError("no endpoint: pass --base-url URL (or set OPENAI_BASE_URL)")
    extra = _extra_body(options)
    if options.output_format and options.mode != "fc":
        raise RunError("--output-format applies to FC mode (tool calls written as text)")
    sampling = Sampling(options.temperature, options.top_p, options.max_tokens, extra)
    return OpenAICompatBackend(
        options.model,
        urls,
        load_texts(options.release or DEFAULT_RELEASE),
        api_key=os.environ.get(options.api_key_env or "OPENAI_API_KEY"),
        sampling=sampling,
        timeout=options.timeout,
        output_format=options.output_format,
        concurrency=options.concurrency,
    )


def _extra_body(options: RunOptions) -> dict[str, Any]:
    if not options.extra_body:
        return {}
    try:
        extra = json.loads(options.extra_body)
    except ValueError as exc:
        raise RunError(f"--extra-body is not valid JSON ({exc})") from None
    if not isinstance(extra, dict):
        raise RunError("--extra-body must be a JSON object")
    return extra


# backend name: (module that must import, extra to install, backend class, API key variable)
_SDK_BACKENDS = {
    "anthropic": ("anthropic", "anthropic", "fcbench.models.anthropic_native:AnthropicBackend",
                  "ANTHROPIC_API_KEY"),
    "google": ("google.genai", "google", "fcbench.models.google_native:GoogleBackend",
               "GOOGLE_API_KEY"),
}


def _anthropic_backend(options: RunOptions) -> Backend:
    """Claude over the Messages API (the `anthropic` package is an optional extra)."""
    return _sdk_backend("anthropic", options)


def _google_backend(options: RunOptions) -> Backend:
    """Gemini over the Gemini API (the `google-genai` package is an optional extra)."""
    return _sdk_backend("google", options)


def _sdk_backend(name: str, options: RunOptions) -> Backend:
    """A vendor-SDK backend, with a clear message when its optional extra is missing."""
    import importlib

    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.models.openai_compat import Sampling
    from fcbench.models.prompts import load_texts

    module, extra, target, key_variable = _SDK_BACKENDS[name]
    try:
        importlib.import_module(module)
    except ImportError:
        raise RunError(
            f"--backend {name} needs the {extra} extra: pip install 'fcbench[{extra}]'"
        ) from None
    if options.output_format:
        raise RunError("--output-format applies to the OpenAI-compatible backend")
    module_name, _, class_name = target.partition(":")
    backend_class = getattr(importlib.import_module(module_name), class_name)
    sampling = Sampling(options.temperature, options.top_p, options.max_tokens,
                        _extra_body(options))
    backend: Backend = backend_class(
        options.model,
        list(options.base_urls),
        load_texts(options.release or DEFAULT_RELEASE),
        api_key=os.environ.get(options.api_key_env or key_variable),
        sampling=sampling,
        timeout=options.timeout,
    )
    return backend


def _hf_backend(options: RunOptions) -> Backend:
    """A local transformers model (`transformers` and `torch` are an optional extra)."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.models.openai_compat import Sampling
    from fcbench.models.prompts import load_texts

    try:
        import torch  # noqa: F401
        import transformers  # noqa: F401
    except ImportError:
        raise RunError(
            "--backend hf needs transformers and torch: pip install 'fcbench[hf]'"
        ) from None
    from fcbench.models.hf_local import HFLocalBackend

    path = options.model_path or Path(options.model)
    if not path.is_dir():
        raise RunError(f"--backend hf: no model folder at {path} (pass --model-path)")
    if options.mode == "fc" and not options.output_format:
        raise RunError("--backend hf in FC mode needs --output-format (how the model writes "
                       "tool calls: " + ", ".join(OUTPUT_FORMATS) + ")")
    if options.output_format and options.mode != "fc":
        raise RunError("--output-format applies to FC mode (tool calls written as text)")
    sampling = Sampling(options.temperature, options.top_p, options.max_tokens,
                        _extra_body(options))
    backend = HFLocalBackend(
        path,
        load_texts(options.release or DEFAULT_RELEASE),
        name=options.model,
        sampling=sampling,
        output_format=options.output_format,
        batch_size=options.concurrency,
    )
    try:
        backend.check(_mode(options.mode))
    except (OSError, ValueError) as exc:
        raise RunError(str(exc)) from None
    return backend


def _discard(model_dir: Path, chosen: Sequence[Category]) -> None:
    from fcbench.layout import result_path

    for category in chosen:
        result_path(model_dir, category).unlink(missing_ok=True)


def _failed_ids(options: RunOptions, chosen: Sequence[Category]) -> dict[str, set[str]]:
    """Ids of the failed cases listed in the score files of this model."""
    from fcbench.layout import score_path

    failed: dict[str, set[str]] = {}
    for category in chosen:
        path = score_path(options.score_dir, options.folder_name, category)
        if not path.is_file():
            continue
        ids: set[str] = set()
        for line in path.read_text(encoding="utf-8").splitlines()[1:]:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                ids.add(entry["id"])
        failed[category.name] = ids
    return failed


# --------------------------------------------------------------------------- manifest


def _dataset_identity(options: RunOptions) -> dict[str, Any]:
    """Release name and a checksum of every data file (from the fetch manifest)."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE, release_dir

    release = options.release or DEFAULT_RELEASE
    if options.data_dir is not None:
        return {"release": None, "data_dir": str(options.data_dir.resolve()), "checksum": None}
    manifest = json.loads((release_dir(release) / "manifest.json").read_bytes())
    files = json.dumps(manifest.get("files", {}), sort_keys=True).encode()
    return {"release": release, "checksum": "sha256:" + hashlib.sha256(files).hexdigest()}


def _start_manifest(
    model_dir: Path, options: RunOptions, backend: Backend, chosen: Sequence[Category]
) -> dict[str, Any]:
    """model.json: the encoding `evaluate` reads, plus the run's settings and history."""
    from fcbench import __version__
    from fcbench.runner.generate import now_iso

    path = model_dir / "model.json"
    old: dict[str, Any] = {}
    if path.is_file():
        try:
            old = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            old = {}
    if old.get("mode") not in (None, options.mode):
        raise RunError(
            f"{model_dir} holds {old['mode']} results; use --name or another --result-dir "
            f"for a {options.mode} run"
        )
    fc = options.mode == "fc"
    manifest: dict[str, Any] = {
        "mode": options.mode,
        "fc_names": "underscore" if fc else "dot",
        "fc_args": getattr(backend, "fc_args", "json_string") if fc else None,
        "model": options.model,
        **backend.describe(),
        "fcbench_version": __version__,
        "dataset": _dataset_identity(options),
        "categories": sorted(set(old.get("categories", [])) | {c.name for c in chosen}),
        "started_at": now_iso(),
        "finished_at": None,
        "runs": list(old.get("runs", [])),
    }
    _write_manifest(path, manifest)
    return manifest


def _finish_manifest(model_dir: Path, manifest: dict[str, Any], report: GenerateReport) -> None:
    manifest["finished_at"] = report.finished_at
    manifest["runs"].append(report.summary())
    _write_manifest(model_dir / "model.json", manifest)


def _write_manifest(path: Path, manifest: dict[str, Any]) -> None:
    from fcbench.runner.store import write_json_atomic

    write_json_atomic(path, manifest)


# --------------------------------------------------------------------------- output


def _progress(options: RunOptions) -> Any:
    """A rich progress display on a terminal, else nothing."""
    if options.quiet or not sys.stderr.isatty():
        return None
    return RichProgress()


class RichProgress:
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
        )
        self._tasks: dict[int, Any] = {}
        self._started: dict[int, float] = {}

    def start(self, jobs: Sequence[Job]) -> None:
        self._progress.start()
        for job in jobs:
            self._tasks[id(job)] = self._progress.add_task(
                job.category.name, total=job.total, completed=job.already, rate="", extra=""
            )

    def update(self, job: Job) -> None:
        s = job.stats
        # categories run one after another: a category's rate counts from its first answer
        started = self._started.setdefault(id(job), time.perf_counter())
        elapsed = max(time.perf_counter() - started, 1e-3)
        extra = f"tok {s.input_tokens}/{s.output_tokens}  retries {s.retries}  errors {s.errors}"
        self._progress.update(
            self._tasks[id(job)],
            completed=job.already + s.done,
            rate=f"{s.done / elapsed:.1f}/s",
            extra=extra,
        )

    def stop(self) -> None:
        self._progress.stop()


def _print_generation(report: GenerateReport, options: RunOptions) -> None:
    rate = report.asked / report.seconds if report.seconds > 0 else 0.0
    click.echo(
        f"{options.folder_name}: asked {report.asked} case(s) in {report.seconds:.1f} s "
        f"({rate:.1f}/s), {report.skipped} already done, {report.retries} retries, "
        f"{report.errors} error(s); results in {report.model_dir}",
        err=True,
    )
    if report.errors:
        click.echo("Errored cases are asked again on the next run (resume is the default).",
                   err=True)


def _evaluate(options: RunOptions, names: list[str]) -> Any:
    from fcbench import api
    from fcbench.dataset.fetch import DataError
    from fcbench.evaluation import EvaluationError

    try:
        return api.evaluate(
            options.result_dir,
            models=[options.folder_name],
            categories=names,
            score_dir=options.score_dir,
            release=options.release,
            data_dir=options.data_dir,
            echo=True,
        )
    except (DataError, EvaluationError) as exc:
        raise RunError(str(exc)) from None


def _print_health(evaluation: Any, options: RunOptions) -> None:
    """The ground-truth self-check: every case whose official answer fails the checker."""
    model = evaluation.models.get(options.folder_name)
    if model is None:
        return
    failures = [
        (name, case.id, case.verdict.error_type)
        for name, cat in model.categories.items()
        for case in cat.failures()
    ]
    click.echo(
        f"Self-check ({options.mode} mode): the benchmark's own answers fail {len(failures)} "
        "case(s) (dataset health: unsatisfiable or contradictory ground truth):"
    )
    for name, test_id, error_type in failures:
        click.echo(f"  {name}  {test_id}  {error_type}")
