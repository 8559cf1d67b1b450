"""Families that answer in the benchmark's own Python-call format (spec §4.2, §4.4).

Most prompt-mode handlers (Qwen, Llama 3, Gemma, MiniCPM, Bielik, DeepSeek-R1) keep the
default decoders; Phi's first drops a leading ```` ```json ```` or ```` ```python ```` fence
(for `decode_ast` after stripping the text, for `decode_execute` without stripping).
"""

from __future__ import annotations

from typing import Any

from fcbench.core.categories import Language
from fcbench.decode.families import FamilyDecoder

_FENCES = ("```json", "```python")


def default_ast(result: Any, language: Language) -> Any:
    from fcbench.decode.calls import calls_as_decoded
    from fcbench.decode.encoding import Encoding, decode_ast

    return calls_as_decoded(decode_ast(result, Encoding(), language))


def default_execute(result: Any) -> list[str]:
    from fcbench.decode.encoding import Encoding
    from fcbench.decode.execute import decode_execute

    return decode_execute(result, Encoding())


def _drop_fences(text: str) -> str:
    for fence in _FENCES:  # in this order, each at most once, as the handler does
        if text.startswith(fence):
            text = text[len(fence):]
    return text


def phi_ast(result: Any, language: Language) -> Any:
    return default_ast(_drop_fences(result.strip()), language)


def phi_execute(result: Any) -> list[str]:
    return default_execute(_drop_fences(result))


DEFAULT = FamilyDecoder(default_ast, default_execute)
PHI = FamilyDecoder(phi_ast, phi_execute)
