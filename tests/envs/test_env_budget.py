"""Environment budgets: every hostile call ends fast and small, with an error result, and the
multi-turn checker records the case instead of hanging; a case that overruns its time gets a
failure verdict of its own type while the next case is judged normally.

The bombs run in child processes (one each, so that peak memory is the bomb's), capped at
2 GB of address space and 60 s: a broken bound fails the test instead of taking the machine.
"""

from __future__ import annotations

import json
import os
import resource
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from fcbench.check.multi_turn import judge_multi_turn
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.envs import scenario
from fcbench.envs.budget import BUDGET_ERROR_TYPE, CaseOverBudget, case_budget
from hostile.environments import ENVIRONMENT_BOMBS, HostileCalls

SECONDS = 10.0
MEMORY = 500 * 1024 * 1024

_CHILD = r"""
import json, resource, sys, time
from fcbench.check.multi_turn import judge_multi_turn, preload
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.envs.scenario import Scenario

item = json.loads(sys.stdin.read())
case = TestCase("multi_turn_base_0", "multi_turn_base", [[]], [], [["ls()"]],
                {"involved_classes": item["classes"], "initial_config": item["config"]})
preload()
Scenario(case, "warm").execute(["ls()"])
base = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
start = time.perf_counter()
results = Scenario(case, "gen").execute(item["calls"])
raw = [["[" + ", ".join(item["calls"]) + "]"]]
verdict = judge_multi_turn(case, raw, Encoding())
seconds = time.perf_counter() - start
grown = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - base) * 1024
refused = any(item["refused"] in text for text in results)
print(json.dumps({"seconds": seconds, "grown": grown, "refused": refused,
                  "valid": verdict.valid, "error_type": verdict.error_type}))
"""


def _run_child(item: HostileCalls) -> dict[str, Any]:
    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))

    payload = json.dumps({"classes": list(item.involved_classes), "calls": list(item.calls),
                          "config": item.initial_config, "refused": item.refused})
    root = Path(__file__).resolve().parents[2]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(root / "src"), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", _CHILD], input=payload, capture_output=True,
                          text=True, timeout=60, preexec_fn=cap, env=env, check=False)
    assert done.returncode == 0, f"{item.name}: {done.stderr[-2000:]}"
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result


def test_environment_bombs_end_fast_and_small() -> None:
    worst_time, worst_memory = 0.0, 0
    for item in ENVIRONMENT_BOMBS:
        outcome = _run_child(item)
        assert outcome["refused"], item.name
        assert outcome["seconds"] <= SECONDS, (item.name, outcome)
        assert outcome["grown"] <= MEMORY, (item.name, outcome)
        assert not outcome["valid"], item.name
        assert outcome["error_type"].startswith("multi_turn:"), (item.name, outcome)
        worst_time = max(worst_time, outcome["seconds"])
        worst_memory = max(worst_memory, outcome["grown"])
        print(f"{item.name}: {outcome['seconds']:.2f} s, +{outcome['grown'] / 2**20:.0f} MB, "
              f"{outcome['error_type']}")
    print(f"worst: {worst_time:.2f} s, +{worst_memory / 2**20:.0f} MB "
          f"({len(ENVIRONMENT_BOMBS)} environment bombs)")


class _Slow:
    """A registered environment whose one call spins in Python for as long as it is asked."""

    def _load_scenario(self, config: dict[str, Any], long_context: bool = False) -> None:
        self.calls = 0

    def spin(self, seconds: float) -> str:
        self.calls += 1
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            pass
        return "done"


@pytest.fixture
def slow_class(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(scenario._families(), "SlowAPI", f"{__name__}:_Slow")
    return "SlowAPI"


def _case(name: str, truth: list[list[str]]) -> TestCase:
    return TestCase("multi_turn_base_7", "multi_turn_base", [[]] * len(truth), [], truth,
                    {"involved_classes": [name], "initial_config": {}})


def test_a_case_over_its_time_fails_with_the_budget_type(slow_class: str) -> None:
    case = _case(slow_class, [["spin(seconds=0)"]])
    started = time.monotonic()
    verdict = judge_multi_turn(case, [["[spin(seconds=30)]"]], Encoding(), seconds=0.5)
    assert time.monotonic() - started < 5
    assert not verdict.valid and verdict.error_type == BUDGET_ERROR_TYPE
    assert "more than 0.5 s" in verdict.extras["error"]["error_message"]
    # the timer is gone: the next case is judged normally, to the end
    fine = judge_multi_turn(case, [["[spin(seconds=0.7)]"]], Encoding(), seconds=5)
    assert fine.valid


def test_memory_past_the_budget_is_refused_and_given_back() -> None:
    limit_before = resource.getrlimit(resource.RLIMIT_AS)
    # Far past the budget: the limit is the address space measured at entry plus 64 MB, and a
    # mapping another thread of this worker frees meanwhile (a model test's generation thread
    # winding down) leaves that much more room; 256 MB once fitted that way under xdist.
    with pytest.raises(MemoryError), case_budget(seconds=5, memory=64 << 20):
        bytearray(4 << 30)
    assert resource.getrlimit(resource.RLIMIT_AS) == limit_before
    assert len(bytearray(256 << 20)) == 256 << 20


def test_a_timer_interrupts_and_is_removed() -> None:
    with pytest.raises(CaseOverBudget), case_budget(seconds=0.2, memory=0):
        time.sleep(3)
    time.sleep(0.3)  # a timer left running would raise here


def test_an_outer_timer_goes_on_after_a_case() -> None:
    fired: list[int] = []
    previous = signal.signal(signal.SIGALRM, lambda signum, frame: fired.append(signum))
    try:
        signal.setitimer(signal.ITIMER_REAL, 0.5)
        with case_budget(seconds=5, memory=0):
            pass
        assert 0 < signal.getitimer(signal.ITIMER_REAL)[0] <= 0.5
        time.sleep(0.8)
        assert fired == [signal.SIGALRM]
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
