"""Generated model outputs for format-sensitivity cases, in (and out of) each case's format.

For a case and a family of output, `output(case, family, rng)` writes what a prompt-mode model
might have answered under the case's configuration: right answers (the first acceptable
values, other acceptable values, in fences, with other whitespace and attribute order, calls
reordered), wrong ones (another function, a changed or retyped value, a parameter dropped or
added, calls duplicated or missing) and broken ones (another configuration's format, the tag
missing or unexpected, truncated text, invalid JSON / XML / Python, XML values its declared
type cannot read, empty text, refusals, results that are not text). The checker's verdicts on
them are compared with the official evaluator's in test_format_sensitivity_official.py.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

from fcbench.core.model import TestCase
from fcbench.dataset.format_sensitivity import CONFIGS, PromptConfig, split_id
from fcbench.ground_truth.backend import answer
from fcbench.models.answer_formats import in_format

Calls = list[tuple[str, dict[str, Any]]]
_OMIT = object()


# --------------------------------------------------------------------------- answers


def acceptable_calls(case: TestCase, rng: random.Random) -> Calls:
    """One acceptable answer, each value drawn at random among the acceptable ones."""
    calls: Calls = []
    for item in case.possible_answer or []:
        name, params = next(iter(item.items()))
        args = {}
        for key, values in params.items():
            value = _pick(values, rng)
            if value is not _OMIT:
                args[key] = value
        calls.append((name, args))
    return calls


def _pick(values: Any, rng: random.Random) -> Any:
    if not isinstance(values, list):
        return _resolve(values, rng)
    choices = [v for v in values if v != ""] or [""]
    if "" in values and rng.random() < 0.3:
        return _OMIT
    value = rng.choice(choices)
    return _OMIT if value == "" else _resolve(value, rng)


def _resolve(value: Any, rng: random.Random) -> Any:
    if isinstance(value, dict):
        out = {}
        for key, values in value.items():
            picked = _pick(values, rng)
            if picked is not _OMIT:
                out[key] = picked
        return out
    if isinstance(value, list):
        return [_resolve(v, rng) if isinstance(v, dict) else v for v in value]
    return value


def python_text(calls: Calls) -> str:
    return "[" + ", ".join(
        f"{name}({', '.join(f'{k}={v!r}' for k, v in args.items())})" for name, args in calls
    ) + "]"


def render(calls: Calls, config: PromptConfig) -> str:
    return in_format(calls, config, python_text(calls))


# --------------------------------------------------------------------------- mutations


def _changed(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return not value
    if isinstance(value, int):
        return value + rng.choice((1, -1, 1000))
    if isinstance(value, float):
        return value * 2 + 0.5
    if isinstance(value, str):
        return rng.choice((value + "zz", value.upper() + "!", "", "x" + value[1:]))
    if isinstance(value, list):
        return [*value, value[0]] if value else [1]
    if isinstance(value, dict):
        return {**value, "unexpected_key": 1}
    return "changed"


def _retyped(value: Any, rng: random.Random) -> Any:
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, (int, float)):
        return str(value)
    if isinstance(value, str):
        return rng.choice((7, 1.5, [value], None, True))
    if isinstance(value, list):
        return tuple(value) if rng.random() < 0.5 else json.dumps(value)
    return str(value)


def _mutate_one_arg(calls: Calls, rng: random.Random, how: Callable[[Any, random.Random], Any]
                    ) -> Calls:
    candidates = [(i, k) for i, (_, args) in enumerate(calls) for k in args]
    if not candidates:
        return [(name + "_x", args) for name, args in calls]
    i, key = rng.choice(candidates)
    out = [(name, dict(args)) for name, args in calls]
    out[i][1][key] = how(out[i][1][key], rng)
    return out


def _drop_arg(calls: Calls, rng: random.Random) -> Calls:
    out = [(name, dict(args)) for name, args in calls]
    candidates = [(i, k) for i, (_, args) in enumerate(out) for k in args]
    if candidates:
        i, key = rng.choice(candidates)
        del out[i][1][key]
    return out


def _extra_arg(calls: Calls, rng: random.Random) -> Calls:
    out = [(name, dict(args)) for name, args in calls]
    if out:
        out[rng.randrange(len(out))][1][rng.choice(("verbose", "unit", "zz_extra"))] = 1
    return out


def _other_config(config: PromptConfig, rng: random.Random) -> PromptConfig:
    return rng.choice([c for c in CONFIGS if c.return_format != config.return_format
                       or c.tool_call_tag != config.tool_call_tag])


# --------------------------------------------------------------------------- broken texts


def _broken(config: PromptConfig, calls: Calls, rng: random.Random) -> str:
    name = calls[0][0] if calls else "f"
    fmt = config.return_format
    if fmt == "json":
        texts = [
            f'[{{"function": "{name}"}}]',
            f'[{{"function": "{name}", "parameters": {{"a": 1}}',
            f'{{"function": "{name}", "parameters": {{}}}}',
            '[{"function": 5, "parameters": {"a": 1}}]',
            f'[{{"function": "{name}", "parameters": [1, 2]}}]',
            f'[{{"name": "{name}", "arguments": {{}}}}]',
            "[1, 2, 3]", f'["{name}"]', "[]", "[{}]",
            '[{"function": null, "parameters": {}}]',
            "Here you go: " + render(calls, config) + " hope it helps [1]",
        ]
    elif fmt in ("verbose_xml", "concise_xml"):
        good = render(calls, PromptConfig(fmt))
        texts = [
            good.replace("</functions>", ""),
            good.replace("<functions>", "<function>", 1),
            good.replace(' name="', ' nom="', 1),
            good.replace('type="string"', 'type="integer"', 1),
            good.replace('type="integer"', 'type="array"', 1).replace(
                'type="float"', 'type="dict"'),
            good.replace('type="', 'type="custom_', 1),
            good.replace(' type="string"', "", 2),
            good.replace("<param ", "<param name=\"dup\" ", 1),
            good.replace('"', "'"),
            good.replace("&quot;", '"', 1) + "<",
            "<functions></functions>", "<functions><function/></functions>",
            f'<functions><function name="{name}"><params><param name="a" value="[1," '
            'type="array"/></params></function></functions>',
            f'<functions><function name="{name}"><param name="a" type="boolean">yes</param>'
            "</function></functions>",
        ]
    else:
        texts = [
            f"[{name}(1, 2)]", f"[{name}(a=)]", f"[{name}(a=1)] and more", f"{name}",
            f"[{name}(a=lambda x: x)]", f"[{name}(a=[i for i in range(3)])]",
            f"[{name}(a=-b)]", f"[{name}(a=x[0], b=f(1), c=g(k=2), d=3*2, e=...)]",
            f"[{name}(a={{1, 2}})]", f"({name}(a=1), {name}(a=2))", f"'{python_text(calls)}'",
            f"```python\n{python_text(calls)}\n```",
        ]
        if config.tool_call_tag:
            texts = [f"<TOOLCALL>{t}</TOOLCALL>" for t in texts]
    return rng.choice(texts)


def _decorated(text: str, config: PromptConfig, rng: random.Random) -> str:
    fence = {"json": "```json\n{}\n```", "verbose_xml": "```xml\n{}\n```",
             "concise_xml": "```xml\n{}\n```", "python": "```\n{}\n```"}[config.return_format]
    return rng.choice((fence.format(text), f"\n\n  {text}  \n", f"`{text}`",
                       f"I will call the tools.\n{text}\nDone.", text.replace("><", ">\n  <")))


def _restyled(calls: Calls, config: PromptConfig, rng: random.Random) -> str:
    """The right answer written differently: pretty JSON, XML with reordered attributes and
    padded values, Python with double quotes and spaces."""
    if config.return_format == "json":
        text = json.dumps([{"parameters": a, "function": n} for n, a in calls], indent=2)
    elif config.return_format == "verbose_xml":
        text = render(calls, PromptConfig("verbose_xml")).replace("<params>", "").replace(
            "</params>", "")
    elif config.return_format == "concise_xml":
        text = render(calls, PromptConfig("concise_xml")).replace('">', '">  ').replace(
            "</param>", "\n</param>")
    else:
        text = python_text(calls).replace("'", '"').replace(", ", " ,  ")
    if config.tool_call_tag:
        text = f"<TOOLCALL>\n{text}\n</TOOLCALL>"
    return text


# --------------------------------------------------------------------------- families


def _family_outputs(case: TestCase, config: PromptConfig, rng: random.Random
                    ) -> list[Callable[[], Any]]:
    def calls() -> Calls:
        return acceptable_calls(case, rng)

    def own(c: Calls) -> str:
        return render(c, config)

    return [
        lambda: answer(case, "prompt"),                                   # 0 first values
        lambda: own(calls()),                                             # 1 other values
        lambda: _decorated(own(calls()), config, rng),                    # 2 decorated
        lambda: own(list(reversed(calls()))),                             # 3 reordered
        lambda: own([(n + rng.choice(("_v2", "")) + "x", a) for n, a in calls()]),  # 4 name
        lambda: own(_mutate_one_arg(calls(), rng, _changed)),             # 5 value
        lambda: own(_drop_arg(calls(), rng)),                             # 6 dropped
        lambda: own(_extra_arg(calls(), rng)),                            # 7 extra
        lambda: own(calls() * 2),                                         # 8 duplicated
        lambda: own(calls()[1:]),                                         # 9 one missing
        lambda: own(_mutate_one_arg(calls(), rng, _retyped)),             # 10 retyped
        lambda: render(calls(), _other_config(config, rng)),              # 11 other format
        lambda: render(calls(), PromptConfig(config.return_format,        # 12 tag toggled
                                             not config.tool_call_tag)),
        lambda: (lambda t: t[: rng.randrange(len(t) + 1)])(own(calls())),  # 13 truncated
        lambda: _broken(config, calls(), rng),                            # 14 broken
        lambda: rng.choice(("", "I cannot help with that.", "Error during inference: boom",
                            "None of the functions fit.", "[]", "<TOOLCALL></TOOLCALL>")),
        lambda: rng.choice(([{case.functions[0]["name"]: "{}"}], None, 42,  # 16 not text
                            ["[f(a=1)]"], {"f": {}})),
        lambda: _restyled(calls(), config, rng),                          # 17 restyled
    ]


FAMILIES = 18


def output(case: TestCase, family: int, rng: random.Random) -> Any:
    named = split_id(case.id)
    assert named is not None
    return _family_outputs(case, named[0], rng)[family]()
