"""xLAM-2 on Qwen (`salesforce_qwen.py SalesforceQwenHandler`): the xLAM layout in ChatML
turns without newlines between them, results in the `tool` role."""

from __future__ import annotations

from fcbench.models.families.base import Family, own_system_prompt
from fcbench.models.families.xlam_llama import XLAM_SYSTEM, xlam_prompt


def chatml_turn(role: str, text: str | None) -> str:
    head = f"<|im_start|>{role}\n"
    return head if text is None else f"{head}{text}<|im_end|>"


render = xlam_prompt(chatml_turn, "", "tool", XLAM_SYSTEM)

FAMILY = Family("xlam-qwen", "salesforce_qwen.py SalesforceQwenHandler", render,
                own_system_prompt)
