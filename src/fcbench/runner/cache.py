"""The response cache's store: model replies by request hash, in one local SQLite file.

Why SQLite (stdlib `sqlite3`): several runs (processes) may share one cache, and a run may be
killed at any moment. In WAL mode readers never block the writer, a writer waits for another
(`busy_timeout`) instead of failing, and each reply is stored by its own committed
transaction: a `kill -9` loses at most the reply being written, never the file. With
`synchronous=NORMAL` a commit survives the death of the process (the operating system still
holds the log); only a power cut could lose the last few.

One table, `responses`: the request key (sha256 of the request as sent and the endpoint's
identity, see `runner.cached`), the backend and model it came from (for `fcbench cache
stats|prune`), the reply as JSON (schema 2: the reply as received, unread; see
`models.exchange`), when it was stored and last used, and how often it was served. The schema
version is SQLite's `user_version`: a file of schema 1 kept fcbench's reading of each reply
(tool calls already parsed, the corrections profile of the run that asked), which a run with
other settings must not be served, so opening one drops its entries (`dropped` says how
many; the run summary says so once).

Secrets: every stored text has each known secret value masked (`masked`), structurally when
it is JSON (each string of it, keys included), so a masked body is still the same JSON with
only the strings that held a key changed: its reading cannot change otherwise.

A cache that cannot be opened is a `CacheError` (one line: what to do); one that fails in the
middle of a run only costs the cache (misses, unsaved replies, counted), never the run.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench import redact
from fcbench.layout import RESPONSE_CACHE_FILE
from fcbench.models.base import Reply

__all__ = [
    "CacheError",
    "CacheSummary",
    "ResponseCache",
    "default_cache_dir",
    "masked",
    "reply_from_json",
    "reply_to_json",
]

SCHEMA_VERSION = 2
"""2: replies as received (`models.exchange`); 1: replies as fcbench read them (dropped)."""
BUSY_TIMEOUT = 30.0
"""Seconds a write waits for another process's write before giving up (then: not saved)."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS responses (
    key TEXT PRIMARY KEY,
    backend TEXT NOT NULL,
    model TEXT NOT NULL,
    reply TEXT NOT NULL,
    created REAL NOT NULL,
    used REAL NOT NULL,
    hits INTEGER NOT NULL DEFAULT 0
) WITHOUT ROWID;
CREATE INDEX IF NOT EXISTS responses_used ON responses (used);
"""


class CacheError(Exception):
    """The response cache cannot be used as asked (one-line message: what to do)."""


def default_cache_dir() -> Path:
    """`$FCBENCH_CACHE_DIR`, else `<fcbench home>/cache` (next to the fetched data)."""
    from fcbench.dataset.fetch import fcbench_home

    explicit = os.environ.get("FCBENCH_CACHE_DIR")
    return Path(explicit).expanduser() if explicit else fcbench_home() / "cache"


# --------------------------------------------------------------------------- replies


_REPLY_FIELDS = ("result", "message", "tool_call_ids", "input_tokens", "output_tokens",
                 "latency", "finish_reason", "endpoint", "reasoning", "extras")


def reply_to_json(reply: Reply) -> str | None:
    """A reply as stored; None when it holds something JSON cannot keep exactly."""
    payload = {name: getattr(reply, name) for name in _REPLY_FIELDS}
    try:
        text = json.dumps(payload, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError):
        return None
    return text if json.loads(text) == payload else None  # e.g. tuples would come back lists


def reply_from_json(text: str) -> Reply:
    payload = json.loads(text)
    if not isinstance(payload, dict) or "result" not in payload:
        raise ValueError("not a stored reply")
    return Reply(**{name: payload[name] for name in _REPLY_FIELDS if name in payload})


def masked(text: str) -> str:
    """`text` with every known secret value masked (`redact.values`); a JSON text stays the
    same JSON with each of its strings masked on its own, decoded: a value written with
    escapes (`\\"`, `\\u00e9`, `\\/`) is found, and a mask cannot reach across quotes and
    change the structure a reading sees. A text holding no secret comes back as it is."""
    if not redact.secrets():
        return text
    try:
        value = json.loads(text)
        kept = _masked_value(value)
    except ValueError:
        return redact.values(text)  # not JSON: a local model's text, say
    except RecursionError:  # nested past Python's stack: masked as text, never kept raw
        return redact.values(text)
    return text if kept == value else json.dumps(kept, ensure_ascii=False)


def _masked_value(value: Any) -> Any:
    if isinstance(value, str):
        return redact.values(value)
    if isinstance(value, dict):
        return {redact.values(str(k)): _masked_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_masked_value(v) for v in value]
    return value


# --------------------------------------------------------------------------- the store


@dataclass
class CacheSummary:
    """What `fcbench cache stats` shows."""

    path: Path
    size_bytes: int
    entries: int
    hits: int
    oldest: float | None
    newest: float | None
    by_model: list[tuple[str, str, int, int]] = field(default_factory=list)
    """(backend, model, entries, hits served)."""


class ResponseCache:
    """The SQLite file of one cache folder; safe to share between threads and processes."""

    def __init__(self, folder: Path, *, timeout: float = BUSY_TIMEOUT) -> None:
        self.path = Path(folder) / RESPONSE_CACHE_FILE
        self._lock = threading.Lock()
        self.dropped = 0
        """Entries of an older schema dropped on opening (they would be misread)."""
        self._db = self._open(timeout)

    def _open(self, timeout: float) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            db = sqlite3.connect(self.path, timeout=timeout, isolation_level=None,
                                 check_same_thread=False)
        except (OSError, sqlite3.Error) as exc:
            raise CacheError(f"cannot open the response cache {self.path}: {exc} "
                             "(use --cache-dir elsewhere, or --no-cache)") from None
        try:
            db.execute("PRAGMA journal_mode=WAL")
            db.execute("PRAGMA synchronous=NORMAL")
            version = int(db.execute("PRAGMA user_version").fetchone()[0])
            if version > SCHEMA_VERSION:
                raise CacheError(f"{self.path} was written by a newer fcbench (cache schema "
                                 f"{version}); upgrade, or use another --cache-dir")
            if version < SCHEMA_VERSION:
                self.dropped = _upgrade(db)
        except sqlite3.Error as exc:
            db.close()
            raise CacheError(f"{self.path} is not a usable response cache ({exc}): delete it, "
                             "or run with --no-cache") from None
        return db

    def get(self, key: str) -> str | None:
        """The stored text (its use counted), or None (also when the file fails)."""
        try:
            with self._lock:
                row = self._db.execute("SELECT reply FROM responses WHERE key = ?",
                                       (key,)).fetchone()
                if row is None:
                    return None
                self._db.execute("UPDATE responses SET used = ?, hits = hits + 1 WHERE key = ?",
                                 (time.time(), key))
        except sqlite3.Error:
            return None
        return row[0] if isinstance(row[0], str) else None

    def put(self, key: str, backend: str, model: str, reply_json: str) -> bool:
        """Store one reply in its own transaction; False when it could not be written. A
        known secret's value never reaches the file (`masked`); `key` is a digest."""
        now = time.time()
        try:
            with self._lock:
                self._db.execute(
                    "INSERT OR REPLACE INTO responses (key, backend, model, reply, created, used,"
                    " hits) VALUES (?, ?, ?, ?, ?, ?, 0)",
                    (key, backend, redact.values(model), masked(reply_json), now, now),
                )
        except (sqlite3.Error, ValueError):  # ValueError: a lone surrogate SQLite cannot take
            return False
        return True

    def delete(self, key: str) -> bool:
        """Forget one entry (a reply whose reading failed); whether there was one to forget."""
        try:
            with self._lock:
                gone = self._db.execute("DELETE FROM responses WHERE key = ?", (key,)).rowcount
        except sqlite3.Error:
            return False
        return bool(gone)

    def summary(self) -> CacheSummary:
        with self._lock:
            total = self._db.execute(
                "SELECT COUNT(*), COALESCE(SUM(hits), 0), MIN(created), MAX(created) "
                "FROM responses").fetchone()
            rows = self._db.execute(
                "SELECT backend, model, COUNT(*), COALESCE(SUM(hits), 0) FROM responses "
                "GROUP BY backend, model ORDER BY backend, model").fetchall()
        return CacheSummary(self.path, self.size_bytes(), int(total[0]), int(total[1]),
                            total[2], total[3], [tuple(r) for r in rows])

    def size_bytes(self) -> int:
        """The file and its write-ahead log."""
        return sum(_size(Path(f"{self.path}{suffix}")) for suffix in ("", "-wal"))

    def prune(
        self,
        *,
        unused_for: float | None = None,
        model: str | None = None,
        backend: str | None = None,
    ) -> int:
        """Delete the entries matching every criterion given (all of them when none is);
        `unused_for` in seconds since last use. Returns how many went."""
        where: list[str] = []
        args: list[Any] = []
        if unused_for is not None:
            where.append("used < ?")
            args.append(time.time() - unused_for)
        for column, value in (("model", model), ("backend", backend)):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(value)
        clause = " WHERE " + " AND ".join(where) if where else ""
        with self._lock:
            removed = self._db.execute(f"DELETE FROM responses{clause}", args).rowcount
        self._compact()
        return int(removed)

    def _compact(self) -> None:
        """Give the freed space back; skipped while another process uses the file."""
        try:
            with self._lock:
                self._db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                self._db.execute("VACUUM")
        except sqlite3.Error:
            pass

    def close(self) -> None:
        with self._lock:
            self._db.close()

    def __enter__(self) -> ResponseCache:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _upgrade(db: sqlite3.Connection) -> int:
    """Bring a new or older file to `SCHEMA_VERSION` in one transaction (another process may
    be doing the same: the version is read again under the write lock); entries of schema 1
    (readings, not replies) are dropped. Returns how many were."""
    db.execute("BEGIN IMMEDIATE")
    try:
        version = int(db.execute("PRAGMA user_version").fetchone()[0])
        dropped = 0
        if version < SCHEMA_VERSION:
            exists = db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND "
                                "name = 'responses'").fetchone()
            if exists:
                dropped = int(db.execute("SELECT COUNT(*) FROM responses").fetchone()[0])
                db.execute("DROP TABLE responses")
            for statement in filter(str.strip, _SCHEMA.split(";")):
                db.execute(statement)
            db.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
        db.execute("COMMIT")
    except BaseException:
        db.execute("ROLLBACK")
        raise
    return dropped


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0
