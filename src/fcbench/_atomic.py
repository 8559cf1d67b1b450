"""Replacing a file so that no crash, not even `kill -9` or a power cut, leaves it half-written.

The bytes go to a temporary file in the target's folder (same file system, so the rename is
atomic), which is flushed and fsynced, then renamed over the target, and the folder is
fsynced so that the rename itself survives. A reader sees the old file or the new one.
"""

from __future__ import annotations

import contextlib
import os
import tempfile
from pathlib import Path

__all__ = ["fsync_dir", "replace_file"]


def replace_file(path: Path, payload: bytes) -> None:
    """Atomically and durably replace `path` with `payload` (OSError on failure, the old
    file untouched and no temporary left behind)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    fsync_dir(path.parent)


def fsync_dir(path: Path) -> None:
    """Make a rename in `path` durable (best effort: not every platform can fsync a folder)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    with contextlib.suppress(OSError):
        os.fsync(fd)
    os.close(fd)
