"""`fcbench cache stats|prune`: look into and trim the response cache (`runner/cache.py`).

Flags and display only. Only click is imported at module level (`fcbench --help` stays fast).
"""

from __future__ import annotations

import json
import sys
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, NoReturn

import click

if TYPE_CHECKING:
    from fcbench.runner.cache import ResponseCache

__all__ = ["cache"]

_cache_dir = click.option(
    "--cache-dir", type=click.Path(path_type=Path, file_okay=False), default=None,
    help="The cache folder (default: $FCBENCH_CACHE_DIR, else $FCBENCH_HOME/cache).",
)


def _fail(message: str) -> NoReturn:
    click.echo(f"fcbench: error: {message}", err=True)
    sys.exit(2)


def _open(folder: Path | None) -> ResponseCache:
    """The cache of that folder; one that does not exist yet is reported, not created."""
    from fcbench.layout import RESPONSE_CACHE_FILE
    from fcbench.runner.cache import CacheError, ResponseCache, default_cache_dir

    folder = folder or default_cache_dir()
    if not (folder / RESPONSE_CACHE_FILE).is_file():
        _fail(f"no response cache in {folder} (a run creates it; --cache-dir names another)")
    try:
        store = ResponseCache(folder)
    except CacheError as exc:
        _fail(str(exc))
    if store.dropped:
        click.echo(f"fcbench: {store.dropped} entries of an older cache format (replies as "
                   "read, not as received) dropped", err=True)
    return store


@click.group("cache")
def cache() -> None:
    """The response cache: model replies kept by request, so repeated runs cost nothing."""


@cache.command("stats")
@_cache_dir
@click.option("--json", "as_json", is_flag=True, help="Print the figures as JSON.")
def stats_command(cache_dir: Path | None, as_json: bool) -> None:
    """Entries, size, replies served, per backend and model."""
    with _open(cache_dir) as store:
        found = store.summary()
    if as_json:
        click.echo(json.dumps({
            "path": str(found.path), "size_bytes": found.size_bytes, "entries": found.entries,
            "hits": found.hits, "oldest": _when(found.oldest), "newest": _when(found.newest),
            "models": [{"backend": b, "model": m, "entries": n, "hits": h}
                       for b, m, n, h in found.by_model],
        }, indent=1))
        return
    click.echo(f"{found.path}: {found.entries} entries, {_mb(found.size_bytes)}, "
               f"{found.hits} replies served from it")
    if found.entries:
        click.echo(f"stored from {_when(found.oldest)} to {_when(found.newest)}")
    for backend, model, entries, hits in found.by_model:
        click.echo(f"  {backend:18s} {model:30s} {entries:8d} entries {hits:8d} hits")


@cache.command("prune")
@_cache_dir
@click.option("--older-than", "days", type=click.FloatRange(min=0), default=None,
              help="Entries not used for this many days.")
@click.option("--model", default=None, help="Entries of this endpoint model name.")
@click.option("--backend", default=None, help="Entries of this backend (e.g. openai-compatible).")
@click.option("--all", "everything", is_flag=True, help="Every entry.")
def prune_command(cache_dir: Path | None, days: float | None, model: str | None,
                  backend: str | None, everything: bool) -> None:
    """Delete entries (those matching every criterion given), then compact the file."""
    if not everything and days is None and model is None and backend is None:
        _fail("say what to prune: --older-than DAYS, --model NAME, --backend NAME or --all")
    with _open(cache_dir) as store:
        before = store.size_bytes()
        removed = store.prune(unused_for=None if days is None else days * 86400.0,
                              model=model, backend=backend)
        left = store.summary()
    click.echo(f"removed {removed} entries, {left.entries} left; {_mb(before)} -> "
               f"{_mb(left.size_bytes)}")


def _when(stamp: float | None) -> str | None:
    if stamp is None:
        return None
    return datetime.fromtimestamp(stamp, timezone.utc).isoformat(timespec="seconds")


def _mb(size: int) -> str:
    return f"{size / 1e6:.2f} MB"
