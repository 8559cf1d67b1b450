"""The `lenient-defaults` rule: an optional parameter given exactly its documented default is
accepted as if omitted (`--corrections lenient-defaults`, docs/corrections.md).

Why: a model that writes `unit='fahrenheit'` where the doc says `default: 'fahrenheit'` and the
ground truth allows the parameter to be left out has said nothing the omission would not say;
upstream fails it when the ground truth does not list the default among the values (the
answers' authors often forgot to). Users asked for this (inspect_evals made it their default);
fcbench keeps it opt-in so the official scores stay byte-faithful.

The rule, exactly, applied only where the official check of the parameter fails:
- the parameter is not required, the ground truth lists `""` among its values (may be
  omitted) and the doc has a `default`;
- the model's value, after the conversions the checker applies (Python: a tuple read as a
  list, an int for a `float` parameter as a float; Java/JavaScript: the source text converted
  by the doc type), equals the default after the same conversions (a default written as
  source text for a non-string Java/JavaScript type is converted like the model's text);
- equality is by JSON type as well as value, at every depth: `True` is not `1`, `1` is not
  `1.0` (except through the float promotion above), `"5"` is not `5`, and strings compare
  exactly (no case folding or punctuation stripping: "exactly its default"). A `null`
  default is met by `None` only.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

__all__ = ["applies", "python_value", "same", "source_default"]


def applies(param: str, required: list[Any], details: dict[str, Any],
            acceptable: list[Any]) -> bool:
    """Whether the rule may accept this parameter at all: optional, omittable in the ground
    truth, and documented with a default."""
    return (param not in required and "default" in details
            and any(isinstance(v, str) and v == "" for v in acceptable))


def python_value(value: Any, declared: str) -> Any:
    """A Python answer's value (or a doc default) after the checker's own conversions: a
    tuple for a `tuple` parameter as a list, an int (not a bool) for a `float` one as a
    float. Nothing deeper: the checker promotes at the top level only."""
    if declared == "tuple" and type(value) is tuple:
        return list(value)
    if declared == "float" and type(value) is int:
        return float(value)
    return value


def source_default(default: Any, expected: type, convert: Callable[[str], Any]) -> Any:
    """A Java/JavaScript doc default as the checker would read it: written as source text
    (a string) for a non-string type, converted by the same converter as the model's text;
    any other default as it is."""
    if isinstance(default, str) and expected is not str:
        return convert(default)
    return default


def same(left: Any, right: Any) -> bool:
    """Equal in JSON type and value at every depth (bool, int and float kept apart); a value
    too deep to compare is not the default."""
    try:
        return _same(left, right)
    except RecursionError:
        return False


def _same(left: Any, right: Any) -> bool:
    if type(left) is not type(right):
        return False
    if isinstance(left, list):
        return len(left) == len(right) and all(map(_same, left, right))
    if isinstance(left, dict):
        return left.keys() == right.keys() and all(_same(v, right[k]) for k, v in left.items())
    return bool(left == right)
