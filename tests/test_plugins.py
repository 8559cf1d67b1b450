"""Extensions through the registries (issue 21 item 3): a toy checker kind, a toy backend and a
toy text parser (one module each, in tests/toy_extensions) are added with one registry line at
run time, or installed as a distribution's entry points, and run end to end, scored; a broken
plugin is one warning line."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import fcbench
from fake_openai import FakeOpenAI
from fcbench import plugins
from fcbench.check import registry as checkers
from fcbench.cli import main
from fcbench.decode import tool_call_formats as text_formats
from fcbench.models import registry as backends
from toy_extensions import exact_kind, fake_distribution, pipes_parser

TESTS = Path(__file__).resolve().parent
ENTRY_POINTS = """\
[fcbench.backends]
echo = toy_extensions.echo_backend:from_options
broken = toy_extensions.broken_on_import:from_options
openai = toy_extensions.echo_backend:from_options

[fcbench.checkers]
toy_exact = toy_extensions.exact_kind:KIND
not_a_kind = toy_extensions.pipes_parser:parse

[fcbench.text_parsers]
pipes = toy_extensions.pipes_parser:parse
"""


@pytest.fixture
def scratch_registries(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Registrations and loaded plugins are forgotten after the test."""
    monkeypatch.setattr(checkers, "_LOADED", dict(checkers._LOADED))
    monkeypatch.setattr(backends.BACKENDS, "_entries", dict(backends.BACKENDS._entries))
    monkeypatch.setattr(text_formats.PARSERS, "_entries", dict(text_formats.PARSERS._entries))
    plugins.forget()
    yield
    plugins.forget()


def installed_toys(folder: Path) -> Path:
    """A fake installed distribution declaring the toys (and three bad plugins)."""
    return fake_distribution(folder, "toy-plugins", ENTRY_POINTS)


def write_lines(path: Path, rows: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")


def capitals_dataset(folder: Path) -> Path:
    """A custom dataset judged by the toy kind: the echo model gets two of three right."""
    (folder / "fcbench.json").parent.mkdir(parents=True)
    (folder / "fcbench.json").write_text(json.dumps(
        {"name": "toyset", "categories": [{"name": "toy_capitals", "checker": "toy_exact"}]}))
    questions = ["Paris", "Tokyo", "Lima?"]
    write_lines(folder / "BFCL_v4_toy_capitals.json", [
        {"id": f"toy_capitals_{i}", "question": [[{"role": "user", "content": q}]],
         "function": []} for i, q in enumerate(questions)])
    write_lines(folder / "possible_answer" / "BFCL_v4_toy_capitals.json", [
        {"id": f"toy_capitals_{i}", "ground_truth": a}
        for i, a in enumerate(["Paris", "Tokyo", "Lima"])])
    return folder


def score_lines(score_dir: Path, model: str) -> list[dict[str, Any]]:
    path = score_dir / model / "toyset" / "BFCL_v4_toy_capitals_score.json"
    return [json.loads(line) for line in path.read_text().splitlines()]


def toy_run_flags(dataset: Path, out: Path) -> list[str]:
    return ["run", "--model", "toy", "--backend", "echo", "--data-dir", str(dataset),
            "--categories", "toy_capitals", "--result-dir", str(out / "result"),
            "--score-dir", str(out / "score"), "--no-report", "--quiet"]


@pytest.mark.usefixtures("scratch_registries")
def test_a_kind_and_a_backend_registered_at_run_time_run_and_are_scored(
    fetched_home: Path, tmp_path: Path
) -> None:
    """Fails when `can_generate` does not ask the kind (the run refuses the toy category) or
    `--backend` is a fixed list (click refuses `echo`)."""
    checkers.register(exact_kind.KIND)
    backends.register(backends.BackendSpec(
        "echo", "toy_extensions.echo_backend:from_options", "echoes the last user message"))
    dataset = capitals_dataset(tmp_path / "toyset")

    evaluation = fcbench.run("toy", backend="echo", data_dir=[dataset],
                             categories=["toy_capitals"], result_dir=tmp_path / "api" / "result",
                             score_dir=tmp_path / "api" / "score")
    scored = evaluation.models["toy"].categories["toy_capitals"]
    assert (scored.correct, scored.total) == (2, 3)
    assert [case.id for case in scored.failures()] == ["toy_capitals_2"]

    result = CliRunner().invoke(main, toy_run_flags(dataset, tmp_path / "cli"))
    assert result.exit_code == 0, result.output
    header, record = score_lines(tmp_path / "cli" / "score", "toy-FC")
    assert header == {"accuracy": 2 / 3, "correct_count": 2, "total_count": 3}
    assert record == {"id": "toy_capitals_2", "error_type": "toy:wrong_answer",
                      "answer": "Lima?"}


def weather_dataset(folder: Path) -> Path:
    """One AST case in the simple format."""
    folder.mkdir(parents=True)
    (folder / "fcbench.json").write_text(json.dumps(
        {"name": "acme", "categories": [
            {"name": "acme_weather", "checker": "ast", "file": "weather.jsonl"}]}))
    tool = {"type": "function", "function": {
        "name": "get_weather", "description": "Weather in a city.",
        "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                       "required": ["city"]}}}
    write_lines(folder / "weather.jsonl", [
        {"id": "acme_weather_0", "question": "Weather in Paris?", "tools": [tool],
         "expected": [{"get_weather": {"city": ["Paris"]}}]}])
    return folder


def pipes_reply(request: dict[str, Any]) -> dict[str, Any]:
    """A model that writes its calls as `name|{json}` text."""
    return {"content": 'get_weather|{"city": "Paris"}'}


@pytest.mark.usefixtures("scratch_registries")
def test_a_text_parser_registered_at_run_time_parses_through_the_cli(
    fetched_home: Path, tmp_path: Path
) -> None:
    """Fails when `--output-format` is a fixed list (click refuses `pipes`) or the backends
    read another table than the registry (the text stays text: 0/1)."""
    text_formats.register("pipes", pipes_parser.parse)
    dataset = weather_dataset(tmp_path / "acme")
    with FakeOpenAI(pipes_reply) as server:
        result = CliRunner().invoke(main, [
            "run", "--model", "m", "--base-url", server.base_url, "--output-format", "pipes",
            "--data-dir", str(dataset), "--categories", "acme_weather", "--no-report",
            "--result-dir", str(tmp_path / "result"), "--score-dir", str(tmp_path / "score"),
            "--quiet"])
    assert result.exit_code == 0, result.output
    stored = tmp_path / "result" / "m-FC" / "acme" / "BFCL_v4_acme_weather_result.json"
    assert json.loads(stored.read_text())["result"] == [{"get_weather": '{"city": "Paris"}'}]
    score = tmp_path / "score" / "m-FC" / "acme" / "BFCL_v4_acme_weather_score.json"
    assert json.loads(score.read_text().splitlines()[0])["accuracy"] == 1.0
    refused = CliRunner().invoke(main, ["run", "--model", "m", "--output-format", "nope"])
    assert refused.exit_code == 2 and "'pipes'" in refused.output


@pytest.mark.usefixtures("scratch_registries")
def test_installed_plugins_are_loaded_once_and_broken_ones_warned_about(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Fails when a registry ignores its entry-point group, loads it on every question (the
    warnings repeat), lets a plugin replace a built-in, or lets a plugin's error escape."""
    monkeypatch.syspath_prepend(str(installed_toys(tmp_path / "site")))
    builtin_openai = backends.BACKENDS["openai"]  # a built-in name: no plugin scan yet
    assert capsys.readouterr().err == ""

    for _ in range(2):
        assert "echo" in backends.names() and "broken" not in backends.names()
        assert checkers.get("toy_exact") is exact_kind.KIND
        assert not checkers.is_registered("not_a_kind")
        assert "pipes" in text_formats.names()
    assert backends.BACKENDS["openai"] is builtin_openai
    assert backends.BACKENDS["echo"].factory == "toy_extensions.echo_backend:from_options"
    assert text_formats.parse_text_calls("pipes", 'f|{"a": 1}') == [{"f": '{"a": 1}'}]

    warnings = capsys.readouterr().err.splitlines()
    assert len(warnings) == 3 and all(w.startswith("fcbench: warning: plugin ") for w in warnings)
    assert "'broken' (fcbench.backends) left out: cannot load" in warnings[0]
    assert warnings[0].endswith("RuntimeError: boom")
    assert "'openai' (fcbench.backends) left out: the built-in" in warnings[1]
    assert "'not_a_kind' (fcbench.checkers) left out: not a CheckerKind" in warnings[2]


def test_installed_plugins_run_end_to_end_from_the_command_line(
    fetched_home: Path, tmp_path: Path
) -> None:
    """A fresh `fcbench` process, nothing registered by code: the distribution's entry points
    alone bring the backend, the checker kind and the text parser. Fails when a registry does
    not read its group, or a broken plugin shows a traceback or stops the run."""
    site = installed_toys(tmp_path / "site")
    dataset = capitals_dataset(tmp_path / "toyset")
    source = Path(fcbench.__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(TESTS), str(source)])}

    def fcbench_cli(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "fcbench.cli", *args], env=env,
                              capture_output=True, text=True, timeout=300, check=False)

    ran = fcbench_cli(*toy_run_flags(dataset, tmp_path))
    assert ran.returncode == 0, ran.stderr
    assert "toy_capitals" in ran.stdout and "66.67" in ran.stdout
    assert "Traceback" not in ran.stderr
    warned = [line for line in ran.stderr.splitlines() if line.startswith("fcbench: warning")]
    assert [line.split("'")[1] for line in warned] == ["broken", "openai", "not_a_kind"]
    assert score_lines(tmp_path / "score", "toy-FC")[0]["correct_count"] == 2
    shown = fcbench_cli("run", "--help")
    assert shown.returncode == 0 and "pipes" in shown.stdout and "echo" in shown.stdout
