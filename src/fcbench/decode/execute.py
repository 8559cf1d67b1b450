"""`decode_execute`: one model step -> the call strings that get executed (spec §4.3, §4.4).

Multi-turn checking does not compare decoded calls: it re-renders every call as a Python
call string and runs it against the environment classes. The official evaluator renders
differently per mode, and those renderings decide what is executed, so they are reproduced
character for character:

* prompt mode parses the text like the AST decoder (Python format, no tag) and writes each
  argument with `repr`, except that a dict argument is written as a nested call when all its
  values are dicts (so an empty dict makes rendering fail, like upstream);
* FC mode with JSON-string arguments (OpenAI-style handlers) json-decodes each item's
  arguments and writes `name(k1=repr(v1),k2=repr(v2))`, with no space after the commas;
* FC mode with object arguments (Gemini-style handlers) writes the same form from the
  already-decoded arguments;
* an open-model family (`Encoding.family`) uses its handler's own `decode_execute`
  (`decode.families`).
"""

from __future__ import annotations

import json
from typing import Any

from fcbench.decode.budget import check_raw
from fcbench.decode.encoding import Encoding
from fcbench.decode.errors import DecodeError
from fcbench.decode.python_calls import bracketed, python_calls

__all__ = ["decode_execute", "fc_json_string_calls", "is_empty_execution", "render_decoded"]


def decode_execute(raw: Any, encoding: Encoding) -> list[str]:
    """The call strings of one step; raises DecodeError wherever the official one raises
    (`OverBudget`, one, past `decode.budget`'s bounds: decoding stays bounded in time)."""
    try:
        check_raw(raw)
        if encoding.family is not None:
            from fcbench.decode import families

            return families.decoder(encoding.family).execute(raw)  # type: ignore[no-any-return]
        if not encoding.is_fc:
            return _prompt_mode(raw)
        if encoding.fc_args == "object":
            return _fc_object(raw)
        return fc_json_string_calls(raw)
    except DecodeError:
        raise
    except (Exception, RecursionError) as exc:  # any upstream failure drops the step
        raise DecodeError(f"Failed to decode for execution. {type(exc).__name__}: {exc}") from None


def is_empty_execution(calls: list[str]) -> bool:
    """The official "empty" test: no call, or one empty call string."""
    return len(calls) == 0 or (len(calls) == 1 and len(calls[0]) == 0)


# --- prompt mode ---------------------------------------------------------------------------


def _prompt_mode(raw: Any) -> list[str]:
    if not isinstance(raw, str):
        raise DecodeError(f"expected the model's text, got {type(raw).__name__}")
    return render_decoded(python_calls(bracketed(raw)))


def render_decoded(decoded: list[dict[Any, Any]]) -> list[str]:
    """`[{name: {k: v}}]` -> `["name(k=v, ...)"]`, nested dicts by the official rule."""
    rendered = []
    for call in decoded:
        for name, args in call.items():
            rendered.append(f"{name}({_render_args(args)})")
    return rendered


def _render_args(args: dict[Any, Any]) -> str:
    return ", ".join(f"{key}={_render_value(value)}" for key, value in args.items())


def _render_value(value: Any) -> str:
    """`repr`, except dicts: all-dict values -> a call of the first key; else a dict display.

    [quirk] `all()` of no values is true, so `{}` is taken for a call and has no first key:
    rendering fails (IndexError), which drops the whole step.
    """
    if not isinstance(value, dict):
        return repr(value)
    if all(isinstance(v, dict) for v in value.values()):
        if not value:
            raise DecodeError("list index out of range (an empty dict is rendered as a call)")
        name = next(iter(value))
        return f"{name}({_render_args(value[name])})"
    items = ", ".join(f"'{key}': {_render_value(v)}" for key, v in value.items())
    return "{" + items + "}"


# --- FC modes ------------------------------------------------------------------------------


def fc_json_string_calls(raw: Any) -> list[str]:
    """OpenAI-style (the official `convert_to_function_call`): a lone dict counts as one
    item; string arguments are JSON-decoded; `name(k1=v1,k2=v2)` without spaces."""
    items = [raw] if type(raw) is dict else raw
    if not isinstance(items, (list, str)):
        raise DecodeError(f"'{type(items).__name__}' object is not iterable")
    rendered = []
    for item in items:
        if not isinstance(item, dict):
            raise DecodeError(f"'{type(item).__name__}' object has no attribute 'items'")
        for name, arguments in item.items():
            if type(arguments) is str:
                arguments = json.loads(arguments)
            rendered.append(_fc_call(name, arguments))
    return rendered


def _fc_object(raw: Any) -> list[str]:
    """Gemini-style: items are iterated as given and their arguments used as they are."""
    rendered = []
    for item in _iterate(raw):
        for name, arguments in _items(item):
            rendered.append(_fc_call(name, arguments))
    return rendered


def _fc_call(name: Any, arguments: Any) -> str:
    if not isinstance(arguments, dict):
        raise DecodeError(f"'{type(arguments).__name__}' object has no attribute 'items'")
    return f"{name}({','.join([f'{k}={v!r}' for k, v in arguments.items()])})"


def _iterate(value: Any) -> list[Any]:
    """What a Python `for` over the value yields (text iterates by character)."""
    if isinstance(value, (list, tuple, str, dict)):
        return list(value)
    raise DecodeError(f"'{type(value).__name__}' object is not iterable")


def _items(value: Any) -> list[tuple[Any, Any]]:
    if not isinstance(value, dict):
        raise DecodeError(f"'{type(value).__name__}' object has no attribute 'items'")
    return list(value.items())
