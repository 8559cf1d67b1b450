"""The function library of the executable categories (exec_* and rest).

Three kinds of functions, by name:

* `maths.PURE_FUNCTIONS`: pure computations, run anywhere;
* `services.SERVICE_FUNCTIONS`: web-service lookups, answered by a `ServiceBackend`
  (live / replay / offline, see `backends`), plus `requests.get` for `rest`;
* doc-only functions (`distractors`, and two OMDb lookups) that the datasets' docs offer but
  the official library never had.

`OFFICIAL_NAMES` is the allow-list the checker runs: the names the 2024-era evaluator could
execute. `call(name, kwargs, backend)` runs one function; nothing here evaluates text.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from fcbench.envs.exec_functions.backends import ServiceBackend, ServiceUnavailable
from fcbench.envs.exec_functions.distractors import DISTRACTOR_FUNCTIONS
from fcbench.envs.exec_functions.maths import PURE_FUNCTIONS
from fcbench.envs.exec_functions.services import (
    DOC_ONLY_SERVICES,
    SERVICE_FUNCTIONS,
    requests_get,
)

__all__ = [
    "ALL_NAMES",
    "OFFICIAL_NAMES",
    "REST_NAME",
    "ServiceUnavailable",
    "call",
    "needs_service",
]

REST_NAME = "requests.get"

OFFICIAL_NAMES = frozenset({*PURE_FUNCTIONS, *SERVICE_FUNCTIONS, REST_NAME})
"""What the official evaluator could run (its library, plus `requests.get` for rest)."""

ALL_NAMES = frozenset({*OFFICIAL_NAMES, *DISTRACTOR_FUNCTIONS, *DOC_ONLY_SERVICES})

_SERVICES: dict[str, Callable[..., Any]] = {
    **SERVICE_FUNCTIONS,
    **DOC_ONLY_SERVICES,
    REST_NAME: requests_get,
}
_PURE: dict[str, Callable[..., Any]] = {**PURE_FUNCTIONS, **DISTRACTOR_FUNCTIONS}


def needs_service(name: str) -> bool:
    """True when the function asks a web service (so it needs a backend that answers)."""
    return name in _SERVICES


def call(name: str, args: list[Any], kwargs: dict[str, Any], backend: ServiceBackend) -> Any:
    """Run one library function on already-literal arguments.

    Raises NameError for an unknown name (the official message for a missing function),
    ServiceUnavailable when the backend cannot answer, or whatever the function raises.
    """
    if name in _PURE:
        return _PURE[name](*args, **kwargs)
    if name in _SERVICES:
        return _SERVICES[name](backend, *args, **kwargs)
    raise NameError(f"name {name!r} is not defined")
