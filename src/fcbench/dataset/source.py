"""Where data files come from: the verified release cache, or a user's folder.

Loading, validating and diffing all read data the same way through `Source`: JSON lines with
their line numbers (a broken line is a one-line `DataError` naming file and line), the
multi-turn function docs by class, and the naming of that data's files (`naming.py`).
"""

from __future__ import annotations

import json
import marshal
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fcbench.core.categories import Category
from fcbench.dataset.fetch import DataError, data_files, read_data_file, release_dir
from fcbench.dataset.intake import read_regular
from fcbench.dataset.naming import Naming, detect
from fcbench.layout import func_doc_file

__all__ = ["FUNC_DOC_FILES", "Source", "bind_source", "json_lines", "source", "source_for"]

FUNC_DOC_FILES: dict[str, str] = {
    "GorillaFileSystem": "gorilla_file_system.json",
    "MathAPI": "math_api.json",
    "MessageAPI": "message_api.json",
    "TwitterAPI": "posting_api.json",
    "TicketAPI": "ticket_api.json",
    "TradingBot": "trading_bot.json",
    "TravelAPI": "travel_booking.json",
    "VehicleControlAPI": "vehicle_control.json",
    "WebSearchAPI": "web_search.json",
    "MemoryAPI_kv": "memory_kv.json",
    "MemoryAPI_vector": "memory_vector.json",
    "MemoryAPI_rec_sum": "memory_rec_sum.json",
}
"""Multi-turn/agentic class -> its function-doc file under `multi_turn_func_doc/` (§2.3)."""


# --------------------------------------------------------------------------- file access


@dataclass
class Source:
    """Where data files come from: the verified release cache, or a user's folder."""

    release: str
    root: Path | None
    _docs: dict[str, bytes] = field(default_factory=dict)
    _shared: dict[str, list[dict[str, Any]]] = field(default_factory=dict)
    _naming: Naming | None = None

    @property
    def naming(self) -> Naming:
        """The file naming of this data, recognised from its files (see `naming.py`)."""
        if self._naming is None:
            self._naming = detect(self.paths())
        return self._naming

    def paths(self) -> list[str]:
        """The data files there are: the release's manifest, or the folder's top level."""
        if self.root is None:
            return list(data_files(self.release))
        try:
            return [p.name for p in self.root.iterdir() if p.is_file()]
        except OSError:
            return []

    def has(self, relpath: str) -> bool:
        if self.root is None:
            return relpath in data_files(self.release)
        return (self.root / relpath).is_file()

    def label(self, relpath: str) -> str:
        return str(self.root / relpath) if self.root is not None else relpath

    def read(self, relpath: str) -> bytes:
        if self.root is None:
            return read_data_file(relpath, self.release)
        try:
            return read_regular(self.root / relpath)
        except FileNotFoundError:
            raise DataError(f"{self.root / relpath} does not exist") from None
        except OSError as exc:
            raise DataError(f"cannot read {self.root / relpath}: {exc}") from None

    def stream(self, relpath: str) -> Iterator[str]:
        """The file's lines as `text.split("\n")` gives them (a converted custom text is
        produced a line at a time: `CustomSource`); DataError or UnicodeDecodeError as
        `read` and decoding give them."""
        return iter(self.read(relpath).decode("utf-8").split("\n"))

    def stream_pair(self, first: str, second: str) -> tuple[Iterator[str], Iterator[str]]:
        """Two files' lines to be read together (questions and answers), each opened at its
        first read; a custom source converts a JSONL file once for both."""
        return self._lazy(first), self._lazy(second)

    def _lazy(self, relpath: str) -> Iterator[str]:
        yield from self.stream(relpath)

    def stamp(self, relpath: str) -> tuple[str, int, int]:
        """An identity for caching: (path, size, mtime) of the file."""
        base = self.root if self.root is not None else release_dir(self.release) / "data"
        path = base / relpath
        try:
            st = os.stat(path)
        except OSError:
            return (str(path), -1, -1)
        return (str(path), st.st_size, st.st_mtime_ns)

    def lines(self, relpath: str) -> list[tuple[int, dict[str, Any]]]:
        """(line number, object) for every non-blank JSON line; a bad line is a DataError."""
        try:
            text = self.read(relpath).decode("utf-8")
        except UnicodeDecodeError as exc:
            raise DataError(f"{self.label(relpath)}: not UTF-8 text ({exc.reason})") from None
        out: list[tuple[int, dict[str, Any]]] = []
        for number, obj, error in json_lines(text):
            if error is not None:
                raise DataError(f"{self.label(relpath)}, line {number}: {error}")
            if not isinstance(obj, dict):
                raise DataError(f"{self.label(relpath)}, line {number}: not a JSON object")
            out.append((number, obj))
        return out

    def docs(self, cls: str, where: str) -> list[dict[str, Any]]:
        """Fresh copies of a class's function docs (callers may edit them freely)."""
        if cls not in FUNC_DOC_FILES:
            raise DataError(f"{where}: unknown class {cls!r} in involved_classes")
        if cls not in self._docs:
            rel = func_doc_file(FUNC_DOC_FILES[cls])
            # marshal round-trips plain JSON values about twice as fast as json.loads.
            self._docs[cls] = marshal.dumps([obj for _, obj in self.lines(rel)])
        result: list[dict[str, Any]] = marshal.loads(self._docs[cls])
        return result

    def shared_docs(self, cls: str, where: str) -> list[dict[str, Any]]:
        """A class's docs decoded once and shared by every caller (read-only use)."""
        if cls not in self._shared:
            self._shared[cls] = self.docs(cls, where)
        return self._shared[cls]


def source(release: str, data_root: Path | str | None) -> Source:
    """The fetched release (`data_root` None) or a user's folder."""
    return Source(release, Path(data_root) if data_root is not None else None)


_OWN_SOURCES: dict[str, Callable[[str], Source]] = {}
"""Category name -> the source it is always read from (given the run's release)."""


def bind_source(category: str, factory: Callable[[str], Source] | None) -> None:
    """Read a category from a source of its own whatever `data_root` says (the categories of
    a custom dataset, `dataset.custom`); None unbinds it."""
    if factory is None:
        _OWN_SOURCES.pop(category, None)
    else:
        _OWN_SOURCES[category] = factory


def source_for(category: Category, release: str, data_root: Path | str | None) -> Source:
    """Where a category's files are read from: its own source, else `source()`."""
    own = _OWN_SOURCES.get(category.name)
    return own(release) if own is not None else source(release, data_root)


def has_own_source(category: Category) -> bool:
    return category.name in _OWN_SOURCES


def json_lines(text: str) -> Iterator[tuple[int, Any, str | None]]:
    """(line number, value, None) for each non-blank line, or (number, None, what is wrong)
    for a line that is not JSON."""
    for number, line in enumerate(text.split("\n"), start=1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line), None
        except json.JSONDecodeError as exc:
            yield number, None, f"not valid JSON ({exc.msg})"
