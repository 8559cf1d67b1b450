"""Defaults that several layers offer, each written once here: the command line's flags,
the library's keyword arguments and the settings objects behind them all read these, so a
default cannot drift between `fcbench evaluate`, `fcbench run` and `fcbench.evaluate`.
Kept on the ground floor and free of imports, so that reading one costs nothing (the
command line's group module reads them while `fcbench --help` is drawn).

The run's own defaults (sampling, retries, cache, serve, ...) are `run_config.DEFAULTS`;
the request deadline and concurrency are `models.limits`'."""

from __future__ import annotations

from pathlib import Path

RESULT_DIR = Path("result")
"""Where generation writes a model's result folder and evaluation looks for them."""

SCORE_DIR = Path("score")
"""Where a run writes score files, CSVs and the report."""

EXEC_BACKEND = "offline"
"""Who answers the executable categories' web-service calls when scoring: nobody (those
cases are skipped), so that scoring never reaches the network unless asked."""
