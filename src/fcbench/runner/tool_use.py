"""Whether an FC run's replies carry tool calls at all.

A server can take `tools` and ignore them: llama-server with a chat template that does not
render tools, vLLM without `--enable-auto-tool-choice`, llama_cpp.server without
`tool_choice`. Every reply is then text, every case fails to decode, and the run scores 0%
without an error anywhere. The cases that expect calls are the vast majority, so when the
first `FIRST_REPLIES` of them come back without a single call, the run says once that the
server may be ignoring `tools` (stderr, `model.json`'s run log, the HTML report's notes).
Categories whose right answer is no call (irrelevance) or a text answer (agentic: the stored
result is the final reply, whatever was searched or remembered on the way) are not counted.
"""

from __future__ import annotations

from typing import Any

from fcbench.core.categories import Category, Checker

FIRST_REPLIES = 10
"""How many replies to cases that expect calls are looked at before deciding."""

WARNING = (
    "the first {n} FC replies hold no tool call though tools were sent: the server may be "
    "ignoring `tools` (a chat template that does not render them, vLLM without "
    "--enable-auto-tool-choice, a server that needs `tool_choice`); every such case scores 0. "
    "Try --mode prompt, or --tool-call-format if the model writes its calls as text"
)


NO_CALL_EXPECTED = frozenset({Checker.IRRELEVANCE, Checker.NONE, Checker.AGENTIC})
"""Checkers whose right stored answer holds no tool call."""


def holds_calls(result: Any) -> bool:
    """Whether a stored result holds a tool call anywhere: `[{name: args}]` for one step,
    nested per turn and step for a conversation; text holds none."""
    if isinstance(result, dict):
        return True
    if isinstance(result, list):
        return any(holds_calls(item) for item in result)
    return False


class ToolUseWatch:
    """Looks at the first replies of an FC run; `observe` returns the warning once."""

    def __init__(self, first: int = FIRST_REPLIES) -> None:
        self.first = first
        self.seen = 0
        self.with_calls = 0

    def observe(self, category: Category, result: Any) -> str | None:
        """Note one finished case; the warning when this reply decides it (else None)."""
        expects_no_call = category.checker in NO_CALL_EXPECTED
        if self.seen >= self.first or expects_no_call or category.prerequisite:
            return None
        self.seen += 1
        self.with_calls += holds_calls(result)
        if self.seen == self.first and self.with_calls == 0:
            return WARNING.format(n=self.first)
        return None
