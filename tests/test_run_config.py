"""The defaults a real run uses, pinned where they are defined (run_config.RunConfig), and the
places that repeat them (the `run` / `generate` flags, the retry policy, the failure stop, the
server start, the progress lines) checked against it, so that none drifts alone.
"""

from __future__ import annotations

from dataclasses import fields
from pathlib import Path
from typing import Any

import click
import pytest

from fcbench.cli import run as cli_run
from fcbench.models.base import DEFAULT_TEMPERATURE
from fcbench.run_config import RunConfig
from fcbench.runner import progress, serve
from fcbench.runner.failures import DEFAULT_STOP_AFTER
from fcbench.runner.retry import RetryPolicy

DEFAULT = RunConfig()


def test_the_defaults_of_a_real_run() -> None:
    assert (DEFAULT.mode, DEFAULT.backend, DEFAULT.temperature) == ("fc", "openai", 0.001)
    assert (DEFAULT.concurrency, DEFAULT.timeout, DEFAULT.max_attempts) == (8, 300.0, 8)
    assert (DEFAULT.max_retry_wait, DEFAULT.stop_after, DEFAULT.preflight) == (300.0, 20, True)
    assert (DEFAULT.max_rps, DEFAULT.top_p, DEFAULT.max_tokens) == (None, None, None)
    assert (DEFAULT.web_provider, DEFAULT.serpapi_max_wait) == ("serpapi", 600.0)
    assert (DEFAULT.exec_backend, DEFAULT.serve_timeout, DEFAULT.cache) == ("offline", 900.0,
                                                                           None)
    assert (str(DEFAULT.result_dir), str(DEFAULT.score_dir)) == ("result", "score")
    assert (DEFAULT.rerun_failed, DEFAULT.overwrite) == (False, False)


def test_defaults_repeated_elsewhere_are_the_run_config_ones() -> None:
    policy = RetryPolicy()
    assert DEFAULT.max_attempts == policy.max_attempts
    assert DEFAULT.max_retry_wait == policy.max_retry_after
    assert DEFAULT.temperature == DEFAULT_TEMPERATURE
    assert DEFAULT.stop_after == DEFAULT_STOP_AFTER
    assert DEFAULT.serve_timeout == serve.DEFAULT_START_TIMEOUT


def _flag_defaults(command: click.Command) -> dict[str, Any]:
    """What the command's flags hold when none is given (repeatable ones left out: they
    default to nothing, which RunConfig spells its own way)."""
    context = command.make_context(command.name, ["--model", "m"], resilient_parsing=True)
    repeatable = {p.name for p in command.params if getattr(p, "multiple", False)}
    return {name: value for name, value in context.params.items() if name not in repeatable}


@pytest.mark.parametrize("command", [cli_run.run, cli_run.generate], ids=["run", "generate"])
def test_every_flag_named_like_an_option_has_its_default(command: click.Command) -> None:
    flags = _flag_defaults(command)
    options = {option.name for option in fields(RunConfig)}
    shared = [name for name in flags if name in options]
    assert {"concurrency", "timeout", "max_attempts", "max_retry_wait", "stop_after",
            "temperature", "serve_timeout", "serpapi_max_wait"} <= set(shared)
    for name in shared:
        flag, option = flags[name], getattr(DEFAULT, name)
        if isinstance(flag, Path) or isinstance(option, Path):
            flag, option = str(flag), str(option)
        assert flag == option, name


@pytest.mark.parametrize("command", [cli_run.run, cli_run.generate], ids=["run", "generate"])
def test_the_progress_interval_flag_is_the_progress_default(command: click.Command) -> None:
    assert _flag_defaults(command)["progress_interval"] == progress.DEFAULT_INTERVAL == 15.0
