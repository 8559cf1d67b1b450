"""A small hand-made scored run for the exporters: score files written with fcbench's own
writer, a result folder with model.json, and the official-layout CSVs of the same folder (the
numbers every export must agree with). Used by tests/export and tests/cli/test_export.py."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from fcbench.dataset.fetch import DEFAULT_RELEASE
from fcbench.layout import result_path
from fcbench.results.score_files import write_category_score
from fcbench.score.aggregate import CategoryScore

MODEL = "org/m-7b"
FOLDER = "org_m-7b"
SCORES = {
    # category: (correct, total judged); sizes from the release
    "simple_python": (300, 400),
    "simple_java": (60, 100),
    "simple_javascript": (30, 50),
    "multiple": (150, 200),
    "live_simple": (100, 200),  # partial: the release has more cases
    "irrelevance": (200, 240),
    "multi_turn_base": (100, 200),
    "exec_simple": (90, 99),  # one case skipped
}
SKIPPED = [{"id": "exec_simple_7", "reason": "web service unreachable"}]
MANIFEST = {
    "model": MODEL, "backend": "openai", "mode": "fc", "fc_names": "underscore",
    "fc_args": "json_string", "sampling": {"temperature": 0.001, "seed": 7},
    "max_tokens": 1200, "corrections": "none", "fcbench_version": "0.1.0",
    "dataset": {"release": DEFAULT_RELEASE},
    "base_url": "http://inference.internal:8000/v1", "runs": [{"warnings": []}],
}


@dataclass(frozen=True)
class Scored:
    score_dir: Path
    result_dir: Path
    sizes: dict[str, int]

    def csv(self, name: str = "data_overall.csv") -> list[dict[str, str]]:
        """A CSV of the score folder, read as every_eval_ever's BFCL adapter reads it."""
        import csv

        with (self.score_dir / name).open(encoding="utf-8", newline="") as f:
            return list(csv.DictReader(f))


def write_scores(score_dir: Path, folder: str, scores: dict[str, tuple[int, int]],
                 sizes: dict[str, int], extra: dict[str, dict[str, Any]] | None = None) -> None:
    for category, (correct, total) in scores.items():
        score = CategoryScore(category, correct, total, sizes[category])
        write_category_score(score_dir, folder, score, [], (extra or {}).get(category))


@pytest.fixture
def scored(fetched_home: Path, tmp_path: Path) -> Scored:
    from fcbench.api import dataset_sizes
    from fcbench.report.leaderboard import usage_of, write_leaderboard

    sizes = dataset_sizes(DEFAULT_RELEASE, None)
    score_dir, result_dir = tmp_path / "score", tmp_path / "result"
    write_scores(score_dir, FOLDER, SCORES, sizes,
                 {"exec_simple": {"skipped_count": 1, "skipped": SKIPPED}})
    model_dir = result_dir / FOLDER
    model_dir.mkdir(parents=True)
    (model_dir / "model.json").write_text(json.dumps(MANIFEST), encoding="utf-8")
    answer = result_path(model_dir, "simple_python")
    answer.parent.mkdir(parents=True)
    answer.write_text(json.dumps({"id": "simple_python_0", "result": "[]", "latency": 2.5,
                                  "input_token_count": 10, "output_token_count": 5}) + "\n")
    write_leaderboard(score_dir, sizes, usage=usage_of([result_dir]))
    return Scored(score_dir, result_dir, sizes)


def build_document(scored: Scored, **options: Any) -> dict[str, Any]:
    from fcbench.export.results import build

    return build([scored.score_dir], scored.sizes, release=DEFAULT_RELEASE,
                 result_dirs=[scored.result_dir], **options)
