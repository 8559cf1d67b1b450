"""The result store: one append-only JSON Lines file per category, safe against kill -9.

Guarantees, whatever moment the process dies at:

* a finished case is on disk as one complete line as soon as `append` returns (one `write`
  call of the whole line on an O_APPEND descriptor; `sync` fsyncs in batches, which only
  matters for power loss, not for a killed process);
* no line breaks reading: `open` cuts a torn last line (a line without its newline);
* no id appears twice: appends only ever add ids absent from the file, because an errored
  case or a case to re-ask is removed from the file (atomic rewrite) before it is queued, and
  `open` keeps one entry per id should a file from elsewhere hold several;
* rewrites (compaction, the final sort by id like the official tool) go through a temporary
  file and `os.replace`, so a reader sees the old file or the new one, never a mix.

One run at a time per model folder: a `flock` on `.fcbench.lock` refuses a second writer.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from fcbench import _json as fast_json
from fcbench import redact
from fcbench._atomic import open_append, replace_file, replace_text
from fcbench.core.model import UNENCODABLE, id_order

ERROR_PREFIX = "Error during inference: "


class StoreBusyError(RuntimeError):
    """Another fcbench process is writing into the same model folder."""


def is_error(entry: dict[str, Any]) -> bool:
    """An entry recording a failed inference: fcbench's `error` field, or the official error
    text in a file fcbench did not write (fcbench's own lines carry `attempts`, and a model's
    answer may happen to start with those words)."""
    if entry.get("error"):
        return True
    result = entry.get("result")
    return "attempts" not in entry and isinstance(result, str) and result.startswith(ERROR_PREFIX)


def to_ask_again(entry: dict[str, Any], retry_permanent: bool = False) -> bool:
    """Whether a resume asks a stored entry again: an error, unless a final one (`"final":
    true`: the case's own, e.g. its prompt does not fit the context), which is scored as a
    failed case like any error result; `retry_permanent` asks final ones too."""
    return is_error(entry) and (retry_permanent or entry.get("final") is not True)


def _dumps(entry: dict[str, Any]) -> bytes:
    """One JSON line. A lone surrogate (a model can send `"\\ud800"`) has no UTF-8 form:
    written as its JSON escape, so the line stays valid and reads back the same. A known
    secret's value is masked (`redact.values`: a model's own text is otherwise untouched)."""
    line = redact.values(fast_json.dumps(entry, ensure_ascii=False))
    return (line + "\n").encode("utf-8", UNENCODABLE)


class CategoryStore:
    """The result file of one category of one model."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self._fd: int | None = None
        self._dirty = False

    def open(self) -> dict[str, dict[str, Any]]:
        """Repair the file if needed and return its entries by id (then ready to append)."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            self.path.with_name(self.path.name + ".tmp").unlink()
        entries, clean = self._read()
        if not clean:
            self._rewrite(entries.values())
        self._fd = open_append(self.path)
        return entries

    def _read(self) -> tuple[dict[str, dict[str, Any]], bool]:
        """Entries by id (a finished entry beats an errored one, else the last wins); clean?"""
        try:
            data = self.path.read_bytes()
        except FileNotFoundError:
            return {}, True
        entries: dict[str, dict[str, Any]] = {}
        clean = data.endswith(b"\n") or not data
        for line in data.split(b"\n"):
            if not line.strip():
                continue
            try:
                entry = fast_json.loads_numbers(line)
                test_id = entry["id"]
            except (ValueError, KeyError, TypeError, RecursionError):
                clean = False
                continue
            old = entries.get(test_id)
            if old is not None:
                clean = False
                if is_error(entry) and not is_error(old):
                    continue
            entries[test_id] = entry
        return entries, clean

    def entries(self) -> dict[str, dict[str, Any]]:
        """The entries by id as a resume reads them (a finished entry beats an errored one),
        without repairing or opening the file (`fcbench merge` reads shards with it)."""
        return self._read()[0]

    def _rewrite(self, entries: Iterable[dict[str, Any]]) -> None:
        """Atomically replace the file with these entries, sorted by id."""
        reopen = self._fd is not None
        self.close()
        write_entries(self.path, entries)
        if reopen:
            self._fd = open_append(self.path)

    def drop(self, ids: Iterable[str]) -> None:
        """Remove these ids from the file (before asking them again)."""
        wanted = set(ids)
        if not wanted:
            return
        entries, _ = self._read()
        if wanted & entries.keys():
            self._rewrite(e for i, e in entries.items() if i not in wanted)

    def append(self, entry: dict[str, Any]) -> None:
        """Add one finished case: a single write of the whole line."""
        if self._fd is None:
            raise RuntimeError(f"{self.path} is not open")
        data = _dumps(entry)
        written = os.write(self._fd, data)
        while written < len(data):  # only on a full disk or a signal; finish the line
            written += os.write(self._fd, data[written:])
        self._dirty = True

    def sync(self) -> None:
        """fsync pending appends (cheap to call often: only when something was written)."""
        if self._fd is not None and self._dirty:
            self._dirty = False
            os.fsync(self._fd)

    def finalize(self) -> dict[str, dict[str, Any]]:
        """Sort by id and de-duplicate, like the official tool at the end of generation."""
        self.sync()
        entries, _ = self._read()
        ordered = sorted(entries, key=id_order)
        on_disk = self.path.read_bytes() if self.path.exists() else b""
        if b"".join(_dumps(entries[i]) for i in ordered) != on_disk:
            self._rewrite(entries.values())
        self.close()
        return entries

    def close(self) -> None:
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None


def write_entries(path: Path, entries: Iterable[dict[str, Any]]) -> None:
    """Atomically replace `path` with these entries in the official id order, each line as
    `append` writes it: the bytes a finished run leaves."""
    ordered = sorted(entries, key=lambda e: id_order(str(e["id"])))
    payload = b"".join(_dumps(e) for e in ordered)
    replace_file(path, payload)  # a fresh temporary: no planted `.tmp` is followed


class FolderLock:
    """An exclusive, non-blocking lock on a model folder for the duration of a run."""

    def __init__(self, folder: Path) -> None:
        self.path = folder / ".fcbench.lock"
        self._fh: Any = None

    def __enter__(self) -> FolderLock:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = os.fdopen(open_append(self.path), "a")  # held for the whole run
        try:
            _lock(self._fh.fileno())
        except OSError:
            self._fh.close()
            self._fh = None
            raise StoreBusyError(
                f"another fcbench run is writing into {self.path.parent}; wait for it to finish"
            ) from None
        return self

    def __exit__(self, *exc: object) -> None:
        if self._fh is not None:
            self._fh.close()  # closing releases the lock
            self._fh = None


def _lock(fd: int) -> None:
    """An exclusive non-blocking lock (flock; on Windows a byte-range lock); OSError if held."""
    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        import msvcrt

        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)  # type: ignore[attr-defined,unused-ignore]
        return
    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)


def write_json_atomic(path: Path, data: Any) -> None:
    """Write a small JSON file (model.json) so that it is never seen half-written; with
    secrets and credential-shaped values masked (`redact.text`: base URLs with a password or
    an `api_key=` parameter are stored masked)."""
    text = redact.text(fast_json.dumps(data, indent=1, ensure_ascii=False)) + "\n"
    replace_text(path, text, errors=UNENCODABLE)
