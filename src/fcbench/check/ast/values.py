"""Value comparators of the AST checker: strings, lists, dicts and lists of dicts (spec §3.8).

Each mirrors the official comparison exactly, which matters because the official code walks
acceptable values with Python's own `in`, `==` and `len` and so has edge behaviour (an empty
model list matches an acceptable `""`, a nested dict is compared by plain equality) that
decides real verdicts.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from fcbench.core.model import Verdict

_IGNORED = re.compile(r"[ ,./\-_*^]")


@lru_cache(maxsize=1 << 16)
def standardize(text: str) -> str:
    """Drop spaces and `,./-_*^`, lowercase, and turn `'` into `"` (the AST normaliser)."""
    return _IGNORED.sub("", text).lower().replace("'", '"')


def _standardized_if_str(value: Any) -> Any:
    return standardize(value) if type(value) is str else value


def standardized_strings(acceptable: list[Any]) -> frozenset[str]:
    """The acceptable strings as `check_string` compares them (computed once per case)."""
    return frozenset(standardize(a) for a in acceptable if type(a) is str)


def check_string(
    param: str, value: str, acceptable: list[Any], wanted: frozenset[str] | None = None
) -> Verdict:
    """Equality after `standardize`; `wanted` is `standardized_strings(acceptable)` if known."""
    if wanted is None:
        wanted = standardized_strings(acceptable)
    if standardize(value) not in wanted:
        return Verdict.fail(
            "value_error:string",
            f"Invalid value for parameter {param!r}: {value!r}. "
            f"Expected one of {acceptable}. Case insensitive.",
        )
    return Verdict.ok()


def check_list(param: str, value: list[Any], acceptable: list[Any]) -> Verdict:
    """Order-sensitive list equality after normalising top-level string elements."""
    model = [_standardized_if_str(v) for v in value]
    wanted = [[_standardized_if_str(item[j]) for j in range(len(item))] for item in acceptable]
    if model not in wanted:
        return Verdict.fail(
            "value_error:list/tuple",
            f"Invalid value for parameter {param!r}: {value!r}. Expected one of {acceptable}.",
        )
    return Verdict.ok()


def check_dict(param: str, value: dict[Any, Any], acceptable: list[Any]) -> Verdict:
    """The first acceptable dict that fully matches wins; else the last one's error.

    [quirk] When every acceptable value is `""` the verdict is `dict_checker:unclear`.
    """
    verdict = Verdict.fail("dict_checker:unclear", "No acceptable dict value to compare with.")
    for candidate in acceptable:
        if candidate == "":
            continue
        verdict = _match_dict(value, candidate)
        if verdict.valid:
            return verdict
    return verdict


def _match_dict(value: dict[Any, Any], candidate: Any) -> Verdict:
    """Check the model's keys, then the missing ones.

    [quirk] The missing-key pass runs even after a value mismatch, and its error type wins.
    """
    errors: list[str] = []
    error_type = ""
    for key, item in value.items():
        if key not in candidate:
            errors.append(f"Unexpected dict key parameter: '{key}'.")
            error_type = "value_error:dict_key"
            break
        allowed = [_standardized_if_str(candidate[key][i]) for i in range(len(candidate[key]))]
        if _standardized_if_str(item) not in allowed:
            errors.append(
                f"Invalid value for parameter {key!r}: {item!r}. Expected one of {allowed}."
            )
            error_type = "value_error:dict_value"
            break
    for key, allowed_values in candidate.items():
        if key not in value and "" not in allowed_values:
            errors.append(f"Missing dict key parameter: '{key}'.")
            error_type = "value_error:dict_key"
            break
    return Verdict.fail(error_type, *errors) if error_type else Verdict.ok()


def check_list_of_dicts(param: str, value: list[Any], acceptable: list[Any]) -> Verdict:
    """Element-wise dict checks against each acceptable list of the same length."""
    verdict = Verdict.fail(
        "list_dict_checker:unclear", "No acceptable list of dicts to compare with."
    )
    for candidate in acceptable:
        if len(value) != len(candidate):
            verdict = Verdict.fail(
                "value_error:list_dict_count", "Wrong number of dictionaries in the list."
            )
            continue
        matched = True
        for index in range(len(value)):
            verdict = check_dict(param, value[index], [candidate[index]])
            if not verdict.valid:
                matched = False
                break
        if matched:
            return Verdict.ok()
    return verdict
