"""`fcbench generate` / `fcbench run`: flags, errors, the ground-truth self-check, formats."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fake_openai import FakeOpenAI
from fcbench.cli import main


def cli(*args: str) -> Any:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


def test_ground_truth_run_and_rerun_failed(fetched_home: Path, tmp_path: Path) -> None:
    base = ["--model", "ground-truth", "--categories", "live_simple",
            "--result-dir", str(tmp_path / "result"), "--score-dir", str(tmp_path / "score")]
    result = cli("run", *base)
    assert result.exit_code == 0, result.output
    assert "Self-check (fc mode)" in result.output
    assert "fail 2 case(s)" in result.output and "live_simple_106-63-0" in result.output
    folder = tmp_path / "result" / "ground-truth-FC"
    assert (folder / "live" / "BFCL_v4_live_simple_result.json").is_file()
    manifest = json.loads((folder / "model.json").read_text())
    assert manifest["backend"] == "ground-truth" and manifest["fc_names"] == "underscore"
    again = cli("generate", *base, "--rerun-failed")
    assert "asked 2 case(s)" in again.output and "256 already done" in again.output
    resumed = cli("generate", *base)
    assert "asked 0 case(s)" in resumed.output


def test_refusals(fetched_home: Path, tmp_path: Path) -> None:
    out = ["--result-dir", str(tmp_path / "r")]
    no_url = cli("generate", "--model", "m", "--categories", "simple_python", *out)
    assert no_url.exit_code == 2 and "--base-url" in no_url.output
    multi = cli("generate", "--model", "ground-truth", "--categories", "multi_turn_composite", *out)
    assert multi.exit_code == 2 and "can generate" in multi.output
    unknown = cli("generate", "--model", "ground-truth", "--categories", "nope", *out)
    assert unknown.exit_code == 2 and "unknown category" in unknown.output
    bad = cli("generate", "--model", "m", "--base-url", "http://127.0.0.1:9/v1",
              "--extra-body", "{nope", "--categories", "simple_python", *out)
    assert bad.exit_code == 2 and "--extra-body" in bad.output
    cli("generate", "--model", "ground-truth", "--name", "gt", "--categories", "irrelevance", *out)
    clash = cli("generate", "--model", "ground-truth", "--name", "gt", "--mode", "prompt",
                "--categories", "irrelevance", *out)
    assert clash.exit_code == 2 and "holds fc results" in clash.output


def hermes(request: dict[str, Any]) -> dict[str, Any]:
    """A model served without a tool parser: the call arrives as Hermes text."""
    name = request["tools"][0]["function"]["name"]
    return {"content": f'<tool_call>\n{{"name": "{name}", "arguments": {{}}}}\n</tool_call>'}


def test_output_format_parses_text_calls(fetched_home: Path, tmp_path: Path) -> None:
    with FakeOpenAI(hermes) as server:
        result = cli("generate", "--model", "m", "--base-url", server.base_url,
                     "--categories", "simple_python", "--output-format", "hermes",
                     "--top-p", "0.5", "--max-tokens", "64", "--extra-body", '{"top_k": 1}',
                     "--result-dir", str(tmp_path / "r"), "--quiet")
    assert result.exit_code == 0, result.output
    path = tmp_path / "r" / "m-FC" / "non_live" / "BFCL_v4_simple_python_result.json"
    first = json.loads(path.read_text().splitlines()[0])
    assert first["result"] == [{"calculate_triangle_area": "{}"}]
    assert first["raw_text"].startswith("<tool_call>")
    manifest = json.loads((tmp_path / "r" / "m-FC" / "model.json").read_text())
    assert manifest["sampling"] == {"temperature": 0.001, "top_p": 0.5, "max_tokens": 64,
                                    "extra_body": {"top_k": 1}}


def test_requests_carry_the_sampling_parameters(fetched_home: Path, tmp_path: Path) -> None:
    seen: list[dict[str, Any]] = []

    def record(request: dict[str, Any]) -> dict[str, Any]:
        seen.append(request)
        return {"content": "[f(a=1)]"}

    with FakeOpenAI(record) as server:
        cli("generate", "--model", "my/model", "--mode", "prompt", "--base-url", server.base_url,
            "--base-url", server.base_url, "--categories", "irrelevance", "--temperature", "0.7",
            "--extra-body", '{"seed": 3}', "--result-dir", str(tmp_path / "r"), "--quiet")
    assert len(seen) == 240
    request = seen[0]
    assert request["model"] == "my/model" and request["temperature"] == 0.7
    assert request["seed"] == 3 and "tools" not in request
    assert request["messages"][0]["role"] == "system"
    assert (tmp_path / "r" / "my_model" / "non_live").is_dir()


def test_rich_progress_draws(tmp_path: Path) -> None:
    from rich.console import Console

    from fcbench.cli_run import RichProgress
    from fcbench.dataset import categories
    from fcbench.runner.generate import GenerationJob
    from fcbench.runner.store import CategoryStore

    buffer = io.StringIO()
    progress = RichProgress(Console(file=buffer, force_terminal=True, width=150))
    job = GenerationJob(categories.get("simple_python"), CategoryStore(tmp_path / "x"), [], 10, 4)
    progress.start([job])
    job.stats.done, job.stats.retries, job.stats.errors = 3, 2, 1
    progress.update(job)
    progress.stop()
    text = buffer.getvalue()
    assert "simple_python" in text and "7/10" in text and "retries 2" in text


@pytest.mark.parametrize("args", [["generate", "--help"], ["run", "--help"]])
def test_help(args: list[str]) -> None:
    result = cli(*args)
    assert result.exit_code == 0 and "--concurrency" in result.output


def test_ground_truth_exec_self_check_counts_skipped_apart(
    fetched_home: Path, tmp_path: Path
) -> None:
    out = ["--result-dir", str(tmp_path / "r"), "--score-dir", str(tmp_path / "s")]
    result = cli("run", "--model", "ground-truth", "--categories", "exec_simple", *out)
    assert result.exit_code == 0, result.output
    assert "fail 0 case(s)" in result.output
    assert "(38 executable case(s) skipped" in result.output
    resumed = cli("generate", "--model", "ground-truth", "--categories", "exec_simple", *out)
    assert "asked 0 case(s)" in resumed.output and "100 already done" in resumed.output
    replay = cli("run", "--model", "ground-truth", "--categories", "exec_simple",
                 "--exec-backend", "replay", *out)
    assert replay.exit_code == 2
    assert replay.output.strip().splitlines() == [
        "fcbench: error: --exec-backend replay needs --exec-replay-dir, a folder of recorded "
        "responses (got None)"]
