"""`fcbench data ...`: fetch the official BFCL data and list what it holds.

Only click is imported at module level so that `fcbench --help` stays fast; the data layer and
rich are imported inside the commands.
"""

from __future__ import annotations

from pathlib import Path

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
    from fcbench.dataset.fetch import (
        DEFAULT_RELEASE,
        DataError,
        fetch,
        is_fetched,
        release_dir,
        wheel_release,
    )

    if release is None:
        inferred = wheel_release(source) if source is not None and source.is_file() else None
        release = inferred or DEFAULT_RELEASE
    try:
        if not force and is_fetched(release):
            click.echo(f"bfcl-eval {release} data already present in {release_dir(release)}")
            return
        path = fetch(release, source, force=force)
    except DataError as exc:
        raise click.ClickException(str(exc)) from None
    click.echo(f"bfcl-eval {release} data installed in {path}")


@data.command("list")
@click.option("--release", default=None, help="Release whose fetched data to count.")
def list_command(release: str | None) -> None:
    """Every category with its size, group and checker, then the named collections."""
    from rich.console import Console
    from rich.table import Table

    from fcbench.dataset import categories
    from fcbench.dataset.fetch import DEFAULT_RELEASE, DataError, release_dir
    from fcbench.dataset.load import dataset_size

    release = release or DEFAULT_RELEASE
    console = Console()
    if not console.is_terminal:  # piped or captured: don't squeeze the tables to 80 columns
        console = Console(width=120)
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
                cases = str(dataset_size(cat, release))
            except DataError as exc:
                cases = "?"
                click.echo(f"warning: {cat.name}: {exc}", err=True)
        retired = "yes" if cat.retired else ""
        table.add_row(cat.name, cases, cat.release, cat.group, cat.checker, retired)
    console.print(table)

    collections = Table(title="Collections (usable wherever a category name is)")
    collections.add_column("collection", no_wrap=True, min_width=11)
    collections.add_column("categories")
    for name, members in categories.COLLECTIONS.items():
        collections.add_row(name, ", ".join(members))
    console.print(collections)
