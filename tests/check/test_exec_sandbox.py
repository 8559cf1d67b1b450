"""Injection suite: hostile model outputs against the executable-category sandbox.

Every attempt must end as a recorded failure (an error outcome, or a failed verdict), leave
no file and no process behind, and finish within a bounded time.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from fcbench.check import exec_wire
from fcbench.check.exec import ExecRunner, judge_exec
from fcbench.check.exec_sandbox import Limits, Outcome, Sandbox, UnsafeCall, parse_call
from fcbench.core import categories
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.envs.exec_functions import ALL_NAMES, OFFICIAL_NAMES
from fcbench.envs.exec_functions.backends import HttpResponse

FAST = Limits(wall_seconds=4.0, cpu_seconds=1, memory_mb=512)


@pytest.fixture(scope="module")
def sandbox() -> Iterator[Sandbox]:
    with Sandbox(OFFICIAL_NAMES, limits=FAST) as box:
        yield box


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:  # a zombie is dead for our purposes
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split()[2] != "Z"
    except OSError:
        return False


# --------------------------------------------------------------------------- refused before running

HOSTILE_CALLS = [
    "__import__('os').system('touch /tmp/fcbench_pwned')",
    "os.system('touch /tmp/fcbench_pwned')",
    "open('/etc/passwd')",
    "subprocess.run(['touch', '/tmp/fcbench_pwned'])",
    "math_gcd(a=().__class__.__base__.__subclasses__(), b=1)",
    "math_gcd.__globals__['os'].system('true')",
    "math_gcd(a=__builtins__, b=1)",
    "math_gcd(a=10**10**10, b=1)",
    "math_gcd(a=2**(2**40), b=1)",
    "math_gcd(a=int('9' * 10), b=1)",
    "math_gcd(a=[x for x in range(10**9)], b=1)",
    "math_gcd(a=(lambda: 1)(), b=1)",
    "math_gcd(a=f'{1}', b=1)",
    "math_gcd(*[1, 2])",
    "math_gcd(**{'a': 1, 'b': 2})",
    "math_gcd(a=(b := 1), b=2)",
    "math_gcd(a=1, a=2)",
    "eval('1')",
    "exec('import os')",
    "getattr(math_gcd, '__code__')",
    "math_gcd(a=" + "[" * 5000 + "]" * 5000 + ", b=1)",
    "math_gcd(a=" + "-" * 5000 + "1, b=1)",
    "math_gcd(a=" + "9" * 5000 + ", b=1)",
    "math_gcd(a='" + "x" * 200_000 + "', b=1)",
    "x" * 10,
    "",
    "math_gcd(a=1, b=1); import os",
]


@pytest.mark.parametrize("call", HOSTILE_CALLS, ids=lambda c: c[:40])
def test_hostile_call_strings_are_refused(call: str) -> None:
    with pytest.raises(UnsafeCall):
        parse_call(call, OFFICIAL_NAMES)


def test_literal_calls_parse() -> None:
    parsed = parse_call("get_distance(pointA=(1, -2), pointB=[3.5, +4])", OFFICIAL_NAMES)
    assert parsed.kwargs == {"pointA": (1, -2), "pointB": [3.5, 4]}
    parsed = parse_call("calc_binomial_probability(n=20, k=5, p=1/6)", OFFICIAL_NAMES)
    assert parsed.kwargs["p"] == 1 / 6
    assert parse_call("requests.get(url='https://a.b', params={'q': None})", OFFICIAL_NAMES)


def test_hostile_calls_become_error_outcomes(sandbox: Sandbox, tmp_path: Path) -> None:
    outcomes = sandbox.run(HOSTILE_CALLS)
    assert all(o.kind == "error" for o in outcomes)
    assert not Path("/tmp/fcbench_pwned").exists()


# --------------------------------------------------------------------------- runtime limits


def test_cpu_bomb_memory_bomb_and_recovery(sandbox: Sandbox) -> None:
    start = time.monotonic()
    outcomes = sandbox.run(
        [
            "math_gcd(a=12, b=18)",
            "math_factorial(n=100000000)",  # an endless-looking loop: CPU limit
            "get_fibonacci_sequence(n=10000000)",  # a memory bomb: RLIMIT_AS
            "estimate_derivative(function='lambda x: 10**10**10', x=1)",  # huge power in C
            "calculate_investment_value(initial_investment=1, annual_contribution=1, "
            "years=1000000000, annual_return=0.1, inflation_rate=[0.1])",
            "math_gcd(a=9, b=6)",
        ]
    )
    assert outcomes[0] == Outcome("ok", 6)
    assert [o.kind for o in outcomes[1:5]] == ["error"] * 4
    assert outcomes[5] == Outcome("ok", 3)
    assert time.monotonic() - start < 30


def test_wall_clock_timeout_kills_and_replaces_the_worker() -> None:
    slow = Limits(wall_seconds=0.5, cpu_seconds=30, memory_mb=512)
    with Sandbox(OFFICIAL_NAMES, limits=slow) as box:
        box.run(["math_gcd(a=1, b=1)"])
        assert box._process is not None
        first = box._process.pid
        start = time.monotonic()
        outcomes = box.run(
            ["math_gcd(a=4, b=2)", "math_factorial(n=100000000)", "math_gcd(a=9, b=6)"]
        )
        assert time.monotonic() - start < 10
        assert outcomes[0] == Outcome("ok", 2)
        assert outcomes[1].kind == "error" and "timed out" in outcomes[1].message
        assert outcomes[2] == Outcome("ok", 3)  # sent again to the fresh worker
        assert not _alive(first)
        assert box.run(["math_gcd(a=4, b=6)"]) == [Outcome("ok", 2)]


def test_no_process_or_file_left_behind(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    with Sandbox(ALL_NAMES, limits=FAST) as box:
        box.run(["math_gcd(a=4, b=6)", "open('x', 'w')", "get_weather_data(coordinates=[1, 2])"])
        assert box._process is not None
        pid = box._process.pid
    assert not _alive(pid)
    assert list(tmp_path.iterdir()) == []


def test_offline_service_calls_are_unavailable(sandbox: Sandbox) -> None:
    (outcome,) = sandbox.run(["get_weather_data(coordinates=[37.8, -122.3])"])
    assert outcome.kind == "unavailable" and "offline" in outcome.message


# --------------------------------------------------------------------------- through judge_exec


def _case(category: str, truth: list[str], kinds: list[str]) -> TestCase:
    return TestCase(f"{category}_0", category, [], [], truth, {"execution_result_type": kinds})


@pytest.fixture(scope="module")
def runner() -> Iterator[ExecRunner]:
    run = ExecRunner(limits=FAST)
    yield run
    run.close()


PROMPT_ATTACKS = [
    "[os.system(command='touch /tmp/fcbench_pwned')]",
    "[__import__(name='os')]",
    "[math_gcd(a=open(file='/etc/passwd'), b=1)]",
    "[math_gcd(a=__import__('os').getpid(), b=1)]",
    "[subprocess.run(args='touch /tmp/fcbench_pwned', shell=True)]",
    "[math_factorial(n=100000000)]",
    "[math_gcd(a=10**10**10, b=1)]",
]


@pytest.mark.parametrize("raw", PROMPT_ATTACKS, ids=lambda r: r[:40])
def test_prompt_mode_attacks_are_recorded_failures(runner: ExecRunner, raw: str) -> None:
    case = _case("exec_simple", ["math_gcd(a=12, b=18)"], ["exact_match"])
    verdict = judge_exec(case, categories.get("exec_simple"), raw, Encoding(), runner)
    assert not verdict.valid and "skipped" not in verdict.extras
    assert verdict.error_type in (
        "executable_checker:execution_error",
        "executable_decoder:decoder_failed",
    )
    assert not Path("/tmp/fcbench_pwned").exists()


def test_fc_mode_attack_is_a_recorded_failure(runner: ExecRunner) -> None:
    raw = [{"math_gcd": json.dumps({"a": "__import__('os').system('true')", "b": 1})}]
    case = _case("exec_simple", ["math_gcd(a=12, b=18)"], ["exact_match"])
    fc = Encoding("fc", "underscore", "json_string")
    verdict = judge_exec(case, categories.get("exec_simple"), raw, fc, runner)
    assert verdict.error_type == "executable_checker:execution_error"


def test_wire_round_trip_keeps_types() -> None:
    value = {
        1: (1, [2.5, float("inf")]),
        "big": 3**5000,
        "z": complex(1, 2),
        "r": HttpResponse(200, "{}"),
        "s": {1, 2},
    }
    decoded = exec_wire.decode(json.loads(json.dumps(exec_wire.encode(value))))
    assert decoded == value
    assert type(decoded[1]) is tuple


def test_worker_dies_with_its_parent() -> None:
    """An evaluating process killed mid-call takes its busy worker with it."""
    import subprocess
    import sys

    script = (
        "from fcbench.check.exec_sandbox import Sandbox, Limits\n"
        "from fcbench.envs.exec_functions import OFFICIAL_NAMES\n"
        "box = Sandbox(OFFICIAL_NAMES, limits=Limits(wall_seconds=100, cpu_seconds=100))\n"
        "box.run(['math_gcd(a=1, b=1)'])\n"
        "print(box._process.pid, flush=True)\n"
        "box.run(['math_factorial(n=10000000000)'])\n"
    )
    parent = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE)
    assert parent.stdout is not None
    worker = int(parent.stdout.readline())
    time.sleep(0.3)
    parent.kill()
    parent.wait()
    parent.stdout.close()
    deadline = time.monotonic() + 10
    while _alive(worker) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not _alive(worker)
