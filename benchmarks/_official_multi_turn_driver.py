"""Time the official multi-turn checking alone, for ONE model. Runs INSIDE the official venv.

Usage (done by ``bench_multi_turn.py``)::

    <official venv>/bin/python _official_multi_turn_driver.py HANDLER DIR OUT.json

``HANDLER`` is the registered model name whose handler decodes the outputs, ``DIR`` the
folder holding the model's ``BFCL_v4_multi_turn_*_result.json`` files. One process per model:
the official checker keeps its environment instances in module globals keyed by the model
name and test id, so two models under the same handler name in one process would share
state (spec §6.4).

Untimed: imports (including the environment modules, which the official imports on first
use), building the handler, reading the result files, loading prompts and ground truth and
aligning them. Timed: the loop ``multi_turn_runner`` runs over the entries -- the official
per-entry evaluator (pre-checks, decode_execute, replay, state and response checks) -- without
writing score files.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any


def main(argv: list[str]) -> int:
    handler_name, result_dir, out_path = argv[0], Path(argv[1]), Path(argv[2])

    from bfcl_eval.constants.executable_backend_config import CLASS_FILE_PATH_MAPPING
    from bfcl_eval.eval_checker import eval_runner
    from bfcl_eval.utils import load_dataset_entry, load_file, load_ground_truth_entry

    for name in ("GorillaFileSystem", "MathAPI", "MessageAPI", "TwitterAPI", "TicketAPI",
                 "TradingBot", "TravelAPI", "VehicleControlAPI"):
        importlib.import_module(CLASS_FILE_PATH_MAPPING[name])
    model_name = handler_name.replace("/", "_")
    handler = eval_runner.get_handler(handler_name)
    workloads: list[tuple[str, list[Any], list[Any], list[Any]]] = []
    for path in sorted(result_dir.glob("BFCL_v4_multi_turn_*_result.json")):
        category = path.name.removeprefix("BFCL_v4_").removesuffix("_result.json")
        results = load_file(path, sort_by_id=True)
        prompts = load_dataset_entry(
            category, include_prereq=False, include_language_specific_hint=False
        )
        prompts, answers = eval_runner._subset_entries_by_model_ids(
            results, prompts, load_ground_truth_entry(category)
        )
        workloads.append((category, results, prompts, answers))

    counts: dict[str, list[int]] = {}
    start, cpu_start = time.perf_counter(), time.process_time()
    for category, results, prompts, answers in workloads:
        correct = 0
        for result, prompt, answer in zip(results, prompts, answers, strict=True):
            verdict = eval_runner._evaluate_single_multi_turn_entry(
                handler, result["id"], result["result"], answer["ground_truth"], prompt,
                model_name, category,
            )
            correct += bool(verdict["valid"])
        counts[category] = [correct, len(results)]
    seconds = time.perf_counter() - start
    cpu = time.process_time() - cpu_start
    report = {"seconds": seconds, "cpu": cpu, "counts": counts}
    out_path.write_text(json.dumps(report), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
