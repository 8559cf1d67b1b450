"""fcbench: a faithful, fast, light re-implementation of the BFCL evaluation.

The public API (`evaluate`, `load_dataset`) is imported lazily so that `import fcbench` and
`fcbench --help` stay fast.
"""

from __future__ import annotations

from typing import Any

__version__ = "0.1.0"
__all__ = ["evaluate", "load_dataset"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from fcbench import api

        return getattr(api, name)
    raise AttributeError(f"module 'fcbench' has no attribute {name!r}")
