"""Which way a case is asked: one chat step, or a conversation against its environments.

A single-turn case is one `Backend.step` on the request the official handler builds for it
(`models.prompts.build_request`); a case that names environments (multi-turn, agentic) goes
through the conversation loop, which makes one step per model turn. Either way the runner's
guard retries each step under the run's policy.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from fcbench.core.model import TestCase
from fcbench.dataset.prompt_texts import PromptTexts
from fcbench.models.base import Backend, Response, layout_of
from fcbench.models.prompts import build_request
from fcbench.runner.conversation import LoopSettings, has_environments, run_conversation
from fcbench.runner.retry import Guard

Solver = Callable[[TestCase, Guard], Awaitable[tuple[Response, int]]]
"""Answers one case: (response, attempts). Single-turn is one guarded call; a multi-turn
solver makes one guarded call per step and returns the whole conversation's response."""


def case_solver(backend: Backend, settings: LoopSettings) -> Solver:
    """The solver of a run: conversations for cases with environments, else one step."""

    async def solve(case: TestCase, guard: Guard) -> tuple[Response, int]:
        if has_environments(case):
            return await run_conversation(case, backend, guard, settings)
        request = build_request(case, settings.mode, settings.texts, layout_of(backend))
        reply, attempts = await guard.call(lambda: backend.step(request))
        return Response.of(reply), attempts

    return solve


def loop_settings(
    mode: str, texts: PromptTexts, model_name: str, release: str | None,
    model_dir: Path | None = None,
) -> LoopSettings:
    from fcbench.runner.conversation import step_limit

    return LoopSettings("fc" if mode == "fc" else "prompt", texts, model_name, step_limit(texts),
                        release=release, model_dir=model_dir)
