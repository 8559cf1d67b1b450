"""Replacing a file so that no crash, not even `kill -9` or a power cut, leaves it half-written.

The bytes go to a temporary file in the target's folder (same file system, so the rename is
atomic), which is flushed and fsynced, then renamed over the target, and the folder is
fsynced so that the rename itself survives. A reader sees the old file or the new one.

It is also how fcbench writes into an output folder it does not own (issue 30): the
temporary file is created new (`O_EXCL` on a random name nobody can plant in advance) and
the rename replaces a symlink at the target's name instead of following it, so a planted
`leaderboard.json -> ~/.bashrc` is replaced, its target untouched. Every file fcbench writes
into a score, result or report folder goes through `replace_file`.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import tempfile
from pathlib import Path

__all__ = ["fsync_dir", "new_log", "open_append", "replace_file", "replace_text"]


def replace_file(path: Path, payload: bytes, *, durable: bool = True) -> None:
    """Atomically replace `path` with `payload` (OSError on failure, the old file untouched
    and no temporary left behind); a symlink at `path` is replaced, never followed. The file
    gets the mode a plain `open(path, "w")` would (0666 less the umask the process has
    now; `mkstemp` alone gives 0600). `durable=False` skips the fsyncs: for files that are
    rebuilt from others (score files, CSVs, the report), where a power cut may lose them
    but a crash must not leave them half-written."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = _new_temporary(path)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    if durable:
        fsync_dir(path.parent)


def replace_text(path: Path, text: str, *, errors: str = "strict", durable: bool = False,
                 newline: str | None = None) -> Path:
    """`replace_file` for UTF-8 text, not durable unless asked (see there); returns `path`.
    `newline` as `open`'s: None writes `\n` as the platform's line end."""
    if newline is None and os.linesep != "\n":  # pragma: no cover - Windows
        text = text.replace("\n", os.linesep)
    replace_file(Path(path), text.encode("utf-8", errors=errors), durable=durable)
    return Path(path)


def open_append(path: Path) -> int:
    """A descriptor appending to `path` (created 0644 less the umask when absent), never
    through a symlink: a link planted at the name is removed first (its target untouched)
    and a regular file made in its place. For the files an output folder grows line by line
    (result files, a server's log, the lock, a replay index)."""
    flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        return os.open(path, flags, 0o644)
    except OSError:
        if not os.path.islink(path):
            raise
    os.unlink(path)  # the link only
    return os.open(path, flags | os.O_EXCL, 0o644)


def new_log(prefix: str, text: str) -> Path:
    """A new file in the temporary folder holding `text` (a traceback a one-line error names):
    its name is fresh (`mkstemp`), so nothing planted is followed or overwritten. The caller
    masks secrets first (`redact.values`)."""
    fd, name = tempfile.mkstemp(prefix=prefix, suffix=".log")
    with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace") as handle:
        handle.write(text)
    return Path(name)


def _new_temporary(path: Path) -> tuple[int, str]:
    """A new file beside `path` under a random name, created `O_EXCL` (never an existing
    file or a planted link) with mode 0666 for the kernel to reduce by the umask, as
    `open(path, "w")` is: `mkstemp` makes 0600, and a umask read once at import (reading
    it means setting it, which no thread can do safely later) missed a umask set since."""
    flags = (os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
             | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_BINARY", 0))
    for _ in range(100):
        name = os.path.join(path.parent, f".{path.name}.{secrets.token_hex(6)}.tmp")
        try:
            return os.open(name, flags, 0o666), name
        except FileExistsError:
            continue
    raise FileExistsError(f"{path.parent}: no free temporary name after 100 tries")


def fsync_dir(path: Path) -> None:
    """Make a rename in `path` durable (best effort: not every platform can fsync a folder)."""
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    with contextlib.suppress(OSError):
        os.fsync(fd)
    os.close(fd)
