"""A case's environments: the one place where environment instances are created.

Multi-turn and agentic cases name the classes they involve (`involved_classes`) and the state
each starts from (`initial_config[ClassName]`). Generation runs the model's calls on one set
of instances, and the checker replays the model's calls and the ground truth's on two more,
each in its own namespace (the official instance names carry it, and those names can show in
results, see `dispatch`). All three are built here, for the case's release (long-context
filler tables differ between releases), so that they cannot drift apart.

Environment classes are found by official name: the multi-turn APIs (`envs.multi_turn.CLASSES`),
the memory backends and the web search API, and classes registered with `register_classes`.
During generation the conversation loop runs every step's calls in a worker thread under a
time budget (`runner.env_calls`); a class attribute `performs_io = True` is informative only.
"""

from __future__ import annotations

import copy
import importlib
import inspect
import json
import marshal
from collections.abc import Mapping
from typing import Any

from fcbench._json import dumps_total, safe_str
from fcbench.core.model import TestCase
from fcbench.envs.multi_turn import CLASSES
from fcbench.envs.multi_turn.dispatch import Dispatcher, instance_label

STATELESS_CLASSES = frozenset({"MathAPI"})
"""Classes upstream never loads a scenario into."""

OMIT_STATE_CLASSES = frozenset({"MemoryAPI_kv", "MemoryAPI_vector", "MemoryAPI_rec_sum",
                                "WebSearchAPI"})
"""Classes the inference log's state entries leave out (upstream's OMIT_STATE_INFO_CLASSES)."""

_FAMILIES: dict[str, str] = {}
"""The agentic classes and those registered at run time (the agentic packages' class lists
are read on first need, so multi-turn work never imports them)."""

_LOADED: dict[str, type[Any]] = {}


def register_classes(classes: Mapping[str, str]) -> None:
    """Make more environment classes loadable by official name (`"module:Class"` targets)."""
    _families().update(classes)


def _families() -> dict[str, str]:
    if not _FAMILIES:
        from fcbench.envs.memory import MEMORY_CLASSES
        from fcbench.envs.web_search import WEB_CLASSES

        _FAMILIES.update({**MEMORY_CLASSES, **WEB_CLASSES})
    return _FAMILIES


def environment_class(name: str) -> type[Any]:
    """The class implementing an official class name, imported once (KeyError if unknown)."""
    target = CLASSES.get(name) or _families()[name]
    cls = _LOADED.get(target)
    if cls is None:
        module, _, attribute = target.partition(":")
        cls = _LOADED[target] = getattr(importlib.import_module(module), attribute)
    return cls


_TAKES_RELEASE: dict[type[Any], bool] = {}


def takes_release(cls: type[Any]) -> bool:
    """Whether a class's `_load_scenario` takes the `release` keyword (the environments whose
    data differs between releases do; others need not)."""
    known = _TAKES_RELEASE.get(cls)
    if known is None:
        try:
            parameters = inspect.signature(cls._load_scenario).parameters
        except (AttributeError, TypeError, ValueError):
            parameters = {}  # type: ignore[assignment]
        known = "release" in parameters or any(
            p.kind is inspect.Parameter.VAR_KEYWORD for p in parameters.values()
        )
        _TAKES_RELEASE[cls] = known
    return known


def is_long_context(test_id: str) -> bool:
    """Upstream decides from the id's category part (`multi_turn_long_context_3`)."""
    category = test_id.rsplit("_", 1)[0]
    return "long_context" in category or "composite" in category


def scenario_copy(value: Any) -> Any:
    """A private copy of a scenario for one instance; JSON data (the usual case) goes
    through `marshal`, several times faster than `copy.deepcopy`."""
    try:
        return marshal.loads(marshal.dumps(value))
    except ValueError:
        return copy.deepcopy(value)


class Scenario:
    """The instances of one case in one namespace; state persists across `execute` calls.

    Created lazily on the first call, so a checker that never executes anything (an empty
    answer) builds nothing.
    """

    def __init__(self, case: TestCase, namespace: str, release: str | None = None) -> None:
        self.case = case
        self.namespace = namespace
        self.release = release
        self._instances: dict[str, object] | None = None
        self._dispatcher: Dispatcher | None = None

    @property
    def instances(self) -> dict[str, object]:
        if self._instances is None:
            self._create()
        assert self._instances is not None
        return self._instances

    @property
    def created(self) -> bool:
        return self._instances is not None

    def execute(self, calls: list[str]) -> list[str]:
        """One result string per call string (errors are results, as upstream)."""
        if self._dispatcher is None:
            self._create()
        assert self._dispatcher is not None
        return self._dispatcher.execute(calls)

    def state_log(self) -> list[dict[str, Any]]:
        """Snapshots of the stateful instances' public attributes (JSON-safe copies), as the
        official inference log records them."""
        log = []
        for class_name, instance in self.instances.items():
            if class_name in STATELESS_CLASSES or class_name in OMIT_STATE_CLASSES:
                continue
            state = public_state(instance)
            try:
                content = json.loads(json.dumps(json_safe(state), ensure_ascii=False))
            except (ValueError, RecursionError):  # a big integer, too deep: kept as text
                content = dumps_total(state)
            log.append({"role": "state_info", "class_name": class_name, "content": content})
        return log

    def _create(self) -> None:
        config: dict[str, Any] = self.case.extras.get("initial_config") or {}
        long_context = is_long_context(self.case.id)
        instances: dict[str, object] = {}
        labels: dict[str, str] = {}
        for class_name in self.case.extras.get("involved_classes") or []:
            instance = environment_class(class_name)()
            if class_name not in STATELESS_CLASSES:
                options: dict[str, Any] = {"long_context": long_context}
                if takes_release(type(instance)):
                    options["release"] = self.release
                instance._load_scenario(scenario_copy(config.get(class_name, {})), **options)
            instances[class_name] = instance
            labels[class_name] = instance_label(self.namespace, self.case.id, class_name)
        self._instances = instances
        self._dispatcher = Dispatcher(instances, labels)


def public_state(instance: object) -> dict[str, Any]:
    """The compared state: instance attributes not starting with `_`."""
    return {k: v for k, v in vars(instance).items() if not k.startswith("_")}


def json_safe(value: Any) -> Any:
    """What upstream writes for a value: JSON values as they are, anything else as `str`.

    Dicts and lists are walked; every other value is kept if `json.dumps` accepts it. The
    whole value is tried first, since it usually serialises as is. Nothing is copied.
    Total over any state (issue 30): a key json cannot write becomes its text, an integer
    past the 4,300-digit limit is kept (writers print it in full, `_json.dumps_total`), an
    object whose `__str__` raises is named by its type, and a part nested past
    `_SAFE_DEPTH` that json cannot write whole becomes its JSON text.
    """
    return _json_safe(value, 0)


_SAFE_DEPTH = 200
"""Levels `json_safe` walks; a part below that json cannot write whole is kept as its JSON
text (`_json.dumps_total`), so depth costs no recursion error."""


def _json_safe(value: Any, depth: int) -> Any:
    try:
        json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError, RecursionError):
        pass
    else:
        return value
    if depth >= _SAFE_DEPTH:
        return dumps_total(value)
    if isinstance(value, dict):
        return {_key(k): _json_safe(v, depth + 1) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(item, depth + 1) for item in value]
    if isinstance(value, int):
        return value
    return safe_str(value)


def _key(key: Any) -> Any:
    """A key as json can write it (str, number, bool, None), else its text."""
    return key if key is None or isinstance(key, (str, int, float)) else safe_str(key)
