"""Issue 33 item 5: `leaderboard.json` (and the CSVs) of a folder named like a model the
official registry knows carry its display name, link, organisation, licence and its cost by
the official formula; `--model-info` still overrides; a cache without facts says once how to
get them and the board is made as before."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from fcbench.cli import main
from fcbench.dataset.fetch import DEFAULT_RELEASE, clear_caches, sha256_file
from fcbench.dataset.model_facts import FACTS_CHECKSUM, MODEL_FACTS, write_model_facts

REGISTRY = '''
api_inference_model_map = {
    "gpt-4o-2024-11-20-FC": ModelConfig(
        model_name="gpt-4o-2024-11-20",
        display_name="GPT-4o-2024-11-20 (FC)",
        url="https://openai.com/index/hello-gpt-4o/",
        org="OpenAI",
        license="Proprietary",
        model_handler=OpenAIResponsesHandler,
        input_price=2.5,
        output_price=10,
    ),
}
local_inference_model_map = {
    "Org/Open-7B-FC": ModelConfig(display_name="Open-7B (FC)", url="https://hf.example/o7",
                                  org="Org", license="apache-2.0", input_price=None,
                                  output_price=None),
}
'''
SCORE = "non_live/BFCL_v4_simple_python_score.json"
RESULT = "non_live/BFCL_v4_simple_python_result.json"


@pytest.fixture
def facts_home(fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home whose default release is the fetched one (data linked) with a facts file made
    from the hand-made registry above, checksummed in its manifest."""
    source = fetched_home / "releases" / DEFAULT_RELEASE
    target = tmp_path / "home" / "releases" / DEFAULT_RELEASE
    target.mkdir(parents=True)
    (target / "data").symlink_to(source / "data")
    shutil.copy(source / "constants.json", target / "constants.json")
    write_model_facts(target, DEFAULT_RELEASE, REGISTRY)
    manifest = json.loads((source / "manifest.json").read_text())
    manifest[FACTS_CHECKSUM] = sha256_file(target / MODEL_FACTS)
    (target / "manifest.json").write_text(json.dumps(manifest))
    monkeypatch.setenv("FCBENCH_HOME", str(tmp_path / "home"))
    clear_caches()
    return target


def _folders(tmp_path: Path) -> tuple[Path, Path]:
    """Hand-made score and result files: an API model and an open model the registry knows
    (folders named as the official tool names them), and a model it does not."""
    scores, results = tmp_path / "score", tmp_path / "result"
    usage = {
        "gpt-4o-2024-11-20-FC": [(400_000, 100_000, 2.0), (600_000, 100_000, 4.0)],
        "Org_Open-7B-FC": [(10, 5, 1800.0), (10, 5, 1800.0)],
        "my-own-model": [(10, 5, 3.0), (10, 5, 3.0)],
    }
    for model, rows in usage.items():
        score = scores / model / SCORE
        score.parent.mkdir(parents=True)
        score.write_text(json.dumps({"accuracy": 1.0, "correct_count": 2, "total_count": 2})
                         + "\n")
        result = results / model / RESULT
        result.parent.mkdir(parents=True)
        result.write_text("".join(
            json.dumps({"id": f"simple_python_{i}", "result": "x", "input_token_count": a,
                        "output_token_count": b, "latency": s}) + "\n"
            for i, (a, b, s) in enumerate(rows)))
    return scores, results


def _board(args: list[str]) -> tuple[dict[str, Any], str]:
    result = CliRunner().invoke(main, ["leaderboard", *args])
    assert result.exit_code == 0, result.output
    out = Path(args[args.index("-o") + 1])
    models = json.loads((out / "leaderboard.json").read_text())["models"]
    return {m["model"]: m for m in models}, result.stderr


def test_a_known_model_folder_gets_the_official_facts_and_cost(
    facts_home: Path, tmp_path: Path
) -> None:
    scores, results = _folders(tmp_path)
    board, said = _board([str(scores), "--result-dir", str(results), "-o", str(tmp_path / "o")])
    gpt = board["gpt-4o-2024-11-20-FC"]
    assert (gpt["display_name"], gpt["url"], gpt["organization"], gpt["license"]) == (
        "GPT-4o-2024-11-20 (FC)", "https://openai.com/index/hello-gpt-4o/", "OpenAI",
        "Proprietary")
    assert gpt["cost"] == round(1_000_000 * 2.5 / 1e6 + 200_000 * 10 / 1e6, 2) == 4.5
    open_model = board["Org_Open-7B-FC"]  # no prices: the local-GPU rate, as upstream
    assert (open_model["display_name"], open_model["organization"]) == ("Open-7B (FC)", "Org")
    assert open_model["cost"] == round(1.0 * 23.92 / 100, 2)
    mine = board["my-own-model"]
    assert (mine["display_name"], mine["url"], mine["organization"]) == (
        "my-own-model", "N/A", "N/A")
    overall = (tmp_path / "o" / "data_overall.csv").read_text()
    assert "GPT-4o-2024-11-20 (FC),https://openai.com/index/hello-gpt-4o/,4.5," in overall
    assert "model facts" not in said


def test_model_info_still_overrides_the_official_facts(facts_home: Path, tmp_path: Path) -> None:
    scores, results = _folders(tmp_path)
    info = tmp_path / "info.json"
    info.write_text(json.dumps({"gpt-4o-2024-11-20-FC": {
        "display_name": "Mine", "organization": "Me", "input_price": 0, "output_price": 0}}))
    board, _ = _board([str(scores), "--result-dir", str(results), "--model-info", str(info),
                       "-o", str(tmp_path / "o")])
    gpt = board["gpt-4o-2024-11-20-FC"]
    assert (gpt["display_name"], gpt["organization"], gpt["url"], gpt["cost"]) == (
        "Mine", "Me", "N/A", 0.0)
    assert board["Org_Open-7B-FC"]["display_name"] == "Open-7B (FC)"  # not named: official


def test_a_cache_without_facts_says_how_to_get_them_once(
    facts_home: Path, tmp_path: Path
) -> None:
    manifest = json.loads((facts_home / "manifest.json").read_text())
    del manifest[FACTS_CHECKSUM]
    (facts_home / "manifest.json").write_text(json.dumps(manifest))
    (facts_home / MODEL_FACTS).unlink()
    clear_caches()
    from fcbench.report import known_models

    known_models._SAID.clear()
    scores, results = _folders(tmp_path)
    board, said = _board([str(scores), "--result-dir", str(results), "-o", str(tmp_path / "o")])
    assert board["gpt-4o-2024-11-20-FC"]["organization"] == "N/A"
    assert said.count("has no model facts") == 1 and "`fcbench data fetch` adds them" in said
    assert "Traceback" not in said


def test_the_html_reports_cost_uses_the_official_prices(facts_home: Path, tmp_path: Path) -> None:
    """The report's cost column: the priced model by its tokens, the open one at the GPU
    rate, as in leaderboard.json."""
    from fcbench.api import dataset_sizes
    from fcbench.report.html.collect import collect
    from fcbench.score.disputed import load_disputed

    scores, results = _folders(tmp_path)
    document = collect([scores], [results], DEFAULT_RELEASE, None,
                       dataset_sizes(DEFAULT_RELEASE, None), load_disputed())
    cost = {m["name"]: m["usage"]["cost"] for m in document["models"]}
    assert cost["gpt-4o-2024-11-20-FC"] == 4.5
    assert cost["Org_Open-7B-FC"] == round(23.92 / 100, 2)
    assert not document["problems"], document["problems"]
