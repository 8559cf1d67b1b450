"""`fcbench.run` / `fcbench.generate` from Python: a plain function as the model.

The function sees only what a served model sees (the messages and, in FC mode, the tools),
finds the case they come from, and answers with its ground truth: single-turn cases with the
first acceptable answer, multi-turn cases with each turn's calls in one step and then a text.
It must score as the built-in ground-truth model does, and the run must leave a `model.json`
that says how its outputs are encoded. Each mode runs a stripe of the cases (every other case
of each category: FC the even positions, prompt the odd ones; together every case, and every
category in each).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import fcbench
from fcbench.core.model import TestCase
from fcbench.dataset.load import load_category
from fcbench.ground_truth.backend import answer, parse_call, signatures
from fcbench.models.base import Mode
from stripes import stripe

CATEGORIES = ["simple_python", "multiple", "parallel", "multi_turn_base"]
FEEDBACK = "[{'role': 'tool'"


def first_user(messages: list[dict[str, Any]]) -> str:
    return str(next(m["content"] for m in messages if m["role"] == "user"))


class GroundTruthFunction:
    """`fn(messages, tools)`: the ground truth of the case the messages belong to."""

    def __init__(self, mode: str) -> None:
        self.mode = mode
        self.cases: dict[str, list[TestCase]] = {}
        for name in CATEGORIES:
            for case in load_category(name):
                self.cases.setdefault(first_user(case.question[0]), []).append(case)
        self.calls = 0

    def __call__(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
                 ) -> str | dict[str, Any]:
        self.calls += 1
        assert (tools is not None) == (self.mode == "fc")
        case = self._case(messages, tools)
        if "involved_classes" in case.extras:
            return self._turn(case, messages)
        stored = answer(case, "fc" if self.mode == "fc" else "prompt")
        if self.mode == "prompt":
            return str(stored)
        return {"content": None, "tool_calls": [
            {"id": f"c{i}", "function": {"name": name, "arguments": args}}
            for i, call in enumerate(stored) for name, args in call.items()
        ]}

    def _case(self, messages: list[dict[str, Any]], tools: list[dict[str, Any]] | None
              ) -> TestCase:
        candidates = self.cases[first_user(messages)]
        if len(candidates) == 1:
            return candidates[0]
        if tools is not None:
            offered = [t["function"]["name"] for t in tools]
        else:  # the docs are the JSON list at the end of the system prompt
            system = str(messages[0]["content"])
            offered = [d["name"] for d in json.loads(system[system.index("[\n"):].strip())]
        matching = [c for c in candidates if offered == [
            d["name"].replace(".", "_") if tools is not None else d["name"] for d in c.functions
        ]]
        asked = [str(m["content"]) for m in messages
                 if m["role"] == "user" and not str(m["content"]).startswith(FEEDBACK)]
        # multi-turn cases can share a first turn: the later turns tell them apart, and
        # while they cannot, their answers so far are the same
        matching = [c for c in matching
                    if [first_user(t) for t in c.question[:len(asked)] if t] == asked]
        return matching[0]

    def _turn(self, case: TestCase, messages: list[dict[str, Any]]) -> str | dict[str, Any]:
        """Turn t's calls at its first step, then a text that ends the turn."""
        turn, step = -1, 0
        for message in messages:
            if message["role"] == "user" and not str(message["content"]).startswith(FEEDBACK):
                turn, step = turn + 1, 0
            elif message["role"] == "assistant":
                step += 1
        calls = case.possible_answer[turn] if step == 0 else []
        if not calls:
            return "Done."
        methods = signatures(case.extras["involved_classes"])
        parsed = [parse_call(text, methods) for text in calls]
        if self.mode == "prompt":
            rendered = ", ".join(
                f"{n}({', '.join(f'{k}={v!r}' for k, v in a.items())})" for n, a in parsed
            )
            return f"[{rendered}]"
        return {"content": None, "tool_calls": [
            {"function": {"name": n, "arguments": a}} for n, a in parsed
        ]}


def verdicts(evaluation: fcbench.Evaluation, folder: str) -> dict[str, tuple[bool, Any]]:
    return {c.id: (c.verdict.valid, c.verdict.error_type)
            for category in evaluation.models[folder].categories.values() for c in category.cases}


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_a_function_answering_with_the_ground_truth_scores_like_the_builtin_model(
    fetched_home: Path, tmp_path: Path, mode: str
) -> None:
    model = GroundTruthFunction(mode)
    ids = stripe(CATEGORIES, 0 if mode == "fc" else 1)
    options: dict[str, Any] = {"categories": CATEGORIES, "mode": mode, "ids": ids,
                               "result_dir": tmp_path / "result", "score_dir": tmp_path / "score",
                               "concurrency": 16}
    ours = fcbench.run(model, name="gt-function", **options)
    builtin = fcbench.run("ground-truth", **options)
    folder = "ground-truth-FC" if mode == "fc" else "ground-truth"
    assert (ours.folder, builtin.folder) == ("gt-function", folder)
    assert list(builtin.models) == ["ground-truth"]  # keyed by the name given, not the folder
    assert builtin.models["ground-truth"] is builtin.evaluation.models[folder]
    judged = verdicts(ours.evaluation, "gt-function")
    assert judged == verdicts(builtin.evaluation, folder) and sorted(judged) == sorted(ids)
    scored = ours.models["gt-function"].categories
    assert [(name, c.correct, c.total) for name, c in scored.items()] == [
        ("simple_python", 200, 200), ("multiple", 100, 100), ("parallel", 100, 100),
        ("multi_turn_base", 100, 100)]
    assert model.calls > 500
    manifest = json.loads((tmp_path / "result" / "gt-function" / "model.json").read_text())
    expected = {"fc": ("fc", "underscore", "json_string"), "prompt": ("prompt", "dot", None)}
    assert (manifest["mode"], manifest["fc_names"], manifest["fc_args"]) == expected[mode]
    assert manifest["backend"] == "callable" and manifest["runs"][-1]["asked"] == 500
    # the aggregates come straight from the evaluation
    assert ours.models["gt-function"].v4.multi_turn.accuracy == pytest.approx(0.25)
    assert 0 < ours.models["gt-function"].overall < 1


def test_generate_resumes_and_unknown_options_are_refused(
    fetched_home: Path, tmp_path: Path
) -> None:
    calls: list[int] = []

    def refuse(messages: list[dict[str, Any]], tools: Any) -> str:
        calls.append(1)
        return "I cannot help with that."

    first = fcbench.generate(refuse, categories="irrelevance", result_dir=tmp_path)
    again = fcbench.generate(refuse, categories="irrelevance", result_dir=tmp_path)
    assert (first.generation.asked, again.generation.asked, again.generation.skipped,
            len(calls)) == (240, 0, 240, 240)
    assert (first.model, first.folder) == ("refuse", "refuse-FC")
    with pytest.raises(TypeError, match="unknown option"):
        fcbench.generate(refuse, categorie="irrelevance")  # type: ignore[call-arg]


def test_a_failing_function_fails_its_case_only(fetched_home: Path, tmp_path: Path) -> None:
    def flaky(messages: list[dict[str, Any]], tools: Any) -> str:
        if "area" in first_user(messages):
            raise RuntimeError("model crashed")
        return "[f()]"

    report = fcbench.generate(flaky, categories=["simple_python"], mode="prompt",
                              result_dir=tmp_path, max_attempts=1).generation
    path = tmp_path / "flaky" / "non_live" / "BFCL_v4_simple_python_result.json"
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    failed = [e for e in entries if "error" in e]
    assert report.errors == len(failed) > 0 and len(entries) == 400
    assert "RuntimeError: model crashed" in failed[0]["error"]


def test_format_sensitivity_is_generated_in_prompt_mode_only() -> None:
    from fcbench.core import categories
    from fcbench.pipeline import can_generate, generation_categories

    row = categories.get("format_sensitivity")
    every = categories.resolve(["all"])
    assert can_generate(row, "prompt") and not can_generate(row, "fc")
    assert "format_sensitivity" in [c.name for c in generation_categories(every, "prompt")]
    fc = [c.name for c in generation_categories(every, "fc")]
    assert "format_sensitivity" not in fc and "simple_python" in fc
    with pytest.raises(ValueError, match="prompt mode only"):
        generation_categories([row], "fc")


def test_missing_embedding_weights_fail_before_any_case(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """memory_vector without the encoder is one error before the run, not an error per case
    (a fresh core install once wrote 192 errored cases), the ground truth included."""
    from fcbench.envs.memory import embedding
    from fcbench.envs.memory.weights import EmbeddingUnavailable

    def unavailable(*args: Any, **kwargs: Any) -> Any:
        raise EmbeddingUnavailable("no weights here")

    monkeypatch.setattr(embedding, "load_encoder", unavailable)
    with pytest.raises(ValueError, match=r"^memory_vector: no weights here$"):
        fcbench.generate("ground-truth", categories=["memory_vector"], result_dir=tmp_path / "r")
    assert not list((tmp_path / "r").rglob("*_result.json"))


# Which categories a run asks, pinned by hand (issue 21 item 3 moved the rule into the checker
# kinds): every row of every release in both modes, and a custom dataset's row per checker.
NOT_GENERATED = {
    "fc": {"multi_turn_composite", "memory_kv_prereq", "memory_vector_prereq",
           "memory_rec_sum_prereq", "format_sensitivity"},
    "prompt": {"multi_turn_composite", "memory_kv_prereq", "memory_vector_prereq",
               "memory_rec_sum_prereq"},
}
CUSTOM_NOT_GENERATED = {
    "fc": {"rest", "format_sensitivity", "none", "no_such_kind"},
    "prompt": {"rest", "none", "no_such_kind"},
}


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_which_categories_are_generated_is_pinned(mode: Mode) -> None:
    from fcbench.core import categories
    from fcbench.core.categories import Category, Language
    from fcbench.pipeline import can_generate

    rows = categories.CATEGORIES
    assert {r.release for r in rows} == {"v1", "v2", "v3", "v4"}
    assert {r.name for r in rows if not can_generate(r, mode)} == NOT_GENERATED[mode]
    checkers = [*{r.checker for r in rows}, "no_such_kind"]
    custom = [Category(f"acme_{name}", "acme", "custom", Language.PYTHON, name)
              for name in checkers]
    refused = {r.checker for r in custom if not can_generate(r, mode)}
    assert refused == CUSTOM_NOT_GENERATED[mode]


def test_a_run_is_planned_once_before_anything_is_written(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`plan` resolves the categories once and writes nothing; executing the plan asks the
    cases without resolving anything again."""
    from fcbench.core import categories
    from fcbench.pipeline import execute_generation, plan
    from fcbench.run_config import RunConfig

    calls: list[object] = []
    resolve = categories.resolve

    def counted(names: Any) -> Any:
        calls.append(names)
        return resolve(names)

    monkeypatch.setattr(categories, "resolve", counted)
    config = RunConfig.of({"categories": "non_live", "limit": 2, "mode": "prompt",
                           "result_dir": tmp_path / "r"})
    planned = plan("ground-truth", config)
    assert len(calls) == 1
    assert (planned.model, planned.folder, planned.mode) == ("ground-truth", "ground-truth",
                                                              "prompt")
    assert "simple_python" in [c.name for c in planned.categories]
    assert all(len(cases) <= 2 for _, cases in planned.cases)
    assert not (tmp_path / "r").exists()
    result = execute_generation(planned)
    assert len(calls) == 1
    assert result.generation.asked == sum(len(cases) for _, cases in planned.cases)
    assert (tmp_path / "r" / "ground-truth" / "model.json").is_file()


def test_failed_ids_reads_records_with_long_integers_and_line_separators(tmp_path: Path) -> None:
    """`--rerun-failed` asks the failed cases again: a record holding a 5,000-digit number
    or a U+2028 in a string (written as is) was skipped, so its case was taken for passed."""
    from fcbench.core import categories
    from fcbench.pipeline import failed_ids
    from fcbench.results.score_files import write_category_score
    from fcbench.score.aggregate import CategoryScore

    simple = categories.get("simple_python")
    records = [{"id": "simple_python_0", "model_result_decoded": [{"f": {"a": 10**4400}}]},
               {"id": "simple_python_1", "error": ["a\u2028b\x85c"]},
               {"id": "simple_python_2", "error": ["plain"]}]
    write_category_score(tmp_path, "m", CategoryScore("simple_python", 1, 4, 400), records)
    assert failed_ids(tmp_path, "m", [simple]) == {
        "simple_python": {"simple_python_0", "simple_python_1", "simple_python_2"}}
