"""The `fcbench` command line. Heavy modules are imported inside commands: `--help` stays fast."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

import click

from fcbench import redact
from fcbench._version import __version__
from fcbench.cli.flags import (
    RegistryChoice,
    corrections_option,
    report_option,
    selection_options,
    write_html_report,
)
from fcbench.core.defaults import EXEC_BACKEND, RESULT_DIR

if TYPE_CHECKING:
    from fcbench.decode.encoding import Encoding

LAZY_COMMANDS: dict[str, tuple[str, str]] = {
    # name: (module:attribute, one-line help shown by `fcbench --help`)
    "cache": ("fcbench.cli.cache:cache", "Response cache: stats, prune."),
    "compare": ("fcbench.cli.report:compare", "Compare two scored runs: deltas, p-values, flips."),
    "data": ("fcbench.cli.data:data", "Fetch, list, validate and diff the BFCL data."),
    "export": ("fcbench.cli.export:export", "Scores as fcbench, every_eval_ever or lm-eval JSON."),
    "failures": ("fcbench.cli.report:failures", "A model's failed cases, in the terminal."),
    "generate": ("fcbench.cli.run:generate", "Ask a model every test case; write result files."),
    "leaderboard": ("fcbench.cli.report:leaderboard", "Official CSVs and a ranked table."),
    "merge": ("fcbench.cli.merge:merge", "Put the shards of a run back into one result folder."),
    "models": ("fcbench.cli.models:models", "Providers by name (provider/model), key variables."),
    "report": ("fcbench.cli.report:report", "A self-contained HTML report of score folders."),
    "run": ("fcbench.cli.run:run", "Generate, then evaluate, then print the scores."),
}


class LazyGroup(click.Group):
    """A group whose subcommands are imported only when used, so that `fcbench --help` and
    each command start without loading the others' dependencies."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted([*super().list_commands(ctx), *LAZY_COMMANDS])

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name not in LAZY_COMMANDS:
            return super().get_command(ctx, cmd_name)
        import importlib

        module, _, attribute = LAZY_COMMANDS[cmd_name][0].partition(":")
        command = getattr(importlib.import_module(module), attribute)
        assert isinstance(command, click.Command)
        return command

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = [(name, LAZY_COMMANDS[name][1]) for name in LAZY_COMMANDS]
        for name in super().list_commands(ctx):
            command = super().get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, command.get_short_help_str(limit=70)))
        with formatter.section("Commands"):
            formatter.write_dl(sorted(rows))

    def main(
        self,
        args: Sequence[str] | None = None,
        prog_name: str | None = None,
        complete_var: str | None = None,
        standalone_mode: bool = True,
        **extra: Any,
    ) -> Any:
        """Click's own errors (a bad flag, a missing argument) in fcbench's one style,
        `fcbench: error: ...` on one line, like every other error fcbench reports."""
        with redact.console():  # nothing the command prints shows a secret
            if not standalone_mode:
                return super().main(args, prog_name, complete_var, standalone_mode, **extra)
            try:
                code = super().main(args, prog_name, complete_var, False, **extra)
            except click.exceptions.Abort:
                click.echo("fcbench: error: aborted", err=True)
                sys.exit(1)
            except click.ClickException as exc:
                show_error(exc)
                sys.exit(exc.exit_code)
            except Exception as exc:  # the one exit path of what nothing caught
                click.echo(f"fcbench: error: {internal_error(exc)}", err=True)
                sys.exit(1)
            sys.exit(code if isinstance(code, int) else 0)


def internal_error(exc: BaseException) -> str:
    """An exception no command turned into an error of its own, as one line naming a log
    file that holds its traceback (with a worker process's, which `runner.forks` attaches):
    a traceback on the terminal tells a user nothing they can act on, and a lost one tells
    the maintainers nothing (issue 30). Both go through the redaction
    (`redact.format_exception`): the message of an HTTP library's error, a path or a URL on a
    source line may hold a key (issue 31)."""
    from fcbench._atomic import new_log

    try:
        log = str(new_log("fcbench-error-", redact.format_exception(exc)))
    except OSError as error:
        log = f"not written: {error}"
    first = str(exc).splitlines()[0] if str(exc).strip() else ""
    summary = " ".join(f"{type(exc).__name__}: {first}".split())[:300] if first else (
        type(exc).__name__)
    return f"internal error ({redact.text(summary)}); traceback in {redact.text(log)}"


def show_error(exc: click.ClickException) -> None:
    """One line: the message, and for a usage error the command's help to read."""
    message = exc.format_message().rstrip(".")
    context = getattr(exc, "ctx", None)
    if isinstance(exc, click.UsageError) and context is not None:
        message += f" (see: {context.command_path} --help)"
    click.echo(f"fcbench: error: {message}", err=True)


@click.group(cls=LazyGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="fcbench")
def main() -> None:
    """fcbench: measure how well a model calls functions (BFCL, faithfully and fast)."""


def _fail(message: str, status: int = 2) -> NoReturn:
    click.echo(f"fcbench: error: {message}", err=True)
    sys.exit(status)


@main.command()
@click.option(
    "--result-dir",
    type=click.Path(path_type=Path),
    default=RESULT_DIR,
    show_default=True,
    help="Folder of model result folders (or one model's folder).",
)
@click.option("--model", "models", multiple=True, help="Only these models (repeatable).")
@click.option(
    "--categories",
    "category_names",
    multiple=True,
    help="Categories or collections, comma-separated (default: every result file); -NAME "
    "leaves one out (-web_search alone: every result file but those).",
)
@click.option(
    "--exclude",
    "excluded",
    multiple=True,
    help="Categories or collections left out, comma-separated (of --categories, or of "
    "every result file).",
)
@click.option(
    "--score-dir",
    type=click.Path(path_type=Path),
    default=None,
    help="Write official score files and CSVs here (default: <result-dir>/../score).",
)
@click.option("--no-write", is_flag=True, help="Print the scores only; write no files.")
@click.option(
    "--mode",
    type=click.Choice(["fc", "prompt"]),
    default=None,
    help="Override model.json: how the outputs were produced.",
)
@click.option(
    "--fc-names",
    type=click.Choice(["underscore", "dot"]),
    default=None,
    help="Override model.json: dotted names were sent as underscores, or kept.",
)
@click.option(
    "--fc-args",
    type=click.Choice(["json_string", "object"]),
    default=None,
    help="Override model.json: FC arguments are JSON strings or objects.",
)
@click.option(
    "--output-format",
    type=RegistryChoice("fcbench.decode.families:names"),
    default=None,
    help="Override model.json: outputs of an official open-model handler's family, decoded "
    "by its own decode_ast / decode_execute (e.g. qwen-fc, llama-3.1, xlam-llama).",
)
@click.option("--release", default=None, help="Dataset release (default: the newest known).")
@click.option(
    "--data-dir",
    type=click.Path(path_type=Path, file_okay=False),
    multiple=True,
    help="A custom dataset (a folder with fcbench.json) whose categories are scored too, or "
    "a folder laid out like the official data/ used instead of the release; repeatable.",
)
@click.option(
    "--exec-backend",
    type=RegistryChoice("fcbench.envs.exec_functions.backends:BACKENDS"),
    default=EXEC_BACKEND,
    show_default=True,
    help="How executable categories' web-service calls are answered: not at all (those "
    "cases are skipped), from recorded responses, or over the network (keys from "
    "RAPID_API_KEY, GEOCODE_API_KEY, EXCHANGERATE_API_KEY, OMDB_API_KEY).",
)
@click.option(
    "--exec-replay-dir",
    type=click.Path(path_type=Path, file_okay=False),
    default=None,
    help="Recorded web-service responses: read by --exec-backend replay, written by live.",
)
@selection_options
@corrections_option
@report_option
def evaluate(
    result_dir: Path,
    models: tuple[str, ...],
    category_names: tuple[str, ...],
    excluded: tuple[str, ...],
    score_dir: Path | None,
    no_write: bool,
    mode: str | None,
    fc_names: str | None,
    fc_args: str | None,
    output_format: str | None,
    release: str | None,
    data_dir: tuple[Path, ...],
    exec_backend: str,
    exec_replay_dir: Path | None,
    limit: int | None,
    sample: int | None,
    seed: int | None,
    ids: str | None,
    no_report: bool,
) -> None:
    """Score result files against the official checkers and write score files."""
    from fcbench import api
    from fcbench.core import categories
    from fcbench.core.categories import UnknownCategoryError
    from fcbench.dataset.fetch import DataError
    from fcbench.dataset.selection import Selection, SelectionError
    from fcbench.decode.encoding import Encoding, EncodingError
    from fcbench.evaluation import EvaluationError

    try:
        selection = Selection.of(limit, sample, seed, ids)
        if selection.ids is not None and not category_names:
            category_names = tuple(c.name for c in selection.categories())
        category_names += tuple(categories.exclusions(excluded))
        _check_categories(category_names)
        encoding = None
        if output_format:
            encoding = _family_encoding(output_format, fc_names)
        elif mode or fc_names or fc_args:
            chosen = mode or "prompt"
            encoding = Encoding(
                chosen,
                fc_names or ("underscore" if chosen == "fc" else "dot"),
                fc_args or ("json_string" if chosen == "fc" else None),
            )
        if score_dir is None and not no_write:
            score_dir = result_dir.resolve().parent / "score"
        report = api.evaluate(
            result_dir,
            models=models,
            categories=category_names,
            score_dir=None if no_write else score_dir,
            encoding=encoding,
            release=release,
            data_dir=data_dir,
            keep_cases=False,
            report_cases=not no_report,
            echo=True,
            exec_backend=exec_backend,
            exec_replay_dir=exec_replay_dir,
            selection=selection,
        )
    except (DataError, EvaluationError, EncodingError, UnknownCategoryError,
            SelectionError) as exc:
        _fail(str(exc))
    if not report.models:
        _fail(f"nothing to score: no result files in {result_dir}", 1)
    if not api.scored(report):
        _fail("nothing was scored: no result file of the chosen categories (see the warnings "
              "above)", 1)
    if score_dir is not None and not no_write and not no_report:
        write_html_report(score_dir, result_dir, release, data_dir, report)
    if score_dir is not None and not no_write:  # runs scored as repeats: across them
        from fcbench.report.repeats import tables_of

        for line in tables_of(score_dir, report.models):
            click.echo(line)
    if selection.active:
        click.echo(f"Smoke run ({selection.describe()}): the scores cover the chosen cases "
                   "only and are marked partial (*).", err=True)


def _check_categories(names: Sequence[str]) -> None:
    """`--categories ''` is a mistake, not "every category"."""
    from fcbench.core import categories

    if names and not categories.resolve(names, everything=True):
        why = "every category named is left out" if categories.excludes(names) else "it is empty"
        _fail(f"--categories names no category ({why})")


def _family_encoding(output_format: str, fc_names: str | None) -> Encoding:
    """`--output-format FAMILY`: the family's decoders, names as its handler sends them."""
    import dataclasses

    from fcbench.models.families import output_encoding

    encoding = output_encoding(output_format)
    return dataclasses.replace(encoding, fc_names=fc_names) if fc_names else encoding

