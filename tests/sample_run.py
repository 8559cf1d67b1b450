"""A real scored run for the formats with samples (tests/export/test_samples.py and
test_inspect_log.py): ground truth on 3 cases of a single-turn, a relevance and a multi-turn
category, simple_python_0's answer replaced by a call no one offered, evaluated again, so
there is one failure among passes. `verdicts` reads the expected verdicts from the score and
result files as plain JSON lines (not through fcbench's readers)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

CATEGORIES = ("simple_python", "irrelevance", "multi_turn_base")
FOLDER = "ground-truth-FC"


@pytest.fixture(scope="module")
def sample_run(fetched_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Ground truth on 3 cases of each category, simple_python_0's answer replaced by a call
    no one offered, evaluated again: one failure among passes, single- and multi-turn."""
    from fcbench.api import evaluate
    from fcbench.pipeline import run as generate

    root = tmp_path_factory.mktemp("samples")
    generate("ground-truth", categories=list(CATEGORIES), limit=3,
             result_dir=root / "result", score_dir=root / "first")
    file = next((root / "result").rglob("BFCL_v4_simple_python_result.json"))
    lines = file.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["result"] = [{"no_such_function": "{}"}]
    file.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    evaluate(root / "result", score_dir=root / "score")
    (root / "info.json").write_text(json.dumps({FOLDER: {"organization": "Gorilla Team"}}))
    return root


def verdicts(root: Path) -> dict[str, bool]:
    """Case id -> valid, from the score files (failures listed) and the result files (every
    case asked), read as plain JSON lines."""
    found: dict[str, bool] = {}
    for category in CATEGORIES:
        result = next((root / "result").rglob(f"BFCL_v4_{category}_result.json"))
        score = next((root / "score").rglob(f"BFCL_v4_{category}_score.json"))
        failed = {json.loads(line)["id"] for line in score.read_text().splitlines()[1:]}
        for line in result.read_text(encoding="utf-8").splitlines():
            case_id = json.loads(line)["id"]
            found[case_id] = case_id not in failed
    return found


def break_answer(result_dir: Path, category: str, index: int) -> None:
    """Make case `index` of a category's result file call a function no one offered."""
    file = next(result_dir.rglob(f"BFCL_v4_{category}_result.json"))
    lines = file.read_text(encoding="utf-8").splitlines()
    entry = json.loads(lines[index])
    entry["result"] = [{"no_such_function": "{}"}]
    lines[index] = json.dumps(entry)
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")


@pytest.fixture(scope="module")
def repeated_run(sample_run: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The sample run as a `--repeats 2` run lays it out: repeat folders
    `ground-truth-FC.repeat-<i>` side by side (no `ground-truth-FC`), simple_python_0 wrong in
    both, simple_python_1 wrong in repeat 2 only (a flaky case), scored by evaluate."""
    import shutil

    from fcbench.api import evaluate

    root = tmp_path_factory.mktemp("repeated")
    source = next(p for p in (sample_run / "result").rglob(FOLDER) if p.is_dir())
    for index in (1, 2):
        shutil.copytree(source, root / "result" / f"{FOLDER}.repeat-{index}")
    break_answer(root / "result" / f"{FOLDER}.repeat-2", "simple_python", 1)
    evaluate(root / "result", score_dir=root / "score")
    (root / "info.json").write_text(json.dumps({
        f"{FOLDER}.repeat-{i}": {"organization": "Gorilla Team"} for i in (1, 2)}))
    return root
