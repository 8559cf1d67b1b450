"""Reading a user's wheel or folder (`fcbench data fetch --from`) into the staging area.

What `--from` names is outside input: a folder may hold a symlink to `/etc` (its files would
land in the data cache), a symlink loop (`loop -> .`: a copy that never ends), a FIFO (a
read that never returns); a wheel may hold a member that inflates to gigabytes. So:

* only regular files are copied; a symlink is followed only when its target is inside the
  source (a file, or a folder that is not one of its own ancestors: a loop is refused);
* each file is at most MEMBER_CAP bytes and all of them TOTAL_CAP, checked against what the
  file system or the zip directory says, and again while the bytes stream through (the zip
  directory can lie, a file can grow while it is read): nothing is read whole into memory;
* every refusal is a one-line DataError naming the source and the file.

A `--data-dir` folder is read in place (`source.Source.read`) through `read_regular`: its
links are followed (the folder is the user's own), but only a regular file within the cap is
read (a FIFO named like a data file would block for ever).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from fcbench.dataset.fetch import DataError

if TYPE_CHECKING:
    import zipfile

__all__ = [
    "MEMBER_CAP",
    "TEXT_CAP",
    "TOTAL_CAP",
    "Budget",
    "copy_folder",
    "copy_member",
    "read_member",
    "read_regular",
    "read_text_inside",
]

MEMBER_CAP = 256 * 2**20
"""Bytes of one data file: 65 times the largest of bfcl-eval 2026.3.23 (3.9 MB)."""
TOTAL_CAP = 2**30
"""Bytes of all data files: 80 times the whole of bfcl-eval 2026.3.23 (12.3 MB)."""
TEXT_CAP = 16 * 2**20
"""Bytes of a file read whole into memory (a constants module, the wheel's METADATA)."""
CHUNK = 2**20


@dataclass
class Budget:
    """The bytes copied so far from one source, against its caps."""

    source: str
    member_cap: int = field(default_factory=lambda: MEMBER_CAP)
    total_cap: int = field(default_factory=lambda: TOTAL_CAP)
    total: int = 0

    def declared(self, name: str, size: int) -> None:
        """Refuse, before reading, a file whose stated size is past a cap."""
        self._check(name, size, self.total + size)

    def count(self, name: str, so_far: int, more: int) -> None:
        """Count `more` bytes of `name` (`so_far` of it in all, them included)."""
        self.total += more
        self._check(name, so_far, self.total)

    def _check(self, name: str, size: int, total: int) -> None:
        if size > self.member_cap:
            raise DataError(f"--from {self.source}: {name} is larger than the "
                            f"{self.member_cap:,}-byte cap on one data file; not copied")
        if total > self.total_cap:
            raise DataError(f"--from {self.source}: the data files are larger than the "
                            f"{self.total_cap:,}-byte cap in all (at {name}); not copied")


def copy_stream(read: Callable[[int], bytes], out: Path, name: str, budget: Budget) -> None:
    """Write what `read` gives into `out` a chunk at a time, counted against the budget."""
    written = 0
    with open(out, "wb") as sink:  # a name met twice in a zip: the last one wins
        while chunk := read(CHUNK):
            written += len(chunk)
            budget.count(name, written, len(chunk))
            sink.write(chunk)


# --------------------------------------------------------------------------- wheels


def is_zip_symlink(info: zipfile.ZipInfo) -> bool:
    """A member stored as a symlink (its Unix mode in the external attributes)."""
    return stat.S_ISLNK(info.external_attr >> 16)


def copy_member(zf: zipfile.ZipFile, info: zipfile.ZipInfo, out: Path, budget: Budget) -> None:
    """One wheel member into `out`: a regular file, its size checked from the directory and
    again while it inflates."""
    if is_zip_symlink(info):
        raise DataError(f"--from {budget.source}: {info.filename} is a symlink; only regular "
                        "files are copied")
    budget.declared(info.filename, info.file_size)
    with zf.open(info) as member:
        copy_stream(member.read, out, info.filename, budget)


def read_member(zf: zipfile.ZipFile, name: str, cap: int = TEXT_CAP) -> bytes | None:
    """A small member's bytes (None when absent, a symlink, or past `cap`)."""
    try:
        info = zf.getinfo(name)
    except KeyError:
        return None
    if is_zip_symlink(info) or info.file_size > cap:
        return None
    with zf.open(info) as member:
        data = member.read(cap + 1)
    return data if len(data) <= cap else None


# --------------------------------------------------------------------------- folders


def inside(path: str, root: str) -> bool:
    """Whether the real path `path` is `root` or below it."""
    return path == root or path.startswith(root.rstrip(os.sep) + os.sep)


def copy_folder(source: Path, dest: Path, budget: Budget) -> None:
    """Copy the regular files below `source` into `dest` (created), following symlinks only
    inside `source` and never into a folder that holds them (a loop). Walked with a stack of
    its own: a deep tree costs no recursion."""
    root = os.path.realpath(source)
    start = os.stat(root)
    stack: list[tuple[str, Path, frozenset[tuple[int, int]]]] = [
        (root, dest, frozenset({(start.st_dev, start.st_ino)}))
    ]
    while stack:
        folder, out, ancestors = stack.pop()
        out.mkdir(parents=True, exist_ok=True)
        for entry in _entries(folder, root, budget):
            shown = os.path.relpath(entry.path, root)
            real = _followed(entry, root, shown, budget)
            info = _stat(real, shown, budget)
            if stat.S_ISDIR(info.st_mode):
                identity = (info.st_dev, info.st_ino)
                if identity in ancestors:
                    raise DataError(f"--from {budget.source}: {shown} is a symlink loop (it "
                                    "leads back to a folder that holds it); not copied")
                stack.append((real, out / entry.name, ancestors | {identity}))
            elif stat.S_ISREG(info.st_mode):
                _copy_file(real, out / entry.name, shown, budget)
            else:
                raise DataError(f"--from {budget.source}: {shown} is neither a regular file "
                                "nor a folder; not copied")


def _entries(folder: str, root: str, budget: Budget) -> list[os.DirEntry[str]]:
    try:
        with os.scandir(folder) as found:
            return sorted(found, key=lambda e: e.name)
    except OSError as exc:
        where = os.path.relpath(folder, root)
        raise DataError(f"--from {budget.source}: cannot list {where}: "
                        f"{exc.strerror or exc}") from None


def _followed(entry: os.DirEntry[str], root: str, shown: str, budget: Budget) -> str:
    """The real path of an entry; a symlink whose target is outside the source is refused."""
    if not entry.is_symlink():
        return entry.path
    target = os.path.realpath(entry.path)
    if not inside(target, root):
        raise DataError(f"--from {budget.source}: {shown} is a symlink leaving the source "
                        f"(to {target}); only files inside it are copied")
    return target


def _stat(path: str, shown: str, budget: Budget) -> os.stat_result:
    try:
        return os.stat(path, follow_symlinks=False)
    except OSError as exc:  # a broken or self-referring link, a vanished file
        raise DataError(f"--from {budget.source}: cannot read {shown}: "
                        f"{exc.strerror or exc}") from None


def _copy_file(path: str, out: Path, shown: str, budget: Budget) -> None:
    """A regular file, opened without following a link and without blocking (it could have
    been swapped for a FIFO since it was looked at), its size checked before and while."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as exc:
        raise DataError(f"--from {budget.source}: cannot read {shown}: "
                        f"{exc.strerror or exc}") from None
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DataError(f"--from {budget.source}: {shown} is not a regular file; "
                            "not copied")
        budget.declared(shown, info.st_size)
        copy_stream(file.read, out, shown, budget)


def read_text_inside(path: Path, root: Path, cap: int = TEXT_CAP) -> str | None:
    """A small UTF-8 file's text when it is a regular file inside `root` (else None: a
    constants module that is absent, a link out, a FIFO, or past `cap`)."""
    real = os.path.realpath(path)
    if not inside(real, os.path.realpath(root)):
        return None
    try:
        fd = os.open(real, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as file:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = file.read(cap + 1)
    return data.decode("utf-8") if len(data) <= cap else None


def read_regular(path: Path, cap: int | None = None) -> bytes:
    """A data file's bytes when it is a regular file (links followed: a `--data-dir` folder is
    the user's own) of at most `cap` bytes (MEMBER_CAP by default): a FIFO would block the
    read for ever and a device or a huge file fill the memory, so both are one-line
    DataErrors; a missing file is FileNotFoundError, as a plain read gives it."""
    limit = MEMBER_CAP if cap is None else cap
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    with os.fdopen(fd, "rb") as file:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise DataError(f"{path} is not a regular file; not read")
        if info.st_size > limit:
            raise DataError(f"{path} is larger than the {limit:,}-byte cap on one data file; "
                            "not read")
        data = file.read(limit + 1)
    if len(data) > limit:
        raise DataError(f"{path} grew past the {limit:,}-byte cap on one data file while it "
                        "was read; not read")
    return data

