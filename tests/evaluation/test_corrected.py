"""Scores both ways: under the profile, a score file's header also says how the category
scores as upstream does, listing each corrected case with its upstream numbers."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fcbench import corrections
from fcbench.evaluation import evaluate


@pytest.fixture(autouse=True)
def default_profile() -> Iterator[None]:
    yield
    corrections.use_profile(None)


def answer(case_id: str, unit: str) -> str:
    command = {"live_simple_141-94-0": "docker --version", "live_simple_143-95-0": "docker ps"}
    return json.dumps({"id": case_id, "result": (
        f"[cmd_controller.execute(command='{command[case_id]}', unit='{unit}')]")})


def header(root: Path, profile: str | None) -> dict[str, Any]:
    corrections.use_profile(profile)
    score_dir = root / f"score-{profile}"
    report = evaluate(root / "result", score_dir=score_dir)
    upstream = report.models["m"].categories["live_simple"].upstream
    assert (upstream is not None) == (profile is not None)  # the console's both-ways line
    (path,) = score_dir.rglob("BFCL_v4_live_simple_score.json")
    first: dict[str, Any] = json.loads(path.read_text().splitlines()[0])
    return first


def test_corrected_cases_scored_both_ways(fetched_home: Path, tmp_path: Path) -> None:
    """Two corrected cases (one passing only with the fix), one plain failure."""
    folder = tmp_path / "result" / "m" / "live"
    folder.mkdir(parents=True)
    (folder.parent / "model.json").write_text(json.dumps({"mode": "prompt"}))
    lines = [answer("live_simple_141-94-0", "seconds"), answer("live_simple_143-95-0", "N/A"),
             json.dumps({"id": "live_simple_0-0-0", "result": "no call"})]
    (folder / "BFCL_v4_live_simple_result.json").write_text("\n".join(lines))
    upstream = header(tmp_path, None)
    assert upstream["correct_count"] == 1 and "corrections_upstream" not in upstream
    corrected = header(tmp_path, "community-2026")
    assert corrected["correct_count"] == 2 and corrected["corrections"] == "community-2026"
    both = corrected["corrections_upstream"]
    assert (both["correct_count"], both["total_count"]) == (1, 3)
    assert both["accuracy"] == upstream["accuracy"]
    assert both["cases"] == [
        {"id": "live_simple_141-94-0", "fix": "ground-truth-enum-units", "upstream": [1329, 1314],
         "valid": True, "upstream_valid": False},
        {"id": "live_simple_143-95-0", "fix": "ground-truth-enum-units", "upstream": [1329, 1314],
         "valid": True, "upstream_valid": True},
    ]


def test_the_console_shows_both_ways(
    fetched_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from fcbench.api import print_evaluation
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    folder = tmp_path / "result" / "m" / "live"
    folder.mkdir(parents=True)
    (folder.parent / "model.json").write_text(json.dumps({"mode": "prompt"}))
    (folder / "BFCL_v4_live_simple_result.json").write_text("\n".join(
        [answer("live_simple_141-94-0", "seconds"), answer("live_simple_143-95-0", "N/A")]))
    corrections.use_profile("community-2026")
    print_evaluation(evaluate(tmp_path / "result"), DEFAULT_RELEASE, None, None)
    shown = capsys.readouterr().out
    # 143's verdict is the same both ways: not listed among the ones the fixes decided
    assert ("m live_simple: 100.00% corrected, 50.00% upstream; verdict changed: "
            "live_simple_141-94-0 (#1329)\n") in shown


def test_the_console_says_when_no_verdict_changed(
    fetched_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A corrected case judged alike both ways: the line says so instead of listing it."""
    from fcbench.api import print_evaluation
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    folder = tmp_path / "result" / "m" / "live"
    folder.mkdir(parents=True)
    (folder.parent / "model.json").write_text(json.dumps({"mode": "prompt"}))
    (folder / "BFCL_v4_live_simple_result.json").write_text(
        answer("live_simple_143-95-0", "N/A"))
    corrections.use_profile("community-2026")
    print_evaluation(evaluate(tmp_path / "result"), DEFAULT_RELEASE, None, None)
    shown = capsys.readouterr().out
    assert "m live_simple: 100.00% corrected, 100.00% upstream; no verdict changed\n" in shown
    assert "live_simple_143-95-0" not in shown and "verdict changed:" not in shown


def weather(case_id: str, *units: str) -> str:
    cities = ("Boston, MA", "San Francisco, CA")
    calls = ", ".join(f"get_current_weather(location='{c}', unit='{u}')"
                      for c, u in zip(cities, units, strict=True))
    return json.dumps({"id": case_id, "result": f"[{calls}]"})


def test_lenient_defaults_cases_are_scored_both_ways_and_named(
    fetched_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """live_parallel_5-2-0 allows `unit` 'fahrenheit' or omitted; its doc's default is
    'celsius'. Combined with community-2026 (whose unit fix edits other cases)."""
    from fcbench.api import print_evaluation
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    folder = tmp_path / "result" / "m" / "live"
    folder.mkdir(parents=True)
    (folder.parent / "model.json").write_text(json.dumps({"mode": "prompt"}))
    (folder / "BFCL_v4_live_parallel_result.json").write_text(
        weather("live_parallel_5-2-0", "celsius", "fahrenheit"))
    corrections.use_profile("lenient-defaults,community-2026")
    report = evaluate(tmp_path / "result", score_dir=tmp_path / "score")
    (path,) = (tmp_path / "score").rglob("BFCL_v4_live_parallel_score.json")
    first = json.loads(path.read_text().splitlines()[0])
    assert first["correct_count"] == 1
    assert first["corrections"] == "community-2026,lenient-defaults"
    assert first["corrections_upstream"]["cases"] == [
        {"id": "live_parallel_5-2-0", "fix": "lenient-defaults", "upstream": [],
         "valid": True, "upstream_valid": False, "parameters": ["unit"]}]
    assert first["corrections_upstream"]["correct_count"] == 0
    print_evaluation(report, DEFAULT_RELEASE, None, None)
    assert ("m live_parallel: 100.00% corrected, 0.00% upstream; verdict changed: "
            "live_parallel_5-2-0 (lenient-defaults: unit)") in capsys.readouterr().out
    corrections.use_profile(None)  # the default: the official failure, no both-ways header
    upstream = json.loads(evaluate_first(tmp_path))
    assert upstream["correct_count"] == 0 and "corrections_upstream" not in upstream


def evaluate_first(root: Path) -> str:
    evaluate(root / "result", score_dir=root / "score-none")
    (path,) = (root / "score-none").rglob("BFCL_v4_live_parallel_score.json")
    return path.read_text().splitlines()[0]
