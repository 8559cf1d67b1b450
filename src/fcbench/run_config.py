"""The options of `fcbench.run` / `fcbench.generate` (and of the `run` and `generate`
commands, whose flags have the same names): `RunOptions` for callers' type checkers,
`RunConfig` with the defaults, and what follows from them (release, data folders, selection,
the categories chosen). Kept apart from `pipeline` so that the option list, which grows with
every feature, does not bury the flow.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any, Literal, TypedDict

from fcbench.dataset.custom import DataDirs
from fcbench.dataset.selection import Selection
from fcbench.models.base import DEFAULT_TEMPERATURE
from fcbench.models.limits import DEFAULT_MAX_REPLY_BYTES
from fcbench.runner.failures import DEFAULT_STOP_AFTER
from fcbench.runner.generate import ProgressSink

__all__ = ["RunConfig", "RunOptions"]


class RunOptions(TypedDict, total=False):
    """The options of `generate` and `run` (the command line's flags, by the same names)."""

    categories: Sequence[str] | str | None
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
    output_format: str | None
    prompt_format: str | None
    concurrency: int
    timeout: float
    max_reply_mb: float
    max_attempts: int
    max_rps: float | None
    rerun_failed: bool
    overwrite: bool
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
    stop_after: int
    max_retry_wait: float
    limit: int | None
    sample: int | None
    seed: int | None
    ids: Sequence[str] | str | None
    serve: str | None
    serve_cmd: str | None
    serve_args: str | None
    tool_call_parser: str | None
    serve_timeout: float
    cache: Literal["auto", "always", "off"] | None
    cache_dir: str | Path | None
    cache_scope: Literal["endpoint", "model"]


@dataclass
class RunConfig:
    """`RunOptions` with their defaults (`RunConfig.of(options)` checks the names)."""

    categories: Sequence[str] | str | None = None
    """Categories or collections; None: single_turn, the categories of `ids`, or those of the
    custom datasets among `data_dir` when there are any."""
    mode: Literal["fc", "prompt"] = "fc"
    backend: str = "openai"
    base_url: Sequence[str] | str = ()
    name: str | None = None
    api_key_env: str | None = None
    result_dir: str | Path = "result"
    score_dir: str | Path = "score"
    temperature: float | None = DEFAULT_TEMPERATURE
    top_p: float | None = None
    max_tokens: int | None = None
    extra_body: dict[str, Any] | None = None
    model_seed: int | None = None
    """The generation seed sent where the backend takes one (`models.base.Sampling.seed`);
    not `seed`, which picks `--sample`'s cases."""
    output_format: str | None = None
    prompt_format: str | None = None
    """An official open-model prompt format (`models.families`): implies the `completions`
    backend and prompt mode."""
    concurrency: int = 8
    timeout: float = 300.0
    """Seconds for one whole request to an endpoint, the reply read to its end."""
    max_reply_mb: float = DEFAULT_MAX_REPLY_BYTES / 1_000_000
    """The cap on one reply's body in MB (`models.limits`): a larger one is a retried error."""
    max_attempts: int = 8
    max_rps: float | None = None
    rerun_failed: bool = False
    overwrite: bool = False
    release: str | None = None
    data_dir: DataDirs = None
    """A folder laid out like the official data/, and/or custom datasets (`fcbench.json`)."""
    model_path: str | Path | None = None
    web_provider: str = "serpapi"
    """Who answers web searches: serpapi (the official; SERPAPI_API_KEY), ddgs (keyless),
    replay (from `web_record`)."""
    web_record: str | Path | None = None
    """Where searches and fetched pages are recorded (default: the model folder's
    `agentic/web_record`), and what `replay` serves from."""
    web_allow_private: bool = False
    """Fetch pages on loopback, private and link-local addresses too (a local mirror); by
    default a model's `fetch_url_content` of such a page is refused (`envs.web_search.guard`)."""
    serpapi_max_wait: float = 600.0
    serpapi_endpoint: str | None = None
    """Another SerpAPI host (a proxy); default https://serpapi.com."""
    exec_backend: str = "offline"
    """Who answers the executable categories' web-service calls when scoring: offline,
    replay (from `exec_replay_dir`) or live (recording into `exec_replay_dir` if given)."""
    exec_replay_dir: str | Path | None = None
    progress: ProgressSink | None = field(default=None, repr=False)
    preflight: bool = True
    """Check each endpoint (reachable, key, model) before the first case."""
    stop_after: int = DEFAULT_STOP_AFTER
    """Stop when the first this-many cases all failed alike (0: never)."""
    max_retry_wait: float = 300.0
    """The longest Retry-After honoured, in seconds."""
    limit: int | None = None
    sample: int | None = None
    seed: int | None = None
    ids: Sequence[str] | str | None = None
    """Smoke runs (`dataset.selection`): first N, a seeded random N, or these ids."""
    serve: str | None = None
    """Start this engine (vllm, sglang) for the run (`runner.serve`)."""
    serve_cmd: str | None = None
    serve_args: str | None = None
    tool_call_parser: str | None = None
    serve_timeout: float = 900.0
    cache: Literal["auto", "always", "off"] | None = None
    """The response cache (`runner.cached`): auto, always, off; None: `$FCBENCH_CACHE`,
    else auto."""
    cache_dir: str | Path | None = None
    cache_scope: Literal["endpoint", "model"] = "endpoint"
    """Whose replies the cache serves (`runner.cached`): this run's endpoints' (the
    default), or any endpoint's under the model name (`model`: endpoints declared
    interchangeable)."""

    @classmethod
    def of(cls, options: dict[str, Any]) -> RunConfig:
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(options) - known)
        if unknown:
            raise TypeError(f"unknown option(s): {', '.join(unknown)}")
        return cls(**options)

    @property
    def release_name(self) -> str:
        from fcbench.dataset.fetch import DEFAULT_RELEASE

        return self.release or DEFAULT_RELEASE

    @property
    def data_path(self) -> Path | None:
        """The official-layout folder among `data_dir`; custom datasets there are registered
        (DataError when one cannot be read)."""
        from fcbench.dataset.custom import use_data_dirs

        return use_data_dirs(self.data_dir)

    @property
    def exec_replay_path(self) -> Path | None:
        return Path(self.exec_replay_dir) if self.exec_replay_dir is not None else None

    @property
    def base_urls(self) -> list[str]:
        return [self.base_url] if isinstance(self.base_url, str) else list(self.base_url)

    @property
    def selection(self) -> Selection:
        """Which cases of each category (SelectionError when the options clash)."""
        return Selection.of(self.limit, self.sample, self.seed, self.ids)

    def category_names(self) -> Sequence[str] | str:
        """The categories chosen; by default those of `ids`, else the custom datasets among
        `data_dir`, else single_turn."""
        if self.categories is not None:
            return self.categories
        selection = self.selection
        if selection.ids is not None:
            return [c.name for c in selection.categories()]
        from fcbench.dataset.custom import datasets_in

        return [dataset.name for dataset in datasets_in(self.data_dir)] or ["single_turn"]
