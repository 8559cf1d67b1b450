"""Gemma 4's native tool calls as upstream PR #1340 reads them (`gemma4.py Gemma4Handler`,
not in bfcl-eval 2026.3.23; the other Gemma 4 PR, #1357, rewrites them while parsing
instead, see `models.families.gemma_4`).

Before the default decoders, every `<|tool_call>...<tool_call|>` block becomes one call of a
bracketed list: the fullwidth colon read as `:`, a `call:` or `call[...]` wrapper dropped,
`name{}` read as `name()` and `name{key: value}` as `name(key=value)`; a block of any other
shape is left out, and text without a usable block is decoded as it is.
"""

from __future__ import annotations

import re
from typing import Any

from fcbench.core.categories import Language
from fcbench.decode.families import FamilyDecoder
from fcbench.decode.families.default import default_ast, default_execute

OPEN, CLOSE = "<|tool_call>", "<tool_call|>"
_EMPTY_ARGS = re.compile(r"(\w+)\{\}")
_DICT_ARGS = re.compile(r"(\w+)\{(.+)\}", re.DOTALL)
_DICT_KEY = re.compile(r"(^|,\s*)(\w+)\s*:")
"""A top-level `key:` (at the start or after a comma) becomes `key=`."""


def blocks(text: str) -> list[str]:
    """Each block's body, stripped: from an opener to the first closer after it, in one
    pass (the PR's lazy regex finds the same spans)."""
    found, position = [], 0
    while (start := text.find(OPEN, position)) != -1:
        end = text.find(CLOSE, start + len(OPEN))
        if end == -1:
            break
        found.append(text[start + len(OPEN):end].strip())
        position = end + len(CLOSE)
    return found


def normalized(body: str) -> str | None:
    """One block as a Python call, or None for a shape the PR does not know."""
    text = body.strip().replace("\uff1a", ":")
    if text.startswith("call:"):
        text = text[len("call:"):].lstrip()
    elif text.startswith("call["):
        text = text[len("call["):].lstrip()
        if text.endswith("]"):
            text = text[:-1].rstrip()
    else:
        return None
    if match := _EMPTY_ARGS.fullmatch(text):
        return f"{match.group(1)}()"
    if match := _DICT_ARGS.fullmatch(text):
        arguments = _DICT_KEY.sub(r"\1\2=", match.group(2))
        return f"{match.group(1)}({arguments})"
    return text


def as_list(result: Any) -> Any:
    """The native blocks as the benchmark's bracketed list; anything else unchanged."""
    if not isinstance(result, str):
        return result
    calls = [call for call in map(normalized, blocks(result)) if call is not None]
    return "[" + ", ".join(calls) + "]" if calls else result


def native_ast(result: Any, language: Language) -> Any:
    return default_ast(as_list(result), language)


def native_execute(result: Any) -> list[str]:
    return default_execute(as_list(result))


GEMMA4_NATIVE = FamilyDecoder(native_ast, native_execute)
