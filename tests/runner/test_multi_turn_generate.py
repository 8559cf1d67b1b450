"""Multi-turn generation: ground-truth replays, a case as the unit of failure and resume."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.core.model import TestCase
from fcbench.ground_truth.backend import GroundTruthBackend, parse_call, signatures
from fcbench.models.base import ChatRequest, Reply
from fcbench.runner.generate import CallFailed, GenerateSettings, RetryPolicy, generate
from stripes import stripe

CATEGORIES = [
    "multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param", "multi_turn_long_context",
]

OFFICIAL_ALSO_FAILS: dict[str, str] = {}
"""Ground-truth replays that fail, with the reason; computed, not guessed: fcbench's replay
files of both modes (800 cases each) were scored by the official checker (bfcl-eval
2026.3.23, `_evaluate_single_multi_turn_entry` with the gpt-4o-2024-11-20[-FC] handlers, in a
throwaway venv): 800/800 valid in FC mode and 800/800 in prompt mode, as in fcbench. So no
case is excepted today; a new release's failures go here, each with its cause."""


STRIPES = {"fc": 0, "prompt": 1}
"""Each mode replays every other case of each category (its stripe), so that the two modes
together replay every case once. What differs between the modes is only how the calls are
written and read back (FC tool calls or Python text), which every stripe exercises in every
category; the environments and the checker do the same work in both. Still fails when the
prompt-mode answer writes booleans as JSON (`true`) instead of Python (`True`), the fault
this was tried with."""


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_ground_truth_replays_pass(fetched_home: Path, tmp_path: Path, mode: str) -> None:
    from fcbench.cli import main

    ids = stripe(CATEGORIES, STRIPES[mode], len(STRIPES))
    args = ["run", "--model", "ground-truth", "--mode", mode, "--categories",
            ",".join(CATEGORIES), "--ids", ",".join(ids), "--result-dir", str(tmp_path / "r"),
            "--score-dir", str(tmp_path / "s"), "--quiet"]
    result = CliRunner().invoke(main, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    name = "ground-truth-FC" if mode == "fc" else "ground-truth"
    failed: dict[str, str] = {}
    total = 0
    for category in CATEGORIES:
        path = tmp_path / "s" / name / "multi_turn" / f"BFCL_v4_{category}_score.json"
        header, *records = map(json.loads, path.read_text().splitlines())
        total += header["total_count"]
        failed.update((r["id"], r["error"]["error_type"]) for r in records)
    assert total == len(ids) == 400
    assert set(failed) == set(OFFICIAL_ALSO_FAILS) & set(ids), failed
    entry = json.loads((tmp_path / "r" / name / "multi_turn" /
                        "BFCL_v4_multi_turn_base_result.json").read_text().splitlines()[0])
    assert entry["id"] == ids[0]
    assert [len(turn) for turn in entry["result"]] == [2, 2, 2, 2]  # calls, then no call


def test_the_stripes_replay_every_case_once(fetched_home: Path) -> None:
    ids = [case_id for part in STRIPES.values()
           for case_id in stripe(CATEGORIES, part, len(STRIPES))]
    assert len(ids) == len(set(ids)) == 800


def test_positional_ground_truth_arguments_get_their_names() -> None:
    methods = signatures(["GorillaFileSystem", "MathAPI"])
    assert parse_call("sort('final_report.pdf')", methods) == ("sort", {
        "file_name": "final_report.pdf"})
    assert parse_call("mean(numbers=[1, 2.5])", methods) == ("mean", {"numbers": [1, 2.5]})


class FlakyGroundTruth(GroundTruthBackend):
    """The ground truth, but the first attempt at (case, turn, step) raises `error`."""

    def __init__(self, failures: dict[tuple[str, int, int], BaseException]) -> None:
        self.failures = dict(failures)

    async def step(self, request: ChatRequest) -> Reply:
        context = request.context
        assert context.case is not None
        error = self.failures.pop((context.case.id, context.turn, context.step), None)
        if error is not None:
            raise error
        return await super().step(request)


def _generate(
    folder: Path, cases: list[TestCase],
    failures: dict[tuple[str, int, int], BaseException] | None = None,
) -> Any:
    from fcbench.core import categories

    settings = GenerateSettings(mode="fc", model_name="m", concurrency=1,
                                policy=RetryPolicy(max_attempts=1))
    category = categories.get("multi_turn_base")
    return generate(FlakyGroundTruth(failures or {}), folder, [(category, cases)], settings)


def _entries(folder: Path) -> dict[str, dict[str, Any]]:
    path = folder / "multi_turn" / "BFCL_v4_multi_turn_base_result.json"
    return {e["id"]: e for e in map(json.loads, path.read_text().splitlines())}


def test_a_failing_step_fails_the_whole_case_and_resume_asks_it_again(
    fetched_home: Path, tmp_path: Path
) -> None:
    from fcbench.dataset.load import load_category

    cases = load_category("multi_turn_base")[:3]
    report = _generate(tmp_path / "m", cases,
                       {(cases[1].id, 1, 0): CallFailed("HTTP 400: too long", 1)})
    entries = _entries(tmp_path / "m")
    assert report.errors == 1 and entries[cases[1].id]["error"] == "HTTP 400: too long"
    again = _generate(tmp_path / "m", cases)
    assert again.asked == 1 and again.skipped == 2
    assert len(_entries(tmp_path / "m")[cases[1].id]["result"]) == 4


def test_an_interrupted_case_leaves_nothing_and_is_asked_again(
    fetched_home: Path, tmp_path: Path
) -> None:
    """Like kill -9 mid-case: the cases finished before are kept, the interrupted one has no
    line (a case is written only when its last turn is done) and the next run asks it."""
    from fcbench.dataset.load import load_category

    cases = load_category("multi_turn_base")[:3]
    with pytest.raises(KeyboardInterrupt):
        _generate(tmp_path / "m", cases, {(cases[1].id, 2, 0): KeyboardInterrupt()})
    assert list(_entries(tmp_path / "m")) == [cases[0].id]
    again = _generate(tmp_path / "m", cases)
    assert again.asked == 2 and again.skipped == 1 and again.errors == 0
    assert sorted(_entries(tmp_path / "m")) == sorted(c.id for c in cases)


def test_long_context_cases_run_on_long_context_environments(fetched_home: Path) -> None:
    from fcbench.dataset.load import load_category
    from fcbench.envs.scenario import Scenario

    for category, expected in (("multi_turn_long_context", True), ("multi_turn_base", False)):
        case = next(c for c in load_category(category)
                    if "GorillaFileSystem" in c.extras["involved_classes"])
        instance = Scenario(case, "m").instances["GorillaFileSystem"]
        assert vars(instance)["long_context"] is expected
