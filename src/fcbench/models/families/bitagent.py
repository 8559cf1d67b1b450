"""BitAgent-Bounty (`bitagent.py BitAgentHandler`): the xLAM-on-Llama layout with BitAgent's
own default system sentence."""

from __future__ import annotations

from fcbench.models.families.base import Family, own_system_prompt
from fcbench.models.families.xlam_llama import llama_turn, xlam_prompt

BITAGENT_SYSTEM = "You are a helpful Assistant named BitAgent that is designed to use tools."

render = xlam_prompt(llama_turn, "<|begin_of_text|>", "ipython", BITAGENT_SYSTEM)

FAMILY = Family("bitagent", "bitagent.py BitAgentHandler", render, own_system_prompt)
