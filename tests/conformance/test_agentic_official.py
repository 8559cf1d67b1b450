"""Conformance: fcbench's agentic checker against the official one, on generated answers.

There are no recorded agentic runs in ../shared/corpus, so the answers are generated: for
every web-search and memory case (665), in one of three encodings (prompt, FC with JSON
string arguments, FC with object arguments; the cases take turns, so that each encoding
meets a third of every category), a seeded mix of final messages (each acceptable
answer bare and in the answer-dict text, changed in case, punctuation, spacing and quotes,
glued to word and non-word characters, cut short, another case's answer, "I do not know"),
placed in results of every shape the checker meets (call steps before and after, several
text steps, an empty last step, no text step, lists and non-strings as messages, turns that
are strings, dicts, numbers, results that are not one turn). About 30,000 results. (Every
case in all three encodings, 90,000 results, was checked the same way; the stripe still
fails when the message normalisation keeps "^", or when FC object arguments are rendered
as JSON instead of Python in the decoded calls: both tried.)

The oracle is the official code from the shared wheel: its `agentic_checker`, its handlers'
`decode_execute` (OpenAI's for prompt and JSON-string FC, Gemini's for object FC) and the
runner's `_evaluate_single_agentic_entry` (taken from `eval_runner.py`, which cannot be
imported whole without every vendor SDK), on the prompt entries its own `load_dataset_entry`
builds. Every case must agree on valid and error_type, an official crash must be an
`fcbench:checker_crash`, and every failure record must be byte-identical once JSON-encoded
(fcbench's `results.score_files` encoder, with the prompt given as a dict and as `RawJSON`; the
official `make_json_serializable` + `json.dumps`).
"""

from __future__ import annotations

import copy
import json
import random
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from fcbench._json import RawJSON
from fcbench.check.agentic import CHECKER_CRASH, failure_record, judge_agentic
from fcbench.core import categories
from fcbench.dataset.agentic import eval_prompt, memory_dependencies
from fcbench.dataset.load import load_category
from fcbench.dataset.prompt_texts import load_texts
from fcbench.decode.encoding import Encoding
from fcbench.results.score_files import _dumps, new_encoder
from official_bfcl import bare, official_function, official_package

MODEL = "oracle-model"
ENCODINGS = {
    "prompt": Encoding(),
    "fc_json": Encoding("fc", "underscore", "json_string"),
    "fc_object": Encoding("fc", "underscore", "object"),
}


@pytest.fixture(scope="module")
def official(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    """The official functions the comparison runs (fails if they cannot be imported)."""
    with official_package(bfcl_wheel, tmp_path_factory.mktemp("bfcl_official")) as package:
        try:
            from bfcl_eval import utils
            from bfcl_eval.eval_checker.agentic_eval import agentic_checker
            from bfcl_eval.eval_checker.multi_turn_eval import multi_turn_utils
            from bfcl_eval.model_handler.api_inference.gemini import GeminiHandler
            from bfcl_eval.model_handler.api_inference.openai_completion import (
                OpenAICompletionsHandler,
            )
        except Exception as exc:  # pragma: no cover - depends on the environment
            pytest.fail(f"the official modules cannot be imported here: {exc!r}", pytrace=False)
        runner = official_function(
            package / "eval_checker/eval_runner.py", "_evaluate_single_agentic_entry",
            {"agentic_checker": agentic_checker.agentic_checker,
             "is_empty_execute_response": multi_turn_utils.is_empty_execute_response},
        )
        yield {
            "evaluate": runner,
            "serialisable": utils.make_json_serializable,
            "load": utils.load_dataset_entry,
            "handlers": {
                "prompt": bare(OpenAICompletionsHandler, is_fc_model=False),
                "fc_json": bare(OpenAICompletionsHandler, is_fc_model=True),
                "fc_object": bare(GeminiHandler, is_fc_model=True),
            },
        }


# ----------------------------------------------------------------------------- generation

CALLS = {
    "prompt": lambda name, arg: f"[{name}(keywords={arg!r})]",
    "fc_json": lambda name, arg: [{name: json.dumps({"keywords": arg})}],
    "fc_object": lambda name, arg: [{name: {"keywords": arg}}],
}

WRAPPERS = [
    lambda a: a,
    lambda a: str({"answer": a, "context": "I searched for it."}),
    lambda a: json.dumps({"answer": a, "context": "found it"}),
    lambda a: f"The answer is {a}.",
    lambda a: f"{{'answer': '{a}', 'context': 'quoted by hand'}}",
    lambda a: f"Based on my research:\n\n**{a}**\n",
]

VARIANTS = [
    lambda a: a,
    str.upper,
    str.lower,
    str.title,
    lambda a: a.replace(" ", ""),
    lambda a: a.replace(" ", "-"),
    lambda a: a.replace(" ", ", "),
    lambda a: a.replace(" ", "  "),
    lambda a: a.replace(",", ""),
    lambda a: a.replace(".", ""),
    lambda a: f"{a}'s",
    lambda a: f"({a})",
    lambda a: f"${a}",
    lambda a: f"{a}%",
    lambda a: f"x{a}",
    lambda a: f"{a}x",
    lambda a: f"'{a}'",
    lambda a: f'"{a}"',
    lambda a: f"{a}\n",
    lambda a: a[:-1],
    lambda a: a[1:],
    lambda a: a.replace("e", "é"),
    lambda a: a.replace("'", '"'),
    lambda a: f"^{a}*",
]


def final_messages(answers: list[str], other: list[str], rng: random.Random) -> list[Any]:
    """Text final messages for a case, each from one answer (its own or another case's)."""
    messages: list[Any] = []
    for answer in answers:
        messages.append(str({"answer": answer, "context": "exact"}))
        messages.append(answer)
    pool = answers + other[:1] + ["I do not know", "I cannot answer this question"]
    while len(messages) < 18:
        wrap, vary = rng.choice(WRAPPERS), rng.choice(VARIANTS)
        messages.append(wrap(vary(rng.choice(pool))))
    return messages


def results_for(
    answers: list[str], other: list[str], encoding: str, rng: random.Random
) -> list[Any]:
    """Results of every shape around the case's final messages."""
    call = CALLS[encoding]
    search, fetch = call("search_engine_query", "q"), call("fetch_url_content", "http://x")
    texts = final_messages(answers, other, rng)
    right = texts[0]
    results: list[Any] = []
    for text in texts:
        shape = rng.randrange(4)
        steps = [[text], [search, text], [search, fetch, text], [text, search]][shape]
        results.append([steps])
    results += [
        [[texts[-1], search, right]],  # the last text step decides
        [[right, texts[-1]]],
        [[search, right, ""]],  # an empty last step: no final message
        [[search, fetch]],
        [[]],
        [[[right]]],
        [[[right, "something else"]]],
        [[[5]]],
        [[5]], [[3.5]], [[True]], [[None]], [[0]], [[[]]], [[{}]], [[[{}]]],
        [[{"answer": answers[0]}]],
        [[right.encode("ascii", "replace").decode()]],
        [right],  # a turn that is a string: its characters are the steps
        [{"answer": 1}],  # a dict turn: its keys are the steps
        [5], [None],  # turns that cannot be iterated (the official evaluator crashes)
        [], [[right], [right]], "Error during inference: boom", None, {"a": [right]},
    ]
    return results


def encoding_of(index: int) -> str:
    """The encoding the `index`-th case is answered in: the encodings take turns, so each one
    meets a third of the cases of every category, and every case is judged."""
    return list(ENCODINGS)[index % len(ENCODINGS)]


def all_items() -> Iterator[tuple[Any, list[Any]]]:
    rng = random.Random(20260323)
    cases = [case for name in categories.AGENTIC for case in load_category(name)]
    answers = {case.id: [a for a in case.possible_answer if isinstance(a, str)] for case in cases}
    for index, case in enumerate(cases):
        other = answers[cases[(index + 7) % len(cases)].id]
        encoding = encoding_of(index)
        yield case, [(encoding, r) for r in results_for(answers[case.id], other, encoding, rng)]


# ----------------------------------------------------------------------------- the test


def test_agentic_checker_agrees_with_official(fetched_home: Path, official: Any) -> None:
    from fcbench.dataset.fetch import DEFAULT_RELEASE

    prompts = load_texts(DEFAULT_RELEASE).prompts
    entries = {
        entry["id"]: entry
        for name in categories.AGENTIC
        for entry in official["load"](name, include_prereq=False,
                                      include_language_specific_hint=False)
    }
    dependencies = {name: memory_dependencies(name) for name in categories.MEMORY}
    encode = new_encoder()
    counts: Counter[str] = Counter()
    differences: list[str] = []
    for case, items in all_items():
        depends_on = dependencies.get(case.category, {}).get(str(case.extras.get("scenario")))
        ours_prompt = eval_prompt(case, prompts, depends_on)
        for encoding, raw in items:
            counts["results"] += 1
            outcome = _compare(official, entries[case.id], case, encoding, raw, ours_prompt,
                               encode)
            counts[outcome[0]] += 1
            if outcome[1]:
                differences.append(f"{case.id} {encoding} {raw!r:.200}: {outcome[1]}")
    print(f"\nagentic conformance: {dict(counts)}")
    assert counts["results"] >= 29_000
    assert {encoding for _, items in all_items() for encoding, _ in items} == set(ENCODINGS)
    assert counts["pass"] > 5_000 and counts["agentic:answer_not_found"] > 5_000
    assert counts["official crash"] > 0 and counts["agentic:no_last_message"] > 0
    assert not differences, f"{len(differences)} differences:\n" + "\n".join(differences[:20])


def _compare(
    official: Any, entry: dict[str, Any], case: Any, encoding: str, raw: Any,
    ours_prompt: dict[str, Any], encode: Any,
) -> tuple[str, str | None]:
    """(outcome, difference or None) for one result."""
    verdict = judge_agentic(case, copy.deepcopy(raw), ENCODINGS[encoding])
    try:
        theirs = official["evaluate"](
            official["handlers"][encoding], case.id, copy.deepcopy(raw),
            case.possible_answer, entry, MODEL, case.category,
        )
    except Exception as exc:
        if verdict.error_type == CHECKER_CRASH:
            return "official crash", None
        return "official crash", f"official raised {exc!r}, ours {verdict.error_type}"
    if theirs["valid"]:
        return "pass", None if verdict.valid else f"official passes, ours {verdict.error_type}"
    error_type = theirs["error"]["error_type"]
    if verdict.error_type != error_type:
        return error_type, f"official {error_type}, ours {verdict.error_type}"
    log = [[{"role": "user", "content": "hi"}]] if len(case.id) % 2 else ""
    theirs["inference_log"] = log
    official_line = json.dumps(official["serialisable"](theirs), ensure_ascii=False)
    for prompt in (ours_prompt, RawJSON(json.dumps(ours_prompt, ensure_ascii=False))):
        ours_line = _dumps(failure_record(MODEL, case, raw, verdict, prompt, log), encode)
        if official_line != ours_line:
            return error_type, f"records differ:\n  {official_line:.600}\n  {ours_line:.600}"
    return error_type, None
