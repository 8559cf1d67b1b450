"""The exec sandbox's default limits, pinned where they are defined (check/exec_sandbox.Limits)
and where a run chooses them (check/exec_runner.limits_for): every other sandbox test passes
its own `Limits`, so without these a default could grow a hundredfold unseen.
"""

from __future__ import annotations

from fcbench.check.exec_runner import ExecRunner, limits_for
from fcbench.check.exec_sandbox import Limits, Sandbox


def test_the_default_limits_of_one_call() -> None:
    limits = Limits()
    assert (limits.wall_seconds, limits.cpu_seconds, limits.memory_mb) == (5.0, 3, 1024)
    assert limits.startup_seconds == 20.0


def test_a_sandbox_and_a_runner_use_the_default_limits_unless_told() -> None:
    assert Sandbox(frozenset()).limits == Limits()
    assert ExecRunner().limits == Limits()


def test_a_run_chooses_the_defaults_offline_and_more_wall_time_live() -> None:
    assert limits_for("offline") == Limits()
    assert limits_for("replay") == Limits()
    live = limits_for("live")
    assert live.wall_seconds == 90.0
    assert (live.cpu_seconds, live.memory_mb) == (Limits().cpu_seconds, Limits().memory_mb)
