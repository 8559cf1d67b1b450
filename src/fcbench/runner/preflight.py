"""Before the first case: is there anything to ask, and can the backend answer?

`check_backend` runs the backend's own `preflight` (see `models.preflight`) in an event loop
of its own, before the model folder is locked, its manifest written or any result touched, so
that a run that cannot succeed leaves everything as it was. `has_pending` says whether a
run would ask anything at all: a finished run started again (to re-score it, say) must not
fail because the endpoint has gone away since.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import Iterator, Sequence
from pathlib import Path

from fcbench.core.categories import Category
from fcbench.core.model import TestCase
from fcbench.layout import result_path
from fcbench.models.base import Backend, PreflightError, SupportsPreflight, unwrapped
from fcbench.results.store import to_ask_again


def check_backend(backend: Backend) -> None:
    """The backend's preflight (PreflightError with the cause); nothing for backends that
    have none."""
    target = unwrapped(backend)
    if isinstance(target, SupportsPreflight):
        asyncio.run(target.preflight())


@contextlib.contextmanager
def key_hint(variable: str | None) -> Iterator[None]:
    """A refused key's PreflightError, completed with the variable the key comes from."""
    try:
        yield
    except PreflightError as exc:
        if exc.kind != "auth" or not variable:
            raise
        state = "set" if os.environ.get(variable) else "unset"
        raise PreflightError(f"{exc}; the key is read from {variable} ({state})",
                             exc.kind) from None


def has_pending(
    model_dir: Path,
    cases_by_category: Sequence[tuple[Category, list[TestCase]]],
    *,
    rerun: dict[str, set[str]] | None = None,
    overwrite: bool = False,
    retry_permanent: bool = False,
) -> bool:
    """Whether the run would ask at least one case (read-only: no file is repaired here)."""
    if overwrite:
        return any(cases for _, cases in cases_by_category)
    for category, cases in cases_by_category:
        again = (rerun or {}).get(category.name, set())
        finished = _finished_ids(result_path(model_dir, category), retry_permanent)
        if any(c.id not in finished or c.id in again for c in cases):
            return True
    return False


def _finished_ids(path: Path, retry_permanent: bool = False) -> set[str]:
    try:
        lines = path.read_bytes().split(b"\n")
    except OSError:
        return set()
    finished: set[str] = set()
    for line in lines:
        try:
            entry = json.loads(line)
        except ValueError:
            continue
        if (isinstance(entry, dict) and isinstance(entry.get("id"), str)
                and not to_ask_again(entry, retry_permanent)):
            finished.add(entry["id"])
    return finished
