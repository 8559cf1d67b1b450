"""The official local-inference handlers from the shared wheel, one per fcbench family, and
model outputs written in each family's format (for the oracle tests of prompts, decoders and
the end-to-end run).

Handlers are made without their constructor (no client, no tokenizer): only the attributes
their prompt and decoding methods read are set. `official_entries` loads the cases with the
official loader, so the oracle's inputs do not come from fcbench's dataset code.
"""

from __future__ import annotations

import contextlib
import importlib
import json
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from make_pr_golden import PR_HANDLERS

from fcbench.core.categories import Language
from fcbench.decode.encoding import Encoding, decode_ast
from fcbench.decode.errors import DECODER_FAILED, WRONG_OUTPUT_FORMAT, DecodeError
from official_bfcl import bare, official_package

HANDLERS: dict[str, tuple[str, str, str]] = {
    "qwen": ("qwen", "QwenHandler", "Qwen/Qwen3-8B"),
    "qwen-fc": ("qwen_fc", "QwenFCHandler", "Qwen/Qwen3-8B"),
    "nanbeige-fc": ("nanbeige_fc", "NanbeigeFCHandler", "Nanbeige/Nanbeige4-3B-Thinking-2511"),
    "pelican-fc": ("pelican_vl_fc", "PelicanVLFCHandler", "X-Humanoid/Pelican1.0-VL-30B-A3B-FC"),
    "arch": ("arch", "ArchHandler", "katanemo/Arch-Agent-7B"),
    "granite-4": ("granite_4", "Granite4FCHandler", "ibm-granite/granite-4.0-350m"),
    "granite-3": ("granite_3", "Granite3FCHandler", "ibm-granite/granite-3.2-8b-instruct"),
    "granite-20b": ("granite", "GraniteFunctionCallingHandler",
                    "ibm-granite/granite-20b-functioncalling"),
    "llama": ("llama", "LlamaHandler", "meta-llama/Llama-3.1-8B-Instruct"),
    "llama-4": ("llama", "LlamaHandler", "meta-llama/Llama-4-Scout-17B-16E-Instruct"),
    "llama-3.1": ("llama_3_1", "LlamaHandler_3_1", "meta-llama/Llama-3.1-8B-Instruct"),
    "xlam-llama": ("salesforce_llama", "SalesforceLlamaHandler", "Salesforce/Llama-xLAM-2-8b-fc-r"),
    "xlam-qwen": ("salesforce_qwen", "SalesforceQwenHandler", "Salesforce/xLAM-2-3b-fc-r"),
    "bitagent": ("bitagent", "BitAgentHandler", "BitAgent/BitAgent-Bounty-8B"),
    "think-agent": ("think_agent", "ThinkAgentHandler", "ThinkAgents/ThinkAgent-1B"),
    "hammer": ("hammer", "HammerHandler", "MadeAgents/Hammer2.1-7b"),
    "gemma": ("gemma", "GemmaHandler", "google/gemma-3-4b-it"),
    "functiongemma": ("functiongemma", "FunctionGemmaHandler", "google/functiongemma-270m-it"),
    "glm": ("glm", "GLMHandler", "THUDM/glm-4-9b-chat"),
    "phi": ("phi", "PhiHandler", "microsoft/phi-4"),
    "phi-4-mini": ("phi", "PhiHandler", "microsoft/Phi-4-mini-instruct"),
    "phi-fc": ("phi_fc", "PhiFCHandler", "microsoft/Phi-4-mini-instruct"),
    "minicpm": ("minicpm", "MiniCPMHandler", "openbmb/MiniCPM3-4B"),
    "minicpm-fc": ("minicpm_fc", "MiniCPMFCHandler", "openbmb/MiniCPM3-4B"),
    "mistral-fc": ("mistral_fc", "MistralFCHandler", "mistralai/Ministral-8B-Instruct-2410"),
    "deepseek-r1": ("deepseek_reasoning", "DeepseekReasoningHandler", "deepseek-ai/DeepSeek-R1"),
    "bielik": ("bielik", "BielikHandler", "speakleash/Bielik-11B-v2.3-Instruct"),
}
"""fcbench family -> (official module, handler class, a model name it is registered for)."""

PR_FAMILIES = frozenset(family for spec in PR_HANDLERS.values() for family in spec["variants"])
"""Families of open upstream pull requests: no handler in the wheel, checked against the PR's
recorded handler instead (test_pr_prompts.py, make_pr_golden.py)."""

@contextlib.contextmanager
def official_handlers(wheel: Path, folder: Path) -> Iterator[types.SimpleNamespace]:
    """The handler classes and loader of the official package, importable meanwhile."""
    with official_package(wheel, folder):
        from bfcl_eval.constants.enums import ModelStyle
        from bfcl_eval.utils import load_dataset_entry

        classes = {}
        for name, (module, cls, _) in HANDLERS.items():
            loaded = importlib.import_module(f"bfcl_eval.model_handler.local_inference.{module}")
            classes[name] = getattr(loaded, cls)
        falcon = importlib.import_module("bfcl_eval.model_handler.local_inference.falcon_fc")
        _remember_generated_code()
        yield types.SimpleNamespace(
            classes=classes, falcon=falcon.Falcon3FCHandler, style=ModelStyle.OSSMODEL,
            load=load_dataset_entry,
        )


def _remember_generated_code() -> None:
    """The MiniCPM-FC handler runs datamodel-code-generator on every doc at every rendering
    (~0.1 s each): its `jsonschema_to_code` is remembered by argument for the oracle tests
    (a pure function, so the prompts are unchanged)."""
    module = importlib.import_module("bfcl_eval.model_handler.local_inference.minicpm_fc")
    generate = module.jsonschema_to_code
    remembered: dict[str, Any] = {}

    def jsonschema_to_code(schema: dict[str, Any]) -> Any:
        key = json.dumps(schema)
        if key not in remembered:
            remembered[key] = generate(schema)
        return remembered[key]

    module.jsonschema_to_code = jsonschema_to_code


def make_handler(official: types.SimpleNamespace, family: str) -> Any:
    """A handler of `family` with the attributes its methods read."""
    _, _, model = HANDLERS[family]
    cls = official.classes[family]
    return bare(cls, model_name=model, model_name_huggingface=model,
                model_style=official.style, temperature=0.001)


def official_decoder(official: types.SimpleNamespace, name: str) -> Any:
    """A handler whose decode_ast / decode_execute the output format `name` reproduces."""
    if name == "falcon-fc":
        return bare(official.falcon, model_name="tiiuae/Falcon3-7B-Instruct")
    return make_handler(official, "qwen" if name == "default" else name)


class FakeCompletion:
    """What `_parse_query_response_prompting` reads from an OpenAI completion."""

    def __init__(self, text: str) -> None:
        self.choices = [types.SimpleNamespace(text=text)]
        self.usage = types.SimpleNamespace(prompt_tokens=11, completion_tokens=7)


def ours_ast(result: Any, encoding: Encoding, language: Language) -> tuple[str, str]:
    """(outcome, detail): the calls, or the error type and the message / decoded output."""
    try:
        calls = decode_ast(result, encoding, language)
    except DecodeError as exc:
        if exc.error_type == WRONG_OUTPUT_FORMAT:
            return exc.error_type, repr(exc.decoded)
        return exc.error_type, str(exc)
    return "calls", repr([call.as_official() for call in calls])


def theirs_ast(handler: Any, result: Any, fmt: Any) -> tuple[str, str]:
    from bfcl_eval.utils import is_function_calling_format_output

    try:
        decoded = handler.decode_ast(result, fmt, False)
    except Exception as exc:
        return DECODER_FAILED, str(exc)
    if not is_function_calling_format_output(decoded):
        return WRONG_OUTPUT_FORMAT, repr(decoded)
    return "calls", repr(decoded)


def copy(value: Any) -> Any:
    return json.loads(json.dumps(value))


# --------------------------------------------------------------------------- family outputs


def python_list(calls: list[tuple[str, dict[str, Any]]]) -> str:
    return "[" + ", ".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})"
                           for n, a in calls) + "]"


def _json_calls(calls: list[tuple[str, dict[str, Any]]], key: str = "arguments") -> str:
    return json.dumps([{"name": n, key: a} for n, a in calls])


def _tagged(calls: list[tuple[str, dict[str, Any]]]) -> str:
    return "\n".join(f'<tool_call>\n{json.dumps({"name": n, "arguments": a})}\n</tool_call>'
                     for n, a in calls)


def _gemma_value(value: Any) -> str:
    if isinstance(value, str):
        return f"<escape>{value}<escape>"
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, list):
        return "[" + ",".join(_gemma_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ",".join(f"{k}:{_gemma_value(v)}" for k, v in value.items()) + "}"
    return str(value)


def _minicpm(calls: list[tuple[str, dict[str, Any]]]) -> str:
    lines = "\n".join(f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in calls)
    return (f"<|thought_start|>\nI call.\n<|thought_end|>\n<|tool_call_start|>\n```python\n"
            f"{lines}\n```\n<|tool_call_end|>\nDone.")


WRITERS: dict[str, Any] = {
    "default": python_list,
    "qwen": lambda c: "<think>\nLet me see.\n</think>\n\n" + python_list(c),
    "deepseek-r1": lambda c: "Thinking...</think>" + python_list(c),
    "phi": lambda c: "```json" + python_list(c),
    "qwen-fc": lambda c: "<think>\nok\n</think>\n\n" + _tagged(c),
    "granite-4": _tagged,
    "nanbeige-fc": lambda c: "<think>\nhm\n</think>\n\n" + _tagged(c),
    "pelican-fc": _tagged,
    "arch": _tagged,
    "falcon-fc": lambda c: "<tool_call>" + _json_calls(c) + "</tool_call>",
    "phi-fc": lambda c: "<|tool_call|>" + _json_calls(c) + "<|/tool_call|>",
    "granite-3": lambda c: "<|tool_call|>" + _json_calls(c),
    "mistral-fc": _json_calls,
    "xlam-llama": _json_calls,
    "xlam-qwen": _json_calls,
    "bitagent": _json_calls,
    "hammer": lambda c: "```\n" + _json_calls(c) + "\n```",
    "think-agent": lambda c: "<think>plan</think>" + _json_calls(c).replace('"', "'"),
    "llama-3.1": lambda c: "<|python_tag|>" + "; ".join(
        json.dumps({"name": n, "parameters": a}) for n, a in c),
    "glm": lambda c: f"{c[0][0]}\n{json.dumps(c[0][1])}" if c else "no call",
    "granite-20b": lambda c: " ".join(
        "<function_call> " + json.dumps({"name": n, "arguments": a}) for n, a in c),
    "minicpm-fc": _minicpm,
    "functiongemma": lambda c: "".join(
        f"<start_function_call>call:{n}{_gemma_value(a)}<end_function_call>" for n, a in c),
}
"""Output format -> a writer of correct outputs in it (for families decoded the default
way, see `writer`)."""


def writer(name: str) -> Any:
    """A function writing calls `[(name, args)]` as a model of this family answers."""
    from fcbench.models import families

    if name in WRITERS:
        return WRITERS[name]
    decoder = families.get(name).decoder_name if name in families.FAMILIES else name
    return WRITERS.get(decoder, python_list)
