"""Multi-turn generation end to end over real HTTP: `fcbench run` against a scripted server.

The server plays a model: it works out from the request's messages which turn and step it is
in and answers with one ground-truth call per step (so every turn takes several steps), then
a plain text that ends the turn. Cases come from a small data folder (`--data-dir`) holding
single entries of the real release. Checked: the conversation's message layout (tool results
fed back per mode), the stored per-turn/per-step structure, miss_func's held-out functions
appearing exactly from their turn on, and a model that never stops calling being
force-quit after the step limit (verdict `multi_turn:force_terminated`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fake_openai import FakeOpenAI, _tool_call
from fcbench.cli import main
from fcbench.core.model import TestCase
from fcbench.ground_truth.backend import parse_call, signatures

TOOL_RESULTS_PREFIX = "[{'role': 'tool'"


def data_folder(tmp: Path, category: str, index: int) -> tuple[Path, TestCase]:
    """A `--data-dir` like the release's (files linked) whose category holds one entry."""
    folder, cases = data_folder_of(tmp, category, [index])
    return folder, cases[0]


def data_folder_of(tmp: Path, category: str, indices: list[int]) -> tuple[Path, list[TestCase]]:
    """A `--data-dir` like the release's (files linked) whose category holds these entries."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE, release_dir
    from fcbench.dataset.load import load_category

    source = release_dir(DEFAULT_RELEASE) / "data"
    folder = tmp / "data"
    chosen = {f"BFCL_v4_{category}.json", f"possible_answer/BFCL_v4_{category}.json"}
    for path in source.rglob("*"):
        rel = path.relative_to(source).as_posix()
        target = folder / rel
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif rel in chosen:
            lines = path.read_text(encoding="utf-8").splitlines()
            target.write_text("".join(lines[i] + "\n" for i in indices), encoding="utf-8")
        else:
            target.symlink_to(path)
    return folder, [load_category(category)[i] for i in indices]


def position(messages: list[dict[str, Any]]) -> tuple[int, int]:
    """(turn, step): user messages that are not tool results start turns; assistant
    messages since the last of them are the steps already taken."""
    turn, step = -1, 0
    for message in messages:
        content = message.get("content")
        if message["role"] == "user" and not str(content).startswith(TOOL_RESULTS_PREFIX):
            turn, step = turn + 1, 0
        elif message["role"] == "assistant":
            step += 1
    return turn, step


class GroundTruthPlayer:
    """Answers turn t, step s with the s-th ground-truth call of turn t, then with text."""

    def __init__(self, case: TestCase, forever: str | None = None) -> None:
        self.truth: list[list[str]] = case.possible_answer
        self.methods = signatures(case.extras["involved_classes"])
        self.forever = forever
        self.requests: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        self.requests.append(request)
        turn, step = position(request["messages"])
        calls = self.truth[turn] if turn < len(self.truth) else []
        if self.forever is not None:
            calls = [self.forever] * (step + 1)
        if step >= len(calls):
            return {"content": "Done."}
        name, args = parse_call(calls[step], self.methods)
        if request.get("tools"):
            return {"content": None, "tool_calls": [_tool_call(name, args, len(self.requests))]}
        rendered = ", ".join(f"{k}={v!r}" for k, v in args.items())
        return {"content": f"[{name}({rendered})]"}


def run(tmp: Path, server: FakeOpenAI, data: Path, category: str, mode: str) -> Any:
    args = ["run", "--model", "scripted", "--name", f"scripted-{mode}", "--mode", mode,
            "--base-url", server.base_url, "--categories", category, "--data-dir", str(data),
            "--result-dir", str(tmp / "result"), "--score-dir", str(tmp / "score"), "--quiet"]
    return CliRunner().invoke(main, args, catch_exceptions=False)


def stored(tmp: Path, mode: str, category: str) -> dict[str, Any]:
    path = tmp / "result" / f"scripted-{mode}" / "multi_turn" / f"BFCL_v4_{category}_result.json"
    lines = path.read_text(encoding="utf-8").splitlines()
    assert len(lines) == 1
    entry: dict[str, Any] = json.loads(lines[0])
    return entry


def verdict(tmp: Path, mode: str, category: str, data: Path) -> tuple[bool, str | None]:
    from fcbench.api import evaluate

    report = evaluate(tmp / "result", models=[f"scripted-{mode}"], categories=[category],
                      data_dir=data, score_dir=tmp / "score2")
    [case] = report.models[f"scripted-{mode}"].categories[category].cases
    return case.verdict.valid, case.verdict.error_type


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_multi_step_multi_turn_case(fetched_home: Path, tmp_path: Path, mode: str) -> None:
    data, case = data_folder(tmp_path, "multi_turn_base", 0)
    player = GroundTruthPlayer(case)
    with FakeOpenAI(player) as server:
        result = run(tmp_path, server, data, "multi_turn_base", mode)
    assert result.exit_code == 0, result.output
    entry = stored(tmp_path, mode, "multi_turn_base")
    steps = [len(turn) for turn in entry["result"]]
    assert steps == [len(calls) + 1 for calls in case.possible_answer] == [4, 3, 2, 5]
    assert [len(t) for t in entry["latency"]] == steps
    assert [len(t) for t in entry["input_token_count"]] == steps
    assert entry["output_token_count"][0] == [7, 7, 7, 7]
    assert len(player.requests) == sum(steps)
    assert verdict(tmp_path, mode, "multi_turn_base", data) == (True, None)
    assert "step_3" in entry["inference_log"][1] and entry["inference_log"][0][0]["role"] == (
        "state_info")
    last = player.requests[-1]["messages"]
    if mode == "fc":
        assert all(m["role"] != "system" for m in last)
        tool_messages = [m for m in last if m["role"] == "tool"]
        assert len(tool_messages) == 10
        assistant = [m for m in last if m["role"] == "assistant"]
        called = {c["id"] for m in assistant for c in m.get("tool_calls") or []}
        assert {m["tool_call_id"] for m in tool_messages} == called
    else:
        assert last[0]["role"] == "system" and "[func_name1(" in last[0]["content"]
        feedback = [m["content"] for m in last if str(m["content"]).startswith(TOOL_RESULTS_PREFIX)]
        assert len(feedback) == 10
        assert feedback[0] == repr([{"role": "tool", "name": "cd(folder='document')",
                                     "content": '{"current_working_directory": "document"}'}])


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_miss_func_releases_the_held_out_functions(
    fetched_home: Path, tmp_path: Path, mode: str
) -> None:
    from fcbench.dataset.fetch import load_constants

    data, case = data_folder(tmp_path, "multi_turn_miss_func", 0)
    assert list(case.extras["missed_function"]) == ["3"]
    player = GroundTruthPlayer(case)
    with FakeOpenAI(player) as server:
        result = run(tmp_path, server, data, "multi_turn_miss_func", mode)
    assert result.exit_code == 0, result.output
    prompts = load_constants()["default_prompts"]
    for request in player.requests:
        turn, _ = position(request["messages"])
        if mode == "fc":
            names = {t["function"]["name"] for t in request["tools"]}
            assert ("sort" in names) == (turn >= 3)
        else:
            assert "sort" not in {n for n in _tool_names_in_system(request)}
    holdout = next(r for r in player.requests if position(r["messages"]) == (3, 0))
    user = holdout["messages"][-1]
    if mode == "fc":
        assert user == {"role": "user",
                        "content": prompts["DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_FC"]}
    else:
        template = prompts["DEFAULT_USER_PROMPT_FOR_ADDITIONAL_FUNCTION_PROMPTING"]
        docs = case.extras["missed_function"]["3"]
        assert user == {"role": "user", "content": template.format(functions=docs)}
    entry = stored(tmp_path, mode, "multi_turn_miss_func")
    assert len(entry["result"]) == 5 and entry["result"][2] == ["Done."]
    assert entry["inference_log"][7]["begin_of_turn_query"] == [user]
    assert verdict(tmp_path, mode, "multi_turn_miss_func", data) == (True, None)


def _tool_names_in_system(request: dict[str, Any]) -> list[str]:
    system = request["messages"][0]
    start = system["content"].index("[\n")
    docs = json.loads(system["content"][start:].strip())
    return [str(d["name"]) for d in docs]


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_a_model_that_never_stops_is_force_quit(
    fetched_home: Path, tmp_path: Path, mode: str
) -> None:
    data, case = data_folder(tmp_path, "multi_turn_base", 0)
    player = GroundTruthPlayer(case, forever="pwd()")
    with FakeOpenAI(player) as server:
        result = run(tmp_path, server, data, "multi_turn_base", mode)
    assert result.exit_code == 0, result.output
    entry = stored(tmp_path, mode, "multi_turn_base")
    assert len(entry["result"]) == 1 and len(entry["result"][0]) == 21
    assert len(player.requests) == 21
    assert entry["finish_reason"] == "force_quit"
    assert entry["inference_log"][1]["step_20"][-1]["content"] == (
        "Model has been forced to quit after 20 steps.")
    assert verdict(tmp_path, mode, "multi_turn_base", data) == (
        False, "multi_turn:force_terminated")


class CasePlayers:
    """Several cases' ground-truth players, told apart by the first user message."""

    def __init__(self, cases: list[TestCase]) -> None:
        self.players = {str(c.question[0][0]["content"]): GroundTruthPlayer(c) for c in cases}

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        first = next(m for m in request["messages"] if m["role"] == "user")
        return self.players[str(first["content"])](request)


def test_kill_9_mid_case_loses_only_that_case(fetched_home: Path, tmp_path: Path) -> None:
    """`fcbench generate` is killed in the middle of the second case's conversation: the
    file holds the first case only; the next run asks the other two; the answers equal a
    clean run's. The kill lands deterministically: the server answers 18 requests (case 0
    takes 14), then holds the next. The clean run and the resume run in-process."""
    import os
    import signal
    import subprocess
    import sys

    data, cases = data_folder_of(tmp_path, "multi_turn_base", [0, 1, 2])

    def flags(url: str, result_dir: Path) -> list[str]:
        return ["generate", "--model", "m", "--name", "k", "--base-url", url, "--categories",
                "multi_turn_base", "--data-dir", str(data), "--result-dir", str(result_dir),
                "--concurrency", "1", "--quiet"]

    def answers(result_dir: Path) -> dict[str, Any]:
        path = result_dir / "k" / "multi_turn" / "BFCL_v4_multi_turn_base_result.json"
        entries = map(json.loads, path.read_text(encoding="utf-8").splitlines())
        return {e["id"]: e["result"] for e in entries}

    with FakeOpenAI(CasePlayers(cases)) as server:
        clean = CliRunner().invoke(main, flags(server.base_url, tmp_path / "clean"),
                                   catch_exceptions=False)
        assert clean.exit_code == 0, clean.output
        per_case = [sum(len(calls) + 1 for calls in c.possible_answer) for c in cases]
        assert server.requests == sum(per_case) and per_case[0] == 14 and per_case[1] > 4
        server.requests, server.hold_after = 0, 18
        child = subprocess.Popen([sys.executable, "-m", "fcbench.cli",
                                  *flags(server.base_url, tmp_path / "killed")],
                                 stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            assert server.holding.wait(60), "the run never reached the held request"
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.wait(10)
        assert list(answers(tmp_path / "killed")) == [cases[0].id]
        server.hold_after = None
        resumed = CliRunner().invoke(main, flags(server.base_url, tmp_path / "killed"),
                                     catch_exceptions=False)
        assert resumed.exit_code == 0, resumed.output
    assert "asked 2 case(s)" in resumed.stderr and "1 already done" in resumed.stderr
    assert answers(tmp_path / "killed") == answers(tmp_path / "clean")


def _vendor_server(backend: str, player: GroundTruthPlayer) -> Any:
    if backend == "anthropic":
        return FakeOpenAI(player, chat_view=True)
    from fake_gemini import FakeGemini

    return FakeGemini(player)


@pytest.mark.parametrize("backend", ["anthropic", "google"])
@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_vendor_backends_run_multi_turn_cases(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, backend: str, mode: str
) -> None:
    """The Anthropic and Gemini backends hold whole conversations in their own layouts
    (tool uses answered by tool_result blocks; function calls by function responses), and the
    multi-step case scores as the ground truth it replays."""
    pytest.importorskip("anthropic" if backend == "anthropic" else "google.genai")
    monkeypatch.setenv("FCBENCH_TEST_KEY", "k")
    data, case = data_folder(tmp_path, "multi_turn_base", 0)
    player = GroundTruthPlayer(case)
    with _vendor_server(backend, player) as server:
        url = f"http://127.0.0.1:{server.port}"
        args = ["run", "--backend", backend, "--model", "scripted", "--name",
                f"scripted-{mode}", "--mode", mode, "--base-url", url, "--api-key-env",
                "FCBENCH_TEST_KEY", "--categories", "multi_turn_base", "--data-dir", str(data),
                "--result-dir", str(tmp_path / "result"), "--score-dir", str(tmp_path / "score"),
                "--quiet"]
        result = CliRunner().invoke(main, args, catch_exceptions=False)
        bodies = [body for _, body in getattr(server, "bodies", [])]
    assert result.exit_code == 0, result.output
    entry = stored(tmp_path, mode, "multi_turn_base")
    assert [len(turn) for turn in entry["result"]] == [4, 3, 2, 5]
    assert len(player.requests) == 14
    assert verdict(tmp_path, mode, "multi_turn_base", data) == (True, None)
    last = player.requests[-1]["messages"]
    if mode == "fc":
        tools = [m for m in last if m["role"] == "tool"]
        assert len(tools) == 10 and tools[0]["content"] == (
            '{"current_working_directory": "document"}')
    else:
        feedback = [m for m in last if str(m["content"]).startswith(TOOL_RESULTS_PREFIX)]
        assert len(feedback) == 10
    if backend == "google" and mode == "fc":
        parts = [p for c in bodies[-1]["contents"] for p in c["parts"]]
        calls = [p["functionCall"]["name"] for p in parts if "functionCall" in p]
        answers = [p["functionResponse"]["name"] for p in parts if "functionResponse" in p]
        assert calls == answers and len(calls) == 10
