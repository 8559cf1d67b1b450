"""FC replies without tool calls (issue 25 item 4): a server that ignores `tools` is named
once, in stderr, model.json and the HTML report, instead of a silent 0%."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner

from fake_openai import FakeOpenAI
from fcbench.core import categories
from fcbench.runner.tool_use import FIRST_REPLIES, ToolUseWatch, holds_calls


def test_results_with_and_without_calls() -> None:
    assert holds_calls([{"f": '{"a": 1}'}]) and holds_calls([[[{"f": "{}"}], "text"]])
    assert not holds_calls("I would call f") and not holds_calls([]) and not holds_calls(None)
    assert not holds_calls([["text only", "still text"]])


def test_the_warning_comes_once_after_the_first_replies() -> None:
    simple, irrelevance = categories.get("simple_python"), categories.get("irrelevance")
    watch = ToolUseWatch(first=3)
    said = [watch.observe(irrelevance, "no call, rightly") for _ in range(5)]
    said += [watch.observe(simple, "text") for _ in range(6)]
    assert [i for i, text in enumerate(said) if text] == [7]  # the third simple_python reply
    assert "may be ignoring `tools`" in str(said[7])
    calling = ToolUseWatch(first=3)
    replies = ["text", [{"f": "{}"}], "text", "text"]
    assert not any(calling.observe(simple, reply) for reply in replies)


def test_a_text_answer_is_right_for_agentic_cases() -> None:
    """Web search and memory store the final reply, text by design: the ground truth's FC run
    of every category warned before these were left out."""
    watch = ToolUseWatch(first=3)
    for name in ("web_search_base", "memory_kv"):
        assert not any(watch.observe(categories.get(name), "Paris") for _ in range(5))
    assert watch.seen == 0


def text_only(request: dict[str, Any]) -> dict[str, Any]:
    """A server that takes `tools` and answers in text (a template that drops them)."""
    return {"content": "I would use a tool for that."}


def test_an_fc_run_against_a_server_that_drops_tools(fetched_home: Path, tmp_path: Path) -> None:
    from fcbench.cli import main
    from fcbench.report.html.collect import Sources

    with FakeOpenAI(text_only) as server:
        result = CliRunner().invoke(main, [
            "generate", "--model", "m", "--base-url", server.base_url, "--categories",
            "simple_python", "--limit", str(FIRST_REPLIES + 2), "--quiet",
            "--result-dir", str(tmp_path / "r")], catch_exceptions=False)
    assert result.exit_code == 0, result.output
    warnings = [line for line in result.stderr.splitlines() if "ignoring `tools`" in line]
    assert len(warnings) == 1 and warnings[0].startswith("fcbench: warning: the first 10 FC")
    manifest = json.loads((tmp_path / "r" / "m-FC" / "model.json").read_text())
    assert manifest["runs"][-1]["warnings"] == [warnings[0].removeprefix("fcbench: warning: ")]
    sources = Sources.find([tmp_path / "r"])
    assert sources.run_warnings("m-FC") == manifest["runs"][-1]["warnings"]
