"""Families whose calls are laid out over lines or markers: GLM-4 (`name\\n{json args}`) and
Granite-20B-FunctionCalling (`<function_call> {json}` per call).

GLM keeps a one-line answer as a bare string (which then fails the shape check) and reads
only the first two lines otherwise. Granite keeps text that is not JSON as a string item and
writes `no_function` as the sentence "No function is called", so both reach the checker the
way the handler leaves them.
"""

from __future__ import annotations

import json
from typing import Any

from fcbench.core.categories import Language
from fcbench.decode.families import FamilyDecoder
from fcbench.decode.families.common import call_string, convert_to_function_call

NO_FUNCTION = "No function is called"


def glm_ast(result: Any, language: Language) -> Any:
    lines = result.split("\n")
    if len(lines) == 1:
        return [lines[0]]
    return [{lines[0]: json.loads(lines[1])}]


def glm_execute(result: Any) -> list[str]:
    lines = result.split("\n")
    if len(lines) == 1:
        return convert_to_function_call(lines[0])
    return convert_to_function_call([{lines[0]: lines[1]}])


def _granite_items(result: Any) -> list[Any]:
    """Each `<function_call>` chunk: the parsed JSON, or the chunk itself when it is not JSON."""
    items: list[Any] = []
    for chunk in result.split("<function_call>"):
        chunk = chunk.strip()
        if not chunk:
            continue
        try:
            parsed = json.loads(chunk)
        except Exception:  # the handler's bare except keeps the text
            items.append(chunk)
            continue
        items.append(("call", parsed.get("name", "").strip(), parsed.get("arguments", {})))
    return items


def granite_ast(result: Any, language: Language) -> Any:
    decoded: list[Any] = []
    for item in _granite_items(result):
        if type(item) is tuple:
            _, name, args = item
            decoded.append(NO_FUNCTION if name == "no_function" else {name: args})
        else:
            decoded.append(item)
    return decoded


def granite_execute(result: Any) -> list[Any]:
    decoded: list[Any] = []
    for item in _granite_items(result):
        if type(item) is tuple:
            _, name, args = item
            decoded.append(NO_FUNCTION if name == "no_function" else call_string(name, args))
        else:
            decoded.append(item)
    return decoded


GLM = FamilyDecoder(glm_ast, glm_execute)
GRANITE_20B = FamilyDecoder(granite_ast, granite_execute)
