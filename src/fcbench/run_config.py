"""The configuration of `fcbench.run` / `fcbench.generate` (and of the `run` and `generate`
commands): one frozen `RunConfig` made of small frozen sections, each handed whole to the
stage that uses it (the endpoint to the backend factory, `sampling` to every request,
`retries` to the scheduler, `serve` to `runner.serve.plan_server`, `cache` to
`runner.cached.with_cache`, `web_search` to the search services, `exec` to the executable
checker, `output` to the result folders), and each default written once, here or in the
section's own module. The command line's defaults are read from `DEFAULTS`.

Callers keep passing flat keywords (`fcbench.run(model, concurrency=4, cache="off")`):
`RunConfig.of` maps each to its section (`OPTIONS`), and a misspelt one is a TypeError.
`RunOptions` lists them for type checkers. Kept apart from `pipeline` so that the option
list, which grows with every feature, does not bury the flow.
"""

from __future__ import annotations

import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any, Literal, TypedDict

from fcbench.core.defaults import EXEC_BACKEND, RESULT_DIR, SCORE_DIR
from fcbench.dataset.custom import DataDirs
from fcbench.dataset.selection import Selection
from fcbench.dataset.shards import Shard
from fcbench.models.base import Mode, Sampling
from fcbench.models.limits import DEFAULT_CONCURRENCY, DEFAULT_MAX_REPLY_BYTES, DEFAULT_TIMEOUT
from fcbench.runner.batch import DEFAULT_POLL as DEFAULT_BATCH_POLL
from fcbench.runner.batch import DEFAULT_TIMEOUT as DEFAULT_BATCH_TIMEOUT
from fcbench.runner.cached import CacheSettings
from fcbench.runner.failures import DEFAULT_STOP_AFTER
from fcbench.runner.generate import ProgressSink
from fcbench.runner.health import DEFAULT_DOWN_AFTER
from fcbench.runner.retry import RetryPolicy
from fcbench.runner.serve import ServeOptions

__all__ = [
    "DEFAULTS",
    "OPTIONS",
    "EndpointConfig",
    "ExecConfig",
    "OutputConfig",
    "RetryConfig",
    "RunConfig",
    "RunOptions",
    "SelectionConfig",
    "WebSearchConfig",
]


class RunOptions(TypedDict, total=False):
    """The flat keywords of `generate` and `run` (the command line's flags, same names)."""

    categories: Sequence[str] | str | None
    exclude: Sequence[str] | str | None
    mode: Literal["fc", "prompt"]
    backend: str
    base_url: Sequence[str] | str
    name: str | None
    api_key_env: str | None
    result_dir: str | Path
    score_dir: str | Path
    temperature: float | None
    top_p: float | None
    max_tokens: int | None
    extra_body: dict[str, Any] | None
    model_seed: int | None
    tool_call_format: str | None
    output_format: str | None
    """Deprecated name of `tool_call_format` (warns)."""
    prompt_format: str | None
    concurrency: int
    timeout: float
    max_reply_mb: float
    max_attempts: int
    max_rps: float | None
    rerun_failed: bool
    retry_permanent: bool
    overwrite: bool
    repeats: int
    release: str | None
    data_dir: DataDirs
    model_path: str | Path | None
    web_provider: str
    web_record: str | Path | None
    web_allow_private: bool
    serpapi_max_wait: float
    serpapi_endpoint: str | None
    exec_backend: str
    exec_replay_dir: str | Path | None
    progress: ProgressSink | None
    preflight: bool
    batch: bool
    batch_poll: float
    batch_timeout: float
    stop_after: int
    down_after: float
    max_retry_wait: float
    limit: int | None
    sample: int | None
    seed: int | None
    ids: Sequence[str] | str | None
    shard: Shard | str | None
    """`K/N`, `auto` or `auto/N` (`dataset.shards`), or a `Shard`."""
    serve: str | None
    serve_cmd: str | None
    serve_args: str | None
    tool_call_parser: str | None
    serve_timeout: float
    tensor_parallel: int | None
    pipeline_parallel: int | None
    data_parallel: int | None
    serve_nodes: int | None
    serve_dist_init_addr: str | None
    cache: Literal["auto", "always", "off"] | None
    cache_dir: str | Path | None
    cache_scope: Literal["endpoint", "model"]


@dataclass(frozen=True)
class EndpointConfig:
    """Who answers and how it is asked: the backend factory's section (`models.registry`)."""

    backend: str = "openai"
    base_url: tuple[str, ...] = ()
    """OpenAI-compatible base URLs (replicas); empty: `$OPENAI_BASE_URL`."""
    api_key_env: str | None = None
    model_path: Path | None = None
    mode: Mode = "fc"
    """fc (tools) or prompt (the benchmark's system prompt)."""
    prompt_format: str | None = None
    """An official open-model prompt format (`models.families`): implies the `completions`
    backend and prompt mode."""
    tool_call_format: str | None = None
    """FC mode: the convention of tool calls a model writes as text (`decode.tool_call_formats`)."""
    timeout: float = DEFAULT_TIMEOUT
    """Seconds for one whole request to an endpoint, the reply read to its end."""
    max_reply_mb: float = DEFAULT_MAX_REPLY_BYTES / 1_000_000
    """The cap on one reply's body in MB (`models.limits`): a larger one is a retried error."""

    def __post_init__(self) -> None:
        """Each base URL checked when the configuration is made (`models.urls`): a bad port,
        scheme or host is a one-line ValueError here, not a traceback at the first
        connection."""
        from fcbench.models.urls import check_base_url

        urls = (self.base_url,) if isinstance(self.base_url, str) else self.base_url
        for url in urls:
            check_base_url(url, "base_url")


@dataclass(frozen=True)
class SelectionConfig:
    """Which cases: categories, the dataset they come from, and a smoke run's subset."""

    categories: Sequence[str] | str | None = None
    """Categories or collections; None: single_turn, the categories of `ids`, or those of the
    custom datasets among `data_dir` when there are any. A `-name` entry leaves a category or
    collection out (`all,-web_search`; only `-name` entries: `all` minus those)."""
    exclude: Sequence[str] | str | None = None
    """Categories or collections left out of `categories` (or of the default)."""
    release: str | None = None
    data_dir: DataDirs = None
    """A folder laid out like the official data/, and/or custom datasets (`fcbench.json`)."""
    limit: int | None = None
    sample: int | None = None
    seed: int | None = None
    """The seed of `sample` (not the model's: that is `Sampling.seed`)."""
    ids: Sequence[str] | str | None = None
    shard: Shard | None = None
    """Ask one shard of the cases (`dataset.shards`), into a folder of its own."""

    @property
    def cases(self) -> Selection:
        """Which cases of each category (SelectionError when the options clash)."""
        return Selection.of(self.limit, self.sample, self.seed, self.ids)


@dataclass(frozen=True)
class RetryConfig:
    """Retries and rates: the scheduler's section (`runner.generate`, `runner.retry`)."""

    concurrency: int = DEFAULT_CONCURRENCY
    max_attempts: int = RetryPolicy.max_attempts
    max_retry_wait: float = RetryPolicy.max_retry_after
    """The longest Retry-After honoured, in seconds."""
    max_rps: float | None = None
    stop_after: int = DEFAULT_STOP_AFTER
    """Stop when the first this-many cases all failed alike (0: never)."""
    down_after: float = DEFAULT_DOWN_AFTER
    """Seconds an endpoint may fail without one answer (refused, DNS, TLS, timeouts,
    401/403/404, 5xx) before it is set aside; the run stops when every endpoint is
    (`runner.health`; 0: never)."""
    preflight: bool = True
    """Check each endpoint (reachable, key, model) before the first case."""
    batch: bool = False
    """Ask single-request cases through the provider's batch API (`runner.batch`)."""
    batch_poll: float = DEFAULT_BATCH_POLL
    """Seconds between two questions about a batch's progress."""
    batch_timeout: float = DEFAULT_BATCH_TIMEOUT
    """Seconds of waiting for batches after which the run stops (a rerun picks them up)."""

    @property
    def policy(self) -> RetryPolicy:
        return RetryPolicy(max_attempts=self.max_attempts, max_retry_after=self.max_retry_wait)


@dataclass(frozen=True)
class WebSearchConfig:
    """The agentic web-search tools' section (`envs.web_search`)."""

    provider: str = "serpapi"
    """Who answers web searches: serpapi (the official; SERPAPI_API_KEY), ddgs (keyless),
    replay (from `record`)."""
    record: Path | None = None
    """Where searches and fetched pages are recorded (default: the model folder's
    `agentic/web_record`), and what `replay` serves from."""
    allow_private: bool = False
    """Fetch pages on loopback, private and link-local addresses too (a local mirror)."""
    serpapi_max_wait: float = 600.0
    serpapi_endpoint: str | None = None
    """Another SerpAPI host (a proxy); default https://serpapi.com."""


@dataclass(frozen=True)
class ExecConfig:
    """Scoring the executable categories (`check.exec_backends`)."""

    backend: str = EXEC_BACKEND
    """Who answers their web-service calls: offline, replay (from `replay_dir`) or live
    (recording into `replay_dir` if given)."""
    replay_dir: Path | None = None


@dataclass(frozen=True)
class OutputConfig:
    """Where results and scores go, and what happens to what is already there."""

    result_dir: Path = RESULT_DIR
    score_dir: Path = SCORE_DIR
    """Where scores go (and `rerun_failed` reads them)."""
    name: str | None = None
    """The result folder's name (default: the model, with -FC in FC mode)."""
    overwrite: bool = False
    rerun_failed: bool = False
    retry_permanent: bool = False
    """Ask again the cases recorded with a final error (their prompt does not fit the
    context, ...), which a resume otherwise keeps as failed."""
    progress: ProgressSink | None = field(default=None, repr=False, compare=False)
    repeats: int = 1
    """Ask every case this many times (`--repeats`): repeat i goes to the folder
    `<name>.repeat-<i>`, seeded with the model seed + i - 1; `pipeline.repeat_plan`."""

    def __post_init__(self) -> None:
        if not isinstance(self.repeats, int) or self.repeats < 1:
            raise ValueError(f"repeats must be a whole number >= 1, not {self.repeats!r}")


@dataclass(frozen=True)
class RunConfig:
    """A run's whole configuration, by section (`RunConfig.of(options)` from flat keywords)."""

    endpoint: EndpointConfig = field(default_factory=EndpointConfig)
    selection: SelectionConfig = field(default_factory=SelectionConfig)
    sampling: Sampling = field(default_factory=Sampling)
    retries: RetryConfig = field(default_factory=RetryConfig)
    serve: ServeOptions = field(default_factory=ServeOptions)
    cache: CacheSettings = field(default_factory=CacheSettings)
    web_search: WebSearchConfig = field(default_factory=WebSearchConfig)
    exec: ExecConfig = field(default_factory=ExecConfig)
    output: OutputConfig = field(default_factory=OutputConfig)

    @classmethod
    def of(cls, options: Mapping[str, Any]) -> RunConfig:
        """The configuration of flat keywords (TypeError naming any unknown one)."""
        options = _renamed_deprecated(dict(options))
        unknown = sorted(set(options) - set(OPTIONS))
        if unknown:
            raise TypeError(f"unknown option(s): {', '.join(unknown)}")
        by_section: dict[str, dict[str, Any]] = {}
        for option, value in options.items():
            section, name = OPTIONS[option]
            by_section.setdefault(section, {})[name] = _normalized(option, value)
        return replace(DEFAULTS, **{
            section: replace(getattr(DEFAULTS, section), **values)
            for section, values in by_section.items()
        })

    @property
    def release_name(self) -> str:
        from fcbench.dataset.fetch import DEFAULT_RELEASE

        return self.selection.release or DEFAULT_RELEASE

    def option(self, name: str) -> Any:
        """The value of a flat keyword (`config.option("cache")`), for displays and tests."""
        section, field_name = OPTIONS[name]
        return getattr(getattr(self, section), field_name)


_RENAMED: dict[str, tuple[str, str]] = {
    "model_seed": ("sampling", "seed"),
    "serve": ("serve", "engine"),
    "serve_cmd": ("serve", "command"),
    "serve_args": ("serve", "extra_args"),
    "tool_call_parser": ("serve", "parser"),
    "serve_timeout": ("serve", "start_timeout"),
    "serve_nodes": ("serve", "nodes"),
    "serve_dist_init_addr": ("serve", "dist_init_addr"),
    "cache": ("cache", "policy"),
    "cache_dir": ("cache", "folder"),
    "cache_scope": ("cache", "scope"),
    "web_provider": ("web_search", "provider"),
    "web_record": ("web_search", "record"),
    "web_allow_private": ("web_search", "allow_private"),
    "exec_backend": ("exec", "backend"),
    "exec_replay_dir": ("exec", "replay_dir"),
}
"""Flat keywords whose section field has another name (the flag keeps its prefix, which the
section makes redundant)."""

_DEPRECATED = {"output_format": "tool_call_format"}
"""Old keyword -> its name now (accepted with a DeprecationWarning)."""


def _options() -> dict[str, tuple[str, str]]:
    """Every flat keyword -> (section, field): a section's field by its own name unless
    `_RENAMED` says otherwise."""
    table: dict[str, tuple[str, str]] = {}
    renamed = {target: option for option, target in _RENAMED.items()}
    for section in fields(RunConfig):
        section_type = type(getattr(RunConfig(), section.name))
        for item in fields(section_type):
            target = (section.name, item.name)
            table[renamed.get(target, item.name)] = target
    return table


def _renamed_deprecated(options: dict[str, Any]) -> dict[str, Any]:
    for old, new in _DEPRECATED.items():
        if old in options:
            warnings.warn(f"the option {old!r} is now {new!r}", DeprecationWarning,
                          stacklevel=4)
            value = options.pop(old)
            options.setdefault(new, value)
    return options


_PATHS = frozenset({"result_dir", "score_dir", "model_path", "cache_dir", "web_record",
                    "exec_replay_dir"})


def _normalized(option: str, value: Any) -> Any:
    """A flat keyword's value in its section's type (paths as Path, URLs as a tuple)."""
    if option in _PATHS and value is not None:
        return Path(value)
    if option == "base_url":
        return (value,) if isinstance(value, str) else tuple(value)
    if option == "extra_body":
        return dict(value or {})
    if option == "shard" and isinstance(value, str):
        import os

        from fcbench.dataset.shards import parse_shard

        return parse_shard(value, os.environ)
    return value


DEFAULTS = RunConfig()
"""Every default of a run, once (the command line's flags read theirs from here)."""

OPTIONS = _options()
"""The flat keywords of `fcbench.run` -> (section, field)."""
