"""Providers by name end to end over real HTTP: `fcbench run --model mistral/scripted` with
the provider's base URL pointed at a loopback stand-in (`FCBENCH_MISTRAL_BASE_URL`), against
the plain path (`--model scripted --base-url URL`) on the same stand-in.

One run holds five simple_python cases (four answered with the ground truth, one with a
wrong value) and one multi_turn_base case played step by step. Checked per provider: the key
is read from the provider's variable (the stand-in refuses any other), the request bodies are
identical to the plain path's, case by case, and so are the stored results and every verdict
(4/5 single-turn, the multi-turn case correct); the folder keeps the model part's name and
model.json records provider and model apart.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from test_multi_turn_http import GroundTruthPlayer

from fake_openai import FakeOpenAI, _tool_call
from fcbench.cli import main
from fcbench.core.model import TestCase

KEY = "provider-test-key-0123456789"
SINGLE, MULTI = "simple_python", "multi_turn_base"


def data_folder(tmp: Path, chosen: dict[str, list[int]]) -> tuple[Path, dict[str, list[Any]]]:
    """A `--data-dir` like the release's (files linked) holding these entries of each
    category; with the cases loaded."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE, release_dir
    from fcbench.dataset.load import load_category

    source = release_dir(DEFAULT_RELEASE) / "data"
    folder = tmp / "data"
    files = {rel: indices for name, indices in chosen.items()
             for rel in (f"BFCL_v4_{name}.json", f"possible_answer/BFCL_v4_{name}.json")}
    for path in source.rglob("*"):
        rel = path.relative_to(source).as_posix()
        target = folder / rel
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif rel in files:
            lines = path.read_text(encoding="utf-8").splitlines()
            target.write_text("".join(lines[i] + "\n" for i in files[rel]), encoding="utf-8")
        else:
            target.symlink_to(path)
    cases = {name: [load_category(name)[i] for i in indices] for name, indices in chosen.items()}
    return folder, cases


class Player:
    """Single-turn cases: the ground truth's first values (one case with a wrong value);
    the multi-turn case: `GroundTruthPlayer`. Every request body is kept."""

    def __init__(self, single: list[TestCase], multi: TestCase, wrong: int = 2) -> None:
        self.answers: dict[str, dict[str, Any]] = {}
        for index, case in enumerate(single):
            [answer] = case.possible_answer
            [(_, params)] = answer.items()
            args = {k: v[0] for k, v in params.items() if v and v[0] != ""}
            if index == wrong:
                args[next(iter(args))] = 987654
            self.answers[case.question[0][-1]["content"]] = args
        self.multi = GroundTruthPlayer(multi)
        self.bodies: list[dict[str, Any]] = []

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        self.bodies.append(json.loads(json.dumps(request)))
        messages = request["messages"]
        if messages == [{"role": "user", "content": "ping"}]:  # a preflight's
            return {"content": "pong"}
        args = self.answers.get(str(messages[-1].get("content"))) if len(messages) == 1 else None
        if args is None:
            return self.multi(request)
        name = request["tools"][0]["function"]["name"]
        return {"content": None, "tool_calls": [_tool_call(name, args, 0)]}


def canonical(bodies: list[dict[str, Any]]) -> list[str]:
    """The bodies as sorted JSON texts (cases in flight at once arrive in any order)."""
    return sorted(json.dumps(body, sort_keys=True) for body in bodies)


def invoke(tmp: Path, data: Path, model: str, *extra: str) -> Any:
    args = ["run", "--model", model, "--categories", f"{SINGLE},{MULTI}", "--data-dir",
            str(data), "--result-dir", str(tmp / "result"), "--score-dir", str(tmp / "score"),
            "--quiet", "--no-report", *extra]
    return CliRunner().invoke(main, args, catch_exceptions=False)


def verdicts(tmp: Path, folder: str, data: Path) -> dict[str, tuple[bool, str | None]]:
    from fcbench.api import evaluate

    report = evaluate(tmp / "result", models=[folder], categories=[SINGLE, MULTI],
                      data_dir=data, score_dir=tmp / "rescored")
    return {case.id: (case.verdict.valid, case.verdict.error_type)
            for category in report.models[folder].categories.values()
            for case in category.cases}


def stored(tmp: Path, folder: str) -> list[Any]:
    """Every result line but its latencies (which differ from run to run)."""
    lines = []
    for path in sorted((tmp / "result" / folder).rglob("*_result.json")):
        for line in path.read_text(encoding="utf-8").splitlines():
            entry = json.loads(line)
            entry.pop("latency", None)
            lines.append(entry)
    return lines


@pytest.mark.parametrize(("provider", "variable", "backend"), [
    ("openai", "OPENAI_API_KEY", "openai"),
    ("mistral", "MISTRAL_API_KEY", "openai"),
    ("groq", "GROQ_API_KEY", "openai"),
    ("anthropic", "ANTHROPIC_API_KEY", "anthropic"),
])
def test_a_provider_by_name_runs_as_the_plain_path(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    provider: str, variable: str, backend: str,
) -> None:
    pytest.importorskip(backend)
    data, cases = data_folder(tmp_path, {SINGLE: [0, 1, 2, 3, 4], MULTI: [0]})
    for name in ("OPENAI_API_KEY", "MISTRAL_API_KEY", "GROQ_API_KEY", "ANTHROPIC_API_KEY",
                 "OPENAI_BASE_URL"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv(variable, KEY)
    named, plain = Player(cases[SINGLE], cases[MULTI][0]), Player(cases[SINGLE], cases[MULTI][0])
    chat_view = backend == "anthropic"
    with FakeOpenAI(named, api_key=KEY, chat_view=chat_view, models=["scripted"]) as server:
        url = server.base_url if backend == "openai" else f"http://127.0.0.1:{server.port}"
        monkeypatch.setenv(f"FCBENCH_{provider.upper()}_BASE_URL", url)
        by_name = invoke(tmp_path / "named", data, f"{provider}/scripted")
    with FakeOpenAI(plain, api_key=KEY, chat_view=chat_view, models=["scripted"]) as server:
        url = server.base_url if backend == "openai" else f"http://127.0.0.1:{server.port}"
        by_url = invoke(tmp_path / "plain", data, "scripted", "--backend", backend,
                        "--base-url", url, "--api-key-env", variable)
    assert by_name.exit_code == 0, by_name.output
    assert by_url.exit_code == 0, by_url.output
    assert len(named.bodies) == 5 + 14
    assert canonical(named.bodies) == canonical(plain.bodies)  # the same, whichever route
    assert stored(tmp_path / "named", "scripted-FC") == stored(tmp_path / "plain", "scripted-FC")
    found = verdicts(tmp_path / "named", "scripted-FC", data)
    assert found == verdicts(tmp_path / "plain", "scripted-FC", data)
    assert sum(valid for valid, _ in found.values()) == 5  # 4 of 5 single-turn + multi-turn
    assert found[f"{MULTI}_0"] == (True, None)
    manifest = json.loads((tmp_path / "named/result/scripted-FC/model.json").read_text())
    assert (manifest["provider"], manifest["model"]) == (provider, "scripted")
    assert manifest["backend"] == {"openai": "openai-compatible"}.get(backend, backend)
    assert "provider" not in json.loads(
        (tmp_path / "plain/result/scripted-FC/model.json").read_text())
