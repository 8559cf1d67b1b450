"""A web record: every answer the web served during a run, kept so the run can be replayed.

Why: web-search cases read live search results and pages, which change from day to day, so a
generation run cannot be repeated or checked by anyone else unless what the model saw is kept.
A record is a folder that can be copied or shared as it is:

    <dir>/index.jsonl           one line per request: {"key", "function", "arguments",
                                "sha256", "provider", "recorded"}
    <dir>/<sha256>.json.gz      one answer (its JSON text, gzip-compressed), named by the
                                sha256 of that text: identical answers are stored once

The key is the request, not the provider's query: `(function, arguments)` as the model's
call gave them (`search_engine_query` with keywords / max_results / region,
`fetch_url_content` with url / mode), so a record made through one provider answers a run
through any other. The first answer recorded for a key is the one served afterwards.

Crash and concurrency safety: an answer file is written to a temporary name, flushed to disk
and renamed into place (a reader sees all of it or nothing; two writers of the same address
write the same bytes). Only then is its index line appended, in one `write` on a file opened
for appending, under an exclusive `flock` where the platform has one, so lines of concurrent
writers (threads or processes) never interleave and a line never names a missing file. A
reader skips a last line without its newline (still being written, or torn by a crash) and
picks it up once it is complete.
"""

from __future__ import annotations

import contextlib
import gzip
import hashlib
import json
import logging
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcbench import redact
from fcbench._atomic import open_append, replace_file
from fcbench.core.model import UNENCODABLE

try:
    import fcntl
except ImportError:  # pragma: no cover - Windows: appends are still single writes
    fcntl = None  # type: ignore[assignment]

__all__ = ["INDEX", "RecordError", "RequestKey", "WebRecord", "request_key"]

INDEX = "index.jsonl"
SUFFIX = ".json.gz"

_log = logging.getLogger("fcbench.web")


class RecordError(Exception):
    """The record folder cannot be used (missing for replay, not writable, not a folder)."""


@dataclass(frozen=True)
class RequestKey:
    """One request as the model made it; `text` is its canonical JSON, the index key."""

    function: str
    arguments: dict[str, Any]
    text: str


def request_key(function: str, arguments: dict[str, Any]) -> RequestKey:
    """The provider-independent key of a call (canonical JSON: sorted keys, no spaces).

    Arguments come from a model's call, so they may be any literal; what JSON cannot hold
    is written as its `repr` (a set, bytes), which still tells different values apart.
    """
    try:
        text = json.dumps(
            {"function": function, "arguments": arguments},
            ensure_ascii=False, sort_keys=True, separators=(",", ":"), default=repr,
        )
    except (TypeError, ValueError):  # keys of mixed types cannot be sorted
        text = json.dumps({"function": function, "arguments": repr(arguments)})
    return RequestKey(function, arguments, text)


class WebRecord:
    """The answers of a record folder, read lazily and appended to safely."""

    def __init__(self, root: Path | str, *, create: bool = True) -> None:
        """`create=False` (replay) requires an existing record folder."""
        self.root = Path(root)
        if self.root.exists() and not self.root.is_dir():
            raise RecordError(f"web record {self.root} is not a folder")
        if not create and not (self.root / INDEX).is_file():
            raise RecordError(f"web record {self.root} has no {INDEX}: nothing to replay")
        if create:
            try:
                self.root.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise RecordError(f"cannot create web record {self.root}: {exc}") from None
        self._lock = threading.Lock()
        self._index: dict[str, str] = {}  # key text -> sha256 of the first answer
        self._providers: dict[str, int] = {}
        self._offset = 0  # bytes of index.jsonl read so far (whole lines only)

    # ------------------------------------------------------------------------ reading

    def get(self, key: RequestKey) -> tuple[bool, Any]:
        """(True, answer) when the record holds an answer for the request, else (False, None).

        A miss re-reads lines other writers appended since the last look, so processes
        sharing a record see each other's answers. A damaged answer file counts as a miss.
        """
        with self._lock:
            digest = self._index.get(key.text)
            if digest is None:
                self._read_new_lines()
                digest = self._index.get(key.text)
        if digest is None:
            return False, None
        try:
            return True, self._load(digest)
        except (OSError, ValueError, EOFError) as exc:
            _log.warning("web record %s: answer %s is unreadable (%s)", self.root, digest, exc)
            return False, None

    def providers(self) -> dict[str, int]:
        """How many recorded requests each provider answered."""
        with self._lock:
            self._read_new_lines()
            return dict(self._providers)

    def __len__(self) -> int:
        with self._lock:
            self._read_new_lines()
            return len(self._index)

    def _load(self, digest: str) -> Any:
        data = gzip.decompress((self.root / f"{digest}{SUFFIX}").read_bytes())
        if hashlib.sha256(data).hexdigest() != digest:
            raise ValueError("its content does not match its checksum")
        return json.loads(data)

    def _read_new_lines(self) -> None:
        path = self.root / INDEX
        try:
            with path.open("rb") as fh:
                fh.seek(self._offset)
                chunk = fh.read()
        except FileNotFoundError:
            return
        end = chunk.rfind(b"\n") + 1  # an unfinished last line waits for its newline
        for line in chunk[:end].splitlines():
            self._take(line)
        self._offset += end

    def _take(self, line: bytes) -> None:
        try:
            entry = json.loads(line)
            key, digest = entry["key"], entry["sha256"]
        except (ValueError, TypeError, KeyError):
            return  # a damaged line (never written by fcbench whole) is skipped
        if isinstance(key, str) and isinstance(digest, str) and key not in self._index:
            self._index[key] = digest
            provider = str(entry.get("provider"))
            self._providers[provider] = self._providers.get(provider, 0) + 1

    # ------------------------------------------------------------------------ writing

    def put(self, key: RequestKey, answer: Any, provider: str) -> None:
        """Store an answer (file first, then its index line); the first one per key stays."""
        text = redact.values(json.dumps(answer, ensure_ascii=False, default=str))
        data = text.encode("utf-8", UNENCODABLE)  # a lone surrogate as its JSON escape
        digest = hashlib.sha256(data).hexdigest()
        self._write_answer(digest, data)
        line = json.dumps(
            {
                "key": key.text,
                "function": key.function,
                "arguments": json.loads(key.text).get("arguments"),
                "sha256": digest,
                "provider": provider,
                "recorded": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            },
            ensure_ascii=True,  # plain ASCII: one line is one write, whatever it holds
        )
        with self._lock:
            self._append(redact.values(line).encode("ascii") + b"\n")

    def _write_answer(self, digest: str, data: bytes) -> None:
        target = self.root / f"{digest}{SUFFIX}"
        if target.exists():
            return  # content-addressed: the same bytes are already there
        replace_file(target, gzip.compress(data, mtime=0))

    def _append(self, line: bytes) -> None:
        fd = open_append(self.root / INDEX)
        try:
            with _exclusive(fd):
                os.write(fd, line)
                os.fsync(fd)
        finally:
            os.close(fd)


@contextlib.contextmanager
def _exclusive(fd: int) -> Iterator[None]:
    """An exclusive advisory lock on the open index, for other processes' appends."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
