"""Time the official evaluator's checking work alone. Runs INSIDE the official tool's venv.

Usage (done by ``bench_evaluate.py``)::

    <official venv>/bin/python _official_check_driver.py JOBS.json OUT.json

``JOBS.json`` is a list of ``{"model", "handler", "dir"}``: ``handler`` is the registered
model name whose handler decodes the outputs, ``dir`` the folder holding that model's
``BFCL_v4_<category>_result.json`` files. Set ``BFCL_PROJECT_ROOT`` to a scratch folder:
importing the official package creates ``result/``, ``score/`` and ``.file_locks/`` there.

Everything the official runner does before and after its per-entry loop is done here
untimed: importing, building the handler, reading and sorting the result file, loading the
prompts and ground truth and aligning them with the results. The timed part is the loop
that the official ``ast_file_runner`` / ``relevance_file_runner`` run over the entries,
calling the official per-entry evaluators (decode + check) -- without ``save_eval_results``
(score files) and without the leaderboard CSVs. The correct/total counts are written out so
that the caller can confirm the loop judged exactly as the full ``bfcl evaluate`` did.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any


def _load_jobs(path: Path) -> list[dict[str, str]]:
    jobs: list[dict[str, str]] = json.loads(path.read_text(encoding="utf-8"))
    return jobs


def main(argv: list[str]) -> int:
    """Entry point: ``argv`` is ``[JOBS.json, OUT.json, MODE]``; MODE ``loop`` times the
    per-entry loops, ``tasks`` the evaluation without start-up and CSVs (default: both, in
    this one process)."""
    jobs_path, out_path = Path(argv[0]), Path(argv[1])
    mode = argv[2] if len(argv) > 2 else "both"
    if mode == "tasks":
        task_seconds = _time_tasks(_load_jobs(jobs_path), out_path.parent / "task-scores")
        out_path.write_text(json.dumps({"task_seconds": task_seconds}), encoding="utf-8")
        return 0

    from bfcl_eval.constants.enums import Language, ReturnFormat
    from bfcl_eval.eval_checker import eval_runner
    from bfcl_eval.utils import (
        is_java,
        is_js,
        is_relevance_or_irrelevance,
        load_dataset_entry,
        load_file,
        load_ground_truth_entry,
    )

    # Prepare every (model, category) workload up front, untimed.
    workloads: list[tuple[str, str, Any, str, list[Any], list[Any], list[Any] | None]] = []
    for job in _load_jobs(jobs_path):
        # The official runner names the model after its result folder ("/" -> "_").
        model_name = job["handler"].replace("/", "_")
        handler = eval_runner.get_handler(job["handler"])
        for result_file in sorted(Path(job["dir"]).glob("BFCL_v4_*_result.json")):
            category = result_file.name.removeprefix("BFCL_v4_").removesuffix("_result.json")
            results = load_file(result_file, sort_by_id=True)
            prompts = load_dataset_entry(
                category, include_prereq=False, include_language_specific_hint=False
            )
            if is_relevance_or_irrelevance(category):
                prompts, _ = eval_runner._subset_entries_by_model_ids(results, prompts, None)
                answers = None
            else:
                prompts, answers = eval_runner._subset_entries_by_model_ids(
                    results, prompts, load_ground_truth_entry(category)
                )
            workloads.append(
                (job["model"], category, handler, model_name, results, prompts, answers)
            )

    seconds: dict[str, float] = {}
    counts: dict[str, dict[str, list[int]]] = {}
    for model, category, handler, model_name, results, prompts, answers in workloads:
        if is_java(category):
            language, return_format = Language.JAVA, ReturnFormat.JAVA
        elif is_js(category):
            language, return_format = Language.JAVASCRIPT, ReturnFormat.JAVASCRIPT
        else:
            language, return_format = Language.PYTHON, ReturnFormat.PYTHON

        correct = 0
        start = time.perf_counter()
        if answers is None:
            for entry, prompt in zip(results, prompts, strict=True):
                verdict = eval_runner._evaluate_single_relevance_entry(
                    handler, entry["id"], entry["result"], prompt, model_name, category
                )
                correct += bool(verdict["valid"])
        else:
            for entry, prompt, answer in zip(results, prompts, answers, strict=True):
                verdict = eval_runner._evaluate_single_ast_entry(
                    handler,
                    entry["id"],
                    entry["result"],
                    answer["ground_truth"],
                    prompt,
                    model_name,
                    category,
                    language=language,
                    return_format=return_format,
                    has_tool_call_tag=False,
                )
                correct += bool(verdict["valid"])
        elapsed = time.perf_counter() - start

        seconds[model] = seconds.get(model, 0.0) + elapsed
        counts.setdefault(model, {})[category] = [correct, len(results)]

    result: dict[str, Any] = {"seconds": seconds, "counts": counts}
    if mode != "loop":
        result["task_seconds"] = _time_tasks(_load_jobs(jobs_path), out_path.parent / "task-scores")
    out_path.write_text(json.dumps(result, indent=1), encoding="utf-8")
    return 0


def _time_tasks(jobs: list[dict[str, str]], score_dir: Path) -> dict[str, float]:
    """Seconds per model of the official evaluation minus start-up and the CSVs: for every
    result file, what `runner` does per file (read and sort the results, then `evaluate_task`:
    load the prompts and ground truth, judge every entry, write the score file)."""
    from bfcl_eval.eval_checker import eval_runner
    from bfcl_eval.utils import load_file

    seconds: dict[str, float] = {}
    for job in jobs:
        handler = eval_runner.get_handler(job["handler"])
        model_name = job["handler"].replace("/", "_")
        files = sorted(Path(job["dir"]).glob("BFCL_v4_*_result.json"))
        start = time.perf_counter()
        for result_file in files:
            category = result_file.name.removeprefix("BFCL_v4_").removesuffix("_result.json")
            results = load_file(result_file, sort_by_id=True)
            eval_runner.evaluate_task(
                category, Path(job["dir"]).parent, score_dir, results, model_name, handler, {}
            )
        seconds[job["model"]] = time.perf_counter() - start
    return seconds


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
