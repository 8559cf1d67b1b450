"""A representative slice of the hostile corpus (`tests/hostile/`) met by ordinary runs: one
`fcbench evaluate` over a folder where one model has a hostile answer, a 200,000-deep and a
torn result line and another model a `model.json` of the wrong type; one `fcbench generate`
where one request meets a dripping endpoint. Each run finishes, says what it met in one line
per problem, and everything else in it gets what it gets without the hostile input.
(`benchmarks/bench_hostile.py` measures the whole corpus, input by input.)"""

from __future__ import annotations

import json
import shutil
import time
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from fcbench._json import loads_numbers
from fcbench.cli import main
from hostile.decoding import BY_NAME
from hostile.endpoints import HostileEndpoint
from hostile.files import MODEL_JSONS, RESULT_LINES

RESULT = Path("non_live") / "BFCL_v4_simple_python_result.json"
SCORE = Path("non_live") / "BFCL_v4_simple_python_score.json"


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def failures(score_file: Path) -> dict[str, str]:
    """id -> error_type of the failed cases a score file records."""
    lines = score_file.read_text(encoding="utf-8").splitlines()[1:]
    return {record["id"]: record["error_type"] for record in map(loads_numbers, lines)}


def test_one_evaluate_run_meets_hostile_answers_lines_and_model_json(
    fetched_home: Path, tmp_path: Path
) -> None:
    results, scores = tmp_path / "result", tmp_path / "score"
    made = cli("generate", "--model", "ground-truth", "--name", "normal", "--mode", "prompt",
               "--categories", "simple_python", "--limit", "5", "--result-dir", str(results))
    assert made.exit_code == 0, made.output
    shutil.copytree(results / "normal", results / "hostile",
                    ignore=shutil.ignore_patterns(".fcbench.lock"))
    shutil.copytree(results / "normal", results / "broken",
                    ignore=shutil.ignore_patterns(".fcbench.lock"))
    (results / "broken" / "model.json").write_text(MODEL_JSONS["mode of the wrong type"])
    path = results / "hostile" / RESULT
    rows = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    rows[1]["result"] = BY_NAME["nested_repeat"].build()
    lines = [json.dumps(row) for row in rows]
    lines[3:3] = [RESULT_LINES["nested 200,000 deep"], RESULT_LINES["torn"]]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")

    started = time.perf_counter()
    evaluated = cli("evaluate", "--result-dir", str(results), "--score-dir", str(scores),
                    "--categories", "simple_python", "--no-report")
    seconds = time.perf_counter() - started
    print(f"evaluate: {seconds:.2f} s")
    assert evaluated.exit_code == 0, evaluated.output
    assert "Traceback" not in evaluated.output and seconds < 60
    assert f"{path}:4: JSON line nested too deeply" in evaluated.output
    assert f"{path}:5: malformed JSON line skipped" in evaluated.output
    assert str(results / "broken" / "model.json") in evaluated.output
    assert not (scores / "broken").exists()
    normal = failures(scores / "normal" / SCORE)
    hostile = failures(scores / "hostile" / SCORE)
    assert normal == {}  # the ground truth scores 100%
    assert hostile == {rows[1]["id"]: "ast_decoder:decoder_failed"}


def test_one_generate_run_meets_a_dripping_reply_and_the_other_cases_are_kept(
    fetched_home: Path, tmp_path: Path
) -> None:
    """The first request drips one byte every 0.5 s; `--timeout 3` cuts it off as a recorded
    error, and the run's other cases get the endpoint's normal answer."""
    with HostileEndpoint(drip_every=0.5, bomb_bytes=1 << 20) as server:
        started = time.perf_counter()
        generated = cli("generate", "--model", "m", "--base-url", server.url("once-drip"),
                        "--categories", "simple_python", "--limit", "4", "--mode", "prompt",
                        "--max-attempts", "1", "--no-preflight", "--stop-after", "0",
                        "--timeout", "3", "-q", "--result-dir", str(tmp_path / "result"))
        seconds = time.perf_counter() - started
    print(f"generate: {seconds:.2f} s")
    assert "Traceback" not in generated.output and seconds < 30
    [file] = (tmp_path / "result").rglob("*_result.json")
    entries = [json.loads(line) for line in file.read_text().splitlines()]
    assert len(entries) == 4
    answered = [e for e in entries if e.get("result") == "[f(a=1)]"]
    overdue = [e for e in entries if "within 3 s" in json.dumps(e)]
    assert len(answered) == 3 and len(overdue) == 1, entries
