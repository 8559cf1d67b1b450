"""Where memory snapshots live, and writing them so that a crash never leaves half a file.

The memory categories carry state from one conversation to the next through JSON files in
the model's result folder (official layout, spec §7.2 and §8.1):

    <model_result_dir>/agentic/memory/<backend>/memory_snapshot/
        prereq_checkpoints/<prereq id>.json   one per prerequisite conversation, after it ran
        <scenario>_final.json                 the latest state of the scenario's chain

`<backend>` comes from the test id (`memory_kv_prereq_3-customer-3` -> `kv`). Only the
prerequisite conversations write (both files, the checkpoint first); every later prereq and
every question reads `<scenario>_final.json`, except the first prereq of a scenario (id
ending in `-0`), which starts empty. The folder is `fcbench.layout.memory_snapshot_dir`.

Writes go to a temporary file in the same folder, are flushed and fsynced, then renamed over
the target (and the folder fsynced): a reader, or the next run after a `kill -9`, sees the old
snapshot or the new one, never a torn one. The JSON text is the official one
(`json.dump(..., indent=4)`), so either tool can continue from the other's snapshots.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from fcbench import redact
from fcbench._atomic import replace_file

__all__ = [
    "SnapshotError",
    "SnapshotPaths",
    "backend_of",
    "is_first_prereq",
    "is_prereq",
    "read_snapshot",
    "snapshot_paths",
    "write_snapshot",
]

MEMORY_PREFIX = "memory_"
SNAPSHOT_FOLDER = "memory_snapshot"
CHECKPOINT_FOLDER = "prereq_checkpoints"
FINAL_SUFFIX = "_final.json"


class SnapshotError(Exception):
    """A snapshot cannot be read or written (one-line message naming the file)."""


@dataclass(frozen=True)
class SnapshotPaths:
    """The files one memory test entry reads and writes."""

    own: Path
    """Where this entry's snapshot is written (prereqs only write; a question never does)."""
    final: Path
    """`<scenario>_final.json`: read at start (unless `starts_empty`), rewritten by prereqs."""
    starts_empty: bool
    """The first prerequisite conversation of a scenario ignores any existing snapshot."""


def is_prereq(test_id: str) -> bool:
    """A prerequisite conversation (the official test is a substring test on the id)."""
    return "prereq" in test_id


def is_first_prereq(test_id: str) -> bool:
    """The first conversation of a scenario's chain (`...-<scenario>-0`)."""
    return is_prereq(test_id) and test_id.endswith("-0")


def backend_of(test_id: str) -> str:
    """`kv`, `vector` or `rec_sum` from a memory id (`memory_rec_sum_prereq_2-student-2`)."""
    category = test_id.replace("_prereq", "").rsplit("_", 1)[0]
    if not category.startswith(MEMORY_PREFIX) or category == MEMORY_PREFIX.rstrip("_"):
        raise SnapshotError(f"{test_id!r} is not a memory test id")
    return category[len(MEMORY_PREFIX):]


def snapshot_folder(model_result_dir: Path | str, test_id: str) -> Path:
    """`<model_result_dir>/agentic/memory/<backend>/memory_snapshot` (see `fcbench.layout`)."""
    from fcbench.layout import memory_snapshot_dir

    return memory_snapshot_dir(Path(model_result_dir), MEMORY_PREFIX + backend_of(test_id))


def snapshot_paths(model_result_dir: Path | str, test_id: str, scenario: str) -> SnapshotPaths:
    """The snapshot files of one memory entry, by the official rules."""
    folder = snapshot_folder(model_result_dir, test_id)
    own_folder = folder / CHECKPOINT_FOLDER if is_prereq(test_id) else folder
    return SnapshotPaths(
        own=own_folder / f"{test_id}.json",
        final=folder / f"{scenario}{FINAL_SUFFIX}",
        starts_empty=is_first_prereq(test_id),
    )


def snapshot_text(data: dict[str, Any]) -> str:
    """The official file content: `json.dump(data, f, indent=4)` (ASCII, no final newline)."""
    return json.dumps(data, indent=4)


def write_snapshot(path: Path, data: dict[str, Any]) -> None:
    """Replace `path` with `data` atomically and durably (temp file, fsync, rename, fsync)."""
    try:
        replace_file(path, redact.values(snapshot_text(data)).encode("utf-8"))  # no key kept
    except (OSError, TypeError, ValueError) as exc:
        raise SnapshotError(f"cannot write memory snapshot {path}: {exc}") from None


def read_snapshot(path: Path) -> dict[str, Any] | None:
    """The snapshot at `path`, or None when there is none; a broken one is a SnapshotError."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError) as exc:
        raise SnapshotError(f"cannot read memory snapshot {path}: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise SnapshotError(f"memory snapshot {path} is not valid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise SnapshotError(f"memory snapshot {path} does not hold a JSON object")
    return data
