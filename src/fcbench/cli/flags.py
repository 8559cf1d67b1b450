"""What several commands share: the value ranges of numeric flags, smoke-run selection
(`run`, `generate`, `evaluate`), the corrections profile, the HTML report after scoring, and
`GroupedCommand`, whose `--help` lists the flags by section (`grouped` marks them). Each
flag group is one decorator; the flags' names are the library's option names
(`fcbench.run_config.OPTIONS`).
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

if TYPE_CHECKING:
    from fcbench.dataset.custom import DataDirs
    from fcbench.evaluation import Evaluation

    _StrChoice = click.Choice[str]
else:
    _StrChoice = click.Choice  # generic only from click 8.2; the project takes click>=8.1

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


class RegistryChoice(_StrChoice):
    """A choice among a registry's names, read from the registry whenever the flag is parsed
    or shown, never at import: `fcbench --help` imports no registry, and a name registered
    at run time or by an installed plugin is offered like a built-in one.

    `source` is `module:attribute`, a function returning the names or a collection of them
    (a dict: its keys); `sort` shows them sorted instead of in registry order.
    """

    def __init__(self, source: str, *, sort: bool = False) -> None:
        self.source = source
        self.sort = sort
        self.case_sensitive = True

    @property
    def choices(self) -> tuple[str, ...]:
        module, _, attribute = self.source.partition(":")
        found = getattr(importlib.import_module(module), attribute)
        found_names: Iterable[Any] = found() if callable(found) else found
        listed = [str(name) for name in found_names]
        return tuple(sorted(listed) if self.sort else listed)

    @choices.setter
    def choices(self, names: Iterable[str]) -> None:
        raise AttributeError("a RegistryChoice's names are its registry's")


MODEL, SELECTION, SAMPLING, RUN_CONTROL, CACHE, SERVE, WEB_SEARCH, EXEC, OUTPUT = (
    "Model and endpoint", "Selection", "Sampling", "Run control", "Cache", "Serve",
    "Web search", "Exec", "Output")
RUN_GROUPS = (MODEL, SELECTION, SAMPLING, RUN_CONTROL, CACHE, SERVE, WEB_SEARCH, EXEC, OUTPUT)
"""The sections of `run --help` and `generate --help`, in order (the sections of
`fcbench.run_config.RunConfig`, told the way a user looks for a flag)."""


class GroupedOption(click.Option):
    """A flag that belongs to a section of `--help` (`GroupedCommand`)."""

    def __init__(self, *args: Any, group: str = "", **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.group = group


class GroupedCommand(click.Command):
    """A command whose `--help` lists the required flags first, then each section in the
    order of `groups`, then any flag of no section under "Other options"."""

    def __init__(self, *args: Any, groups: tuple[str, ...] = (), **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.groups = groups

    def format_options(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        sections: dict[str, list[tuple[str, str]]] = {"Required": []}
        sections.update({group: [] for group in self.groups})
        other: list[tuple[str, str]] = []
        for param in self.get_params(ctx):
            row = param.get_help_record(ctx)
            if row is None:
                continue
            if isinstance(param, click.Option) and param.required:
                sections["Required"].append(row)
            elif isinstance(param, GroupedOption) and param.group in sections:
                sections[param.group].append(row)
            else:
                other.append(row)
        sections["Other options"] = other
        for title, rows in sections.items():
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


def grouped(group: str) -> Callable[..., Decorator]:
    """`click.option` for flags listed under `group` in a `GroupedCommand`'s `--help`."""
    return functools.partial(click.option, cls=GroupedOption, group=group)


def _apply(decorators: list[Decorator]) -> Decorator:
    def decorate(func: Callable[..., Any]) -> Callable[..., Any]:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return decorate


_selection = grouped(SELECTION)

selection_options = _apply([
    _selection("--limit", type=int, default=None,
                 help="Smoke run: the first N cases of each category (scores marked partial)."),
    _selection("--sample", type=int, default=None,
                 help="Smoke run: a random N cases of each category, the same for the same "
                      "--seed (scores marked partial)."),
    _selection("--seed", type=int, default=None, help="The seed of --sample (default 0)."),
    _selection("--ids", default=None,
                 help="Only these test ids, comma-separated (default categories: theirs)."),
])
"""`--limit`, `--sample`/`--seed`, `--ids` (see `dataset.selection`)."""


def _use_corrections(_ctx: click.Context, _param: click.Parameter, value: str | None) -> str:
    """Set the process's corrections profile as soon as the flag is read, so every backend,
    environment and checker built later (and every forked worker) sees it."""
    from fcbench import corrections

    corrections.use_profile(value)
    return corrections.active_profile()


class ProfileChoice(RegistryChoice):
    """`--corrections`: one profile or several comma-separated (`community-2026,lenient-
    defaults`), each checked against the registry as a single choice is."""

    def convert(self, value: Any, param: click.Parameter | None, ctx: click.Context | None
                ) -> Any:
        parts = [part.strip() for part in str(value).split(",")]
        return ",".join(str(super(ProfileChoice, self).convert(part, param, ctx))
                        for part in parts)


corrections_option = grouped(RUN_CONTROL)(
    "--corrections", type=ProfileChoice("fcbench.corrections:PROFILES", sort=True), default=None,
    expose_value=False, callback=_use_corrections, is_eager=True,
    help="Apply named sets of fixes, comma-separated to combine (community-2026: pending "
         "upstream fixes, empty tool_calls read as text #1316/#1328/#1348/#1351, memory "
         "#1327/#1347, ground-truth enums #1329/#1330; lenient-defaults: an optional "
         "parameter given exactly its documented default counts as omitted). Default: none, "
         "byte-faithful to bfcl-eval 2026.3.23.")
"""`--corrections NAME` (see `fcbench.corrections`); recorded in model.json and score headers."""


report_option = grouped(OUTPUT)(
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
