"""Environment calls during generation run off the event loop, under a time budget: a case
stuck in a slow call does not stop the other cases, and fails with the reason once its budget
is spent.

A multi-turn generation against the loopback fake server (`fake_openai.FakeOpenAI`): the model
calls `spin` once per case; one case asks for a call that spins (CPU-bound, in Python) for
longer than the budget, the others for none.
"""

from __future__ import annotations

import asyncio
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from fake_openai import FakeOpenAI
from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.envs import budget, scenario
from fcbench.envs.budget import BudgetExceeded
from fcbench.envs.scenario import Scenario
from fcbench.models.openai_compat import OpenAICompatBackend
from fcbench.runner.env_calls import CaseCalls, execute_calls
from fcbench.runner.generate import GenerateSettings, RetryPolicy, generate

SLOW_SECONDS = 4.0
BUDGET_SECONDS = 1.0
SPIN_DOC = {"name": "spin", "description": "Spin for a while.",
            "parameters": {"type": "dict", "properties": {"seconds": {"type": "float"}},
                           "required": ["seconds"]}}

starts: list[tuple[float, float]] = []
"""(start, seconds asked) of every spin."""


class SpinAPI:
    """An environment whose one call keeps the CPU busy for the seconds it is given."""

    def _load_scenario(self, config: dict[str, Any], long_context: bool = False) -> None:
        self.spun = 0.0

    def spin(self, seconds: float) -> str:
        start = time.monotonic()
        starts.append((start, seconds))
        while time.monotonic() - start < seconds:
            sum(range(1000))
        self.spun += seconds
        return "spun"


@pytest.fixture
def spin_class(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(scenario._families(), "SpinAPI", f"{__name__}:SpinAPI")
    monkeypatch.setattr(budget, "CALL_SECONDS", BUDGET_SECONDS)
    starts.clear()


def _case(index: int, question: str) -> TestCase:
    return TestCase(f"multi_turn_base_{index}", "multi_turn_base",
                    [[{"role": "user", "content": question}]], [SPIN_DOC], [["spin(seconds=0)"]],
                    {"involved_classes": ["SpinAPI"], "initial_config": {}})


class Responder:
    """Calls `spin` once per case (slow for the question "slow"), then answers in text;
    notes when each request arrived."""

    def __init__(self) -> None:
        self.arrivals: list[tuple[float, str]] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        question = next(m["content"] for m in messages if m["role"] == "user")
        self.arrivals.append((time.monotonic(), question))
        if messages[-1]["role"] == "tool":
            return {"content": "done"}
        seconds = SLOW_SECONDS if question == "slow" else 0
        arguments = json.dumps({"seconds": seconds})
        return {"tool_calls": [{"id": "call_0", "type": "function",
                                "function": {"name": "spin", "arguments": arguments}}]}


def test_a_stuck_environment_call_does_not_stop_the_other_cases(
    fetched_home: Path, tmp_path: Path, spin_class: None
) -> None:
    cases = [_case(0, "slow")] + [_case(i, f"fast {i}") for i in range(1, 9)]
    responder = Responder()
    settings = GenerateSettings(mode="fc", model_name="m", concurrency=3,
                                policy=RetryPolicy(max_attempts=1), sync_interval=0.1)
    with FakeOpenAI(responder) as server:
        backend = OpenAICompatBackend("m", [server.base_url])
        report = generate(backend, tmp_path / "m", [(categories.get("multi_turn_base"), cases)],
                          settings)
    slow_start = next(start for start, seconds in starts if seconds == SLOW_SECONDS)
    during = [q for at, q in responder.arrivals
              if slow_start < at < slow_start + BUDGET_SECONDS and q != "slow"]
    assert len(during) >= 4, responder.arrivals  # the others went on while it spun
    path = tmp_path / "m" / "multi_turn" / "BFCL_v4_multi_turn_base_result.json"
    entries = {e["id"]: e for e in map(json.loads, path.read_text().splitlines())}
    assert report.errors == 1 and len(entries) == 9
    reason = entries["multi_turn_base_0"]["error"]
    assert reason.startswith("BudgetExceeded: environment calls ran for more than 1 s")
    assert all("error" not in entries[f"multi_turn_base_{i}"] for i in range(1, 9))


def test_results_and_errors_come_back_from_the_thread(spin_class: None) -> None:
    env = Scenario(_case(0, "q"), "m")
    assert asyncio.run(execute_calls(env, ["spin(seconds=0)", "nope()"])) == [
        "spun", "Error during execution: name 'nope' is not defined"]
    assert threading.current_thread() is threading.main_thread()

    def broken(calls: list[str]) -> list[str]:
        raise RuntimeError("environment bug")

    env.execute = broken  # type: ignore[method-assign]
    with pytest.raises(RuntimeError, match="environment bug"):
        asyncio.run(execute_calls(env, ["spin(seconds=0)"]))


def test_the_wait_ends_at_the_budget(spin_class: None) -> None:
    env = Scenario(_case(0, "q"), "m")
    started = time.monotonic()
    with pytest.raises(BudgetExceeded, match=r"more than 0.3 s \(spin\(seconds=1\)\)"):
        asyncio.run(execute_calls(env, ["spin(seconds=1)"], seconds=0.3))
    assert time.monotonic() - started < 0.9


def test_a_case_has_a_budget_for_all_its_calls(spin_class: None,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "CASE_CALL_SECONDS", 1.0)
    env = Scenario(_case(0, "q"), "m")
    calls = CaseCalls()

    async def steps() -> None:
        for _ in range(3):
            await calls.execute(env, ["spin(seconds=0.4)"])

    started = time.monotonic()
    with pytest.raises(BudgetExceeded, match=r"ran for more than 1 s in all \(spin"):
        asyncio.run(steps())
    assert time.monotonic() - started < 1.4
    assert calls.left <= 0
