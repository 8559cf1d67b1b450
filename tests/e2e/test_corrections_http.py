"""The corrections profile's headline fix over real HTTP (issue 24, must show): a vLLM-style
reply `{"content": "<answer>", "tool_calls": []}` scores as its text on the memory and
web-search categories with `--corrections community-2026`, and as upstream (the empty list,
zero) without it. Both runs in one test, against the loopback fake OpenAI server."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fake_openai import FakeOpenAI
from fcbench import corrections
from fcbench.cli import main
from fcbench.dataset.load import load_category

FEEDBACK = "[{'role': 'tool'"


@pytest.fixture(autouse=True)
def default_profile() -> Iterator[None]:
    """The profile is process state: later tests in this worker get the default back."""
    yield
    corrections.use_profile(None)


class EmptyListPlayer:
    """Every reply is text beside an empty tool-call list: the ground truth's final message
    for a question, "Noted." for anything else (memory prerequisites)."""

    def __init__(self, category: str) -> None:
        from fcbench.check.agentic import ground_truth_message

        self.answers = {str(c.question[0][-1]["content"]): ground_truth_message(c)
                        for c in load_category(category)}

    def __call__(self, request: dict[str, Any]) -> dict[str, Any]:
        texts = [str(m["content"]) for m in request["messages"]
                 if m["role"] == "user" and not str(m["content"]).startswith(FEEDBACK)]
        return {"content": self.answers.get(texts[-1], "Noted."), "tool_calls": []}


def score_header(score_dir: Path, relative: str) -> dict[str, Any]:
    path = next(score_dir.rglob(relative))
    header: dict[str, Any] = json.loads(path.read_text().splitlines()[0])
    return header


@pytest.mark.parametrize(("category", "score_file"), [
    ("memory_kv", "BFCL_v4_memory_kv_score.json"),
    ("web_search_base", "BFCL_v4_web_search_base_score.json"),
])
def test_empty_tool_calls_score_as_text_only_with_the_profile(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    category: str, score_file: str,
) -> None:
    monkeypatch.setenv("SERPAPI_API_KEY", "k")
    headers = {}
    for profile in ("none", "community-2026"):
        with FakeOpenAI(EmptyListPlayer(category)) as server:
            result = CliRunner().invoke(main, [
                "run", "--model", "m", "--name", "m", "--mode", "fc", "--base-url",
                server.base_url, "--categories", category, "--limit", "4",
                "--corrections", profile, "--concurrency", "4", "--no-preflight",
                "--result-dir", str(tmp_path / profile / "r"),
                "--score-dir", str(tmp_path / profile / "s"), "--quiet"],
                catch_exceptions=False)
        assert result.exit_code == 0, result.output
        # under the table, the profile and each fix with its upstream numbers
        shown = "empty-tool-calls (#1316, #1328, #1348, #1351)" in result.output
        assert shown == (profile != "none")
        headers[profile] = score_header(tmp_path / profile / "s", score_file)
        manifest = json.loads(next((tmp_path / profile / "r").rglob("model.json")).read_text())
        assert manifest["corrections"] == profile
    upstream, corrected = headers["none"], headers["community-2026"]
    assert upstream["total_count"] == corrected["total_count"] == 4
    assert upstream["correct_count"] == 0  # upstream keeps `[]`: no answer to read
    assert corrected["correct_count"] == 4  # the text is the answer
    assert "corrections" not in upstream  # the default's score file keeps the official bytes
    assert corrected["corrections"] == "community-2026"
