"""`fcbench.evaluate`: leaderboards keep every model's cost and latency, nothing-scored runs
write nothing."""

from __future__ import annotations

import json
from pathlib import Path

from fake_openai import FakeOpenAI
from fcbench.api import evaluate
from fcbench.pipeline import generate


def board(score_dir: Path) -> dict[str, dict[str, object]]:
    models = json.loads((score_dir / "leaderboard.json").read_text())["models"]
    return {m["model"]: m for m in models}


def overall_rows(score_dir: Path) -> dict[str, list[str]]:
    lines = (score_dir / "data_overall.csv").read_text().splitlines()[1:]
    return {row.split(",")[2]: row.split(",") for row in lines}


def test_a_second_model_does_not_blank_the_first_ones_cost(fetched_home: Path,
                                                          tmp_path: Path) -> None:
    result, score = tmp_path / "result", tmp_path / "score"
    with FakeOpenAI(delay=0.002) as server:
        for name in ("a", "b"):
            generate("m", name=name, categories=["irrelevance"], limit=20, mode="prompt",
                     base_url=server.base_url, result_dir=result)
    evaluate(result, models=["a"], score_dir=score)
    first = board(score)["a"]
    assert first["latency"]["mean"] is not None  # type: ignore[index]
    evaluate(result, models=["b"], score_dir=score)
    both = board(score)
    assert both["a"]["latency"] == first["latency"] and both["a"]["cost"] == first["cost"]
    assert both["b"]["latency"]["mean"] is not None  # type: ignore[index]
    rows = overall_rows(score)
    assert "N/A" not in rows["a"][4:8] and "N/A" not in rows["b"][4:8]
    evaluate(result, score_dir=tmp_path / "together")  # both at once, the official way
    assert overall_rows(tmp_path / "together")["a"] == rows["a"]


def test_nothing_scored_writes_no_boards(fetched_home: Path, tmp_path: Path) -> None:
    result = tmp_path / "result"
    generate("ground-truth", categories=["irrelevance"], result_dir=result)
    report = evaluate(result, categories=["simple_python"], score_dir=tmp_path / "score")
    assert not any(m.categories for m in report.models.values())
    assert not (tmp_path / "score").exists()
