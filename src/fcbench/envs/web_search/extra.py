"""Whether the `web` extra's packages are installed, said the way a user can act on."""

from __future__ import annotations

import importlib.util

__all__ = ["missing"]


def missing(user: str, *modules: str) -> str | None:
    """A one-line reason naming the first of `modules` that is not installed, or None."""
    for module in modules:
        if importlib.util.find_spec(module) is None:
            return f"{user} needs {module!r}: pip install 'fcbench[web]'"
    return None
