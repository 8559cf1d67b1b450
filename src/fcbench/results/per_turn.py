"""Per-turn accuracy's files (fcbench metric, `score.per_turn`): one JSON document per model
and multi-turn category, `fcbench_per_turn_<category>.json`, beside the official score file.

Why a file of its own: the official score files stay byte-faithful (their header and records
are bfcl-eval's), and a score folder, which is what people keep and share, still carries the
per-case outcomes that the CSV, exports and report read back. The name does not match the
score-file pattern, so nothing that reads score files sees it.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any

from fcbench._atomic import replace_text
from fcbench.layout import score_path

__all__ = ["PREFIX", "per_turn_path", "read_per_turn_docs", "write_per_turn"]

PREFIX = "fcbench_per_turn_"


def per_turn_path(score_dir: Path, model: str, category: str) -> Path:
    """`<score_dir>/<model>/<group>/fcbench_per_turn_<category>.json`."""
    return score_path(score_dir, model, category).parent / f"{PREFIX}{category}.json"


def write_per_turn(score_dir: Path, model: str, doc: Mapping[str, Any]) -> Path:
    path = per_turn_path(score_dir, model, str(doc["category"]))
    path.parent.mkdir(parents=True, exist_ok=True)
    replace_text(path, json.dumps(doc, ensure_ascii=False) + "\n")
    return path


def read_per_turn_docs(model_dir: Path, note: Callable[[str], None] | None = None
                       ) -> dict[str, dict[str, Any]]:
    """category -> document, for every per-turn file under one model's score folder; an
    unreadable one is left out with a line to `note`."""
    found: dict[str, dict[str, Any]] = {}
    if not Path(model_dir).is_dir():
        return found
    for path in sorted(Path(model_dir).rglob(f"{PREFIX}*.json")):
        try:
            doc = json.loads(path.read_text(encoding="utf-8"))
            if not isinstance(doc, dict):
                raise ValueError("not a JSON object")
        except (OSError, ValueError, UnicodeError) as exc:
            if note is not None:
                note(f"{path}: per-turn accuracy left out ({exc})")
            continue
        found[path.name[len(PREFIX):-len(".json")]] = doc
    return found
