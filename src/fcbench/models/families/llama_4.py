"""Llama 4 (`llama.py LlamaHandler` for model names containing `Llama-4`): the Llama 3 layout
with Llama 4's header and end-of-turn tokens."""

from __future__ import annotations

from fcbench.models.families.base import Family
from fcbench.models.families.llama import header_prompt, ipython_results

render = header_prompt("<|header_start|>", "<|header_end|>", "<|eot|>")

FAMILY = Family("llama-4", "llama.py LlamaHandler (Llama-4 models)", render,
                results=ipython_results, fc=True)
