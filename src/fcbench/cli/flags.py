"""Flag groups several commands share: smoke-run selection (`run`, `generate`, `evaluate`),
how a run fails fast and shows its progress, the server a run may start, and the HTML report
after scoring. Each group is
one decorator; the flags' names are the library's option names (`fcbench.run_config.RunConfig`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from fcbench.corrections import PROFILES as _CORRECTION_PROFILES

if TYPE_CHECKING:
    from fcbench.dataset.custom import DataDirs
    from fcbench.evaluation import Evaluation

Decorator = Callable[[Callable[..., Any]], Callable[..., Any]]

# The ranges numeric flags accept, defined once: a value outside is a one-line usage error
# when the flags are parsed, before anything is asked (a `--timeout 0` would otherwise reach
# the preflight, which then blames the server).
POSITIVE = click.FloatRange(min=0, min_open=True)
"""Seconds and rates: timeouts, waits that must pass, requests per second."""
NON_NEGATIVE = click.FloatRange(min=0)
"""Temperatures and waits that may be zero."""
PROBABILITY = click.FloatRange(min=0, max=1, min_open=True)
"""top-p: 0 < p <= 1."""
AT_LEAST_ONE = click.IntRange(min=1)
"""Counts of things that must happen at least once: tokens, workers, attempts."""


def _apply(decorators: list[Decorator]) -> Decorator:
    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return decorate


selection_options = _apply([
    click.option("--limit", type=int, default=None,
                 help="Smoke run: the first N cases of each category (scores marked partial)."),
    click.option("--sample", type=int, default=None,
                 help="Smoke run: a random N cases of each category, the same for the same "
                      "--seed (scores marked partial)."),
    click.option("--seed", type=int, default=None, help="The seed of --sample (default 0)."),
    click.option("--ids", default=None,
                 help="Only these test ids, comma-separated (default categories: theirs)."),
])
"""`--limit`, `--sample`/`--seed`, `--ids` (see `dataset.selection`)."""


run_control_options = _apply([
    click.option("--no-preflight", "no_preflight", is_flag=True,
                 help="Skip the check (endpoint reachable, key accepted, model served) made "
                      "before the first case."),
    click.option("--stop-after", "stop_after", type=click.IntRange(0), default=20,
                 show_default=True,
                 help="Stop when the first N finished cases all failed with the same error "
                      "(0: never)."),
    click.option("--max-retry-wait", type=NON_NEGATIVE, default=300.0,
                 show_default=True,
                 help="The longest wait (s) a server's Retry-After is honoured for."),
    click.option("--progress-interval", type=click.FloatRange(0.1), default=15.0,
                 show_default=True,
                 help="Seconds between progress lines when stderr is not a terminal."),
])
"""Fail fast and say why (`runner.preflight`, `runner.failures`, `runner.progress`)."""


serve_options = _apply([
    click.option("--serve", type=click.Choice(["vllm", "sglang"]), default=None,
                 help="Start this engine (your install) for the run, with tool calling on, "
                      "and stop it at the end; its log goes to the result folder."),
    click.option("--serve-cmd", default=None,
                 help='Start any OpenAI-compatible server command for the run, e.g. '
                      '"llama-server -m m.gguf --jinja --port {port}" ({port}: a free port '
                      "fcbench picks; {model}: --model)."),
    click.option("--serve-args", default=None,
                 help="More arguments for the --serve engine, e.g. '--max-model-len 8192'."),
    click.option("--tool-call-parser", default=None,
                 help="--serve: the engine's tool-call parser (default: from the model family)."),
    click.option("--serve-timeout", type=click.FloatRange(1), default=900.0, show_default=True,
                 help="Seconds the server may take to start answering."),
])
"""A local server for the run (`runner.serve`)."""


def _use_corrections(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str:
    """Set the process's corrections profile as soon as the flag is read, so every backend,
    environment and checker built later (and every forked worker) sees it."""
    from fcbench import corrections

    corrections.use_profile(value)
    return corrections.active_profile()


corrections_option = click.option(
    "--corrections", type=click.Choice(sorted(_CORRECTION_PROFILES)), default=None,
    expose_value=False, callback=_use_corrections, is_eager=True,
    help="Apply a named set of pending upstream fixes (community-2026: empty tool_calls read "
         "as text #1316/#1328/#1348/#1351, memory #1327/#1347, ground-truth enums "
         "#1329/#1330). Default: none, byte-faithful to bfcl-eval 2026.3.23.")
"""`--corrections NAME` (see `fcbench.corrections`); recorded in model.json and score headers."""


report_option = click.option(
    "--no-report", is_flag=True, default=False,
    help="Do not write report.html next to the score files (the HTML report; `fcbench "
         "report` writes it later from the same files).",
)


def write_html_report(score_dir: Path, result_dir: Path | None, release: str | None,
                      data_dir: DataDirs, evaluation: Evaluation | None = None) -> None:
    """After `run` / `evaluate`: `score_dir/report.html`; a report that cannot be made is one
    line on stderr, never a failed run (the scores are already written). `evaluation`: the
    one that just wrote `score_dir`, judged with `report_cases` (not read back)."""
    from fcbench.dataset.custom import use_data_dirs
    from fcbench.report.html import report_after_run

    report_after_run(score_dir, result_dir, release=release, data_dir=use_data_dirs(data_dir),
                     note=lambda line: click.echo(line, err=True), evaluation=evaluation)
