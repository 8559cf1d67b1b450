"""The hostile corpus (`tests/hostile/decoding.py`): every answer decoded in a process of its
own ends within 10 s and 500 MB over a normal answer's process, as a recorded failure; and
`fcbench evaluate` over a result folder holding them beside normal answers."""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from fcbench._json import loads_numbers
from fcbench.cli import main
from hostile.decoding import HOSTILE, NORMAL, Hostile, measure

SECONDS = 10.0
MEGABYTES_OVER_BASELINE = 500.0


@pytest.fixture(scope="module")
def baseline_mb() -> float:
    normal = measure(NORMAL.name)
    assert normal.outcome.get("calls") == 1, normal.outcome
    return normal.peak_mb


@pytest.mark.parametrize("entry", HOSTILE, ids=lambda entry: entry.name)
def test_hostile_answer_is_bounded_and_fails(entry: Hostile, baseline_mb: float) -> None:
    measured = measure(entry.name, timeout=SECONDS * 3)
    outcome = measured.outcome
    assert "crash" not in outcome and "timeout" not in outcome, outcome
    assert measured.seconds <= SECONDS, measured
    assert measured.peak_mb - baseline_mb <= MEGABYTES_OVER_BASELINE, measured
    if entry.refused:
        assert outcome.get("failure") == "ast_decoder:decoder_failed", outcome
        assert outcome["reason"] or entry.name == "deep_unary"  # ast.parse's bare MemoryError
    else:
        assert "failure" in outcome or "calls" in outcome, outcome


def _failures(score_file: Path) -> dict[str, str]:
    """id -> error_type of the failed cases a score file records."""
    lines = score_file.read_text(encoding="utf-8").splitlines()[1:]
    return {record["id"]: record["error_type"] for record in map(loads_numbers, lines)}


def test_evaluate_records_hostile_answers_and_scores_the_rest_unchanged(
    fetched_home: Path, tmp_path: Path
) -> None:
    """`fcbench evaluate` over a normal model and its copy with hostile answers in place of
    the first cases: no traceback, every hostile answer a recorded failure, every other
    case's verdict the normal model's."""
    results, scores = tmp_path / "result", tmp_path / "score"
    categories = {"python": "simple_python", "execute": "simple_python",
                  "java": "simple_java", "javascript": "simple_javascript"}
    generated = CliRunner().invoke(main, [
        "generate", "--model", "ground-truth", "--name", "normal", "--mode", "prompt",
        "--categories", ",".join(sorted(set(categories.values()))),
        "--result-dir", str(results)], catch_exceptions=False)
    assert generated.exit_code == 0, generated.output
    shutil.copytree(results / "normal", results / "hostile",
                    ignore=shutil.ignore_patterns(".fcbench.lock"))
    replaced: dict[str, dict[str, Hostile]] = {}
    for entry in HOSTILE:
        if entry.route in categories:
            replaced.setdefault(categories[entry.route], {})[entry.name] = entry
    hostile_ids: dict[str, Hostile] = {}
    for category, entries in replaced.items():
        path = results / "hostile" / "non_live" / f"BFCL_v4_{category}_result.json"
        rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        for row, entry in zip(rows, entries.values(), strict=False):
            row["result"] = entry.build()
            hostile_ids[row["id"]] = entry
        path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    assert len(hostile_ids) >= 20

    started = time.perf_counter()
    evaluated = CliRunner().invoke(main, [
        "evaluate", "--result-dir", str(results), "--score-dir", str(scores),
        "--categories", ",".join(replaced), "--no-report"], catch_exceptions=False)
    assert evaluated.exit_code == 0, evaluated.output
    assert time.perf_counter() - started < 60
    assert "Traceback" not in evaluated.output
    for category in replaced:
        name = f"BFCL_v4_{category}_score.json"
        normal = _failures(scores / "normal" / "non_live" / name)
        hostile = _failures(scores / "hostile" / "non_live" / name)
        mine = {case for case in hostile_ids if case.startswith(f"{category}_")}
        assert set(hostile) == set(normal) | mine, category
        assert all(hostile[case] == normal[case] for case in normal if case not in mine)
        for case in mine:
            if hostile_ids[case].refused:
                assert hostile[case] == "ast_decoder:decoder_failed", (case, hostile[case])
