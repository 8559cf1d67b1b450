"""Third-party extensions through entry points: a package adds a backend, a checker kind or a
text tool-call parser without fcbench knowing it, as `inspect_ai` does.

A distribution declares, in its `pyproject.toml`, one line per extension:

    [project.entry-points."fcbench.backends"]
    echo = "my_pkg.echo:SPEC"          # a BackendSpec, or a factory (BackendOptions -> Backend)
    [project.entry-points."fcbench.checkers"]
    exact = "my_pkg.exact:KIND"        # a CheckerKind
    [project.entry-points."fcbench.text_parsers"]
    pipes = "my_pkg.pipes:parse"       # text -> [{name: arguments_json}] | None

Each registry asks for its group the first time it is asked for a name it does not hold
itself (so a run with built-ins only never scans the installed distributions), and a group is
loaded once per process. A plugin that fails to import, or holds the wrong kind of object,
is left out with a one-line warning on stderr naming it; it never stops fcbench and never
shows a traceback. Ground floor: this module imports nothing of fcbench.

Whatever a plugin raises while imported is caught, BaseExceptions included: a module that
calls `sys.exit()`, raises GeneratorExit or a BaseException of its own would otherwise end
every run, even `--model ground-truth`. The one exception is the user's Ctrl-C: a
KeyboardInterrupt is let through only when a SIGINT really arrived during the import (a
handler that records it is installed around the import, in front of the one there was); a
KeyboardInterrupt the plugin's code raises without a signal cannot be told from one by its
type alone, and is treated as the plugin's own failure (a warning). Off the main thread no
signal is ever delivered, so there a KeyboardInterrupt is always the plugin's.
"""

from __future__ import annotations

import contextlib
import sys
from collections.abc import Callable, Iterator, Mapping, MutableMapping
from typing import TYPE_CHECKING, TypeVar

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

__all__ = ["BACKENDS", "CHECKERS", "TEXT_PARSERS", "Registry", "forget", "load", "register_all",
           "warn"]

V = TypeVar("V")

BACKENDS = "fcbench.backends"
CHECKERS = "fcbench.checkers"
TEXT_PARSERS = "fcbench.text_parsers"

_LOADED: dict[str, list[tuple[str, object]]] = {}
"""Group -> its plugins as loaded, (entry-point name, object), broken ones left out."""
_DECLARED: dict[str, frozenset[str]] = {}
"""Group -> the names declared under it (scanned once, like `_LOADED`)."""
_REGISTERED: set[str] = set()
"""Groups whose plugins were handed to their registry (`register_all`)."""


def load(group: str) -> list[tuple[str, object]]:
    """The objects the installed distributions declare under `group`, each imported once."""
    if group not in _LOADED:
        _LOADED[group] = [loaded for entry in _entry_points(group)
                          if (loaded := _load_one(group, entry)) is not None]
    return _LOADED[group]


def declared(group: str) -> frozenset[str]:
    """The names the installed distributions declare under `group`, without importing any:
    enough for a layer below the registry (a custom dataset naming a plugin's checker kind)
    to accept the name, leaving the loading to the registry that uses it."""
    if group not in _DECLARED:
        _DECLARED[group] = frozenset(entry.name for entry in _entry_points(group))
    return _DECLARED[group]


def register_all(group: str, register: Callable[[str, object], str | None]) -> None:
    """Hand each plugin of `group` to `register` (name, object), once per process whatever
    the number of calls; `register` returns None when it took the plugin, else why not
    (warned about, the plugin left out)."""
    if group in _REGISTERED:
        return
    _REGISTERED.add(group)
    for name, value in load(group):
        refused = register(name, value)
        if refused is not None:
            warn(group, name, refused)


def forget(group: str | None = None) -> None:
    """Load `group` (every group: None) afresh when next asked (tests, a new sys.path)."""
    if group is None:
        _LOADED.clear()
        _DECLARED.clear()
        _REGISTERED.clear()
    else:
        _LOADED.pop(group, None)
        _DECLARED.pop(group, None)
        _REGISTERED.discard(group)


def warn(group: str, name: str, why: str) -> None:
    """The one line a broken plugin gets (its first line of reason only: no traceback)."""
    reason = (why.strip().splitlines() or [""])[0]
    print(f"fcbench: warning: plugin {name!r} ({group}) left out: {reason}", file=sys.stderr)


def _entry_points(group: str) -> list[EntryPoint]:
    """The group's entry points by name (importlib.metadata is imported only now: scanning
    the installed distributions is what a registry pays on its first miss, never --help)."""
    from importlib import metadata

    try:
        return sorted(metadata.entry_points(group=group), key=lambda entry: entry.name)
    except Exception as exc:  # a distribution with unreadable metadata
        warn(group, "*", f"entry points unreadable: {type(exc).__name__}: {exc}")
        return []


def _load_one(group: str, entry: EntryPoint) -> tuple[str, object] | None:
    """The entry point's object, or None with a warning whatever its import raised, except a
    KeyboardInterrupt of a real SIGINT (see the module's docstring)."""
    with _sigint_watch() as interrupted:
        try:
            return entry.name, entry.load()
        except KeyboardInterrupt as exc:
            if interrupted():
                raise
            why = f"{_described(exc)} (no Ctrl-C was pressed)"
        except BaseException as exc:  # a third-party module's SystemExit too
            why = _described(exc)
    warn(group, entry.name, f"cannot load {entry.value}: {why}")
    return None


def _described(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


@contextlib.contextmanager
def _sigint_watch() -> Iterator[Callable[[], bool]]:
    """Yield a question, "did a SIGINT arrive since?", answered by a handler placed in front
    of the current one (which still runs, and raises KeyboardInterrupt as before). Where no
    Python handler can be placed (off the main thread, SIGINT ignored or left to the
    system), no KeyboardInterrupt can come from a signal: the answer is always no."""
    import signal
    import threading

    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        yield lambda: False
        return
    arrived: list[int] = []

    def recorded(signum: int, frame: object) -> object:
        arrived.append(signum)
        return previous(signum, frame)  # type: ignore[arg-type]

    signal.signal(signal.SIGINT, recorded)
    try:
        yield lambda: bool(arrived)
    finally:
        signal.signal(signal.SIGINT, previous)


class Registry(MutableMapping[str, V]):
    """Name -> entry of one extension kind: the built-in entries, those registered at run
    time (`registry[name] = entry`), and the installed plugins of an entry-point group,
    loaded the first time a name is missing or the names are listed.

    `adapt(name, plugin_object)` turns what an entry point holds into an entry, raising
    TypeError or ValueError with the reason when it cannot (the plugin is then left out with
    a warning). A plugin never replaces a built-in entry.
    """

    def __init__(
        self, group: str, builtins: Mapping[str, V], adapt: Callable[[str, object], V]
    ) -> None:
        self.group = group
        self._entries: dict[str, V] = dict(builtins)
        self._builtin = frozenset(builtins)
        self._adapt = adapt

    def __getitem__(self, name: str) -> V:
        if name not in self._entries:
            self._load_plugins()
        return self._entries[name]

    def __setitem__(self, name: str, entry: V) -> None:
        self._entries[name] = entry

    def __delitem__(self, name: str) -> None:
        del self._entries[name]

    def __iter__(self) -> Iterator[str]:
        self._load_plugins()
        return iter(list(self._entries))

    def __len__(self) -> int:
        self._load_plugins()
        return len(self._entries)

    def _load_plugins(self) -> None:
        register_all(self.group, self._take)

    def _take(self, name: str, value: object) -> str | None:
        if name in self._builtin:
            return f"the built-in {name!r} cannot be replaced by a plugin"
        try:
            self._entries.setdefault(name, self._adapt(name, value))
        except (TypeError, ValueError) as exc:
            return str(exc)
        return None
