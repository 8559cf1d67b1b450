"""Open-model prompt formats end to end over real HTTP: `fcbench run --prompt-format F`
against a local `/v1/completions` server that answers with scripted text in F's format.

Single-turn: five simple_python cases, four answered with the ground truth and one with a
wrong value, so the score is 80% and the wrong one fails as a value error. Multi-turn: one
multi_turn_base case played step by step (one ground-truth call per step, then a plain
answer ending the turn), the results fed back the family's way and visible in the next
prompt, scored correct. The run's model.json names the family, how it was chosen, and its
decoders, so `fcbench evaluate` re-scores the folder the same way.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_multi_turn_http import data_folder_of

from fake_openai import FakeOpenAI
from fcbench.cli import main
from fcbench.core.model import TestCase
from fcbench.ground_truth.backend import parse_call, signatures
from fcbench.models import families

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "models" / "families"))
from family_handlers import writer

RESULTS_SEEN = {
    "qwen-fc": "<|im_start|>user\n<tool_response>\n",
    "llama": "<|start_header_id|>ipython<|end_header_id|>\n\n",
    "mistral-fc": '[TOOL_RESULTS]{"content": ',
    "xlam-qwen": "<|im_start|>tool\n",
}


def first_values(case: TestCase) -> list[tuple[str, dict[str, Any]]]:
    return [(name, {k: v[0] for k, v in params.items() if v and v[0] != ""})
            for item in case.possible_answer for name, params in item.items()]


class SingleTurnModel:
    """Answers each case's question with its ground truth in the family's format (the case
    at `wrong` with its first value changed)."""

    def __init__(self, family: str, cases: list[TestCase], wrong: int) -> None:
        self.write = writer(family)
        self.answers = []
        for index, case in enumerate(cases):
            calls = first_values(case)
            if index == wrong:
                name, args = calls[0]
                key = next(iter(args))
                calls = [(name, {**args, key: 987654})]
            self.answers.append((case.question[0][-1]["content"], self.write(calls)))
        self.prompts: list[str] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        prompt = request["prompt"]
        self.prompts.append(prompt)
        for question, answer in self.answers:
            if question in prompt:
                return {"content": answer}
        raise AssertionError("a prompt without a known question")


class MultiTurnModel:
    """Plays one case: its ground-truth calls one per step, then "Done." after each turn."""

    def __init__(self, family: str, case: TestCase) -> None:
        methods = signatures(case.extras["involved_classes"])
        write = writer(family)
        self.script: list[str] = []
        for turn in case.possible_answer:
            self.script += [write([parse_call(call, methods)]) for call in turn] + ["Done."]
        self.prompts: list[str] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        self.prompts.append(request["prompt"])
        return {"content": self.script[len(self.prompts) - 1]}


def run(args: list[str]) -> Any:
    return CliRunner().invoke(main, ["run", *args, "--quiet", "--concurrency", "1"],
                              catch_exceptions=False)


def score(tmp: Path, folder: str, group: str, category: str) -> dict[str, Any]:
    path = tmp / "score" / folder / group / f"BFCL_v4_{category}_score.json"
    header: dict[str, Any] = json.loads(path.read_text(encoding="utf-8").splitlines()[0])
    return header


@pytest.mark.parametrize("family", list(RESULTS_SEEN))
def test_single_and_multi_turn_over_completions(
    fetched_home: Path, tmp_path: Path, family: str
) -> None:
    single, cases = data_folder_of(tmp_path / "single", "simple_python", [0, 1, 2, 3, 4])
    model = SingleTurnModel(family, cases, wrong=2)
    common = ["--model", "my-model", "--prompt-format", family, "--result-dir",
              str(tmp_path / "result"), "--score-dir", str(tmp_path / "score")]
    with FakeOpenAI(model) as server:
        result = run([*common, "--base-url", server.base_url, "--categories", "simple_python",
                      "--data-dir", str(single)])
    assert result.exit_code == 0, result.output
    folder = "my-model-FC" if families.get(family).fc else "my-model"  # the official naming
    assert score(tmp_path, folder, "non_live", "simple_python")["accuracy"] == 0.8
    assert len(model.prompts) == 5
    manifest = json.loads((tmp_path / "result" / folder / "model.json").read_text())
    assert manifest["mode"] == "prompt"
    assert manifest["prompt_format"] == family
    assert manifest["prompt_format_chosen_by"] == "--prompt-format"
    failures = (tmp_path / "score" / folder / "non_live" /
                "BFCL_v4_simple_python_score.json").read_text().splitlines()[1:]
    assert [json.loads(line)["id"] for line in failures] == ["simple_python_2"]

    multi, [case] = data_folder_of(tmp_path / "multi", "multi_turn_base", [0])
    player = MultiTurnModel(family, case)
    with FakeOpenAI(player) as server:
        result = run([*common, "--base-url", server.base_url, "--categories", "multi_turn_base",
                      "--data-dir", str(multi)])
    assert result.exit_code == 0, result.output
    assert len(player.prompts) == len(player.script)
    # every prompt after a call holds that call's results, in the family's layout
    assert RESULTS_SEEN[family] in player.prompts[1]
    assert RESULTS_SEEN[family] not in player.prompts[0]
    assert score(tmp_path, folder, "multi_turn", "multi_turn_base")["accuracy"] == 1.0
    entry = json.loads((tmp_path / "result" / folder / "multi_turn" /
                        "BFCL_v4_multi_turn_base_result.json").read_text().splitlines()[0])
    assert [len(turn) for turn in entry["result"]] == [len(t) + 1 for t in case.possible_answer]

    # the folder re-scores the same from its model.json, and --output-format agrees
    for extra in ([], ["--output-format", manifest["family"]]):
        rescored = CliRunner().invoke(main, [
            "evaluate", "--result-dir", str(tmp_path / "result"), "--score-dir",
            str(tmp_path / "rescored"), "--categories", "simple_python,multi_turn_base",
            "--data-dir", str(single), *extra], catch_exceptions=False)
        assert rescored.exit_code == 0, rescored.output


def test_official_model_names_pick_their_family(fetched_home: Path, tmp_path: Path) -> None:
    single, cases = data_folder_of(tmp_path, "simple_python", [0, 1])
    model = SingleTurnModel("qwen-fc", cases, wrong=-1)
    with FakeOpenAI(model) as server:
        result = run(["--model", "Qwen/Qwen3-8B-FC", "--backend", "completions", "--base-url",
                      server.base_url, "--categories", "simple_python", "--data-dir",
                      str(single), "--result-dir", str(tmp_path / "result"),
                      "--score-dir", str(tmp_path / "score")])
    assert result.exit_code == 0, result.output
    manifest = json.loads((tmp_path / "result" / "Qwen_Qwen3-8B-FC" / "model.json").read_text())
    assert manifest["prompt_format"] == "qwen-fc"
    assert manifest["family"] == "qwen-fc"
    assert "official model registry" in manifest["prompt_format_chosen_by"]
    assert manifest["served_model"] == "Qwen/Qwen3-8B"
    assert score(tmp_path, "Qwen_Qwen3-8B-FC", "non_live", "simple_python")["accuracy"] == 1.0
    assert "<tools>" in model.prompts[0]


def test_unknown_model_without_a_prompt_format_is_one_line(tmp_path: Path) -> None:
    result = CliRunner().invoke(main, ["run", "--model", "my-model", "--backend", "completions",
                                       "--base-url", "http://127.0.0.1:9/v1", "--result-dir",
                                       str(tmp_path)])
    assert result.exit_code != 0
    assert "pass --prompt-format" in result.output
    assert "Traceback" not in result.output


def test_a_reply_past_the_budget_is_kept_unread_under_the_timeout(
    fetched_home: Path, tmp_path: Path
) -> None:
    """`--prompt-format gemma-4`, one case answered with 239 kB of unclosed native calls
    (its parser took 70 s under `--timeout 30`) and one with 1.1 MB of them (past what a
    parser reads at generation): the run ends at once, the long reply is stored as it came
    and marked, both cases fail over budget and the other case is scored."""
    single, cases = data_folder_of(tmp_path, "simple_python", [0, 1, 2])
    model = SingleTurnModel("gemma-4", cases, wrong=-1)
    hostile, longer = "<|tool_call>call:f{" * 12_600, "<|tool_call>call:f{" * 60_000
    model.answers[0] = (model.answers[0][0], longer)
    model.answers[2] = (model.answers[2][0], hostile)
    with FakeOpenAI(model) as server:
        result = run(["--model", "my-model", "--prompt-format", "gemma-4", "--timeout", "30",
                      "--base-url", server.base_url, "--categories", "simple_python",
                      "--data-dir", str(single), "--result-dir", str(tmp_path / "result"),
                      "--score-dir", str(tmp_path / "score")])
    assert result.exit_code == 0, result.output
    lines = (tmp_path / "result" / "my-model" / "non_live" /
             "BFCL_v4_simple_python_result.json").read_text(encoding="utf-8").splitlines()
    entries = {entry["id"]: entry for entry in map(json.loads, lines)}
    assert entries["simple_python_0"]["result"] == longer
    assert "a parser reads at generation" in entries["simple_python_0"]["over_budget"]
    assert "over_budget" not in entries["simple_python_1"]
    assert "over_budget" not in entries["simple_python_2"]  # read, and found no call
    assert round(score(tmp_path, "my-model", "non_live", "simple_python")["accuracy"], 4) == (
        round(1 / 3, 4))
    failures = (tmp_path / "score" / "my-model" / "non_live" /
                "BFCL_v4_simple_python_score.json").read_text().splitlines()[1:]
    records = [json.loads(line) for line in failures]
    assert [record["id"] for record in records] == ["simple_python_0", "simple_python_2"]
    assert all(failure["error_type"] == "ast_decoder:decoder_failed" for failure in records)
    assert "over the decoding budget" in str(records[0]["error"])  # kept unread
