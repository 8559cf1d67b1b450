"""`generate` and `run`: plan a run once, ask a model every case of some categories, then
(run) score it.

    import fcbench
    result = fcbench.run("Qwen/Qwen3-8B", base_url="http://localhost:8000/v1",
                         categories=["simple_python", "multi_turn_base"])
    result.models["Qwen/Qwen3-8B"].overall      # keyed by the name given
    result.folder                               # "Qwen_Qwen3-8B-FC", where the files went

`model` is a model name (served by the backend named by `backend`, default the
OpenAI-compatible one; `"ground-truth"` is the built-in self-check), a `Backend` instance, or a
plain function `fn(messages, tools) -> str | dict` (see `models.callable`). The options are the
command line's; results go to `<result_dir>/<folder>/...` with a `model.json` saying how they
are encoded, so they score the same whoever produced them.

The flow: `plan(model, config)` resolves everything once (custom datasets registered, the
categories, the server to start, the backend, the mode, the folder, the cases) into a
`RunPlan`; `execute_generation(plan)` and `execute_run(plan)` carry it out. `fcbench.run` and
the `run` command make the same two calls.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from fcbench import _json as fast_json
from fcbench import redact
from fcbench.core.categories import Category
from fcbench.core.model import TestCase
from fcbench.dataset.selection import Selection, select_run
from fcbench.evaluation.types import Evaluation, ModelEvaluation
from fcbench.layout import run_folder_name, score_path
from fcbench.models.base import Backend, Mode
from fcbench.run_config import RunConfig, RunOptions, SelectionConfig
from fcbench.runner.batch import BatchSettings
from fcbench.runner.generate import GenerateReport, GenerateSettings

if TYPE_CHECKING:
    from typing_extensions import Unpack

    from fcbench.check.exec_preflight import PreflightReport
    from fcbench.models.providers import Route
    from fcbench.runner.serve import ServePlan

ModelLike = str | Backend | Callable[..., Any]
"""A model name, a Backend, or a function `fn(messages, tools) -> str | dict`."""

Cases = list[tuple[Category, list[TestCase]]]
"""Each category to ask, with its cases, in the order they are asked."""


@dataclass(frozen=True)
class RunPlan:
    """A run resolved once, before anything is asked or written: what `execute_*` carry
    out and what every display reads (never the configuration again for these)."""

    config: RunConfig
    model: str
    """The name the user gave (the model name, the function's or Backend's name, or
    `name`): the key of `RunResult.models`."""
    model_name: str
    """The name the backend answers to, which labels environments and the manifest."""
    folder: str
    """The result folder's name below `result_dir` (`layout.run_folder_name`)."""
    backend: Backend
    mode: Mode
    """fc or prompt as resolved here (an open-model prompt format means prompt mode whatever
    `config.endpoint.mode` says)."""
    data_dir: Path | None
    """The official-layout data folder among `data_dir` (custom datasets registered)."""
    selection: Selection
    chosen: tuple[Category, ...]
    """The categories named, resolved (before keeping those `mode` can generate)."""
    cases: Cases
    serve: ServePlan | None = None
    """The server to start for the run, if any."""
    web_api_check: PreflightReport | None = None
    """With the live exec backend and an executable category: each web API asked once
    (what a person reads before the run; unhealthy ones open `RunResult.problems`)."""
    web_search: Any = None
    """The web-search services, checked, when a real model is asked web-search cases
    (`envs.web_search`); None otherwise."""
    shard_run: dict[str, Any] | None = None
    """With `--shard`: the shard's record (`dataset.shards.shard_run`), written to the
    folder's shard.json before the first case."""
    source: Any = None
    """The model as given to `plan` (name, Backend or function): each repeat of a
    `--repeats` run is planned again from it, with its own folder and seed."""
    repeat: int | None = None
    """This plan's repeat index (from 1) in a `--repeats` run; None for a plain run."""

    @property
    def model_dir(self) -> Path:
        return self.config.output.result_dir / self.folder

    @property
    def release(self) -> str:
        return self.config.release_name

    @property
    def categories(self) -> list[Category]:
        """The categories asked, prerequisites included, in order."""
        return [category for category, _ in self.cases]


@dataclass(frozen=True)
class GenerateResult:
    """What `generate` did, for the model under the name the user gave."""

    model: str
    folder: str
    """Where the result files are, below `result_dir` (the key of score files and CSVs)."""
    mode: Mode
    generation: GenerateReport

    @property
    def scored_categories(self) -> list[str]:
        """The generated categories that are scored (not memory prerequisites)."""
        return scored_categories(self.generation)


@dataclass(frozen=True)
class RunResult(GenerateResult):
    """What `run` did: the generation, then its evaluation."""

    evaluation: Evaluation
    web_api_problems: tuple[str, ...] = ()
    """The plan's web API check, when some API was not healthy."""

    @property
    def models(self) -> dict[str, ModelEvaluation]:
        """The scores, keyed by the name the user gave (empty when nothing was scored)."""
        scores = self.evaluation.models.get(self.folder)
        return {self.model: scores} if scores is not None else {}

    @property
    def problems(self) -> list[str]:
        """What went wrong around the scores (web APIs unreachable, files unreadable)."""
        return [*self.web_api_problems, *self.evaluation.problems]


class RunStopped(RuntimeError):
    """The run stopped before asking every case (the first cases all failed alike, or every
    endpoint stopped answering: `runner.health`); the report says how far it got and why."""

    def __init__(self, report: GenerateReport) -> None:
        super().__init__(f"stopped early: {report.stopped}")
        self.report = report


def generate(model: ModelLike, **options: Unpack[RunOptions]) -> GenerateResult:
    """Ask `model` every case of the chosen categories; resumable (finished cases are kept,
    errored ones asked again), crash-safe, writes result files and `model.json`."""
    return execute_generation(plan(model, RunConfig.of(options)))


def run(model: ModelLike, **options: Unpack[RunOptions]) -> RunResult:
    """`generate`, then score what was generated (score files and leaderboards written).

    With `exec_backend="live"` and an executable category chosen, each web API is checked
    once before anything is generated; missing keys and failing APIs open
    `RunResult.problems`."""
    return execute_run(plan(model, RunConfig.of(options)))


def execute_generation(planned: RunPlan) -> GenerateResult:
    """Carry out a plan's generation (RunStopped when the first cases all failed alike or
    every endpoint is down); with `repeats` > 1, each repeat's in turn."""
    if repeats_of(planned) > 1:
        plans = repeat_plans(planned)
        with served_once(planned, plans):
            done = tuple(execute_generation(each) for each in plans)
        return RepeatedGeneration(planned.model, planned.folder, planned.mode,
                                  done[-1].generation, done)
    return GenerateResult(planned.model, planned.folder, planned.mode, _generate(planned))


def execute_run(planned: RunPlan, *, report_cases: bool = False) -> RunResult:
    """Carry out a plan's generation, then score it (score files and leaderboards);
    `report_cases`: keep each category as the HTML report reads it (`api.evaluate`), so that
    a report written after the run reads nothing back."""
    from fcbench import api

    if repeats_of(planned) > 1:
        return _execute_repeats(planned, report_cases=report_cases)
    config = planned.config
    generated = execute_generation(planned)
    evaluation = api.evaluate(
        config.output.result_dir, models=[planned.folder],
        categories=generated.scored_categories, score_dir=config.output.score_dir,
        release=config.selection.release, data_dir=planned.data_dir,
        exec_backend=config.exec.backend, exec_replay_dir=config.exec.replay_dir,
        web_api_check=False, selection=planned.selection, report_cases=report_cases,
    )
    check = planned.web_api_check
    problems = tuple(check.lines()) if check is not None and not check.healthy else ()
    return RunResult(generated.model, generated.folder, generated.mode, generated.generation,
                     evaluation, problems)


# --------------------------------------------------------------------------- repeats


@dataclass(frozen=True)
class RepeatedGeneration(GenerateResult):
    """`generate` with `repeats`: each repeat's result, in order (`generation`: the last
    one's; `folder`: the run's, whose repeats are `<folder>.repeat-<i>`)."""

    repeats: tuple[GenerateResult, ...] = ()


@dataclass(frozen=True)
class RepeatedRun(RunResult):
    """`run` with `repeats`: each repeat's result, in order, and the statistics across
    them (`score_dir/<folder>.repeats.json`, `report.repeats`; None when not written).
    `generation` and `evaluation` are the last repeat's."""

    repeats: tuple[RunResult, ...] = ()
    statistics: dict[str, Any] | None = None


def repeats_of(planned: RunPlan) -> int:
    """How many repeats the plan stands for: 1 for a plain run and for one repeat."""
    return planned.config.output.repeats if planned.repeat is None else 1


def repeat_plans(planned: RunPlan) -> list[RunPlan]:
    """Every repeat of a `--repeats` plan, planned before the first is asked (a folder of
    another configuration is refused before anything is asked), on the plan's server."""
    return [repeat_plan(planned, index, planned.serve)
            for index in range(1, repeats_of(planned) + 1)]


def served_once(
    planned: RunPlan, plans: Sequence[RunPlan]
) -> contextlib.AbstractContextManager[Any]:
    """The plan's server (`--serve`, `--serve-cmd`), started once for all its repeats when
    one of them has a case to ask (its log in the first repeat's folder); nothing else."""
    from fcbench.layout import serve_log_path
    from fcbench.runner.serve import serving

    if planned.serve is None or not any(_pending(each)[1] for each in plans):
        return contextlib.nullcontext()
    return serving(planned.serve, serve_log_path(plans[0].model_dir))


def repeat_plan(planned: RunPlan, index: int, served: ServePlan | None = None) -> RunPlan:
    """Repeat `index` (from 1) of a `--repeats` plan: an ordinary run planned again, in
    folder `<folder>.repeat-<index>` (resumable and checked on its own), seeded with the
    base seed (`model_seed`, else 0) + index - 1 where the backend takes a seed, the index
    in its response-cache keys. `served`: the server every repeat is asked on (started by
    the caller, `served_once`: the plan returned starts none)."""
    from fcbench.layout import repeat_folder_name

    config = planned.config
    seed = (config.sampling.seed or 0) + index - 1
    if seed >= 2**63:
        raise ValueError(f"--model-seed + --repeats passes 2**63 - 1 (repeat {index})")
    output = replace(config.output, name=repeat_folder_name(planned.folder, index))
    source = planned.source if planned.source is not None else planned.backend
    repeated = plan(source, replace(config, output=output,
                                    sampling=replace(config.sampling, seed=seed)),
                    repeat=index, served=served)
    return repeated if served is None else replace(repeated, serve=None)


def _execute_repeats(planned: RunPlan, *, report_cases: bool) -> RepeatedRun:
    """Each repeat generated and scored in turn (a finished one is only scored again),
    then the statistics across them read back (`api.evaluate` writes them after every
    repeat's evaluation)."""
    from fcbench.report.repeats import read_repeats

    plans = repeat_plans(planned)
    with served_once(planned, plans):
        done = tuple(execute_run(each, report_cases=report_cases) for each in plans)
    statistics = read_repeats(planned.config.output.score_dir).get(planned.folder)
    last = done[-1]
    return RepeatedRun(planned.model, planned.folder, planned.mode, last.generation,
                       last.evaluation, last.web_api_problems, done, statistics)


def web_api_check(
    config: RunConfig, chosen: Sequence[Category], data_dir: Path | None = None
) -> PreflightReport | None:
    """The live preflight (each web API asked once), when the run scores executable
    categories with the live backend; None otherwise."""
    from fcbench.check.exec_preflight import check_web_apis, needs_web_apis

    if config.exec.backend != "live" or not needs_web_apis(chosen):
        return None
    return check_web_apis(config.release_name, data_dir, config.exec.replay_dir)


def plan(
    model: ModelLike, config: RunConfig, *, repeat: int | None = None,
    served: ServePlan | None = None,
) -> RunPlan:
    """Resolve a run once, before anything is asked or written: register the custom
    datasets, check the exec settings, resolve the categories, plan the server, build the
    backend, settle the mode, name the folder, load the cases, check the web APIs a live
    exec backend needs, refuse a folder of another configuration, open the web-search
    services (errors: ValueError and its kinds, DataError, ServeError, ManifestError).
    `repeat`: the plan is that repeat of a `--repeats` run (`repeat_plan`); `served`: the
    server to plan on instead of one of its own (the repeats share their run's)."""
    from fcbench.check.registry import JudgeSettings
    from fcbench.dataset.custom import use_data_dirs
    from fcbench.models.base import layout_of
    from fcbench.runner.serve import plan_server

    data_dir = use_data_dirs(config.selection.data_dir)  # custom datasets: names from here on
    JudgeSettings(config.release_name, exec_backend=config.exec.backend,
                  exec_replay_dir=config.exec.replay_dir).validate()
    selection = config.selection.cases
    chosen = resolved_categories(config.selection, selection)
    endpoint = config.endpoint
    given_model = model
    if isinstance(model, str) and (config.serve.engine or config.serve.command):
        model = model.removeprefix("vllm/")  # `vllm/X --serve vllm`: the started server serves X
    serve = served or plan_server(
        model if isinstance(model, str) else None, config.serve, backend=endpoint.backend,
        base_urls=endpoint.base_url, model_path=endpoint.model_path,
    )
    if serve is not None:
        config = replace(config, endpoint=replace(endpoint, base_url=(serve.base_url,)))
    backend, name = make_backend(model, config)
    given = config.output.name or (given_model if isinstance(given_model, str) else name)
    mode = endpoint.mode
    if layout_of(backend) is not None:  # open-model prompt formats run the prompting loop
        mode = "prompt"
        name = getattr(backend, "run_name", name)
    generated = generation_categories(chosen, mode)
    if repeat is not None or config.output.repeats == 1:  # a repeats plan asks nothing
        backend = cached_backend(
            backend, name, config, from_registry=isinstance(model, str),
            endpoints=[served_identity(serve)] if serve is not None else None, repeat=repeat)
    folder = run_folder_name(name, mode, config.output.name)
    cases = _load_cases(generated, config.release_name, data_dir, selection)
    shard, shard_run = config.selection.shard, None
    if shard is not None:
        from fcbench.dataset.shards import shard_run as record_of
        from fcbench.layout import shard_folder_name

        folder = shard_folder_name(folder, shard.index, shard.count)
        cases, shard_run = record_of(cases, shard, selection.describe())
    check = web_api_check(config, [category for category, _ in cases], data_dir)
    planned = RunPlan(config, given, name, folder, backend, mode, data_dir, selection,
                      tuple(chosen), cases, serve, check, shard_run=shard_run,
                      source=given_model, repeat=repeat)
    if repeat is None and config.output.repeats > 1:
        return planned  # each repeat is planned, checked and opened on its own
    check_configuration(planned)  # before the web record is opened
    return replace(planned, web_search=web_services(planned))


def resolved_categories(chosen: SelectionConfig, selection: Selection) -> list[Category]:
    """The categories named, resolved once (ValueError when none is named); by default
    those of `ids`, else the custom datasets among `data_dir`, else single_turn. `-name`
    entries leave categories out of those named (of `all` when only exclusions are named),
    `exclude` out of those named or of the default."""
    from fcbench.core import categories
    from fcbench.dataset.custom import datasets_in

    given = chosen.categories
    names = [given] if isinstance(given, str) else list(given or [])
    names += categories.exclusions(chosen.exclude)
    if given is None:
        default = ([c.name for c in selection.categories()] if selection.ids is not None
                   else [dataset.name for dataset in datasets_in(chosen.data_dir)]
                   or ["single_turn"])
        names = default + names
    resolved = categories.resolve(names)
    if not resolved:
        why = "every category named is left out" if categories.excludes(names) else "it is empty"
        raise ValueError(f"--categories names no category ({why})")
    return resolved


def scored_categories(report: GenerateReport) -> list[str]:
    """The generated categories that are scored (not memory prerequisites)."""
    return [job.category.name for job in report.jobs if not job.category.prerequisite]


def generation_settings(
    planned: RunPlan, describe_run: Callable[[], dict[str, Any]] | None
) -> GenerateSettings:
    """The scheduler's settings: the plan's mode and names, the retries section whole."""
    retries = planned.config.retries
    return GenerateSettings(
        mode=planned.mode, release=planned.release, data_dir=planned.data_dir,
        model_name=planned.model_name, concurrency=retries.concurrency,
        policy=retries.policy, max_rps=retries.max_rps, stop_after=retries.stop_after,
        down_after=retries.down_after, retry_permanent=planned.config.output.retry_permanent,
        describe_run=describe_run, shard=_shard_fields(planned),
        batch=BatchSettings(retries.batch_poll, retries.batch_timeout) if retries.batch else None,
    )


def _shard_fields(planned: RunPlan) -> dict[str, int] | None:
    """The manifest's `shard` entry (compared on resume), or None for a whole run."""
    run = planned.shard_run
    return {"index": run["index"], "count": run["count"]} if run is not None else None


def _generate(planned: RunPlan) -> GenerateReport:
    from fcbench.layout import serve_log_path
    from fcbench.runner.generate import generate as run_generation
    from fcbench.runner.preflight import check_backend, key_hint
    from fcbench.runner.serve import serving

    config, model_dir = planned.config, planned.model_dir
    output = config.output
    services = planned.web_search
    settings = generation_settings(
        planned, (lambda: describe_web(services, model_dir)) if services else None)
    rerun, pending = _pending(planned)
    if pending:  # a finished run is re-scored without the encoder's weights
        check_embeddings(planned.cases)
    if settings.batch is not None:  # refused before anything is written or asked
        from fcbench.runner.batch import check_batchable

        check_batchable(planned.backend)
    with contextlib.ExitStack() as stack:
        if services is not None:
            from fcbench.envs.web_search import use

            stack.enter_context(use(services))
        if planned.serve is not None and pending:
            stack.enter_context(serving(planned.serve, serve_log_path(model_dir)))
        if config.retries.preflight and pending:
            with key_hint(hinted_variable(planned)):
                check_backend(planned.backend)
        if planned.shard_run is not None:
            from fcbench.layout import shard_record_path
            from fcbench.results.store import write_json_atomic

            model_dir.mkdir(parents=True, exist_ok=True)
            write_json_atomic(shard_record_path(model_dir), planned.shard_run)
        report = run_generation(
            planned.backend, model_dir, planned.cases, settings,
            rerun=rerun, overwrite=output.overwrite, progress=output.progress,
        )
    if report.stopped:
        raise RunStopped(report)
    return report


def hinted_variable(planned: RunPlan) -> str | None:
    """The variable a refused key was read from: `--api-key-env`, else the provider's
    (`model.json`'s `provider`), else the backend's."""
    from fcbench.models.providers import PROVIDERS
    from fcbench.models.registry import key_variable

    endpoint = planned.config.endpoint
    provider = PROVIDERS.get(str(planned.backend.describe().get("provider")))
    if provider is not None:
        return endpoint.api_key_env or provider.key_variable
    return key_variable(endpoint.backend, endpoint.api_key_env)


def _pending(planned: RunPlan) -> tuple[dict[str, set[str]] | None, bool]:
    """(the cases `--rerun-failed` asks again, whether the plan has a case to ask)."""
    from fcbench.runner.preflight import has_pending

    output = planned.config.output
    rerun = (failed_ids(output.score_dir, planned.folder, planned.categories)
             if output.rerun_failed else None)
    return rerun, has_pending(planned.model_dir, planned.cases, rerun=rerun,
                              overwrite=output.overwrite, retry_permanent=output.retry_permanent)


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
            text = result_path(model_dir, name).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for line in text.split("\n"):  # not splitlines: U+2028 is text inside a line
            try:
                entry = fast_json.loads_numbers(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(entry, dict) and str(entry.get("error", "")).startswith(TOOL_FAILED):
                count += 1
    return count


def check_configuration(planned: RunPlan) -> None:
    """A folder holds one configuration's results: resuming it with another model, sampling,
    format, mode or release is refused (ManifestError) before anything is asked or written
    (`results.manifest.check_resumable`); `overwrite` starts the chosen categories afresh."""
    if planned.config.output.overwrite:
        return
    from fcbench.dataset.custom import run_identity
    from fcbench.results.manifest import check_resumable

    names = [category.name for category in planned.categories]
    check_resumable(planned.model_dir, model=planned.model_name, mode=planned.mode,
                    backend=planned.backend,
                    dataset=run_identity(planned.release, planned.data_dir, names),
                    shard=_shard_fields(planned))


def check_embeddings(cases: Cases) -> None:
    """memory_vector embeds with all-MiniLM-L6-v2: a missing extra or missing weights fail
    before the first case (ValueError saying what to install), not case by case. The ground
    truth too: its calls run in the same memory environment."""
    if not any(c.name == "memory_vector" and asked for c, asked in cases):
        return
    from fcbench.envs.memory.embedding import load_encoder
    from fcbench.envs.memory.weights import EmbeddingUnavailable

    try:
        load_encoder()
    except EmbeddingUnavailable as exc:
        raise ValueError(f"memory_vector: {exc}") from None


def web_services(planned: RunPlan) -> Any:
    """The web-search services of a run that asks web-search cases of a real model (the
    ground truth never searches), checked before the first case (ValueError: why not)."""
    from fcbench.core import categories
    from fcbench.models.registry import GROUND_TRUTH

    wanted = any(c.name in categories.WEB_SEARCH and cases for c, cases in planned.cases)
    if not wanted or planned.backend.name == GROUND_TRUTH:
        return None
    from fcbench.envs.web_search import WebSearchError, create
    from fcbench.layout import web_record_dir

    web = planned.config.web_search
    record = web.record if web.record is not None else web_record_dir(planned.model_dir)
    options: dict[str, Any] = {}
    if web.provider == "serpapi":
        options["max_wait"] = web.serpapi_max_wait
        if web.serpapi_endpoint:
            options["endpoint"] = web.serpapi_endpoint
            redact.add_secrets_of_url(web.serpapi_endpoint)
    try:
        services = create(web.provider, record, allow_private=web.allow_private, **options)
        services.check()
    except WebSearchError as exc:
        raise ValueError(f"web search: {exc}{_web_search_way_out(web.provider)}") from None
    return services


def _web_search_way_out(provider: str) -> str:
    """What else a run without the provider's key can do: a key-free provider (from the
    providers' registry), or leaving the web-search categories out."""
    from fcbench.envs.web_search.services import KEY_VARIABLES, PROVIDERS

    free = [name for name in PROVIDERS if name not in KEY_VARIABLES]
    other = (f"; or --web-provider {' / '.join(free)} (no key; scores not comparable with the "
             "leaderboard)" if provider in KEY_VARIABLES and free else "")
    return f"{other}; or leave web search out: --categories all,-web_search (--exclude web_search)"


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
    endpoint = config.endpoint
    backend_name = GROUND_TRUTH if model == GROUND_TRUTH else endpoint.backend
    route = provider_route(model, config)
    if route is not None:  # `mistral/mistral-large-latest`: the provider's backend and URL
        backend_name, endpoint = route.provider.backend, replace(
            endpoint, base_url=route.base_urls,
            api_key_env=endpoint.api_key_env or route.provider.key_variable)
    if endpoint.prompt_format and backend_name == "openai":
        backend_name = "completions"
    spec = BACKENDS.get(backend_name)
    variable = key_variable(backend_name, endpoint.api_key_env)
    redact.add_variable(variable)  # a key named by --api-key-env is masked like the others
    for url in endpoint.base_url:
        redact.add_secrets_of_url(url)
    named = config.endpoint.api_key_env  # as given: a provider's own variable may be unset
    if named and not api_key(spec or BACKENDS["openai"], named):
        raise BackendSetupError(f"--api-key-env {named}: the variable is not set")
    options = BackendOptions(
        route.model if route else model, endpoint.mode, endpoint.base_url,
        api_key(spec, endpoint.api_key_env) if spec else None,
        config.sampling, endpoint.timeout, endpoint.tool_call_format,
        config.retries.concurrency, endpoint.model_path,
        key_variable=variable if backend_name != GROUND_TRUTH else None,
        prompt_format=endpoint.prompt_format,
        max_reply_bytes=megabytes(endpoint.max_reply_mb),
        provider=route.provider.name if route else None,
    )
    return create(backend_name, options), route.model if route else model


def provider_route(model: str, config: RunConfig) -> Route | None:
    """`model` read as `provider/model` (`models.providers.resolve`), when it names one and
    neither `--base-url` (nor, for the default backend, `$OPENAI_BASE_URL`: a vLLM serving
    `google/gemma-3-27b-it` there is asked by that name, as before) nor `--prompt-format` says
    where it is served; BackendSetupError when the provider cannot do what the run asks
    (function calling)."""
    import os

    from fcbench.models.providers import resolve
    from fcbench.models.registry import BackendSetupError

    endpoint = config.endpoint
    if endpoint.prompt_format:
        return None
    given = tuple(endpoint.base_url)
    if not given and endpoint.backend == "openai" and os.environ.get("OPENAI_BASE_URL"):
        given = (os.environ["OPENAI_BASE_URL"],)
    route = resolve(model, endpoint.backend, given)
    if route is not None and endpoint.mode == "fc" and not route.provider.fc:
        raise BackendSetupError(f"{route.provider.name} offers no function calling: "
                                "--mode prompt")
    return route


def cached_backend(
    backend: Backend, name: str, config: RunConfig, *, from_registry: bool,
    endpoints: Sequence[str] | None = None, repeat: int | None = None,
) -> Backend:
    """The backend behind the response cache as the cache section says (ValueError when the
    cache file cannot be opened); `endpoints` identify the server in the key instead of the
    backend's URLs (a server the run starts)."""
    from fcbench.runner.cache import CacheError
    from fcbench.runner.cached import with_cache

    try:
        return with_cache(backend, name, config.cache, sampling=config.sampling,
                          from_registry=from_registry, endpoints=endpoints, repeat=repeat)
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


def generation_categories(chosen: Sequence[Category], mode: Mode = "fc") -> list[Category]:
    """The chosen categories that can be generated in `mode` (ValueError when none can)."""
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
    chosen: Sequence[Category], release: str, data_dir: Path | None, selection: Selection
) -> Cases:
    """Each category's cases, in the order upstream schedules them: memory prerequisite
    conversations first, then web search, single-turn, multi-turn, memory questions (which
    wait for their scenario's prerequisites); in a smoke run only the selected cases and
    what they depend on (`dataset.selection.select_run`)."""
    from fcbench.core import categories
    from fcbench.dataset.load import load_category
    from fcbench.runner.agentic import question_dependencies

    loaded: Cases = []
    for category in chosen:
        cases = load_category(category, release, data_dir)
        prerequisites = categories.prerequisites(category)
        if prerequisites is not None:
            before = load_category(prerequisites, release, data_dir)
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


def failed_ids(score_dir: Path, folder: str, chosen: Sequence[Category]) -> dict[str, set[str]]:
    """Ids of the cases the last evaluation judged wrong (listed in the score files)."""
    failed: dict[str, set[str]] = {}
    for category in chosen:
        path = score_path(score_dir, folder, category)
        if not path.is_file():
            continue
        ids: set[str] = set()
        for line in path.read_text(encoding="utf-8").split("\n")[1:]:  # U+2028 is text
            try:
                entry = fast_json.loads_numbers(line)
            except (ValueError, RecursionError):
                continue
            if isinstance(entry, dict) and isinstance(entry.get("id"), str):
                ids.add(entry["id"])
        failed[category.name] = ids
    return failed


def mode_of(text: str) -> Mode:
    return "fc" if text == "fc" else "prompt"
