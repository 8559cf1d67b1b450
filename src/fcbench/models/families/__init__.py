"""The official open-model prompt formats, by name (`--prompt-format NAME`).

Each family is one module holding a `FAMILY` (`base.Family`: data plus the few functions its
official handler overrides); `FAMILIES` maps the name to that module, imported when first
used. `MODEL_FAMILIES` is the official model registry's mapping from model names to handlers,
as data: a model name found there picks its family by default (`family_for_model`).
Adding a family = one module + one line in `FAMILIES` (+ its model names).
"""

from __future__ import annotations

import functools
import importlib
from typing import TYPE_CHECKING

from fcbench.models.families.base import Family

if TYPE_CHECKING:
    from fcbench.decode.encoding import Encoding

__all__ = ["FAMILIES", "MODEL_FAMILIES", "Family", "UnknownPromptFormat", "family_for_model",
           "get", "names", "output_encoding", "served_name"]

FAMILIES: dict[str, str] = {
    name: f"fcbench.models.families.{module}"
    for name, module in (
        ("qwen", "qwen"),
        ("qwen-fc", "qwen_fc"),
        ("nanbeige-fc", "nanbeige_fc"),
        ("pelican-fc", "pelican_fc"),
        ("arch", "arch"),
        ("granite-4", "granite_4"),
        ("granite-3", "granite_3"),
        ("granite-20b", "granite_20b"),
        ("llama", "llama"),
        ("llama-4", "llama_4"),
        ("llama-3.1", "llama_3_1"),
        ("xlam-llama", "xlam_llama"),
        ("xlam-qwen", "xlam_qwen"),
        ("bitagent", "bitagent"),
        ("think-agent", "think_agent"),
        ("hammer", "hammer"),
        ("gemma", "gemma"),
        ("functiongemma", "functiongemma"),
        ("glm", "glm"),
        ("phi", "phi"),
        ("phi-4-mini", "phi_4_mini"),
        ("phi-fc", "phi_fc"),
        ("minicpm", "minicpm"),
        ("minicpm-fc", "minicpm_fc"),
        ("mistral-fc", "mistral_fc"),
        ("deepseek-r1", "deepseek_r1"),
        ("bielik", "bielik"),
        ("gemma-4", "gemma_4"),
        ("gemma-4-no-think", "gemma_4_no_think"),
        ("lfm2", "lfm2"),
    )
}

_QWEN3 = ("Qwen3-0.6B", "Qwen3-1.7B", "Qwen3-4B-Instruct-2507", "Qwen3-8B", "Qwen3-14B",
          "Qwen3-32B", "Qwen3-30B-A3B-Instruct-2507", "Qwen3-235B-A22B-Instruct-2507")

PR_MODEL_FAMILIES: dict[str, str] = {
    "google/gemma-4-E4B-it": "gemma-4",
    "google/gemma-4-E4B-it-no-think": "gemma-4-no-think",
    "cloudsurf-software/CloudSurf-4B-FC": "gemma-4",
    "LiquidAI/LFM2.5-1.2B-Instruct": "lfm2",
}
"""Registry names added by open upstream pull requests not in 2026.3.23 (#1357: Gemma 4,
#1341: LFM2.5). #1341 also names LFM2.5-350M, -1.2B-Thinking and -8B-A1B; its prompt is each
tokenizer's own template and only the Instruct one could be checked (the 8B-A1B template
renders `thinking` and older replies differently), so those take `--prompt-format lfm2`
explicitly."""

MODEL_FAMILIES: dict[str, str] = {
    "deepseek-ai/DeepSeek-R1": "deepseek-r1",
    **{f"google/gemma-3-{size}-it": "gemma" for size in ("1b", "4b", "12b", "27b")},
    "google/functiongemma-270m-it-FC": "functiongemma",
    "meta-llama/Llama-3.1-8B-Instruct-FC": "llama-3.1",
    "meta-llama/Llama-3.1-8B-Instruct": "llama",
    "meta-llama/Llama-3.1-70B-Instruct-FC": "llama-3.1",
    "meta-llama/Llama-3.1-70B-Instruct": "llama",
    "meta-llama/Llama-3.2-1B-Instruct-FC": "llama",
    "meta-llama/Llama-3.2-3B-Instruct-FC": "llama",
    "meta-llama/Llama-3.3-70B-Instruct-FC": "llama",
    "meta-llama/Llama-4-Scout-17B-16E-Instruct-FC": "llama-4",
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8-FC": "llama-4",
    "Salesforce/Llama-xLAM-2-70b-fc-r": "xlam-llama",
    "Salesforce/Llama-xLAM-2-8b-fc-r": "xlam-llama",
    "Salesforce/xLAM-2-32b-fc-r": "xlam-qwen",
    "Salesforce/xLAM-2-3b-fc-r": "xlam-qwen",
    "Salesforce/xLAM-2-1b-fc-r": "xlam-qwen",
    "mistralai/Ministral-8B-Instruct-2410": "mistral-fc",
    "microsoft/phi-4": "phi",
    "microsoft/Phi-4-mini-instruct": "phi-4-mini",
    "microsoft/Phi-4-mini-instruct-FC": "phi-fc",
    "ibm-granite/granite-3.2-8b-instruct": "granite-3",
    "ibm-granite/granite-3.1-8b-instruct": "granite-3",
    "ibm-granite/granite-4.0-350m": "granite-4",
    "ibm-granite/granite-20b-functioncalling": "granite-20b",
    **{f"MadeAgents/Hammer2.1-{size}": "hammer" for size in ("7b", "3b", "1.5b", "0.5b")},
    "THUDM/glm-4-9b-chat": "glm",
    **{f"Qwen/{name}-FC": "qwen-fc" for name in _QWEN3},
    **{f"Qwen/{name}": "qwen" for name in _QWEN3},
    "X-Humanoid/Pelican1.0-VL-235B-A22B-FC": "pelican-fc",
    "X-Humanoid/Pelican1.0-VL-30B-A3B-FC": "pelican-fc",
    "Team-ACE/ToolACE-2-8B": "llama",
    "openbmb/MiniCPM3-4B": "minicpm",
    "openbmb/MiniCPM3-4B-FC": "minicpm-fc",
    "watt-ai/watt-tool-8B": "llama",
    "watt-ai/watt-tool-70B": "llama",
    "ZJared/Haha-7B": "qwen",
    "speakleash/Bielik-11B-v2.3-Instruct": "bielik",
    "NovaSky-AI/Sky-T1-32B-Preview": "qwen",
    **{f"uiuc-convai/CoALM-{size}": "llama" for size in ("8B", "70B", "405B")},
    **{f"katanemo/Arch-Agent-{size}": "arch" for size in ("1.5B", "3B", "7B", "32B")},
    "BitAgent/BitAgent-8B": "llama",
    "BitAgent/BitAgent-Bounty-8B": "bitagent",
    "ThinkAgents/ThinkAgent-1B": "think-agent",
    "phronetic-ai/RZN-T": "qwen",
    "Nanbeige/Nanbeige4-3B-Thinking-2511": "nanbeige-fc",
    **PR_MODEL_FAMILIES,
}
"""Official registry name -> family (bfcl-eval 2026.3.23's local-inference models, and the
open upstream pull requests' handlers in `PR_MODEL_FAMILIES`)."""

_SERVED_AS_IS = ("X-Humanoid/Pelican1.0-VL-235B-A22B-FC", "X-Humanoid/Pelican1.0-VL-30B-A3B-FC",
                 "cloudsurf-software/CloudSurf-4B-FC")
"""Registry names whose `-FC` is part of the served model's own name."""

_SERVED_AS = {"google/gemma-4-E4B-it-no-think": "google/gemma-4-E4B-it"}
"""Registry names that are a variant of another served model (PR #1357's no-think entry)."""


class UnknownPromptFormat(ValueError):
    """A prompt-format name no family has."""


def names() -> tuple[str, ...]:
    return tuple(FAMILIES)


@functools.cache
def get(name: str) -> Family:
    """The family called `name` (UnknownPromptFormat with the known names otherwise)."""
    if name not in FAMILIES:
        raise UnknownPromptFormat(f"unknown prompt format {name!r} (one of {', '.join(FAMILIES)})")
    family: Family = importlib.import_module(FAMILIES[name]).FAMILY
    return family


def family_for_model(model: str) -> str | None:
    """The family the official registry uses for this model name, if it lists it."""
    return MODEL_FAMILIES.get(model)


def served_name(model: str) -> str:
    """The name the model is served under: a registry name without its `-FC` marker (the
    official handlers ask the server for the Hugging Face name)."""
    if model in _SERVED_AS:
        return _SERVED_AS[model]
    if model in MODEL_FAMILIES and model.endswith("-FC") and model not in _SERVED_AS_IS:
        return model.removesuffix("-FC")
    return model


def output_encoding(name: str) -> Encoding:
    """How results in family `name`'s output format decode: prompt mode, the family's
    decoders, and underscored names where its handler sends them so. Names of output
    decoders without a prompt family (`default`, `falcon-fc`) work too."""
    from fcbench.decode.encoding import Encoding

    family = get(name) if name in FAMILIES else None
    if family is None:
        return Encoding("prompt", "dot", None, family=name)
    return Encoding("prompt", family.fc_names, None, family=family.decoder_name)
