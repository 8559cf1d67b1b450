"""A scripted model for the local server (`fake_openai.FakeOpenAI`): it knows some cases and
answers them as told, over real HTTP, in FC or prompt mode.

It finds the case by the request's first user message (so cases must open with different
ones), then answers single-turn cases with their first acceptable answer (the ground-truth
backend's rendering), or with a scripted wrong answer for the ids in `wrong`; multi-turn cases
turn by turn, one ground-truth call per step, then a text that ends the turn.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from fake_openai import _tool_call
from fcbench.core.model import TestCase
from fcbench.ground_truth.backend import answer, parse_call, signatures

TOOL_RESULTS = "[{'role': 'tool'"
WrongAnswer = dict[str, Any]
"""A message the model sends instead of the right one: `{"content": ...}` or tool calls."""


class ScriptedModel:
    def __init__(self, cases: Iterable[TestCase], wrong: dict[str, WrongAnswer] | None = None
                 ) -> None:
        self.cases: dict[str, TestCase] = {}
        for case in cases:
            first = next(m for m in case.question[0] if m["role"] == "user")
            assert first["content"] not in self.cases, f"two cases open with {first}"
            self.cases[str(first["content"])] = case
        self.wrong = wrong or {}
        self.asked: dict[str, int] = {}

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        messages = request["messages"]
        first = next(m for m in messages if m["role"] == "user")
        case = self.cases[str(first["content"])]
        self.asked[case.id] = self.asked.get(case.id, 0) + 1
        fc = bool(request.get("tools"))
        if case.extras.get("involved_classes"):
            return self._step(case, messages, fc)
        if case.id in self.wrong:
            return self.wrong[case.id]
        result = answer(case, "fc" if fc else "prompt")
        if isinstance(result, str):
            return {"content": result}
        calls = [_tool_call(n, a, i) for i, item in enumerate(result) for n, a in item.items()]
        return {"content": None, "tool_calls": calls}

    def _step(self, case: TestCase, messages: list[dict[str, Any]], fc: bool) -> dict[str, Any]:
        turn, step = position(messages)
        truth = case.possible_answer[turn] if turn < len(case.possible_answer) else []
        if step >= len(truth):
            return {"content": "Done."}
        name, args = parse_call(truth[step], signatures(case.extras["involved_classes"]))
        if fc:
            return {"content": None, "tool_calls": [_tool_call(name, json.dumps(args), step)]}
        rendered = ", ".join(f"{k}={v!r}" for k, v in args.items())
        return {"content": f"[{name}({rendered})]"}


def position(messages: list[dict[str, Any]]) -> tuple[int, int]:
    """(turn, step) of a multi-turn request: user messages that are not tool results open
    turns; assistant messages since the last of them are the steps taken."""
    turn, step = -1, 0
    for message in messages:
        if message["role"] == "user" and not str(message.get("content")).startswith(TOOL_RESULTS):
            turn, step = turn + 1, 0
        elif message["role"] == "assistant":
            step += 1
    return turn, step
