"""`fcbench merge SHARD_FOLDERS... --into FOLDER`: flags and what is shown; the merge is
`results.merge`'s. Exit status: 0 when every case of the run is finished in the merged
folder, 1 when some are missing or errored (the folder is written all the same: a resume into
it asks them), 2 when the shards are refused (nothing written)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

import click

_DIR = click.Path(path_type=Path)
SHOWN_IDS = 10


@click.command()
@click.argument("shard_folders", nargs=-1, required=True, type=_DIR, metavar="SHARD_FOLDER...")
@click.option("--into", type=_DIR, required=True,
              help="The merged result folder, e.g. results/MODEL (evaluate, report and "
                   "compare read it as a run's); what it holds already is kept.")
def merge(shard_folders: tuple[Path, ...], into: Path) -> None:
    """Put the shards of a run (--shard K/N) back into one result folder."""
    from fcbench.results.merge import MergeError
    from fcbench.results.merge import merge as merge_shards

    try:
        report = merge_shards(list(shard_folders), into)
    except (MergeError, OSError) as exc:
        click.echo(f"fcbench: error: {exc}", err=True)
        sys.exit(2)
    click.echo(f"{into}: merged shard(s) {', '.join(report.shards)} of {report.count}: "
               f"{report.written} case(s) written", err=True)
    _listed("duplicated (written by two shards; a finished entry kept, the owning "
            "shard's first)", report.duplicated)
    _listed("recorded as errors (a resume into the folder asks them again)", report.errored)
    _listed("conflicting files (the first shard's kept)", report.conflicts)
    _listed("missing (in a shard's list, in no result file)", report.missing)
    if report.absent_shards:
        shown = ", ".join(f"{i}/{report.count}" for i in report.absent_shards)
        click.echo(f"shard(s) not given: {shown} ({report.unlisted} case(s) missing)", err=True)
    if not report.complete:
        click.echo(f"fcbench: error: the merged folder lacks cases; run the missing shards "
                   f"and merge again, or resume into it: fcbench generate ... --result-dir "
                   f"{into.parent} --name {into.name}", err=True)
        sys.exit(1)


def _listed(what: str, ids: Sequence[str]) -> None:
    if not ids:
        return
    shown = ", ".join(ids[:SHOWN_IDS]) + (", ..." if len(ids) > SHOWN_IDS else "")
    click.echo(f"{len(ids)} case(s) {what}: {shown}", err=True)
