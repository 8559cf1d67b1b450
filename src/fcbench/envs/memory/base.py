"""What the three memory backends share: the case's configuration and its snapshots.

Officially a memory backend is created once per test entry and `_load_scenario` receives a
deep copy of `initial_config["MemoryAPI_<backend>"]`, which generation fills with
`{"model_result_dir": <result dir>/<model dir>, "scenario": ..., "test_id": <entry id>,
"test_category": <id without its number>}` (spec §2.5 point 4; `initial_config` below builds
it). Loading picks the entry's snapshot files (`snapshots.snapshot_paths`) and restores the
scenario's latest snapshot unless the entry is the first prerequisite of its scenario. A
missing snapshot where one is expected (the earlier prereqs all failed) is not an error
upstream: the memory starts empty with a warning, and so it does here.

At the end of a *prerequisite* conversation, and only then, the conversation loop calls
`_flush_memory_to_local_file()`, which writes the entry's checkpoint and then the scenario's
`_final` file. Questions never write, so they cannot affect one another.

Unlike upstream, the snapshot bookkeeping is private: a backend's comparable state (its
public attributes) is its memory alone.
"""

from __future__ import annotations

import logging
from pathlib import Path
from typing import Any

from fcbench.envs.memory.snapshots import (
    SnapshotError,
    SnapshotPaths,
    read_snapshot,
    snapshot_paths,
    write_snapshot,
)

__all__ = ["MemoryBackend", "MemoryConfigError", "initial_config"]

_log = logging.getLogger(__name__)
_CONFIG_KEYS = ("model_result_dir", "test_id", "scenario")


class MemoryConfigError(ValueError):
    """The case's initial_config for a memory backend is incomplete (one-line message)."""


def initial_config(
    class_name: str, model_result_dir: Path | str, test_id: str, scenario: str
) -> dict[str, dict[str, Any]]:
    """The `initial_config` official generation gives a memory entry (question or prereq)."""
    return {
        class_name: {
            "model_result_dir": Path(model_result_dir),
            "scenario": scenario,
            "test_id": test_id,
            "test_category": test_id.rsplit("_", 1)[0],
        }
    }


class MemoryBackend:
    """Base of the memory backends: snapshot loading and flushing, no public methods."""

    def __init__(self) -> None:
        self._paths: SnapshotPaths | None = None

    def _load_scenario(self, config: dict[str, Any], long_context: bool = False) -> None:
        """Locate this entry's snapshots and restore the scenario's latest memory.

        `long_context` is accepted for the common contract and ignored, as upstream. A config
        without any snapshot key gives a memory that lives only in this instance.
        """
        self._paths = _paths_from(config)
        if self._paths is None or self._paths.starts_empty:
            return
        data = read_snapshot(self._paths.final)
        if data is None:
            _log.warning(
                "no memory snapshot at %s for %s (not the first of its scenario): "
                "the memory starts empty", self._paths.final, config.get("test_id")
            )
            return
        if data:
            try:
                self._restore(data)
            except (KeyError, TypeError, ValueError, AttributeError) as exc:
                raise SnapshotError(
                    f"memory snapshot {self._paths.final} does not fit {type(self).__name__}: "
                    f"{type(exc).__name__}: {exc}"
                ) from None

    def _flush_memory_to_local_file(self) -> None:
        """Write the memory to the entry's checkpoint, then to the scenario's final snapshot."""
        if self._paths is None:
            raise SnapshotError(f"{type(self).__name__} has no snapshot location to write to")
        data = self._export()
        write_snapshot(self._paths.own, data)
        write_snapshot(self._paths.final, data)

    def _export(self) -> dict[str, Any]:
        """The snapshot content, exactly as the official backend writes it."""
        raise NotImplementedError

    def _restore(self, data: dict[str, Any]) -> None:
        """Load a snapshot written by `_export` (or by the official backend)."""
        raise NotImplementedError

    def _dump_core_memory_to_context(self) -> str:
        """The memory text the system prompt shows the model (see `prompt.py`)."""
        raise NotImplementedError


def _paths_from(config: dict[str, Any]) -> SnapshotPaths | None:
    present = [key for key in _CONFIG_KEYS if key in config]
    if not present:
        return None
    missing = [key for key in _CONFIG_KEYS if key not in config]
    if missing:
        raise MemoryConfigError(f"memory initial_config lacks {', '.join(missing)}")
    try:
        return snapshot_paths(
            Path(config["model_result_dir"]), str(config["test_id"]), str(config["scenario"])
        )
    except TypeError as exc:
        raise MemoryConfigError(f"memory initial_config is malformed: {exc}") from None
