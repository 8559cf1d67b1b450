"""The stateful APIs that multi-turn (and agentic) cases run against.

Each class is fcbench's own implementation of an official backend, written from the function
docs in the fetched data (`multi_turn_func_doc/*.json`) and the behaviour spec. The contract
every class follows:

- a no-argument constructor, then `_load_scenario(config: dict, long_context: bool = False,
  release: str | None = None)` which loads the case's `initial_config[ClassName]` (a deep
  copy is passed in) for the case's dataset release (`envs.scenario` is the one caller);
- one public method per function doc, with the doc's parameter names; a method returns what
  the official backend returns (usually a dict), or raises where the official one raises;
- the comparable state is every instance attribute whose name does not start with `_`.

`CLASSES` maps the official class names (used by `involved_classes` in the data) to the
module and class that implement them; `load_class` imports one on demand.
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

CLASSES: dict[str, str] = {
    "GorillaFileSystem": "fcbench.envs.multi_turn.file_system:GorillaFileSystem",
    "MathAPI": "fcbench.envs.multi_turn.math_api:MathAPI",
    "MessageAPI": "fcbench.envs.multi_turn.message_api:MessageAPI",
    "TwitterAPI": "fcbench.envs.multi_turn.posting_api:TwitterAPI",
    "TicketAPI": "fcbench.envs.multi_turn.ticket_api:TicketAPI",
    "TradingBot": "fcbench.envs.multi_turn.trading_bot:TradingBot",
    "TravelAPI": "fcbench.envs.multi_turn.travel_booking:TravelAPI",
    "VehicleControlAPI": "fcbench.envs.multi_turn.vehicle_control:VehicleControlAPI",
}


def load_class(name: str) -> type[Any]:
    """The class implementing an official backend name (KeyError if unknown)."""
    module, _, attribute = CLASSES[name].partition(":")
    cls: type[Any] = getattr(importlib.import_module(module), attribute)
    return cls


def reset_process_state() -> None:
    """Undo the process-wide state some official backends share between instances.

    Upstream, TravelAPI's long-context filler objects and TwitterAPI's default tag/mention
    lists are shared by every instance in a process, so one case can change what a later one
    sees. The official evaluator scores each model in a fresh process; fcbench calls this
    before each model's answers to a multi-turn category to start from that same state.
    """
    for reset in _module_hooks("reset_process_state"):
        reset()


@contextmanager
def preserved_process_state() -> Iterator[None]:
    """The process-wide state the backends share (`reset_process_state`) as it was on entry,
    once the block ends: replays fcbench adds to the official one (per-turn accuracy,
    `check.turns`) must not change what later cases see. Each module that shares state
    offers `snapshot_process_state() -> restore`."""
    restores = [snapshot() for snapshot in _module_hooks("snapshot_process_state")]
    try:
        yield
    finally:
        for restore in restores:
            restore()


def _module_hooks(name: str) -> list[Callable[[], Any]]:
    """The function `name` of each loaded backend module that has one (a module not imported
    yet holds no state)."""
    found = []
    for target in CLASSES.values():
        hook = getattr(sys.modules.get(target.partition(":")[0]), name, None)
        if callable(hook):
            found.append(hook)
    return found
