"""Per-turn accuracy for multi-turn cases: fcbench's own metric (upstream issue #920), never
part of any official score or Overall.

Why: the official verdict is all-or-nothing and stops at the first failing turn, so a model
right on nine turns of ten scores like one right on none. This judges every turn on its own.

What a turn is, exactly: the official checker's turn rules (`check.multi_turn`), applied to
every turn instead of stopping at the first that fails.
- The turns counted are those whose ground truth is not empty: the ones the official checker
  judges (a turn with no expected call, e.g. miss_func's turn whose function is held out, is
  `None` here and counts nowhere; the model's calls in it still run and change its state).
- The model's calls and the ground truth's run turn by turn on their own instances, each side
  carrying its state from turn to turn, as the official replay does (so an officially
  passing case has every counted turn right, and the official failing turn is wrong here).
- A counted turn is right when the model made at least one decodable call in it (else the
  official empty-turn failure), every instance the ground truth involves has the ground
  truth's public attributes after the turn (the state rule), and each ground-truth result of
  the turn is among the model's results of all turns so far, as a multiset (the response
  rule). A wrong turn does not stop the replay: a later turn that puts the state right again
  counts as right.
- An answer that is not a list of turns fails every counted turn; a turn the model never
  reached (force-terminated) is wrong and the turns it did answer are judged; a replay over
  the case budget, or crashing, fails every counted turn (the official verdict fails such a
  case too).

The replays run after the official one and leave the process-wide state some environments
share (`envs.multi_turn.preserved_process_state`) as they found it, so the official verdicts
of later cases are untouched.
"""

from __future__ import annotations

from typing import Any

from fcbench.check.multi_turn import decode_turn, missing_results, state_differences
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.envs.budget import CASE_SECONDS, CaseOverBudget, case_budget
from fcbench.envs.multi_turn import preserved_process_state
from fcbench.envs.scenario import Scenario

__all__ = ["TURNS", "turn_outcomes"]

TURNS = "turns"
"""The verdict extra holding a case's outcomes (`turn_outcomes`)."""

Outcome = bool | None


def turn_outcomes(case: TestCase, raw: Any, encoding: Encoding, model_name: str,
                  release: str | None = None, seconds: float = CASE_SECONDS
                  ) -> list[Outcome]:
    """One entry per ground-truth turn: True/False for a counted turn, None for a turn with
    nothing expected (module docstring). Never raises."""
    truth: list[list[str]] = case.possible_answer
    counted = [bool(calls) or None for calls in truth]
    failed: list[Outcome] = [False if c else None for c in counted]
    if type(raw) is not list:
        return failed
    try:
        with preserved_process_state(), case_budget(seconds):
            decoded = [decode_turn(turn, encoding) for turn in raw[:len(truth)]]
            return _TurnByTurn(case, model_name, release).judge(decoded, truth)
    except (CaseOverBudget, MemoryError):
        return failed
    except Exception:  # an environment bug: the official verdict records it, this fails
        return failed


class _TurnByTurn:
    """The official replay's turn loop, judging every turn and never stopping early."""

    def __init__(self, case: TestCase, model_name: str, release: str | None) -> None:
        self.model = Scenario(case, f"{model_name}_eval", release)
        self.truth = Scenario(case, f"{model_name}_ground_truth_eval", release)
        self.results_so_far: list[str] = []

    def judge(self, decoded: list[list[list[str]]], truth: list[list[str]]) -> list[Outcome]:
        outcomes: list[Outcome] = []
        for index, truth_calls in enumerate(truth):
            steps = decoded[index] if index < len(decoded) else []
            for step in steps:
                self.results_so_far.extend(self.model.execute(step))
            truth_results = self.truth.execute(truth_calls)
            if not truth_calls:
                outcomes.append(None)
            else:
                outcomes.append(bool(steps) and self._same_state()
                                and not missing_results(truth_results, self.results_so_far))
        return outcomes

    def _same_state(self) -> bool:
        return all(not state_differences(self.model.instances[name], instance)
                   for name, instance in self.truth.instances.items())
