"""A cache of data derived from a fetched release, kept next to it (`<release>/derived/`).

Why: `evaluate` needs each category in a slim form (the docs' types, the possible answers,
the prompts as JSON text). Building it means parsing the whole category file, descriptions
and all, joining the answers and re-encoding every prompt: more time than judging some
categories. Stored with `marshal`, it loads in one call.

Safety: an entry's key holds, for every data file it was built from, the fetch-time sha256
and the file's size and modification time, plus the entry's format and fcbench's version:
a re-fetch, an edited or damaged data file (which then fails its checksum when the entry is
rebuilt from it), another release or an fcbench upgrade all rebuild it. The payload carries
its own sha256, so a damaged cache file is rebuilt, never used. Writing is best effort (a
read-only cache just rebuilds each time), and atomic.
"""

from __future__ import annotations

import contextlib
import json
import marshal
import os
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, TypeVar

from fcbench._version import __version__
from fcbench.dataset.fetch import data_file_checksum, release_dir, sha256_hex

T = TypeVar("T")

FORMAT = 2  # 2: slim docs keep each parameter's `default`
"""Bump when the shape of what callers store changes without an fcbench version change."""

FOLDER = "derived"


def cached(name: str, release: str, sources: Sequence[str], build: Callable[[], T]) -> T:
    """`build()`, or what an earlier call stored under `name` from the same `sources`.

    `sources` are data files (relative to `data/`) whose content decides the value; the value
    must be made of what `marshal` stores exactly (dict, list, tuple, str, int, float, bool,
    None).
    """
    key = {
        "format": FORMAT,
        "fcbench": __version__,
        "sources": {
            rel: [data_file_checksum(rel, release), *_stamp(rel, release)] for rel in sources
        },
    }
    path = release_dir(release) / FOLDER / f"{name}.marshal"
    found = _read(path, key)
    if found is not None:
        value: T = found[0]
        return value
    value = build()
    _write(path, key, value)
    return value


def _stamp(relpath: str, release: str) -> tuple[int, int]:
    """(size, mtime) of a source file: an edited or replaced file no longer matches, so the
    entry is rebuilt from it, and reading it verifies its checksum (a damaged file then
    fails loudly as everywhere else). Entries are only built from verified files."""
    try:
        st = (release_dir(release) / "data" / relpath).stat()
    except OSError:
        return (-1, -1)
    return (st.st_size, st.st_mtime_ns)


def _read(path: Path, key: dict[str, Any]) -> tuple[Any] | None:
    """(value,) if `path` holds an intact entry for `key`, else None."""
    try:
        blob = path.read_bytes()
        header_bytes, payload = blob.split(b"\n", 1)
        header = json.loads(header_bytes)
        if header.get("key") != key or header.get("sha256") != sha256_hex(payload):
            return None
        return (marshal.loads(payload),)
    except (OSError, ValueError, EOFError, TypeError, AttributeError):
        return None


def _write(path: Path, key: dict[str, Any], value: Any) -> None:
    try:
        payload = marshal.dumps(value)
    except ValueError:  # something marshal cannot store: simply not cached
        return
    header = json.dumps({"key": key, "sha256": sha256_hex(payload)}).encode("utf-8")
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)  # umask applies
        with os.fdopen(fd, "wb") as out:
            out.write(header + b"\n" + payload)
        os.replace(tmp, path)
    except OSError:  # read-only or full cache: the next run builds again
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)
