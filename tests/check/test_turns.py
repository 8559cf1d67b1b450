"""Per-turn accuracy (fcbench metric) on hand-made multi-turn cases whose turns are counted
by hand, with a stub environment class; and its agreement with the official verdict."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fcbench.check.multi_turn import (
    EMPTY_TURN,
    FORCE_TERMINATED,
    RESPONSE_MISMATCH,
    STATE_MISMATCH,
    judge_multi_turn,
)
from fcbench.check.turns import turn_outcomes
from fcbench.core.model import TestCase
from fcbench.decode.encoding import Encoding
from fcbench.envs.multi_turn import CLASSES, preserved_process_state
from fcbench.score.per_turn import from_json, summarise

PROMPT = Encoding()


class Counter:
    """`value` is compared; `_seen` is private (not compared)."""

    def __init__(self) -> None:
        self.value = 0
        self._seen = 0

    def _load_scenario(self, scenario: dict[str, Any], long_context: bool = False) -> None:
        self.value = scenario.get("value", 0)

    def increment(self, by: int = 1) -> dict[str, int]:
        self.value += by
        return {"value": self.value}

    def get(self) -> dict[str, int]:
        return {"value": self.value}

    def hello(self) -> str:
        return "hello"


class Exploding(Counter):
    def _load_scenario(self, scenario: dict[str, Any], long_context: bool = False) -> None:
        raise MemoryError("the replay ran out of memory")


@pytest.fixture(autouse=True)
def stub_classes(monkeypatch: pytest.MonkeyPatch) -> None:
    module = sys.modules[__name__].__name__
    monkeypatch.setitem(CLASSES, "Counter", f"{module}:Counter")
    monkeypatch.setitem(CLASSES, "Exploding", f"{module}:Exploding")


def case(truth: list[list[str]], cls: str = "Counter") -> TestCase:
    extras = {"initial_config": {}, "involved_classes": [cls]}
    return TestCase("multi_turn_base_0", "multi_turn_base", [], [], truth, extras)


def both(truth: list[list[str]], raw: Any) -> tuple[str | None, list[bool | None]]:
    """The official error type (None: valid) and the per-turn outcomes."""
    verdict = judge_multi_turn(case(truth), raw, PROMPT)
    return verdict.error_type, turn_outcomes(case(truth), raw, PROMPT, "fcbench")


def test_right_on_turns_1_and_3_of_3() -> None:
    """Turn 2 expects `hello`'s result; the model only reads the counter (state right,
    response missing). The official verdict stops there; turn 3 is right again."""
    truth = [["increment(by=1)"], ["hello()"], ["increment(by=1)"]]
    raw = [["[increment(by=1)]"], ["[get()]"], ["[increment(by=1)]"]]
    assert both(truth, raw) == (RESPONSE_MISMATCH, [True, False, True])


def test_a_wrong_state_put_right_later_counts_the_later_turn() -> None:
    """Turn 1 leaves 3 where 2 is expected; turn 2 lands on 4 like the ground truth, and
    its expected result {"value": 4} is among the model's."""
    truth = [["increment(by=2)"], ["increment(by=2)"]]
    raw = [["[increment(by=3)]"], ["[increment(by=1)]"]]
    assert both(truth, raw) == (STATE_MISMATCH, [False, True])


def test_a_wrong_state_that_stays_wrong_fails_every_later_turn() -> None:
    truth = [["increment(by=2)"], ["get()"], ["hello()"]]
    raw = [["[increment(by=3)]"], ["[get()]"], ["[hello()]"]]
    assert both(truth, raw) == (STATE_MISMATCH, [False, False, False])


def test_a_chat_only_turn_is_wrong_and_the_others_are_judged() -> None:
    truth = [["get()"], ["hello()"], ["increment(by=1)"], ["get()"]]
    raw = [["[get()]"], ["Sorry, I cannot.", "[]"], ["[increment(by=1)]"], ["[get()]"]]
    assert both(truth, raw) == (EMPTY_TURN, [True, False, True, True])


def test_a_turn_with_nothing_expected_is_not_counted_but_its_calls_run() -> None:
    """miss_func's shape: turn 1 expects nothing; the model's call there still changes its
    state (turn 2 then differs) and its result counts for later turns."""
    truth: list[list[str]] = [[], ["get()"]]
    assert both(truth, [["[increment()]"], ["[get()]"]]) == (STATE_MISMATCH, [None, False])
    assert both(truth, [["[hello()]"], ["[get()]"]]) == (None, [None, True])
    truth = [["hello()"], [], ["hello()"]]
    assert both(truth, [["[hello()]"], ["[hello()]"], ["[get()]"]]) == (None, [True, None, True])


def test_a_right_answer_has_every_counted_turn_right() -> None:
    truth = [["increment(by=2)"], ["get()"], []]
    assert both(truth, [["[increment(by=2)]", "Done."], ["[get()]"], ["All done."]]) == (
        None, [True, True, None])


def test_turns_never_reached_are_wrong_and_a_non_list_answer_fails_all() -> None:
    truth = [["get()"], ["hello()"], ["get()"]]
    assert both(truth, [["[get()]"], ["[hello()]"]]) == (FORCE_TERMINATED, [True, True, False])
    error, outcomes = both([["get()"], [], ["hello()"]], "Error during inference: boom")
    assert error is not None
    assert outcomes == [False, None, False]


def test_a_replay_out_of_memory_fails_every_counted_turn() -> None:
    found = turn_outcomes(case([["get()"], [], ["increment()"]], "Exploding"),
                          [["[get()]"], [], ["[increment()]"]], PROMPT, "fcbench")
    assert found == [False, None, False]


def test_the_category_counts_turns_not_cases() -> None:
    """Hand count: 2 of 3, 1 of 2, 0 of 1 (the None turn not counted): 3 of 6."""
    counted = summarise("multi_turn_base", [("a", [True, False, True]), ("b", [False, True]),
                                            ("c", [None, False])])
    assert counted is not None
    assert (counted.right, counted.turns, counted.accuracy) == (3, 6, 0.5)
    again = from_json(counted.as_json())
    assert (again.right, again.turns, dict(again.cases)) == (3, 6, dict(counted.cases))
    with pytest.raises(ValueError):
        from_json({"category": "multi_turn_base", "cases": [{"id": "a", "turns": [1, 0]}]})


CALLS = st.sampled_from(["increment(by=1)", "increment(by=2)", "get()", "hello()"])
TURN = st.lists(CALLS, max_size=3)


@st.composite
def near_answers(draw: st.DrawFn) -> tuple[list[list[str]], list[list[str]]]:
    """A ground truth and a model answer close to it (random answers are almost never
    right): each model turn is the expected one, a random one, the expected one with a call
    dropped or a read added, or with the next turn's calls done early."""
    truth = draw(st.lists(TURN, min_size=1, max_size=4))
    model = []
    for index, calls in enumerate(truth):
        following = truth[index + 1] if index + 1 < len(truth) else []
        model.append(draw(st.sampled_from([
            calls, calls[1:], [*calls, "get()"], [*calls, *following], ["hello()"],
            draw(TURN)])))
    if draw(st.booleans()):
        model = model[:draw(st.integers(0, len(model)))]  # sometimes force-terminated
    return truth, model


@settings(max_examples=150, deadline=None)
@given(near_answers())
def test_the_official_verdict_passes_exactly_when_every_counted_turn_is_right(
        pair: tuple[list[list[str]], list[list[str]]]) -> None:
    """Same replay rules, no early stop: valid <=> every counted turn right. Model turns
    are step lists (one call per step); a missing turn is force-terminated."""
    truth, model = pair
    raw = [[f"[{call}]" for call in turn] for turn in model]
    error, outcomes = both(truth, raw)
    counted = [o for o in outcomes if o is not None]
    if len(raw) == len(truth):
        assert (error is None) == all(counted), (error, outcomes)
    else:
        assert error == FORCE_TERMINATED
    assert len(outcomes) == len(truth)
    assert [o is None for o in outcomes] == [not calls for calls in truth]


def test_the_shared_process_state_is_left_as_found() -> None:
    """TwitterAPI's shared default lists (an upstream quirk later cases see): changed
    inside the block, restored in place after it."""
    from fcbench.envs.multi_turn import posting_api

    posting_api.SHARED_DEFAULT_TAGS[:] = ["#kept"]
    shared = posting_api.SHARED_DEFAULT_TAGS
    try:
        with preserved_process_state():
            posting_api.SHARED_DEFAULT_TAGS.append("#replay")
            posting_api.SHARED_DEFAULT_MENTIONS.append("@replay")
        assert posting_api.SHARED_DEFAULT_TAGS is shared
        assert (shared, posting_api.SHARED_DEFAULT_MENTIONS) == (["#kept"], [])
    finally:
        posting_api.reset_shared_defaults()


def test_the_per_turn_replay_leaves_what_later_cases_see_as_the_official_replay_left_it(
) -> None:
    """A mention of a tweet posted without mentions extends TwitterAPI's shared default
    list (upstream's quirk): the official replay does it once per side; the per-turn replay
    must not do it again, or later cases would start from other defaults."""
    from fcbench.envs.multi_turn import posting_api

    calls = ["authenticate_twitter(username='john', password='john123')",
             "post_tweet(content='hi')", "mention(tweet_id=0, mentioned_usernames=['bob'])"]
    twitter = TestCase("multi_turn_base_1", "multi_turn_base", [], [], [calls],
                       {"initial_config": {}, "involved_classes": ["TwitterAPI"]})
    raw = [[f"[{call}]" for call in calls]]
    posting_api.reset_shared_defaults()
    try:
        judge_multi_turn(twitter, raw, PROMPT)  # (the shared list even fails it, upstream too)
        after_official = list(posting_api.SHARED_DEFAULT_MENTIONS)
        assert after_official  # the quirk did show (model and ground truth sides)
        turn_outcomes(twitter, raw, PROMPT, "fcbench")
        assert after_official == posting_api.SHARED_DEFAULT_MENTIONS
    finally:
        posting_api.reset_shared_defaults()
