"""Running call strings for the executable checks: one sandbox per process and backend,
every outcome remembered for the run (ground-truth calls repeat across models, and models'
calls across each other), and the rule that an unanswerable call skips its case."""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from fcbench.check.exec_sandbox import Limits, Outcome, Sandbox
from fcbench.core.defaults import EXEC_BACKEND
from fcbench.envs.exec_functions import OFFICIAL_NAMES


class Unanswerable(Exception):
    """A call needed for the verdict could not be answered (service unavailable): the case
    is skipped."""


@dataclass
class ExecRunner:
    """Runs call strings in a sandbox, remembering every outcome for the run.

    Ground-truth results are computed once per run (as upstream did per category); model
    calls repeat across models, so their outcomes are remembered too.
    """

    backend: str = EXEC_BACKEND
    replay_dir: Path | None = None
    limits: Limits = field(default_factory=Limits)
    _sandbox: Sandbox | None = field(default=None, init=False, repr=False)
    _memo: dict[str, Outcome] = field(default_factory=dict, init=False, repr=False)

    def run(self, calls: Sequence[str]) -> list[Outcome]:
        missing = list(dict.fromkeys(c for c in calls if c not in self._memo))
        if missing:
            if self._sandbox is None:
                self._sandbox = Sandbox(OFFICIAL_NAMES, self.backend, self.replay_dir, self.limits)
            for call, outcome in zip(missing, self._sandbox.run(missing), strict=True):
                self._memo[call] = outcome
        return [self._memo[c] for c in calls]

    def close(self) -> None:
        if self._sandbox is not None:
            self._sandbox.close()
            self._sandbox = None


_RUNNERS: dict[tuple[int, str, str], ExecRunner] = {}


def shared_runner(backend: str = "offline", replay_dir: Path | None = None) -> ExecRunner:
    """This process's runner for a backend (a forked child gets its own)."""
    key = (os.getpid(), backend, str(replay_dir))
    if key not in _RUNNERS:
        _RUNNERS[key] = ExecRunner(backend, replay_dir, limits_for(backend))
    return _RUNNERS[key]


def limits_for(backend: str) -> Limits:
    """Live calls wait on the network (and on the original's sleeps: 2 s before geocoding,
    up to 31 s of Amazon retries), which costs wall-clock time but no CPU."""
    return Limits(wall_seconds=90.0) if backend == "live" else Limits()


def close_runners() -> None:
    """Stop this process's sandbox workers (they also stop when the process ends)."""
    for key in [k for k in _RUNNERS if k[0] == os.getpid()]:
        _RUNNERS.pop(key).close()


def skip_if_unavailable(outcomes: list[Outcome], whose: str) -> None:
    """Raise Unanswerable for the first outcome the backend could not answer."""
    for outcome in outcomes:
        if outcome.kind == "unavailable":
            raise Unanswerable(f"{whose} {outcome.message}")
