"""The multi-turn loop with hostile replies: decoding one is bounded (it runs on the event
loop), the step is logged as a decoding failure and every other case goes on unchanged."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

from fcbench.ground_truth.backend import GroundTruthBackend
from fcbench.models.base import ChatRequest, Reply
from fcbench.runner.generate import GenerateSettings, RetryPolicy, generate

HOSTILE_REPLIES = [
    "[calculate_triangle_area(base=[[[0]*1000]*1000]*1000, height=5)]",
    "[f(a=" + " + ".join(["[0]*1000000"] * 100) + ")]",
    "[f(a=10**10**10)]",
    "[f(a='" + "x" * 10_000_000 + "')]",
]


class HostileForOneCase(GroundTruthBackend):
    """The ground truth (prompt mode), except that every step of case `victim` is answered
    with the next hostile reply."""

    def __init__(self, victim: str) -> None:
        self.victim = victim
        self.replies = list(HOSTILE_REPLIES)

    async def step(self, request: ChatRequest) -> Reply:
        assert request.context.case is not None
        if request.context.case.id == self.victim and self.replies:
            return Reply(self.replies.pop(0))
        return await super().step(request)


def _generate(folder: Path, backend: GroundTruthBackend, cases: list[Any]) -> dict[str, Any]:
    from fcbench.core import categories

    settings = GenerateSettings(mode="prompt", model_name="m", concurrency=2,
                                policy=RetryPolicy(max_attempts=1))
    generate(backend, folder, [(categories.get("multi_turn_base"), cases)], settings)
    path = folder / "multi_turn" / "BFCL_v4_multi_turn_base_result.json"
    return {entry["id"]: entry for entry in map(json.loads, path.read_text().splitlines())}


def _dicts(value: Any) -> list[dict[str, Any]]:
    """Every dict inside a logged value (the log nests turns, steps and messages)."""
    if isinstance(value, dict):
        return [value, *(d for v in value.values() for d in _dicts(v))]
    if isinstance(value, list):
        return [d for v in value for d in _dicts(v)]
    return []


def test_hostile_replies_end_their_turns_fast_and_leave_other_cases_alone(
    fetched_home: Path, tmp_path: Path
) -> None:
    from fcbench.dataset.load import load_category

    cases = load_category("multi_turn_base")[:3]
    victim = cases[1].id
    normal = _generate(tmp_path / "normal", GroundTruthBackend(), cases)
    started = time.perf_counter()
    hostile = _generate(tmp_path / "hostile", HostileForOneCase(victim), cases)
    assert time.perf_counter() - started < 20

    failures = [log for log in _dicts(hostile[victim]["inference_log"])
                if str(log.get("content")).startswith("Error decoding the model response")]
    assert len(failures) == len(HOSTILE_REPLIES)
    assert all("decoding budget" in log["error"] for log in failures), failures
    for case in cases:
        if case.id != victim:
            assert hostile[case.id]["result"] == normal[case.id]["result"]
