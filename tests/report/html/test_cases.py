"""A case's slim form: clipped texts, turns from the inference log, state differences."""

from __future__ import annotations

from fcbench.report.html.cases import (
    clip,
    failed_turn,
    multi_turn_detail,
    single_turn_detail,
    state_changes,
    state_diff,
    turns_of,
)


def state(**classes: dict[str, object]) -> list[dict[str, object]]:
    return [{"role": "state_info", "class_name": name, "content": content}
            for name, content in classes.items()]


def test_clip_says_how_much_was_cut() -> None:
    assert clip("abc", 5) == "abc"
    assert clip("abcdefgh", 3) == "abc… [5 more characters]"


def test_state_changes_go_three_levels_deep_and_show_absent_values() -> None:
    before = state(TwitterAPI={"tweets": {"0": {"content": "a"}}, "counter": 1},
                   MathAPI={"x": 1})
    after = state(TwitterAPI={"tweets": {"0": {"content": "b"}, "1": {"content": "c"}},
                              "counter": 2}, MathAPI={"x": 1})
    assert state_changes(before, after) == [
        ["TwitterAPI", "counter", "1", "2"],
        ["TwitterAPI", "tweets.0.content", "a", "b"],
        ["TwitterAPI", "tweets.1", "(absent)", '{"content": "c"}'],
    ]
    assert state_changes(before, before) == []


def test_turns_pair_each_turn_with_the_snapshots_around_it() -> None:
    log = [
        state(FS={"cwd": "/"}),
        {"begin_of_turn_query": [{"role": "user", "content": "go to docs"}],
         "step_0": [{"role": "assistant", "content": [{"cd": '{"folder": "docs"}'}]},
                    {"role": "handler_log", "content": "decoded",
                     "model_response_decoded": ["cd(folder='docs')"]},
                    {"role": "tool", "content": '{"cwd": "/docs"}'}],
         "step_1": [{"role": "assistant", "content": []}]},
        state(FS={"cwd": "/docs"}),
        {"begin_of_turn_query": [{"role": "user", "content": "stay"}], "step_0": []},
    ]
    first, second = turns_of(log)
    assert first["query"] == '["go to docs"]'
    assert first["steps"][0]["decoded"] == '["cd(folder=\'docs\')"]'
    assert first["steps"][0]["tools"] == ['{"cwd": "/docs"}']
    assert first["changes"] == [["FS", "cwd", "/", "/docs"]]
    assert second["changes"] == []  # no snapshot after it: nothing known to have changed


def test_multi_turn_detail_without_log_keeps_the_raw_result() -> None:
    detail = multi_turn_detail({"id": "x", "result": [[["ls()"]]]}, {"error": {"e": 1}})
    assert detail["turns"] == [] and detail["raw"] == '[[["ls()"]]]'
    assert detail["error"] == '{"e": 1}'


def test_single_turn_detail_keeps_the_failure_record_and_the_raw_output() -> None:
    failure = {"model_result_raw": "oops", "model_result_decoded": None, "error": ["bad"]}
    assert single_turn_detail(None, failure) == {"raw": "oops", "decoded": None,
                                                 "error": '["bad"]'}
    decoded = {"model_result_raw": "x", "model_result_decoded": [{"f": {"a": 1}}], "error": "e"}
    from_entry = single_turn_detail({"result": "[f(a=1)]"}, decoded)
    assert from_entry == {"raw": "[f(a=1)]", "decoded": '[{"f": {"a": 1}}]', "error": "e"}


def test_the_failing_turn_is_read_from_the_official_error() -> None:
    """The turn the message names; else one per executed turn in `execution_result`; none
    for a case that failed as a whole (the force-termination message names turn counts)."""
    named = {"error_message": "Model response list is empty for turn 2",
             "details": {"execution_result": [{}, {}, {}, {}]}}
    assert failed_turn(named) == 2
    state_mismatch = {"error_message": "Model instance for TwitterAPI does not match the state "
                      "with ground truth instance.", "execution_result": [{}, {}]}
    assert failed_turn(state_mismatch) == 1
    terminated = {"error_message": ["Model was force-terminated during inference phase. The "
                  "length of the model result turns (1) does not match the length of the "
                  "ground truth turns (4)."]}
    assert failed_turn(terminated) is None
    assert failed_turn("not a dict") is None


def test_the_state_difference_is_a_diff_of_ground_truth_and_model() -> None:
    error = {"error_message": "Model instance for TwitterAPI does not match the state with "
             "ground truth instance.",
             "details": {"differences": {
                 "tweets": {"model": {"0": {"content": "b", "id": 0}},
                            "ground_truth": {"0": {"content": "a", "id": 0}}},
                 "root": {"model": "<Directory: a, Contents: {x, y}>",
                          "ground_truth": "<Directory: a, Contents: {x, z}>"}}}}
    diffs = state_diff(error)
    assert [d[:2] for d in diffs] == [["TwitterAPI", "tweets"], ["TwitterAPI", "root"]]
    tweets = diffs[0][2].splitlines()
    assert '-  "content": "a",' in tweets and '+  "content": "b",' in tweets
    assert '   "id": 0' in tweets  # context kept
    root = diffs[1][2].splitlines()
    assert "-y}>" not in root and "-z}>" in root and "+y}>" in root  # a part per line
    assert state_diff({"error_message": "x"}) == []
    detail = multi_turn_detail(None, {"error": error, "model_result": []})
    assert detail["state_diff"] == diffs and detail["failed_turn"] is None
