"""Integers past Python's 4,300-digit limit met by `fcbench evaluate` (issue 30): answers
`base=10**4400` and a 3,700-digit hex literal, a 5,000-digit `latency` and token count. The
run ends with exit 0, those cases are failures with the number written whole, every other
case keeps its verdict, and the score files, CSVs, leaderboard and report are written (and
`fcbench report` reads the score files back)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from fcbench import _json as fast_json
from fcbench.cli import main
from report_pages import documents

RESULT = Path("non_live") / "BFCL_v4_simple_python_result.json"
SCORE = Path("non_live") / "BFCL_v4_simple_python_score.json"
DIGITS = "1" * 5000


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def records(score_file: Path) -> dict[str, dict[str, Any]]:
    lines = score_file.read_text(encoding="utf-8").split("\n")[1:]
    return {r["id"]: r for r in map(fast_json.loads_numbers, filter(None, lines))}


def test_evaluate_scores_answers_and_lines_with_integers_past_the_limit(
    fetched_home: Path, tmp_path: Path
) -> None:
    results, scores = tmp_path / "result", tmp_path / "score"
    made = cli("generate", "--model", "ground-truth", "--name", "normal", "--mode", "prompt",
               "--categories", "simple_python", "--limit", "6", "--result-dir", str(results))
    assert made.exit_code == 0, made.output
    shutil.copytree(results / "normal", results / "big",
                    ignore=shutil.ignore_patterns(".fcbench.lock"))
    path = results / "big" / RESULT
    lines = path.read_text(encoding="utf-8").splitlines()
    rows = [json.loads(line) for line in lines]
    assert [row["id"] for row in rows[:2]] == ["simple_python_0", "simple_python_1"]
    rows[0]["result"] = "[calculate_triangle_area(base=10**4400, height=5)]"
    rows[1]["result"] = "[math.factorial(number=0x" + "f" * 3700 + ")]"
    lines[:2] = [json.dumps(row) for row in rows[:2]]
    lines[2] = lines[2][:-1] + ', "latency": ' + DIGITS + "}"
    lines[3] = lines[3][:-1] + ', "input_token_count": -' + DIGITS + ', "x": [' + DIGITS + "]}"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    evaluated = cli("evaluate", "--result-dir", str(results), "--score-dir", str(scores),
                    "--categories", "simple_python")
    assert evaluated.exit_code == 0, evaluated.output
    assert "Traceback" not in evaluated.output and "4300" not in evaluated.output
    assert records(scores / "normal" / SCORE) == {}  # the ground truth scores 100%
    header = json.loads((scores / "big" / SCORE).read_text(encoding="utf-8").split("\n")[0])
    assert (header["correct_count"], header["total_count"]) == (4, 6)  # every line scored
    failed = records(scores / "big" / SCORE)
    assert {i: r["error_type"] for i, r in failed.items()} == {
        "simple_python_0": "value_error:others", "simple_python_1": "value_error:others"}
    with fast_json.int_digits():
        assert str(10**4400) in failed["simple_python_0"]["error"][0]
        assert failed["simple_python_1"]["model_result_decoded"] == [
            {"math.factorial": {"number": 16**3700 - 1}}]
    for name in ("data_overall.csv", "data_non_live.csv", "leaderboard.json", "report.html"):
        assert (scores / name).is_file(), name
    overall = (scores / "data_overall.csv").read_text(encoding="utf-8")
    assert "big" in overall and "normal" in overall

    again = cli("report", str(scores), "-o", str(tmp_path / "again.html"))
    assert again.exit_code == 0, again.output
    assert "Traceback" not in again.output
    page = documents(tmp_path / "again.html")[0]
    assert page["problems"] == [], page["problems"]  # e.g. "unreadable score file"
