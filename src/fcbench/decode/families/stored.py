"""Families whose handler already turned the text into calls at generation time.

Phi-FC, Granite 3, Arch and Mistral-FC store `[{name: arguments}]` when they found calls and
the text otherwise, so decoding is a shape guard: Phi-FC, Granite 3 and Arch want a list of
dicts, Mistral-FC only a list; execution strings come from `convert_to_function_call`.
"""

from __future__ import annotations

from typing import Any

from fcbench.core.categories import Language
from fcbench.decode.families import FamilyDecoder
from fcbench.decode.families.common import convert_to_function_call, require_list_of_dicts


def dicts_ast(result: Any, language: Language) -> Any:
    return require_list_of_dicts(result)


def dicts_execute(result: Any) -> list[str]:
    return convert_to_function_call(require_list_of_dicts(result))


def _require_list(result: Any) -> list[Any]:
    if type(result) is not list:
        raise ValueError(f"Model did not return a list of function calls: {result}")
    return result


def list_ast(result: Any, language: Language) -> Any:
    return _require_list(result)


def list_execute(result: Any) -> list[str]:
    return convert_to_function_call(_require_list(result))


LISTS_OF_DICTS = FamilyDecoder(dicts_ast, dicts_execute)
STORED_LISTS = FamilyDecoder(list_ast, list_execute)
