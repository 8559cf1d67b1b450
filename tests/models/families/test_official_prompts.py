"""Every family's prompt equals its official handler's `_format_prompt`, byte for byte.

The oracle is the official package from the shared wheel: its own loader reads the cases,
its handler pre-processes them (`_pre_query_processing_prompting`) and renders the prompt.
fcbench goes its own way from its own loader: `build_request` with the completions backend
as the layout, then the backend's `prompt`. Single-turn: a stripe of the cases of every
single-turn category (MiniCPM-FC: the first 8 of each, see `SAMPLED`). Multi-turn: a stripe
of the cases of the four multi-turn categories, at its first step, at the step after a
call's results came back, and at the first step of the next turn (after a plain answer);
miss_func cases go on, turn by turn, to the turn that releases the held-out functions. The
conversation is grown by fcbench's own conversation loop (`runner.conversation`) on one side
and by the handler's methods on the other, from the same scripted completions.

Stripes (`stripe`): each family checks one of `STRIPES` deterministic stripes of the cases,
so the union over the families covers every case, and every stripe holds cases of every
category, of every miss_func holdout turn and with and without non-ASCII text in docs or
question (the cases that triggered a family's escaping differently); a kind of case too rare
to share out is in every stripe. (Every family on every case cost ~240 s of CPU; injected
faults that comparison caught and the stripes still catch: GLM's docs dumped with
`ensure_ascii=False`, Pelican-FC's tool results without their newlines, held-out docs
released in reverse order.)
"""
from __future__ import annotations

import json
import random
import types
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from family_handlers import (
    HANDLERS,
    PR_FAMILIES,
    FakeCompletion,
    copy,
    make_handler,
    official_handlers,
    writer,
)

from fcbench.core.model import TestCase
from fcbench.dataset.prompt_texts import PromptTexts, load_texts
from fcbench.decode.errors import DecodeError
from fcbench.decode.execute import decode_execute
from fcbench.decode.python_calls import bracketed, python_calls
from fcbench.models import families
from fcbench.models.completions import CompletionsBackend
from fcbench.models.prompts import build_request
from fcbench.runner.conversation import Conversation

SINGLE_TURN = ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
               "parallel_multiple", "irrelevance", "live_simple", "live_multiple",
               "live_parallel", "live_parallel_multiple", "live_irrelevance", "live_relevance"]
MULTI_TURN = ["multi_turn_base", "multi_turn_miss_func", "multi_turn_miss_param",
              "multi_turn_long_context"]
SAMPLED = {"minicpm-fc": 8}
"""Families checked on the first N cases of each single-turn category only: MiniCPM-FC's
docs go through datamodel-code-generator (~0.1 s a doc, on both sides; the multi-turn cases,
which share their docs, are all checked)."""


STRIPES = 4
"""How many stripes the cases are dealt into; family number i (in `HANDLERS`) checks stripe
i % STRIPES, so every stripe is checked by six or seven families."""


def kind(case: TestCase) -> tuple[Any, ...]:
    """What a stripe must hold one of: the category, the miss_func turns that release
    held-out functions, and whether the docs and the question carry non-ASCII text."""
    holdout = tuple(sorted(case.extras.get("missed_function") or {}))
    docs = json.dumps(case.functions)
    question = json.dumps(case.question)
    return case.category, holdout, "\\u" in docs, "\\u" in question


def stripe_of(cases: list[TestCase], kinds_of: dict[str, tuple[Any, ...]]) -> dict[str, int | None]:
    """Case id -> its stripe, None for a case in every stripe: the cases of each kind (by
    id in `kinds_of`) are dealt out in order, one stripe after the other; a kind with fewer
    cases than stripes goes to every stripe."""
    kinds: dict[tuple[Any, ...], list[TestCase]] = {}
    for case in cases:
        kinds.setdefault(kinds_of[case.id], []).append(case)
    found: dict[str, int | None] = {}
    for members in kinds.values():
        for rank, case in enumerate(members):
            found[case.id] = rank % STRIPES if len(members) >= STRIPES else None
    return found


def stripe(name: str, cases: list[TestCase], stripes: dict[str, int | None]) -> list[TestCase]:
    """The cases family `name` checks (in their order), given every case's stripe."""
    number = list(HANDLERS).index(name) % STRIPES
    return [case for case in cases if stripes[case.id] in (number, None)]


@pytest.fixture(scope="module")
def official(bfcl_wheel: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    with official_handlers(bfcl_wheel, tmp_path_factory.mktemp("official")) as found:
        yield found


@pytest.fixture(scope="module")
def data(fetched_home: Path, official: Any) -> types.SimpleNamespace:
    """fcbench's cases and the official loader's entries (by id), for every category; each
    case's kind and stripe."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.load import load_category

    cases, entries = {}, {}
    for category in SINGLE_TURN + MULTI_TURN:
        cases[category] = load_category(category)
        entries.update((e["id"], e) for e in official.load(category))
    every = [case for category in cases.values() for case in category]
    kinds = {case.id: kind(case) for case in every}
    return types.SimpleNamespace(cases=cases, entries=entries, texts=load_texts(DEFAULT_RELEASE),
                                 kinds=kinds, stripes=stripe_of(every, kinds))


def backend_of(name: str) -> CompletionsBackend:
    return CompletionsBackend("m", ["http://127.0.0.1:9/v1"], families.get(name))


def test_every_family_is_checked_against_a_handler() -> None:
    assert not set(HANDLERS) & PR_FAMILIES
    assert set(HANDLERS) | PR_FAMILIES == set(families.names())


def test_the_stripes_cover_every_case_and_every_kind(data: types.SimpleNamespace) -> None:
    """Together the families check every case; each checks cases of every kind."""
    for category in SINGLE_TURN + MULTI_TURN:
        cases = data.cases[category]
        kinds = {data.kinds[case.id] for case in cases}
        covered: set[str] = set()
        for name in HANDLERS:
            chosen = stripe(name, cases, data.stripes)
            assert {data.kinds[case.id] for case in chosen} == kinds, (name, category)
            covered |= {case.id for case in chosen}
        assert covered == {case.id for case in cases}, category
    holdouts = {data.kinds[case.id][1] for case in data.cases["multi_turn_miss_func"]}
    assert {("1",), ("2",), ("3",), ("4",), ("5",), ("6",)} <= holdouts


@pytest.mark.parametrize("name", list(HANDLERS))
def test_single_turn_prompts_equal_the_official(
    data: types.SimpleNamespace, official: Any, name: str
) -> None:
    backend = backend_of(name)
    handler = make_handler(official, name)
    checked = 0
    for category in SINGLE_TURN:
        cases = data.cases[category]
        for case in cases[:SAMPLED[name]] if name in SAMPLED else stripe(name, cases, data.stripes):
            entry = copy(data.entries[case.id])
            inference = handler._pre_query_processing_prompting(entry)
            inference = handler.add_first_turn_message_prompting(inference, entry["question"][0])
            want = handler._format_prompt(inference["message"], inference["function"])
            got = backend.prompt(build_request(case, "prompt", data.texts, backend))
            assert got == want, (name, case.id)
            checked += 1
    assert checked >= (3641 // STRIPES if name not in SAMPLED else 13 * SAMPLED[name])


# --------------------------------------------------------------------------- multi-turn


def scripted_call(case: TestCase) -> list[tuple[str, dict[str, Any]]]:
    """The case's first ground-truth call of turn 0, as (name, args)."""
    for turn in case.possible_answer or []:
        for call in turn:
            decoded = python_calls(bracketed(call))
            return [(n, a) for item in decoded for n, a in item.items()]
    return [("ls", {})]


class Ids:
    """The same Mistral call ids on both sides."""

    def __init__(self) -> None:
        self.rng = random.Random(7)

    def __call__(self) -> str:
        return "".join(self.rng.choices("abcdefghijklmnopqrstuvwxyz0123456789", k=9))


class OfficialConversation:
    """The official prompting loop's message handling, step by step."""

    def __init__(self, handler: Any, entry: dict[str, Any]) -> None:
        self.handler = handler
        self.entry = entry
        self.data = handler._pre_query_processing_prompting(entry)
        self.data = handler.add_first_turn_message_prompting(self.data, entry["question"][0])

    def prompt(self) -> str:
        return str(self.handler._format_prompt(self.data["message"], self.data["function"]))

    def answer(self, text: str) -> dict[str, Any]:
        response = self.handler._parse_query_response_prompting(FakeCompletion(text))
        self.data = self.handler._add_assistant_message_prompting(self.data, response)
        return response  # type: ignore[no-any-return]

    def results(self, response: dict[str, Any], decoded: list[str], results: list[str]) -> None:
        response["model_responses_decoded"] = decoded
        self.data = self.handler._add_execution_results_prompting(self.data, results, response)

    def next_turn(self, turn: int, texts: PromptTexts) -> None:
        messages = self.entry["question"][turn]
        holdout = self.entry.get("missed_function", {})
        if str(turn) in holdout:
            template = str(texts.prompts["DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING"])
            messages = [{"role": "user", "content": template.format(functions=holdout[str(turn)])}]
        self.data = self.handler._add_next_turn_user_message_prompting(self.data, messages)


def _official_decoded(handler: Any, result: Any) -> list[str] | None:
    try:
        return list(handler.decode_execute(result, has_tool_call_tag=False))
    except Exception:
        return None


def _our_decoded(backend: CompletionsBackend, result: Any) -> list[str] | None:
    try:
        return decode_execute(result, backend.output_encoding)
    except DecodeError:
        return None


def compare_conversation(
    name: str, case: TestCase, entry: dict[str, Any], handler: Any, texts: PromptTexts,
    monkeypatch: pytest.MonkeyPatch,
) -> bool:
    """Compare the three prompts; True when the scripted call's results were fed back."""
    from fcbench.models.families import mistral_fc

    backend = backend_of(name)
    ours = Conversation(case, "prompt", texts, backend)
    theirs = OfficialConversation(handler, entry)
    ours.begin_turn(0, ours.question[0])
    assert backend.prompt(ours.request(0, 0)) == theirs.prompt(), (name, case.id, "first step")

    text = writer(name)(scripted_call(case))
    monkeypatch.setattr(mistral_fc, "new_call_id", Ids())  # the same ids on both sides
    monkeypatch.setattr(type(handler), "generate_random_string", staticmethod(Ids()),
                        raising=False)
    response = theirs.answer(text)
    reply = backend.reply(text, {})
    ours.add_reply(reply)
    assert reply.result == response["model_responses"], (name, case.id)
    decoded = _our_decoded(backend, reply.result)
    assert decoded == _official_decoded(handler, response["model_responses"]), (name, case.id)
    if decoded:
        results = [json.dumps({"result": call, "n": i}) for i, call in enumerate(decoded)]
        ours.add_results(reply, decoded, results)
        theirs.results(response, decoded, results)
        want = theirs.prompt()
        assert backend.prompt(ours.request(0, 1)) == want, (name, case.id, "after results")

    ours.add_reply(backend.reply("All done.", {}))
    theirs.answer("All done.")
    if len(case.question) < 2:
        return bool(decoded)
    holdout = case.extras.get("missed_function") or {}
    last = max([1, *map(int, holdout)])  # on to miss_func's release of the held-out docs
    for turn in range(1, last + 1):
        if turn > 1:
            ours.add_reply(backend.reply("Done.", {}))
            theirs.answer("Done.")
        key = str(turn)
        messages = ours.holdout_message(holdout[key]) if key in holdout else ours.question[turn]
        ours.begin_turn(turn, messages)
        theirs.next_turn(turn, texts)
        assert backend.prompt(ours.request(turn, 0)) == theirs.prompt(), (name, case.id, turn)
    return bool(decoded)


@pytest.mark.parametrize("name", list(HANDLERS))
def test_multi_turn_prompts_equal_the_official(
    data: types.SimpleNamespace, official: Any, name: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    handler = make_handler(official, name)
    checked = fed_back = 0
    for category in MULTI_TURN:
        for case in stripe(name, data.cases[category], data.stripes):
            entry = copy(data.entries[case.id])
            fed_back += compare_conversation(name, case, entry, handler, data.texts, monkeypatch)
            checked += 1
    assert checked >= 800 // STRIPES
    # ThinkAgent's decode_execute fails on every call, so its turns end at the first step
    assert fed_back == 0 if name == "think-agent" else fed_back > checked * 7 // 8, fed_back
