"""Calls written out in the benchmark's prompt-mode return formats.

The format-sensitivity prompts ask for the calls as Python (`[f(a=1)]`), as JSON
(`[{"function": "f", "parameters": {"a": 1}}]`), or as XML, verbose
(`<functions><function name="f"><params><param name="a" value="1" type="integer"/></params>
</function></functions>`) or concise (`<param name="a" type="integer">1</param>`), each
optionally inside `<TOOLCALL>...</TOOLCALL>`. The built-in ground-truth model answers in the
format its case asks for, so that its answers decode back to the values it meant:

* XML values carry the `type` the decoder converts by: string, integer, float, boolean,
  null, and array / tuple / dict as Python literals; text is escaped (in attributes also
  newlines and tabs, which XML would otherwise turn into spaces).
* What a format cannot say is left as it comes out: concise XML loses a string's leading and
  trailing whitespace (the decoder strips it), and a parameter holding a list of objects
  cuts the official JSON decoder's call-list pattern short (it ends at the inner `}]`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any
from xml.sax.saxutils import escape

from fcbench.dataset.format_sensitivity import PromptConfig

Calls = Sequence[tuple[str, dict[str, Any]]]

_ATTRIBUTE = {'"': "&quot;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"}
_TEXT = {"\r": "&#13;"}


def in_format(calls: Calls, config: PromptConfig, python_text: str) -> str:
    """The answer in the configuration's return format (`python_text`: the Python one,
    which needs the docs to write variable names bare), in the tag if it asks for one."""
    if config.return_format == "json":
        text = json.dumps([{"function": name, "parameters": args} for name, args in calls])
    elif config.return_format == "verbose_xml":
        text = verbose_xml(calls)
    elif config.return_format == "concise_xml":
        text = concise_xml(calls)
    else:
        text = python_text
    return f"<TOOLCALL>{text}</TOOLCALL>" if config.tool_call_tag else text


def verbose_xml(calls: Calls) -> str:
    """Each parameter an empty element with name, value and type, inside `<params>`."""
    return _xml(calls, lambda key, value: (
        f"<param name={_attribute(key)} value={_attribute(_text(value))} "
        f"type={_attribute(_type(value))}/>"
    ), "<params>", "</params>")


def concise_xml(calls: Calls) -> str:
    """Each parameter an element with name and type, its value as the text."""
    return _xml(calls, lambda key, value: (
        f"<param name={_attribute(key)} type={_attribute(_type(value))}>"
        f"{escape(_text(value), _TEXT)}</param>"
    ), "", "")


def _xml(calls: Calls, param: Callable[[str, Any], str], open_: str, close: str) -> str:
    functions = "".join(
        f"<function name={_attribute(name)}>{open_}"
        + "".join(param(key, value) for key, value in args.items())
        + f"{close}</function>"
        for name, args in calls
    )
    return f"<functions>{functions}</functions>"


def _attribute(text: str) -> str:
    return '"' + escape(str(text), _ATTRIBUTE) + '"'


_TYPES: tuple[tuple[type, str], ...] = (
    (bool, "boolean"), (int, "integer"), (float, "float"), (type(None), "null"),
    (tuple, "tuple"), (list, "array"), (dict, "dict"),
)
"""Python type -> the XML `type` the decoder reads it back by (bool before int: a subclass)."""


def _type(value: Any) -> str:
    return next((name for kind, name in _TYPES if isinstance(value, kind)), "string")


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    return repr(value)  # numbers, and literals ast.literal_eval reads back
