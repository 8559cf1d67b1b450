"""The families of open upstream pull requests render and parse as the PR's own handler does.

Their handlers are not in the official wheel and upstream code is not committed here, so the
oracle is recorded: make_pr_golden.py ran each PR's handler file (from a local mirror of the
upstream repository, at the merge commit named in the golden file) inside the wheel's
package and wrote pr_golden/<name>.json -- a digest of the prompt of every single-turn case,
the prompts of every multi-turn case at three steps (first step, after the scripted call's
results, first step of turn 1), and the stored answer and decoding of hand-made replies.
fcbench's side runs from its own loader and conversation loop, as in test_official_prompts.
"""

from __future__ import annotations

import json
import types
from pathlib import Path
from typing import Any

import pytest
from family_handlers import ours_ast, python_list
from make_pr_golden import AGENTIC_FIRST_TURNS, PR_DECODERS, PR_HANDLERS, digest
from test_official_prompts import MULTI_TURN, SINGLE_TURN, backend_of, scripted_call

from fcbench.core.categories import Language
from fcbench.core.model import TestCase
from fcbench.dataset.prompt_texts import PromptTexts, load_texts
from fcbench.decode.encoding import Encoding
from fcbench.decode.errors import DECODER_FAILED, DecodeError
from fcbench.decode.execute import decode_execute
from fcbench.models import families
from fcbench.models.prompts import build_request
from fcbench.runner.conversation import Conversation

GOLDEN = Path(__file__).parent / "pr_golden"
VARIANTS = [(golden, family) for golden, spec in PR_HANDLERS.items() for family in spec["variants"]]


def golden_of(golden: str, family: str) -> dict[str, Any]:
    recorded: dict[str, Any] = json.loads((GOLDEN / f"{golden}.json").read_text(encoding="utf-8"))
    return recorded["families"][family]  # type: ignore[no-any-return]


@pytest.fixture(scope="module")
def data(fetched_home: Path) -> types.SimpleNamespace:
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.load import load_category

    cases = {category: load_category(category) for category in SINGLE_TURN + MULTI_TURN}
    return types.SimpleNamespace(cases=cases, texts=load_texts(DEFAULT_RELEASE))


def test_every_pr_family_is_registered_and_recorded() -> None:
    for golden, family in VARIANTS:
        assert family in families.names()
        assert golden_of(golden, family)["single_turn"]


@pytest.mark.parametrize(("golden", "family"), VARIANTS)
def test_single_turn_prompts_equal_the_pr_handler(
    data: types.SimpleNamespace, golden: str, family: str
) -> None:
    want = golden_of(golden, family)
    backend = backend_of(family)
    checked = 0
    for category in SINGLE_TURN:
        for case in data.cases[category]:
            got = backend.prompt(build_request(case, "prompt", data.texts, backend))
            if case.id in want["samples"]:
                assert got == want["samples"][case.id], (family, case.id)
            assert digest(got) == want["single_turn"][case.id], (family, case.id)
            checked += 1
    assert checked == len(want["single_turn"]) == 3641


def three_steps(family: str, case: TestCase, texts: PromptTexts) -> dict[str, Any]:
    """The prompts at the steps make_pr_golden.record_conversation records, grown by
    fcbench's conversation loop from the same scripted completions."""
    backend = backend_of(family)
    ours = Conversation(case, "prompt", texts, backend)
    ours.begin_turn(0, ours.question[0])
    prompts = [digest(backend.prompt(ours.request(0, 0)))]
    call = scripted_call(case)
    reply = backend.reply(python_list(call), {})
    ours.add_reply(reply)
    calls = [f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in call]
    ours.add_results(reply, calls, [json.dumps({"result": c, "n": i}) for i, c in enumerate(calls)])
    prompts.append(digest(backend.prompt(ours.request(0, 1))))
    ours.add_reply(backend.reply("All done.", {}))
    if len(case.question) > 1:
        holdout = case.extras.get("missed_function") or {}
        ours.begin_turn(1, ours.holdout_message(holdout["1"]) if "1" in holdout
                        else ours.question[1])
        prompts.append(digest(backend.prompt(ours.request(1, 0))))
    return {"prompts": prompts, "result": reply.result}


@pytest.mark.parametrize(("golden", "family"), VARIANTS)
def test_multi_turn_prompts_equal_the_pr_handler(
    data: types.SimpleNamespace, golden: str, family: str
) -> None:
    want = golden_of(golden, family)["multi_turn"]
    checked = 0
    for category in MULTI_TURN:
        for case in data.cases[category]:
            assert three_steps(family, case, data.texts) == want[case.id], (family, case.id)
            checked += 1
    assert checked == len(want) == 800


def our_decoding(family: str, reply: str) -> dict[str, Any]:
    """What fcbench stores for the reply, and how its output format decodes that."""
    parsed = families.get(family).parse(reply)
    encoding = families.output_encoding(family)
    outcome, detail = ours_ast(parsed.result, encoding, Language.PYTHON)
    try:
        execute = repr(decode_execute(parsed.result, encoding))
    except DecodeError:
        execute = DECODER_FAILED
    return {"result": parsed.result, "reasoning": parsed.reasoning,
            "decoded": [outcome, detail if outcome != DECODER_FAILED else "", execute]}


@pytest.mark.parametrize(("golden", "family"), VARIANTS)
def test_replies_decode_as_the_pr_handler(golden: str, family: str) -> None:
    """Correct, mutated and malformed replies: the stored answer, the reasoning, and both
    decodings (for failures the outcome only: the handler's message is Python's)."""
    replies = golden_of(golden, family)["replies"]
    assert len(replies) >= 10
    for recorded in replies:
        outcome, detail, execute = recorded["decoded"]
        want = {"result": recorded["result"], "reasoning": recorded["reasoning"],
                "decoded": [outcome, detail if outcome != DECODER_FAILED else "",
                            execute.split(" ")[0] if execute.startswith(DECODER_FAILED)
                            else execute]}
        assert our_decoding(family, recorded["reply"]) == want, recorded["reply"]


AGENTIC = [(golden, family) for golden, family in VARIANTS
           if "agentic" in golden_of(golden, family)]


@pytest.mark.parametrize(("golden", "family"), AGENTIC)
def test_first_turns_by_category_as_the_pr_handler(golden: str, family: str) -> None:
    """Handlers whose system text depends on the category (agentic or not): the first turn
    of hand-made entries as the PR's `_pre_query_processing_prompting` leaves it."""
    recorded = golden_of(golden, family)["agentic"]
    for case_id, first_turn in recorded.items():
        category = case_id.split("_0")[0]
        question = [[dict(m) for m in AGENTIC_FIRST_TURNS[case_id]]]
        case = TestCase(id=case_id, category=category, question=question, functions=[])
        turns = families.get(family).prepare(case, lambda: [])
        assert turns[0] == first_turn, case_id


RAW = [(golden, family) for golden, family in VARIANTS
       if "raw_replies" in golden_of(golden, family)]


@pytest.mark.parametrize(("golden", "family"), RAW)
def test_raw_replies_decode_as_the_pr_handler(golden: str, family: str) -> None:
    """The family's decoders on whole replies (call markers, reasoning and all), as the PR
    handler's decode_ast / decode_execute read them: every branch of its block reader."""
    recorded = golden_of(golden, family)["raw_replies"]
    encoding = families.output_encoding(family)
    assert len(recorded) >= 20
    for item in recorded:
        outcome, detail, execute = item["decoded"]
        got, got_detail = ours_ast(item["reply"], encoding, Language.PYTHON)
        try:
            got_execute = repr(decode_execute(item["reply"], encoding))
        except DecodeError:
            got_execute = DECODER_FAILED
        assert (got, got_detail if outcome != DECODER_FAILED else "") == (
            outcome, detail if outcome != DECODER_FAILED else ""), item["reply"]
        failed = execute.startswith(DECODER_FAILED)
        assert got_execute == (DECODER_FAILED if failed else execute), item["reply"]


@pytest.mark.parametrize("name", list(PR_DECODERS))
def test_decoder_only_formats_decode_as_the_pr_handler(name: str) -> None:
    """PRs whose prompt is the tokenizer's own template: their decode_ast / decode_execute
    on correct, mutated and malformed replies (the stored text is the reply itself)."""
    recorded = json.loads((GOLDEN / f"{name}.json").read_text(encoding="utf-8"))["replies"]
    encoding = Encoding("prompt", "dot", None, family=name)
    assert len(recorded) >= 20
    for item in recorded:
        outcome, detail, execute = item["decoded"]
        got, got_detail = ours_ast(item["reply"], encoding, Language.PYTHON)
        try:
            got_execute = repr(decode_execute(item["reply"], encoding))
        except DecodeError:
            got_execute = DECODER_FAILED
        assert got == outcome, item["reply"]
        if outcome != DECODER_FAILED:
            assert got_detail == detail, item["reply"]
        failed = execute.startswith(DECODER_FAILED)
        assert got_execute == (DECODER_FAILED if failed else execute), item["reply"]
