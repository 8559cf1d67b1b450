"""End to end over real HTTP: `fcbench run` against a local server replaying recorded outputs.

The server answers each request with what a real model (gpt-4o-2024-08-06, FC and prompt)
answered for that case in the official runs (../shared/corpus/v1); the scores `fcbench run`
reports must be exactly those `fcbench evaluate` gives on the original result files, case by
case. Each mode runs a stripe of the cases (every other case of each category, FC the even
positions, prompt the odd ones: together every case, and every category in each). The same
holds when the server injects faults.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fake_openai import CorpusResponder, FakeOpenAI, deterministic_faults
from fcbench.cli import main
from shared_corpus import REASON, V1
from stripes import stripe

CORPUS = V1
V1 = ["simple_python", "simple_java", "simple_javascript", "multiple", "parallel",
      "parallel_multiple", "irrelevance"]
MODELS = {"fc": "gpt-4o-2024-08-06-FC", "prompt": "gpt-4o-2024-08-06"}


@pytest.fixture(scope="module")
def corpus() -> Path:
    if not (CORPUS / MODELS["fc"]).is_dir():
        pytest.skip(REASON)
    return CORPUS


def verdicts(result_dir: Path, model: str, cats: list[str],
             ids: list[str] | None = None) -> dict[str, tuple[bool, Any]]:
    from fcbench.api import evaluate
    from fcbench.dataset.selection import Selection

    selection = Selection.of(ids=ids) if ids is not None else None
    report = evaluate(result_dir, models=[model], categories=cats, selection=selection)
    return {
        c.id: (c.verdict.valid, c.verdict.error_type)
        for evaluation in report.models[model].categories.values()
        for c in evaluation.cases
    }


def original(corpus: Path, tmp: Path, model: str, cats: list[str],
             ids: list[str] | None = None) -> dict[str, Any]:
    """Verdicts on the recorded files themselves (copied: the corpus is read-only), of the
    cases `ids` when given."""
    folder = tmp / "original" / model
    folder.mkdir(parents=True)
    shutil.copy(corpus / model / "model.json", folder)
    for name in cats:
        shutil.copy(corpus / model / f"BFCL_v4_{name}_result.json", folder)
    return verdicts(tmp / "original", model, cats, ids)


def cli(*args: str) -> Any:
    result = CliRunner().invoke(main, list(args), catch_exceptions=False)
    return result


@pytest.mark.parametrize("mode", ["fc", "prompt"])
def test_run_scores_equal_evaluate_on_the_recorded_files(
    fetched_home: Path, corpus: Path, tmp_path: Path, mode: str
) -> None:
    model = MODELS[mode]
    ids = stripe(V1, part=0 if mode == "fc" else 1)
    with FakeOpenAI(CorpusResponder(corpus / model, V1)) as server:
        result = cli(
            "run", "--model", "gpt-4o-2024-08-06", "--name", model, "--mode", mode,
            "--base-url", server.base_url, "--categories", ",".join(V1), "--ids", ",".join(ids),
            "--result-dir", str(tmp_path / "result"), "--score-dir", str(tmp_path / "score"),
            "--concurrency", "16", "--quiet",
        )
    assert result.exit_code == 0, result.output
    ours = verdicts(tmp_path / "result", model, V1, ids)
    assert sorted(ours) == sorted(ids) and len(ids) == 1390 // 2
    assert ours == original(corpus, tmp_path, model, V1, ids)
    manifest = json.loads((tmp_path / "result" / model / "model.json").read_text())
    assert manifest["mode"] == mode and manifest["sampling"]["temperature"] == 0.001
    assert manifest["dataset"]["checksum"].startswith("sha256:")
    assert manifest["runs"][-1]["asked"] == len(ids)
    score = tmp_path / "score" / model / "non_live" / "BFCL_v4_simple_python_score.json"
    assert json.loads(score.read_text().splitlines()[0])["total_count"] == 200


FAULT_CATS = ["simple_python", "multiple", "irrelevance", "simple_java"]


def test_faults_give_the_clean_result(fetched_home: Path, corpus: Path, tmp_path: Path) -> None:
    model = MODELS["fc"]
    faults = deterministic_faults(rate=0.4, max_failures=2)
    with FakeOpenAI(CorpusResponder(corpus / model, FAULT_CATS), faults,
                    stall_seconds=3.0) as server:
        result = cli(
            "generate", "--model", "m", "--name", model, "--base-url", server.base_url,
            "--categories", ",".join(FAULT_CATS), "--result-dir", str(tmp_path / "result"),
            "--concurrency", "32", "--timeout", "0.5", "--quiet",
        )
        injected = dict(server.injected)
    assert result.exit_code == 0, result.output
    assert set(injected) == {"429", "500", "503", "stall", "drop", "malformed", "nochoices"}
    assert verdicts(tmp_path / "result", model, FAULT_CATS) == original(
        corpus, tmp_path, model, FAULT_CATS
    )
    for name in FAULT_CATS:
        recorded = (corpus / model / f"BFCL_v4_{name}_result.json").read_text().splitlines()
        group = "non_live"
        ours = (tmp_path / "result" / model / group / f"BFCL_v4_{name}_result.json")
        got = [json.loads(line) for line in ours.read_text().splitlines()]
        want = [json.loads(line) for line in recorded]
        assert [(e["id"], e["result"]) for e in got] == [(e["id"], e["result"]) for e in want]
        assert any(e["attempts"] > 1 for e in got)


def test_permanent_error_is_recorded_not_fatal(fetched_home: Path, tmp_path: Path) -> None:
    def faults(request: dict[str, Any], attempt: int) -> str | None:
        return "400" if "5" in str(request["messages"][-1]["content"])[:40] else None

    class BadRequest(FakeOpenAI):
        async def _fault(self, fault: str, writer: Any) -> bool:
            from fake_openai import _http

            body = json.dumps({"error": {"message": "context length exceeded"}}).encode()
            writer.write(_http(400, body))
            await writer.drain()
            return True

    args = ["generate", "--model", "m", "--categories", "simple_python",
            "--result-dir", str(tmp_path / "r"), "--quiet"]
    with BadRequest(faults=faults) as server:
        result = cli(*args, "--base-url", server.base_url)
        assert result.exit_code == 1
        assert "error(s)" in result.output
    path = tmp_path / "r" / "m-FC" / "non_live" / "BFCL_v4_simple_python_result.json"
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    errored = [e for e in entries if "error" in e]
    assert len(entries) == 400 and errored
    assert all(e["result"].startswith("Error during inference: HTTP 400") for e in errored)
    assert all(e["attempts"] == 1 for e in errored)
    with FakeOpenAI() as server:  # resume: only the errored cases are asked again
        result = cli(*args, "--base-url", server.base_url)
        assert result.exit_code == 0 and server.requests == len(errored)
    entries = [json.loads(line) for line in path.read_text().splitlines()]
    assert len(entries) == 400 and not any("error" in e for e in entries)
