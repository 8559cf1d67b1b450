"""`generate` and `run`: ask a model every case of some categories, then (run) score it.

    import fcbench
    report = fcbench.run("Qwen/Qwen3-8B", base_url="http://localhost:8000/v1",
                         categories=["simple_python", "multi_turn_base"])
    report.models["Qwen_Qwen3-8B-FC"].overall

`model` is a model name (served by the backend named by `backend`, default the
OpenAI-compatible one; `"ground-truth"` is the built-in self-check), a `Backend` instance, or a
plain function `fn(messages, tools) -> str | dict` (see `models.callable`). The options are the
command line's; results go to `<result_dir>/<name>/...` with a `model.json` saying how they are
encoded, so they score the same whoever produced them.
"""

from __future__ import annotations

import contextlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fcbench import redact
from fcbench.core.categories import Category
from fcbench.core.model import TestCase
from fcbench.dataset.selection import Selection, select_run
from fcbench.evaluation.types import Evaluation
from fcbench.layout import run_folder_name, score_path
from fcbench.models.base import Backend, Mode, Sampling
from fcbench.run_config import RunConfig, RunOptions
from fcbench.runner.generate import GenerateReport

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from fcbench.check.exec_preflight import PreflightReport
    from fcbench.runner.serve import ServePlan

ModelLike = str | Backend | Callable[..., Any]
"""A model name, a Backend, or a function `fn(messages, tools) -> str | dict`."""


@dataclass
class Prepared:
    """A generation ready to start: the backend, its folder, the cases."""

    backend: Backend
    model_name: str
    folder: str
    cases: list[tuple[Category, list[TestCase]]]
    serve: ServePlan | None = None
    """The server to start for the run, if any."""
    mode: Mode = "fc"
    """The run's mode as resolved once here (an open-model prompt format means prompt mode
    whatever `config.mode` says): generation, the manifest check, the folder name and the
    displays all read this, never `config.mode`."""


class RunStopped(RuntimeError):
    """The run stopped before asking every case (the first cases all failed alike); the
    report says how far it got and why."""

    def __init__(self, report: GenerateReport) -> None:
        super().__init__(f"stopped early: {report.stopped}")
        self.report = report


def generate(model: ModelLike, **options: Unpack[RunOptions]) -> GenerateReport:
    """Ask `model` every case of the chosen categories; resumable (finished cases are kept,
    errored ones asked again), crash-safe, writes result files and `model.json`."""
    config = RunConfig.of(dict(options))
    return _generate(prepare(model, config), config)


def run(model: ModelLike, **options: Unpack[RunOptions]) -> Evaluation:
    """`generate`, then score what was generated (score files and leaderboards written).

    With `exec_backend="live"` and an executable category chosen, each web API is checked
    once before anything is generated; missing keys and failing APIs open
    `Evaluation.problems`."""
    from fcbench import api

    config = RunConfig.of(dict(options))
    prepared = prepare(model, config)
    check = web_api_check(config, [category for category, _ in prepared.cases])
    report = _generate(prepared, config)
    evaluation = api.evaluate(
        config.result_dir, models=[prepared.folder],
        categories=scored_categories(report), score_dir=config.score_dir,
        release=config.release, data_dir=config.data_path, exec_backend=config.exec_backend,
        exec_replay_dir=config.exec_replay_path, web_api_check=False,
        selection=config.selection,
    )
    if check is not None and not check.healthy:
        evaluation.problems[:0] = check.lines()
    return evaluation


def web_api_check(config: RunConfig, chosen: Sequence[Category]) -> PreflightReport | None:
    """The live preflight (each web API asked once), when the run scores executable
    categories with the live backend; None otherwise."""
    from fcbench.check.exec_preflight import check_web_apis, needs_web_apis

    if config.exec_backend != "live" or not needs_web_apis(chosen):
        return None
    return check_web_apis(config.release_name, config.data_path, config.exec_replay_path)


def prepare(model: ModelLike, config: RunConfig) -> Prepared:
    """Resolve the categories, load their cases, build the backend (errors: ValueError)."""
    from fcbench.models.base import layout_of
    from fcbench.runner.serve import plan_server

    data_root = config.data_path  # registers the custom datasets before names are resolved
    selection = config.selection
    serve = plan_server(
        model if isinstance(model, str) else None, engine=config.serve,
        command=config.serve_cmd, backend=config.backend, base_urls=config.base_urls,
        model_path=Path(config.model_path) if config.model_path is not None else None,
        parser=config.tool_call_parser, extra_args=config.serve_args,
        start_timeout=config.serve_timeout,
    )
    if serve is not None:
        config = replace(config, base_url=serve.base_url)
    backend, name = make_backend(model, config)
    mode = config.mode
    if layout_of(backend) is not None:  # open-model prompt formats run the prompting loop
        mode = "prompt"
        name = getattr(backend, "run_name", name)
    chosen = generation_categories(config.category_names(), mode)
    backend = cached_backend(backend, name, config, from_registry=isinstance(model, str),
                             endpoints=[served_identity(serve)] if serve is not None else None)
    folder = run_folder_name(name, mode, config.name)
    cases = _load_cases(chosen, config, data_root, selection)
    return Prepared(backend, name, folder, cases, serve, mode)


def generate_prepared(prepared: Prepared, config: RunConfig) -> GenerateReport:
    """Run a prepared generation (the command line prepares first, to report setup errors
    before anything is written)."""
    return _generate(prepared, config)


def scored_categories(report: GenerateReport) -> list[str]:
    """The generated categories that are scored (not memory prerequisites)."""
    return [job.category.name for job in report.jobs if not job.category.prerequisite]


def _generate(prepared: Prepared, config: RunConfig) -> GenerateReport:
    from fcbench.layout import serve_log_path
    from fcbench.models.registry import key_variable
    from fcbench.runner.generate import GenerateSettings, RetryPolicy
    from fcbench.runner.generate import generate as run_generation
    from fcbench.runner.preflight import check_backend, has_pending, key_hint
    from fcbench.runner.serve import serving

    model_dir = Path(config.result_dir) / prepared.folder
    check_configuration(prepared, config, model_dir)
    services = web_services(prepared, config, model_dir)
    settings = GenerateSettings(
        mode=prepared.mode, release=config.release_name, data_dir=config.data_path,
        model_name=prepared.model_name, concurrency=config.concurrency,
        policy=RetryPolicy(max_attempts=config.max_attempts,
                           max_retry_after=config.max_retry_wait),
        max_rps=config.max_rps, stop_after=config.stop_after,
        describe_run=(lambda: describe_web(services, model_dir)) if services else None,
    )
    chosen = [category for category, _ in prepared.cases]
    rerun = failed_ids(config, prepared.folder, chosen) if config.rerun_failed else None
    pending = has_pending(model_dir, prepared.cases, rerun=rerun, overwrite=config.overwrite)
    if pending:  # a finished run is re-scored without the encoder's weights
        check_embeddings(prepared)
    with contextlib.ExitStack() as stack:
        if services is not None:
            from fcbench.envs.web_search import use

            stack.enter_context(use(services))
        if prepared.serve is not None and pending:
            stack.enter_context(serving(prepared.serve, serve_log_path(model_dir)))
        if config.preflight and pending:
            with key_hint(key_variable(config.backend, config.api_key_env)):
                check_backend(prepared.backend)
        report = run_generation(
            prepared.backend, model_dir, prepared.cases, settings,
            rerun=rerun, overwrite=config.overwrite, progress=config.progress,
        )
    if report.stopped:
        raise RunStopped(report)
    return report


def describe_web(services: Any, model_dir: Path) -> dict[str, Any]:
    """The manifest's `web_search` entry at the end of a run: who answered, counts, failed
    calls by reason, and the cases still errored by a failed tool in the folder; the run is
    comparable only while none remains (the next run asks them again)."""
    described: dict[str, Any] = services.describe()
    remaining = tool_failed_cases(model_dir)
    described["failed_cases"] = remaining
    described["comparable"] = bool(described.get("comparable")) and not remaining
    return {"web_search": described}


def tool_failed_cases(model_dir: Path) -> int:
    """Cases of the folder's web-search result files recorded as errored by a failed tool."""
    from fcbench.core import categories
    from fcbench.layout import result_path
    from fcbench.runner.conversation import TOOL_FAILED

    count = 0
    for name in categories.WEB_SEARCH:
        try:
            lines = result_path(model_dir, name).read_text(encoding="utf-8").splitlines()
        except OSError:
            continue
        for line in lines:
            try:
                entry = json.loads(line)
            except ValueError:
                continue
            if isinstance(entry, dict) and str(entry.get("error", "")).startswith(TOOL_FAILED):
                count += 1
    return count


def check_configuration(prepared: Prepared, config: RunConfig, model_dir: Path) -> None:
    """A folder holds one configuration's results: resuming it with another model, sampling,
    format, mode or release is refused (ManifestError) before anything is asked or written
    (`results.manifest.check_resumable`); `overwrite` starts the chosen categories afresh."""
    if config.overwrite:
        return
    from fcbench.dataset.custom import run_identity
    from fcbench.results.manifest import check_resumable

    names = [category.name for category, _ in prepared.cases]
    check_resumable(model_dir, model=prepared.model_name, mode=config.mode,
                    backend=prepared.backend,
                    dataset=run_identity(config.release_name, config.data_path, names))


def check_embeddings(prepared: Prepared) -> None:
    """memory_vector embeds with all-MiniLM-L6-v2: a missing extra or missing weights fail
    before the first case (ValueError saying what to install), not case by case. The ground
    truth too: its calls run in the same memory environment."""
    if not any(c.name == "memory_vector" and cases for c, cases in prepared.cases):
        return
    from fcbench.envs.memory.embedding import load_encoder
    from fcbench.envs.memory.weights import EmbeddingUnavailable

    try:
        load_encoder()
    except EmbeddingUnavailable as exc:
        raise ValueError(f"memory_vector: {exc}") from None


def web_services(prepared: Prepared, config: RunConfig, model_dir: Path) -> Any:
    """The web-search services of a run that asks web-search cases of a real model (the
    ground truth never searches), checked before the first case (ValueError: why not)."""
    from fcbench.core import categories
    from fcbench.models.registry import GROUND_TRUTH

    wanted = any(c.name in categories.WEB_SEARCH and cases for c, cases in prepared.cases)
    if not wanted or prepared.backend.name == GROUND_TRUTH:
        return None
    from fcbench.envs.web_search import WebSearchError, create
    from fcbench.layout import web_record_dir

    record = config.web_record if config.web_record is not None else web_record_dir(model_dir)
    options: dict[str, Any] = {}
    if config.web_provider == "serpapi":
        options["max_wait"] = config.serpapi_max_wait
        if config.serpapi_endpoint:
            options["endpoint"] = config.serpapi_endpoint
            redact.add_secrets_of_url(config.serpapi_endpoint)
    try:
        services = create(config.web_provider, record,
                          allow_private=config.web_allow_private, **options)
        services.check()
    except WebSearchError as exc:
        raise ValueError(f"web search: {exc}") from None
    return services


# --------------------------------------------------------------------------- pieces


def make_backend(model: ModelLike, config: RunConfig) -> tuple[Backend, str]:
    """(backend, model name) for a name, a Backend, or a function."""
    from fcbench.models.base import Backend as BackendProtocol
    from fcbench.models.callable import CallableBackend
    from fcbench.models.limits import megabytes
    from fcbench.models.registry import (
        BACKENDS,
        GROUND_TRUTH,
        BackendOptions,
        BackendSetupError,
        api_key,
        create,
        key_variable,
    )

    if isinstance(model, BackendProtocol):
        return model, model.name
    if not isinstance(model, str):
        wrapped = CallableBackend(model)
        return wrapped, wrapped.name
    backend_name = GROUND_TRUTH if model == GROUND_TRUTH else config.backend
    if config.prompt_format and backend_name == "openai":
        backend_name = "completions"
    spec = BACKENDS.get(backend_name)
    urls = tuple(config.base_urls)
    variable = key_variable(backend_name, config.api_key_env)
    redact.add_variable(variable)  # a key named by --api-key-env is masked like the others
    for url in urls:
        redact.add_secrets_of_url(url)
    if config.api_key_env and not api_key(spec or BACKENDS["openai"], config.api_key_env):
        raise BackendSetupError(f"--api-key-env {config.api_key_env}: the variable is not set")
    options = BackendOptions(
        model, config.mode, urls, api_key(spec, config.api_key_env) if spec else None,
        sampling_of(config), config.timeout, config.output_format, config.concurrency,
        Path(config.model_path) if config.model_path is not None else None,
        key_variable=variable if backend_name != GROUND_TRUTH else None,
        prompt_format=config.prompt_format,
        max_reply_bytes=megabytes(config.max_reply_mb),
    )
    return create(backend_name, options), model


def sampling_of(config: RunConfig) -> Sampling:
    return Sampling(config.temperature, config.top_p, config.max_tokens,
                    dict(config.extra_body or {}), config.model_seed)


def cached_backend(
    backend: Backend, name: str, config: RunConfig, *, from_registry: bool,
    endpoints: Sequence[str] | None = None,
) -> Backend:
    """The backend behind the response cache as `config.cache` and `config.cache_scope`
    say (ValueError when the cache file cannot be opened); `endpoints` identify the server
    in the key instead of the backend's URLs (a server the run starts)."""
    from fcbench.runner.cache import CacheError
    from fcbench.runner.cached import CacheSettings, cache_mode, with_cache

    folder = Path(config.cache_dir) if config.cache_dir is not None else None
    try:
        settings = CacheSettings(cache_mode(config.cache), folder, config.cache_scope)
        return with_cache(backend, name, settings, sampling=sampling_of(config),
                          from_registry=from_registry, endpoints=endpoints)
    except CacheError as exc:
        raise ValueError(str(exc)) from None


def served_identity(plan: ServePlan) -> str:
    """A server the run starts, as the cache knows it: its command with the port it got
    this time written `{port}`, so that every run of one command shares cache entries."""
    import shlex
    from urllib.parse import urlsplit

    port = str(urlsplit(plan.base_url).port or "")
    words = [word.replace(port, "{port}") if port else word for word in plan.command]
    return f"serve:{shlex.join(words)}"


def generation_categories(names: Sequence[str] | str, mode: Mode = "fc") -> list[Category]:
    """The chosen categories that can be generated in `mode` (ValueError when none can)."""
    from fcbench.core import categories

    chosen = categories.resolve([names] if isinstance(names, str) else list(names))
    if not chosen:
        raise ValueError("--categories names no category (it is empty)")
    supported = [c for c in chosen if can_generate(c, mode)]
    if not supported:
        skipped = ", ".join(c.name for c in chosen)
        note = " (format_sensitivity is asked in prompt mode only: --mode prompt)" if any(
            c.name == "format_sensitivity" for c in chosen) else ""
        raise ValueError(f"no category that fcbench can generate yet among: {skipped}{note}")
    return supported


def can_generate(category: Category, mode: Mode = "fc") -> bool:
    """Whether a run asks models `category` in `mode`: its checker kind says
    (`check.registry.can_generate`)."""
    from fcbench.check import registry

    return registry.can_generate(category, mode)


def _load_cases(
    chosen: Sequence[Category], config: RunConfig, data_root: Path | None, selection: Selection
) -> list[tuple[Category, list[TestCase]]]:
    """Each category's cases, in the order upstream schedules them: memory prerequisite
    conversations first, then web search, single-turn, multi-turn, memory questions (which
    wait for their scenario's prerequisites); in a smoke run only the selected cases and
    what they depend on (`dataset.selection.select_run`)."""
    from fcbench.core import categories
    from fcbench.dataset.load import load_category
    from fcbench.runner.agentic import question_dependencies

    loaded: list[tuple[Category, list[TestCase]]] = []
    for category in chosen:
        cases = load_category(category, config.release_name, data_root)
        prerequisites = categories.prerequisites(category)
        if prerequisites is not None:
            before = load_category(prerequisites, config.release_name, data_root)
            loaded.append((prerequisites, before))
            cases = question_dependencies(cases, before)
        loaded.append((category, cases))
    ordered = sorted(loaded, key=lambda item: _schedule_rank(item[0]))
    return select_run(ordered, selection) if selection.active else ordered


def _schedule_rank(category: Category) -> int:
    from fcbench.core import categories

    if category.prerequisite:
        return 0
    if category.name in categories.WEB_SEARCH:
        return 1
    if category.name in categories.MEMORY:
        return 4
    return 3 if category.group == "multi_turn" else 2


def failed_ids(config: RunConfig, folder: str, chosen: Sequence[Category]) -> dict[str, set[str]]:
    """Ids of the cases the last evaluation judged wrong (listed in the score files)."""
    failed: dict[str, set[str]] = {}
    for category in chosen:
        path = score_path(Path(config.score_dir), folder, category)
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


def mode_of(text: str) -> Mode:
    return "fc" if text == "fc" else "prompt"
