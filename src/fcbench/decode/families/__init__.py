"""The output decoders of the official open-model handlers, by family name.

The official local-inference handlers (`bfcl_eval/model_handler/local_inference/*.py`) each
decode their model's text their own way: `<tool_call>` JSON blocks, a JSON list, Llama 3.1's
`{"name", "parameters"}`, MiniCPM's Python block, FunctionGemma's escaped tokens, or a list
the handler already built at generation time. A result folder whose `model.json` names a
`family` (or `fcbench evaluate --output-format FAMILY`) is decoded by that family's pair:

* `ast(result, language)`: the official `decode_ast`, returning the *official decoded form*
  (`[{name: {arg: value}}]` when it worked, whatever the handler returned otherwise); the
  caller applies the official shape check, so a handler that returns text fails as
  `decoder_wrong_output_format` exactly where the official one does;
* `execute(result)`: the official `decode_execute`, the call strings multi-turn runs.

Either may raise any exception where the handler raises; `decode.encoding` turns it into a
`DecodeError` carrying the same message. Nothing here evaluates model text: where a handler
calls `eval`, `common.literal_eval` computes the value of literal expressions instead.

The registry maps a family name to the module attribute holding its `FamilyDecoder`; several
names share one decoder (every family that keeps the benchmark's Python-call output uses
`default`). Adding a decoder = one function pair + one line here.
"""

from __future__ import annotations

import functools
import importlib
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from fcbench.core.categories import Language

__all__ = ["DECODERS", "FamilyDecoder", "UnknownFamily", "decoder", "names"]


@dataclass(frozen=True)
class FamilyDecoder:
    """One family's two official decoders."""

    ast: Callable[[Any, Language], Any]
    execute: Callable[[Any], Any]


class UnknownFamily(ValueError):
    """A family name with no decoder."""


_DEFAULT = "fcbench.decode.families.default:DEFAULT"
_TAGGED = "fcbench.decode.families.tagged:TOOL_CALL_TAGS"
_LISTS = "fcbench.decode.families.stored:STORED_LISTS"

DECODERS: dict[str, str] = {
    "default": _DEFAULT,
    "qwen": _DEFAULT,
    "llama": _DEFAULT,
    "llama-4": _DEFAULT,
    "gemma": _DEFAULT,
    "minicpm": _DEFAULT,
    "bielik": _DEFAULT,
    "deepseek-r1": _DEFAULT,
    "phi": "fcbench.decode.families.default:PHI",
    "phi-4-mini": "fcbench.decode.families.default:PHI",
    "qwen-fc": _TAGGED,
    "granite-4": _TAGGED,
    "nanbeige-fc": _TAGGED,
    "pelican-fc": _TAGGED,
    "falcon-fc": "fcbench.decode.families.tagged:FALCON",
    "phi-fc": "fcbench.decode.families.stored:LISTS_OF_DICTS",
    "granite-3": "fcbench.decode.families.stored:LISTS_OF_DICTS",
    "arch": "fcbench.decode.families.stored:LISTS_OF_DICTS",
    "mistral-fc": _LISTS,
    "xlam-llama": "fcbench.decode.families.json_calls:XLAM",
    "xlam-qwen": "fcbench.decode.families.json_calls:XLAM",
    "bitagent": "fcbench.decode.families.json_calls:BITAGENT",
    "hammer": "fcbench.decode.families.json_calls:HAMMER",
    "think-agent": "fcbench.decode.families.json_calls:THINK_AGENT",
    "llama-3.1": "fcbench.decode.families.json_calls:LLAMA_3_1",
    "glm": "fcbench.decode.families.lines:GLM",
    "gemma-4-native": "fcbench.decode.families.gemma4_native:GEMMA4_NATIVE",
    "lfm2": "fcbench.decode.families.lfm2:LFM2",
    "granite-20b": "fcbench.decode.families.lines:GRANITE_20B",
    "minicpm-fc": "fcbench.decode.families.minicpm:MINICPM_FC",
    "functiongemma": "fcbench.decode.families.functiongemma:FUNCTIONGEMMA",
}
"""Family name -> `module:attribute` of its FamilyDecoder (imported when first used)."""

def names() -> tuple[str, ...]:
    return tuple(DECODERS)


@functools.cache
def decoder(name: str) -> FamilyDecoder:
    """The decoders of family `name` (UnknownFamily with the known names otherwise)."""
    if name not in DECODERS:
        raise UnknownFamily(f"unknown output format {name!r} (one of {', '.join(DECODERS)})")
    module, _, attribute = DECODERS[name].partition(":")
    found: FamilyDecoder = getattr(importlib.import_module(module), attribute)
    return found
