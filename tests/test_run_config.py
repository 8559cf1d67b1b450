"""The defaults a real run uses, pinned where they are defined (run_config.RunConfig), and the
places that repeat them (the `run` / `generate` flags, the retry policy, the failure stop, the
server start, the progress lines) checked against it, so that none drifts alone.
"""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import click
import pytest

from fcbench.cli import run as cli_run
from fcbench.models.base import DEFAULT_TEMPERATURE, Sampling
from fcbench.models.limits import DEFAULT_CONCURRENCY, DEFAULT_TIMEOUT
from fcbench.models.registry import BackendOptions
from fcbench.run_config import DEFAULTS, OPTIONS, RunConfig
from fcbench.runner import progress, serve
from fcbench.runner.failures import DEFAULT_STOP_AFTER
from fcbench.runner.generate import GenerateSettings
from fcbench.runner.retry import RetryPolicy

DEFAULT = DEFAULTS


def test_the_defaults_of_a_real_run() -> None:
    endpoint, retries = DEFAULT.endpoint, DEFAULT.retries
    assert (endpoint.mode, endpoint.backend, DEFAULT.sampling.temperature) == (
        "fc", "openai", 0.001)
    assert (retries.concurrency, endpoint.timeout, retries.max_attempts) == (8, 300.0, 8)
    assert (retries.max_retry_wait, retries.stop_after, retries.preflight) == (300.0, 20, True)
    assert (retries.max_rps, DEFAULT.sampling.top_p, DEFAULT.sampling.max_tokens) == (
        None, None, None)
    assert (DEFAULT.web_search.provider, DEFAULT.web_search.serpapi_max_wait) == (
        "serpapi", 600.0)
    assert (DEFAULT.exec.backend, DEFAULT.serve.start_timeout, DEFAULT.cache.policy) == (
        "offline", 900.0, None)
    assert (str(DEFAULT.output.result_dir), str(DEFAULT.output.score_dir)) == ("result", "score")
    assert (DEFAULT.output.rerun_failed, DEFAULT.output.overwrite) == (False, False)


def test_defaults_repeated_elsewhere_are_the_run_config_ones() -> None:
    policy = RetryPolicy()
    assert DEFAULT.retries.max_attempts == policy.max_attempts
    assert DEFAULT.retries.max_retry_wait == policy.max_retry_after
    assert DEFAULT.sampling == Sampling()
    assert DEFAULT.sampling.temperature == DEFAULT_TEMPERATURE
    assert DEFAULT.retries.stop_after == DEFAULT_STOP_AFTER
    assert DEFAULT.serve.start_timeout == serve.DEFAULT_START_TIMEOUT
    backend = BackendOptions("m")
    assert DEFAULT.endpoint.timeout == backend.timeout == DEFAULT_TIMEOUT
    assert DEFAULT.retries.concurrency == backend.concurrency == DEFAULT_CONCURRENCY
    assert GenerateSettings(mode="fc").concurrency == DEFAULT_CONCURRENCY


def test_flat_keywords_land_in_their_sections() -> None:
    config = RunConfig.of({"concurrency": 3, "cache": "off", "cache_dir": "c", "model_seed": 7,
                           "serve_cmd": "x {port}", "exec_replay_dir": "r",
                           "base_url": "http://h/v1", "web_record": "w"})
    assert config.retries.concurrency == 3 and config.cache.policy == "off"
    assert config.cache.folder == Path("c") and config.sampling.seed == 7
    assert config.serve.command == "x {port}" and config.exec.replay_dir == Path("r")
    assert config.endpoint.base_url == ("http://h/v1",)
    assert config.web_search.record == Path("w")
    assert config.option("cache") == "off" and config.option("model_seed") == 7
    assert config.sampling.temperature == DEFAULT.sampling.temperature  # the rest: defaults


def test_a_misspelt_option_is_a_type_error_and_the_old_name_warns() -> None:
    with pytest.raises(TypeError, match=r"unknown option.*: concurency"):
        RunConfig.of({"concurency": 3})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = RunConfig.of({"output_format": "hermes"})
    assert config.endpoint.tool_call_format == "hermes"
    assert any("tool_call_format" in str(w.message) for w in caught)


def test_the_config_is_frozen() -> None:
    with pytest.raises(AttributeError):
        DEFAULT.retries.concurrency = 4  # type: ignore[misc]


def _flag_defaults(command: click.Command) -> dict[str, Any]:
    """What the command's flags hold when none is given (repeatable ones left out: they
    default to nothing, which RunConfig spells its own way). The app's help names are passed
    as the CLI group passes them: click caches a command's help option at its first context,
    and a bare `--help` cached here broke `run --help`'s listing in later tests."""
    context = command.make_context(command.name, ["--model", "m"], resilient_parsing=True,
                                   help_option_names=["-h", "--help"])
    repeatable = {p.name for p in command.params if getattr(p, "multiple", False)}
    return {name: value for name, value in context.params.items() if name not in repeatable}


@pytest.mark.parametrize("command", [cli_run.run, cli_run.generate], ids=["run", "generate"])
def test_every_flag_named_like_an_option_has_its_default(command: click.Command) -> None:
    flags = _flag_defaults(command)
    shared = [name for name in flags if name in OPTIONS]
    assert {"concurrency", "timeout", "max_attempts", "max_retry_wait", "stop_after",
            "temperature", "serve_timeout", "serpapi_max_wait", "cache_scope",
            "result_dir", "web_provider"} <= set(shared)
    assert flags["extra_body"] is None and DEFAULT.sampling.extra_body == {}  # JSON text
    for name in shared:
        flag, option = flags[name], DEFAULT.option(name)
        if name == "extra_body":
            continue
        if isinstance(flag, Path) or isinstance(option, Path):
            flag, option = str(flag), str(option)
        assert flag == option, name


@pytest.mark.parametrize("command", [cli_run.run, cli_run.generate], ids=["run", "generate"])
def test_the_progress_interval_flag_is_the_progress_default(command: click.Command) -> None:
    assert _flag_defaults(command)["progress_interval"] == progress.DEFAULT_INTERVAL == 15.0
