"""`fcbench export`: a score folder's results in a format other tools read.

Flags and file writing only; the documents are made in `fcbench.export`. The file is written
atomically (a failed export never leaves half a file); errors are one `fcbench: error:` line.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import NoReturn

import click

from fcbench.cli.flags import RegistryChoice

_DIR = click.Path(path_type=Path)


def _fail(message: str) -> NoReturn:
    click.echo(f"fcbench: error: {message}", err=True)
    sys.exit(2)


@click.command()
@click.argument("score_dirs", nargs=-1, required=True, type=_DIR, metavar="SCORE_DIR...")
@click.option("--format", "format_name", type=RegistryChoice("fcbench.export:EXPORTERS"),
              default="fcbench", show_default=True, help="The format written.")
@click.option("-o", "--output", type=_DIR, default=Path("-"), show_default=True,
              help="The file written ('-': standard output); a folder (not ending in .json) "
              "for the formats with samples: every-eval-ever's datastore files, inspect's "
              "logs.")
@click.option("--model", default=None,
              help="The model exported, by name or folder name (needed by one-model formats "
              "when there are several); a --repeats run's folder exports every repeat "
              "(every-eval-ever, inspect).")
@click.option("--result-dir", "result_dirs", type=_DIR, multiple=True,
              help="Where the results were generated: each model's model.json (its "
              "configuration), usage (cost, latency) and the answers samples show; "
              "repeatable.")
@click.option("--model-info", type=_DIR, default=None,
              help="Display names, organizations, licences (JSON, as for `leaderboard`).")
@click.option("--release", default=None, help="Dataset release (default: newest).")
@click.option("--data-dir", "data_dirs", type=_DIR, multiple=True,
              help="A dataset folder, or a custom dataset whose categories were scored.")
def export(score_dirs: tuple[Path, ...], format_name: str, output: Path, model: str | None,
           result_dirs: tuple[Path, ...], model_info: Path | None, release: str | None,
           data_dirs: tuple[Path, ...]) -> None:
    """Write the scores of SCORE_DIR (several are merged) as fcbench's results JSON
    (schema: docs/results-schema.md), an every_eval_ever log (with its samples into a
    folder), lm-eval results or Inspect logs (a folder)."""
    from fcbench.dataset.custom import use_data_dirs
    from fcbench.dataset.fetch import DEFAULT_RELEASE, DataError
    from fcbench.dataset.load import scoring_sizes
    from fcbench.export import ExportError, exporter, model_folders, writes_files
    from fcbench.export.cases import CaseSource
    from fcbench.export.results import build
    from fcbench.report.known_models import official_model_info
    from fcbench.report.leaderboard import LeaderboardError, read_model_info

    chosen = release or DEFAULT_RELEASE
    try:
        data_root = use_data_dirs(data_dirs)
        facts = official_model_info(
            chosen, lambda line: click.echo(f"fcbench: warning: {line}", err=True))
        info = read_model_info(model_info, fallback=facts) if model_info else facts
        document = build(list(score_dirs), scoring_sizes(chosen, data_root), release=chosen,
                         result_dirs=list(result_dirs),
                         models=model_folders(score_dirs, model), model_info=info)
        chosen_format = exporter(format_name)
        if getattr(chosen_format, "FILES_ONLY", False) and str(output) == "-":
            raise ExportError(f"--format {format_name} writes files: give a folder with -o DIR")
        if writes_files(chosen_format, str(output)):
            source = CaseSource(list(score_dirs), list(result_dirs), chosen, data_root)
            tree = chosen_format.files(document, model, source)  # type: ignore[attr-defined]
        else:
            exported = chosen_format.export(document, model)
    except (DataError, ExportError, LeaderboardError, OSError, ValueError) as exc:
        _fail(str(exc))
    if writes_files(chosen_format, str(output)):
        for problem in source.problems:
            click.echo(f"fcbench: warning: {problem}", err=True)
        _write_tree(tree, output)
    else:
        _write(exported, output)


def _write_tree(files: dict[str, str], folder: Path) -> None:
    """Each file under the folder, atomically, secrets masked as in `_write` (a file
    written before a failure stays: each is whole, and the next export writes new names)."""
    from fcbench import redact
    from fcbench._atomic import replace_file

    for name, text in files.items():
        path = folder / name
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            replace_file(path, redact.values(text).encode("utf-8"))  # export.cases.file_text
        except OSError as exc:
            _fail(f"{path}: cannot write ({exc.strerror or exc})")
    click.echo(f"wrote {len(files)} file(s) under {folder}", err=True)


def _write(document: object, output: Path) -> None:
    """The JSON text to stdout or atomically to the file (secrets masked like every sink)."""
    from fcbench import redact
    from fcbench._json import dumps_total

    text = redact.values(dumps_total(document, indent=2) + "\n")  # any value a case holds
    if str(output) == "-":
        click.echo(text, nl=False)
        return
    from fcbench._atomic import replace_file

    try:
        replace_file(output, text.encode("utf-8", errors="surrogateescape"))
    except OSError as exc:
        _fail(f"{output}: cannot write ({exc.strerror or exc})")
    click.echo(f"wrote {output}", err=True)
