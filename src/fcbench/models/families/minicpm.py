"""MiniCPM3 in prompt mode (`minicpm.py MiniCPMHandler`): plain ChatML turns, the benchmark's
system prompt and decoders."""

from __future__ import annotations

from fcbench.models.families.base import Doc, Family, Message
from fcbench.models.families.bielik import chatml


def render(messages: list[Message], functions: list[Doc]) -> str:
    return chatml(messages)


FAMILY = Family("minicpm", "minicpm.py MiniCPMHandler", render)
